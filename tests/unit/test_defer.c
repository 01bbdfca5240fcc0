/* The answers held for the standbys (plugin/defer.c): released oldest
 * first up to the committed change and no further, forgotten unsent when
 * this SM is no master, bounded. glue's two request functions are
 * stubbed: a "request" is told apart by its first byte. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "defer.h"

static uint8_t sent[DEFER_MAX + 16];
static size_t nsent;

void glue_req_save(const osm_madw_t *madw, struct glue_req *out)
{
	memset(out, 0, sizeof(*out));
	out->size = 1;
	out->mad[0] = ((const uint8_t *)madw->p_mad)[0];
}

void glue_req_respond_one(const struct glue_req *req, const ib_service_record_t *rec)
{
	assert_int_equal(rec->service_lease, req->mad[0]);
	sent[nsent++] = req->mad[0];
}

int glue_sa_respond_one(osm_madw_t *madw, const ib_service_record_t *rec)
{
	assert_int_equal(rec->service_lease, ((const uint8_t *)madw->p_mad)[0]);
	sent[nsent++] = ((const uint8_t *)madw->p_mad)[0];
	return 0;
}

static int add(uint64_t seq, uint8_t tag)
{
	static uint8_t mad[MAD_BLOCK_SIZE];
	ib_service_record_t rec;
	osm_madw_t madw;

	memset(&madw, 0, sizeof(madw));
	memset(&rec, 0, sizeof(rec));
	mad[0] = tag;
	madw.p_mad = (const ib_mad_t *)mad;
	rec.service_lease = tag;
	return defer_add(seq, &madw, &rec);
}

static int setup(void **state)
{
	(void)state;
	defer_init();
	nsent = 0;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	defer_fini();
	return 0;
}

static void test_release_in_order(void **state)
{
	uint64_t oldest;
	uint8_t t;

	(void)state;
	for (t = 1; t <= 5; t++)
		assert_int_equal(add(10 + t, t), 0);
	assert_int_equal(defer_count(&oldest), 5);
	assert_int_equal(oldest, 11);
	/* Nothing committed yet: nothing leaves (this once sent them all). */
	assert_int_equal(defer_release(10, 1), 0);
	assert_int_equal(defer_release(0, 1), 0);
	assert_int_equal(nsent, 0);
	assert_int_equal(defer_count(&oldest), 5);
	assert_int_equal(defer_release(12, 1), 2);
	assert_int_equal(nsent, 2);
	assert_int_equal(sent[0], 1);
	assert_int_equal(sent[1], 2);
	assert_int_equal(defer_count(&oldest), 3);
	assert_int_equal(oldest, 13);
	/* Added after a release, behind the rest. */
	assert_int_equal(add(16, 6), 0);
	assert_int_equal(defer_release(100, 1), 4);
	assert_int_equal(nsent, 6);
	for (t = 0; t < 6; t++)
		assert_int_equal(sent[t], t + 1);
	assert_int_equal(defer_count(&oldest), 0);
	assert_int_equal(oldest, 0);
	assert_int_equal(defer_release(100, 1), 0);
}

static void test_forgotten_unsent(void **state)
{
	uint64_t oldest;

	(void)state;
	assert_int_equal(add(1, 1), 0);
	assert_int_equal(add(2, 2), 0);
	assert_int_equal(defer_release(UINT64_MAX, 0), 2);
	assert_int_equal(nsent, 0);
	assert_int_equal(defer_count(&oldest), 0);
	assert_int_equal(add(3, 3), 0);
	assert_int_equal(defer_release(3, 1), 1);
	assert_int_equal(nsent, 1);
	/* Left for fini. */
	assert_int_equal(add(4, 4), 0);
}

static void test_bounded(void **state)
{
	uint64_t oldest, s;

	(void)state;
	for (s = 1; s <= DEFER_MAX; s++)
		assert_int_equal(add(s, (uint8_t)s), 0);
	assert_int_equal(add(s, 0), -ENOSPC);
	assert_int_equal(defer_count(&oldest), DEFER_MAX);
	assert_int_equal(defer_release(1, 1), 1);
	assert_int_equal(add(s, (uint8_t)s), 0);
	assert_int_equal(defer_release(UINT64_MAX, 1), DEFER_MAX);
	assert_int_equal(nsent, DEFER_MAX + 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_release_in_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_forgotten_unsent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bounded, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
