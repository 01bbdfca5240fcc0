/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The master's replication log: numbering, the ring, the verdicts on a
 * standby's pulls, held pulls, and the commit point against standbys
 * that ack, pull without acking, stay silent, leave or are cut off by a
 * new epoch; the slots of standbys gone. Times are given, not slept. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "core/mono.h"
#include "plugin/rlog.h"
#include "core/wire.h"
#include "fixture.h"

#define G1 0x0002c90300000001ull
#define G2 0x0002c90300000002ull

/* A record told apart by its ServiceID. */
static const uint8_t *rec_of(uint64_t id)
{
	static uint8_t r[SR_SIZE];

	memset(r, 0, sizeof(r));
	wire_put64(r + SR_OFF_ID, id);
	return r;
}

static struct rlog *new_log(size_t cap, uint64_t epoch)
{
	struct rlog *l;

	assert_int_equal(rlog_init(&l, cap), 0);
	rlog_reset(l, epoch);
	return l;
}

static enum rlog_verdict pull(struct rlog *l, uint64_t guid, uint64_t epoch, uint64_t next,
			      uint64_t tid, struct rlog_entry *e, int *in_sync)
{
	struct rlog_held h;

	memset(&h, 0, sizeof(h));
	h.tid = tid;
	return rlog_pull(l, guid, epoch, next, &h, mono_ms(), e, in_sync, NULL);
}

/* A pull on epoch 1 at time t, nothing held before. */
static enum rlog_verdict pull_at(struct rlog *l, uint64_t guid, uint64_t next, int64_t t,
				 int *in_sync)
{
	struct rlog_held h;
	struct rlog_entry e;

	memset(&h, 0, sizeof(h));
	return rlog_pull(l, guid, 1, next, &h, t, &e, in_sync, NULL);
}

/* rlog_tick at t with ack_ms 1000: the slots it frees and how many
 * standbys it drops, first the first of them. */
static void tick(struct rlog *l, int64_t t, int freed, size_t ndropped, uint64_t first)
{
	uint64_t dropped[RLOG_MAX_PEERS];
	size_t nd;

	assert_int_equal(rlog_tick(l, t, 1000, dropped, &nd), freed);
	assert_int_equal(nd, ndropped);
	if (ndropped)
		assert_int_equal(dropped[0], first);
}

static void test_numbering_and_ring(void **state)
{
	struct rlog *l = new_log(4, 7);
	struct rlog_entry e;
	uint64_t i;

	(void)state;
	assert_int_equal(rlog_epoch(l), 7);
	assert_int_equal(rlog_head(l), 0);
	assert_int_equal(rlog_get(l, 0, &e), -ENOENT);
	assert_int_equal(rlog_get(l, 1, &e), -ENOENT);
	for (i = 1; i <= 10; i++)
		assert_int_equal(rlog_append(l, i % 2 ? REPL_SET : REPL_DELETE, rec_of(i),
					     (int64_t)i * 1000, NULL), i);
	assert_int_equal(rlog_head(l), 10);
	/* Only the newest four are left. */
	for (i = 1; i <= 6; i++)
		assert_int_equal(rlog_get(l, i, &e), -ENOENT);
	for (i = 7; i <= 10; i++) {
		assert_int_equal(rlog_get(l, i, &e), 0);
		assert_int_equal(e.seq, i);
		assert_int_equal(e.kind, i % 2 ? REPL_SET : REPL_DELETE);
		assert_int_equal(wire_get64(e.rec + SR_OFF_ID), i);
		assert_int_equal(e.lease_end_ms, (int64_t)i * 1000);
	}
	assert_int_equal(rlog_get(l, 11, &e), -ENOENT);

	/* A new epoch numbers from 1 again and forgets the old changes. */
	rlog_reset(l, 8);
	assert_int_equal(rlog_epoch(l), 8);
	assert_int_equal(rlog_head(l), 0);
	assert_int_equal(rlog_get(l, 10, &e), -ENOENT);
	assert_int_equal(rlog_append(l, REPL_SET, rec_of(42), 0, NULL), 1);
	assert_int_equal(rlog_get(l, 1, &e), 0);
	assert_int_equal(wire_get64(e.rec + SR_OFF_ID), 42);
	rlog_fini(l);
}

static void test_pull_verdicts(void **state)
{
	struct rlog *l = new_log(4, 3);
	struct rlog_entry e;
	struct rlog_stats st;
	int in_sync;
	uint64_t i;

	(void)state;
	for (i = 1; i <= 10; i++)
		rlog_append(l, REPL_SET, rec_of(100 + i), 0, NULL);
	/* Another epoch, no change 0, a change that never was, one that left. */
	assert_int_equal(pull(l, G1, 2, 8, 1, &e, &in_sync), RLOG_SNAP_NEEDED);
	assert_false(in_sync);
	assert_int_equal(pull(l, G1, 3, 0, 1, &e, &in_sync), RLOG_SNAP_NEEDED);
	assert_int_equal(pull(l, G1, 3, 12, 1, &e, &in_sync), RLOG_SNAP_NEEDED);
	assert_int_equal(pull(l, G1, 3, 6, 1, &e, &in_sync), RLOG_SNAP_NEEDED);
	assert_false(in_sync);
	/* Inside the ring: that change, and not yet in sync. */
	for (i = 7; i <= 10; i++) {
		memset(&e, 0, sizeof(e));
		assert_int_equal(pull(l, G1, 3, i, 1, &e, &in_sync), RLOG_ANSWER);
		assert_false(in_sync);
		assert_int_equal(e.seq, i);
		assert_int_equal(wire_get64(e.rec + SR_OFF_ID), 100 + i);
	}
	rlog_stats(l, &st);
	assert_int_equal(st.in_sync, 0);
	/* After the newest: held, and from now on waited for. */
	assert_int_equal(pull(l, G1, 3, 11, 1, &e, &in_sync), RLOG_HOLD);
	assert_true(in_sync);
	rlog_stats(l, &st);
	assert_int_equal(st.epoch, 3);
	assert_int_equal(st.head, 10);
	assert_int_equal(st.in_sync, 1);
	assert_int_equal(st.dropped, 0);
	/* Falling behind the ring: it must snapshot, and is no longer told
	 * "in sync"; but it may not hear that (the answer can be lost) and
	 * still trust its copy, so it is waited for until ack_ms after it
	 * last was told (review of issue 22: it was let go at once). */
	for (i = 11; i <= 20; i++)
		rlog_append(l, REPL_SET, rec_of(100 + i), 0, NULL);
	assert_int_equal(pull(l, G1, 3, 11, 1, &e, &in_sync), RLOG_SNAP_NEEDED);
	assert_false(in_sync);
	rlog_stats(l, &st);
	assert_int_equal(st.in_sync, 1);
	assert_int_equal(rlog_committed(l, NULL), 10);
	tick(l, mono_ms() + 500, 0, 0, 0);
	/* Silent as long, its slot is freed too. */
	tick(l, mono_ms() + 1000, 1, 1, G1);
	rlog_stats(l, &st);
	assert_int_equal(st.in_sync, 0);
	assert_int_equal(rlog_committed(l, NULL), 20);
	rlog_fini(l);
}

/* A standby that asks for a change it acked before (it restarted on an
 * older snapshot) is not in sync until it reaches the head again, and
 * its earlier acks are void: a change after them waits for it. */
static void test_went_back(void **state)
{
	struct rlog *l = new_log(64, 3);
	struct rlog_entry e;
	size_t ndropped;
	uint64_t dropped[RLOG_MAX_PEERS];
	int in_sync;
	uint64_t i;

	(void)state;
	for (i = 1; i <= 10; i++)
		rlog_append(l, REPL_SET, rec_of(100 + i), 0, NULL);
	assert_int_equal(pull(l, G1, 3, 11, 1, &e, &in_sync), RLOG_HOLD);
	assert_true(in_sync);
	/* Back to change 4: answered, but no longer told "in sync"; still
	 * waited for (it may not hear), at what it holds now. */
	assert_int_equal(pull(l, G1, 3, 4, 2, &e, &in_sync), RLOG_ANSWER);
	assert_false(in_sync);
	assert_int_equal(e.seq, 4);
	assert_int_equal(pull(l, G1, 3, 5, 3, &e, &in_sync), RLOG_ANSWER);
	assert_false(in_sync);
	rlog_append(l, REPL_SET, rec_of(111), 0, NULL);
	assert_int_equal(rlog_committed(l, NULL), 4);
	assert_int_equal(rlog_tick(l, mono_ms(), 100000, dropped, &ndropped), 0);
	assert_int_equal(ndropped, 0);
	/* At the head again: in sync. */
	for (i = 6; i <= 11; i++)
		assert_int_equal(pull(l, G1, 3, i, 4, &e, &in_sync), RLOG_ANSWER);
	assert_int_equal(pull(l, G1, 3, 12, 5, &e, &in_sync), RLOG_HOLD);
	assert_true(in_sync);
	assert_int_equal(rlog_committed(l, NULL), 11);
	rlog_fini(l);
}

static void test_held(void **state)
{
	struct rlog *l = new_log(16, 1);
	struct rlog_held out[RLOG_MAX_PEERS];
	struct rlog_entry e;
	int in_sync;
	int64_t t0;

	(void)state;
	rlog_append(l, REPL_SET, rec_of(1), 0, NULL);
	assert_int_equal(pull(l, G1, 1, 2, 11, &e, &in_sync), RLOG_HOLD);
	/* Nothing newer than what it holds: not answered yet. */
	assert_int_equal(rlog_take_held(l, 1, out, RLOG_MAX_PEERS), 0);
	/* A second hold replaces the first. */
	assert_int_equal(pull(l, G1, 1, 2, 12, &e, &in_sync), RLOG_HOLD);
	assert_int_equal(rlog_append(l, REPL_SET, rec_of(2), 0, NULL), 2);
	assert_int_equal(rlog_take_held(l, 2, out, RLOG_MAX_PEERS), 1);
	assert_int_equal(out[0].guid, G1);
	assert_int_equal(out[0].next, 2);
	assert_int_equal(out[0].tid, 12);
	/* Once only. */
	assert_int_equal(rlog_take_held(l, 2, out, RLOG_MAX_PEERS), 0);
	assert_int_equal(rlog_take_stale(l, mono_ms() + 100000, 0, out, RLOG_MAX_PEERS), 0);

	/* Stale after hold_ms, and only then; once only too. */
	t0 = mono_ms();
	{
		struct rlog_held h = { .tid = 13 };

		assert_int_equal(rlog_pull(l, G2, 1, 3, &h, t0, &e, &in_sync, NULL), RLOG_HOLD);
	}
	assert_int_equal(rlog_take_stale(l, t0 + 499, 500, out, RLOG_MAX_PEERS), 0);
	assert_int_equal(rlog_take_stale(l, t0 + 500, 500, out, RLOG_MAX_PEERS), 1);
	assert_int_equal(out[0].guid, G2);
	assert_int_equal(out[0].tid, 13);
	assert_int_equal(rlog_take_stale(l, t0 + 600, 500, out, RLOG_MAX_PEERS), 0);
	assert_int_equal(rlog_take_held(l, 100, out, RLOG_MAX_PEERS), 0);

	/* max bounds what is taken; the rest stays for the next call. */
	assert_int_equal(pull(l, G1, 1, 3, 14, &e, &in_sync), RLOG_HOLD);
	assert_int_equal(pull(l, G2, 1, 3, 15, &e, &in_sync), RLOG_HOLD);
	assert_int_equal(rlog_take_held(l, 3, out, 1), 1);
	assert_int_equal(rlog_take_held(l, 3, out + 1, 1), 1);
	assert_true(out[0].guid != out[1].guid);
	assert_int_equal(rlog_take_held(l, 3, out, RLOG_MAX_PEERS), 0);

	/* A new epoch forgets held pulls. */
	assert_int_equal(pull(l, G1, 1, 3, 16, &e, &in_sync), RLOG_HOLD);
	rlog_reset(l, 2);
	assert_int_equal(rlog_take_held(l, 100, out, RLOG_MAX_PEERS), 0);
	rlog_fini(l);
}

static void test_full_and_leave(void **state)
{
	struct rlog *l = new_log(16, 1);
	struct rlog_held out[RLOG_MAX_PEERS];
	struct rlog_entry e;
	struct rlog_stats st;
	int in_sync;
	uint64_t g;

	(void)state;
	for (g = 1; g <= RLOG_MAX_PEERS; g++)
		assert_int_equal(pull(l, g, 1, 1, g, &e, &in_sync), RLOG_HOLD);
	rlog_stats(l, &st);
	assert_int_equal(st.in_sync, RLOG_MAX_PEERS);
	assert_int_equal(pull(l, 100, 1, 1, 0, &e, &in_sync), RLOG_FULL);
	assert_false(in_sync);
	/* A known standby still gets in. */
	assert_int_equal(pull(l, 3, 1, 1, 3, &e, &in_sync), RLOG_HOLD);
	/* Leaving frees the slot and its held pull. */
	rlog_leave(l, 3);
	rlog_stats(l, &st);
	assert_int_equal(st.in_sync, RLOG_MAX_PEERS - 1);
	rlog_append(l, REPL_SET, rec_of(1), 0, NULL);
	assert_int_equal(rlog_take_held(l, 1, out, RLOG_MAX_PEERS), RLOG_MAX_PEERS - 1);
	for (g = 0; g < RLOG_MAX_PEERS - 1; g++)
		assert_true(out[g].guid != 3);
	assert_int_equal(pull(l, 100, 1, 2, 0, &e, &in_sync), RLOG_HOLD);
	assert_int_equal(pull(l, 101, 1, 2, 0, &e, &in_sync), RLOG_FULL);
	/* Leaving twice, or never having come, is harmless. */
	rlog_leave(l, 3);
	rlog_leave(l, 12345);
	rlog_fini(l);
}

static void test_committed_nobody(void **state)
{
	struct rlog *l = new_log(16, 1);
	struct rlog_entry e;
	int in_sync;

	(void)state;
	rlog_append(l, REPL_SET, rec_of(1), 0, NULL);
	/* A standby still catching up is not waited for. */
	rlog_append(l, REPL_SET, rec_of(2), 0, NULL);
	assert_int_equal(pull(l, G1, 1, 1, 0, &e, &in_sync), RLOG_ANSWER);
	assert_int_equal(rlog_committed(l, NULL), 2);
	/* One that holds everything is, from the next change on. */
	assert_int_equal(pull(l, G1, 1, 3, 0, &e, &in_sync), RLOG_HOLD);
	assert_int_equal(rlog_committed(l, NULL), 2);
	rlog_append(l, REPL_SET, rec_of(3), 0, NULL);
	rlog_append(l, REPL_SET, rec_of(4), 0, NULL);
	assert_int_equal(rlog_committed(l, NULL), 2);
	/* Catching up again, it stays in sync and each pull acks next - 1. */
	assert_int_equal(pull(l, G1, 1, 4, 0, &e, &in_sync), RLOG_ANSWER);
	assert_true(in_sync);
	assert_int_equal(e.seq, 4);
	assert_int_equal(rlog_committed(l, NULL), 3);
	assert_int_equal(pull(l, G1, 1, 5, 0, &e, &in_sync), RLOG_HOLD);
	assert_int_equal(rlog_committed(l, NULL), 4);
	rlog_fini(l);
}

/* A window's NOACK pulls (rlog_peek): the change, "not yet" past the
 * head whatever next is, "snapshot" for another epoch, 0 or a change out
 * of the log; never an ack, a hold or a slot, so a liar's cannot commit
 * a change for it or take the place of a standby. */
static void test_peek(void **state)
{
	struct rlog *l = new_log(4, 1);
	struct rlog_stats st;
	struct rlog_entry e;
	int in_sync;
	uint64_t i;

	(void)state;
	for (i = 1; i <= 6; i++)
		rlog_append(l, REPL_SET, rec_of(i), 0, NULL);
	assert_int_equal(rlog_peek(l, 1, 5, &e), RLOG_ANSWER);
	assert_int_equal(e.seq, 5);
	assert_int_equal(wire_get64(e.rec + SR_OFF_ID), 5);
	assert_int_equal(rlog_peek(l, 1, 6, &e), RLOG_ANSWER);
	assert_int_equal(rlog_peek(l, 1, 7, &e), RLOG_NOT_YET);
	assert_int_equal(rlog_peek(l, 1, UINT64_MAX, &e), RLOG_NOT_YET);
	assert_int_equal(rlog_peek(l, 1, 0, &e), RLOG_SNAP_NEEDED);
	assert_int_equal(rlog_peek(l, 1, 2, &e), RLOG_SNAP_NEEDED); /* out of the ring of 4 */
	assert_int_equal(rlog_peek(l, 2, 5, &e), RLOG_SNAP_NEEDED);
	rlog_stats(l, &st);
	assert_int_equal(st.npeers, 0);
	/* An in-sync standby's peeks ack nothing: the commit point stays at
	 * its ack, however far the peeks go. */
	assert_int_equal(pull(l, G1, 1, 4, 0, &e, &in_sync), RLOG_ANSWER);
	assert_int_equal(pull(l, G1, 1, 7, 0, &e, &in_sync), RLOG_HOLD);
	rlog_append(l, REPL_SET, rec_of(7), 0, NULL);
	rlog_append(l, REPL_SET, rec_of(8), 0, NULL);
	assert_int_equal(rlog_peek(l, 1, 8, &e), RLOG_ANSWER);
	assert_int_equal(rlog_peek(l, 1, 1000, &e), RLOG_NOT_YET);
	assert_int_equal(rlog_committed(l, NULL), 6);
	rlog_stats(l, &st);
	assert_int_equal(st.peers[0].acked, 6);
	rlog_fini(l);
}

/* The slowest in-sync standby sets the commit point. */
static void test_committed_two(void **state)
{
	struct rlog *l = new_log(16, 1);
	struct rlog_entry e;
	struct rlog_stats st;
	int in_sync;
	int64_t t;

	(void)state;
	assert_int_equal(pull(l, G1, 1, 1, 0, &e, &in_sync), RLOG_HOLD);
	assert_int_equal(pull(l, G2, 1, 1, 0, &e, &in_sync), RLOG_HOLD);
	rlog_append(l, REPL_SET, rec_of(1), 0, NULL);
	rlog_append(l, REPL_SET, rec_of(2), 0, NULL);
	assert_int_equal(rlog_committed(l, NULL), 0);
	assert_int_equal(pull(l, G2, 1, 3, 0, &e, &in_sync), RLOG_HOLD);
	assert_int_equal(rlog_committed(l, NULL), 0);
	assert_int_equal(pull(l, G1, 1, 2, 0, &e, &in_sync), RLOG_ANSWER);
	assert_int_equal(rlog_committed(l, NULL), 1);
	/* The lagging one, told "in sync" last when it pulled, is dropped
	 * ack_ms after (and, silent, loses its slot): all committed. */
	t = mono_ms() + 1000;
	assert_int_equal(pull_at(l, G2, 3, t, &in_sync), RLOG_HOLD);
	tick(l, t, 1, 1, G1);
	assert_int_equal(rlog_committed(l, NULL), 2);
	rlog_stats(l, &st);
	assert_int_equal(st.in_sync, 1);
	assert_int_equal(st.dropped, 1);
	rlog_fini(l);
}

/* Finding 1 of issue 22: a standby that pulls but never acks (a liar,
 * or one whose answers are lost one way) used to refresh its silence
 * timer with every pull and hold every Set for as long as it went on.
 * Once the change it owes is RLOG_FRESH_MS old it is no longer told it
 * is in sync, and ack_ms after the last time it was, it is dropped,
 * however often it pulls. */
static void test_pulls_are_no_ack(void **state)
{
	struct rlog *l = new_log(16, 1);
	int in_sync;
	int64_t t0 = 1000000, t;
	uint64_t seq;

	(void)state;
	assert_int_equal(pull_at(l, G1, 1, t0, &in_sync), RLOG_HOLD);
	seq = rlog_append_at(l, REPL_SET, rec_of(1), 0, t0, NULL);
	/* It asks for change 1 again and again: answered, never acked. */
	for (t = t0; t < t0 + RLOG_FRESH_MS - 50 + 1000; t += 50) {
		assert_int_equal(pull_at(l, G1, seq, t, &in_sync), RLOG_ANSWER);
		/* Told "in sync" while the change it owes is fresh only. */
		assert_int_equal(in_sync != 0, t - t0 < RLOG_FRESH_MS);
		tick(l, t, 0, 0, 0);
		assert_int_equal(rlog_committed(l, NULL), 0);
	}
	/* Last told at t0 + RLOG_FRESH_MS - 50: dropped 1000 ms after. */
	assert_int_equal(pull_at(l, G1, seq, t, &in_sync), RLOG_ANSWER);
	tick(l, t, 0, 1, G1);
	assert_int_equal(rlog_committed(l, NULL), seq);
	/* Still pulling, it keeps its slot; back at the head, it is in
	 * sync again. */
	assert_int_equal(pull_at(l, G1, seq + 1, t + 100, &in_sync), RLOG_HOLD);
	assert_int_equal(in_sync, 2);
	rlog_fini(l);
}

/* A standby that acks, but slowly (one change each 0.9 ack_ms), used to
 * be kept for ever, each ack restarting its clock, and the k-th answer
 * waited k times that. The changes it owes age, it stops being told "in
 * sync", and it is dropped: no answer waits past ack_ms + RLOG_FRESH_MS.
 * One that acks each change while it is fresh stays. */
static void test_slow_acker(void **state)
{
	struct rlog *l = new_log(16, 1);
	int in_sync;
	int64_t t0 = 1000000;

	(void)state;
	assert_int_equal(pull_at(l, G1, 1, t0, &in_sync), RLOG_HOLD);
	/* Acked while fresh: it stays, however long. */
	rlog_append_at(l, REPL_SET, rec_of(1), 0, t0 + 10, NULL);
	assert_int_equal(pull_at(l, G1, 2, t0 + 100, &in_sync), RLOG_HOLD);
	assert_int_equal(in_sync, 1);
	assert_int_equal(pull_at(l, G1, 2, t0 + 5000, &in_sync), RLOG_HOLD);
	tick(l, t0 + 5000, 0, 0, 0);
	assert_int_equal(rlog_committed(l, NULL), 1);
	/* Three changes at +5100, acked one each 800 ms. */
	t0 += 5100;
	rlog_append_at(l, REPL_SET, rec_of(2), 0, t0, NULL);
	rlog_append_at(l, REPL_SET, rec_of(3), 0, t0, NULL);
	rlog_append_at(l, REPL_SET, rec_of(4), 0, t0, NULL);
	assert_int_equal(pull_at(l, G1, 3, t0 + 800, &in_sync), RLOG_ANSWER);
	assert_int_equal(in_sync, 0); /* it owes change 3, 800 ms old */
	tick(l, t0 + 899, 0, 0, 0);
	assert_int_equal(rlog_committed(l, NULL), 2);
	/* Last told "in sync" at +5000 (t0 - 100): dropped at t0 + 900,
	 * though it acked a change 100 ms before. */
	tick(l, t0 + 900, 0, 1, G1);
	assert_int_equal(rlog_committed(l, NULL), 4);
	rlog_fini(l);
}

/* Finding 5 of issue 22: a port that pulled once kept its slot for the
 * master's life; eight of them shut a real standby out for good. */
static void test_slots_freed(void **state)
{
	struct rlog *l = new_log(16, 1);
	int in_sync;
	int64_t t0 = mono_ms();
	uint64_t g;

	(void)state;
	for (g = 1; g <= RLOG_MAX_PEERS; g++)
		assert_int_equal(pull_at(l, 100 + g, 1, t0, &in_sync), RLOG_HOLD);
	assert_int_equal(pull_at(l, G1, 1, t0, &in_sync), RLOG_FULL);
	/* One of them goes on pulling; the rest stop. */
	assert_int_equal(pull_at(l, 101, 1, t0 + 600, &in_sync), RLOG_HOLD);
	tick(l, t0 + 999, 0, 0, 0);
	assert_int_equal(pull_at(l, G1, 1, t0 + 999, &in_sync), RLOG_FULL);
	tick(l, t0 + 1000, RLOG_MAX_PEERS - 1, 0, 0);
	assert_int_equal(pull_at(l, G1, 1, t0 + 1000, &in_sync), RLOG_HOLD);
	assert_int_equal(in_sync, 2);
	rlog_fini(l);
}

/* An in-sync standby that goes silent while it owes a change loses its
 * slot D after its last pull, which can come before D after it began to
 * owe: the master commits without it all the same, so it is dropped as
 * any other (WRN 7A41, the dropped count), not forgotten unsaid. */
static void test_silent_owing_dropped(void **state)
{
	struct rlog *l = new_log(16, 1);
	struct rlog_stats st;
	int in_sync;
	int64_t t0;
	uint64_t seq;

	(void)state;
	t0 = mono_ms();
	/* Its last pull, 500 ms ago; the change comes now. */
	assert_int_equal(pull_at(l, G1, 1, t0 - 500, &in_sync), RLOG_HOLD);
	seq = rlog_append(l, REPL_SET, rec_of(1), 0, NULL);
	assert_int_equal(rlog_committed(l, NULL), 0);
	tick(l, t0 + 500, 1, 1, G1);
	assert_int_equal(rlog_committed(l, NULL), seq);
	rlog_stats(l, &st);
	assert_int_equal(st.dropped, 1);
	/* One that owes nothing just gives its slot back. */
	assert_int_equal(pull_at(l, G2, seq + 1, t0, &in_sync), RLOG_HOLD);
	tick(l, t0 + 1000, 1, 0, 0);
	rlog_stats(l, &st);
	assert_int_equal(st.dropped, 1);
	rlog_fini(l);
}

static void test_leave_and_reset(void **state)
{
	struct rlog *l = new_log(16, 1);
	struct rlog_entry e;
	struct rlog_stats st;
	int in_sync;
	uint64_t seq;

	(void)state;
	assert_int_equal(pull(l, G1, 1, 1, 0, &e, &in_sync), RLOG_HOLD);
	seq = rlog_append(l, REPL_SET, rec_of(1), 0, NULL);
	assert_int_equal(rlog_committed(l, NULL), 0);
	rlog_leave(l, G1);
	assert_int_equal(rlog_committed(l, NULL), seq);
	rlog_stats(l, &st);
	assert_int_equal(st.in_sync, 0);
	assert_int_equal(st.dropped, 0);
	assert_int_equal(pull(l, G1, 1, 2, 0, &e, &in_sync), RLOG_HOLD);
	rlog_append(l, REPL_SET, rec_of(2), 0, NULL);
	assert_int_equal(rlog_committed(l, NULL), 1);
	/* A new epoch: nobody is in sync with it. */
	rlog_reset(l, 2);
	rlog_stats(l, &st);
	assert_int_equal(st.epoch, 2);
	assert_int_equal(st.head, 0);
	assert_int_equal(st.in_sync, 0);
	assert_int_equal(rlog_committed(l, NULL), 0);
	rlog_fini(l);
}

/* Each standby as `atsctl sm` and the state file show it: its ack, how
 * far behind the head, since its last pull, waited for or not; and a
 * pull says when its ack moved (the state file is rewritten then). */
static void test_peer_stats(void **state)
{
	struct rlog *l = new_log(16, 1);
	struct rlog_entry e;
	struct rlog_stats st;
	struct rlog_held h;
	int in_sync, moved;
	int64_t t0 = 100000;
	uint64_t i;

	(void)state;
	memset(&h, 0, sizeof(h));
	rlog_stats_at(l, t0, &st);
	assert_int_equal(st.npeers, 0);
	for (i = 1; i <= 3; i++)
		rlog_append_at(l, REPL_SET, rec_of(i), 0, t0, NULL);
	/* G1 holds everything, G2 is two behind. */
	assert_int_equal(rlog_pull(l, G1, 1, 4, &h, t0, &e, &in_sync, &moved), RLOG_HOLD);
	assert_true(moved);
	assert_int_equal(rlog_pull(l, G2, 1, 2, &h, t0 + 50, &e, &in_sync, &moved), RLOG_ANSWER);
	assert_true(moved);
	rlog_stats_at(l, t0 + 300, &st);
	assert_int_equal(st.head, 3);
	assert_int_equal(st.npeers, 2);
	assert_int_equal(st.in_sync, 1);
	assert_int_equal(st.peers[0].guid, G1);
	assert_int_equal(st.peers[0].acked, 3);
	assert_int_equal(st.peers[0].behind, 0);
	assert_int_equal(st.peers[0].since_ms, 300);
	assert_true(st.peers[0].in_sync);
	assert_int_equal(st.peers[1].guid, G2);
	assert_int_equal(st.peers[1].acked, 1);
	assert_int_equal(st.peers[1].behind, 2);
	assert_int_equal(st.peers[1].since_ms, 250);
	assert_false(st.peers[1].in_sync);
	/* A quiet standby's next pull moves nothing. */
	assert_int_equal(rlog_pull(l, G1, 1, 4, &h, t0 + 200, &e, &in_sync, &moved), RLOG_HOLD);
	assert_false(moved);
	/* A change: G1 is one behind until it acks it. */
	rlog_append_at(l, REPL_SET, rec_of(4), 0, t0 + 300, NULL);
	rlog_stats_at(l, t0 + 300, &st);
	assert_int_equal(st.peers[0].behind, 1);
	assert_int_equal(st.peers[0].since_ms, 100);
	assert_int_equal(rlog_pull(l, G1, 1, 5, &h, t0 + 310, &e, &in_sync, &moved), RLOG_HOLD);
	assert_true(moved);
	rlog_stats_at(l, t0 + 310, &st);
	assert_int_equal(st.peers[0].acked, 4);
	assert_int_equal(st.peers[0].behind, 0);
	assert_int_equal(st.peers[0].since_ms, 0);
	/* Gone: its row too. */
	rlog_leave(l, G2);
	rlog_stats_at(l, t0 + 310, &st);
	assert_int_equal(st.npeers, 1);
	assert_int_equal(st.peers[0].guid, G1);
	rlog_fini(l);
}

TEST_MAIN(
	cmocka_unit_test(test_numbering_and_ring),
	cmocka_unit_test(test_pull_verdicts),
	cmocka_unit_test(test_went_back),
	cmocka_unit_test(test_held),
	cmocka_unit_test(test_full_and_leave),
	cmocka_unit_test(test_committed_nobody),
	cmocka_unit_test(test_peek),
	cmocka_unit_test(test_committed_two),
	cmocka_unit_test(test_pulls_are_no_ack),
	cmocka_unit_test(test_slow_acker),
	cmocka_unit_test(test_slots_freed),
	cmocka_unit_test(test_silent_owing_dropped),
	cmocka_unit_test(test_leave_and_reset),
	cmocka_unit_test(test_peer_stats))
