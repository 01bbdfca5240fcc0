/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "core/ats.h"
#include "core/ipoib.h"
#include "fixture.h"

static void test_rfc4391(void **state)
{
	/* What "ip link" shows for an IPoIB interface:
	 * 80:00:04:04:fe:80:00:00:00:00:00:00:00:02:c9:03:00:0a:0b:0c */
	static const uint8_t hw[20] = {
		0x80, 0x00, 0x04, 0x04, 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
		0x00, 0x02, 0xc9, 0x03, 0x00, 0x0a, 0x0b, 0x0c,
	};
	struct ipoib_hwaddr a;
	uint8_t b[20];
	char gid[ATS_IP_STRLEN];

	(void)state;
	assert_int_equal(ipoib_hwaddr_decode(hw, sizeof(hw), &a), 0);
	assert_int_equal(a.flags, IPOIB_FLAG_CM);
	assert_int_equal(a.qpn, 0x000404);
	assert_string_equal(ats_gid_format(a.gid, gid, sizeof(gid)), "fe80::2:c903:a:b0c");
	ipoib_hwaddr_encode(b, &a);
	assert_memory_equal(b, hw, sizeof(hw));
	assert_int_equal(ipoib_hwaddr_decode(hw, 19, &a), -EINVAL);
	assert_int_equal(ipoib_hwaddr_decode(hw, 6, &a), -EINVAL); /* Ethernet */
}

static void test_draft(void **state)
{
	struct ipoib_draft_hwaddr a = { 0x0005, IPOIB_CAP_RC | IPOIB_CAP_QPN, 0x48,
					0x0000000b, { 0xfe, 0x80, [15] = 5 } }, d;
	uint8_t b[26];

	(void)state;
	ipoib_draft_hwaddr_encode(b, &a);
	assert_memory_equal(b, "\x00\x05\x48\x00\x00\x48\x00\x00\x00\x0b\xfe\x80", 12);
	assert_int_equal(b[25], 5);
	assert_int_equal(ipoib_draft_hwaddr_decode(b, sizeof(b), &d), 0);
	assert_int_equal(d.lid, 5);
	assert_int_equal(d.caps, 0x48);
	assert_int_equal(d.qpn, 0x48);
	assert_int_equal(d.qkey, 0xb);
	assert_int_equal(ipoib_draft_hwaddr_decode(b, 20, &d), -EINVAL);
}

static void test_bcast_mgid(void **state)
{
	uint8_t mgid[16];
	char s[ATS_IP_STRLEN];

	(void)state;
	ipoib_bcast_mgid(0x7fff, mgid);
	assert_string_equal(ats_gid_format(mgid, s, sizeof(s)), "ff12:401b:ffff::ffff:ffff");
	ipoib_bcast_mgid(0x0001, mgid);
	assert_string_equal(ats_gid_format(mgid, s, sizeof(s)), "ff12:401b:8001::ffff:ffff");
}

TEST_MAIN(
	cmocka_unit_test(test_rfc4391),
	cmocka_unit_test(test_draft),
	cmocka_unit_test(test_bcast_mgid))
