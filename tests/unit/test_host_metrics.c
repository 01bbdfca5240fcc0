/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* atsd's metrics: every stats field has a family (a field added without
 * one fails here), counters end in _total, and addresses by state. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "main/host_metrics.h"
#include "fixture.h"

static void test_fill(void **state)
{
	static const char *const names[] = { "registered", "refused" };
	static const uint64_t by_state[] = { 2, 1 };
	struct host_metrics m = { .ca = "mlx5_0", .port = 2, .state_names = names,
				  .by_state = by_state, .nstates = 2 };
	char *buf = NULL, *s;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);
	struct prom p;

	(void)state;
	for (i = 0; i < ATSD_PROTO_STATS; i++)
		m.stats[i] = i + 100;
	assert_non_null(f);
	prom_init(&p, f);
	host_metrics_fill(&p, &m);
	assert_int_equal(prom_fini(&p), 0);
	fclose(f);
	/* A copy: gcc takes the stream's buffer for a dangling local. */
	s = strdup(buf);
	free(buf);
	assert_non_null(s);
	/* Every series names its port: one atsd per port (atsd@), each with
	 * its file in the collector's one directory, would otherwise write
	 * the same series, which node_exporter refuses. */
	assert_non_null(strstr(s, "# TYPE ibats_host_cache_hits_total counter\n"
				  "ibats_host_cache_hits_total{ca=\"mlx5_0\",port=\"2\"} 100\n"));
	assert_non_null(strstr(s, "# TYPE ibats_host_records gauge\n"
				  "ibats_host_records{ca=\"mlx5_0\",port=\"2\"} 111\n"));
	assert_non_null(strstr(s, "\nibats_host_sync_failures_total{ca=\"mlx5_0\",port=\"2\"} 107\n"));
	assert_non_null(strstr(s, "\nibats_host_local_answers_total{ca=\"mlx5_0\",port=\"2\"} 123\n"));
	assert_non_null(strstr(s, "\nibats_host_addresses{ca=\"mlx5_0\",port=\"2\",state=\"registered\"} 2\n"
				  "ibats_host_addresses{ca=\"mlx5_0\",port=\"2\",state=\"refused\"} 1\n"));
	assert_non_null(strstr(s, "# TYPE ibats_host_info gauge\n"
				  "ibats_host_info{ca=\"mlx5_0\",port=\"2\",version=\"" IBATS_VERSION "\"} 1\n"));
	free(s);
}

TEST_MAIN(
	cmocka_unit_test(test_fill))
