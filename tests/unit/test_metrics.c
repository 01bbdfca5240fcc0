/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* osmats.prom: the families and labels the documentation promises, the
 * replication figures only where they exist, and the file's path. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "plugin/metrics.h"
#include "fixture.h"

static char *render(const struct state_file_repl *repl)
{
	struct state_file_info info = { "master", "OpenSM 5.\"x\"", 1700000000 };
	struct state_file_summary sum;
	struct state_file_counters cnt;
	struct state_file_index idx;
	const struct metrics_src src = { &info, &sum, &cnt, &idx, repl };
	char *buf = NULL, *out;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct prom p;

	memset(&sum, 0, sizeof(sum));
	memset(&cnt, 0, sizeof(cnt));
	memset(&idx, 0, sizeof(idx));
	sum.ats = 5;
	sum.other = 2;
	sum.absent = 1;
	sum.npkeys = 1;
	sum.pkeys[0].pkey = 0xffff;
	sum.pkeys[0].n = 5;
	cnt.accepted = 9;
	cnt.rejected[1] = 3;
	idx.gets_indexed = 4;
	idx.gets_fallback = 1;
	idx.set_ns = 1500000000;
	assert_non_null(f);
	prom_init(&p, f);
	metrics_fill(&p, &src);
	assert_int_equal(prom_fini(&p), 0);
	fclose(f);
	/* A copy: gcc takes the stream's buffer for a dangling local. */
	out = strdup(buf);
	free(buf);
	assert_non_null(out);
	return out;
}

static void has(const char *s, const char *line)
{
	if (!strstr(s, line))
		fail_msg("missing: %s", line);
}

static void test_master(void **state)
{
	struct state_file_repl repl = { .role = "master", .head = 42, .lag_ms = 7, .nstandbys = 2,
				   .standbys = { { 0x0002c90300000003ull, 42, 0, 90, 1 },
						 { 0x0002c90300000004ull, 30, 12, 5000, 0 } } };
	char *s = render(&repl);

	(void)state;
	has(s, "# TYPE ibats_sm_records gauge\n");
	has(s, "\nibats_sm_info{opensm=\"OpenSM 5.\\\"x\\\"\",sm_state=\"master\",version=\"" IBATS_VERSION "\"} 1\n");
	has(s, "\nibats_sm_records{service=\"ats\"} 5\n");
	has(s, "\nibats_sm_ats_records{state=\"present\"} 4\n");
	has(s, "\nibats_sm_ats_records{state=\"absent\"} 1\n");
	has(s, "\nibats_sm_ats_records_by_pkey{pkey=\"0xffff\"} 5\n");
	has(s, "# TYPE ibats_sm_sets_refused_total counter\n");
	has(s, "\nibats_sm_sets_accepted_total 9\n");
	has(s, "\nibats_sm_gets_total{answer=\"fallback\"} 1\n");
	has(s, "\nibats_sm_set_seconds_total 1.5\n");
	has(s, "\nibats_sm_repl_role{role=\"master\"} 1\n");
	has(s, "\nibats_sm_repl_role{role=\"standby\"} 0\n");
	has(s, "\nibats_sm_repl_head_sequence 42\n");
	/* Its standbys, by port GUID. */
	has(s, "# TYPE ibats_sm_repl_standby_behind gauge\n");
	has(s, "\nibats_sm_repl_standby_behind{guid=\"0x0002c90300000003\"} 0\n");
	has(s, "\nibats_sm_repl_standby_behind{guid=\"0x0002c90300000004\"} 12\n");
	has(s, "\nibats_sm_repl_standby_in_sync{guid=\"0x0002c90300000003\"} 1\n");
	has(s, "\nibats_sm_repl_standby_in_sync{guid=\"0x0002c90300000004\"} 0\n");
	/* A master has no lag to show. */
	assert_null(strstr(s, "lag"));
	free(s);
}

static void test_standby(void **state)
{
	struct state_file_repl repl = { .role = "standby", .applied = 40, .in_sync = 1, .lag_ms = 250 };
	char *s = render(&repl);

	(void)state;
	has(s, "\nibats_sm_repl_lag_seconds 0.25\n");
	has(s, "\nibats_sm_repl_in_sync 1\n");
	has(s, "\nibats_sm_repl_applied_sequence 40\n");
	assert_null(strstr(s, "head_sequence"));
	assert_null(strstr(s, "standby_behind"));
	free(s);
}

static void test_path(void **state)
{
	char buf[32];

	(void)state;
	assert_int_equal(metrics_path(buf, sizeof(buf), "/var/lib/osmats.json"), 0);
	assert_string_equal(buf, "/var/lib/osmats.prom");
	assert_int_equal(metrics_path(buf, sizeof(buf), "state"), 0);
	assert_string_equal(buf, "osmats.prom");
	assert_int_equal(metrics_path(buf, 12, "/a/b"), -ENAMETOOLONG);
}

TEST_MAIN(
	cmocka_unit_test(test_master),
	cmocka_unit_test(test_standby),
	cmocka_unit_test(test_path))
