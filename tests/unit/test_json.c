/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The JSON writer: escapes of every kind of hostile byte, commas and
 * nesting, and misuse reported rather than written. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/json.h"
#include "fixture.h"

static void check_escape(const void *in, size_t n, const char *want)
{
	char out[256];
	size_t len = json_escape(out, sizeof(out), in, n);

	assert_string_equal(out, want);
	assert_int_equal(len, strlen(want));
}

static void test_escape(void **state)
{
	(void)state;
	check_escape("plain", 5, "plain");
	check_escape("a\"b\\c", 5, "a\\\"b\\\\c");
	check_escape("\n\r\t\b\x01\x1f\x7f", 7, "\\n\\r\\t\\u0008\\u0001\\u001f\\u007f");
	/* NUL inside the bytes is data, not the end. */
	check_escape("a\0b", 3, "a\\u0000b");
	/* Well-formed UTF-8 passes unchanged: é, €, U+10348, U+10FFFF. */
	check_escape("\xc3\xa9\xe2\x82\xac\xf0\x90\x8d\x88\xf4\x8f\xbf\xbf", 13,
		     "\xc3\xa9\xe2\x82\xac\xf0\x90\x8d\x88\xf4\x8f\xbf\xbf");
	/* Lone continuation, overlong, surrogate, above U+10FFFF, cut. */
	check_escape("\x80", 1, "\\ufffd");
	check_escape("\xc0\xaf", 2, "\\ufffd\\ufffd");
	check_escape("\xe0\x80\xaf", 3, "\\ufffd\\ufffd\\ufffd");
	check_escape("\xed\xa0\x80", 3, "\\ufffd\\ufffd\\ufffd");
	check_escape("\xf4\x90\x80\x80", 4, "\\ufffd\\ufffd\\ufffd\\ufffd");
	check_escape("\xf5", 1, "\\ufffd");
	check_escape("x\xe2\x82", 3, "x\\ufffd\\ufffd");
	check_escape("\xff\xfe", 2, "\\ufffd\\ufffd");
}

static void test_escape_truncates(void **state)
{
	char out[6];

	(void)state;
	/* Like snprintf: the whole length back, the buffer cut and ended. */
	assert_int_equal(json_escape(out, sizeof(out), "\"\"\"\"", 4), 8);
	assert_string_equal(out, "\\\"\\\"\\");
}

static char *render(void (*fn)(struct json *), int pretty, int *ret)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json j;

	assert_non_null(f);
	json_init(&j, f, pretty);
	fn(&j);
	*ret = json_fini(&j);
	fclose(f);
	return buf;
}

/* fn's document written without an error, and exactly want. */
static void expect_render(void (*fn)(struct json *), int pretty, const char *want)
{
	int ret;
	char *s = render(fn, pretty, &ret);

	assert_int_equal(ret, 0);
	assert_string_equal(s, want);
	free(s);
}

static void doc(struct json *j)
{
	json_obj(j, NULL);
	json_str(j, "name", "q\"uote");
	json_strn(j, "raw", "a\0\xff", 3);
	json_arr(j, "list");
	json_u64(j, NULL, 18446744073709551615ull);
	json_i64(j, NULL, -5);
	json_bool(j, NULL, 1);
	json_null(j, NULL);
	json_dbl(j, NULL, 0.25);
	json_end(j);
	json_arr(j, "empty");
	json_end(j);
	json_hex64(j, "sid", 0x10000CE100415453ull);
	json_hex16(j, "pkey", 0xffff);
	json_fmt(j, "f\\k", "%d-%s", 7, "x\ty");
	json_end(j);
}

static void test_document(void **state)
{
	(void)state;
	expect_render(doc, 0,
		"{\"name\": \"q\\\"uote\", \"raw\": \"a\\u0000\\ufffd\", "
		"\"list\": [18446744073709551615, -5, true, null, 0.25], "
		"\"empty\": [], \"sid\": \"0x10000ce100415453\", "
		"\"pkey\": \"0xffff\", \"f\\\\k\": \"7-x\\ty\"}\n");
}

static void pretty_doc(struct json *j)
{
	json_obj(j, NULL);
	json_arr(j, "a");
	json_obj(j, NULL);
	json_u64(j, "x", 1);
	json_end(j);
	json_end(j);
	json_obj(j, "e");
	json_end(j);
	json_end(j);
}

static void test_pretty(void **state)
{
	(void)state;
	expect_render(pretty_doc, JSON_PRETTY_ALL,
		      "{\n  \"a\": [\n    {\n      \"x\": 1\n    }\n  ],\n  \"e\": {}\n}\n");
}

static void test_pretty_levels(void **state)
{
	(void)state;
	expect_render(pretty_doc, 1, "{\n  \"a\": [\n    {\"x\": 1}\n  ],\n  \"e\": {}\n}\n");
}

static void unclosed(struct json *j)
{
	json_obj(j, NULL);
	json_arr(j, "a");
}

static void overclosed(struct json *j)
{
	json_arr(j, NULL);
	json_end(j);
	json_end(j);
}

static void too_deep(struct json *j)
{
	int i;

	for (i = 0; i <= JSON_MAX_DEPTH; i++)
		json_arr(j, NULL);
	for (i = 0; i < JSON_MAX_DEPTH; i++)
		json_end(j);
}

static void nonfinite(struct json *j)
{
	json_arr(j, NULL);
	json_dbl(j, NULL, 1.0 / 0.0);
	json_end(j);
}

static void long_fmt(struct json *j)
{
	json_fmt(j, NULL, "%300s", "end");
}
/* 300 members: more than a byte counts. */
static void long_list(struct json *j)
{
	unsigned i;

	json_arr(j, NULL);
	for (i = 0; i < 300; i++)
		json_u64(j, NULL, i % 10);
	json_end(j);
}

static void test_long_list(void **state)
{
	int ret;
	char *s = render(long_list, 0, &ret);
	size_t i;

	(void)state;
	assert_int_equal(ret, 0);
	assert_int_equal(strlen(s), 1 + 300 + 299 * 2 + 2);
	for (i = 0; i < 299; i++)
		assert_memory_equal(s + 2 + 3 * i, ", ", 2);
	free(s);
}

static void test_misuse(void **state)
{
	int ret;
	char *s;

	(void)state;
	free(render(unclosed, 0, &ret));
	assert_int_equal(ret, -EINVAL);
	free(render(overclosed, 0, &ret));
	assert_int_equal(ret, -EINVAL);
	free(render(too_deep, 0, &ret));
	assert_int_equal(ret, -E2BIG);
	expect_render(nonfinite, 0, "[null]\n");
	s = render(long_fmt, 0, &ret);
	assert_int_equal(ret, 0);
	assert_int_equal(strlen(s), 303);
	free(s);
}

static void test_write_error(void **state)
{
	FILE *f = fopen("/dev/full", "w");
	struct json j;

	(void)state;
	if (!f)
		skip();
	setvbuf(f, NULL, _IONBF, 0);
	json_init(&j, f, 0);
	json_str(&j, NULL, "x");
	assert_int_not_equal(json_fini(&j), 0);
	fclose(f);
}

TEST_MAIN(
	cmocka_unit_test(test_escape),
	cmocka_unit_test(test_escape_truncates),
	cmocka_unit_test(test_document),
	cmocka_unit_test(test_pretty),
	cmocka_unit_test(test_pretty_levels),
	cmocka_unit_test(test_long_list),
	cmocka_unit_test(test_misuse),
	cmocka_unit_test(test_write_error))
