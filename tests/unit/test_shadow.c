/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The standby's shadow: records by RID, replaced in place, deleted,
 * handed over whole, and walked oldest first; at 10000 records against
 * a plain array model. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "plugin/shadow.h"
#include "plugin/srindex.h"
#include "core/wire.h"
#include "fixture.h"

/* Record i of a test: its RID from i (ServiceID, GID and P_Key all
 * vary), its content (ServiceData32) from version v. */
static void make_rec(uint8_t *r, uint32_t i, uint32_t v)
{
	memset(r, 0, SR_SIZE);
	wire_put64(r + SR_OFF_ID, 0x10000ce100415400ull + i / 3);
	wire_put64(r + SR_OFF_GID, 0xfe80000000000000ull);
	wire_put64(r + SR_OFF_GID + 8, 0x0002c90300000000ull + i / 3);
	wire_put16(r + SR_OFF_PKEY, (uint16_t)(0x8001 + i % 3));
	wire_put32(r + SR_OFF_LEASE, 0xffffffff);
	memcpy(r + SR_OFF_NAME, "DAPL Address Translation Service", 32);
	wire_put32(r + SR_OFF_DATA8 + 12, i);
	wire_put32(r + SR_OFF_DATA32, v);
	/* A new version moves the record in the ServiceData8 hash too. */
	r[SR_OFF_DATA8] = (uint8_t)v;
}

static uint32_t rec_i(const uint8_t *r)
{
	return wire_get32(r + SR_OFF_DATA8 + 12);
}

static uint32_t rec_v(const uint8_t *r)
{
	return wire_get32(r + SR_OFF_DATA32);
}

/* What a walk saw, in order. */
struct seen {
	uint32_t i[16], v[16];
	int64_t lease[16];
	size_t n, stop_at;
};

static int see(const uint8_t *rec, int64_t lease_end_ms, void *arg)
{
	struct seen *s = arg;

	s->i[s->n] = rec_i(rec);
	s->v[s->n] = rec_v(rec);
	s->lease[s->n] = lease_end_ms;
	s->n++;
	return s->n == s->stop_at ? 7 : 0;
}

static void test_set_replace_delete(void **state)
{
	struct shadow *s;
	struct seen w = { .n = 0 };
	uint8_t r[SR_SIZE];
	uint32_t i;

	(void)state;
	assert_int_equal(shadow_init(&s), 0);
	assert_int_equal(shadow_count(s), 0);
	assert_int_equal(shadow_each_oldest_first(s, see, &w), 0);
	assert_int_equal(w.n, 0);
	for (i = 0; i < 4; i++) {
		make_rec(r, i, 0);
		assert_int_equal(shadow_set(s, r, 1000 + i), 0);
	}
	assert_int_equal(shadow_count(s), 4);
	/* Replacing 1 keeps its place; only the RID decides "same". */
	make_rec(r, 1, 5);
	wire_put32(r + SR_OFF_LEASE, 60);
	r[SR_OFF_RESV] = 0xaa;
	assert_int_equal(shadow_set(s, r, SHADOW_LEASE_INFINITE), 0);
	assert_int_equal(shadow_count(s), 4);
	assert_int_equal(shadow_each_oldest_first(s, see, &w), 0);
	assert_int_equal(w.n, 4);
	for (i = 0; i < 4; i++)
		assert_int_equal(w.i[i], i);
	assert_int_equal(w.v[1], 5);
	assert_int_equal(w.lease[0], 1000);
	assert_int_equal(w.lease[1], SHADOW_LEASE_INFINITE);
	assert_int_equal(w.lease[3], 1003);

	/* Delete by RID: the rest of the record does not matter. */
	make_rec(r, 2, 99);
	assert_int_equal(shadow_delete(s, r), 0);
	assert_int_equal(shadow_delete(s, r), -ENOENT);
	make_rec(r, 9, 0);
	assert_int_equal(shadow_delete(s, r), -ENOENT);
	assert_int_equal(shadow_count(s), 3);
	/* Added again, it is the newest. */
	make_rec(r, 2, 1);
	assert_int_equal(shadow_set(s, r, 2002), 0);
	w.n = 0;
	assert_int_equal(shadow_each_oldest_first(s, see, &w), 0);
	assert_int_equal(w.n, 4);
	assert_int_equal(w.i[0], 0);
	assert_int_equal(w.i[1], 1);
	assert_int_equal(w.i[2], 3);
	assert_int_equal(w.i[3], 2);
	assert_int_equal(w.v[3], 1);
	assert_int_equal(w.lease[3], 2002);

	/* fn's nonzero stops the walk and is returned. */
	w.n = 0;
	w.stop_at = 2;
	assert_int_equal(shadow_each_oldest_first(s, see, &w), 7);
	assert_int_equal(w.n, 2);
	assert_int_equal(w.i[1], 1);

	shadow_clear(s);
	assert_int_equal(shadow_count(s), 0);
	make_rec(r, 0, 0);
	assert_int_equal(shadow_delete(s, r), -ENOENT);
	assert_int_equal(shadow_set(s, r, 1), 0);
	assert_int_equal(shadow_count(s), 1);
	shadow_fini(s);
	shadow_fini(NULL);
}

static void test_move(void **state)
{
	struct shadow *to, *from;
	struct seen w = { .n = 0 };
	uint8_t r[SR_SIZE];
	uint32_t i;

	(void)state;
	assert_int_equal(shadow_init(&to), 0);
	assert_int_equal(shadow_init(&from), 0);
	/* to's old records share RIDs with from's and are all dropped. */
	for (i = 0; i < 5; i++) {
		make_rec(r, i, 1);
		assert_int_equal(shadow_set(to, r, 1), 0);
	}
	for (i = 3; i < 6; i++) {
		make_rec(r, i, 2);
		assert_int_equal(shadow_set(from, r, 2), 0);
	}
	shadow_move(to, from);
	assert_int_equal(shadow_count(to), 3);
	assert_int_equal(shadow_count(from), 0);
	assert_int_equal(shadow_each_oldest_first(from, see, &w), 0);
	assert_int_equal(w.n, 0);
	assert_int_equal(shadow_each_oldest_first(to, see, &w), 0);
	assert_int_equal(w.n, 3);
	for (i = 0; i < 3; i++) {
		assert_int_equal(w.i[i], 3 + i);
		assert_int_equal(w.v[i], 2);
		assert_int_equal(w.lease[i], 2);
	}
	make_rec(r, 0, 0);
	assert_int_equal(shadow_delete(to, r), -ENOENT);
	/* Both stay usable. */
	assert_int_equal(shadow_set(from, r, 3), 0);
	assert_int_equal(shadow_count(from), 1);
	make_rec(r, 4, 0);
	assert_int_equal(shadow_delete(to, r), 0);
	assert_int_equal(shadow_count(to), 2);
	/* Moving an empty shadow empties the other. */
	shadow_clear(from);
	shadow_move(to, from);
	assert_int_equal(shadow_count(to), 0);
	assert_int_equal(shadow_count(from), 0);
	shadow_fini(to);
	shadow_fini(from);
}

#define BIG 10000

struct check {
	const uint32_t *order;   /* the expected i, oldest first */
	const uint32_t *ver;     /* by i */
	size_t n;
};

static int check_one(const uint8_t *rec, int64_t lease_end_ms, void *arg)
{
	struct check *c = arg;
	uint32_t i = rec_i(rec);
	uint8_t want[SR_SIZE];

	if (i != c->order[c->n] || lease_end_ms != (int64_t)i * 10 + c->ver[i])
		return -1;
	make_rec(want, i, c->ver[i]);
	if (memcmp(rec, want, SR_SIZE))
		return -1;
	c->n++;
	return 0;
}

static void test_big(void **state)
{
	uint32_t *order = malloc(BIG * sizeof(*order)), *ver = calloc(BIG, sizeof(*ver));
	struct check c = { .order = order, .ver = ver };
	struct shadow *s;
	uint8_t r[SR_SIZE];
	size_t n = 0;
	uint32_t i;

	(void)state;
	assert_non_null(order);
	assert_non_null(ver);
	assert_int_equal(shadow_init(&s), 0);
	for (i = 0; i < BIG; i++) {
		make_rec(r, i, 0);
		assert_int_equal(shadow_set(s, r, (int64_t)i * 10), 0);
	}
	assert_int_equal(shadow_count(s), BIG);
	/* Replace every other one, newest first so that a replacement that
	 * moved its record would show. */
	for (i = BIG; i-- > 0;) {
		if (i % 2)
			continue;
		ver[i] = 1;
		make_rec(r, i, 1);
		assert_int_equal(shadow_set(s, r, (int64_t)i * 10 + 1), 0);
	}
	assert_int_equal(shadow_count(s), BIG);
	for (i = 0; i < BIG; i += 3) {
		make_rec(r, i, 7);
		assert_int_equal(shadow_delete(s, r), 0);
	}
	for (i = 0; i < BIG; i++)
		if (i % 3)
			order[n++] = i;
	assert_int_equal(shadow_count(s), n);
	assert_int_equal(shadow_each_oldest_first(s, check_one, &c), 0);
	assert_int_equal(c.n, n);
	shadow_fini(s);
	free(order);
	free(ver);
}

TEST_MAIN(
	cmocka_unit_test(test_set_replace_delete),
	cmocka_unit_test(test_move),
	cmocka_unit_test(test_big))
