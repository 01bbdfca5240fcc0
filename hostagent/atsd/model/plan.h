/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* What the agent wants registered, and the SA operations that take the
 * SA from what it holds to that (DAT Collaborative ATS v1 sections 2.1,
 * 3.1). Pure functions. */
#ifndef IBATS_PLAN_H
#define IBATS_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "core/ats.h"

/* A candidate address from a source (interface, config, hold), in the
 * order sources were read. Higher prio wins the primary SID. */
enum plan_want_prio {
	PLAN_WANT_OTHER = 0,         /* IPv6, secondary IPv4, static, hold */
	PLAN_WANT_IF_PRIMARY = 1,    /* an interface's primary IPv4 */
	PLAN_WANT_FORCED = 2,        /* marked primary in the config */
};

struct plan_want_cand {
	struct ats_ip ip;
	uint16_t pkey;
	enum plan_want_prio prio;
};

struct plan_want_addr {
	struct ats_ip ip;
	uint16_t pkey;
	int primary;
};

/* Dedupe candidates per (ip, pkey) and pick one primary per pkey. */
int plan_want_build(const struct plan_want_cand *c, size_t n, struct plan_want_addr **out,
		    size_t *nout);

struct plan_held_rec {
	uint64_t sid;
	uint16_t pkey;
	struct ats_ip ip;
};

enum plan_op {
	PLAN_DELETE,
	PLAN_SET,
};

struct plan_action {
	enum plan_op op;
	uint64_t sid;
	uint16_t pkey;
	struct ats_ip ip; /* PLAN_SET: the address; PLAN_DELETE: what it held */
};

/* Order: unwanted secondaries deleted first (also the secondary that holds
 * the new primary address), then the primary set, then new secondaries on
 * the next free SIDs in registration order (...54, ..., ...FF, ...00, ...,
 * ...52), and the primary deleted last when nothing is wanted. Records
 * that already match are left alone. -ENOSPC when a PKey would need more
 * than 256 records. */
int plan_build(const struct plan_want_addr *want, size_t nwant,
	       const struct plan_held_rec *held, size_t nheld,
	       struct plan_action **out, size_t *nout);

/* plan_build with records of our GID that atsd did not register (an
 * admin's `atsctl register`, another tool's): never set over, never
 * deleted. Their SIDs count as used; a wanted address one of them
 * already carries (same IP and PKey) counts as registered; when one holds
 * the primary SID with another address, the wanted primary goes to a
 * secondary SID. */
int plan_build_foreign(const struct plan_want_addr *want, size_t nwant,
		       const struct plan_held_rec *held, size_t nheld,
		       const struct plan_held_rec *foreign, size_t nforeign,
		       struct plan_action **out, size_t *nout);

/* An address the SA refused to register (a Set answered with an SA error
 * status, e.g. REQ_INVALID from the plugin's duplicate-address rule). */
struct plan_refused {
	struct ats_ip ip;
	uint16_t pkey;
	uint64_t sid;           /* the SID of the refused Set */
	uint16_t sa_status;     /* the MAD status of the answer */
	int64_t retry_at;       /* ms, agent clock */
	char why[200];          /* the SM's reason (lib/core/smq.h), or "" */
};

/* A failed Set: refused by the SA (1: mark the address refused, retry it
 * slowly) or a transient failure (0: timeout, SA busy, out of resources;
 * retry with the backoff). mad_status 0: no answer at all. */
int plan_is_refusal(uint16_t mad_status);

/* Remove from want the addresses refused and not due for a retry at now.
 * A PKey whose primary was removed gets the first remaining address of
 * that PKey as primary, so one refused address does not keep the others
 * off the primary SID (DAT Collaborative ATS v1 section 3.1: primary
 * first). */
void plan_want_drop_refused(struct plan_want_addr *want, size_t *nwant,
			    const struct plan_refused *r, size_t nr, int64_t now);

#endif
