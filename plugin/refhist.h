/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* What the SM keeps of its refusals for the hosts to ask (smquery.c):
 * per requester port GUID its last REFHIST_PER_PORT refused Sets and
 * Deletes, for at most REFHIST_PORTS ports (the port refused longest ago
 * makes room), so memory is bounded whatever the fabric sends. Its own
 * mutex, never OpenSM's lock: the Set dispatcher adds after releasing it. */
#ifndef IBATS_REFHIST_H
#define IBATS_REFHIST_H

#include <stddef.h>
#include <stdint.h>

#include "policy.h"
#include "core/smq.h"

#define REFHIST_PER_PORT 8
#define REFHIST_PORTS 256

/* -ENOMEM */
int refhist_init(void);
void refhist_fini(void);

/* A refusal of req (answered with MAD status status) from the port
 * port_guid, by decision d. Keeps the rule, the record as received but
 * its ServiceKey, and the conflicting owner's GID only when the
 * requester's port is a member of the record's partition (req->req_has_pkey). */
void refhist_add(uint64_t port_guid, const struct policy_request *req,
		 const struct policy_decision *d, uint16_t status);

/* The port's refusals, newest first, ages as of now, into out[0..max);
 * returns how many; *gen counts the port's refusals ever recorded. */
size_t refhist_get(uint64_t port_guid, struct smq_refusal *out, size_t max, uint32_t *gen);

#endif
