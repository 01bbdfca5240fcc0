/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The refusal log lines' limiter (see refusal.h). */
#include "refusal.h"

#include "glue.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>

#include "core/mono.h"
#include "policy.h"
#include "ratelim.h"

#define BURST 5
#define INTERVAL_NS (10 * 1000000000ull)

static struct {
	pthread_mutex_t mu;
	struct ratelim rl;           /* under mu */
	/* Summaries collected under mu, logged outside it; the one
	 * expirer's (the plugin thread). */
	struct ratelim_summary due[RATELIM_SLOTS + 1];
	size_t ndue;
} F = { .mu = PTHREAD_MUTEX_INITIALIZER };

void refusal_init(void)
{
	ratelim_init(&F.rl, BURST, INTERVAL_NS);
}

_Static_assert((int)REFUSAL_SA_REQUEST == (int)RULE_COUNT && REFUSAL_UNKNOWN == RATELIM_KINDS - 1,
	       "refusal kinds follow the rules and end at the limiter's last");

const char *refusal_kind_name(unsigned kind)
{
	switch (kind) {
	case REFUSAL_SA_REQUEST:
		return "sa-request";
	case REFUSAL_SA_PKEY:
		return "sa-partition";
	case REFUSAL_SA_NO_RECORD:
		return "no-record";
	case REFUSAL_UNKNOWN:
		return "unknown-requester";
	}
	return kind < RULE_COUNT ? rule_name((enum rule)kind) : "?";
}

static void log_summary(const struct ratelim_summary *sum)
{
	char by[256], who[48];
	size_t used = 0;
	unsigned k;

	by[0] = '\0';
	for (k = 0; k < RATELIM_KINDS && used < sizeof(by); k++)
		if (sum->by_kind[k])
			used += (size_t)snprintf(by + used, sizeof(by) - used, "%s%s %" PRIu64,
						 used ? ", " : "",
						 refusal_kind_name(k), sum->by_kind[k]);
	if (sum->who == RATELIM_OTHERS)
		snprintf(who, sizeof(who), "other ports");
	else if (sum->who & REFUSAL_LID)
		snprintf(who, sizeof(who), "unknown LID %u", (unsigned)(sum->who & 0xffff));
	else
		snprintf(who, sizeof(who), "port GUID 0x%016" PRIx64, sum->who);
	GLUE_LOG(GLUE_LOG_INFO,
		 "WRN 7A13: suppressed %" PRIu64 " refusal line(s) from %s in the last %" PRIu64
		 " s (by rule: %s)\n", sum->suppressed, who,
		 (sum->span_ns + 999999999u) / 1000000000u, by);
}

int refusal_allowed(uint64_t who, unsigned kind)
{
	struct ratelim_summary sum;
	int ok, have;

	pthread_mutex_lock(&F.mu);
	ok = ratelim_event(&F.rl, who, kind, (uint64_t)mono_ns(), &sum, &have);
	pthread_mutex_unlock(&F.mu);
	if (have)
		log_summary(&sum);
	return ok;
}

uint64_t refusal_next_due(void)
{
	uint64_t t;

	pthread_mutex_lock(&F.mu);
	t = ratelim_next_due(&F.rl);
	pthread_mutex_unlock(&F.mu);
	return t;
}

static void collect(const struct ratelim_summary *s, void *arg)
{
	(void)arg;
	if (F.ndue < RATELIM_SLOTS + 1)
		F.due[F.ndue++] = *s;
}

void refusal_expire(void)
{
	size_t i;

	pthread_mutex_lock(&F.mu);
	F.ndue = 0;
	ratelim_expire(&F.rl, (uint64_t)mono_ns(), collect, NULL);
	pthread_mutex_unlock(&F.mu);
	for (i = 0; i < F.ndue; i++)
		log_summary(&F.due[i]);
}
