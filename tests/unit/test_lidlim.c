/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The rate limit per requesting LID (plugin/lidlim.c) with a fake clock:
 * a port that asks rarely is answered whatever the others do (issue 35,
 * 5: with a table of 64 requesters, 64 busy ports and one flooder left a
 * lone port 0 answers of 60). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "plugin/lidlim.h"
#include "fixture.h"

#define S 1000000000ull

static struct lidlim L;

static void test_burst_per_interval(void **state)
{
	unsigned i, ok = 0;

	(void)state;
	lidlim_init(&L, 16, 10);
	for (i = 0; i < 100; i++)
		ok += lidlim_allow(&L, 7, 3 * S);
	assert_int_equal(ok, 16);
	assert_false(lidlim_allow(&L, 7, 12 * S));
	assert_true(lidlim_allow(&L, 7, 13 * S)); /* a new interval */
	assert_true(lidlim_allow(&L, 8, 3 * S));   /* another port */
	assert_false(lidlim_allow(&L, 0, 3 * S));  /* not a port's LID */
	assert_false(lidlim_allow(&L, 0xC000, 3 * S)); /* multicast */
	assert_true(lidlim_allow(&L, 0xBFFF, 3 * S));
}

/* 1,000 ports asking twice a second and one flooding for a minute: the
 * lone port asking once a second is answered every time, and no port
 * more than its burst per interval. */
static void test_lone_port_always_answered(void **state)
{
	unsigned t, p, k, lone = 0, flood = 0;

	(void)state;
	lidlim_init(&L, 16, 10);
	for (t = 0; t < 60; t++) {
		for (p = 100; p < 1100; p++)
			for (k = 0; k < 2; k++)
				(void)lidlim_allow(&L, (uint16_t)p, t * S + k * (S / 2));
		for (k = 0; k < 1000; k++)
			flood += lidlim_allow(&L, 5000, t * S + k * 1000);
		lone += lidlim_allow(&L, 9000, t * S + S / 3);
	}
	assert_int_equal(lone, 60);
	assert_int_equal(flood, 6 * 16);
}

TEST_MAIN(
	cmocka_unit_test(test_burst_per_interval),
	cmocka_unit_test(test_lone_port_always_answered))
