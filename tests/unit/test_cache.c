/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* atsd's lookup cache: hits, expiry, negative entries, replacement and
 * eviction of the entry closest to expiry, drops on reports. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "state/cache.h"
#include "fixture.h"

static void test_hit_expire_negative(void **state)
{
	struct sr_record r[2];
	const struct sr_record *got;
	struct cache *c;
	size_t n;

	(void)state;
	memset(r, 0, sizeof(r));
	r[0].id = 1;
	r[1].id = 2;
	assert_int_equal(cache_init(&c, 8), 0);
	assert_int_equal(cache_put(c, "0 10.0.0.1 ffff", r, 2, 1000), 0);
	assert_int_equal(cache_put(c, "0 10.0.0.9 ffff", NULL, 0, 500), 0);
	got = cache_records(cache_find(c, "0 10.0.0.1 ffff", 999), &n);
	assert_int_equal(n, 2);
	assert_int_equal(got[1].id, 2);
	/* Negative entry: found, no records. */
	assert_null(cache_records(cache_find(c, "0 10.0.0.9 ffff", 10), &n));
	assert_int_equal(n, 0);
	assert_null(cache_find(c, "0 10.0.0.2 ffff", 0));
	/* Expired at its deadline, and dropped. */
	assert_null(cache_find(c, "0 10.0.0.9 ffff", 500));
	assert_int_equal(cache_count(c), 1);
	/* Replacing keeps one entry. */
	assert_int_equal(cache_put(c, "0 10.0.0.1 ffff", r, 1, 2000), 0);
	assert_int_equal(cache_count(c), 1);
	cache_records(cache_find(c, "0 10.0.0.1 ffff", 1500), &n);
	assert_int_equal(n, 1);
	cache_clear(c);
	assert_int_equal(cache_count(c), 0);
	cache_fini(c);
}

/* Reports: trap 65 drops the answers holding the GID (and only those),
 * trap 64 every negative answer. */
static void test_drop_gid_negative(void **state)
{
	struct sr_record a[2], b;
	struct cache *c;
	uint8_t g1[16] = { 0xfe, 0x80, [15] = 1 }, g2[16] = { 0xfe, 0x80, [15] = 2 };
	size_t n;

	(void)state;
	memset(a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memcpy(a[0].gid, g2, 16);
	memcpy(a[1].gid, g1, 16);  /* the second record of a two-record answer */
	memcpy(b.gid, g2, 16);
	assert_int_equal(cache_init(&c, 8), 0);
	assert_int_equal(cache_put(c, "0 10.0.0.1 ffff", a, 2, 1000), 0);
	assert_int_equal(cache_put(c, "0 10.0.0.2 ffff", &b, 1, 1000), 0);
	assert_int_equal(cache_put(c, "0 10.0.0.3 ffff", NULL, 0, 1000), 0);
	assert_int_equal(cache_put(c, "0 10.0.0.4 ffff", NULL, 0, 1000), 0);
	assert_int_equal(cache_drop_gid(c, g1), 1);
	assert_null(cache_find(c, "0 10.0.0.1 ffff", 0));
	assert_non_null(cache_find(c, "0 10.0.0.2 ffff", 0));
	assert_int_equal(cache_drop_gid(c, g1), 0);
	assert_int_equal(cache_drop_negative(c), 2);
	assert_int_equal(cache_count(c), 1);
	cache_records(cache_find(c, "0 10.0.0.2 ffff", 0), &n);
	assert_int_equal(n, 1);
	assert_int_equal(cache_drop_negative(c), 0);
	assert_int_equal(cache_drop_gid(c, g2), 1);
	assert_int_equal(cache_count(c), 0);
	cache_fini(c);
}

/* The key "kK" (the model tests) or, for an address, "0 10.0.K/256.K%256
 * ffff" (a lookup's key); valid until the next call. */
static const char *key_of(int k, int addr)
{
	static char key[32];

	if (addr)
		snprintf(key, sizeof(key), "0 10.0.%d.%d ffff", k / 256, k % 256);
	else
		snprintf(key, sizeof(key), "k%d", k);
	return key;
}

static void test_evict_closest_expiry(void **state)
{
	struct cache *c;
	int i;

	(void)state;
	assert_int_equal(cache_init(&c, 4), 0);
	for (i = 0; i < 4; i++)
		assert_int_equal(cache_put(c, key_of(i, 0), NULL, 0, i == 2 ? 10 : 100 + i), 0);
	assert_int_equal(cache_put(c, "k4", NULL, 0, 200), 0);
	assert_int_equal(cache_count(c), 4);
	assert_null(cache_find(c, "k2", 0));
	assert_non_null(cache_find(c, "k0", 0));
	assert_non_null(cache_find(c, "k4", 0));
	cache_fini(c);
}

/* Against a model: every eviction takes the soonest expiry left, with
 * replacements and report drops between puts (the heap's removals from
 * the middle). Key k's record is on GID byte 0 = k % 8. */
static void test_evict_order_random(void **state)
{
	enum { MAX = 64, PUTS = 4000, KEYS = 300 };
	static int64_t model[KEYS]; /* expiry per key, 0 absent */
	struct sr_record r;
	struct cache *c;
	unsigned seed = 7;
	int i, j, k;

	(void)state;
	memset(model, 0, sizeof(model));
	memset(&r, 0, sizeof(r));
	assert_int_equal(cache_init(&c, MAX), 0);
	for (i = 0; i < PUTS; i++) {
		/* Unique expiries: the victim is never a tie. */
		int64_t exp = 1 + (int64_t)(rand_r(&seed) % 100000) * PUTS + i, min = INT64_MAX;
		int n = 0, victim = -1;

		k = rand_r(&seed) % KEYS;
		for (j = 0; j < KEYS; j++) {
			if (!model[j])
				continue;
			n++;
			if (model[j] < min) {
				min = model[j];
				victim = j;
			}
		}
		if (!model[k] && n == MAX)
			model[victim] = 0;
		r.gid[0] = (uint8_t)(k % 8);
		assert_int_equal(cache_put(c, key_of(k, 0), &r, 1, exp), 0);
		model[k] = exp;
		if (i % 97 == 96) {
			uint8_t gid[16] = { (uint8_t)(i % 8) };
			size_t gone = 0;

			for (j = 0; j < KEYS; j++)
				if (model[j] && j % 8 == i % 8) {
					model[j] = 0;
					gone++;
				}
			assert_int_equal(cache_drop_gid(c, gid), gone);
		}
		for (j = 0; j < KEYS; j++)
			assert_int_equal(cache_find(c, key_of(j, 0), 0) != NULL, model[j] != 0);
	}
	cache_fini(c);
}

static void test_key_too_long(void **state)
{
	char key[CACHE_KEY_MAX + 1];
	struct cache *c;

	(void)state;
	memset(key, 'x', CACHE_KEY_MAX);
	key[CACHE_KEY_MAX] = '\0';
	assert_int_equal(cache_init(&c, 4), 0);
	assert_int_equal(cache_put(c, key, NULL, 0, 1), -ENAMETOOLONG);
	key[CACHE_KEY_MAX - 1] = '\0';
	assert_int_equal(cache_put(c, key, NULL, 0, 1), 0);
	cache_fini(c);
}

/* A full cache of 1024 entries still finds each one. */
static void test_many(void **state)
{
	struct cache *c;
	int i;

	(void)state;
	assert_int_equal(cache_init(&c, 1024), 0);
	for (i = 0; i < 1024; i++)
		assert_int_equal(cache_put(c, key_of(i, 1), NULL, 0, 1000 + i), 0);
	for (i = 0; i < 1024; i++)
		assert_non_null(cache_find(c, key_of(i, 1), 0));
	cache_fini(c);
}

TEST_MAIN(
	cmocka_unit_test(test_hit_expire_negative),
	cmocka_unit_test(test_drop_gid_negative),
	cmocka_unit_test(test_evict_closest_expiry),
	cmocka_unit_test(test_evict_order_random),
	cmocka_unit_test(test_key_too_long),
	cmocka_unit_test(test_many))
