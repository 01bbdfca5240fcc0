/* What the agent wants registered, and the SA operations that take the
 * SA from what it holds to that (spec 2.1, 3.1). Pure functions. */
#ifndef IBATS_PLAN_H
#define IBATS_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "ats.h"

/* A candidate address from a source (interface, config, hold), in the
 * order sources were read. Higher prio wins the primary SID. */
enum want_prio {
	WANT_OTHER = 0,         /* IPv6, secondary IPv4, static, hold */
	WANT_IF_PRIMARY = 1,    /* an interface's primary IPv4 */
	WANT_FORCED = 2,        /* marked primary in the config */
};

struct want_cand {
	struct ats_ip ip;
	uint16_t pkey;
	enum want_prio prio;
};

struct want_addr {
	struct ats_ip ip;
	uint16_t pkey;
	int primary;
};

/* Dedupe candidates per (ip, pkey) and pick one primary per pkey. */
int want_build(const struct want_cand *c, size_t n, struct want_addr **out,
	       size_t *nout);

struct held_rec {
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
int plan_build(const struct want_addr *want, size_t nwant,
	       const struct held_rec *held, size_t nheld,
	       struct plan_action **out, size_t *nout);

#endif
