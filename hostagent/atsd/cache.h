/* atsd's lookup cache: answers (records, or none for a negative entry) by
 * canonical request key, each with an expiry time. Hashed, so that a hit
 * costs one key hash and compare however full the cache is. */
#ifndef IBATS_CACHE_H
#define IBATS_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "sr.h"

#define RC_KEY_MAX 160

struct rcache;
struct rc_ent;

int rc_init(struct rcache **out, size_t max);
void rc_fini(struct rcache *c);
void rc_clear(struct rcache *c);
size_t rc_count(const struct rcache *c);

/* The live entry for key at time now_ms, or NULL (an expired one is
 * dropped). */
const struct rc_ent *rc_find(struct rcache *c, const char *key, int64_t now_ms);
/* Its records; *n 0 for a negative entry. */
const struct sr_record *rc_records(const struct rc_ent *e, size_t *n);

/* Store (replacing key's entry). When full, the entry closest to expiry
 * goes. -ENOMEM, -ENAMETOOLONG for a key of RC_KEY_MAX bytes or more. */
int rc_put(struct rcache *c, const char *key, const struct sr_record *recs,
	   size_t n, int64_t expires_ms);

/* The SA reported a port gone (trap 65) or back (trap 64): drop every
 * answer holding a record of gid, or every negative answer. Each returns
 * how many entries went. */
size_t rc_drop_gid(struct rcache *c, const uint8_t gid[16]);
size_t rc_drop_negative(struct rcache *c);

#endif
