/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The lookup cache filled ahead (ctl_prefetch.h). */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "core/log.h"
#include "core/mono.h"
#include "ctl_lookup.h"
#include "ctl_prefetch.h"
#include "host/ats_query.h"

static struct {
	struct sa_thread *saj;
	const struct agent_conf *conf;
	int armed;          /* the SA answered: reads may start */
	int busy;           /* a read is with the SA thread */
	unsigned too_large; /* tables in a row that exceeded prefetch_max */
	int failing;        /* the last read failed (said once) */
	uint64_t clears;    /* ctl_lookup_clears() when the read started */
	int64_t due_ms;     /* the next read, INT64_MAX none */
	struct ctl_prefetch_stats st;
} pf = { .due_ms = INT64_MAX };

void ctl_prefetch_init(struct sa_thread *saj, const struct agent_conf *conf)
{
	pf.saj = saj;
	pf.conf = conf;
}

void ctl_prefetch_start(void)
{
	if (!pf.armed && pf.conf->prefetch_max) {
		pf.armed = 1;
		pf.due_ms = mono_ms();
	}
}

void ctl_prefetch_sm_changed(void)
{
	pf.too_large = 0;
	if (pf.armed && pf.conf->prefetch_max)
		pf.due_ms = mono_ms();
}

static int fill(const struct ats_ip *ip, const struct sr_record *recs, size_t n, void *ctx)
{
	const struct saj_lookup *l = ctx;

	/* A failed put costs a lookup later, nothing else. */
	(void)ctl_lookup_prefill(ip, l->l.pkey, recs, n);
	return 0;
}

static void table_done(struct saj *j, void *ctx)
{
	struct saj_lookup *l = &j->u.lookup;
	struct ats_query_set all = { .recs = l->recs, .n = l->nrecs };
	int64_t ttl = (int64_t)(pf.conf->cache_ttl ? pf.conf->cache_ttl : 60) * 1000;

	(void)ctx;
	pf.busy = 0;
	pf.due_ms = mono_ms() + ttl;
	/* The cache was cleared while the SA read it (a new SM, records
	 * changed): the table may hold what the clear threw away, and would
	 * serve it for cache_ttl. Read it again now. */
	if (!j->err && ctl_lookup_clears() != pf.clears) {
		pf.due_ms = mono_ms();
		return;
	}
	if (j->err) {
		if (!pf.failing)
			log_warn("cannot read the ATS table ahead (prefetch_max): %s; "
				 "lookups ask the SA", j->errmsg);
		pf.failing = 1;
		return;
	}
	if (pf.failing)
		log_info("the ATS table is read ahead again");
	pf.failing = 0;
	if (l->nrecs > pf.conf->prefetch_max) {
		/* Any host can grow the table (its own GID's records): tried
		 * again after cache_ttl, 2x, then 4x at most, so that one host
		 * keeps the read-ahead off for the others no longer than
		 * that, while a table that stays large costs the SA little. */
		if (!pf.too_large)
			log_info("the ATS table holds %zu records, more than prefetch_max %u: "
				 "lookups ask the SA; read again after cache_ttl, with backoff",
				 l->nrecs, pf.conf->prefetch_max);
		pf.due_ms = mono_ms() + (ttl << (pf.too_large < 2 ? pf.too_large : 2));
		pf.too_large++;
		return;
	}
	if (pf.too_large)
		log_info("the ATS table holds %zu records again: read ahead", l->nrecs);
	pf.too_large = 0;
	if (ats_query_forward_each(&all, fill, l))
		log_debug("prefetch: out of memory, part of the table cached");
	pf.st.tables++;
	pf.st.records = l->nrecs;
}

int64_t ctl_prefetch_timers(int64_t now)
{
	struct saj *j;

	if (!pf.armed || !pf.conf->prefetch_max || pf.busy)
		return INT64_MAX;
	if (now < pf.due_ms)
		return pf.due_ms;
	j = saj_new(SAJ_TABLE, table_done, NULL);
	if (!j)
		return now + 1000;
	j->u.lookup.l.pkey = ATS_PKEY_DEFAULT;
	pf.busy = 1;
	pf.clears = ctl_lookup_clears();
	sa_thread_submit(pf.saj, j);
	return INT64_MAX;
}

void ctl_prefetch_stats(struct ctl_prefetch_stats *st)
{
	*st = pf.st;
}
