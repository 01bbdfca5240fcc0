/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Lookups through the cache and the SA thread (ctl_lookup.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/atsd_proto.h"
#include "state/cache.h"
#include "ctl_lookup.h"
#include "ctl_sock.h"
#include "core/log.h"
#include "core/mono.h"
#include "model/nosa.h"
#include "state/own_records.h"

#define LOOKUP_CACHE_MAX 16384

/* A lookup the SA thread is doing; clients asking the same wait on it. */
struct pending {
	char key[CACHE_KEY_MAX];
	struct ats_query_lookup q;  /* the lookup, for a local answer */
	int64_t asked_ms;           /* when the SA thread got it */
	struct ctl_sock_ticket *w;
	size_t nw;
	int stale_neg;              /* a port came back while the SA was asked */
	struct pending *next;
};

/* A port the SA reported out of service (trap 65). Its record may
 * outlive the report (the plugin flushes it a moment later; a stock SA
 * keeps it): answers holding it are served but not cached until it comes
 * back (trap 64) or report_grace passes. */
#define GONE_MAX 64
struct gone {
	uint8_t gid[16];
	int64_t until_ms;
};

static struct {
	struct sa_thread *saj;
	const struct agent_conf *conf;
	void (*sa_failed)(void);
	struct sources *src;
	int sa_down;             /* the SA thread last found the SA silent */
	struct cache *cache;
	struct pending *pending;
	struct gone gone[GONE_MAX];
	/* Until then "no record" is not cached: a port came back (trap 64)
	 * and its host is registering again. */
	int64_t back_until_ms;
	uint64_t clears;         /* ctl_lookup_cache_clear's calls */
	struct ctl_lookup_stats st;
} lk;

int ctl_lookup_init(struct sa_thread *saj, const struct agent_conf *conf,
		    struct sources *src, void (*sa_failed)(void))
{
	lk.saj = saj;
	lk.conf = conf;
	lk.src = src;
	lk.sa_failed = sa_failed;
	return cache_init(&lk.cache, LOOKUP_CACHE_MAX) ? -ENOMEM : 0;
}

void ctl_lookup_fini(void)
{
	cache_fini(lk.cache);
	lk.cache = NULL;
	while (lk.pending) {
		struct pending *p = lk.pending;

		lk.pending = p->next;
		free(p->w);
		free(p);
	}
}

void ctl_lookup_cache_clear(void)
{
	lk.clears++;
	if (lk.cache)
		cache_clear(lk.cache);
}

uint64_t ctl_lookup_clears(void)
{
	return lk.clears;
}

static int holds_gone(const struct sr_record *r, size_t n, int64_t now)
{
	size_t g, i;

	for (g = 0; g < GONE_MAX; g++)
		for (i = 0; lk.gone[g].until_ms > now && i < n; i++)
			if (!memcmp(r[i].gid, lk.gone[g].gid, 16))
				return 1;
	return 0;
}

size_t ctl_lookup_port_gone(const uint8_t gid[16])
{
	int64_t now = mono_ms();
	size_t g, slot = 0;

	/* Its own slot, else the one that ends first. */
	for (g = 0; g < GONE_MAX; g++) {
		if (!memcmp(lk.gone[g].gid, gid, 16)) {
			slot = g;
			break;
		}
		if (lk.gone[g].until_ms < lk.gone[slot].until_ms)
			slot = g;
	}
	memcpy(lk.gone[slot].gid, gid, 16);
	lk.gone[slot].until_ms = now + (int64_t)lk.conf->report_grace * 1000;
	return lk.cache ? cache_drop_gid(lk.cache, gid) : 0;
}

size_t ctl_lookup_port_back(const uint8_t gid[16])
{
	struct pending *p;
	size_t g;

	for (g = 0; g < GONE_MAX; g++)
		if (!memcmp(lk.gone[g].gid, gid, 16))
			lk.gone[g].until_ms = 0;
	for (p = lk.pending; p; p = p->next)
		p->stale_neg = 1;
	lk.back_until_ms = mono_ms() + (int64_t)lk.conf->report_grace * 1000;
	return lk.cache ? cache_drop_negative(lk.cache) : 0;
}

void ctl_lookup_stats(struct ctl_lookup_stats *st)
{
	*st = lk.st;
	st->cache_entries = cache_count(lk.cache);
	if (lk.saj)
		sa_thread_window_stats(lk.saj, &st->window);
}

static void reply_records(int slot, const struct sr_record *r, size_t n, int local)
{
	size_t i, used = 0, cap = 32 + n * (128 + sizeof(ATSD_PROTO_REC_LOCAL));
	char *buf = malloc(cap);

	if (!buf) {
		ctl_sock_reply_err(slot, ENOMEM, "out of memory");
		return;
	}
	used = (size_t)atsd_proto_ok_format(buf, cap, n);
	for (i = 0; i < n; i++) {
		used += (size_t)atsd_proto_format_record(buf + used, cap - used, &r[i]);
		if (local)
			used += (size_t)snprintf(buf + used, cap - used, " %s", ATSD_PROTO_REC_LOCAL);
		buf[used++] = '\n';
		buf[used] = '\0';
	}
	ctl_sock_reply(slot, buf);
	free(buf);
}

static void cache_answer(const struct pending *p, const struct sr_record *r, size_t n)
{
	uint32_t ttl = n ? lk.conf->cache_ttl : lk.conf->negative_ttl;
	int64_t now = mono_ms();
	const char *key = p->key;

	if (n ? holds_gone(r, n, now) : p->stale_neg || now < lk.back_until_ms)
		return;

	/* A failed put only costs a later SA lookup. */
	if (ttl && cache_put(lk.cache, key, r, n, now + (int64_t)ttl * 1000))
		log_debug("lookup of %s not cached", key);
}

/* The host's wanted addresses with the SIDs they have or will get. */
static int self_records(struct plan_held_rec **out, size_t *n)
{
	struct plan_want_addr *w;
	struct plan_held_rec *h;
	size_t i, k, nw;
	uint16_t st;
	int ret = sources_want(lk.src, &w, &nw);

	if (ret)
		return ret;
	h = calloc(nw ? nw : 1, sizeof(*h));
	if (!h) {
		free(w);
		return -ENOMEM;
	}
	for (i = k = 0; i < nw; i++) {
		int state = own_records_addr_state(&w[i].ip, w[i].pkey, &h[k].sid, &st);

		/* The SA said no to it (another host holds it, say): not
		 * this host's to answer for. */
		if (state == OWN_RECORDS_REFUSED)
			continue;
		h[k].ip = w[i].ip;
		h[k].pkey = w[i].pkey;
		if (state != OWN_RECORDS_REGISTERED)
			h[k].sid = w[i].primary ? ATS_SID_PRIMARY : ats_sid_at((unsigned)i + 1);
		k++;
	}
	free(w);
	*out = h;
	*n = k;
	return 0;
}

/* The SA did not answer: *out what the host itself knows, or NULL. */
static void local_answer(const struct ats_query_lookup *q, struct sr_record **out, size_t *n)
{
	struct nosa_self self = { .gid = sources_port_gid(lk.src) };
	struct plan_held_rec *h = NULL;
	int ret = self_records(&h, &self.nrecs);

	*out = NULL;
	self.recs = h;
	if (!ret)
		ret = nosa_answer(q, &self, out, n);
	if (ret && ret != -ENOENT)
		log_warn("local answer: %s", strerror(-ret));
	free(h);
}

/* p's waiting clients: the local records loc, else err with msg. */
static void answer_waiters(struct pending *p, const struct sr_record *loc, size_t nloc,
			   int err, const char *msg)
{
	size_t i;

	for (i = 0; i < p->nw; i++) {
		struct ctl_sock_ticket t = p->w[i];

		if (!ctl_sock_live(t))
			continue;
		if (loc) {
			reply_records(t.slot, loc, nloc, 1);
			lk.st.local_answers++;
		} else {
			ctl_sock_reply_err(t.slot, err, "%s", msg);
		}
		ctl_sock_answered(t);
	}
	free(p->w);
	p->w = NULL;
	p->nw = 0;
}

/* The clients of p, waiting for an SA that does not answer: the local
 * answer now if the host has one (1), else they wait on (0). The SA
 * lookup goes on; its answer is cached when it comes. */
static int answer_locally(struct pending *p)
{
	struct sr_record *loc;
	size_t nloc;

	if (!p->nw)
		return 0;
	local_answer(&p->q, &loc, &nloc);
	if (!loc)
		return 0;
	answer_waiters(p, loc, nloc, 0, NULL);
	free(loc);
	return 1;
}

void ctl_lookup_sa_state(struct saj *j, void *ctx)
{
	struct pending *p;

	(void)ctx;
	if (j->err && !lk.sa_down)
		log_warn("the SA does not answer (%s): answering lookups from this host's "
			 "own records (ATS 5.1)", j->errmsg);
	else if (!j->err && lk.sa_down)
		log_info("the SA answers again: lookups go to the SA");
	if (!j->err && lk.sa_down && lk.sa_failed)
		/* Back after a silence, it may be a new SA that lost our
		 * records and subscription: check them now, not at the
		 * sync's next backoff. */
		lk.sa_failed();
	lk.sa_down = j->err != 0;
	if (!lk.sa_down)
		return;
	/* Whoever waits for the SA and has a local answer gets it now, not
	 * after the SA thread's retries (ATS 5.1: "going forward"). */
	for (p = lk.pending; p; p = p->next)
		answer_locally(p);
}

int64_t ctl_lookup_timers(int64_t now)
{
	int64_t next = INT64_MAX;
	struct pending *p;
	char msg[96];

	/* atsd answers a lookup within ATSD_PROTO_LOOKUP_REPLY_MS whatever the
	 * SA does (atsd_proto.h): its clients wait that long and a little
	 * more, never falling back to the SA themselves meanwhile. */
	snprintf(msg, sizeof(msg), "no answer from the SA within %u ms", ATSD_PROTO_LOOKUP_REPLY_MS);
	for (p = lk.pending; p; p = p->next) {
		int64_t due = p->asked_ms + ATSD_PROTO_LOOKUP_REPLY_MS;

		if (!p->nw)
			continue;
		if (now < due) {
			next = due < next ? due : next;
			continue;
		}
		if (!answer_locally(p))
			answer_waiters(p, NULL, 0, ETIMEDOUT, msg);
	}
	return next;
}

static void lookup_done(struct saj *j, void *ctx)
{
	struct saj_lookup *l = &j->u.lookup;
	struct pending *p = ctx, **pp;
	struct sr_record *loc = NULL;
	size_t i, nloc = 0;

	lk.st.sa_queries += j->queries;
	/* Never cached: the SA did not say it (ATS 5.1). */
	if (nosa_applies(j->err) && p->nw)
		local_answer(&l->l, &loc, &nloc);
	if (!j->err)
		cache_answer(p, l->recs, l->nrecs);
	/* Out of the list first: answered clients go on with their next
	 * requests, which may be this same lookup again. */
	for (pp = &lk.pending; *pp != p; pp = &(*pp)->next)
		;
	*pp = p->next;
	for (i = 0; i < p->nw; i++) {
		struct ctl_sock_ticket t = p->w[i];

		if (!ctl_sock_live(t))
			continue;
		if (loc) {
			reply_records(t.slot, loc, nloc, 1);
			lk.st.local_answers++;
		} else if (j->err)
			ctl_sock_reply_err(t.slot, -j->err, "%s", j->errmsg);
		else if (!l->nrecs)
			ctl_sock_reply_err(t.slot, ENOENT, "no ATS record");
		else
			reply_records(t.slot, l->recs, l->nrecs, 0);
		ctl_sock_answered(t);
	}
	free(loc);
	free(p->w);
	free(p);
	if (j->err && j->err != -ENOENT && lk.sa_failed)
		lk.sa_failed();
}

/* A cache key: kind, the canonical text of the value, the P_Key. */
static void lookup_key(enum ats_query_kind kind, const char *text, uint16_t pkey, char *key,
		       size_t len)
{
	snprintf(key, len, "%d %s %04x", kind, text, pkey);
}

/* arg and pk into l (its kind set) and its canonical key: the parsed
 * value, not the text. */
static int parse_key(const char *arg, const char *pk, struct ats_query_lookup *l, char *key,
		     size_t len, int slot)
{
	int fwd = l->kind == ATS_QUERY_FORWARD;
	char text[ATS_IP_STRLEN];

	if (atsd_proto_pkey_arg(pk, &l->pkey)) {
		ctl_sock_reply_err(slot, EINVAL, "'%s' is not a PKey", pk);
		return -EINVAL;
	}
	if (fwd ? ats_ip_parse(arg, &l->ip) : ats_gid_parse(arg, l->gid)) {
		ctl_sock_reply_err(slot, EINVAL, "'%s' is not %s", arg,
				   fwd ? "an IP address" : "a GID");
		return -EINVAL;
	}
	if (fwd)
		ats_ip_format(&l->ip, text, sizeof(text));
	else
		ats_gid_format(l->gid, text, sizeof(text));
	lookup_key(l->kind, text, l->pkey, key, len);
	return 0;
}

int ctl_lookup_prefill(const struct ats_ip *ip, uint16_t pkey, const struct sr_record *recs,
		       size_t n)
{
	char key[CACHE_KEY_MAX], text[ATS_IP_STRLEN];
	int64_t now = mono_ms();

	/* What the SA said; a gone port's records are not kept (as
	 * cache_answer). */
	if (!n || !lk.conf->cache_ttl || holds_gone(recs, n, now))
		return 0;
	ats_ip_format(ip, text, sizeof(text));
	lookup_key(ATS_QUERY_FORWARD, text, pkey, key, sizeof(key));
	return cache_put(lk.cache, key, recs, n, now + (int64_t)lk.conf->cache_ttl * 1000);
}

/* A miss no other client's SA lookup answers: key's pending entry and
 * the SA job of q; NULL without memory. */
static struct pending *ask_sa(const struct ats_query_lookup *q, const char *key)
{
	struct pending *p = calloc(1, sizeof(*p));
	struct saj *j = p ? saj_new(SAJ_LOOKUP, lookup_done, p) : NULL;

	if (!j) {
		free(p);
		return NULL;
	}
	snprintf(p->key, sizeof(p->key), "%s", key);
	p->q = *q;
	p->asked_ms = mono_ms();
	p->next = lk.pending;
	lk.pending = p;
	j->u.lookup.l = *q;
	lk.st.sa_lookups++;
	sa_thread_submit(lk.saj, j);
	return p;
}

void ctl_lookup_request(int slot, enum ats_query_kind kind, const char *arg, const char *pk)
{
	struct ats_query_lookup q = { .kind = kind };
	const struct cache_ent *e;
	struct ctl_sock_ticket *w;
	struct pending *p;
	struct sr_record *loc = NULL;
	size_t nloc = 0;
	enum nosa_route route;
	char key[CACHE_KEY_MAX];

	/* Parsed on the stack: a hit or a local answer costs no job. */
	if (parse_key(arg, pk, &q, key, sizeof(key), slot))
		return;
	e = cache_find(lk.cache, key, mono_ms());
	if (e) {
		const struct sr_record *recs;
		size_t nrecs;

		recs = cache_records(e, &nrecs);
		if (nrecs) {
			lk.st.cache_hits++;
			reply_records(slot, recs, nrecs, 0);
		} else {
			lk.st.negative_hits++;
			ctl_sock_reply_err(slot, ENOENT, "no ATS record (cached)");
		}
		return;
	}
	lk.st.cache_misses++;
	if (lk.sa_down)
		local_answer(&q, &loc, &nloc);
	route = nosa_route(lk.sa_down, loc != NULL, lk.pending != NULL);
	if (loc) {
		reply_records(slot, loc, nloc, 1);
		lk.st.local_answers++;
		free(loc);
	}
	if (route == NOSA_LOCAL)
		return;
	for (p = lk.pending; p && strcmp(p->key, key); p = p->next)
		;
	if (p) {
		lk.st.coalesced++;
	} else {
		p = ask_sa(&q, key);
		if (!p) {
			if (route == NOSA_ASK)
				ctl_sock_reply_err(slot, ENOMEM, "out of memory");
			return;
		}
	}
	/* A probe: the client has its answer, nobody waits for the SA's. */
	if (route == NOSA_LOCAL_PROBE)
		return;
	w = realloc(p->w, (p->nw + 1) * sizeof(*w));
	if (!w) {
		ctl_sock_reply_err(slot, ENOMEM, "out of memory");
		return;
	}
	p->w = w;
	/* Later requests of this client wait for this answer. */
	w[p->nw++] = ctl_sock_defer(slot);
}
