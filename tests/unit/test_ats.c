/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "core/ats.h"
#include "fixture.h"

static void test_sid_block(void **state)
{
	(void)state;
	assert_true(ats_sid_in_block(0x10000CE100415400ull));
	assert_true(ats_sid_in_block(0x10000CE1004154FFull));
	assert_true(ats_sid_in_block(ATS_SID_PRIMARY));
	assert_false(ats_sid_in_block(0x10000CE1004153FFull));
	assert_false(ats_sid_in_block(0x10000CE100415500ull));
	/* The 15-digit typo of the spec text is not in the block. */
	assert_false(ats_sid_in_block(0x1000CE100415453ull));
}

static void test_sid_next_wraps(void **state)
{
	(void)state;
	assert_true(ats_sid_next(ATS_SID_PRIMARY) == 0x10000CE100415454ull);
	assert_true(ats_sid_next(0x10000CE1004154FFull) == 0x10000CE100415400ull);
	assert_true(ats_sid_next(0x10000CE100415452ull) == ATS_SID_PRIMARY);
	assert_int_equal(ats_sid_order(ATS_SID_PRIMARY), 0);
	assert_int_equal(ats_sid_order(0x10000CE1004154FFull), 0xff - 0x53);
	assert_int_equal(ats_sid_order(0x10000CE100415400ull), 0x100 - 0x53);
	assert_int_equal(ats_sid_order(0x10000CE100415452ull), 255);
	assert_true(ats_sid_at(0) == ATS_SID_PRIMARY);
	assert_true(ats_sid_at(1) == 0x10000CE100415454ull);
	assert_true(ats_sid_at(0xad) == 0x10000CE100415400ull);
	assert_true(ats_sid_at(255) == 0x10000CE100415452ull);
}

static void test_sid_order_covers_block(void **state)
{
	uint8_t seen[256] = { 0 };
	unsigned n;

	(void)state;
	for (n = 0; n < 256; n++) {
		uint64_t sid = ats_sid_at(n);

		assert_true(ats_sid_in_block(sid));
		assert_int_equal(ats_sid_order(sid), n);
		assert_false(seen[sid & 0xff]);
		seen[sid & 0xff] = 1;
	}
}

static void test_name(void **state)
{
	uint8_t name[SR_NAME_LEN];

	(void)state;
	ats_name_put(name);
	assert_string_equal((char *)name, "DAPL Address Translation Service");
	assert_int_equal(name[32], 0);
	assert_true(ats_name_is_canonical(name));
	name[40] = 'x'; /* ignored on receipt, not canonical */
	assert_true(ats_name_is_ats(name));
	assert_false(ats_name_is_canonical(name));
	ats_name_put(name);
	name[31] = 'X';
	assert_false(ats_name_is_ats(name));
	ats_name_put(name);
	name[32] = 's'; /* longer name with the ATS prefix */
	assert_false(ats_name_is_ats(name));
}

static void test_ip_encode_v4(void **state)
{
	struct ats_ip ip, d;
	uint8_t data8[16];
	enum ats_ip_form form;
	static const uint8_t want[16] = { [12] = 10, [13] = 1, [14] = 2, [15] = 3 };

	(void)state;
	assert_int_equal(ats_ip_parse("10.1.2.3", &ip), 0);
	assert_int_equal(ip.family, AF_INET);
	ats_ip_encode(&ip, data8);
	assert_memory_equal(data8, want, 16);
	assert_int_equal(ats_ip_decode(data8, &d, &form), 0);
	assert_int_equal(form, ATS_IP_V4);
	assert_true(ats_ip_equal(&ip, &d));
}

static void test_ip_mapped_accepted(void **state)
{
	static const uint8_t mapped[16] = { [10] = 0xff, [11] = 0xff,
					    [12] = 10, [13] = 1, [14] = 2, [15] = 3 };
	struct ats_ip ip, want;
	enum ats_ip_form form;
	uint8_t data8[16];

	(void)state;
	assert_int_equal(ats_ip_decode(mapped, &ip, &form), 0);
	assert_int_equal(form, ATS_IP_V4_MAPPED);
	assert_int_equal(ats_ip_parse("10.1.2.3", &want), 0);
	assert_true(ats_ip_equal(&ip, &want));
	/* Text ::ffff:a.b.c.d is an IPv4 host; it is written canonically. */
	assert_int_equal(ats_ip_parse("::ffff:10.1.2.3", &ip), 0);
	assert_int_equal(ip.family, AF_INET);
	ats_ip_encode(&ip, data8);
	assert_int_equal(data8[10], 0);
	assert_int_equal(data8[12], 10);
}

/* The same IPv4 address in the other ServiceData8 form, both ways; none
 * for IPv6 or an empty field. */
static void test_ip_other_form(void **state)
{
	static const uint8_t mapped[16] = { [10] = 0xff, [11] = 0xff,
					    [12] = 10, [13] = 1, [14] = 2, [15] = 3 };
	static const uint8_t spec[16] = { [12] = 10, [13] = 1, [14] = 2, [15] = 3 };
	static const uint8_t v6[16] = { 0xfd, [15] = 1 };
	static const uint8_t none[16];
	uint8_t alt[16];

	(void)state;
	assert_int_equal(ats_ip_other_form(spec, alt), 0);
	assert_memory_equal(alt, mapped, 16);
	assert_int_equal(ats_ip_other_form(mapped, alt), 0);
	assert_memory_equal(alt, spec, 16);
	assert_int_equal(ats_ip_other_form(v6, alt), -EINVAL);
	assert_int_equal(ats_ip_other_form(none, alt), -EINVAL);
}

static void test_ip_v6(void **state)
{
	struct ats_ip ip, d;
	uint8_t data8[16];
	char buf[ATS_IP_STRLEN];
	enum ats_ip_form form;

	(void)state;
	assert_int_equal(ats_ip_parse("fd00:1::42", &ip), 0);
	assert_int_equal(ip.family, AF_INET6);
	ats_ip_encode(&ip, data8);
	assert_int_equal(data8[0], 0xfd);
	assert_int_equal(data8[15], 0x42);
	assert_int_equal(ats_ip_decode(data8, &d, &form), 0);
	assert_int_equal(form, ATS_IP_V6);
	assert_string_equal(ats_ip_format(&d, buf, sizeof(buf)), "fd00:1::42");
	memset(data8, 0, 16);
	assert_int_equal(ats_ip_decode(data8, &d, &form), -EINVAL);
	assert_int_equal(ats_ip_parse("not-an-ip", &ip), -EINVAL);
	assert_int_equal(ats_ip_parse("1.2.3", &ip), -EINVAL);
	assert_int_equal(ats_ip_parse("", &ip), -EINVAL);
}

static void test_unicast(void **state)
{
	static const struct {
		const char *ip;
		int ok;
	} cases[] = {
		{ "10.0.0.1", 1 }, { "192.168.1.10", 1 }, { "1.0.0.0", 1 },
		{ "0.0.0.0", 0 }, { "0.1.2.3", 0 }, { "127.0.0.1", 0 },
		{ "224.0.0.1", 0 }, { "239.255.255.255", 0 },
		{ "255.255.255.255", 0 }, { "240.0.0.1", 1 },
		{ "2001:db8::1", 1 }, { "fe80::1", 1 }, { "::", 0 },
		{ "::1", 0 }, { "ff02::1", 0 },
	};
	struct ats_ip ip;
	const char *why;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(ats_ip_parse(cases[i].ip, &ip), 0);
		if (cases[i].ok) {
			assert_int_equal(ats_ip_check_unicast(&ip, &why), 0);
			assert_null(why);
		} else {
			assert_int_equal(ats_ip_check_unicast(&ip, &why), -EINVAL);
			assert_non_null(why);
		}
	}
}

static void test_record_check(void **state)
{
	struct sr_record r;
	struct ats_ip ip;
	uint8_t gid[16] = { 0xfe, 0x80 };
	const char *why;

	(void)state;
	ats_ip_parse("10.0.0.1", &ip);
	ats_record_init(&r, ATS_SID_PRIMARY, gid, 0xffff, SR_LEASE_INFINITE, &ip);
	assert_int_equal(ats_record_check(&r, &why), ATS_VALID);
	r.id = 0x10000CE100415500ull;
	assert_int_equal(ats_record_check(&r, &why), ATS_BAD_SID);
	r.id = 0x1234;
	memcpy(r.name, "other", 6);
	assert_int_equal(ats_record_check(&r, &why), ATS_NOT_ATS);
	r.id = 0x10000CE100415401ull;
	assert_int_equal(ats_record_check(&r, &why), ATS_BAD_NAME);
	ats_record_init(&r, ATS_SID_PRIMARY, gid, 0xffff, SR_LEASE_INFINITE, &ip);
	r.data8[12] = 127;
	assert_int_equal(ats_record_check(&r, &why), ATS_BAD_ADDR);
	assert_string_equal(why, "IPv4 loopback");
	memset(r.data8, 0, 16);
	assert_int_equal(ats_record_check(&r, &why), ATS_BAD_ADDR);
	assert_string_equal(ats_verdict_str(ATS_BAD_ADDR), "address");
}

static void test_gid_text(void **state)
{
	uint8_t gid[16];
	char buf[ATS_IP_STRLEN];

	(void)state;
	assert_int_equal(ats_gid_parse("fe80::2:c903:a:b1c2", gid), 0);
	assert_int_equal(gid[0], 0xfe);
	assert_int_equal(gid[15], 0xc2);
	assert_string_equal(ats_gid_format(gid, buf, sizeof(buf)),
			    "fe80::2:c903:a:b1c2");
	assert_int_equal(ats_gid_parse("0x1234", gid), -EINVAL);
}

/* The shared helpers: one address text, one comparison, one registration
 * mask, one P_Key parser for every program. */
static void test_data8_str_and_same_ip(void **state)
{
	struct sr_record a = { 0 }, b = { 0 };
	char buf[ATS_IP_STRLEN];
	struct ats_ip ip;

	(void)state;
	assert_string_equal(ats_data8_str(a.data8, buf, sizeof(buf)), "-");
	assert_false(ats_same_ip(&a, &b)); /* no address is no match */
	assert_int_equal(ats_ip_parse("10.0.0.7", &ip), 0);
	ats_ip_encode(&ip, a.data8);
	assert_string_equal(ats_data8_str(a.data8, buf, sizeof(buf)), "10.0.0.7");
	/* The same IPv4 address in its mapped form is the same address. */
	b.data8[10] = b.data8[11] = 0xff;
	memcpy(b.data8 + 12, ip.addr, 4);
	assert_true(ats_same_ip(&a, &b));
	b.data8[15] ^= 1;
	assert_false(ats_same_ip(&a, &b));
}

static void test_reg_mask(void **state)
{
	uint64_t base = sr_comp_mask(SR_F_ID | SR_F_GID | SR_F_PKEY | SR_F_NAME |
				     SR_F_DATA8 | SR_F_KEY);

	(void)state;
	assert_true(ats_reg_mask(SR_LEASE_INFINITE) == base);
	assert_true(ats_reg_mask(60) == (base | sr_comp_mask(SR_F_LEASE)));
}

static void test_pkey_parse(void **state)
{
	uint16_t pk = 0;

	(void)state;
	assert_int_equal(ats_pkey_parse("0xffff", &pk), 0);
	assert_int_equal(pk, 0xffff);
	assert_int_equal(ats_pkey_parse("0x7fff", &pk), 0);
	assert_int_equal(pk, 0x7fff); /* the membership bit is kept as written */
	assert_int_equal(ats_pkey_parse("32769", &pk), 0);
	assert_int_equal(pk, 0x8001);
	assert_int_equal(ats_pkey_parse("0x8000", &pk), -EINVAL);
	assert_int_equal(ats_pkey_parse("0", &pk), -EINVAL);
	assert_int_equal(ats_pkey_parse("0x10000", &pk), -EINVAL);
	assert_int_equal(ats_pkey_parse("-1", &pk), -EINVAL);
	assert_int_equal(ats_pkey_parse("0xffffg", &pk), -EINVAL);
	assert_int_equal(ats_pkey_parse("", &pk), -EINVAL);
	assert_int_equal(ats_pkey_parse(NULL, &pk), -EINVAL);
}

TEST_MAIN(
	cmocka_unit_test(test_sid_block),
	cmocka_unit_test(test_sid_next_wraps),
	cmocka_unit_test(test_sid_order_covers_block),
	cmocka_unit_test(test_name),
	cmocka_unit_test(test_ip_encode_v4),
	cmocka_unit_test(test_ip_mapped_accepted),
	cmocka_unit_test(test_ip_other_form),
	cmocka_unit_test(test_ip_v6),
	cmocka_unit_test(test_unicast),
	cmocka_unit_test(test_record_check),
	cmocka_unit_test(test_gid_text),
	cmocka_unit_test(test_data8_str_and_same_ip),
	cmocka_unit_test(test_reg_mask),
	cmocka_unit_test(test_pkey_parse))
