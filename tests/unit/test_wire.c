/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "core/mad.h"
#include "core/wire.h"
#include "fixture.h"

static void test_put_get(void **state)
{
	uint8_t b[8];

	(void)state;
	wire_put16(b, 0xabcd);
	assert_int_equal(b[0], 0xab);
	assert_int_equal(b[1], 0xcd);
	assert_int_equal(wire_get16(b), 0xabcd);
	wire_put32(b, 0x01020304);
	assert_memory_equal(b, "\x01\x02\x03\x04", 4);
	assert_int_equal(wire_get32(b), 0x01020304);
	wire_put64(b, 0x10000CE100415453ull);
	assert_memory_equal(b, "\x10\x00\x0c\xe1\x00\x41\x54\x53", 8);
	assert_true(wire_get64(b) == 0x10000CE100415453ull);
}

static void test_mad_hdr(void **state)
{
	uint8_t m[MAD_SIZE] = { 0 };
	struct mad_hdr h = {
		.base_version = 1, .mgmt_class = 0x03, .class_version = 2,
		.method = 0x81, .status = 0x0300, .class_specific = 0,
		.tid = 0x0102030405060708ull, .attr_id = 0x0031,
		.attr_mod = 0xdeadbeef,
	}, d;
	static const uint8_t want[24] = {
		1, 3, 2, 0x81, 0x03, 0x00, 0, 0,
		1, 2, 3, 4, 5, 6, 7, 8,
		0x00, 0x31, 0, 0, 0xde, 0xad, 0xbe, 0xef,
	};

	(void)state;
	mad_hdr_encode(m, &h);
	assert_memory_equal(m, want, sizeof(want));
	assert_int_equal(mad_hdr_decode(m, sizeof(m), &d), 0);
	assert_int_equal(d.method, h.method);
	assert_int_equal(d.status, h.status);
	assert_true(d.tid == h.tid);
	assert_int_equal(d.attr_id, h.attr_id);
	assert_int_equal(d.attr_mod, h.attr_mod);
	assert_int_equal(mad_hdr_decode(m, 23, &d), -EMSGSIZE);
}

static void test_mad_status_str(void **state)
{
	(void)state;
	assert_string_equal(mad_status_str(0x0000), "success");
	assert_string_equal(mad_status_str(0x0008), "method not supported");
	assert_string_equal(mad_status_str(0x001c),
			    "invalid attribute or attribute modifier value");
}

TEST_MAIN(
	cmocka_unit_test(test_put_get),
	cmocka_unit_test(test_mad_hdr),
	cmocka_unit_test(test_mad_status_str))
