/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"

struct cache_ent {
	struct cache_ent *next;
	size_t at;              /* its place in the expiry heap */
	int64_t expires_ms;
	struct sr_record *recs; /* NULL with nrecs 0: a negative answer */
	size_t nrecs;
	char key[CACHE_KEY_MAX];
};

struct cache {
	struct cache_ent **bucket;
	size_t nbuckets; /* power of two, at least max */
	size_t n, max;
	/* The entries by expiry, soonest at 0 (a binary min-heap): a full
	 * cache gives up its soonest one in O(log n), which a cold storm of
	 * lookups, each a put, asks of it every time. */
	struct cache_ent **heap;
};

/* FNV-1a: keys are short text. */
static size_t slot(const struct cache *c, const char *key)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (*key)
		h = (h ^ (uint8_t)*key++) * 0x100000001b3ull;
	return (size_t)(h ^ (h >> 32)) & (c->nbuckets - 1);
}

int cache_init(struct cache **out, size_t max)
{
	struct cache *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->max = max ? max : 1;
	for (c->nbuckets = 16; c->nbuckets < c->max; c->nbuckets *= 2)
		;
	c->bucket = calloc(c->nbuckets, sizeof(*c->bucket));
	c->heap = calloc(c->max, sizeof(*c->heap));
	if (!c->bucket || !c->heap) {
		free(c->bucket);
		free(c->heap);
		free(c);
		return -ENOMEM;
	}
	*out = c;
	return 0;
}

static void heap_set(struct cache *c, size_t i, struct cache_ent *e)
{
	c->heap[i] = e;
	e->at = i;
}

static void heap_up(struct cache *c, size_t i)
{
	struct cache_ent *e = c->heap[i];

	while (i && c->heap[(i - 1) / 2]->expires_ms > e->expires_ms) {
		heap_set(c, i, c->heap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	heap_set(c, i, e);
}

/* Down from i in a heap of n entries. */
static void heap_down(struct cache *c, size_t i, size_t n)
{
	struct cache_ent *e = c->heap[i];

	for (;;) {
		size_t k = 2 * i + 1;

		if (k >= n)
			break;
		if (k + 1 < n && c->heap[k + 1]->expires_ms < c->heap[k]->expires_ms)
			k++;
		if (c->heap[k]->expires_ms >= e->expires_ms)
			break;
		heap_set(c, i, c->heap[k]);
		i = k;
	}
	heap_set(c, i, e);
}

/* e out of the heap (c->n counts it still): the last entry takes its
 * place and moves up or down to where it belongs. */
static void heap_remove(struct cache *c, struct cache_ent *e)
{
	size_t i = e->at, last = c->n - 1;
	struct cache_ent *m = c->heap[last];

	if (i == last)
		return;
	heap_set(c, i, m);
	if (i && c->heap[(i - 1) / 2]->expires_ms > m->expires_ms)
		heap_up(c, i);
	else
		heap_down(c, i, last);
}

static void drop(struct cache *c, struct cache_ent **pp)
{
	struct cache_ent *e = *pp;

	heap_remove(c, e);
	*pp = e->next;
	free(e->recs);
	free(e);
	c->n--;
}

void cache_clear(struct cache *c)
{
	size_t i;

	for (i = 0; i < c->nbuckets; i++)
		while (c->bucket[i])
			drop(c, &c->bucket[i]);
}

void cache_fini(struct cache *c)
{
	if (!c)
		return;
	cache_clear(c);
	free(c->bucket);
	free(c->heap);
	free(c);
}

size_t cache_count(const struct cache *c)
{
	return c->n;
}

static struct cache_ent **find(struct cache *c, const char *key)
{
	struct cache_ent **pp = &c->bucket[slot(c, key)];

	while (*pp && strcmp((*pp)->key, key))
		pp = &(*pp)->next;
	return pp;
}

const struct cache_ent *cache_find(struct cache *c, const char *key, int64_t now_ms)
{
	struct cache_ent **pp = find(c, key);

	if (!*pp)
		return NULL;
	if ((*pp)->expires_ms > now_ms)
		return *pp;
	drop(c, pp);
	return NULL;
}

const struct sr_record *cache_records(const struct cache_ent *e, size_t *n)
{
	*n = e->nrecs;
	return e->recs;
}

/* Only when full: the soonest to expire. */
static void evict_one(struct cache *c)
{
	if (c->n)
		drop(c, find(c, c->heap[0]->key));
}

int cache_put(struct cache *c, const char *key, const struct sr_record *recs,
	      size_t n, int64_t expires_ms)
{
	struct cache_ent **pp, *e;
	size_t len = strlen(key);

	if (len >= CACHE_KEY_MAX)
		return -ENAMETOOLONG;
	pp = find(c, key);
	if (*pp)
		drop(c, pp);
	else if (c->n == c->max)
		evict_one(c);
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	if (n) {
		e->recs = malloc(n * sizeof(*recs));
		if (!e->recs) {
			free(e);
			return -ENOMEM;
		}
		memcpy(e->recs, recs, n * sizeof(*recs));
		e->nrecs = n;
	}
	memcpy(e->key, key, len + 1);
	e->expires_ms = expires_ms;
	pp = &c->bucket[slot(c, key)];
	e->next = *pp;
	*pp = e;
	c->n++;
	heap_set(c, c->n - 1, e);
	heap_up(c, c->n - 1);
	return 0;
}

static int holds_gid(const struct cache_ent *e, const uint8_t *gid)
{
	size_t i;

	for (i = 0; i < e->nrecs; i++)
		if (!memcmp(e->recs[i].gid, gid, 16))
			return 1;
	return 0;
}

/* A scan of the whole cache: reports are rare, lookups are not. */
static size_t drop_where(struct cache *c, const uint8_t *gid)
{
	size_t i, n = 0;

	for (i = 0; i < c->nbuckets; i++) {
		struct cache_ent **pp = &c->bucket[i];

		while (*pp) {
			if (gid ? holds_gid(*pp, gid) : !(*pp)->nrecs) {
				drop(c, pp);
				n++;
			} else {
				pp = &(*pp)->next;
			}
		}
	}
	return n;
}

size_t cache_drop_gid(struct cache *c, const uint8_t gid[16])
{
	return drop_where(c, gid);
}

size_t cache_drop_negative(struct cache *c)
{
	return drop_where(c, NULL);
}
