/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* InformInfo and Notice codec (lib/core/notice.c) against wire images
 * laid out by hand from IBTA Vol 1 Tables 159, 155 and 261. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "core/notice.h"
#include "fixture.h"

/* Subscribe to trap 65 from every GID, Reports to QP1, RespTimeValue 18. */
static const uint8_t golden_inform_65[NOTICE_INFORM_SIZE] = {
	/* 0: GID 0 (all) */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	/* 16: LIDRangeBegin 0xFFFF, 18: LIDRangeEnd 0 */
	0xff, 0xff, 0x00, 0x00,
	/* 20: reserved, 22: IsGeneric 1, 23: Subscribe 1 */
	0x00, 0x00, 0x01, 0x01,
	/* 24: Type 0xFFFF, 26: TrapNumber 65 */
	0xff, 0xff, 0x00, 0x41,
	/* 28: QPN 1 | reserved | RespTimeValue 18 */
	0x00, 0x00, 0x01, 0x12,
	/* 32: reserved | ProducerType 0xFFFFFF */
	0x00, 0xff, 0xff, 0xff,
};

/* Trap 65 from the SM at LID 1 for GID fe80::2:c903:a:b1c2. */
static const uint8_t golden_notice_65[NOTICE_SIZE] = {
	/* 0: IsGeneric 1 | Type 4, ProducerType 4 (SM) */
	0x84, 0x00, 0x00, 0x04,
	/* 4: TrapNumber 65, 6: IssuerLID 1 */
	0x00, 0x41, 0x00, 0x01,
	/* 8: NoticeToggle 0 | NoticeCount 0 */
	0x00, 0x00,
	/* 10: DataDetails: 6 reserved bytes, then the GID (Table 261) */
	0, 0, 0, 0, 0, 0,
	0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x02, 0xc9, 0x03, 0x00, 0x0a, 0xb1, 0xc2,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	/* 64: IssuerGID: the SM's port */
	0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x02, 0xc9, 0x03, 0x00, 0x00, 0x00, 0x01,
};

static const uint8_t gid_host[16] = {
	0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x02, 0xc9, 0x03, 0x00, 0x0a, 0xb1, 0xc2,
};
static const uint8_t gid_sm[16] = {
	0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x02, 0xc9, 0x03, 0x00, 0x00, 0x00, 0x01,
};

static void test_inform_golden(void **state)
{
	struct notice_inform ii, back;
	uint8_t buf[NOTICE_INFORM_SIZE];

	(void)state;
	notice_inform_for_trap(&ii, NOTICE_TRAP_GID_OUT, 1);
	notice_inform_encode(buf, &ii);
	assert_memory_equal(buf, golden_inform_65, NOTICE_INFORM_SIZE);
	assert_int_equal(notice_inform_decode(golden_inform_65, NOTICE_INFORM_SIZE, &back), 0);
	assert_memory_equal(&back, &ii, sizeof(ii));
	/* Unsubscribe differs in the Subscribe byte only. */
	notice_inform_for_trap(&ii, NOTICE_TRAP_GID_OUT, 0);
	notice_inform_encode(buf, &ii);
	assert_int_equal(buf[23], 0);
	buf[23] = 1;
	assert_memory_equal(buf, golden_inform_65, NOTICE_INFORM_SIZE);
}

static void test_notice_golden(void **state)
{
	struct notice n, back;
	uint8_t buf[NOTICE_SIZE], gid[16];

	(void)state;
	notice_gid_trap(&n, NOTICE_TRAP_GID_OUT, 1, gid_sm, gid_host);
	notice_encode(buf, &n);
	assert_memory_equal(buf, golden_notice_65, NOTICE_SIZE);
	assert_int_equal(notice_decode(golden_notice_65, NOTICE_SIZE, &back), 0);
	assert_memory_equal(&back, &n, sizeof(n));
	assert_int_equal(back.trap_or_dev, 65);
	assert_int_equal(back.issuer_lid, 1);
	assert_int_equal(notice_trap_gid(&back, gid), 0);
	assert_memory_equal(gid, gid_host, 16);
}

/* Every field at its extreme survives encode and decode, and no field
 * spills into its neighbour. */
static void test_round_trip_extremes(void **state)
{
	struct notice_inform ii = { 0 }, iback;
	struct notice n = { 0 }, nback;
	uint8_t b[NOTICE_SIZE];

	(void)state;
	memset(ii.gid, 0xa5, 16);
	ii.lid_begin = 0xfffe;
	ii.lid_end = 0x0001;
	ii.is_generic = 0;
	ii.subscribe = 1;
	ii.type = 0x1234;
	ii.trap_or_dev = 0xbeef;
	ii.qpn = 0xffffff;
	ii.resp_time = 0x1f;
	ii.producer_or_vendor = 0xabcdef;
	notice_inform_encode(b, &ii);
	assert_int_equal(b[31], 0x1f); /* the 3 reserved bits stay 0 */
	assert_int_equal(b[32], 0);
	assert_int_equal(notice_inform_decode(b, NOTICE_INFORM_SIZE, &iback), 0);
	assert_memory_equal(&iback, &ii, sizeof(ii));

	n.is_generic = 1;
	n.type = 0x7f;
	n.producer_or_vendor = 0xffffff;
	n.trap_or_dev = 0xffff;
	n.issuer_lid = 0xc000;
	n.toggle = 1;
	n.count = 0x7fff;
	memset(n.details, 0x5a, sizeof(n.details));
	memset(n.issuer_gid, 0xff, 16);
	notice_encode(b, &n);
	assert_int_equal(notice_decode(b, NOTICE_SIZE, &nback), 0);
	assert_memory_equal(&nback, &n, sizeof(n));
	/* Out-of-range inputs are masked to their field width. */
	n.type = 0xff;
	n.count = 0xffff;
	notice_encode(b, &n);
	assert_int_equal(b[0], 0xff);
	assert_int_equal(b[8], 0xff);
	assert_int_equal(notice_decode(b, NOTICE_SIZE, &nback), 0);
	assert_int_equal(nback.type, 0x7f);
	assert_int_equal(nback.count, 0x7fff);
}

static void test_truncated(void **state)
{
	struct notice_inform ii;
	struct notice n;
	size_t len;

	(void)state;
	for (len = 0; len < NOTICE_INFORM_SIZE; len++)
		assert_int_equal(notice_inform_decode(golden_inform_65, len, &ii), -EMSGSIZE);
	for (len = 0; len < NOTICE_SIZE; len++)
		assert_int_equal(notice_decode(golden_notice_65, len, &n), -EMSGSIZE);
}

/* Only generic traps 64..67 name a GID in their details. */
static void test_trap_gid_hostile(void **state)
{
	struct notice n;
	uint8_t b[NOTICE_SIZE], gid[16];

	(void)state;
	memcpy(b, golden_notice_65, NOTICE_SIZE);
	b[0] &= 0x7f; /* vendor notice: DeviceID 65 is no trap */
	assert_int_equal(notice_decode(b, NOTICE_SIZE, &n), 0);
	assert_int_equal(notice_trap_gid(&n, gid), -EINVAL);
	memcpy(b, golden_notice_65, NOTICE_SIZE);
	b[5] = 63;
	assert_int_equal(notice_decode(b, NOTICE_SIZE, &n), 0);
	assert_int_equal(notice_trap_gid(&n, gid), -EINVAL);
	b[5] = 68;
	assert_int_equal(notice_decode(b, NOTICE_SIZE, &n), 0);
	assert_int_equal(notice_trap_gid(&n, gid), -EINVAL);
	memset(b, 0xff, sizeof(b));
	assert_int_equal(notice_decode(b, NOTICE_SIZE, &n), 0);
	assert_int_equal(notice_trap_gid(&n, gid), -EINVAL);
}

/* What the SM issued itself, against a trap an endport sent it, which
 * the SM forwards with the endport's GID as IssuerGID. */
static void test_from_sm(void **state)
{
	struct notice n;

	(void)state;
	assert_int_equal(notice_decode(golden_notice_65, NOTICE_SIZE, &n), 0);
	assert_true(notice_from_sm(&n, 0x0002c90300000001ull));
	assert_false(notice_from_sm(&n, 0x0002c903000ab1c2ull));
	/* The IssuerLID is whatever the sender wrote: not looked at. */
	n.issuer_lid = 0;
	assert_true(notice_from_sm(&n, 0x0002c90300000001ull));
	n.issuer_gid[15] ^= 1;
	assert_false(notice_from_sm(&n, 0x0002c90300000001ull));
	/* Unknown SM GUID (0) matches no issuer a real port has. */
	memset(n.issuer_gid + 8, 0xff, 8);
	assert_false(notice_from_sm(&n, 0));
}

TEST_MAIN(
	cmocka_unit_test(test_inform_golden),
	cmocka_unit_test(test_notice_golden),
	cmocka_unit_test(test_round_trip_extremes),
	cmocka_unit_test(test_truncated),
	cmocka_unit_test(test_trap_gid_hostile),
	cmocka_unit_test(test_from_sm))
