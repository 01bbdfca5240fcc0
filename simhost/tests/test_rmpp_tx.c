/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* RMPP (simhost/kernel/rmpp.h), the sender alone: ACKs the spec ABORTs, old
 * ACKs, retries to the end and their reset on progress; and the table
 * of transactions (lookup by type and method, expiry). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rmpp_msg.h"
#include "simhost/kernel/krmpp.h"
#include "simhost/kernel/rmpp_table.h"

/* A sender at its first segment of three, window 1. */
static void tx_three(struct rmpp_tx *tx, uint8_t *m, size_t len, uint8_t seg[MAD_SIZE])
{
	struct rmpp_cfg cfg;

	cfg_of(&cfg, 64);
	assert_int_equal(rmpp_tx_init(tx, m, len, SA_OFF_DATA, &cfg, 0), 0);
	assert_int_equal(rmpp_tx_next(tx, 0, seg), MAD_SIZE);
}

/* The sender ABORTs an ACK the spec refuses (13.6.2.1), with the DATA
 * direction's method. */
static void expect_tx_abort(const uint8_t *in, uint8_t status)
{
	struct rmpp_tx tx;
	uint8_t seg[MAD_SIZE], out[MAD_SIZE];
	size_t len;
	uint8_t *m = sa_table(3, &len);

	tx_three(&tx, m, len, seg);
	assert_int_equal(rmpp_tx_recv(&tx, in, MAD_SIZE, 5), -EPROTO);
	assert_int_equal(rmpp_tx_state(&tx), RMPP_FAILED);
	assert_int_equal(rmpp_tx_deadline(&tx), 5);
	assert_int_equal(rmpp_tx_next(&tx, 5, out), MAD_SIZE);
	assert_int_equal(out[MAD_RMPP_OFF_TYPE], MAD_RMPP_TYPE_ABORT);
	assert_int_equal(out[MAD_RMPP_OFF_STATUS], status);
	assert_int_equal(out[MAD_OFF_METHOD], SA_METHOD_GET_TABLE_RESP);
	assert_memory_equal(out, seg, MAD_OFF_METHOD);
	assert_int_equal(rmpp_tx_next(&tx, 5, out), 0);
	/* Late ones change nothing. */
	assert_int_equal(rmpp_tx_recv(&tx, in, MAD_SIZE, 6), 0);
	rmpp_tx_fini(&tx);
	free(m);
}

static void test_bad_ack(void **state)
{
	uint8_t seg[MAD_SIZE], in[MAD_SIZE];
	size_t len;
	uint8_t *m = sa_table(3, &len);

	(void)state;
	memcpy(seg, m, SA_OFF_DATA);
	ack_of(seg, 1, 0, in);
	expect_tx_abort(in, MAD_RMPP_STATUS_W2S);
	ack_of(seg, 2, 4, in); /* segment 2 was never sent */
	expect_tx_abort(in, MAD_RMPP_STATUS_S2B);
	ack_of(seg, 1, 4, in);
	in[MAD_RMPP_OFF_STATUS] = 1;
	expect_tx_abort(in, MAD_RMPP_STATUS_BAD_STATUS);
	ack_of(seg, 1, 4, in);
	in[MAD_RMPP_OFF_VERSION] = 3;
	expect_tx_abort(in, MAD_RMPP_STATUS_UNV);
	ack_of(seg, 1, 4, in);
	in[MAD_RMPP_OFF_TYPE] = 5;
	expect_tx_abort(in, MAD_RMPP_STATUS_BADT);
	rmpp_reply(seg, SA_OFF_DATA, MAD_RMPP_TYPE_STOP, 2, in);
	expect_tx_abort(in, MAD_RMPP_STATUS_BAD_STATUS);
	rmpp_reply(seg, SA_OFF_DATA, MAD_RMPP_TYPE_ABORT, 117, in);
	expect_tx_abort(in, MAD_RMPP_STATUS_BAD_STATUS);
	free(m);
}

/* ACKs out of date are ignored, a DATA is no sender's. */
static void test_old_ack(void **state)
{
	struct rmpp_tx tx;
	uint8_t seg[MAD_SIZE], in[MAD_SIZE];
	size_t len;
	uint8_t *m = sa_table(3, &len);

	(void)state;
	tx_three(&tx, m, len, seg);
	assert_int_equal(rmpp_tx_recv(&tx, seg, MAD_SIZE, 0), -EINVAL);
	assert_int_equal(rmpp_tx_recv(&tx, seg, 20, 0), -EMSGSIZE);
	ack_of(seg, 1, 2, in);
	assert_int_equal(rmpp_tx_recv(&tx, in, MAD_SIZE, 1), 0);
	assert_int_equal(rmpp_tx_next(&tx, 1, seg), MAD_SIZE);
	assert_int_equal(wire_get32(seg + MAD_RMPP_OFF_DATA1), 2);
	assert_int_equal(rmpp_tx_next(&tx, 1, seg), 0);
	ack_of(seg, 1, 1, in); /* a smaller window: older */
	assert_int_equal(rmpp_tx_recv(&tx, in, MAD_SIZE, 2), 0);
	ack_of(seg, 0, 3, in); /* an older segment */
	assert_int_equal(rmpp_tx_recv(&tx, in, MAD_SIZE, 2), 0);
	assert_int_equal(tx.win, 2);
	assert_int_equal(rmpp_tx_next(&tx, 2, seg), 0);
	ack_of(seg, 3, 3, in); /* beyond what was sent */
	assert_int_equal(rmpp_tx_recv(&tx, in, MAD_SIZE, 2), -EPROTO);
	rmpp_tx_fini(&tx);
	free(m);
}

/* No ACK ever: the first segment goes 1 + retries times, each at its
 * deadline, then the sender gives up without an ABORT (mad.c
 * timeout_sends: no word on the wire); then nothing is due. */
static void test_retries(void **state)
{
	struct rmpp_tx tx;
	uint8_t seg[MAD_SIZE], out[MAD_SIZE];
	size_t len;
	uint8_t *m = sa_table(3, &len);
	int64_t now = 0;
	unsigned sent = 1;

	(void)state;
	tx_three(&tx, m, len, seg);
	for (;;) {
		assert_int_equal(rmpp_tx_next(&tx, rmpp_tx_deadline(&tx) - 1, out), 0);
		now = rmpp_tx_deadline(&tx);
		if (rmpp_tx_next(&tx, now, out) == 0)
			break;
		assert_memory_equal(out, seg, MAD_SIZE);
		sent++;
	}
	assert_int_equal(sent, 1 + 5);
	assert_int_equal(now, 6 * 100);
	assert_int_equal(rmpp_tx_state(&tx), RMPP_FAILED);
	assert_int_equal(rmpp_tx_next(&tx, now + 100000, out), 0);
	assert_int_equal(rmpp_tx_deadline(&tx), now);
	rmpp_tx_fini(&tx);
	free(m);
}

/* An ACK that shows progress gives the retries back. */
static void test_retries_reset(void **state)
{
	struct rmpp_tx tx;
	uint8_t seg[MAD_SIZE], in[MAD_SIZE], out[MAD_SIZE];
	size_t len;
	uint8_t *m = sa_table(3, &len);
	int i;

	(void)state;
	tx_three(&tx, m, len, seg);
	for (i = 0; i < 5; i++)
		assert_int_equal(rmpp_tx_next(&tx, rmpp_tx_deadline(&tx), out), MAD_SIZE);
	ack_of(seg, 1, 2, in);
	assert_int_equal(rmpp_tx_recv(&tx, in, MAD_SIZE, 1000), 0);
	assert_int_equal(rmpp_tx_deadline(&tx), 1000);
	assert_int_equal(rmpp_tx_next(&tx, 1000, out), MAD_SIZE);
	assert_int_equal(wire_get32(out + MAD_RMPP_OFF_DATA1), 2);
	for (i = 0; i < 5; i++) {
		assert_int_equal(rmpp_tx_next(&tx, rmpp_tx_deadline(&tx), out), MAD_SIZE);
		assert_int_equal(out[MAD_RMPP_OFF_TYPE], MAD_RMPP_TYPE_DATA);
		assert_int_equal(wire_get32(out + MAD_RMPP_OFF_DATA1), 2);
	}
	/* Out of retries again: the sender gives up, nothing on the wire. */
	assert_int_equal(rmpp_tx_next(&tx, rmpp_tx_deadline(&tx), out), 0);
	assert_int_equal(rmpp_tx_state(&tx), RMPP_FAILED);
	rmpp_tx_fini(&tx);
	free(m);
}

static void test_table(void **state)
{
	struct rmpp_table t;
	struct rmpp_table_entry *rx, *tx;
	struct rmpp_cfg cfg;
	struct rmpp_table_key k = { .tid = TID, .lid = 7, .mgmt_class = SA_CLASS,
			      .method = SA_METHOD_GET_TABLE_RESP };
	uint8_t segs[3][MAD_SIZE], in[MAD_SIZE], out[MAD_SIZE];
	size_t len;
	uint8_t *m = sa_table(3, &len);

	(void)state;
	all_segments(m, len, segs, 3);
	cfg_of(&cfg, 64);
	assert_int_equal(rmpp_table_init(&t, 0), -EINVAL);
	assert_int_equal(rmpp_table_init(&t, 2), 0);
	assert_int_equal(rmpp_table_deadline(&t), INT64_MAX);
	rx = rmpp_table_add(&t, &k, RMPP_TABLE_RX);
	assert_non_null(rx);
	assert_null(rmpp_table_add(&t, &k, RMPP_TABLE_RX));
	rmpp_rx_init(&rx->u.rx, &cfg, 0);
	tx = rmpp_table_add(&t, &k, RMPP_TABLE_TX);
	assert_non_null(tx);
	assert_int_equal(rmpp_tx_init(&tx->u.tx, m, len, SA_OFF_DATA, &cfg, 0), 0);
	k.tid++;
	assert_null(rmpp_table_add(&t, &k, RMPP_TABLE_RX)); /* full */
	assert_null(rmpp_table_find(&t, &k, RMPP_TABLE_RX));
	k.tid--;
	assert_ptr_equal(rmpp_table_find(&t, &k, RMPP_TABLE_TX), tx);

	/* DATA to the receiver, ACK and STOP to the sender, ABORT to the
	 * side its method names; another peer's to none. */
	assert_ptr_equal(rmpp_table_lookup(&t, segs[0], MAD_SIZE, 7), rx);
	assert_null(rmpp_table_lookup(&t, segs[0], MAD_SIZE, 8));
	ack_of(segs[0], 1, 2, in);
	assert_ptr_equal(rmpp_table_lookup(&t, in, MAD_SIZE, 7), tx);
	rmpp_reply(segs[0], SA_OFF_DATA, MAD_RMPP_TYPE_STOP, 1, in);
	assert_ptr_equal(rmpp_table_lookup(&t, in, MAD_SIZE, 7), tx);
	rmpp_reply(segs[0], SA_OFF_DATA, MAD_RMPP_TYPE_ABORT, 127, in);
	assert_ptr_equal(rmpp_table_lookup(&t, in, MAD_SIZE, 7), tx);
	rmpp_reply(in, SA_OFF_DATA, MAD_RMPP_TYPE_ABORT, 127, in);
	assert_ptr_equal(rmpp_table_lookup(&t, in, MAD_SIZE, 7), rx);
	memcpy(in, segs[0], MAD_SIZE);
	in[MAD_RMPP_OFF_FLAGS] = 0;
	assert_null(rmpp_table_lookup(&t, in, MAD_SIZE, 7));

	/* The receiver ends; the sender fails at its deadlines. */
	assert_int_equal(rmpp_table_entry_recv(rx, segs[0], MAD_SIZE, 0), 0);
	assert_int_equal(rmpp_table_entry_recv(rx, segs[1], MAD_SIZE, 0), 0);
	assert_int_equal(rmpp_table_entry_recv(rx, segs[2], MAD_SIZE, 0), 1);
	assert_int_equal(rmpp_table_entry_state(rx), RMPP_DONE);
	assert_int_equal(rmpp_table_deadline(&t), 0);
	assert_int_equal(rmpp_table_entry_next(rx, 0, out), MAD_SIZE);
	assert_int_equal(rmpp_table_entry_next(tx, 0, out), MAD_SIZE);
	assert_int_equal(rmpp_table_deadline(&t), 100);
	assert_int_equal(rmpp_table_expire(&t, 100), 0);
	while (rmpp_table_entry_state(tx) == RMPP_ACTIVE)
		(void)rmpp_table_entry_next(tx, rmpp_table_entry_deadline(tx), out);
	assert_int_equal(out[MAD_RMPP_OFF_TYPE], MAD_RMPP_TYPE_DATA); /* no ABORT after it */
	assert_int_equal(rmpp_table_entry_deadline(tx), 600);
	assert_int_equal(rmpp_table_expire(&t, 600), 1);
	assert_null(rmpp_table_find(&t, &k, RMPP_TABLE_TX));
	/* An ABORT due: not removed before it is sent. */
	tx = rmpp_table_add(&t, &k, RMPP_TABLE_TX);
	assert_int_equal(rmpp_tx_init(&tx->u.tx, m, len, SA_OFF_DATA, &cfg, 600), 0);
	assert_int_equal(rmpp_table_entry_next(tx, 600, out), MAD_SIZE);
	ack_of(segs[0], 1, 0, in);
	assert_int_equal(rmpp_table_entry_recv(tx, in, MAD_SIZE, 600), -EPROTO);
	assert_int_equal(rmpp_table_expire(&t, 900), 0);
	assert_int_equal(rmpp_table_entry_next(tx, 900, out), MAD_SIZE);
	assert_int_equal(out[MAD_RMPP_OFF_STATUS], MAD_RMPP_STATUS_W2S);
	assert_int_equal(rmpp_table_expire(&t, 900), 1);
	/* The receiver lingers to its deadline. */
	assert_int_equal(rmpp_table_deadline(&t), 1000);
	assert_int_equal(rmpp_table_expire(&t, 999), 0);
	assert_int_equal(rmpp_table_expire(&t, 1000), 1);
	assert_int_equal(rmpp_table_deadline(&t), INT64_MAX);
	/* The table frees what is left in it. */
	tx = rmpp_table_add(&t, &k, RMPP_TABLE_TX);
	assert_int_equal(rmpp_tx_init(&tx->u.tx, m, len, SA_OFF_DATA, &cfg, 0), 0);
	rmpp_table_fini(&t);
	free(m);
}

/* A full table makes room for a new transfer from an ended one that only
 * lingers, never from one under way; a shim's tid_mask matches a TID on
 * its low bits (rmpp_table.h). */
static void test_table_room(void **state)
{
	struct rmpp_table t;
	struct rmpp_table_entry *a, *b;
	struct rmpp_cfg cfg;
	struct rmpp_table_key k = { .tid = TID, .lid = 7, .mgmt_class = SA_CLASS,
			      .method = SA_METHOD_GET_TABLE_RESP };
	uint8_t segs[3][MAD_SIZE], out[MAD_SIZE];
	size_t len, i;
	uint8_t *m = sa_table(3, &len);

	(void)state;
	all_segments(m, len, segs, 3);
	cfg_of(&cfg, 64);
	assert_int_equal(rmpp_table_init(&t, 2), 0);
	a = rmpp_table_add(&t, &k, RMPP_TABLE_RX);
	assert_non_null(a);
	rmpp_rx_init(&a->u.rx, &cfg, 0);
	k.tid = TID + 1;
	b = rmpp_table_add(&t, &k, RMPP_TABLE_RX);
	assert_non_null(b);
	rmpp_rx_init(&b->u.rx, &cfg, 0);
	k.tid = TID + 2;
	assert_null(rmpp_table_add(&t, &k, RMPP_TABLE_RX)); /* both under way */
	for (i = 0; i < 3; i++)
		rmpp_table_entry_recv(a, segs[i], MAD_SIZE, 0);
	assert_int_equal(rmpp_table_entry_state(a), RMPP_DONE);
	assert_null(rmpp_table_add(&t, &k, RMPP_TABLE_RX)); /* its ACK not sent yet */
	assert_int_equal(rmpp_table_entry_next(a, 0, out), MAD_SIZE);
	assert_ptr_equal(rmpp_table_add(&t, &k, RMPP_TABLE_RX), a);
	k.tid = TID;
	assert_null(rmpp_table_find(&t, &k, RMPP_TABLE_RX));
	k.tid = (TID + 1) ^ (0x00020001ULL << 32);
	assert_null(rmpp_table_find(&t, &k, RMPP_TABLE_RX));
	t.tid_mask = 0xffffffffULL;
	assert_ptr_equal(rmpp_table_find(&t, &k, RMPP_TABLE_RX), b);
	rmpp_table_fini(&t);
	free(m);
}

static unsigned krmpp_segs;

static void krmpp_count(void *ctx, const struct ib_user_mad *hdr, const uint8_t mad[MAD_SIZE])
{
	(void)ctx;
	(void)hdr;
	(void)mad;
	krmpp_segs++;
}

/* The kernel's sender takes its ACK wait and retries from the umad
 * header (mad_rmpp.c send_next_seg: timeout_ms, 2 s when 0 or longer;
 * ib_post_send_mad: retries); a transfer under way to a destination is
 * what is_duplicate refuses a response of the same TID for. */
static void test_krmpp_header(void **state)
{
	static struct krmpp r;
	struct ib_user_mad u, other;
	struct rmpp_cfg cfg;
	size_t len;
	uint8_t *m = sa_table(3, &len);

	(void)state;
	memset(&u, 0, sizeof(u));
	krmpp_send_cfg(&cfg, &u);
	assert_int_equal(cfg.ack_ms, 2000);
	assert_int_equal(cfg.retries, 0);
	u.timeout_ms = 500;
	u.retries = 3;
	krmpp_send_cfg(&cfg, &u);
	assert_int_equal(cfg.ack_ms, 500);
	assert_int_equal(cfg.retries, 3);
	u.timeout_ms = 5000;
	krmpp_send_cfg(&cfg, &u);
	assert_int_equal(cfg.ack_ms, 2000);

	assert_int_equal(krmpp_init(&r), 0);
	u.timeout_ms = 0;
	u.retries = 1;
	u.addr.lid = htons(7);
	other = u;
	other.addr.lid = htons(8);
	assert_int_equal(krmpp_sending(&r, &u, m), 0);
	assert_int_equal(krmpp_send(&r, &u, m, len, 0, krmpp_count, NULL), 0);
	assert_int_equal(krmpp_segs, 1); /* the first window: one segment */
	assert_int_equal(krmpp_deadline(&r), 2000);
	assert_int_equal(krmpp_sending(&r, &u, m), 1);
	assert_int_equal(krmpp_sending(&r, &other, m), 0);
	/* One retry, then the transfer fails quietly: no longer sending. */
	krmpp_timers(&r, 2000, krmpp_count, NULL);
	assert_int_equal(krmpp_segs, 2);
	assert_int_equal(krmpp_deadline(&r), 4000);
	krmpp_timers(&r, 4000, krmpp_count, NULL);
	assert_int_equal(krmpp_segs, 2);
	assert_int_equal(krmpp_sending(&r, &u, m), 0);
	krmpp_fini(&r);
	free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_ack),
		cmocka_unit_test(test_old_ack),
		cmocka_unit_test(test_retries),
		cmocka_unit_test(test_krmpp_header),
		cmocka_unit_test(test_retries_reset),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_table_room),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
