/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The master's replication log and its standbys (see rlog.h). */
#include "rlog.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/mono.h"

struct peer {
	uint64_t guid;          /* 0: free slot */
	uint64_t acked;         /* it holds every change up to this */
	int64_t last_pull_ms;
	/* When the last pull came that was answered "in sync": the standby
	 * trusts its copy at a takeover only within ack_ms of sending such a
	 * pull (standby.c), so it may be committed without from then on. */
	int64_t flagged_ms;
	int in_sync;
	/* Its stream broke while in sync (it must snapshot, or it went
	 * back): still waited for, never told "in sync" again, dropped
	 * ack_ms after it last was. It may not know yet: the answer that
	 * tells it can be lost. */
	int lost;
	int holding;
	struct rlog_held held;
	int64_t held_at_ms;
};

struct rlog {
	pthread_mutex_t mu;
	struct rlog_entry *ring;
	size_t cap;
	uint64_t epoch, head;   /* head: newest seq, 0 = none yet */
	struct peer peers[RLOG_MAX_PEERS];
	uint64_t dropped;
};

int rlog_init(struct rlog **out, size_t capacity)
{
	struct rlog *l = calloc(1, sizeof(*l));

	if (!l)
		return -ENOMEM;
	l->ring = calloc(capacity, sizeof(*l->ring));
	if (!l->ring) {
		free(l);
		return -ENOMEM;
	}
	l->cap = capacity;
	pthread_mutex_init(&l->mu, NULL);
	*out = l;
	return 0;
}

void rlog_fini(struct rlog *l)
{
	if (!l)
		return;
	pthread_mutex_destroy(&l->mu);
	free(l->ring);
	free(l);
}

void rlog_reset(struct rlog *l, uint64_t epoch)
{
	pthread_mutex_lock(&l->mu);
	l->epoch = epoch;
	l->head = 0;
	memset(l->peers, 0, sizeof(l->peers));
	pthread_mutex_unlock(&l->mu);
}

uint64_t rlog_epoch(struct rlog *l)
{
	uint64_t e;

	pthread_mutex_lock(&l->mu);
	e = l->epoch;
	pthread_mutex_unlock(&l->mu);
	return e;
}

uint64_t rlog_head(struct rlog *l)
{
	uint64_t h;

	pthread_mutex_lock(&l->mu);
	h = l->head;
	pthread_mutex_unlock(&l->mu);
	return h;
}

uint64_t rlog_append_at(struct rlog *l, enum repl_kind kind, const uint8_t *rec,
			int64_t lease_end_ms, int64_t now_ms, uint64_t *epoch)
{
	struct rlog_entry *e;
	uint64_t seq;

	pthread_mutex_lock(&l->mu);
	seq = ++l->head;
	e = &l->ring[seq % l->cap];
	e->seq = seq;
	e->kind = kind;
	memcpy(e->rec, rec, SR_SIZE);
	e->lease_end_ms = lease_end_ms;
	e->made_ms = now_ms;
	if (epoch)
		*epoch = l->epoch;
	pthread_mutex_unlock(&l->mu);
	return seq;
}

uint64_t rlog_append(struct rlog *l, enum repl_kind kind, const uint8_t *rec,
		     int64_t lease_end_ms, uint64_t *epoch)
{
	return rlog_append_at(l, kind, rec, lease_end_ms, mono_ms(), epoch);
}

/* Under mu. */
static int get_locked(struct rlog *l, uint64_t seq, struct rlog_entry *out)
{
	const struct rlog_entry *e;

	if (!seq || seq > l->head || l->head - seq >= l->cap)
		return -ENOENT;
	e = &l->ring[seq % l->cap];
	*out = *e;
	return 0;
}

int rlog_get(struct rlog *l, uint64_t seq, struct rlog_entry *out)
{
	int ret;

	pthread_mutex_lock(&l->mu);
	ret = get_locked(l, seq, out);
	pthread_mutex_unlock(&l->mu);
	return ret;
}

/* Under mu: p owes a change made before now - RLOG_FRESH_MS. */
static int owes_old_locked(const struct rlog *l, const struct peer *p, int64_t now_ms)
{
	uint64_t seq = p->acked + 1;

	if (seq > l->head)
		return 0;
	/* Out of the log: older than anything still in it. */
	if (l->head - seq >= l->cap)
		return 1;
	return l->ring[seq % l->cap].made_ms <= now_ms - RLOG_FRESH_MS;
}

/* Under mu: the standby's slot, a new one when first seen, or NULL. */
static struct peer *peer_of(struct rlog *l, uint64_t guid, int create)
{
	struct peer *free_slot = NULL;
	size_t i;

	for (i = 0; i < RLOG_MAX_PEERS; i++) {
		if (l->peers[i].guid == guid)
			return &l->peers[i];
		if (!l->peers[i].guid && !free_slot)
			free_slot = &l->peers[i];
	}
	if (!create || !free_slot)
		return NULL;
	memset(free_slot, 0, sizeof(*free_slot));
	free_slot->guid = guid;
	return free_slot;
}

enum rlog_verdict rlog_pull(struct rlog *l, uint64_t guid, uint64_t epoch, uint64_t next,
			    const struct rlog_held *held, int64_t now_ms,
			    struct rlog_entry *out, int *in_sync, int *moved)
{
	enum rlog_verdict v;
	struct peer *p;
	uint64_t acked;
	int was;

	pthread_mutex_lock(&l->mu);
	*in_sync = 0;
	p = peer_of(l, guid, 1);
	if (!p) {
		pthread_mutex_unlock(&l->mu);
		return RLOG_FULL;
	}
	p->last_pull_ms = now_ms;
	was = p->in_sync;
	acked = p->acked;
	/* A pull from an earlier epoch, or for a change that left the log or
	 * never was: it must start over from a snapshot. */
	if (epoch != l->epoch || !next || next > l->head + 1 ||
	    (next <= l->head && l->head - next >= l->cap)) {
		p->lost = p->in_sync;
		p->holding = 0;
		v = RLOG_SNAP_NEEDED;
		goto out;
	}
	if (next - 1 < p->acked) {
		/* It went back: what it acked is not all in its copy. */
		p->lost = p->in_sync;
		p->acked = next - 1;
	} else if (next - 1 > p->acked) {
		p->acked = next - 1;
	}
	if (next == l->head + 1) {
		/* It holds everything: from now on changes wait for it. */
		p->in_sync = 1;
		p->lost = 0;
		p->held = *held;
		p->held.guid = guid;
		p->held.next = next;
		p->holding = 1;
		p->held_at_ms = now_ms;
		v = RLOG_HOLD;
	} else {
		/* Its earlier held pull, if any, is one it gave up on. */
		p->holding = 0;
		get_locked(l, next, out);
		v = RLOG_ANSWER;
	}
out:
	/* Told "in sync" only while it owes no change older than
	 * RLOG_FRESH_MS: one that lags, or asks without acking (a liar, or
	 * one whose answers are lost), stops being told so, and ack_ms later
	 * it can be committed without (rlog_tick). */
	if (p->in_sync && !p->lost && !owes_old_locked(l, p, now_ms)) {
		p->flagged_ms = now_ms;
		*in_sync = was ? 1 : 2;
	}
	if (moved)
		*moved = p->acked != acked;
	pthread_mutex_unlock(&l->mu);
	return v;
}

enum rlog_verdict rlog_peek(struct rlog *l, uint64_t epoch, uint64_t next,
			    struct rlog_entry *out)
{
	enum rlog_verdict v;

	pthread_mutex_lock(&l->mu);
	if (epoch != l->epoch || !next)
		v = RLOG_SNAP_NEEDED;
	else if (next > l->head)
		v = RLOG_NOT_YET;
	else
		v = get_locked(l, next, out) ? RLOG_SNAP_NEEDED : RLOG_ANSWER;
	pthread_mutex_unlock(&l->mu);
	return v;
}

void rlog_leave(struct rlog *l, uint64_t guid)
{
	struct peer *p;

	pthread_mutex_lock(&l->mu);
	p = peer_of(l, guid, 0);
	if (p)
		memset(p, 0, sizeof(*p));
	pthread_mutex_unlock(&l->mu);
}

size_t rlog_take_held(struct rlog *l, uint64_t seq, struct rlog_held *out, size_t max)
{
	size_t i, n = 0;

	pthread_mutex_lock(&l->mu);
	for (i = 0; i < RLOG_MAX_PEERS && n < max; i++) {
		struct peer *p = &l->peers[i];

		if (p->guid && p->holding && p->held.next <= seq) {
			out[n++] = p->held;
			p->holding = 0;
		}
	}
	pthread_mutex_unlock(&l->mu);
	return n;
}

size_t rlog_take_stale(struct rlog *l, int64_t now_ms, unsigned hold_ms,
		       struct rlog_held *out, size_t max)
{
	size_t i, n = 0;

	pthread_mutex_lock(&l->mu);
	for (i = 0; i < RLOG_MAX_PEERS && n < max; i++) {
		struct peer *p = &l->peers[i];

		if (p->guid && p->holding && now_ms - p->held_at_ms >= (int64_t)hold_ms) {
			out[n++] = p->held;
			p->holding = 0;
		}
	}
	pthread_mutex_unlock(&l->mu);
	return n;
}

/* Under mu: the newest change every in-sync standby holds. */
static uint64_t committed_locked(const struct rlog *l)
{
	uint64_t c = l->head;
	size_t i;

	for (i = 0; i < RLOG_MAX_PEERS; i++)
		if (l->peers[i].guid && l->peers[i].in_sync && l->peers[i].acked < c)
			c = l->peers[i].acked;
	return c;
}

uint64_t rlog_committed(struct rlog *l, uint64_t *epoch)
{
	uint64_t c;

	pthread_mutex_lock(&l->mu);
	c = committed_locked(l);
	if (epoch)
		*epoch = l->epoch;
	pthread_mutex_unlock(&l->mu);
	return c;
}

/* Under mu: p is no longer waited for. */
static void drop_locked(struct rlog *l, struct peer *p, uint64_t *dropped, size_t *ndropped)
{
	p->in_sync = 0;
	p->lost = 0;
	p->holding = 0;
	l->dropped++;
	if (*ndropped < RLOG_MAX_PEERS)
		dropped[(*ndropped)++] = p->guid;
}

size_t rlog_tick(struct rlog *l, int64_t now_ms, unsigned ack_ms,
		 uint64_t *dropped, size_t *ndropped)
{
	size_t i, freed = 0;

	*ndropped = 0;
	pthread_mutex_lock(&l->mu);
	for (i = 0; i < RLOG_MAX_PEERS; i++) {
		struct peer *p = &l->peers[i];
		int gone;

		if (!p->guid)
			continue;
		/* A standby that stopped pulling gives its slot back: one
		 * that pulls again starts over as a new one. */
		gone = now_ms - p->last_pull_ms >= (int64_t)ack_ms;
		/* It owes a change and was last told "in sync" ack_ms ago
		 * (or is gone): committed without it, so dropped. */
		if (p->in_sync && (p->acked < l->head || p->lost) &&
		    (gone || now_ms - p->flagged_ms >= (int64_t)ack_ms))
			drop_locked(l, p, dropped, ndropped);
		if (gone) {
			memset(p, 0, sizeof(*p));
			freed++;
		}
	}
	pthread_mutex_unlock(&l->mu);
	return freed;
}

void rlog_stats_at(struct rlog *l, int64_t now_ms, struct rlog_stats *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&l->mu);
	out->epoch = l->epoch;
	out->head = l->head;
	for (i = 0; i < RLOG_MAX_PEERS; i++) {
		const struct peer *p = &l->peers[i];
		struct rlog_peer_stat *s = &out->peers[out->npeers];

		if (!p->guid)
			continue;
		out->in_sync += p->in_sync != 0;
		s->guid = p->guid;
		s->acked = p->acked;
		s->behind = l->head - p->acked;
		s->since_ms = now_ms > p->last_pull_ms ? (uint64_t)(now_ms - p->last_pull_ms) : 0;
		s->in_sync = p->in_sync;
		out->npeers++;
	}
	out->dropped = l->dropped;
	pthread_mutex_unlock(&l->mu);
}

void rlog_stats(struct rlog *l, struct rlog_stats *out)
{
	rlog_stats_at(l, mono_ms(), out);
}
