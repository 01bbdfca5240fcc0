/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The PathRecord codec (lib/core/pr.h, IBTA Vol 1 15.2.5.16 Table 205):
 * the query's golden bytes and mask, an answer's fields, a short one. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "core/pr.h"
#include "fixture.h"

static const uint8_t SGID[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0x02, 0xc9, 0x03, 0, 0, 0, 0x01 };
static const uint8_t DGID[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0x02, 0xc9, 0x03, 0, 0, 0, 0x02 };

static void test_query_golden(void **state)
{
	uint8_t rec[PR_SIZE], want[PR_SIZE] = { 0 };

	(void)state;
	memcpy(want + 8, DGID, 16);
	memcpy(want + 24, SGID, 16);
	want[49] = 0x81;        /* Reversible, NumbPath 1 */
	want[50] = 0xff;        /* P_Key 0xffff */
	want[51] = 0xff;
	/* DGID, SGID, Reversible, NumbPath, P_Key: bits 2, 3, 11, 12, 13 */
	assert_true(pr_query(rec, SGID, DGID, 0xffff) == 0x380cull);
	assert_memory_equal(rec, want, PR_SIZE);
}

/* test_decode's record, field by field but for the GIDs. */
static void assert_decoded(const struct pr_record *r)
{
	const struct {
		const char *name;
		unsigned long got, want;
	} f[] = {
		{ "dlid", r->dlid, 7 }, { "slid", r->slid, 4 },
		{ "flow_label", r->flow_label, 0x01234 }, { "hop_limit", r->hop_limit, 64 },
		{ "tclass", r->tclass, 0x0a }, { "reversible", r->reversible, 1 },
		{ "numb_path", r->numb_path, 1 }, { "pkey", r->pkey, 0x8001 },
		{ "sl", r->sl, 3 }, { "mtu", r->mtu, 4 }, { "rate", r->rate, 7 },
		{ "life", r->life, 18 },
	};
	size_t i;

	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (f[i].got != f[i].want)
			fail_msg("%s: 0x%lx, expected 0x%lx", f[i].name, f[i].got, f[i].want);
}

static void test_decode(void **state)
{
	uint8_t rec[PR_SIZE] = { 0 };
	struct pr_record r;

	(void)state;
	memcpy(rec + 8, DGID, 16);
	memcpy(rec + 24, SGID, 16);
	rec[40] = 0x00, rec[41] = 0x07;                 /* DLID 7 */
	rec[42] = 0x00, rec[43] = 0x04;                 /* SLID 4 */
	rec[44] = 0x80, rec[45] = 0x12, rec[46] = 0x34, rec[47] = 0x40; /* flow 0x01234, hops 64 */
	rec[48] = 0x0a;                                 /* TClass */
	rec[49] = 0x81;
	rec[50] = 0x80, rec[51] = 0x01;                 /* P_Key 0x8001 */
	rec[52] = 0x00, rec[53] = 0x13;                 /* QoS class 1, SL 3 */
	rec[54] = 0x84;                                 /* selector 2, MTU 4 (2048) */
	rec[55] = 0x87;                                 /* selector 2, rate 7 */
	rec[56] = 0x92;                                 /* selector 2, life 18 */
	assert_int_equal(pr_decode(rec, sizeof(rec), &r), 0);
	assert_memory_equal(r.dgid, DGID, 16);
	assert_memory_equal(r.sgid, SGID, 16);
	assert_decoded(&r);
	assert_int_equal(pr_decode(rec, PR_SIZE - 1, &r), -EMSGSIZE);
}

TEST_MAIN(
	cmocka_unit_test(test_query_golden),
	cmocka_unit_test(test_decode))
