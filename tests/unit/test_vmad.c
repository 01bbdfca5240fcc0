/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/vmad.h"
#include "core/wire.h"
#include "fixture.h"

/* Echo request of "EndPort Liveness and Responsiveness" laid out by hand: vendor range 2 MAD, class
 * 0x34 version 1, Get, TID 0x0102030405060708, OpenIB OUI, type 1,
 * identifier 0x1234, sequence 7, data "abc". */
static const uint8_t golden_echo[48 + 3] = {
	0x01, 0x34, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00,
	0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	/* 24: RMPP header, unused */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	/* 36: reserved, 37: OUI 0x001405 */
	0x00, 0x00, 0x14, 0x05,
	/* 40: type, reserved, identifier, sequence */
	0x01, 0x00, 0x00, 0x00, 0x12, 0x34, 0x00, 0x07,
	/* 48: echo data */
	'a', 'b', 'c',
};

static struct vmad_identity ident = {
	.lid = 0x0005, .port_guid = 0x0002c90300a1b2c3ull, .host = "node7.cluster",
	.liveness = 1, .ibping = 1,
};

static void make_echo(uint8_t *mad)
{
	assert_int_equal(vmad_liv_build(mad, MAD_SIZE, VMAD_LIV_ECHO_REQ, 0x1234, 7,
				   (const uint8_t *)"abc", 3, 0), MAD_SIZE);
	mad[8] = 1; mad[9] = 2; mad[10] = 3; mad[11] = 4;
	mad[12] = 5; mad[13] = 6; mad[14] = 7; mad[15] = 8;
}

static void test_build_golden(void **state)
{
	uint8_t mad[MAD_SIZE];
	size_t i;

	(void)state;
	make_echo(mad);
	assert_memory_equal(mad, golden_echo, sizeof(golden_echo));
	for (i = sizeof(golden_echo); i < MAD_SIZE; i++)
		assert_int_equal(mad[i], 0);
	assert_true(vmad_get_oui(mad) == VMAD_OUI_OPENIB);
}

static void test_echo(void **state)
{
	uint8_t req[MAD_SIZE], resp[MAD_SIZE];
	struct vmad_liv_reply r;

	(void)state;
	make_echo(req);
	assert_int_equal(vmad_answer(req, sizeof(req), &ident, 0, resp, sizeof(resp)), MAD_SIZE);
	assert_int_equal(resp[MAD_OFF_METHOD], 0x81);
	assert_memory_equal(resp + MAD_OFF_TID, req + MAD_OFF_TID, 8);
	assert_memory_equal(resp + VMAD_LIV_OFF_DATA, "abc", 3);
	assert_int_equal(vmad_liv_parse(resp, sizeof(resp), &r), 0);
	assert_int_equal(r.status, 0);
	assert_int_equal(r.type, VMAD_LIV_ECHO_RESP);
	assert_int_equal(r.id, 0x1234);
	assert_int_equal(r.seq, 7);
}

/* A request of this type (no data) sent at sent_ts, answered whole at
 * now_ts into resp; r what parses of the answer. */
static void ask(enum vmad_liv_type type, uint16_t seq, uint32_t sent_ts, uint32_t now_ts,
		uint8_t *resp, struct vmad_liv_reply *r)
{
	uint8_t req[MAD_SIZE];

	assert_int_equal(vmad_liv_build(req, sizeof(req), type, 1, seq, NULL, 0, sent_ts), MAD_SIZE);
	assert_int_equal(vmad_answer(req, sizeof(req), &ident, now_ts, resp, MAD_SIZE), MAD_SIZE);
	assert_int_equal(vmad_liv_parse(resp, MAD_SIZE, r), 0);
}

static void test_timestamp(void **state)
{
	uint8_t resp[MAD_SIZE];
	struct vmad_liv_reply r;

	(void)state;
	ask(VMAD_LIV_TS_REQ, 2, 1000, 2000, resp, &r);
	assert_int_equal(r.type, VMAD_LIV_TS_RESP);
	assert_int_equal(r.ts_orig, 1000);
	assert_int_equal(r.ts_recv, 2000);
	assert_int_equal(r.ts_xmit, 2000);
	assert_true(vmad_liv_timestamp() < 86400000u || (vmad_liv_timestamp() & VMAD_LIV_TS_NONSTANDARD));
}

static void test_info(void **state)
{
	uint8_t resp[MAD_SIZE];
	struct vmad_liv_reply r;

	(void)state;
	ask(VMAD_LIV_INFO_REQ, 3, 0, 0, resp, &r);
	/* Bytes 48-49 LID, 50-57 port GUID (liveness document). */
	assert_int_equal(resp[48], 0x00);
	assert_int_equal(resp[49], 0x05);
	assert_memory_equal(resp + 50, "\x00\x02\xc9\x03\x00\xa1\xb2\xc3", 8);
	assert_int_equal(r.type, VMAD_LIV_INFO_RESP);
	assert_int_equal(r.lid, 5);
	assert_true(r.port_guid == ident.port_guid);
}

static void test_errors_answered(void **state)
{
	uint8_t req[MAD_SIZE], resp[MAD_SIZE];
	struct vmad_liv_reply r;

	(void)state;
	make_echo(req);
	req[VMAD_LIV_OFF_TYPE] = 9;
	assert_int_equal(vmad_answer(req, sizeof(req), &ident, 0, resp, sizeof(resp)), MAD_SIZE);
	vmad_liv_parse(resp, sizeof(resp), &r);
	assert_int_equal(r.status, VMAD_STATUS_BAD_ATTR);
	req[VMAD_LIV_OFF_TYPE] = VMAD_LIV_ECHO_RESP; /* a response type as a request */
	vmad_answer(req, sizeof(req), &ident, 0, resp, sizeof(resp));
	vmad_liv_parse(resp, sizeof(resp), &r);
	assert_int_equal(r.status, VMAD_STATUS_BAD_ATTR);
	make_echo(req);
	req[MAD_OFF_CLASS_VERSION] = 2;
	vmad_answer(req, sizeof(req), &ident, 0, resp, sizeof(resp));
	vmad_liv_parse(resp, sizeof(resp), &r);
	assert_int_equal(r.status, VMAD_STATUS_BAD_VERSION);
	make_echo(req);
	req[MAD_OFF_METHOD] = MAD_METHOD_SET;
	vmad_answer(req, sizeof(req), &ident, 0, resp, sizeof(resp));
	vmad_liv_parse(resp, sizeof(resp), &r);
	assert_int_equal(r.status, VMAD_STATUS_BAD_METHOD);
	assert_int_equal(resp[MAD_OFF_METHOD], 0x81);
}

static void test_ibping(void **state)
{
	uint8_t req[MAD_SIZE] = { 0 }, resp[MAD_SIZE];

	(void)state;
	/* What infiniband-diags' ibping sends: class 0x32, Get, OpenIB OUI. */
	req[0] = 1;
	req[1] = VMAD_CLASS_IBPING;
	req[2] = 1;
	req[3] = MAD_METHOD_GET;
	vmad_put_oui(req, VMAD_OUI_OPENIB);
	assert_int_equal(vmad_answer(req, sizeof(req), &ident, 0, resp, sizeof(resp)), MAD_SIZE);
	assert_int_equal(resp[MAD_OFF_METHOD], 0x81);
	assert_string_equal((char *)resp + VMAD_OFF_DATA, "node7.cluster");
}

static void test_not_ours(void **state)
{
	uint8_t req[MAD_SIZE], resp[MAD_SIZE];
	struct vmad_identity off = ident;
	size_t len;

	(void)state;
	make_echo(req);
	req[MAD_OFF_METHOD] = 0x81; /* a response */
	assert_int_equal(vmad_answer(req, sizeof(req), &ident, 0, resp, sizeof(resp)), 0);
	make_echo(req);
	vmad_put_oui(req, 0x0002c9);
	assert_int_equal(vmad_answer(req, sizeof(req), &ident, 0, resp, sizeof(resp)), 0);
	make_echo(req);
	off.liveness = 0;
	assert_int_equal(vmad_answer(req, sizeof(req), &off, 0, resp, sizeof(resp)), 0);
	for (len = 0; len < MAD_SIZE; len++)
		assert_int_equal(vmad_answer(req, len, &ident, 0, resp, sizeof(resp)), 0);
	assert_int_equal(vmad_liv_build(req, sizeof(req), VMAD_LIV_ECHO_REQ, 0, 0, req,
				   VMAD_LIV_ECHO_MAX + 1, 0), -EMSGSIZE); /* no room */
	assert_int_equal(vmad_liv_build(req, sizeof(req), VMAD_LIV_ECHO_RESP, 0, 0, NULL, 0, 0), -EINVAL);
}

static void test_rmpp_echo(void **state)
{
	static uint8_t data[1000], req[VMAD_LIV_OFF_DATA + 1000], resp[VMAD_LIV_OFF_DATA + 1000];
	size_t i;
	int len;

	(void)state;
	for (i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7);
	len = vmad_liv_build(req, sizeof(req), VMAD_LIV_ECHO_REQ, 9, 1, data, sizeof(data), 0);
	assert_int_equal(len, VMAD_LIV_OFF_DATA + 1000);
	/* RMPP version 1, DATA, Active: for the kernel to segment. */
	assert_int_equal(req[MAD_RMPP_OFF_VERSION], 1);
	assert_int_equal(req[MAD_RMPP_OFF_TYPE], 1);
	assert_int_equal(req[MAD_RMPP_OFF_FLAGS] & MAD_RMPP_FLAG_ACTIVE, MAD_RMPP_FLAG_ACTIVE);
	assert_int_equal(vmad_answer(req, (size_t)len, &ident, 0, resp, sizeof(resp)),
			 (size_t)len);
	assert_int_equal(resp[MAD_OFF_METHOD], 0x81);
	assert_int_equal(resp[VMAD_LIV_OFF_TYPE], VMAD_LIV_ECHO_RESP);
	assert_memory_equal(resp + VMAD_LIV_OFF_DATA, data, sizeof(data));
	/* No room for the whole answer: drop, never truncate. */
	assert_int_equal(vmad_answer(req, (size_t)len, &ident, 0, resp, MAD_SIZE), 0);
}

/* atsctl ping's verdict on an answer: a corrupted echo (the bytes past
 * 224 that umad2sim lost) or a short one is told apart from any other
 * mismatch and never counted as received. */
static void test_echo_check(void **state)
{
	uint8_t data[VMAD_LIV_ECHO_MAX], req[MAD_SIZE], resp[MAD_SIZE];
	struct vmad_liv_reply r;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)i;
	assert_int_equal(vmad_liv_build(req, sizeof(req), VMAD_LIV_ECHO_REQ, 1, 4, data, sizeof(data), 0),
			 MAD_SIZE);
	assert_int_equal(vmad_answer(req, sizeof(req), &ident, 0, resp, sizeof(resp)), MAD_SIZE);
	assert_int_equal(vmad_liv_check(resp, sizeof(resp), VMAD_LIV_ECHO_REQ, 4, data, sizeof(data), &r), 0);
	resp[MAD_SIZE - 1] ^= 0xff;
	assert_int_equal(vmad_liv_check(resp, sizeof(resp), VMAD_LIV_ECHO_REQ, 4, data, sizeof(data), &r),
			 -EBADMSG);
	resp[MAD_SIZE - 1] ^= 0xff;
	assert_int_equal(vmad_liv_check(resp, MAD_SIZE - 32, VMAD_LIV_ECHO_REQ, 4, data, sizeof(data), &r),
			 -EBADMSG);
	assert_int_equal(vmad_liv_check(resp, sizeof(resp), VMAD_LIV_ECHO_REQ, 5, data, sizeof(data), &r),
			 -EPROTO);
	assert_int_equal(vmad_liv_check(resp, sizeof(resp), VMAD_LIV_TS_REQ, 4, NULL, 0, &r), -EPROTO);
	wire_put16(resp + MAD_OFF_STATUS, VMAD_STATUS_BAD_ATTR);
	assert_int_equal(vmad_liv_check(resp, sizeof(resp), VMAD_LIV_ECHO_REQ, 4, data, sizeof(data), &r),
			 -EPROTO);
	assert_int_equal(r.status, VMAD_STATUS_BAD_ATTR);
	/* Non-echo answers carry no data to compare. */
	assert_int_equal(vmad_liv_build(req, sizeof(req), VMAD_LIV_INFO_REQ, 1, 2, NULL, 0, 0), MAD_SIZE);
	vmad_answer(req, sizeof(req), &ident, 0, resp, sizeof(resp));
	assert_int_equal(vmad_liv_check(resp, sizeof(resp), VMAD_LIV_INFO_REQ, 2, NULL, 0, &r), 0);
}

static void test_random_input(void **state)
{
	uint8_t req[MAD_SIZE], resp[MAD_SIZE];
	struct vmad_liv_reply r;
	unsigned i, j;

	(void)state;
	srand(7);
	for (i = 0; i < 5000; i++) {
		for (j = 0; j < MAD_SIZE; j++)
			req[j] = (uint8_t)rand();
		if (i & 1) { /* steer half of them into our classes */
			req[0] = 1;
			req[1] = i & 2 ? VMAD_CLASS_LIVENESS : VMAD_CLASS_IBPING;
			vmad_put_oui(req, VMAD_OUI_OPENIB);
		}
		vmad_answer(req, sizeof(req), &ident, 0, resp, sizeof(resp));
		vmad_liv_parse(req, sizeof(req), &r);
	}
}

/* The vendor header by hand (Table 145, Table 168, Table 149): class
 * 0x36 version 2, Set, TID 0x1122334455667788, attribute 0xFF10,
 * modifier 0xA1B2C3D4, the OpenIB OUI; status, class specific and the
 * RMPP header zero, and the class data zero whatever the buffer held. */
static const uint8_t golden_hdr[VMAD_OFF_DATA] = {
	0x01, 0x36, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00,
	0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
	0xFF, 0x10, 0x00, 0x00, 0xA1, 0xB2, 0xC3, 0xD4,
	/* 24: RMPP header */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	/* 36: reserved, 37: OUI 0x001405 */
	0x00, 0x00, 0x14, 0x05,
};

static void hdr_encode(uint8_t *mad)
{
	vmad_hdr_encode(mad, 0x36, 2, MAD_METHOD_SET, 0x1122334455667788ull, 0xFF10, 0xA1B2C3D4);
}

static void test_hdr_golden(void **state)
{
	uint8_t mad[MAD_SIZE];
	size_t i;

	(void)state;
	memset(mad, 0xAA, sizeof(mad));
	hdr_encode(mad);
	assert_memory_equal(mad, golden_hdr, sizeof(golden_hdr));
	for (i = VMAD_OFF_DATA; i < MAD_SIZE; i++)
		assert_int_equal(mad[i], 0);
}

static void test_hdr_check(void **state)
{
	static const struct {
		size_t off;    /* the byte changed, or MAD_SIZE for none */
		uint8_t value;
		int want;
	} cases[] = {
		{ MAD_SIZE, 0, 0 },
		{ MAD_OFF_BASE_VERSION, 2, -EPROTO },
		{ MAD_OFF_MGMT_CLASS, 0x35, -EPROTO },
		{ MAD_OFF_CLASS_VERSION, 1, -EPROTO },
		{ MAD_OFF_METHOD, MAD_METHOD_GET, -EPROTO },
		{ VMAD_OFF_OUI + 2, 0x06, -EPROTO },
		{ MAD_OFF_STATUS, 0xFF, 0 },       /* the status is the caller's */
		{ MAD_RMPP_OFF_VERSION, 1, 0 },        /* and so is the RMPP header */
	};
	struct mad_hdr got;
	uint8_t mad[MAD_SIZE];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		hdr_encode(mad);
		if (cases[i].off < MAD_SIZE)
			mad[cases[i].off] = cases[i].value;
		assert_int_equal(vmad_hdr_check(mad, sizeof(mad), 0x36, 2, MAD_METHOD_SET, &got),
				 cases[i].want);
	}
	hdr_encode(mad);
	assert_int_equal(vmad_hdr_check(mad, MAD_SIZE - 1, 0x36, 2, MAD_METHOD_SET, &got),
			 -EMSGSIZE);
	assert_int_equal(vmad_hdr_check(mad, sizeof(mad), 0x36, 2, MAD_METHOD_SET, &got), 0);
	assert_true(got.tid == 0x1122334455667788ull);
	assert_int_equal(got.attr_id, 0xFF10);
	assert_int_equal(got.attr_mod, 0xA1B2C3D4);
}

/* The answer: GetResp (0x81), the status given, the RMPP header cleared,
 * every other byte the request's. */
static void test_respond_golden(void **state)
{
	uint8_t req[MAD_SIZE], resp[MAD_SIZE], want[MAD_SIZE];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(req); i++)
		req[i] = (uint8_t)(i * 7 + 1);
	memcpy(want, req, sizeof(want));
	want[3] = 0x81;
	want[4] = 0x00;
	want[5] = 0x1C;
	memset(want + 24, 0, 12);
	memset(resp, 0xAA, sizeof(resp));
	vmad_respond(resp, req, sizeof(req), VMAD_STATUS_BAD_ATTR);
	assert_memory_equal(resp, want, sizeof(want));
}

TEST_MAIN(
	cmocka_unit_test(test_hdr_golden),
	cmocka_unit_test(test_hdr_check),
	cmocka_unit_test(test_respond_golden),
	cmocka_unit_test(test_build_golden),
	cmocka_unit_test(test_echo),
	cmocka_unit_test(test_timestamp),
	cmocka_unit_test(test_info),
	cmocka_unit_test(test_errors_answered),
	cmocka_unit_test(test_ibping),
	cmocka_unit_test(test_not_ours),
	cmocka_unit_test(test_rmpp_echo),
	cmocka_unit_test(test_echo_check),
	cmocka_unit_test(test_random_input))
