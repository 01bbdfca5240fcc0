/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Rate limit of the plugin's refusal log lines, per requester: the first
 * `burst` lines of an interval are logged, the rest only counted, and a
 * summary of what was left out follows when the interval ends. A port
 * that sends a refused request a million times costs the log `burst`
 * lines and one summary per interval, never a line per MAD.
 *
 * Pure: the caller passes the time (monotonic ns) and does the locking
 * and the logging, so the limiter is unit-tested with a fake clock. */
#ifndef IBATS_RATELIM_H
#define IBATS_RATELIM_H

#include <stddef.h>
#include <stdint.h>

#define RATELIM_SLOTS 64          /* requesters tracked one by one */
#define RATELIM_KINDS 16          /* kinds of refusal counted per requester */
#define RATELIM_OTHERS UINT64_MAX /* the shared slot once every slot is busy */

struct ratelim_summary {
	uint64_t who;        /* requester, RATELIM_OTHERS for the overflow */
	uint64_t suppressed; /* lines left out */
	uint64_t span_ns;    /* over this long */
	uint64_t by_kind[RATELIM_KINDS];
};

struct ratelim_slot {
	uint64_t who;
	uint64_t start;
	uint64_t logged;
	struct ratelim_summary sum;
	int used;
};

struct ratelim {
	unsigned burst;
	uint64_t interval_ns;
	struct ratelim_slot slot[RATELIM_SLOTS];
	struct ratelim_slot others;
};

void ratelim_init(struct ratelim *r, unsigned burst, uint64_t interval_ns);

/* One refusal of kind (< RATELIM_KINDS, others count as RATELIM_KINDS - 1) from
 * who at now. Returns 1 when it is to be logged. When this ends an
 * earlier interval that left lines out, *sum gets its summary and
 * *have_sum is set: log it first. */
int ratelim_event(struct ratelim *r, uint64_t who, unsigned kind, uint64_t now,
	     struct ratelim_summary *sum, int *have_sum);

/* Close the intervals that have ended by now; fn gets each summary of
 * lines left out. */
void ratelim_expire(struct ratelim *r, uint64_t now,
	       void (*fn)(const struct ratelim_summary *s, void *arg), void *arg);

/* When the next summary is due (an interval with lines left out ends),
 * or 0 when none is pending. */
uint64_t ratelim_next_due(const struct ratelim *r);

#endif
