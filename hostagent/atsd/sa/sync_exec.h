/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The sync executor (SA thread side of SAJ_SYNC). */
#ifndef IBATS_SYNC_EXEC_H
#define IBATS_SYNC_EXEC_H

#include "core/sa_client.h"
#include "saj.h"
#include "host/smq_client.h"

/* Read what the SA holds for j->port.gid, plan and apply the Sets and
 * Deletes; the outcome in j (err, errmsg) and j->u.sync (result, ...).
 * smq (or NULL): the SM asked why a Set was refused. */
void sync_exec_run(struct sa_client *sa, struct smq_client *smq, struct saj *j);

#endif
