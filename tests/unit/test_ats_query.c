/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* ats_query_set_put: records unique by (SID, GID, PKey), in the order put, at
 * a cost linear in the records (a dump of 100k took 20 s when each put
 * scanned the set), and correct after callers changed the set by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "host/ats_query.h"
#include "fixture.h"

static struct sr_record rec(uint64_t sid, uint32_t port, uint16_t pkey)
{
	struct sr_record r;

	memset(&r, 0, sizeof(r));
	r.id = sid;
	r.gid[0] = 0xfe;
	r.gid[1] = 0x80;
	r.gid[12] = (uint8_t)(port >> 24);
	r.gid[13] = (uint8_t)(port >> 16);
	r.gid[14] = (uint8_t)(port >> 8);
	r.gid[15] = (uint8_t)port;
	r.pkey = pkey;
	return r;
}

static void test_unique_by_key(void **state)
{
	struct ats_query_set s = { 0 };
	struct sr_record r = rec(ATS_SID_PRIMARY, 1, 0xffff);

	(void)state;
	assert_int_equal(ats_query_set_put(&s, &r), 0);
	r.lease = 7; /* same key, other content: the first stays */
	assert_int_equal(ats_query_set_put(&s, &r), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.recs[0].lease, 0);
	r = rec(ATS_SID_PRIMARY, 1, 0x8001);
	assert_int_equal(ats_query_set_put(&s, &r), 0);
	r = rec(ATS_SID_PRIMARY + 1, 1, 0xffff);
	assert_int_equal(ats_query_set_put(&s, &r), 0);
	r = rec(ATS_SID_PRIMARY, 2, 0xffff);
	assert_int_equal(ats_query_set_put(&s, &r), 0);
	assert_int_equal(s.n, 4);
	ats_query_set_free(&s);
}

/* 300k records, each key twice: done in well under a second now (some
 * 3 minutes with the scan). */
static void test_many(void **state)
{
	struct ats_query_set s = { 0 };
	uint32_t i;

	(void)state;
	for (i = 0; i < 600000; i++) {
		struct sr_record r = rec(ATS_SID_PRIMARY + i % 16, (i / 2) / 16, 0xffff);

		r.id = ATS_SID_PRIMARY + (i / 2) % 16;
		assert_int_equal(ats_query_set_put(&s, &r), 0);
	}
	assert_int_equal(s.n, 300000);
	for (i = 0; i < s.n; i++)
		assert_int_equal(s.recs[i].id, ATS_SID_PRIMARY + i % 16);
	ats_query_set_free(&s);
}

/* ats_query_forward compacts recs and lowers n; atsd's SA thread hands recs
 * on and puts its own there: the next put still sees every record. */
static void test_changed_by_hand(void **state)
{
	struct ats_query_set s = { 0 };
	struct sr_record r;
	uint32_t i;

	(void)state;
	for (i = 0; i < 40; i++) {
		r = rec(ATS_SID_PRIMARY, i, 0xffff);
		assert_int_equal(ats_query_set_put(&s, &r), 0);
	}
	s.recs[0] = s.recs[39];
	s.n = 1;
	r = rec(ATS_SID_PRIMARY, 39, 0xffff);
	assert_int_equal(ats_query_set_put(&s, &r), 0);
	assert_int_equal(s.n, 1);
	r = rec(ATS_SID_PRIMARY, 0, 0xffff);
	assert_int_equal(ats_query_set_put(&s, &r), 0);
	assert_int_equal(s.n, 2);

	/* Sorted in place (ats_lookup): the same n, the same array. */
	r = s.recs[0];
	s.recs[0] = s.recs[1];
	s.recs[1] = r;
	s.idx_recs = NULL;
	for (i = 0; i < 40; i++) {
		r = rec(ATS_SID_PRIMARY, i, 0xffff);
		assert_int_equal(ats_query_set_put(&s, &r), 0);
	}
	assert_int_equal(s.n, 40);

	free(s.recs);
	s.recs = calloc(1, sizeof(*s.recs));
	assert_non_null(s.recs);
	s.recs[0] = rec(ATS_SID_PRIMARY, 5, 0xffff);
	s.n = 1;
	r = rec(ATS_SID_PRIMARY, 5, 0xffff);
	assert_int_equal(ats_query_set_put(&s, &r), 0);
	assert_int_equal(s.n, 1);
	for (i = 0; i < 20; i++) {
		r = rec(ATS_SID_PRIMARY + 1, i, 0xffff);
		assert_int_equal(ats_query_set_put(&s, &r), 0);
	}
	assert_int_equal(s.n, 21);
	ats_query_set_free(&s);
}

TEST_MAIN(
	cmocka_unit_test(test_unique_by_key),
	cmocka_unit_test(test_many),
	cmocka_unit_test(test_changed_by_hand))
