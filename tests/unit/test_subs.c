/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* atsd's report subscriptions, main-thread half (subs.c): what a Report
 * does to the cache hooks, repeats and refusals, the subscribe jobs it
 * submits and their outcomes. The SA thread is a stub that keeps the
 * submitted job. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "core/log.h"
#include "state/subs.h"
#include "fixture.h"

static struct saj *submitted;
static size_t nsubmitted, gone_calls, back_calls, lapsed_calls;
static uint8_t last_gid[16];

void sa_thread_submit(struct sa_thread *t, struct saj *job)
{
	(void)t;
	saj_free(submitted);
	submitted = job;
	nsubmitted++;
}

static size_t on_gone(const uint8_t gid[16])
{
	memcpy(last_gid, gid, 16);
	gone_calls++;
	return 2;
}

static size_t on_back(const uint8_t gid[16])
{
	memcpy(last_gid, gid, 16);
	back_calls++;
	return 1;
}

static void on_lapsed(void)
{
	lapsed_calls++;
}

static const struct subs_hooks hooks = { on_gone, on_back, on_lapsed };
static int64_t now_ms;
static const uint8_t gid_a[16] = { 0xfe, 0x80, [15] = 0xa };
static const uint8_t sm_gid[16] = { 0xfe, 0x80, [15] = 1 };

static int setup(void **state)
{
	(void)state;
	submitted = NULL;
	nsubmitted = gone_calls = back_calls = lapsed_calls = 0;
	now_ms = 1000;
	log_init("test_subs", LOG_LVL_ERR);
	subs_init(&hooks);
	subs_start((struct sa_thread *)&hooks); /* any non-NULL thread */
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	saj_free(submitted);
	submitted = NULL;
	return 0;
}

/* The stub thread finishes the submitted job with err. */
static void complete(int err)
{
	struct saj *j = submitted;

	assert_non_null(j);
	submitted = NULL;
	j->err = err;
	j->u.inform.sa_lid = 1;
	j->done(j, j->ctx);
	saj_free(j);
}

static void report_from(uint64_t tid, uint16_t trap, int refused, int forwarded)
{
	struct saj *j = saj_new(SAJ_REPORT, subs_report, NULL);

	assert_non_null(j);
	j->u.report.tid = tid;
	j->u.report.rx_ms = now_ms;
	j->u.report.slid = 1;
	j->u.report.refused = refused;
	j->u.report.forwarded = forwarded;
	notice_gid_trap(&j->u.report.notice, trap, 1, sm_gid, gid_a);
	subs_report(j, NULL);
	saj_free(j);
}

static void report(uint64_t tid, uint16_t trap, int refused)
{
	report_from(tid, trap, refused, 0);
}

static void test_subscribe_outcomes(void **state)
{
	struct subs_stats st;

	(void)state;
	subs_request("test");
	assert_int_equal(nsubmitted, 1);
	assert_int_equal(submitted->kind, SAJ_INFORM);
	assert_int_equal(submitted->u.inform.subscribe, 1);
	/* One out at a time: a second request waits for the first. */
	subs_request("again");
	assert_int_equal(nsubmitted, 1);
	complete(-ETIMEDOUT);
	assert_int_equal(nsubmitted, 2);
	assert_false(subs_active());
	complete(0);
	assert_true(subs_active());
	/* Subscribed after a failure: the cache may have missed reports. */
	assert_int_equal(lapsed_calls, 1);
	subs_request("refresh");
	complete(0);
	assert_int_equal(lapsed_calls, 1);
	subs_stats(&st);
	assert_int_equal(st.subscriptions, 2);
	assert_int_equal(st.failures, 1);
	assert_int_equal(st.active, 1);
	/* Exit: an unsubscribe, and no subscribe after it. */
	subs_shutdown();
	assert_int_equal(submitted->u.inform.subscribe, 0);
	subs_request("too late");
	assert_int_equal(nsubmitted, 4);
	complete(0);
	assert_false(subs_active());
}

static void test_reports(void **state)
{
	struct subs_stats st;

	(void)state;
	report(0x1000, 65, 0);
	assert_int_equal(gone_calls, 1);
	assert_memory_equal(last_gid, gid_a, 16);
	/* The SA resends a Report whose ReportResp it missed: same TID. */
	report(0x1000, 65, 0);
	assert_int_equal(gone_calls, 1);
	report(0x1001, 64, 0);
	assert_int_equal(back_calls, 1);
	/* A new TID is a new event, even for the same GID. */
	report(0x1002, 65, 0);
	assert_int_equal(gone_calls, 2);
	/* Refused (not from our SA): never acted on. */
	report(0x1003, 65, 1);
	assert_int_equal(gone_calls, 2);
	/* From our SA, but a trap an endport sent the SM (forwarded): not
	 * acted on, and not remembered as seen either. */
	report_from(0x1005, 65, 0, 1);
	report_from(0x1006, 64, 0, 1);
	assert_int_equal(gone_calls, 2);
	assert_int_equal(back_calls, 1);
	/* Other traps are counted, not acted on. */
	report(0x1004, 66, 0);
	subs_stats(&st);
	assert_int_equal(st.reports, 4);
	assert_int_equal(st.duplicates, 1);
	assert_int_equal(st.refused, 3);
	assert_int_equal(st.invalidations, 2 + 1 + 2);
	assert_int_equal(back_calls, 1);
}

/* Repeats are remembered for the last reports only; an old TID counts
 * anew once forgotten, which costs a cache drop at most. */
static void test_seen_window(void **state)
{
	struct subs_stats st;
	uint64_t t;

	(void)state;
	for (t = 0; t < 100; t++)
		report(t, 65, 0);
	report(99, 65, 0);
	report(0, 65, 0);
	subs_stats(&st);
	assert_int_equal(st.duplicates, 1);
	assert_int_equal(st.reports, 101);
}

/* A repeat is one within the SA's retries; a restarted SA numbers its
 * Reports from the start again: the same TID later, or after a lapsed
 * subscription, is a new report. */
static void test_repeat_window(void **state)
{
	struct subs_stats st;

	(void)state;
	report(0x2dab001, 65, 0);
	now_ms += 3000;
	report(0x2dab001, 65, 0);
	now_ms += 20000;
	report(0x2dab001, 65, 0);
	subs_stats(&st);
	assert_int_equal(st.duplicates, 1);
	assert_int_equal(st.reports, 2);
	subs_request("start");
	complete(-ETIMEDOUT);
	subs_request("again");
	complete(0);
	report(0x2dab001, 65, 0);
	subs_stats(&st);
	assert_int_equal(st.duplicates, 1);
	assert_int_equal(st.reports, 3);
}

TEST_MAIN(
	FIXTURE_TEST(test_subscribe_outcomes),
	FIXTURE_TEST(test_reports),
	FIXTURE_TEST(test_seen_window),
	FIXTURE_TEST(test_repeat_window))
