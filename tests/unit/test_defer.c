/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The answers held for the standbys (plugin/defer.c): released oldest
 * first up to the committed change and no further, forgotten unsent when
 * this SM is no master or they belong to an earlier epoch, bounded by
 * places taken before the change. glue's request functions are stubbed:
 * a "request" is told apart by its tag. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "core/sr.h"
#include "plugin/defer.h"
#include "fixture.h"

static uint8_t sent[DEFER_MAX + 16];
static size_t nsent;

/* glue's opaque request and kept request, here a tag: the answer's
 * first byte must be its request's. */
struct glue_sa_req {
	uint8_t tag;
};

struct glue_req {
	uint8_t tag;
};

size_t glue_req_size(void)
{
	return sizeof(struct glue_req);
}

void glue_req_save(const struct glue_sa_req *req, struct glue_req *out)
{
	out->tag = req->tag;
}

void glue_req_respond_one(const struct glue_req *req, const uint8_t *rec)
{
	assert_int_equal(rec[0], req->tag);
	sent[nsent++] = req->tag;
}

int glue_sa_respond_one(struct glue_sa_req *req, const uint8_t *rec)
{
	assert_int_equal(rec[0], req->tag);
	sent[nsent++] = req->tag;
	return 0;
}

#define E1 0x1111
#define E2 0x2222

static int add_from(uint16_t lid, uint64_t epoch, uint64_t seq, uint8_t tag)
{
	struct glue_sa_req req = { .tag = tag };
	uint8_t rec[SR_SIZE] = { tag };
	struct defer_slot *slot;
	int ret;

	ret = defer_reserve(lid, &slot);
	if (!ret)
		defer_hold(slot, epoch, seq, &req, rec);
	return ret;
}

/* From ports 1..64 in turn: none reaches its own share. */
static int add_in(uint64_t epoch, uint64_t seq, uint8_t tag)
{
	return add_from((uint16_t)(1 + seq % 64), epoch, seq, tag);
}

static int add(uint64_t seq, uint8_t tag)
{
	return add_in(E1, seq, tag);
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
	assert_int_equal(defer_release(E1, 10, 1), 0);
	assert_int_equal(defer_release(E1, 0, 1), 0);
	assert_int_equal(nsent, 0);
	assert_int_equal(defer_count(&oldest), 5);
	assert_int_equal(defer_release(E1, 12, 1), 2);
	assert_int_equal(nsent, 2);
	assert_int_equal(sent[0], 1);
	assert_int_equal(sent[1], 2);
	assert_int_equal(defer_count(&oldest), 3);
	assert_int_equal(oldest, 13);
	/* Added after a release, behind the rest. */
	assert_int_equal(add(16, 6), 0);
	assert_int_equal(defer_release(E1, 100, 1), 4);
	assert_int_equal(nsent, 6);
	for (t = 0; t < 6; t++)
		assert_int_equal(sent[t], t + 1);
	assert_int_equal(defer_count(&oldest), 0);
	assert_int_equal(oldest, 0);
	assert_int_equal(defer_release(E1, 100, 1), 0);
}

static void test_forgotten_unsent(void **state)
{
	uint64_t oldest;

	(void)state;
	assert_int_equal(add(1, 1), 0);
	assert_int_equal(add(2, 2), 0);
	assert_int_equal(defer_release(0, UINT64_MAX, 0), 2);
	assert_int_equal(nsent, 0);
	assert_int_equal(defer_count(&oldest), 0);
	assert_int_equal(add(3, 3), 0);
	assert_int_equal(defer_release(E1, 3, 1), 1);
	assert_int_equal(nsent, 1);
	/* Left for fini. */
	assert_int_equal(add(4, 4), 0);
}

/* Places are taken before a change is made: held and reserved ones
 * count, a cancelled one comes back, none is ever short. */
static void test_bounded(void **state)
{
	struct defer_slot *a, *b;
	uint64_t oldest, s;

	(void)state;
	assert_int_equal(defer_reserve(100, &a), 0);
	for (s = 1; s < DEFER_MAX; s++)
		assert_int_equal(add(s, (uint8_t)s), 0);
	assert_int_equal(defer_reserve(100, &b), -ENOSPC);
	assert_int_equal(add(s, 0), -ENOSPC);
	assert_int_equal(defer_count(&oldest), DEFER_MAX - 1);
	defer_cancel(a);
	defer_cancel(NULL);
	assert_int_equal(add(s, (uint8_t)s), 0);
	assert_int_equal(add(s + 1, 0), -ENOSPC);
	assert_int_equal(defer_release(E1, 1, 1), 1);
	assert_int_equal(add(s + 1, (uint8_t)(s + 1)), 0);
	assert_int_equal(defer_release(E1, UINT64_MAX, 1), DEFER_MAX);
	assert_int_equal(nsent, DEFER_MAX + 1);
}

/* One port's flood takes its share and is refused alone: others are
 * held; its places come back as its answers leave or are cancelled. */
static void test_per_port_share(void **state)
{
	struct defer_slot *a;
	uint64_t s;

	(void)state;
	for (s = 1; s <= DEFER_PER_PORT; s++)
		assert_int_equal(add_from(7, E1, s, 1), 0);
	assert_int_equal(add_from(7, E1, s, 1), -EDQUOT);
	assert_int_equal(defer_reserve(7, &a), -EDQUOT);
	/* everyone else is still held */
	assert_int_equal(add_from(8, E1, s, 2), 0);
	assert_int_equal(defer_reserve(9, &a), 0);
	defer_cancel(a);
	/* two of port 7's answers leave: two places come back to it */
	assert_int_equal(defer_release(E1, 2, 1), 2);
	assert_int_equal(add_from(7, E1, s + 1, 1), 0);
	assert_int_equal(add_from(7, E1, s + 2, 1), 0);
	assert_int_equal(add_from(7, E1, s + 3, 1), -EDQUOT);
	/* an out-of-range LID is one requester, never past the array */
	assert_int_equal(add_from(0xffff, E1, s + 4, 3), 0);
}

/* A change of an earlier epoch (held by a Set that raced the new epoch)
 * never blocks the queue, and is never sent. */
static void test_epochs(void **state)
{
	uint64_t oldest;

	(void)state;
	assert_int_equal(add_in(E1, 5000, 1), 0);
	assert_int_equal(add_in(E2, 1, 2), 0);
	assert_int_equal(add_in(E2, 2, 3), 0);
	assert_int_equal(defer_release(E2, 1, 1), 2);
	assert_int_equal(nsent, 1);
	assert_int_equal(sent[0], 2);
	assert_int_equal(defer_count(&oldest), 1);
	assert_int_equal(oldest, 2);
	assert_int_equal(defer_release(E2, 2, 1), 1);
	assert_int_equal(nsent, 2);
	assert_int_equal(sent[1], 3);
}

TEST_MAIN(
	FIXTURE_TEST(test_release_in_order),
	FIXTURE_TEST(test_forgotten_unsent),
	FIXTURE_TEST(test_bounded),
	FIXTURE_TEST(test_per_port_share),
	FIXTURE_TEST(test_epochs))
