/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The node name map parser (node_map.c): infiniband-diags' format, and a
 * file:line error for every line that is not in it. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "host/node_map.h"
#include "tmpconf.h"
#include "fixture.h"

static char path[64];

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

/* Load text; the error message in err. */
static int load(const char *text, struct node_map **m, char *err, size_t len)
{
	tmpconf_write(path, sizeof(path), "ibats-nodemap", text);
	return node_map_load(path, m, err, len);
}

static void test_format(void **state)
{
	struct node_map *m;
	char err[256];

	(void)state;
	assert_int_equal(load("# ibnetdiscover.map\n"
			      "\n"
			      "0x0002c90300a1b2c0 \"r4-node07 mlx5_0\"\n"
			      "   0x10\t\"switch # one\"   # a comment after it\n"
			      "0x0000000000000020 \"x\"\r\n"
			      "0x0000000000100002 cn-0001\n"
			      "0x0000000000100003   cn-0002  \t \n"
			      "\t\n"
			      "0x40\tr4 spine 2   # bare, to the comment\n"
			      "80 \"decimal\" text after the quote\n"
			      "0x30 \"last, no newline\"",
			      &m, err, sizeof(err)), 0);
	assert_int_equal(node_map_count(m), 8);
	/* infiniband-diags' own form: bare names, decimal GUIDs */
	assert_string_equal(node_map_name(m, 0x100002), "cn-0001");
	assert_string_equal(node_map_name(m, 0x100003), "cn-0002"); /* trailing blanks */
	assert_string_equal(node_map_name(m, 0x40), "r4 spine 2");
	assert_string_equal(node_map_name(m, 80), "decimal");
	assert_string_equal(node_map_name(m, 0x0002c90300a1b2c0ull), "r4-node07 mlx5_0");
	assert_string_equal(node_map_name(m, 0x10), "switch # one");
	assert_string_equal(node_map_name(m, 0x20), "x");
	assert_string_equal(node_map_name(m, 0x30), "last, no newline");
	assert_null(node_map_name(m, 0x11));
	node_map_free(m);
	assert_null(node_map_name(NULL, 0x10));
}

static void test_errors(void **state)
{
	static const struct {
		const char *text, *why;
	} bad[] = {
		{ "0x10 \"a\"\nname \"x\"\n", ":2: not a GUID" },
		{ "18446744073709551616 \"a\"\n", ":1: not a GUID" },
		{ "0xg0 \"a\"\n", ":1: not a GUID" },
		{ "0x10000000000000000 \"a\"\n", ":1: not a GUID" },
		{ "0x10\n", ":1: the name must be 1..64 bytes" },
		{ "0x10   # no name\n", ":1: the name must be 1..64 bytes" },
		{ "0x10 \"open\n", ":1: the name's closing quote is missing" },
		{ "0x10 \"\"\n", ":1: the name must be 1..64 bytes" },
		{ "# map\n\n0x100002 cn-0001\ncn-0002 0x100003\n", ":4: not a GUID" },
		{ "0x10 \"a\"\n#\n0x10 \"b\"\n", ":3: GUID 0x0000000000000010 is named on line 1 already" },
	};
	struct node_map *m;
	char err[256], want[128];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(load(bad[i].text, &m, err, sizeof(err)), -EINVAL);
		assert_null(m);
		snprintf(want, sizeof(want), "%s%s", path, bad[i].why);
		assert_memory_equal(err, want, strlen(want));
	}
}

static void test_limits(void **state)
{
	char text[400], err[256], want[128];
	struct node_map *m;

	(void)state;
	/* 64 bytes is a NodeDescription's size: the longest name. */
	snprintf(text, sizeof(text), "0x1 \"%064d\"\n", 0);
	assert_int_equal(load(text, &m, err, sizeof(err)), 0);
	assert_int_equal(strlen(node_map_name(m, 1)), 64);
	node_map_free(m);
	snprintf(text, sizeof(text), "0x1 \"%065d\"\n", 0);
	assert_int_equal(load(text, &m, err, sizeof(err)), -EINVAL);
	snprintf(text, sizeof(text), "# %300d\n", 0);
	assert_int_equal(load(text, &m, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s:1: line longer than 256 bytes", path);
	assert_string_equal(err, want);
	/* A NUL byte is named as such, not as a long line. */
	{
		static const char nul[] = "0x1 \"a\"\n0x2 \"b\0c\"\n";
		FILE *f = fopen(path, "w");

		assert_non_null(f);
		assert_int_equal(fwrite(nul, 1, sizeof(nul) - 1, f), sizeof(nul) - 1);
		assert_int_equal(fclose(f), 0);
		assert_int_equal(node_map_load(path, &m, err, sizeof(err)), -EINVAL);
		snprintf(want, sizeof(want), "%s:2: a NUL byte", path);
		assert_string_equal(err, want);
	}
	assert_int_equal(node_map_load("/nonexistent/map", &m, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "/nonexistent/map: No such file or directory");
}

/* A map path that is no regular file: an error at once, whatever it is
 * (a FIFO no one writes to must not hang atsctl). */
static void test_not_a_file(void **state)
{
	struct node_map *m;
	char dir[] = "/tmp/ibats-nodemap-XXXXXX", fifo[64], err[256], want[128];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	alarm(10); /* a hang fails the test */
	assert_int_equal(node_map_load(fifo, &m, err, sizeof(err)), -EINVAL);
	alarm(0);
	snprintf(want, sizeof(want), "%s: not a regular file", fifo);
	assert_string_equal(err, want);
	assert_int_equal(node_map_load(dir, &m, err, sizeof(err)), -EISDIR);
	snprintf(want, sizeof(want), "%s: Is a directory", dir);
	assert_string_equal(err, want);
	unlink(fifo);
	rmdir(dir);
}

TEST_MAIN(
	cmocka_unit_test_teardown(test_format, teardown),
	cmocka_unit_test_teardown(test_errors, teardown),
	cmocka_unit_test_teardown(test_limits, teardown),
	cmocka_unit_test(test_not_a_file))
