/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"

struct cache_ent {
	struct cache_ent *next;
	int64_t expires_ms;
	struct sr_record *recs; /* NULL with nrecs 0: a negative answer */
	size_t nrecs;
	char key[CACHE_KEY_MAX];
};

struct cache {
	struct cache_ent **bucket;
	size_t nbuckets; /* power of two, at least max */
	size_t n, max;
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
	if (!c->bucket) {
		free(c);
		return -ENOMEM;
	}
	*out = c;
	return 0;
}

static void drop(struct cache *c, struct cache_ent **pp)
{
	struct cache_ent *e = *pp;

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

/* Only when full: a scan of the whole cache. */
static void evict_one(struct cache *c)
{
	struct cache_ent **victim = NULL, **pp;
	size_t i;

	for (i = 0; i < c->nbuckets; i++)
		for (pp = &c->bucket[i]; *pp; pp = &(*pp)->next)
			if (!victim || (*pp)->expires_ms < (*victim)->expires_ms)
				victim = pp;
	if (victim)
		drop(c, victim);
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
