/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Annex A11 (a11.h): the IP CM private data and service IDs, against
 * vectors laid out by hand from A11's Table 1. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "core/a11.h"
#include "fixture.h"

static void test_ip_pdata(void **state)
{
	static const uint8_t golden[A11_PDATA_LEN] = {
		0x00, 0x40, 0x13, 0x89,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10, 0, 0, 1,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10, 0, 0, 2,
	};
	struct a11_pdata p, q;
	uint8_t pd[A11_PDATA_LEN];

	(void)state;
	memset(&p, 0, sizeof(p));
	ats_ip_parse("10.0.0.1", &p.src);
	ats_ip_parse("10.0.0.2", &p.dst);
	p.src_port = 5001;
	a11_pdata_encode(pd, &p);
	assert_memory_equal(pd, golden, sizeof(golden));
	assert_int_equal(a11_pdata_decode(pd, sizeof(pd), &q), 0);
	assert_true(ats_ip_equal(&q.src, &p.src));
	assert_true(ats_ip_equal(&q.dst, &p.dst));
	assert_int_equal(q.src_port, 5001);
	ats_ip_parse("fd00::1", &p.src);
	ats_ip_parse("fd00::2", &p.dst);
	a11_pdata_encode(pd, &p);
	assert_int_equal(pd[1], 0x60);
	assert_int_equal(pd[4], 0xfd);
	assert_int_equal(a11_pdata_decode(pd, sizeof(pd), &q), 0);
	assert_int_equal(q.src.family, AF_INET6);
	pd[1] = 0x50;
	assert_int_equal(a11_pdata_decode(pd, sizeof(pd), &q), -EINVAL);
	assert_int_equal(a11_pdata_decode(pd, 35, &q), -EMSGSIZE);
	/* A hostile REQ's header with another major version is refused
	 * (atsd's listener decodes with this); a minor one is not. */
	pd[1] = 0x40;
	pd[0] = 0x10;
	assert_int_equal(a11_pdata_decode(pd, sizeof(pd), &q), -EPROTONOSUPPORT);
	pd[0] = 0x01;
	assert_int_equal(a11_pdata_decode(pd, sizeof(pd), &q), 0);
}

/* The AF_IB form: what cma.c's cma_hdr reads as version 0, IP version 0
 * (not an IP request), the identity still there behind the tag. */
static void test_ib_form(void **state)
{
	struct a11_pdata p = { 0 }, q;
	uint8_t pd[A11_IB_PDATA_LEN];

	(void)state;
	ats_ip_parse("10.0.0.1", &p.src);
	ats_ip_parse("10.0.0.9", &p.dst);
	p.src_port = 0xc001;
	a11_pdata_encode_ib(pd, &p);
	assert_int_equal(pd[0], 0);
	assert_int_equal(pd[1] >> 4, 0); /* cma_get_ip_ver: not 4 or 6 */
	assert_int_equal(pd[1], 4);
	assert_memory_equal(pd + 36, "IBAT", 4);
	assert_int_equal(a11_pdata_decode(pd, sizeof(pd), &q), 0);
	assert_int_equal(q.ib_form, 1);
	assert_true(ats_ip_equal(&q.src, &p.src) && ats_ip_equal(&q.dst, &p.dst));
	assert_int_equal(q.src_port, 0xc001);
	assert_int_equal(a11_pdata_decode(pd, 39, &q), -EMSGSIZE);
	pd[36] = 'X'; /* a stock AF_IB client's zeros or data: no identity */
	assert_int_equal(a11_pdata_decode(pd, sizeof(pd), &q), -EINVAL);
	a11_pdata_encode(pd, &p);
	assert_int_equal(a11_pdata_decode(pd, sizeof(pd), &q), 0);
	assert_int_equal(q.ib_form, 0);
}

static void test_service_id(void **state)
{
	uint16_t ps, port;

	(void)state;
	assert_true(a11_service_id(A11_PS_TCP, 5001) == 0x0000000001061389ull);
	assert_true(a11_service_parse(0x0000000001061389ull, &ps, &port));
	assert_int_equal(ps, A11_PS_TCP);
	assert_int_equal(port, 5001);
	assert_false(a11_service_parse(0x10000CE100415453ull, &ps, &port));
	assert_false(a11_service_parse(0x0000000001FF0001ull, &ps, &port));
}

TEST_MAIN(
	cmocka_unit_test(test_ip_pdata),
	cmocka_unit_test(test_ib_form),
	cmocka_unit_test(test_service_id))
