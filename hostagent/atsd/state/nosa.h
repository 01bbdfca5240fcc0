/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Answers without the SA (DAT ATS 5.1, point to point): when the SA does
 * not answer, atsd answers from what the host itself knows, its own
 * addresses on its port's GID, and an IPv6 address that is a port's
 * default GID (subnet prefix + port GUID) as that GID. Pure: the caller
 * gathers what the host knows. */
#ifndef IBATS_NOSA_H
#define IBATS_NOSA_H

#include <stddef.h>
#include <stdint.h>

#include "plan.h"
#include "sa/saj.h"
#include "core/sr.h"

/* What the host knows without asking. */
struct nosa_self {
	const uint8_t *gid;            /* the port's GID: its prefix and GUID */
	const struct held_rec *recs;   /* its wanted addresses and their SIDs */
	size_t nrecs;
};

/* 1 when a lookup's error means the SA did not answer (timed out after
 * its retries, or the port is down or has no SM): only then may a local
 * answer stand in. An SA that answers, even "no record" or an error
 * status of its class, is authoritative; a port without an SA agent
 * (common status "unsupported") is no SA. */
int nosa_applies(int err);

/* The local answer to lookup kind (SAJ_FORWARD, SAJ_REVERSE,
 * SAJ_PRIMARY) of q: 0 with *out (malloc'ed) and *n, -ENOENT when the
 * host knows nothing of it, -ENOMEM. */
int nosa_answer(enum saj_kind kind, const struct saj_lookup *q,
		const struct nosa_self *self, struct sr_record **out, size_t *n);

#endif
