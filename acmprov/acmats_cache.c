/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "acmats_cache.h"
#include "core/mono.h"
#include "core/pr.h"

enum { KIND_FREE, KIND_GID, KIND_PATH };

struct entry {
	int kind;
	uint16_t pkey;
	struct ats_ip ip;       /* KIND_GID */
	uint8_t gid[16];        /* KIND_GID: the answer; KIND_PATH: the key */
	uint8_t path[PR_SIZE];  /* KIND_PATH */
	int64_t expires;
};

struct acmats_cache {
	pthread_mutex_t lock;
	int64_t ttl_ms;
	uint64_t gen;           /* flushes so far */
	struct entry e[ACMATS_CACHE_MAX];
};

int acmats_cache_init(struct acmats_cache **out, unsigned ttl_s)
{
	struct acmats_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	pthread_mutex_init(&c->lock, NULL);
	c->ttl_ms = (int64_t)ttl_s * 1000;
	*out = c;
	return 0;
}

void acmats_cache_fini(struct acmats_cache *c)
{
	if (!c)
		return;
	pthread_mutex_destroy(&c->lock);
	free(c);
}

/* Partitions, not P_Keys: the full and limited forms find the same. */
static int same_part(uint16_t a, uint16_t b)
{
	return (a & 0x7fff) == (b & 0x7fff);
}

static struct entry *find(struct acmats_cache *c, int kind, const struct ats_ip *ip,
			  const uint8_t *gid, uint16_t pkey, int64_t now)
{
	size_t i;

	for (i = 0; i < ACMATS_CACHE_MAX; i++) {
		struct entry *e = &c->e[i];

		if (e->kind != kind || !same_part(e->pkey, pkey) || e->expires <= now)
			continue;
		if (kind == KIND_GID ? ats_ip_equal(&e->ip, ip) : !memcmp(e->gid, gid, 16))
			return e;
	}
	return NULL;
}

/* Where a new entry goes: its own old one, a free or expired slot, else
 * the one that expires first. */
static struct entry *slot(struct acmats_cache *c, int kind, const struct ats_ip *ip,
			  const uint8_t *gid, uint16_t pkey, int64_t now)
{
	struct entry *e = find(c, kind, ip, gid, pkey, now), *first = &c->e[0];
	size_t i;

	if (e)
		return e;
	for (i = 0; i < ACMATS_CACHE_MAX; i++) {
		e = &c->e[i];
		if (e->kind == KIND_FREE || e->expires <= now)
			return e;
		if (e->expires < first->expires)
			first = e;
	}
	return first;
}

int acmats_cache_gid(struct acmats_cache *c, const struct ats_ip *ip, uint16_t pkey,
		     uint8_t *gid)
{
	struct entry *e;

	pthread_mutex_lock(&c->lock);
	e = find(c, KIND_GID, ip, NULL, pkey, mono_ms());
	if (e)
		memcpy(gid, e->gid, 16);
	pthread_mutex_unlock(&c->lock);
	return e ? 0 : -ENOENT;
}

uint64_t acmats_cache_gen(struct acmats_cache *c)
{
	uint64_t gen;

	pthread_mutex_lock(&c->lock);
	gen = c->gen;
	pthread_mutex_unlock(&c->lock);
	return gen;
}

void acmats_cache_put_gid(struct acmats_cache *c, uint64_t gen, const struct ats_ip *ip,
			  uint16_t pkey, const uint8_t *gid)
{
	int64_t now = mono_ms();
	struct entry *e;

	pthread_mutex_lock(&c->lock);
	if (gen != c->gen) {
		pthread_mutex_unlock(&c->lock);
		return;
	}
	e = slot(c, KIND_GID, ip, NULL, pkey, now);
	memset(e, 0, sizeof(*e));
	e->kind = KIND_GID;
	e->pkey = pkey;
	e->ip = *ip;
	memcpy(e->gid, gid, 16);
	e->expires = now + c->ttl_ms;
	pthread_mutex_unlock(&c->lock);
}

int acmats_cache_path(struct acmats_cache *c, const uint8_t *dgid, uint16_t pkey,
		      uint8_t *path)
{
	struct entry *e;

	pthread_mutex_lock(&c->lock);
	e = find(c, KIND_PATH, NULL, dgid, pkey, mono_ms());
	if (e)
		memcpy(path, e->path, PR_SIZE);
	pthread_mutex_unlock(&c->lock);
	return e ? 0 : -ENOENT;
}

void acmats_cache_put_path(struct acmats_cache *c, uint64_t gen, const uint8_t *dgid,
			   uint16_t pkey, const uint8_t *path)
{
	int64_t now = mono_ms();
	struct entry *e;

	pthread_mutex_lock(&c->lock);
	if (gen != c->gen) {
		pthread_mutex_unlock(&c->lock);
		return;
	}
	e = slot(c, KIND_PATH, NULL, dgid, pkey, now);
	memset(e, 0, sizeof(*e));
	e->kind = KIND_PATH;
	e->pkey = pkey;
	memcpy(e->gid, dgid, 16);
	memcpy(e->path, path, PR_SIZE);
	e->expires = now + c->ttl_ms;
	pthread_mutex_unlock(&c->lock);
}

void acmats_cache_flush(struct acmats_cache *c)
{
	pthread_mutex_lock(&c->lock);
	memset(c->e, 0, sizeof(c->e));
	c->gen++;
	pthread_mutex_unlock(&c->lock);
}
