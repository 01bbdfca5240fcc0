/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The ServiceRecord index against the obvious model: OpenSM's list, newest
 * first, updated in place, scanned with the SA's matching. Random Sets,
 * Deletes and queries must give the same records in the same order. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "plugin/srindex.h"
#include "core/wire.h"

#define MODEL_MAX 4096

/* The index points at records: the model owns them, one buffer each. */
struct model {
	uint8_t *rec[MODEL_MAX]; /* [0] is the newest */
	size_t n;
};

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

/* Small value pools so that keys collide and queries find something. */
static void random_rec(uint8_t *r)
{
	memset(r, 0, SR_SIZE);
	wire_put64(r + SR_OFF_ID, 0x10000ce100415400ull + rnd(6));
	wire_put64(r + SR_OFF_GID, 0xfe80000000000000ull);
	wire_put64(r + SR_OFF_GID + 8, 0x0002c90300000000ull + rnd(8));
	wire_put16(r + SR_OFF_PKEY, rnd(3) ? 0xffff : 0x8001);
	wire_put32(r + SR_OFF_LEASE, rnd(2) ? 0xffffffff : rnd(100));
	r[SR_OFF_KEY] = (uint8_t)rnd(2);
	memcpy(r + SR_OFF_NAME, rnd(4) ? "DAPL Address Translation Service" : "other", 6);
	if (rnd(2)) {
		r[SR_OFF_DATA8 + 10] = r[SR_OFF_DATA8 + 11] = 0xff;
	}
	r[SR_OFF_DATA8 + 12] = 10;
	r[SR_OFF_DATA8 + 15] = (uint8_t)rnd(5);
	wire_put16(r + SR_OFF_DATA16, (uint16_t)rnd(3));
	wire_put64(r + SR_OFF_DATA64 + 8, rnd(2));
}

static long model_find(const struct model *m, const uint8_t *r)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (!memcmp(m->rec[i], r, SRX_RID_LEN))
			return (long)i;
	return -1;
}

struct collect {
	const uint8_t *rec[MODEL_MAX];
	size_t n;
	size_t stop_after;
};

static int collect(const struct srx_ent *e, void *arg)
{
	struct collect *c = arg;

	c->rec[c->n++] = srindex_rec(e);
	return c->stop_after && c->n == c->stop_after;
}

static uint64_t random_mask(void)
{
	static const uint64_t shapes[] = {
		0x7,                     /* RID */
		0x2, 0x6, 0x42, 0x43,    /* GID, GID+PKey, GID+name, +SID */
		0x7fff80, 0x7fff84,      /* Data8, Data8+PKey */
		0x79ff80, 0x79ffc4,      /* IPv4 either form: no Data8[10..11] */
		0x40, 0x41, 0x1, 0x0,    /* name, name+SID, SID, everything */
		0x18, 0x20, 0x800000,    /* reserved+lease (ignored), key, Data16[0] */
		0x1000000000ull,         /* Data64[1] */
	};
	uint64_t m = shapes[rnd(sizeof(shapes) / sizeof(shapes[0]))];

	if (!rnd(4))
		m |= 1ull << rnd(40);
	return m;
}

static void check_query(const struct srx *x, const struct model *m,
			const uint8_t *q, uint64_t mask)
{
	static struct collect got;
	uint64_t cmp = mask & ~(uint64_t)0x18;
	size_t i, want = 0;
	int ret;

	got.n = 0;
	got.stop_after = 0;
	ret = srindex_query(x, q, mask, collect, &got);
	assert_int_equal(ret, (int)got.n);
	for (i = 0; i < m->n; i++) {
		if (!sr_match(m->rec[i], q, cmp))
			continue;
		assert_true(want < got.n);
		assert_memory_equal(got.rec[want], m->rec[i], SR_SIZE);
		want++;
	}
	assert_int_equal(got.n, want);
}

static void test_random_against_model(void **state)
{
	static struct model m;
	struct srx *x;
	unsigned step;

	(void)state;
	assert_int_equal(srindex_init(&x), 0);
	m.n = 0;
	for (step = 0; step < 20000; step++) {
		uint8_t r[SR_SIZE];
		struct srx_ent *e;
		long i;

		random_rec(r);
		i = model_find(&m, r);
		e = srindex_find_rid(x, r);
		assert_int_equal(i >= 0, e != NULL);
		if (rnd(3)) {                           /* Set */
			if (i >= 0) {
				assert_ptr_equal(srindex_rec(e), m.rec[i]);
				srindex_unhook(x, e);
				memcpy(m.rec[i], r, SR_SIZE);
				srindex_rehook(x, e);
			} else if (m.n < MODEL_MAX) {
				memmove(&m.rec[1], &m.rec[0], m.n * sizeof(m.rec[0]));
				m.rec[0] = malloc(SR_SIZE);
				assert_non_null(m.rec[0]);
				memcpy(m.rec[0], r, SR_SIZE);
				m.n++;
				assert_int_equal(srindex_add(x, m.rec[0], (void *)(uintptr_t)step), 0);
			}
		} else if (i >= 0) {                    /* Delete */
			uint8_t *gone = m.rec[i];

			memmove(&m.rec[i], &m.rec[i + 1], (m.n - (size_t)i - 1) * sizeof(m.rec[0]));
			m.n--;
			srindex_del(x, e);
			free(gone);
		}
		assert_int_equal(srindex_count(x), m.n);
		random_rec(r);
		check_query(x, &m, r, random_mask());
	}
	srindex_fini(x);
	while (m.n)
		free(m.rec[--m.n]);
}

static void test_order_and_handles(void **state)
{
	uint8_t a[SR_SIZE], b[SR_SIZE], c[SR_SIZE];
	struct collect got = { .n = 0 };
	struct srx *x;
	int h1, h2;

	(void)state;
	assert_int_equal(srindex_init(&x), 0);
	memset(a, 0, sizeof(a));
	a[SR_OFF_GID] = 0xfe;
	memcpy(b, a, SR_SIZE);
	b[SR_OFF_ID + 7] = 1;
	assert_int_equal(srindex_add(x, a, &h1), 0);
	assert_int_equal(srindex_add(x, b, &h2), 0);
	/* An update in place keeps the record's place: b stays the newest. */
	memcpy(c, a, SR_SIZE);
	srindex_unhook(x, srindex_find_rid(x, a));
	a[SR_OFF_DATA8 + 15] = 9;
	srindex_rehook(x, srindex_find_rid(x, a));
	assert_int_equal(srindex_query(x, a, 0x2, collect, &got), 2);
	assert_ptr_equal(got.rec[0], b);
	assert_ptr_equal(got.rec[1], a);
	assert_ptr_equal(srindex_handle(srindex_find_rid(x, a)), &h1);
	/* The Data8 key follows the update. */
	got.n = 0;
	assert_int_equal(srindex_query(x, a, 0x7fff80, collect, &got), 1);
	assert_ptr_equal(got.rec[0], a);
	got.n = 0;
	assert_int_equal(srindex_query(x, c, 0x7fff80, collect, &got), 1);
	assert_ptr_equal(got.rec[0], b);
	/* A visitor can stop the walk. */
	got.n = 0;
	got.stop_after = 1;
	assert_int_equal(srindex_query(x, a, 0x0, collect, &got), 1);
	srindex_clear(x);
	assert_int_equal(srindex_count(x), 0);
	assert_null(srindex_find_rid(x, a));
	srindex_fini(x);
}

static int count_visit(const struct srx_ent *e, void *arg)
{
	(void)e;
	++*(int *)arg;
	return 0;
}

/* 100k records laid out as make bench does (400 GIDs on one subnet, 250
 * SIDs each, IPv4 10.k.g.g): the tables grow, chains stay short although
 * keys differ only in a few bytes, and an entry costs well under the 224
 * bytes OpenSM allocates per record. */
/* The per-port cap's accounts: charged at add, released at delete. */
static void test_charges(void **state)
{
	uint8_t rec[4][SR_SIZE];
	struct srx *x;
	unsigned i;

	(void)state;
	assert_int_equal(srindex_init(&x), 0);
	for (i = 0; i < 4; i++) {
		memset(rec[i], 0, SR_SIZE);
		wire_put64(rec[i] + SR_OFF_ID, i);
		assert_int_equal(srindex_add_charged(x, rec[i], NULL, i < 3 ? 0x77 : 0), 0);
	}
	assert_int_equal(srindex_charged(x, 0x77), 3);
	assert_int_equal(srindex_charged(x, 0), 1);
	assert_int_equal(srindex_charged(x, 0x78), 0);
	/* An in-place update keeps its charge. */
	srindex_unhook(x, srindex_find_rid(x, rec[1]));
	srindex_rehook(x, srindex_find_rid(x, rec[1]));
	assert_int_equal(srindex_charged(x, 0x77), 3);
	srindex_del(x, srindex_find_rid(x, rec[0]));
	assert_int_equal(srindex_charged(x, 0x77), 2);
	srindex_del(x, srindex_find_rid(x, rec[3]));
	assert_int_equal(srindex_charged(x, 0), 0);
	srindex_clear(x);
	assert_int_equal(srindex_charged(x, 0x77), 0);
	assert_int_equal(srindex_add_charged(x, rec[0], NULL, 0x77), 0);
	assert_int_equal(srindex_charged(x, 0x77), 1);
	srindex_fini(x);
}

static void test_grow(void **state)
{
	static uint8_t recs[100000][SR_SIZE];
	uint8_t r[SR_SIZE];
	struct srx *x;
	unsigned i;
	int n = 0;

	(void)state;
	assert_int_equal(srindex_init(&x), 0);
	for (i = 0; i < 100000; i++) {
		unsigned g = i % 400, k = i / 400;

		memset(recs[i], 0, SR_SIZE);
		wire_put64(recs[i] + SR_OFF_ID, 0x10000ce100415400ull + k);
		wire_put64(recs[i] + SR_OFF_GID, 0xfe80000000000000ull);
		wire_put64(recs[i] + SR_OFF_GID + 8, 0x0002c90300001000ull + g);
		wire_put16(recs[i] + SR_OFF_PKEY, 0xffff);
		recs[i][SR_OFF_DATA8 + 12] = 10;
		recs[i][SR_OFF_DATA8 + 13] = (uint8_t)(k + 1);
		recs[i][SR_OFF_DATA8 + 14] = (uint8_t)(g >> 8);
		recs[i][SR_OFF_DATA8 + 15] = (uint8_t)g;
		assert_int_equal(srindex_add(x, recs[i], NULL), 0);
	}
	assert_int_equal(srindex_count(x), 100000);
	assert_true(srindex_bytes(x) < 100000 * 112);
	assert_true(srindex_chain_max(x, SRX_BY_RID) <= 16);
	assert_true(srindex_chain_max(x, SRX_BY_DATA8) <= 16);
	/* A GID's 250 records share its chain; other GIDs stay out of it. */
	assert_true(srindex_chain_max(x, SRX_BY_GID) <= 250 + 16);
	memcpy(r, recs[500], SR_SIZE);
	srindex_each_gid(x, r + SR_OFF_GID, count_visit, &n);
	assert_int_equal(n, 250);
	n = 0;
	srindex_each_data8(x, recs[77777] + SR_OFF_DATA8, count_visit, &n);
	assert_int_equal(n, 1);
	srindex_fini(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_against_model),
		cmocka_unit_test(test_order_and_handles),
		cmocka_unit_test(test_grow),
		cmocka_unit_test(test_charges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
