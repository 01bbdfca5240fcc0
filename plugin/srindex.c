/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "srindex.h"

/* The three keys every entry is hashed by: offset and length in the
 * record (IBTA Vol 1 Table 207). */
enum { K_RID = SRX_BY_RID, K_GID = SRX_BY_GID, K_DATA8 = SRX_BY_DATA8, SRX_NKEYS };

static const struct {
	unsigned off, len;
} srx_keys[SRX_NKEYS] = {
	[K_RID] = { SR_OFF_ID, SRX_RID_LEN },
	[K_GID] = { SR_OFF_GID, 16 },
	[K_DATA8] = { SR_OFF_DATA8, 16 },
};

struct srx_ent {
	const uint8_t *rec;              /* the caller's record, not a copy */
	void *handle;
	struct srx_charge *charge;
	uint64_t seq;                    /* larger is newer */
	struct srx_ent *chain[SRX_NKEYS];
	struct srx_ent *newer, *older;
};

/* Records charged to one port (srindex_add_charged). */
struct srx_charge {
	uint64_t who;
	size_t n;
	struct srx_charge *next;
};

#define SRX_CHARGE_BUCKETS 4096 /* ports of a subnet: at most 48K LIDs */

struct srx {
	struct srx_charge *charge[SRX_CHARGE_BUCKETS];
	struct srx_ent **bucket[SRX_NKEYS];
	size_t nbuckets;                 /* power of two */
	size_t n;
	uint64_t seq;
	struct srx_ent *newest, *oldest;
};

#define SRX_MIN_BUCKETS 64

/* MurmurHash3's 64-bit finalizer: every input bit reaches every output
 * bit, so keys that differ only in a few high bytes (GIDs on one subnet,
 * IPv4 addresses in ServiceData8) still spread over all buckets. */
static uint64_t fmix64(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

static uint64_t hash_bytes(const uint8_t *p, unsigned len)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ len;

	while (len) {
		uint64_t w = 0;
		unsigned n = len < 8 ? len : 8;

		memcpy(&w, p, n);
		h = fmix64(h ^ w);
		p += n;
		len -= n;
	}
	return h;
}

/* Keys are the key's bytes alone; rec_key() finds them in a record. */
static const uint8_t *rec_key(unsigned k, const uint8_t *rec)
{
	return rec + srx_keys[k].off;
}

/* ServiceData8 octets 10 and 11 are where the two encodings of an IPv4
 * address differ (::a.b.c.d, ::ffff:a.b.c.d; ATS 3.1). They are left out
 * of its hash, so a lookup of either form, which leaves them out of the
 * component mask, narrows to one bucket. */
#define DATA8_FORM_OCTET 10

static size_t slot(const struct srx *x, unsigned k, const uint8_t *key)
{
	uint8_t d8[16];

	if (k == K_DATA8) {
		memcpy(d8, key, sizeof(d8));
		d8[DATA8_FORM_OCTET] = d8[DATA8_FORM_OCTET + 1] = 0;
		key = d8;
	}
	return hash_bytes(key, srx_keys[k].len) & (x->nbuckets - 1);
}

static int has_key(unsigned k, const uint8_t *rec, const uint8_t *key)
{
	return !memcmp(rec_key(k, rec), key, srx_keys[k].len);
}

static int alloc_buckets(struct srx_ent **b[SRX_NKEYS], size_t n)
{
	unsigned k;

	for (k = 0; k < SRX_NKEYS; k++) {
		b[k] = calloc(n, sizeof(*b[k]));
		if (!b[k]) {
			while (k--)
				free(b[k]);
			return -ENOMEM;
		}
	}
	return 0;
}

int srindex_init(struct srx **out)
{
	struct srx *x = calloc(1, sizeof(*x));

	if (!x)
		return -ENOMEM;
	x->nbuckets = SRX_MIN_BUCKETS;
	if (alloc_buckets(x->bucket, x->nbuckets)) {
		free(x);
		return -ENOMEM;
	}
	*out = x;
	return 0;
}

static struct srx_charge **charge_slot(const struct srx *x, uint64_t who)
{
	return (struct srx_charge **)&x->charge[fmix64(who) & (SRX_CHARGE_BUCKETS - 1)];
}

static struct srx_charge *charge_get(struct srx *x, uint64_t who)
{
	struct srx_charge **b = charge_slot(x, who), *c;

	for (c = *b; c; c = c->next)
		if (c->who == who)
			return c;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->who = who;
	c->next = *b;
	*b = c;
	return c;
}

static void charge_put(struct srx *x, struct srx_charge *c)
{
	struct srx_charge **pp;

	if (--c->n)
		return;
	for (pp = charge_slot(x, c->who); *pp != c; pp = &(*pp)->next)
		;
	*pp = c->next;
	free(c);
}

size_t srindex_charged(const struct srx *x, uint64_t who)
{
	const struct srx_charge *c;

	for (c = *charge_slot(x, who); c; c = c->next)
		if (c->who == who)
			return c->n;
	return 0;
}

void srindex_clear(struct srx *x)
{
	struct srx_ent *e, *next;
	unsigned k;
	size_t i;

	for (i = 0; i < SRX_CHARGE_BUCKETS; i++) {
		struct srx_charge *c, *cn;

		for (c = x->charge[i]; c; c = cn) {
			cn = c->next;
			free(c);
		}
		x->charge[i] = NULL;
	}
	for (e = x->newest; e; e = next) {
		next = e->older;
		free(e);
	}
	for (k = 0; k < SRX_NKEYS; k++)
		memset(x->bucket[k], 0, x->nbuckets * sizeof(*x->bucket[k]));
	x->newest = x->oldest = NULL;
	x->n = 0;
}

void srindex_fini(struct srx *x)
{
	unsigned k;

	if (!x)
		return;
	srindex_clear(x);
	for (k = 0; k < SRX_NKEYS; k++)
		free(x->bucket[k]);
	free(x);
}

size_t srindex_count(const struct srx *x)
{
	return x->n;
}

size_t srindex_bytes(const struct srx *x)
{
	return sizeof(*x) + x->n * sizeof(struct srx_ent) +
	       SRX_NKEYS * x->nbuckets * sizeof(struct srx_ent *);
}

size_t srindex_chain_max(const struct srx *x, enum srx_key k)
{
	size_t i, n, max = 0;
	struct srx_ent *e;

	for (i = 0; i < x->nbuckets; i++) {
		for (n = 0, e = x->bucket[k][i]; e; e = e->chain[k])
			n++;
		if (n > max)
			max = n;
	}
	return max;
}

static void link_key(struct srx *x, unsigned k, struct srx_ent *e)
{
	struct srx_ent **b = &x->bucket[k][slot(x, k, rec_key(k, e->rec))];

	e->chain[k] = *b;
	*b = e;
}

static void unlink_key(struct srx *x, unsigned k, struct srx_ent *e)
{
	struct srx_ent **pp = &x->bucket[k][slot(x, k, rec_key(k, e->rec))];

	while (*pp && *pp != e)
		pp = &(*pp)->chain[k];
	if (*pp)
		*pp = e->chain[k];
}

/* Double the tables at load factor 1; a failed grow only lengthens chains. */
static void grow(struct srx *x)
{
	struct srx_ent **b[SRX_NKEYS];
	struct srx_ent *e;
	unsigned k;

	if (x->n < x->nbuckets || alloc_buckets(b, 2 * x->nbuckets))
		return;
	for (k = 0; k < SRX_NKEYS; k++) {
		free(x->bucket[k]);
		x->bucket[k] = b[k];
	}
	x->nbuckets *= 2;
	for (e = x->oldest; e; e = e->newer)
		for (k = 0; k < SRX_NKEYS; k++)
			link_key(x, k, e);
}

int srindex_add(struct srx *x, const uint8_t *rec, void *handle)
{
	return srindex_add_charged(x, rec, handle, 0);
}

int srindex_add_charged(struct srx *x, const uint8_t *rec, void *handle, uint64_t who)
{
	struct srx_ent *e = malloc(sizeof(*e));
	unsigned k;

	if (!e)
		return -ENOMEM;
	e->charge = charge_get(x, who);
	if (!e->charge) {
		free(e);
		return -ENOMEM;
	}
	e->charge->n++;
	e->rec = rec;
	e->handle = handle;
	e->seq = ++x->seq;
	e->newer = NULL;
	e->older = x->newest;
	if (x->newest)
		x->newest->newer = e;
	else
		x->oldest = e;
	x->newest = e;
	x->n++;
	for (k = 0; k < SRX_NKEYS; k++)
		link_key(x, k, e);
	grow(x);
	return 0;
}

struct srx_ent *srindex_find_rid(const struct srx *x, const uint8_t *rec)
{
	struct srx_ent *e = x->bucket[K_RID][slot(x, K_RID, rec_key(K_RID, rec))];

	while (e && !has_key(K_RID, e->rec, rec_key(K_RID, rec)))
		e = e->chain[K_RID];
	return e;
}

void srindex_unhook(struct srx *x, struct srx_ent *e)
{
	unlink_key(x, K_DATA8, e);
}

void srindex_rehook(struct srx *x, struct srx_ent *e)
{
	link_key(x, K_DATA8, e);
}

void srindex_del(struct srx *x, struct srx_ent *e)
{
	unsigned k;

	for (k = 0; k < SRX_NKEYS; k++)
		unlink_key(x, k, e);
	if (e->newer)
		e->newer->older = e->older;
	else
		x->newest = e->older;
	if (e->older)
		e->older->newer = e->newer;
	else
		x->oldest = e->newer;
	x->n--;
	charge_put(x, e->charge);
	free(e);
}

const uint8_t *srindex_rec(const struct srx_ent *e)
{
	return e->rec;
}

void *srindex_handle(const struct srx_ent *e)
{
	return e->handle;
}

static void each_key(const struct srx *x, unsigned k, const uint8_t *key,
		     srx_visit_fn fn, void *arg)
{
	struct srx_ent *e, *next;

	for (e = x->bucket[k][slot(x, k, key)]; e; e = next) {
		next = e->chain[k];
		if (has_key(k, e->rec, key) && fn(e, arg))
			return;
	}
}

void srindex_each_gid(const struct srx *x, const uint8_t *gid, srx_visit_fn fn, void *arg)
{
	each_key(x, K_GID, gid, fn, arg);
}

void srindex_each_data8(const struct srx *x, const uint8_t *data8, srx_visit_fn fn, void *arg)
{
	each_key(x, K_DATA8, data8, fn, arg);
}

static uint64_t cm_bits(unsigned first, unsigned n)
{
	return ((1ull << n) - 1) << first;
}

static int newest_first(const void *a, const void *b)
{
	const struct srx_ent *x = *(const struct srx_ent *const *)a;
	const struct srx_ent *y = *(const struct srx_ent *const *)b;

	return x->seq < y->seq ? 1 : x->seq > y->seq ? -1 : 0;
}

int srindex_query(const struct srx *x, const uint8_t *query, uint64_t mask,
	      srx_visit_fn fn, void *arg)
{
	const uint64_t rid = cm_bits(SR_CM_ID, 3);
	const uint64_t data8 = cm_bits(SR_CM_DATA8, 16) &
			       ~cm_bits(SR_CM_DATA8 + DATA8_FORM_OCTET, 2);
	struct srx_ent *stack[64], **hits = stack, *e;
	const uint8_t *k;
	size_t n = 0, cap = 64, i;
	int key = -1;

	/* OpenSM's Get compares neither the reserved field nor the lease. */
	mask &= ~(cm_bits(SR_CM_RESV, 1) | cm_bits(SR_CM_LEASE, 1));
	if ((mask & rid) == rid) {
		e = srindex_find_rid(x, query);
		if (!e || !sr_match(e->rec, query, mask))
			return 0;
		fn(e, arg);
		return 1;
	}
	if (mask & cm_bits(SR_CM_GID, 1))
		key = K_GID;
	else if ((mask & data8) == data8)
		key = K_DATA8;
	if (key < 0) {
		for (e = x->newest; e; e = e->older)
			if (sr_match(e->rec, query, mask) && (n++, fn(e, arg)))
				break;
		return (int)n;
	}
	k = rec_key((unsigned)key, query);
	for (e = x->bucket[key][slot(x, (unsigned)key, k)]; e; e = e->chain[key]) {
		/* The bucket holds every record that can match; for ServiceData8
		 * sr_match alone compares the octets the mask names. */
		if ((key != K_DATA8 && !has_key((unsigned)key, e->rec, k)) ||
		    !sr_match(e->rec, query, mask))
			continue;
		if (n == cap) {
			struct srx_ent **h = malloc(2 * cap * sizeof(*h));

			if (!h) {
				if (hits != stack)
					free(hits);
				return -ENOMEM;
			}
			memcpy(h, hits, n * sizeof(*h));
			if (hits != stack)
				free(hits);
			hits = h;
			cap *= 2;
		}
		hits[n++] = e;
	}
	qsort(hits, n, sizeof(*hits), newest_first);
	for (i = 0; i < n; i++)
		if (fn(hits[i], arg))
			break;
	if (hits != stack)
		free(hits);
	return (int)i;
}
