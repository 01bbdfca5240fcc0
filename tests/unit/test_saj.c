/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <cmocka.h>

#include "sa/saj.h"
#include "fixture.h"

/* A lookup job carries no sync, group or connection payload. */
static void test_sizes(void **state)
{
	(void)state;
	assert_true(saj_size(SAJ_LOOKUP) < 512);
	assert_true(saj_size(SAJ_PORT) < saj_size(SAJ_LOOKUP));
	assert_int_equal(saj_size(SAJ_CONNS), offsetof(struct saj, u) + sizeof(struct saj_cm));
	assert_true(saj_size(SAJ_IPOIB) <= sizeof(struct saj));
	assert_int_equal(saj_size(SAJ_REPORT), offsetof(struct saj, u) + sizeof(struct saj_report));
	/* The SA's state is the header's err alone. */
	assert_int_equal(saj_size(SAJ_SA_STATE), offsetof(struct saj, u));
}

static void job_done(struct saj *j, void *ctx)
{
	(void)j;
	(void)ctx;
}

/* saj_free releases what each kind owns (a leak shows under ASan). */
static void test_release(void **state)
{
	struct saj *j;
	int k, x;

	(void)state;
	for (k = 0; k < SAJ_KINDS; k++) {
		j = saj_new((enum saj_kind)k, job_done, &x);
		assert_non_null(j);
		assert_int_equal(j->kind, k);
		assert_ptr_equal(j->ctx, &x);
		if (k == SAJ_SYNC) {
			j->u.sync.want = malloc(8);
			j->u.sync.result = malloc(8);
		} else if (k == SAJ_LOOKUP) {
			j->u.lookup.recs = calloc(1, sizeof(struct sr_record));
		}
		saj_free(j);
	}
	saj_free(NULL);
}

TEST_MAIN(
	cmocka_unit_test(test_sizes),
	cmocka_unit_test(test_release))
