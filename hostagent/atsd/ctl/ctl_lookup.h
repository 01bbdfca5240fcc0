/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Lookups for the control socket (resolve, reverse, primary): answered
 * from a cache with positive and negative TTLs, else by the SA thread;
 * identical lookups that miss at the same time share one SA lookup. */
#ifndef IBATS_CTL_LOOKUP_H
#define IBATS_CTL_LOOKUP_H

#include <stddef.h>
#include <stdint.h>

#include "host/agent_conf.h"
#include "host/ats_query.h"
#include "sa/sa_thread.h"
#include "main/sources.h"

struct ctl_lookup_stats {
	uint64_t cache_hits, cache_misses, negative_hits, coalesced;
	uint64_t sa_lookups, sa_queries;
	uint64_t local_answers;  /* SA silent, answered locally (ATS 5.1) */
	size_t cache_entries;
	struct ats_window_stats window; /* the SA thread's lookups in flight */
};

/* sa_failed: a lookup failed otherwise than "no record", or the SA
 * answers again after a silence (it may have restarted). conf and src (the host's addresses, for local answers
 * while the SA does not answer: nosa.h) stay the caller's. */
int ctl_lookup_init(struct sa_thread *saj, const struct agent_conf *conf,
		    struct sources *src, void (*sa_failed)(void));
void ctl_lookup_fini(void);
/* kind ATS_QUERY_FORWARD (arg an IP), _REVERSE or _PRIMARY (a GID); pk
 * the PKey word or NULL. Answers client slot now or when the SA has;
 * when the SA does not answer, with local records marked ATSD_PROTO_REC_LOCAL
 * if the host knows any. */
void ctl_lookup_request(int slot, enum ats_query_kind kind, const char *arg, const char *pk);
/* A forward lookup's answer for ip in pkey's partition, read from the
 * whole table (ctl_prefetch.h), into the cache as if the SA had given it
 * to that lookup (cache_ttl; never a negative one). 0 or -errno. */
int ctl_lookup_prefill(const struct ats_ip *ip, uint16_t pkey, const struct sr_record *recs,
		       size_t n);
/* The cached answers are stale (records or the SM changed). */
void ctl_lookup_cache_clear(void);
/* Clears so far: an answer read before the last one is stale too. */
uint64_t ctl_lookup_clears(void);
/* The SA reported gid out of service (trap 65): its cached answers go,
 * and answers holding it are not cached for report_grace (its record may
 * still be in the SA). How many entries went. */
size_t ctl_lookup_port_gone(const uint8_t gid[16]);
/* gid came into service (trap 64): every negative answer goes (which
 * addresses it brings back is not known), and none is cached for
 * report_grace, while its host registers again. */
size_t ctl_lookup_port_back(const uint8_t gid[16]);
void ctl_lookup_stats(struct ctl_lookup_stats *st);
/* The SA thread's SAJ_SA_STATE (sa_thread.h): while the SA is silent,
 * lookups the host can answer are answered locally at once (those
 * waiting for the SA too), one at a time still asked of the SA in the
 * background; when it answers again, lookups go to it. A saj_done_fn. */
void ctl_lookup_sa_state(struct saj *j, void *ctx);
/* Lookups waiting since ATSD_PROTO_LOOKUP_REPLY_MS get their answer (local,
 * else ETIMEDOUT); the next deadline (mono ms), INT64_MAX for none. */
int64_t ctl_lookup_timers(int64_t now);

#endif
