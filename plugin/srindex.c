/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "srindex.h"

/* The three keys every entry is hashed by: offset and length in the
 * record (IBTA Vol 1 Table 207). */
enum { K_RID = SRINDEX_BY_RID, K_GID = SRINDEX_BY_GID, K_DATA8 = SRINDEX_BY_DATA8, SRX_NKEYS };

static const struct {
	unsigned off, len;
} srx_keys[SRX_NKEYS] = {
	[K_RID] = { SR_OFF_ID, SRINDEX_RID_LEN },
	[K_GID] = { SR_OFF_GID, 16 },
	[K_DATA8] = { SR_OFF_DATA8, 16 },
};

#define NIL UINT32_MAX

/* Entries live in one array, in the order they were added (the index is
 * the age: larger is newer), so the list's newest-first order costs no
 * sequence number and no list links. A deleted entry leaves a hole
 * (rec NULL) until the array is compacted. */
struct srindex_ent {
	const uint8_t *rec;              /* in the caller's object, not a copy */
};

/* The rest of an entry, apart so that srindex_ent stays one pointer: the
 * charge it counts in and, for the two keys many records share, the next
 * older entry of the same key. */
struct srx_link {
	uint32_t charge;
	uint32_t next[2];                /* [0] GID, [1] ServiceData8 */
};

/* Open addressing, linear probing, one slot per distinct key: the key's
 * 32-bit hash (which gives its home slot, kept so that a probe rejects
 * other keys without touching their records, and so that growth and
 * deletion rehome without rehashing) and its newest entry + 1 (0: empty).
 * 8 bytes a key against a chained table's pointer per bucket plus one per
 * entry and key. */
struct srx_slot {
	uint32_t hash;
	uint32_t ent;
};

struct srx_tab {
	struct srx_slot *slot;
	uint32_t size;                   /* slots, any number: see home() */
	uint32_t keys;
};

/* Records charged to one port (srindex_add_charged): in an array, chained
 * by bucket, deleted ones on a free list. */
struct srx_charge {
	uint64_t who;
	uint32_t n;
	uint32_t next;
};

#define SRX_CHARGE_BUCKETS 4096 /* ports of a subnet: at most 48K LIDs */

struct srindex {
	size_t rec_off;
	struct srindex_ent *ent;
	struct srx_link *link;
	uint32_t cap, top;               /* allocated, used (with holes) */
	uint32_t n;
	struct srx_tab tab[SRX_NKEYS];
	uint32_t charge_head[SRX_CHARGE_BUCKETS];
	struct srx_charge *charge;
	uint32_t charge_cap, charge_top, charge_free;
};

#define SRX_MIN_SLOTS 64
#define SRX_MIN_ENTS 64

/* MurmurHash3's 64-bit finalizer: every input bit reaches every output
 * bit, so keys that differ only in a few high bytes (GIDs on one subnet,
 * IPv4 addresses in ServiceData8) still spread over all slots. */
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
 * of its key, so a lookup of either form, which leaves them out of the
 * component mask, finds one key's records. */
#define DATA8_FORM_OCTET 10

static uint32_t key_hash(unsigned k, const uint8_t *key)
{
	uint8_t d8[16];

	if (k == K_DATA8) {
		memcpy(d8, key, sizeof(d8));
		d8[DATA8_FORM_OCTET] = d8[DATA8_FORM_OCTET + 1] = 0;
		key = d8;
	}
	return (uint32_t)(hash_bytes(key, srx_keys[k].len) >> 32);
}

static int has_key(unsigned k, const uint8_t *rec, const uint8_t *key)
{
	return !memcmp(rec_key(k, rec), key, srx_keys[k].len);
}

/* Whether rec is under key in table k: for ServiceData8, equal but for
 * the form octets. */
static int same_key(unsigned k, const uint8_t *rec, const uint8_t *key)
{
	const uint8_t *r = rec_key(k, rec);

	if (k != K_DATA8)
		return has_key(k, rec, key);
	return !memcmp(r, key, DATA8_FORM_OCTET) &&
	       !memcmp(r + DATA8_FORM_OCTET + 2, key + DATA8_FORM_OCTET + 2,
		       16 - DATA8_FORM_OCTET - 2);
}

static int tab_alloc(struct srx_tab *t, uint32_t slots)
{
	t->slot = calloc(slots, sizeof(*t->slot));
	if (!t->slot)
		return -ENOMEM;
	t->size = slots;
	t->keys = 0;
	return 0;
}

/* The hash scaled to the table (Lemire's multiply-shift range
 * reduction): no power-of-two size, so a table is sized to its keys, not
 * up to twice that. */
static uint32_t home(const struct srx_tab *t, uint32_t h)
{
	return (uint32_t)(((uint64_t)h * t->size) >> 32);
}

static uint32_t step(const struct srx_tab *t, uint32_t i)
{
	return i + 1 == t->size ? 0 : i + 1;
}

/* Slots from a to b going forward. */
static uint32_t dist(const struct srx_tab *t, uint32_t a, uint32_t b)
{
	return b >= a ? b - a : b + t->size - a;
}

/* The slot of key in table k, or of the empty slot where it would go. */
static uint32_t tab_find(const struct srindex *x, unsigned k, const uint8_t *key, uint32_t h)
{
	const struct srx_tab *t = &x->tab[k];
	uint32_t i;

	for (i = home(t, h); t->slot[i].ent; i = step(t, i))
		if (t->slot[i].hash == h && same_key(k, x->ent[t->slot[i].ent - 1].rec, key))
			break;
	return i;
}

/* At most 7/8 full, grown to 5/8: linear probing then takes on average
 * 1.5 to 4.5 slots a hit, 3.8 to 32 a miss (Knuth 6.4), eight slots to
 * a cache line; a slot costs 9 to 13 bytes a key. */
static int tab_full(const struct srx_tab *t)
{
	return (uint64_t)(t->keys + 1) * 8 > (uint64_t)t->size * 7;
}

/* Room for one more key: -ENOMEM when the table had to grow and could not. */
static int tab_reserve(struct srx_tab *t)
{
	struct srx_tab n;
	uint32_t i, j;

	if (!tab_full(t))
		return 0;
	if (t->keys >= UINT32_MAX / 2 || tab_alloc(&n, (uint32_t)((uint64_t)t->keys * 8 / 5)))
		return -ENOMEM;
	for (i = 0; i < t->size; i++) {
		if (!t->slot[i].ent)
			continue;
		for (j = home(&n, t->slot[i].hash); n.slot[j].ent; j = step(&n, j))
			;
		n.slot[j] = t->slot[i];
	}
	n.keys = t->keys;
	free(t->slot);
	*t = n;
	return 0;
}

/* Empty slot i by shifting back the entries after it that may live
 * there (deletion without tombstones, Knuth 6.4 Algorithm R). */
static void tab_remove(struct srx_tab *t, uint32_t i)
{
	uint32_t j;

	for (j = step(t, i); t->slot[j].ent; j = step(t, j)) {
		if (dist(t, home(t, t->slot[j].hash), j) >= dist(t, i, j)) {
			t->slot[i] = t->slot[j];
			i = j;
		}
	}
	t->slot[i].ent = 0;
	t->keys--;
}

static uint32_t *charge_bucket(struct srindex *x, uint64_t who)
{
	return &x->charge_head[fmix64(who) & (SRX_CHARGE_BUCKETS - 1)];
}

static uint32_t charge_find(const struct srindex *x, uint64_t who)
{
	uint32_t c = x->charge_head[fmix64(who) & (SRX_CHARGE_BUCKETS - 1)];

	while (c != NIL && x->charge[c].who != who)
		c = x->charge[c].next;
	return c;
}

/* The charge of who, made if new: its number, or NIL when out of memory. */
static uint32_t charge_get(struct srindex *x, uint64_t who)
{
	uint32_t c = charge_find(x, who), *b;

	if (c != NIL)
		return c;
	if (x->charge_free != NIL) {
		c = x->charge_free;
		x->charge_free = x->charge[c].next;
	} else {
		if (x->charge_top == x->charge_cap) {
			uint32_t cap = x->charge_cap ? 2 * x->charge_cap : 64;
			struct srx_charge *n = realloc(x->charge, cap * sizeof(*n));

			if (!n)
				return NIL;
			x->charge = n;
			x->charge_cap = cap;
		}
		c = x->charge_top++;
	}
	b = charge_bucket(x, who);
	x->charge[c].who = who;
	x->charge[c].n = 0;
	x->charge[c].next = *b;
	*b = c;
	return c;
}

static void charge_put(struct srindex *x, uint32_t c)
{
	uint32_t *pp;

	if (--x->charge[c].n)
		return;
	for (pp = charge_bucket(x, x->charge[c].who); *pp != c; pp = &x->charge[*pp].next)
		;
	*pp = x->charge[c].next;
	x->charge[c].next = x->charge_free;
	x->charge_free = c;
}

size_t srindex_charged(const struct srindex *x, uint64_t who)
{
	uint32_t c = charge_find(x, who);

	return c == NIL ? 0 : x->charge[c].n;
}

static void charges_reset(struct srindex *x)
{
	memset(x->charge_head, 0xff, sizeof(x->charge_head));
	x->charge_top = 0;
	x->charge_free = NIL;
}

int srindex_init(struct srindex **out, size_t rec_off)
{
	struct srindex *x = calloc(1, sizeof(*x));
	unsigned k;

	if (!x)
		return -ENOMEM;
	x->rec_off = rec_off;
	charges_reset(x);
	for (k = 0; k < SRX_NKEYS; k++) {
		if (tab_alloc(&x->tab[k], SRX_MIN_SLOTS)) {
			while (k--)
				free(x->tab[k].slot);
			free(x);
			return -ENOMEM;
		}
	}
	*out = x;
	return 0;
}

static void tabs_reset(struct srindex *x)
{
	unsigned k;

	for (k = 0; k < SRX_NKEYS; k++) {
		memset(x->tab[k].slot, 0, x->tab[k].size * sizeof(*x->tab[k].slot));
		x->tab[k].keys = 0;
	}
}

void srindex_clear(struct srindex *x)
{
	charges_reset(x);
	tabs_reset(x);
	x->top = x->n = 0;
}

void srindex_fini(struct srindex *x)
{
	unsigned k;

	if (!x)
		return;
	for (k = 0; k < SRX_NKEYS; k++)
		free(x->tab[k].slot);
	free(x->ent);
	free(x->link);
	free(x->charge);
	free(x);
}

size_t srindex_count(const struct srindex *x)
{
	return x->n;
}

/* The entry arrays count to their top: the rest, never written, is
 * address space (realloc moves large arrays with mremap) that the
 * kernel backs only when the array fills. */
size_t srindex_bytes(const struct srindex *x)
{
	size_t b = sizeof(*x) + (size_t)x->top * (sizeof(*x->ent) + sizeof(*x->link)) +
		   (size_t)x->charge_cap * sizeof(*x->charge);
	unsigned k;

	for (k = 0; k < SRX_NKEYS; k++)
		b += (size_t)x->tab[k].size * sizeof(*x->tab[k].slot);
	return b;
}

size_t srindex_probe_max(const struct srindex *x, enum srindex_key k)
{
	const struct srx_tab *t = &x->tab[k];
	size_t max = 0;
	uint32_t i;

	for (i = 0; i < t->size; i++) {
		uint32_t d = dist(t, home(t, t->slot[i].hash), i);

		if (t->slot[i].ent && d + 1 > max)
			max = d + 1;
	}
	return max;
}

static uint32_t ent_index(const struct srindex *x, const struct srindex_ent *e)
{
	return (uint32_t)(e - x->ent);
}

/* Put entry i under its key in table k (which has room). RIDs are
 * unique (the caller looks first), so a RID goes to the first empty slot.
 * A shared key's entries stay newest first: a new entry goes to the head,
 * one updated in place (srindex_rehook) back where its age puts it. */
static void link_key(struct srindex *x, unsigned k, uint32_t i)
{
	const uint8_t *key = rec_key(k, x->ent[i].rec);
	struct srx_tab *t = &x->tab[k];
	uint32_t h = key_hash(k, key), s, *pp;

	if (k == K_RID)
		for (s = home(t, h); t->slot[s].ent; s = step(t, s))
			;
	else
		s = tab_find(x, k, key, h);
	if (!t->slot[s].ent) {
		t->slot[s].hash = h;
		t->slot[s].ent = i + 1;
		t->keys++;
		if (k != K_RID)
			x->link[i].next[k - 1] = NIL;
		return;
	}
	if (t->slot[s].ent - 1 < i) {
		x->link[i].next[k - 1] = t->slot[s].ent - 1;
		t->slot[s].ent = i + 1;
		return;
	}
	for (pp = &x->link[t->slot[s].ent - 1].next[k - 1]; *pp != NIL && *pp > i;
	     pp = &x->link[*pp].next[k - 1])
		;
	x->link[i].next[k - 1] = *pp;
	*pp = i;
}

static void unlink_key(struct srindex *x, unsigned k, uint32_t i)
{
	const uint8_t *key = rec_key(k, x->ent[i].rec);
	struct srx_tab *t = &x->tab[k];
	uint32_t h = key_hash(k, key), s, *pp;

	if (k == K_RID) {
		for (s = home(t, h); t->slot[s].ent != i + 1; s = step(t, s))
			;
		tab_remove(t, s);
		return;
	}
	s = tab_find(x, k, key, h);
	if (t->slot[s].ent - 1 == i) {
		if (x->link[i].next[k - 1] == NIL)
			tab_remove(t, s);
		else
			t->slot[s].ent = x->link[i].next[k - 1] + 1;
		return;
	}
	for (pp = &x->link[t->slot[s].ent - 1].next[k - 1]; *pp != i; pp = &x->link[*pp].next[k - 1])
		;
	*pp = x->link[i].next[k - 1];
}

static void link_all(struct srindex *x, uint32_t i)
{
	unsigned k;

	for (k = 0; k < SRX_NKEYS; k++)
		link_key(x, k, i);
}

/* Close the holes, keeping the order, and index the entries again under
 * their new numbers. The tables keep their size: the keys are the same. */
static void compact(struct srindex *x)
{
	uint32_t i, w = 0;

	for (i = 0; i < x->top; i++) {
		if (!x->ent[i].rec)
			continue;
		x->ent[w] = x->ent[i];
		x->link[w].charge = x->link[i].charge;
		w++;
	}
	x->top = w;
	tabs_reset(x);
	for (i = 0; i < x->top; i++)
		link_all(x, i);
}

/* Room for one more entry at the top: compact when a quarter or more of
 * the array is holes, else double it. Amortized O(1) a Set. */
static int ent_reserve(struct srindex *x)
{
	uint32_t cap = x->cap ? 2 * x->cap : SRX_MIN_ENTS;
	struct srindex_ent *e;
	struct srx_link *l;

	if (x->top < x->cap)
		return 0;
	if (x->top - x->n >= x->cap / 4 && x->top > x->n) {
		compact(x);
		return 0;
	}
	if (x->cap >= UINT32_MAX / 2)
		return -ENOMEM;
	e = realloc(x->ent, cap * sizeof(*e));
	if (!e)
		return -ENOMEM;
	x->ent = e;
	l = realloc(x->link, cap * sizeof(*l));
	if (!l)
		return -ENOMEM;
	x->link = l;
	x->cap = cap;
	return 0;
}

int srindex_add(struct srindex *x, void *handle)
{
	return srindex_add_charged(x, handle, 0);
}

int srindex_add_charged(struct srindex *x, void *handle, uint64_t who)
{
	uint32_t i, c;
	unsigned k;

	for (k = 0; k < SRX_NKEYS; k++)
		if (tab_reserve(&x->tab[k]))
			return -ENOMEM;
	if (ent_reserve(x))
		return -ENOMEM;
	c = charge_get(x, who);
	if (c == NIL)
		return -ENOMEM;
	x->charge[c].n++;
	i = x->top++;
	x->ent[i].rec = (const uint8_t *)handle + x->rec_off;
	x->link[i].charge = c;
	x->n++;
	link_all(x, i);
	return 0;
}

struct srindex_ent *srindex_find_rid(const struct srindex *x, const uint8_t *rec)
{
	const uint8_t *key = rec_key(K_RID, rec);
	uint32_t s = tab_find(x, K_RID, key, key_hash(K_RID, key));
	uint32_t e = x->tab[K_RID].slot[s].ent;

	return e ? &x->ent[e - 1] : NULL;
}

static void prefetch(const struct srindex *x, unsigned k, const uint8_t *key)
{
	const struct srx_tab *t = &x->tab[k];

	__builtin_prefetch(&t->slot[home(t, key_hash(k, key))]);
}

void srindex_prefetch_rid(const struct srindex *x, const uint8_t *rec)
{
	prefetch(x, K_RID, rec_key(K_RID, rec));
}

void srindex_prefetch_data8(const struct srindex *x, const uint8_t *data8)
{
	prefetch(x, K_DATA8, data8);
}

int srindex_unhook(struct srindex *x, struct srindex_ent *e)
{
	/* Room for the new address's key before the old one is let go. */
	if (tab_reserve(&x->tab[K_DATA8]))
		return -ENOMEM;
	unlink_key(x, K_DATA8, ent_index(x, e));
	return 0;
}

void srindex_rehook(struct srindex *x, struct srindex_ent *e)
{
	link_key(x, K_DATA8, ent_index(x, e));
}

void srindex_del(struct srindex *x, struct srindex_ent *e)
{
	uint32_t i = ent_index(x, e);
	unsigned k;

	for (k = 0; k < SRX_NKEYS; k++)
		unlink_key(x, k, i);
	charge_put(x, x->link[i].charge);
	e->rec = NULL;
	x->n--;
	/* Holes at the top are given back at once. */
	while (x->top && !x->ent[x->top - 1].rec)
		x->top--;
}

const uint8_t *srindex_rec(const struct srindex_ent *e)
{
	return e->rec;
}

void *srindex_handle(const struct srindex *x, const struct srindex_ent *e)
{
	return (void *)(e->rec - x->rec_off);
}

/* The newest entry of key in table k, then its older ones; NIL: none
 * (an empty slot's 0 less one). */
static uint32_t key_first(const struct srindex *x, unsigned k, const uint8_t *key)
{
	uint32_t s = tab_find(x, k, key, key_hash(k, key));

	return x->tab[k].slot[s].ent - 1;
}

static uint32_t key_next(const struct srindex *x, unsigned k, uint32_t i)
{
	return x->link[i].next[k - 1];
}

static void each_key(const struct srindex *x, unsigned k, const uint8_t *key,
		     srindex_visit_fn fn, void *arg)
{
	uint32_t i;

	for (i = key_first(x, k, key); i != NIL; i = key_next(x, k, i))
		if (has_key(k, x->ent[i].rec, key) && fn(&x->ent[i], arg))
			return;
}

void srindex_each_gid(const struct srindex *x, const uint8_t *gid, srindex_visit_fn fn, void *arg)
{
	each_key(x, K_GID, gid, fn, arg);
}

void srindex_each_data8(const struct srindex *x, const uint8_t *data8, srindex_visit_fn fn, void *arg)
{
	each_key(x, K_DATA8, data8, fn, arg);
}

static uint64_t cm_bits(unsigned first, unsigned n)
{
	return ((1ull << n) - 1) << first;
}

size_t srindex_query(const struct srindex *x, const uint8_t *query, uint64_t mask,
		     srindex_visit_fn fn, void *arg)
{
	const uint64_t rid = cm_bits(SR_CM_ID, 3);
	const uint64_t data8 = cm_bits(SR_CM_DATA8, 16) &
			       ~cm_bits(SR_CM_DATA8 + DATA8_FORM_OCTET, 2);
	struct srindex_ent *e;
	uint32_t i;
	unsigned k;
	size_t n = 0;

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
		k = K_GID;
	else if ((mask & data8) == data8)
		k = K_DATA8;
	else {
		/* Newest first is from the top down. */
		for (i = x->top; i-- > 0;) {
			e = &x->ent[i];
			if (e->rec && sr_match(e->rec, query, mask) && (n++, fn(e, arg)))
				break;
		}
		return n;
	}
	/* The key's entries, newest first, hold every record that can match;
	 * for ServiceData8 sr_match alone compares the octets the mask names. */
	for (i = key_first(x, k, rec_key(k, query)); i != NIL; i = key_next(x, k, i))
		if (sr_match(x->ent[i].rec, query, mask) && (n++, fn(&x->ent[i], arg)))
			break;
	return n;
}
