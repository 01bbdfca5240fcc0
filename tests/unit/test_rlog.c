/* The master's replication log: numbering, the ring, the verdicts on a
 * standby's pulls, held pulls, and rlog_wait against standbys that ack,
 * stay silent, leave or are cut off by a new epoch. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "mono.h"
#include "rlog.h"
#include "wire.h"

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
	return rlog_pull(l, guid, epoch, next, &h, mono_ms(), e, in_sync);
}

static void msleep(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000 };

	nanosleep(&ts, NULL);
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
					     (int64_t)i * 1000), i);
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
	assert_int_equal(rlog_append(l, REPL_SET, rec_of(42), 0), 1);
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
		rlog_append(l, REPL_SET, rec_of(100 + i), 0);
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
	/* Falling behind the ring again ends it. */
	for (i = 11; i <= 20; i++)
		rlog_append(l, REPL_SET, rec_of(100 + i), 0);
	assert_int_equal(pull(l, G1, 3, 11, 1, &e, &in_sync), RLOG_SNAP_NEEDED);
	assert_false(in_sync);
	rlog_stats(l, &st);
	assert_int_equal(st.in_sync, 0);
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
		rlog_append(l, REPL_SET, rec_of(100 + i), 0);
	assert_int_equal(pull(l, G1, 3, 11, 1, &e, &in_sync), RLOG_HOLD);
	assert_true(in_sync);
	/* Back to change 4: answered, but not in sync. */
	assert_int_equal(pull(l, G1, 3, 4, 2, &e, &in_sync), RLOG_ANSWER);
	assert_false(in_sync);
	assert_int_equal(e.seq, 4);
	assert_int_equal(pull(l, G1, 3, 5, 3, &e, &in_sync), RLOG_ANSWER);
	assert_false(in_sync);
	/* Nobody waited for: a commit of change 11 returns at once. */
	rlog_append(l, REPL_SET, rec_of(111), 0);
	assert_int_equal(rlog_wait(l, 11, 100000, dropped, &ndropped), 0);
	assert_int_equal(ndropped, 0);
	/* At the head again: in sync. */
	for (i = 6; i <= 11; i++)
		assert_int_equal(pull(l, G1, 3, i, 4, &e, &in_sync), RLOG_ANSWER);
	assert_int_equal(pull(l, G1, 3, 12, 5, &e, &in_sync), RLOG_HOLD);
	assert_true(in_sync);
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
	rlog_append(l, REPL_SET, rec_of(1), 0);
	assert_int_equal(pull(l, G1, 1, 2, 11, &e, &in_sync), RLOG_HOLD);
	/* Nothing newer than what it holds: not answered yet. */
	assert_int_equal(rlog_take_held(l, 1, out, RLOG_MAX_PEERS), 0);
	/* A second hold replaces the first. */
	assert_int_equal(pull(l, G1, 1, 2, 12, &e, &in_sync), RLOG_HOLD);
	assert_int_equal(rlog_append(l, REPL_SET, rec_of(2), 0), 2);
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

		assert_int_equal(rlog_pull(l, G2, 1, 3, &h, t0, &e, &in_sync), RLOG_HOLD);
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
	rlog_append(l, REPL_SET, rec_of(1), 0);
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

static void test_wait_nobody(void **state)
{
	struct rlog *l = new_log(16, 1);
	uint64_t dropped[RLOG_MAX_PEERS];
	struct rlog_entry e;
	size_t nd = 99;
	int in_sync;
	int64_t t0;
	uint64_t seq;

	(void)state;
	seq = rlog_append(l, REPL_SET, rec_of(1), 0);
	/* A standby still catching up is not waited for. */
	rlog_append(l, REPL_SET, rec_of(2), 0);
	assert_int_equal(pull(l, G1, 1, 1, 0, &e, &in_sync), RLOG_ANSWER);
	t0 = mono_ms();
	assert_int_equal(rlog_wait(l, seq, 10000, dropped, &nd), 0);
	assert_int_equal(nd, 0);
	assert_true(mono_ms() - t0 < 1000);
	/* One that already acked counts at once. */
	assert_int_equal(pull(l, G1, 1, 3, 0, &e, &in_sync), RLOG_HOLD);
	assert_int_equal(rlog_wait(l, 2, 10000, dropped, &nd), 1);
	assert_int_equal(nd, 0);
	/* Catching up again, it stays in sync and each pull acks next - 1. */
	rlog_append(l, REPL_SET, rec_of(3), 0);
	rlog_append(l, REPL_SET, rec_of(4), 0);
	assert_int_equal(pull(l, G1, 1, 4, 0, &e, &in_sync), RLOG_ANSWER);
	assert_true(in_sync);
	assert_int_equal(e.seq, 4);
	assert_int_equal(rlog_wait(l, 3, 10000, dropped, &nd), 1);
	assert_int_equal(nd, 0);
	assert_true(mono_ms() - t0 < 1000);
	rlog_fini(l);
}

struct later {
	struct rlog *l;
	uint64_t guid, epoch, next;
	enum { LATER_PULL, LATER_LEAVE, LATER_RESET } what;
};

static void *later_run(void *arg)
{
	struct later *a = arg;
	struct rlog_entry e;
	int in_sync;

	msleep(50);
	switch (a->what) {
	case LATER_PULL:
		pull(a->l, a->guid, a->epoch, a->next, 0, &e, &in_sync);
		break;
	case LATER_LEAVE:
		rlog_leave(a->l, a->guid);
		break;
	case LATER_RESET:
		rlog_reset(a->l, a->epoch);
		break;
	}
	return NULL;
}

/* rlog_wait(seq) while a second thread does a->what; the wait's ms. */
static int64_t wait_with(struct later *a, uint64_t seq, unsigned ack_ms, size_t expect_acked,
			 uint64_t *dropped, size_t *nd)
{
	pthread_t t;
	int64_t t0 = mono_ms();

	assert_int_equal(pthread_create(&t, NULL, later_run, a), 0);
	assert_int_equal(rlog_wait(a->l, seq, ack_ms, dropped, nd), expect_acked);
	assert_int_equal(pthread_join(t, NULL), 0);
	return mono_ms() - t0;
}

static void test_wait_acked(void **state)
{
	struct rlog *l = new_log(16, 1);
	uint64_t dropped[RLOG_MAX_PEERS];
	struct rlog_entry e;
	struct rlog_stats st;
	size_t nd;
	int in_sync;
	uint64_t seq;
	int64_t ms;

	(void)state;
	assert_int_equal(pull(l, G1, 1, 1, 0, &e, &in_sync), RLOG_HOLD);
	seq = rlog_append(l, REPL_SET, rec_of(1), 0);
	{
		struct later a = { .l = l, .guid = G1, .epoch = 1, .next = seq + 1,
				   .what = LATER_PULL };

		/* ack_ms far beyond the pull's delay: the ack ends the wait. */
		ms = wait_with(&a, seq, 10000, 1, dropped, &nd);
	}
	assert_int_equal(nd, 0);
	assert_true(ms < 5000);
	rlog_stats(l, &st);
	assert_int_equal(st.in_sync, 1);
	assert_int_equal(st.dropped, 0);
	rlog_fini(l);
}

static void test_wait_silent(void **state)
{
	struct rlog *l = new_log(16, 1);
	uint64_t dropped[RLOG_MAX_PEERS];
	struct rlog_entry e;
	struct rlog_stats st;
	size_t nd;
	int in_sync;
	uint64_t seq;
	int64_t t0, ms;

	(void)state;
	assert_int_equal(pull(l, G1, 1, 1, 0, &e, &in_sync), RLOG_HOLD);
	assert_int_equal(pull(l, G2, 1, 1, 0, &e, &in_sync), RLOG_HOLD);
	seq = rlog_append(l, REPL_SET, rec_of(1), 0);
	/* G2 acks at once; G1 never does. */
	assert_int_equal(pull(l, G2, 1, seq + 1, 0, &e, &in_sync), RLOG_HOLD);
	t0 = mono_ms();
	assert_int_equal(rlog_wait(l, seq, 100, dropped, &nd), 1);
	ms = mono_ms() - t0;
	assert_true(ms >= 80 && ms <= 1000);
	assert_int_equal(nd, 1);
	assert_int_equal(dropped[0], G1);
	rlog_stats(l, &st);
	assert_int_equal(st.in_sync, 1);
	assert_int_equal(st.dropped, 1);
	/* Dropped, it is no longer waited for. */
	seq = rlog_append(l, REPL_SET, rec_of(2), 0);
	assert_int_equal(pull(l, G2, 1, seq + 1, 0, &e, &in_sync), RLOG_HOLD);
	t0 = mono_ms();
	assert_int_equal(rlog_wait(l, seq, 100, dropped, &nd), 1);
	assert_int_equal(nd, 0);
	assert_true(mono_ms() - t0 < 80);
	rlog_fini(l);
}

static void test_wait_leave(void **state)
{
	struct rlog *l = new_log(16, 1);
	uint64_t dropped[RLOG_MAX_PEERS];
	struct rlog_entry e;
	struct rlog_stats st;
	size_t nd;
	int in_sync;
	uint64_t seq;
	int64_t ms;

	(void)state;
	assert_int_equal(pull(l, G1, 1, 1, 0, &e, &in_sync), RLOG_HOLD);
	seq = rlog_append(l, REPL_SET, rec_of(1), 0);
	{
		struct later a = { .l = l, .guid = G1, .what = LATER_LEAVE };

		ms = wait_with(&a, seq, 10000, 0, dropped, &nd);
	}
	assert_int_equal(nd, 0);
	assert_true(ms < 5000);
	rlog_stats(l, &st);
	assert_int_equal(st.in_sync, 0);
	assert_int_equal(st.dropped, 0);
	rlog_fini(l);
}

static void test_wait_reset(void **state)
{
	struct rlog *l = new_log(16, 1);
	uint64_t dropped[RLOG_MAX_PEERS];
	struct rlog_entry e;
	struct rlog_stats st;
	size_t nd;
	int in_sync;
	uint64_t seq;
	int64_t ms;

	(void)state;
	assert_int_equal(pull(l, G1, 1, 1, 0, &e, &in_sync), RLOG_HOLD);
	seq = rlog_append(l, REPL_SET, rec_of(1), 0);
	{
		struct later a = { .l = l, .epoch = 2, .what = LATER_RESET };

		ms = wait_with(&a, seq, 10000, 0, dropped, &nd);
	}
	assert_int_equal(nd, 0);
	assert_true(ms < 5000);
	rlog_stats(l, &st);
	assert_int_equal(st.epoch, 2);
	assert_int_equal(st.head, 0);
	assert_int_equal(st.in_sync, 0);
	rlog_fini(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numbering_and_ring),
		cmocka_unit_test(test_pull_verdicts),
		cmocka_unit_test(test_went_back),
		cmocka_unit_test(test_held),
		cmocka_unit_test(test_full_and_leave),
		cmocka_unit_test(test_wait_nobody),
		cmocka_unit_test(test_wait_acked),
		cmocka_unit_test(test_wait_silent),
		cmocka_unit_test(test_wait_leave),
		cmocka_unit_test(test_wait_reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
