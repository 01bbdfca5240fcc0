/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* ctl_prefetch.c: when a read of the ATS table fills the lookup cache.
 * The SA thread and the cache are this test's (sa_thread_submit and
 * the ctl_lookup calls defined below): a read is a job handed back by
 * hand, and a fill is counted. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ctl/ctl_lookup.h"
#include "ctl/ctl_prefetch.h"
#include "sa/saj.h"

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

/* The read submitted now, answered with one record of 10.0.0.1. */
static struct saj *read_table(void)
{
	struct sr_record *r = calloc(1, sizeof(*r));
	struct ats_ip ip;
	struct saj *j;

	assert_non_null(r);
	submitted = NULL;
	assert_int_equal(ctl_prefetch_timers(INT64_MAX - 1), INT64_MAX);
	j = submitted;
	assert_non_null(j);
	assert_int_equal(j->kind, SAJ_TABLE);
	r->id = ATS_SID_PRIMARY;
	r->pkey = ATS_PKEY_DEFAULT;
	r->gid[0] = 0xfe;
	r->gid[15] = 1;
	ats_name_put(r->name);
	assert_int_equal(ats_ip_parse("10.0.0.1", &ip), 0);
	ats_ip_encode(&ip, r->data8);
	j->u.lookup.recs = r;
	j->u.lookup.nrecs = 1;
	return j;
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clear_mid_read),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
