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

#include "host/ats_query.h"
#include "plan.h"
#include "core/sr.h"

/* What the host knows without asking. */
struct nosa_self {
	const uint8_t *gid;            /* the port's GID: its prefix and GUID */
	const struct plan_held_rec *recs;   /* its wanted addresses and their SIDs */
	size_t nrecs;
};

/* 1 when a lookup's error means the SA did not answer (timed out after
 * its retries, or the port is down or has no SM): only then may a local
 * answer stand in. An SA that answers, even "no record" or an error
 * status of its class, is authoritative; a port without an SA agent
 * (common status "unsupported") is no SA. */
int nosa_applies(int err);

/* What an SA exchange's outcome says of the SA: */
enum nosa_evidence {
	NOSA_EV_NONE,     /* nothing (a local error, a garbled answer) */
	NOSA_EV_SILENT,   /* it is silent or gone: no answer in time, no
			   * SA agent at the SM's port, the port down */
	NOSA_EV_ANSWERED, /* it answered: records, "no record", a refusal */
};

/* err and sa_status (the answer's MAD status, 0 without one) of an SA
 * exchange. -EOPNOTSUPP is evidence only with its status (the port's
 * kernel answered "unsupported", mad.c generate_unmatched_resp): atsd
 * also says it for things it does not do itself. */
enum nosa_evidence nosa_evidence(int err, uint16_t sa_status);

/* How a lookup the cache cannot answer goes, by what is known of the
 * SA (down: the last evidence was NOSA_EV_SILENT), whether the host
 * has a local answer, and whether an SA lookup is in flight already. */
enum nosa_route {
	NOSA_ASK,          /* to the SA; the client waits for its answer */
	NOSA_LOCAL,        /* the local answer now, nothing asked */
	NOSA_LOCAL_PROBE,  /* the local answer now, and the SA asked in the
			    * background: its answer says it is back */
};

enum nosa_route nosa_route(int down, int have_local, int inflight);

/* The local answer to lookup q: 0 with *out (malloc'ed) and *n, -ENOENT
 * when the host knows nothing of it, -ENOMEM. */
int nosa_answer(const struct ats_query_lookup *q, const struct nosa_self *self,
		struct sr_record **out, size_t *n);

#endif
