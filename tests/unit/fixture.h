/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The registration of a case that runs on a fresh fixture: the including
 * file's static setup() before it and teardown() after, named once here
 * rather than on every line of its main's list. */
#ifndef IBATS_TEST_FIXTURE_H
#define IBATS_TEST_FIXTURE_H

#define FIXTURE_TEST(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

#endif
