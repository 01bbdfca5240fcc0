/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The refusal log limiter: burst, then counted, then one summary. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "plugin/ratelim.h"
#include "fixture.h"

#define S 1000000000ull

static struct ratelim r;

static int setup(void **state)
{
	(void)state;
	ratelim_init(&r, 3, 10 * S);
	return 0;
}

static void test_burst_then_counted(void **state)
{
	struct ratelim_summary sum;
	int have, i, logged = 0;

	(void)state;
	for (i = 0; i < 1000; i++) {
		logged += ratelim_event(&r, 0xa, (unsigned)(i % 2 ? 5 : 10), S + (uint64_t)i, &sum, &have);
		assert_false(have);
	}
	assert_int_equal(logged, 3);
	assert_int_equal(ratelim_next_due(&r), 11 * S);
	/* The next interval begins with the summary of the last. */
	assert_true(ratelim_event(&r, 0xa, 5, 11 * S, &sum, &have));
	assert_true(have);
	assert_int_equal(sum.who, 0xa);
	assert_int_equal(sum.suppressed, 997);
	assert_int_equal(sum.by_kind[5] + sum.by_kind[10], 997);
	assert_int_equal(sum.span_ns, 10 * S);
}

static int nsum;
static struct ratelim_summary last;

static void got(const struct ratelim_summary *s, void *arg)
{
	(void)arg;
	nsum++;
	last = *s;
}

static void test_expire_summarises_once(void **state)
{
	struct ratelim_summary sum;
	int have, i;

	(void)state;
	nsum = 0;
	for (i = 0; i < 5; i++)
		ratelim_event(&r, 0xb, 1, S, &sum, &have);
	ratelim_event(&r, 0xc, 1, S, &sum, &have); /* logged, nothing left out */
	ratelim_expire(&r, 5 * S, got, NULL);
	assert_int_equal(nsum, 0);
	ratelim_expire(&r, 11 * S, got, NULL);
	assert_int_equal(nsum, 1);
	assert_int_equal(last.who, 0xb);
	assert_int_equal(last.suppressed, 2);
	assert_int_equal(ratelim_next_due(&r), 0);
	ratelim_expire(&r, 30 * S, got, NULL);
	assert_int_equal(nsum, 1);
	/* A fresh interval for 0xb: logged again. */
	assert_true(ratelim_event(&r, 0xb, 1, 31 * S, &sum, &have));
	assert_false(have);
}

static void test_many_requesters_share_a_slot(void **state)
{
	struct ratelim_summary sum;
	uint64_t who;
	int have, logged = 0;

	(void)state;
	/* Each of RATELIM_SLOTS ports gets its burst... */
	for (who = 1; who <= RATELIM_SLOTS; who++)
		logged += ratelim_event(&r, who, 1, S, &sum, &have);
	assert_int_equal(logged, RATELIM_SLOTS);
	/* ...ports beyond the table share one limit: a flood from many
	 * ports is bounded too. */
	logged = 0;
	for (who = 1000; who < 2000; who++)
		logged += ratelim_event(&r, who, 2, S, &sum, &have);
	assert_int_equal(logged, 3);
	nsum = 0;
	ratelim_expire(&r, 11 * S, got, NULL);
	assert_int_equal(nsum, 1);
	assert_true(last.who == RATELIM_OTHERS);
	assert_int_equal(last.suppressed, 997);
	/* Slots whose interval ended are reused. */
	assert_true(ratelim_event(&r, 5000, 1, 12 * S, &sum, &have));
}

static void test_reuse_of_ended_slot_summarises(void **state)
{
	struct ratelim_summary sum;
	uint64_t who;
	int have, i;

	(void)state;
	for (who = 1; who <= RATELIM_SLOTS; who++)
		for (i = 0; i < 4; i++)
			ratelim_event(&r, who, 1, S, &sum, &have);
	/* Table full; after the interval a newcomer takes a slot and its
	 * previous holder's summary comes out. */
	assert_true(ratelim_event(&r, 777, 1, 12 * S, &sum, &have));
	assert_true(have);
	assert_int_equal(sum.suppressed, 1);
}

TEST_MAIN(
	cmocka_unit_test_setup(test_burst_then_counted, setup),
	cmocka_unit_test_setup(test_expire_summarises_once, setup),
	cmocka_unit_test_setup(test_many_requesters_share_a_slot, setup),
	cmocka_unit_test_setup(test_reuse_of_ended_slot_summarises, setup))
