/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* atsd's lookup cache: answers (records, or none for a negative entry) by
 * canonical request key, each with an expiry time. Hashed, so that a hit
 * costs one key hash and compare however full the cache is. */
#ifndef IBATS_CACHE_H
#define IBATS_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "core/sr.h"

#define CACHE_KEY_MAX 160

struct cache;
struct cache_ent;

int cache_init(struct cache **out, size_t max);
void cache_fini(struct cache *c);
void cache_clear(struct cache *c);
size_t cache_count(const struct cache *c);

/* The live entry for key at time now_ms, or NULL (an expired one is
 * dropped). */
const struct cache_ent *cache_find(struct cache *c, const char *key, int64_t now_ms);
/* Its records; *n 0 for a negative entry. */
const struct sr_record *cache_records(const struct cache_ent *e, size_t *n);

/* Store (replacing key's entry). When full, the entry closest to expiry
 * goes. -ENOMEM, -ENAMETOOLONG for a key of CACHE_KEY_MAX bytes or more. */
int cache_put(struct cache *c, const char *key, const struct sr_record *recs,
	      size_t n, int64_t expires_ms);

/* The SA reported a port gone (trap 65) or back (trap 64): drop every
 * answer holding a record of gid, or every negative answer. Each returns
 * how many entries went. */
size_t cache_drop_gid(struct cache *c, const uint8_t gid[16]);
size_t cache_drop_negative(struct cache *c);

#endif
