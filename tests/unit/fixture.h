/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* What every cmocka test program here repeats, said once: the
 * registration of a case that runs on a fresh fixture (the including
 * file's static setup() before it, teardown() after), and main()
 * running the cases given, in order, with no group fixture. */
#ifndef IBATS_TEST_FIXTURE_H
#define IBATS_TEST_FIXTURE_H

#define FIXTURE_TEST(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

#define TEST_MAIN(...)                                                  \
	int main(void)                                                  \
	{                                                               \
		const struct CMUnitTest tests[] = { __VA_ARGS__ };      \
		return cmocka_run_group_tests(tests, NULL, NULL);       \
	}

#endif
