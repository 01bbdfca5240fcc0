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

#define RL_SLOTS 64          /* requesters tracked one by one */
#define RL_KINDS 16          /* kinds of refusal counted per requester */
#define RL_OTHERS UINT64_MAX /* the shared slot once every slot is busy */

struct rl_summary {
	uint64_t who;        /* requester, RL_OTHERS for the overflow */
	uint64_t suppressed; /* lines left out */
	uint64_t span_ns;    /* over this long */
	uint64_t by_kind[RL_KINDS];
};

struct rl_slot {
	uint64_t who;
	uint64_t start;
	uint64_t logged;
	struct rl_summary sum;
	int used;
};

struct rl {
	unsigned burst;
	uint64_t interval_ns;
	struct rl_slot slot[RL_SLOTS];
	struct rl_slot others;
};

void ratelim_init(struct rl *r, unsigned burst, uint64_t interval_ns);

/* One refusal of kind (< RL_KINDS, others count as RL_KINDS - 1) from
 * who at now. Returns 1 when it is to be logged. When this ends an
 * earlier interval that left lines out, *sum gets its summary and
 * *have_sum is set: log it first. */
int ratelim_event(struct rl *r, uint64_t who, unsigned kind, uint64_t now,
	     struct rl_summary *sum, int *have_sum);

/* Close the intervals that have ended by now; fn gets each summary of
 * lines left out. */
void ratelim_expire(struct rl *r, uint64_t now,
	       void (*fn)(const struct rl_summary *s, void *arg), void *arg);

/* When the next summary is due (an interval with lines left out ends),
 * or 0 when none is pending. */
uint64_t ratelim_next_due(const struct rl *r);

#endif
