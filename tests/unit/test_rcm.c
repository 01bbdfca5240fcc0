/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* atsd's connections by IP (rcm.h): the listener's decision on a
 * request's Annex A11 source IP. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "sa/rcm.h"

static void test_judge(void **state)
{
	struct rcm_conf c;
	struct ats_ip src, prim, other;
	char why[200];

	(void)state;
	memset(&c, 0, sizeof(c));
	ats_ip_parse("10.0.0.1", &src);
	ats_ip_parse("10.0.0.1", &prim);
	ats_ip_parse("10.0.0.9", &other);
	c.policy = RCM_ACCEPT_ANY;
	assert_int_equal(rcm_judge(&c, &src, NULL, why, sizeof(why)), 0);
	c.policy = RCM_ACCEPT_AGREE;
	assert_int_equal(rcm_judge(&c, &src, &prim, why, sizeof(why)), 0);
	assert_int_equal(rcm_judge(&c, &src, &other, why, sizeof(why)), -EACCES);
	assert_string_equal(why, "ibats: spoofed source: IP 10.0.0.1 is not the requester's ATS primary 10.0.0.9");
	assert_int_equal(rcm_judge(&c, &src, NULL, why, sizeof(why)), -EACCES);
	assert_string_equal(why, "ibats: the requester's GID has no ATS primary IP");
	c.policy = RCM_ACCEPT_LIST;
	assert_int_equal(rcm_judge(&c, &src, &prim, why, sizeof(why)), -EACCES);
	c.accept[c.naccept++] = src;
	assert_int_equal(rcm_judge(&c, &src, NULL, why, sizeof(why)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_judge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
