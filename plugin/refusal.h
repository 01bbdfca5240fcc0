/* The refusal log lines' limiter (ratelim.c) and its summaries: the
 * first lines per requester and interval are logged, the rest counted
 * into one WRN 7A13 line when the interval ends. */
#ifndef IBATS_REFUSAL_H
#define IBATS_REFUSAL_H

#include <stdint.h>

/* The key of a requester known only by its LID (others are keyed by
 * port GUID). */
#define REFUSAL_LID (1ull << 63)

void refusal_init(void);
/* Whether a refusal line of kind (a pol_rule, or RL_KINDS - 1 for an
 * unknown requester) from who may be logged now; logs the summary of an
 * earlier interval this one closes. Any lock. */
int refusal_allowed(uint64_t who, unsigned kind);
/* When the next summary is due (mono_ns), 0 when none is pending. */
uint64_t refusal_next_due(void);
/* Log the summaries whose interval is over. */
void refusal_expire(void);

#endif
