/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* IPoIB broadcast group joins (SA thread side of SAJ_IPOIB). */
#ifndef IBATS_IPOIB_EXEC_H
#define IBATS_IPOIB_EXEC_H

#include "core/sa_client.h"
#include "saj.h"

/* Join, leave or check each group of j->u.ipoib; per group its outcome. */
void ipoib_exec_run(struct sa_client *sa, struct saj *j);

#endif
