/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* RMPP (simhost/kernel/rmpp.h), the wire and the receiver: golden bytes of a
 * DATA FIRST segment, an ACK and an ABORT laid out by hand from IBTA Vol
 * 1 13.6.2; a sender and a receiver joined by a lossy link on a fake
 * clock (windows, loss of segments and ACKs, duplicates, reordering);
 * corrupt segments, STOP, the receiver's timeout. The sender's own
 * checks and the table: test_rmpp_tx.c. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rmpp_msg.h"

/* The SA header part both golden MADs share, 0..55. */
#define SA_HEAD(method, type, flags, status, seg0, seg1, seg2, seg3, pl0, pl1, pl2, pl3) \
	[0] = 0x01, 0x03, 0x02, method,              /* v1, SA v2 */                  \
	[8] = TID_BYTES,                                                              \
	[16] = 0x00, 0x31, 0x00, 0x00,               /* ServiceRecord */              \
	[24] = 0x01, type, flags, status,            /* RMPP v1 */                    \
	[28] = seg0, seg1, seg2, seg3, pl0, pl1, pl2, pl3,                            \
	[36] = 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, /* SM_Key */          \
	[44] = 0x00, 0x16,                           /* AttributeOffset 22 */         \
	[48] = 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0b, 0x0c /* ComponentMask */

/* Two records (352 bytes of data, 2 segments of 200, pad 48): the first
 * segment is FIRST, PayloadLength 2 * 220 - 48 = 392 = 352 + 2 * 20
 * (13.6.2: the SA header counts in each segment's payload). */
static const uint8_t first_golden[SA_OFF_DATA] = {
	SA_HEAD(0x92, 0x01, 0x03, 0x00, 0, 0, 0, 1, 0x00, 0x00, 0x01, 0x88),
};

/* The receiver's ACK of it with a window of 4: the method's R bit
 * flipped (GetTable), RRespTime 0x1F, segment 1, NewWindowLast 5. */
static const uint8_t ack_golden[MAD_SIZE] = {
	SA_HEAD(0x12, 0x02, 0xf9, 0x00, 0, 0, 0, 1, 0, 0, 0, 5),
};

/* ABORT of a segment of RMPP version 2: status 125 (unsupported
 * version), SegmentNumber and PayloadLength 0. */
static const uint8_t abort_golden[MAD_SIZE] = {
	SA_HEAD(0x12, 0x04, 0xf9, 125, 0, 0, 0, 0, 0, 0, 0, 0),
};

static void test_hdr_len(void **state)
{
	(void)state;
	assert_int_equal(rmpp_hdr_len(SA_CLASS), 56);
	assert_int_equal(rmpp_hdr_len(0x30), 40);
	assert_int_equal(rmpp_hdr_len(0x4f), 40);
	assert_int_equal(rmpp_hdr_len(0x01), 0);
	assert_int_equal(rmpp_hdr_len(0x2f), 0);
	assert_int_equal(rmpp_hdr_len(0x50), 0);
}

static void test_golden(void **state)
{
	struct rmpp_cfg cfg;
	struct rmpp_tx tx;
	struct rmpp_rx rx;
	uint8_t seg[MAD_SIZE], seg2[MAD_SIZE], out[MAD_SIZE];
	size_t len;
	uint8_t *m = sa_table(2, &len);

	(void)state;
	cfg_of(&cfg, 4);
	assert_int_equal(rmpp_tx_init(&tx, m, len, SA_OFF_DATA, &cfg, 0), 0);
	assert_int_equal(rmpp_tx_next(&tx, 0, seg), MAD_SIZE);
	assert_memory_equal(seg, first_golden, SA_OFF_DATA);
	assert_memory_equal(seg + SA_OFF_DATA, m + SA_OFF_DATA, SA_DATA_SIZE);
	/* Window 1 until an ACK. */
	assert_int_equal(rmpp_tx_next(&tx, 0, out), 0);

	rmpp_rx_init(&rx, &cfg, 0);
	assert_int_equal(rmpp_rx_recv(&rx, seg, MAD_SIZE, 0), 0);
	assert_int_equal(rmpp_rx_next(&rx, 0, out), MAD_SIZE);
	assert_memory_equal(out, ack_golden, MAD_SIZE);
	assert_int_equal(rmpp_rx_next(&rx, 0, out), 0);

	/* The LAST segment: 2, PayloadLength 220 - 48, zero pad. */
	assert_int_equal(rmpp_tx_recv(&tx, ack_golden, MAD_SIZE, 1), 0);
	assert_int_equal(rmpp_tx_next(&tx, 1, seg2), MAD_SIZE);
	assert_int_equal(seg2[MAD_RMPP_OFF_FLAGS], MAD_RMPP_FLAG_ACTIVE | MAD_RMPP_FLAG_LAST);
	assert_int_equal(wire_get32(seg2 + MAD_RMPP_OFF_DATA1), 2);
	assert_int_equal(wire_get32(seg2 + MAD_RMPP_OFF_DATA2), 172);
	assert_memory_equal(seg2 + SA_OFF_DATA, m + SA_OFF_DATA + SA_DATA_SIZE, 152);
	for (size_t i = SA_OFF_DATA + 152; i < MAD_SIZE; i++)
		assert_int_equal(seg2[i], 0);
	rmpp_tx_fini(&tx);
	rmpp_rx_fini(&rx);

	/* A version 2 segment is answered with the ABORT. */
	memcpy(seg2, seg, MAD_SIZE);
	seg2[MAD_RMPP_OFF_VERSION] = 2;
	rmpp_rx_init(&rx, &cfg, 0);
	assert_int_equal(rmpp_rx_recv(&rx, seg2, MAD_SIZE, 0), -EPROTO);
	assert_int_equal(rmpp_rx_next(&rx, 0, out), MAD_SIZE);
	assert_memory_equal(out, abort_golden, MAD_SIZE);
	assert_int_equal(rmpp_rx_state(&rx), RMPP_FAILED);
	rmpp_rx_fini(&rx);
	free(m);
}

/* The link: what each side sends reaches the other unless the filter
 * drops it; a fake clock jumps to the next deadline when all is quiet. */
struct link {
	unsigned drop_data_every, drop_ack_every, dup_every;
	int swap; /* deliver each burst's segments pairwise swapped */
	unsigned data_sent, acks_sent;
};

static int lost(unsigned n, unsigned every)
{
	return every && n % every == 0;
}

/* Runs tx and rx to the end; returns the clock. */
static int64_t run(struct rmpp_tx *tx, struct rmpp_rx *rx, struct link *l)
{
	uint8_t burst[80][MAD_SIZE], out[MAD_SIZE];
	int64_t now = 0, d;
	size_t n, i, j;
	int rounds = 0;

	while (rmpp_tx_state(tx) == RMPP_ACTIVE || rmpp_rx_state(rx) == RMPP_ACTIVE) {
		assert_true(++rounds < 100000);
		for (n = 0; n < 80 && rmpp_tx_next(tx, now, burst[n]); n++)
			;
		for (i = 0; i < n; i++) {
			j = l->swap && (i ^ 1) < n ? i ^ 1 : i;
			if (lost(++l->data_sent, l->drop_data_every))
				continue;
			rmpp_rx_recv(rx, burst[j], MAD_SIZE, now);
			if (lost(l->data_sent, l->dup_every))
				rmpp_rx_recv(rx, burst[j], MAD_SIZE, now);
			while (rmpp_rx_next(rx, now, out))
				if (!lost(++l->acks_sent, l->drop_ack_every))
					rmpp_tx_recv(tx, out, MAD_SIZE, now);
		}
		if (n)
			continue;
		/* Quiet: the clock moves to the next deadline. */
		d = rmpp_tx_deadline(tx);
		if (rmpp_rx_state(rx) == RMPP_ACTIVE && rmpp_rx_deadline(rx) < d)
			d = rmpp_rx_deadline(rx);
		if (rmpp_tx_state(tx) != RMPP_ACTIVE && rmpp_rx_state(rx) == RMPP_ACTIVE)
			d = rmpp_rx_deadline(rx);
		assert_true(d < INT64_MAX);
		now = d > now ? d : now + 1;
		while (rmpp_rx_next(rx, now, out))
			rmpp_tx_recv(tx, out, MAD_SIZE, now);
	}
	return now;
}

/* 600 ServiceRecords, 105656 bytes, 528 segments, byte for byte. */
static void round_trip(uint32_t window, struct link *l)
{
	struct rmpp_cfg cfg;
	struct rmpp_tx tx;
	struct rmpp_rx rx;
	const uint8_t *got;
	size_t len, got_len;
	uint8_t *m = sa_table(600, &len);

	cfg_of(&cfg, window);
	assert_int_equal(len, 56 + 600 * 176);
	assert_int_equal(rmpp_tx_init(&tx, m, len, SA_OFF_DATA, &cfg, 0), 0);
	assert_int_equal(tx.nseg, (600 * 176 + 199) / 200);
	rmpp_rx_init(&rx, &cfg, 0);
	run(&tx, &rx, l);
	assert_int_equal(rx.status, 0);
	assert_int_equal(tx.status, 0);
	assert_int_equal(rmpp_tx_state(&tx), RMPP_DONE);
	assert_int_equal(rmpp_rx_state(&rx), RMPP_DONE);
	got = rmpp_rx_message(&rx, &got_len);
	assert_non_null(got);
	assert_int_equal(got_len, len);
	/* The header is the first segment's: FIRST, segment 1, the total. */
	assert_memory_equal(got, m, MAD_RMPP_OFF_FLAGS);
	assert_int_equal(got[MAD_RMPP_OFF_FLAGS], MAD_RMPP_FLAG_ACTIVE | MAD_RMPP_FLAG_FIRST);
	assert_int_equal(wire_get32(got + MAD_RMPP_OFF_DATA2), 600 * 176 + tx.nseg * 20);
	assert_memory_equal(got + MAD_RMPP_HDR_END, m + MAD_RMPP_HDR_END, len - MAD_RMPP_HDR_END);
	rmpp_tx_fini(&tx);
	rmpp_rx_fini(&rx);
	free(m);
}

static void test_round_trip(void **state)
{
	static const uint32_t windows[] = { 1, 4, 64 };
	struct link l;
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++) {
		memset(&l, 0, sizeof(l));
		round_trip(windows[i], &l);
		/* No loss: every segment once. */
		assert_int_equal(l.data_sent, 528);
	}
}

static void test_loss(void **state)
{
	static const uint32_t windows[] = { 1, 4, 64 };
	struct link l;
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++) {
		memset(&l, 0, sizeof(l));
		l.drop_data_every = 7;
		round_trip(windows[i], &l);
		memset(&l, 0, sizeof(l));
		l.drop_ack_every = 3;
		round_trip(windows[i], &l);
		memset(&l, 0, sizeof(l));
		l.drop_data_every = 7;
		l.drop_ack_every = 3;
		round_trip(windows[i], &l);
	}
}

static void test_dup_reorder(void **state)
{
	static const uint32_t windows[] = { 1, 4, 64 };
	struct link l;
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++) {
		memset(&l, 0, sizeof(l));
		l.dup_every = 5;
		round_trip(windows[i], &l);
		assert_int_equal(l.data_sent, 528);
		/* Held out of order: nothing is sent twice. */
		memset(&l, 0, sizeof(l));
		l.swap = 1;
		round_trip(windows[i], &l);
		assert_int_equal(l.data_sent, 528);
	}
}

/* One segment (FIRST and LAST) and none of data at all. */
static void test_small(void **state)
{
	struct rmpp_cfg cfg;
	struct rmpp_tx tx;
	struct rmpp_rx rx;
	struct link l;
	const uint8_t *got;
	size_t len, got_len, sizes[] = { 0, 1 }, i;
	uint8_t *m;

	(void)state;
	cfg_of(&cfg, 64);
	for (i = 0; i < 2; i++) {
		m = sa_table(sizes[i], &len);
		assert_int_equal(rmpp_tx_init(&tx, m, len, SA_OFF_DATA, &cfg, 0), 0);
		assert_int_equal(tx.nseg, 1);
		rmpp_rx_init(&rx, &cfg, 0);
		memset(&l, 0, sizeof(l));
		run(&tx, &rx, &l);
		assert_int_equal(l.data_sent, 1);
		assert_int_equal(rmpp_tx_state(&tx), RMPP_DONE);
		got = rmpp_rx_message(&rx, &got_len);
		assert_non_null(got);
		assert_int_equal(got_len, len);
		assert_memory_equal(got + MAD_RMPP_HDR_END, m + MAD_RMPP_HDR_END, len - MAD_RMPP_HDR_END);
		rmpp_tx_fini(&tx);
		rmpp_rx_fini(&rx);
		free(m);
	}
}

/* Vendor range 2: 40 bytes of header (OUI at 37) repeated, 216 data. */
static void test_vendor(void **state)
{
	struct rmpp_cfg cfg;
	struct rmpp_tx tx;
	struct rmpp_rx rx;
	struct link l;
	uint8_t m[40 + 1000], seg[MAD_SIZE];
	const uint8_t *got;
	size_t got_len, i;

	(void)state;
	cfg_of(&cfg, 2);
	memset(m, 0, sizeof(m));
	m[MAD_OFF_BASE_VERSION] = 1;
	m[MAD_OFF_MGMT_CLASS] = 0x35;
	m[MAD_OFF_CLASS_VERSION] = 1;
	m[MAD_OFF_METHOD] = MAD_METHOD_GET | MAD_METHOD_RESP_BIT;
	m[37] = 0x00, m[38] = 0x14, m[39] = 0x05;
	for (i = 40; i < sizeof(m); i++)
		m[i] = (uint8_t)(i * 13);
	assert_int_equal(rmpp_tx_init(&tx, m, sizeof(m), rmpp_hdr_len(0x35), &cfg, 0), 0);
	assert_int_equal(tx.nseg, 5); /* 1000 / 216 */
	assert_int_equal(rmpp_tx_next(&tx, 0, seg), MAD_SIZE);
	/* PayloadLength: 1000 of data plus 4 of class header a segment. */
	assert_int_equal(wire_get32(seg + MAD_RMPP_OFF_DATA2), 1000 + 5 * 4);
	assert_memory_equal(seg + 37, m + 37, 3);
	/* That segment is lost: the sender resends it at its deadline. */
	rmpp_rx_init(&rx, &cfg, 0);
	memset(&l, 0, sizeof(l));
	l.drop_data_every = 4;
	run(&tx, &rx, &l);
	got = rmpp_rx_message(&rx, &got_len);
	assert_non_null(got);
	assert_int_equal(got_len, sizeof(m));
	assert_memory_equal(got + MAD_RMPP_HDR_END, m + MAD_RMPP_HDR_END, sizeof(m) - MAD_RMPP_HDR_END);
	rmpp_tx_fini(&tx);
	rmpp_rx_fini(&rx);
}

/* Feeds segments 1..upto-1 sound and then bad; expects an ABORT with
 * status, and the sender that gets it fails without answering. */
static void expect_abort(uint8_t segs[][MAD_SIZE], uint32_t upto, const uint8_t *bad,
			 uint8_t status)
{
	struct rmpp_cfg cfg;
	struct rmpp_rx rx;
	struct rmpp_tx tx;
	uint8_t out[MAD_SIZE];
	uint32_t i;

	cfg_of(&cfg, 64);
	rmpp_rx_init(&rx, &cfg, 0);
	for (i = 0; i + 1 < upto; i++) {
		assert_true(rmpp_rx_recv(&rx, segs[i], MAD_SIZE, 0) >= 0);
		while (rmpp_rx_next(&rx, 0, out))
			;
	}
	assert_int_equal(rmpp_rx_recv(&rx, bad, MAD_SIZE, 1), -EPROTO);
	assert_int_equal(rmpp_rx_state(&rx), RMPP_FAILED);
	assert_int_equal(rmpp_rx_deadline(&rx), 1);
	assert_int_equal(rmpp_rx_next(&rx, 1, out), MAD_SIZE);
	assert_int_equal(out[MAD_RMPP_OFF_TYPE], MAD_RMPP_TYPE_ABORT);
	assert_int_equal(out[MAD_RMPP_OFF_STATUS], status);
	assert_int_equal(out[MAD_OFF_METHOD], SA_METHOD_GET_TABLE);
	assert_int_equal(rmpp_rx_next(&rx, 1, out), 0);
	/* Ended: the rest is dropped. */
	assert_int_equal(rmpp_rx_recv(&rx, segs[upto], MAD_SIZE, 2), 0);
	assert_int_equal(rmpp_rx_next(&rx, 2, out), 0);
	assert_null(rmpp_rx_message(&rx, &(size_t){ 0 }));
	rmpp_rx_fini(&rx);

	assert_int_equal(rmpp_tx_init(&tx, segs[0], MAD_SIZE, SA_OFF_DATA, &cfg, 0), 0);
	assert_int_equal(rmpp_tx_next(&tx, 0, out), MAD_SIZE);
	rmpp_reply(out, SA_OFF_DATA, MAD_RMPP_TYPE_ABORT, status, out);
	assert_int_equal(rmpp_tx_recv(&tx, out, MAD_SIZE, 1), -EPROTO);
	assert_int_equal(rmpp_tx_state(&tx), RMPP_FAILED);
	assert_int_equal(tx.status, status);
	assert_int_equal(rmpp_tx_next(&tx, 2, out), 0);
	rmpp_tx_fini(&tx);
}

static void test_corrupt(void **state)
{
	uint8_t segs[4][MAD_SIZE], bad[MAD_SIZE];
	size_t len;
	uint8_t *m = sa_table(3, &len); /* 528 bytes: 3 segments, pad 72 */

	(void)state;
	assert_int_equal(all_segments(m, len, segs, 4), 3);
	assert_int_equal(wire_get32(segs[0] + MAD_RMPP_OFF_DATA2), 3 * 220 - 72);
	assert_int_equal(wire_get32(segs[2] + MAD_RMPP_OFF_DATA2), 220 - 72);
	memcpy(segs[3], segs[2], MAD_SIZE);

#define BAD(upto, from, off, val, status) \
	do { \
		memcpy(bad, segs[(from)], MAD_SIZE); \
		bad[(off)] = (val); \
		expect_abort(segs, (upto), bad, (status)); \
	} while (0)
	BAD(2, 1, MAD_RMPP_OFF_FLAGS, MAD_RMPP_FLAG_ACTIVE | MAD_RMPP_FLAG_FIRST, MAD_RMPP_STATUS_BAD_SEG);
	BAD(1, 0, MAD_RMPP_OFF_FLAGS, MAD_RMPP_FLAG_ACTIVE, MAD_RMPP_STATUS_BAD_SEG);
	BAD(2, 1, MAD_RMPP_OFF_DATA1 + 3, 0, MAD_RMPP_STATUS_BAD_SEG);
	BAD(2, 1, MAD_RMPP_OFF_TYPE, 9, MAD_RMPP_STATUS_BADT);
	BAD(2, 1, MAD_RMPP_OFF_TYPE, 0, MAD_RMPP_STATUS_BADT);
	BAD(2, 1, MAD_RMPP_OFF_VERSION, 0, MAD_RMPP_STATUS_UNV);
	BAD(1, 0, MAD_RMPP_OFF_VERSION, 2, MAD_RMPP_STATUS_UNV);
	BAD(2, 1, MAD_RMPP_OFF_STATUS, 5, MAD_RMPP_STATUS_BAD_STATUS);
	/* LAST: PayloadLength past a segment, or the SA header alone. */
	BAD(3, 2, MAD_RMPP_OFF_DATA2 + 3, 221, MAD_RMPP_STATUS_BAD_LEN);
	BAD(3, 2, MAD_RMPP_OFF_DATA2 + 3, 20, MAD_RMPP_STATUS_BAD_LEN);
	BAD(3, 2, MAD_RMPP_OFF_DATA2 + 3, 19, MAD_RMPP_STATUS_BAD_LEN);
	/* A LAST that disagrees with the FIRST's total. */
	BAD(3, 2, MAD_RMPP_OFF_DATA2 + 3, 149, MAD_RMPP_STATUS_BAD_LEN);
#undef BAD
	free(m);
}

/* What is no RMPP DATA for a receiver changes nothing. */
static void test_foreign(void **state)
{
	struct rmpp_cfg cfg;
	struct rmpp_rx rx;
	uint8_t segs[3][MAD_SIZE], bad[MAD_SIZE], out[MAD_SIZE];
	size_t len;
	uint8_t *m = sa_table(3, &len);

	(void)state;
	all_segments(m, len, segs, 3);
	cfg_of(&cfg, 64);
	rmpp_rx_init(&rx, &cfg, 0);
	memcpy(bad, segs[0], MAD_SIZE);
	bad[MAD_RMPP_OFF_FLAGS] = 0; /* not active */
	assert_int_equal(rmpp_rx_recv(&rx, bad, MAD_SIZE, 0), -EINVAL);
	assert_int_equal(rmpp_rx_recv(&rx, segs[0], 100, 0), -EMSGSIZE);
	assert_int_equal(rmpp_rx_recv(&rx, segs[0], 20, 0), -EMSGSIZE);
	ack_of(segs[0], 1, 2, bad);
	assert_int_equal(rmpp_rx_recv(&rx, bad, MAD_SIZE, 0), -EINVAL);
	/* A class without RMPP. */
	memcpy(bad, segs[0], MAD_SIZE);
	bad[MAD_OFF_MGMT_CLASS] = 0x04;
	assert_int_equal(rmpp_rx_recv(&rx, bad, MAD_SIZE, 0), -EINVAL);
	/* A segment other than the first before it: dropped. */
	assert_int_equal(rmpp_rx_recv(&rx, segs[1], MAD_SIZE, 0), 0);
	assert_int_equal(rmpp_rx_next(&rx, 0, out), 0);
	assert_int_equal(rmpp_rx_state(&rx), RMPP_ACTIVE);
	/* Then the transfer runs. */
	assert_int_equal(rmpp_rx_recv(&rx, segs[0], MAD_SIZE, 0), 0);
	assert_int_equal(rmpp_rx_recv(&rx, segs[1], MAD_SIZE, 0), 0);
	assert_int_equal(rmpp_rx_recv(&rx, segs[2], MAD_SIZE, 0), 1);
	rmpp_rx_fini(&rx);
	free(m);
}

/* Acknowledged segments come again: the ACK is repeated, also after the
 * end, until the linger time; segments not ACKed yet are dropped. */
static void test_duplicates(void **state)
{
	struct rmpp_cfg cfg;
	struct rmpp_rx rx;
	uint8_t segs[3][MAD_SIZE], out[MAD_SIZE];
	size_t len;
	uint8_t *m = sa_table(3, &len);

	(void)state;
	all_segments(m, len, segs, 3);
	cfg_of(&cfg, 4);
	rmpp_rx_init(&rx, &cfg, 0);
	assert_int_equal(rmpp_rx_recv(&rx, segs[0], MAD_SIZE, 0), 0);
	assert_int_equal(rmpp_rx_next(&rx, 0, out), MAD_SIZE);
	assert_int_equal(rmpp_rx_recv(&rx, segs[0], MAD_SIZE, 0), 0);
	assert_int_equal(rmpp_rx_next(&rx, 0, out), MAD_SIZE);
	assert_int_equal(wire_get32(out + MAD_RMPP_OFF_DATA1), 1);
	assert_int_equal(wire_get32(out + MAD_RMPP_OFF_DATA2), 5);
	assert_int_equal(rmpp_rx_recv(&rx, segs[1], MAD_SIZE, 0), 0);
	assert_int_equal(rmpp_rx_next(&rx, 0, out), 0); /* mid-window: no ACK */
	assert_int_equal(rmpp_rx_recv(&rx, segs[1], MAD_SIZE, 0), 0);
	assert_int_equal(rmpp_rx_next(&rx, 0, out), 0);
	assert_int_equal(rmpp_rx_recv(&rx, segs[2], MAD_SIZE, 10), 1);
	assert_int_equal(rmpp_rx_deadline(&rx), 10);
	assert_int_equal(rmpp_rx_next(&rx, 10, out), MAD_SIZE);
	assert_int_equal(wire_get32(out + MAD_RMPP_OFF_DATA1), 3);
	assert_int_equal(rmpp_rx_deadline(&rx), 10 + 1000);
	assert_int_equal(rmpp_rx_recv(&rx, segs[2], MAD_SIZE, 20), 0);
	assert_int_equal(rmpp_rx_next(&rx, 20, out), MAD_SIZE);
	assert_int_equal(wire_get32(out + MAD_RMPP_OFF_DATA1), 3);
	assert_int_equal(rmpp_rx_state(&rx), RMPP_DONE);
	rmpp_rx_fini(&rx);
	free(m);
}

/* Out of order within the window: held; the LAST before the rest. */
static void test_out_of_order(void **state)
{
	struct rmpp_cfg cfg;
	struct rmpp_rx rx;
	uint8_t segs[3][MAD_SIZE], out[MAD_SIZE];
	const uint8_t *got;
	size_t len, got_len;
	uint8_t *m = sa_table(3, &len);

	(void)state;
	all_segments(m, len, segs, 3);
	cfg_of(&cfg, 64);
	rmpp_rx_init(&rx, &cfg, 0);
	assert_int_equal(rmpp_rx_recv(&rx, segs[2], MAD_SIZE, 0), 0); /* before FIRST */
	assert_int_equal(rmpp_rx_recv(&rx, segs[0], MAD_SIZE, 0), 0);
	assert_int_equal(rmpp_rx_next(&rx, 0, out), MAD_SIZE);
	assert_int_equal(rmpp_rx_recv(&rx, segs[2], MAD_SIZE, 0), 0);
	assert_int_equal(rmpp_rx_recv(&rx, segs[2], MAD_SIZE, 0), 0);
	assert_int_equal(rmpp_rx_next(&rx, 0, out), 0);
	assert_int_equal(rmpp_rx_recv(&rx, segs[1], MAD_SIZE, 0), 1);
	got = rmpp_rx_message(&rx, &got_len);
	assert_non_null(got);
	assert_int_equal(got_len, len);
	assert_memory_equal(got + SA_OFF_DATA, m + SA_OFF_DATA, len - SA_OFF_DATA);
	assert_int_equal(rmpp_rx_next(&rx, 0, out), MAD_SIZE);
	assert_int_equal(wire_get32(out + MAD_RMPP_OFF_DATA1), 3);
	rmpp_rx_fini(&rx);
	free(m);
}

/* The receiver runs out of room: STOP (resources exhausted) at the FIRST
 * segment when its PayloadLength says so, else when the data does; the
 * sender that gets it ends without an ABORT. */
static void test_stop(void **state)
{
	struct rmpp_cfg cfg;
	struct rmpp_rx rx;
	struct rmpp_tx tx;
	uint8_t (*segs)[MAD_SIZE] = calloc(8, MAD_SIZE), out[MAD_SIZE];
	size_t len;
	uint8_t *m = sa_table(8, &len); /* 1408 bytes of data: 8 segments */
	uint32_t i;

	(void)state;
	assert_non_null(segs);
	all_segments(m, len, segs, 8);
	cfg_of(&cfg, 64);
	cfg.max_len = 1000;
	rmpp_rx_init(&rx, &cfg, 0);
	assert_int_equal(rmpp_rx_recv(&rx, segs[0], MAD_SIZE, 0), -ENOBUFS);
	assert_int_equal(rmpp_rx_next(&rx, 0, out), MAD_SIZE);
	assert_int_equal(out[MAD_RMPP_OFF_TYPE], MAD_RMPP_TYPE_STOP);
	assert_int_equal(out[MAD_RMPP_OFF_STATUS], MAD_RMPP_STATUS_RESX);
	rmpp_rx_fini(&rx);

	assert_int_equal(rmpp_tx_init(&tx, m, len, SA_OFF_DATA, &cfg, 0), 0);
	assert_int_equal(rmpp_tx_next(&tx, 0, segs[0]), MAD_SIZE);
	assert_int_equal(rmpp_tx_recv(&tx, out, MAD_SIZE, 1), -EPROTO);
	assert_int_equal(rmpp_tx_state(&tx), RMPP_FAILED);
	assert_int_equal(tx.status, MAD_RMPP_STATUS_RESX);
	assert_int_equal(rmpp_tx_next(&tx, 1, out), 0);
	rmpp_tx_fini(&tx);

	/* No total in the FIRST: (1000 - 56) / 200 segments fit, not 5. */
	wire_put32(segs[0] + MAD_RMPP_OFF_DATA2, 0);
	rmpp_rx_init(&rx, &cfg, 0);
	for (i = 0; i < 4; i++)
		assert_int_equal(rmpp_rx_recv(&rx, segs[i], MAD_SIZE, 0), 0);
	assert_int_equal(rmpp_rx_recv(&rx, segs[4], MAD_SIZE, 0), -ENOBUFS);
	assert_int_equal(rmpp_rx_next(&rx, 0, out), MAD_SIZE);
	assert_int_equal(out[MAD_RMPP_OFF_TYPE], MAD_RMPP_TYPE_STOP);
	assert_int_equal(rmpp_rx_state(&rx), RMPP_FAILED);
	rmpp_rx_fini(&rx);
	free(segs);
	free(m);
}

/* A receiver whose sender went quiet ABORTs at total_ms (T2L); one that
 * never saw a first segment ends silently. */
static void test_rx_timeout(void **state)
{
	struct rmpp_cfg cfg;
	struct rmpp_rx rx;
	uint8_t segs[3][MAD_SIZE], out[MAD_SIZE];
	size_t len;
	uint8_t *m = sa_table(3, &len);

	(void)state;
	all_segments(m, len, segs, 3);
	cfg_of(&cfg, 64);
	cfg.total_ms = 1000;
	rmpp_rx_init(&rx, &cfg, 50);
	assert_int_equal(rmpp_rx_recv(&rx, segs[0], MAD_SIZE, 60), 0);
	assert_int_equal(rmpp_rx_deadline(&rx), 60);
	assert_int_equal(rmpp_rx_next(&rx, 60, out), MAD_SIZE);
	assert_int_equal(rmpp_rx_deadline(&rx), 1050);
	assert_int_equal(rmpp_rx_next(&rx, 1049, out), 0);
	assert_int_equal(rmpp_rx_next(&rx, 1050, out), MAD_SIZE);
	assert_int_equal(out[MAD_RMPP_OFF_TYPE], MAD_RMPP_TYPE_ABORT);
	assert_int_equal(out[MAD_RMPP_OFF_STATUS], MAD_RMPP_STATUS_T2L);
	assert_int_equal(rmpp_rx_state(&rx), RMPP_FAILED);
	assert_int_equal(rmpp_rx_next(&rx, 1050, out), 0);
	rmpp_rx_fini(&rx);

	rmpp_rx_init(&rx, &cfg, 0);
	assert_int_equal(rmpp_rx_next(&rx, 1000, out), 0);
	assert_int_equal(rmpp_rx_state(&rx), RMPP_FAILED);
	rmpp_rx_fini(&rx);
	free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hdr_len),
		cmocka_unit_test(test_golden),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_loss),
		cmocka_unit_test(test_dup_reorder),
		cmocka_unit_test(test_out_of_order),
		cmocka_unit_test(test_small),
		cmocka_unit_test(test_vendor),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_foreign),
		cmocka_unit_test(test_duplicates),
		cmocka_unit_test(test_stop),
		cmocka_unit_test(test_rx_timeout),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
