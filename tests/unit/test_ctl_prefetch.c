/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* ctl_prefetch.c: when a read of the ATS table fills the lookup cache.
 * The SA thread and the cache are this test's (sa_thread_submit and
 * the ctl_lookup calls defined below): a read is a job handed back by
 * hand, and a fill is counted. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/mono.h"
#include "ctl/ctl_lookup.h"
#include "ctl/ctl_prefetch.h"
#include "sa/saj.h"
#include "fixture.h"

static struct saj *submitted;
static unsigned fills;
static uint64_t clears;

void sa_thread_submit(struct sa_thread *t, struct saj *job)
{
	(void)t;
	submitted = job;
}

int ctl_lookup_prefill(const struct ats_ip *ip, uint16_t pkey, const struct sr_record *recs,
		       size_t n)
{
	(void)ip;
	(void)pkey;
	(void)recs;
	(void)n;
	fills++;
	return 0;
}

void ctl_lookup_cache_clear(void)
{
	clears++;
}

uint64_t ctl_lookup_clears(void)
{
	return clears;
}

/* The read submitted at now, answered with n records, 10.0.0.1 on. */
static struct saj *read_table_at(int64_t now, size_t n)
{
	struct sr_record *r = calloc(n, sizeof(*r));
	struct ats_ip ip;
	struct saj *j;
	char addr[32];
	size_t i;

	assert_non_null(r);
	submitted = NULL;
	assert_int_equal(ctl_prefetch_timers(now), INT64_MAX);
	j = submitted;
	assert_non_null(j);
	assert_int_equal(j->kind, SAJ_TABLE);
	for (i = 0; i < n; i++) {
		r[i].id = ATS_SID_PRIMARY + i;
		r[i].pkey = ATS_PKEY_DEFAULT;
		r[i].gid[0] = 0xfe;
		r[i].gid[15] = 1;
		ats_name_put(r[i].name);
		snprintf(addr, sizeof(addr), "10.0.0.%zu", i + 1);
		assert_int_equal(ats_ip_parse(addr, &ip), 0);
		ats_ip_encode(&ip, r[i].data8);
	}
	j->u.lookup.recs = r;
	j->u.lookup.nrecs = n;
	return j;
}

static struct saj *read_table(void)
{
	return read_table_at(INT64_MAX - 1, 1);
}

static void hand_back(struct saj *j)
{
	j->done(j, j->ctx);
	saj_free(j);
}

/* A table read before the cache was cleared (a new SM, our records
 * changed) holds what the clear threw away: it is read again at once,
 * not cached; one read after it is. */
static void test_clear_mid_read(void **state)
{
	static struct agent_conf conf = { .prefetch_max = 100, .cache_ttl = 60 };
	struct saj *j;

	(void)state;
	ctl_prefetch_init(NULL, &conf);
	ctl_prefetch_start();
	j = read_table();
	/* atsd.c recheck(): the cache first, then the prefetch. */
	ctl_lookup_cache_clear();
	ctl_prefetch_sm_changed();
	hand_back(j);
	assert_int_equal(fills, 0);
	j = read_table();
	ctl_lookup_cache_clear(); /* own records changed: the SM did not */
	hand_back(j);
	assert_int_equal(fills, 0);
	j = read_table();
	hand_back(j);
	assert_int_equal(fills, 1);
}

/* One host can grow the table past prefetch_max (its own GID's
 * records): the read-ahead is off only until the next read, after
 * cache_ttl, then 2x and 4x cache_ttl while it stays too large, and
 * fills the cache again once the table is small (issue 35, 4). */
static void test_too_large_backs_off(void **state)
{
	static struct agent_conf conf = { .prefetch_max = 2, .cache_ttl = 10 };
	const int64_t ttl = 10000;
	unsigned before;
	int64_t t, k;

	(void)state;
	ctl_prefetch_init(NULL, &conf);
	ctl_prefetch_sm_changed();
	ctl_prefetch_start();
	hand_back(read_table());
	before = fills;
	for (k = 1; k <= 4; k++) {
		int64_t wait = ttl * (k == 1 ? 1 : k == 2 ? 2 : 4);

		hand_back(read_table_at(INT64_MAX - 1, 3));
		assert_int_equal(fills, before);
		/* read again when its time comes, not before */
		t = mono_ms();
		submitted = NULL;
		assert_in_range(ctl_prefetch_timers(t), t + wait - 1000, t + wait + 1000);
		assert_null(submitted);
	}
	/* the host deleted its records: the next read fills the cache */
	hand_back(read_table_at(INT64_MAX - 1, 2));
	assert_int_equal(fills, before + 2);
}

TEST_MAIN(
	cmocka_unit_test(test_clear_mid_read),
	cmocka_unit_test(test_too_large_backs_off))
