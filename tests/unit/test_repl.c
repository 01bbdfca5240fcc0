/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The replication MADs (lib/core/repl.h): golden bytes of a pull and of
 * answers laid out by hand from the offsets (a window's NOACK pull and
 * the caps of a master that serves it too), round trips of every kind,
 * short and foreign MADs. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "core/mad.h"
#include "core/repl.h"
#include "core/wire.h"
#include "fixture.h"

#define TID 0x0102030405060708ull
#define TID_BYTES 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08

/* A Get of snapshot record 0x0a0b0c0d. Vendor range 2 layout, IBTA Vol 1
 * 13.4.2 Table 149: RMPP header 24..35 (unused: zero), reserved 36, OUI
 * 37..39, class data from 40. */
static const uint8_t pull_golden[MAD_SIZE] = {
	[0] = 0x01, 0x35, 0x02, 0x01,                     /* v1, class 0x35 v2, Get */
	[4] = 0x00, 0x00, 0x00, 0x00,                     /* status, class specific */
	[8] = TID_BYTES,
	[16] = 0xff, 0x10, 0x00, 0x00,                    /* attribute 0xFF10, reserved */
	[20] = 0x00, 0x00, 0x00, 0x01,                    /* modifier: REPL_FLAG_SNAPSHOT */
	[37] = 0x00, 0x14, 0x05,                          /* OpenIB OUI */
	[40] = 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, /* epoch */
	[48] = 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x2a, /* next */
	[60] = 0x0a, 0x0b, 0x0c, 0x0d,                    /* pos */
	/* 64..79: the tag, zero until signed (plugin/replauth.c). */
};

static const struct repl_pull pull_sample = {
	.epoch = 0x1122334455667788ull, .next = 0x10000002aull,
	.pos = 0x0a0b0c0d, .flags = REPL_FLAG_SNAPSHOT,
};

/* The end of a snapshot: no record, the master's head at 80 and ack
 * timeout at 88. */
static const uint8_t end_golden[MAD_SIZE] = {
	[0] = 0x01, 0x35, 0x02, 0x81,                     /* GetResp */
	[8] = TID_BYTES,
	[16] = 0xff, 0x10, 0x00, 0x00,
	[20] = 0x00, 0x00, 0x00, 0x04,                    /* modifier: REPL_SNAP_END */
	[37] = 0x00, 0x14, 0x05,
	[40] = 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, /* epoch */
	[48] = 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xe7, /* seq 999 */
	[56] = 0xff, 0xff, 0xff, 0xff,                    /* lease: infinite */
	[60] = 0x00, 0x01, 0x86, 0xa0,                    /* pos: 100000 records */
	[80] = 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xe8, /* head 1000 */
	[88] = 0x00, 0x00, 0x0b, 0xb8,                    /* ack_ms 3000 */
};

/* A stream pull after the first of a window: NOACK, next 43. */
static const uint8_t noack_golden[MAD_SIZE] = {
	[0] = 0x01, 0x35, 0x02, 0x01,                     /* Get */
	[8] = TID_BYTES,
	[16] = 0xff, 0x10, 0x00, 0x00,
	[20] = 0x00, 0x00, 0x00, 0x08,                    /* modifier: REPL_FLAG_NOACK */
	[37] = 0x00, 0x14, 0x05,
	[40] = 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, /* epoch */
	[48] = 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2b, /* next 43 */
};

/* "Nothing yet" from a master that serves windows: caps at 92. */
static const uint8_t none_caps_golden[MAD_SIZE] = {
	[0] = 0x01, 0x35, 0x02, 0x81,                     /* GetResp */
	[8] = TID_BYTES,
	[16] = 0xff, 0x10, 0x00, 0x00,
	[20] = 0x00, 0x00, 0x00, 0x00,                    /* modifier: REPL_NONE */
	[37] = 0x00, 0x14, 0x05,
	[40] = 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, /* epoch */
	[48] = 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2a, /* seq 42: next - 1 */
	[80] = 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2a, /* head 42 */
	[88] = 0x00, 0x00, 0x0f, 0xa0,                    /* ack_ms 4000 */
	[92] = 0x00, 0x00, 0x00, 0x01,                    /* caps: REPL_CAP_WINDOW */
};

/* One change: the header and data to 80 as laid out here, the record's
 * 176 bytes (rec_pattern) from 80. */
static const uint8_t set_golden_head[80] = {
	[0] = 0x01, 0x35, 0x02, 0x81,
	[8] = TID_BYTES,
	[16] = 0xff, 0x10, 0x00, 0x00,
	[20] = 0x00, 0x00, 0x00, 0x01,                    /* modifier: REPL_SET */
	[37] = 0x00, 0x14, 0x05,
	[40] = 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, /* epoch */
	[48] = 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, /* seq */
	[56] = 0x00, 0x00, 0x00, 0x3c,                    /* lease 60 s */
	[60] = 0x00, 0x00, 0x00, 0x02,                    /* pos: in sync */
};

/* Every byte of the record differs, reserved ones and 0x00/0xff too. */
static void rec_pattern(uint8_t *rec)
{
	size_t i;

	for (i = 0; i < SR_SIZE; i++)
		rec[i] = (uint8_t)(0xff - i * 3);
}

static void test_pull_golden(void **state)
{
	uint8_t mad[MAD_SIZE];
	struct repl_pull q;

	(void)state;
	memset(mad, 0xee, sizeof(mad)); /* the encoder writes every byte */
	repl_pull_encode(mad, TID, &pull_sample);
	assert_memory_equal(mad, pull_golden, MAD_SIZE);
	assert_int_equal(repl_pull_decode(pull_golden, MAD_SIZE, &q), 0);
	assert_true(q.epoch == pull_sample.epoch && q.next == pull_sample.next);
	assert_int_equal(q.pos, pull_sample.pos);
	assert_int_equal(q.flags, pull_sample.flags);
}

static void test_answer_golden(void **state)
{
	struct repl_answer a = {
		.epoch = 0x1122334455667788ull, .head = 1000, .seq = 999,
		.kind = REPL_SNAP_END,
		.lease_left = UINT32_MAX, .pos = 100000, .ack_ms = 3000,
	}, b;
	uint8_t mad[MAD_SIZE], rec[SR_SIZE];

	(void)state;
	memset(a.rec, 0x5c, sizeof(a.rec)); /* not sent without a record */
	memset(mad, 0xee, sizeof(mad));
	repl_answer_encode(mad, TID, &a);
	assert_memory_equal(mad, end_golden, MAD_SIZE);
	assert_int_equal(repl_answer_decode(end_golden, MAD_SIZE, &b), 0);
	assert_int_equal(b.kind, REPL_SNAP_END);
	assert_true(b.epoch == a.epoch && b.head == 1000 && b.seq == 999);
	assert_true(b.lease_left == UINT32_MAX && b.pos == 100000 && b.ack_ms == 3000);

	/* Neither head nor ack_ms goes with a record. */
	a = (struct repl_answer){ .epoch = 0x8000000000000001ull, .head = 7, .seq = 5,
				  .kind = REPL_SET, .lease_left = 60, .pos = 2,
				  .ack_ms = 3000 };
	rec_pattern(a.rec);
	rec_pattern(rec);
	memset(mad, 0xee, sizeof(mad));
	repl_answer_encode(mad, TID, &a);
	assert_memory_equal(mad, set_golden_head, sizeof(set_golden_head));
	assert_memory_equal(mad + 80, rec, SR_SIZE);
	assert_int_equal(repl_answer_decode(mad, MAD_SIZE, &b), 0);
	assert_int_equal(b.kind, REPL_SET);
	assert_int_equal(b.ack_ms, 0);
	assert_true(b.head == 0 && b.seq == 5 && b.lease_left == 60 && b.pos == 2);
	assert_memory_equal(b.rec, rec, SR_SIZE);
}

static void test_window_golden(void **state)
{
	struct repl_pull p = { .epoch = 0x1122334455667788ull, .next = 43,
			       .flags = REPL_FLAG_NOACK }, q;
	struct repl_answer a = { .epoch = 0x1122334455667788ull, .kind = REPL_NONE, .seq = 42,
				 .head = 42, .ack_ms = 4000, .caps = REPL_CAP_WINDOW }, b;
	uint8_t mad[MAD_SIZE];

	(void)state;
	memset(mad, 0xee, sizeof(mad));
	repl_pull_encode(mad, TID, &p);
	assert_memory_equal(mad, noack_golden, MAD_SIZE);
	assert_int_equal(repl_pull_decode(noack_golden, MAD_SIZE, &q), 0);
	assert_true(q.epoch == p.epoch && q.next == 43 && q.flags == REPL_FLAG_NOACK);

	memset(mad, 0xee, sizeof(mad));
	repl_answer_encode(mad, TID, &a);
	assert_memory_equal(mad, none_caps_golden, MAD_SIZE);
	assert_int_equal(repl_answer_decode(none_caps_golden, MAD_SIZE, &b), 0);
	assert_true(b.kind == REPL_NONE && b.seq == 42 && b.head == 42 && b.ack_ms == 4000);
	assert_int_equal(b.caps, REPL_CAP_WINDOW);
	/* An earlier master's answer: caps 0 (end_golden has none). */
	assert_int_equal(repl_answer_decode(end_golden, MAD_SIZE, &b), 0);
	assert_int_equal(b.caps, 0);
	/* Caps a later master may add are kept, not refused: an earlier
	 * standby never read the field. */
	memcpy(mad, none_caps_golden, MAD_SIZE);
	wire_put32(mad + REPL_OFF_CAPS, 0xffffffffu);
	assert_int_equal(repl_answer_decode(mad, MAD_SIZE, &b), 0);
	assert_int_equal(b.caps, 0xffffffffu);
	/* No caps with a record: the record fills the MAD. */
	a.kind = REPL_SET;
	rec_pattern(a.rec);
	repl_answer_encode(mad, TID, &a);
	assert_int_equal(repl_answer_decode(mad, MAD_SIZE, &b), 0);
	assert_int_equal(b.caps, 0);
}

static void test_kind_has_record(void **state)
{
	(void)state;
	assert_false(repl_kind_has_record(REPL_NONE));
	assert_true(repl_kind_has_record(REPL_SET));
	assert_true(repl_kind_has_record(REPL_DELETE));
	assert_true(repl_kind_has_record(REPL_SNAP_RECORD));
	assert_false(repl_kind_has_record(REPL_SNAP_END));
	assert_false(repl_kind_has_record(REPL_SNAP_NEEDED));
	assert_false(repl_kind_has_record(REPL_KINDS));
}

static void test_pull_round_trip(void **state)
{
	static const uint8_t flags[] = { 0, REPL_FLAG_SNAPSHOT, REPL_FLAG_LEAVING,
					 REPL_FLAG_SNAPSHOT | REPL_FLAG_LEAVING,
					 REPL_FLAG_SNAPSHOT | REPL_FLAG_FINAL, REPL_FLAG_NOACK };
	struct repl_pull p = { .epoch = UINT64_MAX, .next = 0, .pos = UINT32_MAX }, q;
	static const uint8_t zero_tag[REPL_TAG_SIZE];
	uint8_t mad[MAD_SIZE];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(flags); i++) {
		p.flags = flags[i];
		p.next = i << 60;
		repl_pull_encode(mad, i, &p);
		assert_int_equal(repl_pull_decode(mad, sizeof(mad), &q), 0);
		assert_true(q.epoch == p.epoch && q.next == p.next);
		/* The tag is the signer's: left zero. */
		assert_memory_equal(mad + REPL_OFF_TAG, zero_tag, REPL_TAG_SIZE);
		assert_int_equal(q.pos, p.pos);
		assert_int_equal(q.flags, p.flags);
	}
}

static void test_answer_round_trip(void **state)
{
	struct repl_answer a = { .epoch = UINT64_MAX, .head = 900, .seq = 1ull << 63,
				 .lease_left = 30,
				 .pos = 0x80000000u, .ack_ms = 600000, .caps = 0x80000001u }, b;
	uint8_t mad[MAD_SIZE], zero[SR_SIZE] = { 0 };
	int k;

	(void)state;
	rec_pattern(a.rec);
	for (k = 0; k < REPL_KINDS; k++) {
		a.kind = (enum repl_kind)k;
		repl_answer_encode(mad, 99, &a);
		assert_int_equal(mad[MAD_OFF_METHOD], 0x81);
		assert_int_equal(repl_answer_decode(mad, sizeof(mad), &b), 0);
		assert_int_equal(b.kind, k);
		assert_true(b.epoch == a.epoch && b.seq == a.seq);
		assert_int_equal(b.lease_left, a.lease_left);
		assert_int_equal(b.pos, a.pos);
		assert_memory_equal(mad + REPL_OFF_TAG, zero, REPL_TAG_SIZE);
		if (repl_kind_has_record(a.kind)) {
			assert_memory_equal(b.rec, a.rec, SR_SIZE);
			assert_true(b.head == 0 && b.ack_ms == 0 && b.caps == 0);
		} else {
			assert_true(b.head == a.head && b.ack_ms == a.ack_ms && b.caps == a.caps);
			assert_memory_equal(b.rec, zero, SR_SIZE);
			/* Nothing of the record leaks after caps. */
			assert_memory_equal(mad + REPL_OFF_CAPS + 4, zero,
					    MAD_SIZE - REPL_OFF_CAPS - 4);
		}
	}
}

/* A refused MAD leaves nothing of itself in the output. */
static void assert_pull_refused(const uint8_t *mad, size_t len, int err)
{
	struct repl_pull q, zero;

	memset(&q, 0xee, sizeof(q));
	memset(&zero, 0, sizeof(zero));
	assert_int_equal(repl_pull_decode(mad, len, &q), err);
	assert_memory_equal(&q, &zero, sizeof(q));
}

static void assert_answer_refused(const uint8_t *mad, size_t len, int err)
{
	struct repl_answer b, zero;

	memset(&b, 0xee, sizeof(b));
	memset(&zero, 0, sizeof(zero));
	assert_int_equal(repl_answer_decode(mad, len, &b), err);
	assert_memory_equal(&b, &zero, sizeof(b));
}

static void test_short(void **state)
{
	size_t len;

	(void)state;
	for (len = 0; len < MAD_SIZE; len++) {
		assert_pull_refused(pull_golden, len, -EMSGSIZE);
		assert_answer_refused(end_golden, len, -EMSGSIZE);
	}
}

/* One byte of a good MAD changed: refused by both decoders. */
static void assert_foreign(size_t off, uint8_t v)
{
	uint8_t mad[MAD_SIZE];

	memcpy(mad, pull_golden, MAD_SIZE);
	mad[off] = v;
	assert_pull_refused(mad, MAD_SIZE, -EPROTO);
	memcpy(mad, end_golden, MAD_SIZE);
	mad[off] = v;
	assert_answer_refused(mad, MAD_SIZE, -EPROTO);
}

static void test_foreign(void **state)
{
	uint8_t mad[MAD_SIZE];

	(void)state;
	assert_foreign(MAD_OFF_BASE_VERSION, 2);
	assert_foreign(MAD_OFF_MGMT_CLASS, 0x34);  /* liveness */
	assert_foreign(MAD_OFF_MGMT_CLASS, 0x36);
	assert_foreign(MAD_OFF_CLASS_VERSION, 0);
	assert_foreign(MAD_OFF_CLASS_VERSION, 1);  /* v1: the SM_Key layout */
	assert_foreign(MAD_OFF_CLASS_VERSION, 3);
	assert_foreign(MAD_OFF_ATTR_ID, 0x00);     /* 0x0010 */
	assert_foreign(MAD_OFF_ATTR_ID + 1, 0x11); /* 0xFF11 */
	assert_foreign(37, 0x01);                  /* OUI 0x011405 */
	assert_foreign(38, 0x15);
	assert_foreign(39, 0x06);
	/* Methods: a pull is a Get, an answer a GetResp, nothing else. */
	assert_answer_refused(pull_golden, MAD_SIZE, -EPROTO);
	assert_pull_refused(end_golden, MAD_SIZE, -EPROTO);
	memcpy(mad, pull_golden, MAD_SIZE);
	mad[MAD_OFF_METHOD] = MAD_METHOD_SET;
	assert_pull_refused(mad, MAD_SIZE, -EPROTO);
	memcpy(mad, end_golden, MAD_SIZE);
	mad[MAD_OFF_METHOD] = MAD_METHOD_SET | MAD_METHOD_RESP_BIT;
	assert_answer_refused(mad, MAD_SIZE, -EPROTO);
}

static void test_bad_modifier(void **state)
{
	static const uint32_t kinds[] = { REPL_KINDS, 0x100, 0x80000001u, UINT32_MAX };
	uint8_t mad[MAD_SIZE];
	unsigned bit;
	size_t i;

	(void)state;
	/* Flags beyond SNAPSHOT, LEAVING, FINAL and NOACK are no pull of
	 * this version. */
	memcpy(mad, pull_golden, MAD_SIZE);
	for (bit = 4; bit < 32; bit++) {
		wire_put32(mad + REPL_OFF_MOD, REPL_FLAG_SNAPSHOT | 1u << bit);
		assert_pull_refused(mad, MAD_SIZE, -EPROTO);
	}
	/* NOACK is a stream pull's alone: with any other flag, refused. */
	for (bit = 0; bit < 3; bit++) {
		wire_put32(mad + REPL_OFF_MOD, REPL_FLAG_NOACK | 1u << bit);
		assert_pull_refused(mad, MAD_SIZE, -EPROTO);
	}
	memcpy(mad, end_golden, MAD_SIZE);
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		wire_put32(mad + REPL_OFF_MOD, kinds[i]);
		assert_answer_refused(mad, MAD_SIZE, -EPROTO);
	}
}

/* A MAD status (e.g. the port's "unsupported class", Vol 1 13.4.7
 * Table 146) in a GetResp is no answer, whatever the bit. */
static void test_answer_status(void **state)
{
	uint8_t mad[MAD_SIZE];
	unsigned bit;

	(void)state;
	for (bit = 0; bit < 16; bit++) {
		memcpy(mad, end_golden, MAD_SIZE);
		wire_put16(mad + MAD_OFF_STATUS, (uint16_t)(1u << bit));
		assert_answer_refused(mad, MAD_SIZE, -EPROTO);
	}
}

TEST_MAIN(
	cmocka_unit_test(test_pull_golden),
	cmocka_unit_test(test_answer_golden),
	cmocka_unit_test(test_window_golden),
	cmocka_unit_test(test_kind_has_record),
	cmocka_unit_test(test_pull_round_trip),
	cmocka_unit_test(test_answer_round_trip),
	cmocka_unit_test(test_short),
	cmocka_unit_test(test_foreign),
	cmocka_unit_test(test_bad_modifier),
	cmocka_unit_test(test_answer_status))
