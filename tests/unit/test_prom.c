/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The Prometheus text writer: golden output, escapes of hostile label
 * values, and misuse reported rather than written. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/prom.h"
#include "tmpconf.h"
#include "fixture.h"

static char *render(void (*fn)(struct prom *, const void *), int *ret)
{
	char *buf = NULL, *out;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct prom p;

	assert_non_null(f);
	prom_init(&p, f);
	fn(&p, NULL);
	*ret = prom_fini(&p);
	fclose(f);
	/* A copy: gcc takes the stream's buffer for a dangling local. */
	out = strdup(buf);
	free(buf);
	assert_non_null(out);
	return out;
}

static void doc(struct prom *p, const void *arg)
{
	const char *const l1[] = { "service", "ats", "state", "present", NULL };
	const char *const l2[] = { "rule", "a\"b\\c\nd\x01\xff", NULL };

	(void)arg;
	prom_family(p, "ibats_sm_records", PROM_GAUGE, "Records by service and state.");
	prom_u64(p, "ibats_sm_records", l1, 3);
	prom_family(p, "ibats_sm_policy_refused_total", PROM_COUNTER,
		    "Sets refused, by \"rule\"\\n\nsecond line.");
	prom_u64(p, "ibats_sm_policy_refused_total", l2, 18446744073709551615ull);
	prom_family(p, "ibats_sm_set_seconds", PROM_GAUGE, "Mean Set time.");
	prom_dbl(p, "ibats_sm_set_seconds", NULL, 0.25);
	prom_dbl(p, "ibats_sm_set_seconds", NULL, INFINITY);
	prom_dbl(p, "ibats_sm_set_seconds", NULL, NAN);
}

static void test_document(void **state)
{
	int ret;
	char *s = render(doc, &ret);

	(void)state;
	assert_int_equal(ret, 0);
	assert_string_equal(s,
		"# HELP ibats_sm_records Records by service and state.\n"
		"# TYPE ibats_sm_records gauge\n"
		"ibats_sm_records{service=\"ats\",state=\"present\"} 3\n"
		"# HELP ibats_sm_policy_refused_total Sets refused, by \"rule\"\\\\n\\nsecond line.\n"
		"# TYPE ibats_sm_policy_refused_total counter\n"
		"ibats_sm_policy_refused_total{rule=\"a\\\"b\\\\c\\nd??\"} 18446744073709551615\n"
		"# HELP ibats_sm_set_seconds Mean Set time.\n"
		"# TYPE ibats_sm_set_seconds gauge\n"
		"ibats_sm_set_seconds 0.25\n"
		"ibats_sm_set_seconds +Inf\n"
		"ibats_sm_set_seconds NaN\n");
	free(s);
}

static void test_escape(void **state)
{
	char out[8];

	(void)state;
	assert_int_equal(prom_escape(out, sizeof(out), "\"\\\n"), 6);
	assert_string_equal(out, "\\\"\\\\\\n");
	/* Like snprintf: the whole length back, the buffer cut and ended. */
	assert_int_equal(prom_escape(out, 4, "\"\"\""), 6);
	assert_string_equal(out, "\\\"\\");
}

static void long_doc(struct prom *p, const void *arg)
{
	static char v[1001];
	const char *const l[] = { "name", v, NULL };

	(void)arg;
	memset(v, '"', 1000);
	prom_family(p, "x", PROM_GAUGE, "h");
	prom_u64(p, "x", l, 1);
}

static void test_long_value(void **state)
{
	int ret, i;
	char *s = render(long_doc, &ret);
	size_t at;

	(void)state;
	assert_int_equal(ret, 0);
	assert_non_null(strstr(s, "x{name=\""));
	at = (size_t)(strstr(s, "x{name=\"") - s) + 8;
	for (i = 0; i < 1000; i++, at += 2)
		assert_memory_equal(s + at, "\\\"", 2);
	assert_string_equal(s + at, "\"} 1\n");
	free(s);
}

static void bad_name(struct prom *p, const void *arg)
{
	(void)arg;
	prom_family(p, "1bad", PROM_GAUGE, "h");
}

static void bad_label(struct prom *p, const void *arg)
{
	const char *const l[] = { "has-dash", "v", NULL };

	(void)arg;
	prom_family(p, "ok", PROM_GAUGE, "h");
	prom_u64(p, "ok", l, 1);
}

static void reserved_label(struct prom *p, const void *arg)
{
	const char *const l[] = { "__name__", "v", NULL };

	(void)arg;
	prom_family(p, "ok", PROM_GAUGE, "h");
	prom_u64(p, "ok", l, 1);
}

static void counter_no_total(struct prom *p, const void *arg)
{
	(void)arg;
	prom_family(p, "ok", PROM_COUNTER, "h");
	prom_u64(p, "ok", NULL, 1);
}

/* A sample of another name than its family's would sit under the wrong
 * HELP and TYPE. */
static void other_family(struct prom *p, const void *arg)
{
	(void)arg;
	prom_family(p, "fam", PROM_GAUGE, "h");
	prom_u64(p, "ok", NULL, 1);
}

static void no_family(struct prom *p, const void *arg)
{
	(void)arg;
	prom_u64(p, "ok", NULL, 1);
}

static void test_misuse(void **state)
{
	void (*fns[])(struct prom *, const void *) = { bad_name, bad_label, reserved_label,
						       no_family, counter_no_total,
						       other_family };
	size_t i;
	int ret;

	(void)state;
	for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		char *s = render(fns[i], &ret);

		assert_int_equal(ret, -EINVAL);
		/* Nothing of the bad sample is written. */
		assert_null(strstr(s, "} 1"));
		assert_null(strstr(s, "\nok 1"));
		free(s);
	}
}

/* The writes' fsyncs, counted instead of made: this definition takes
 * the place of libc's for libcore's objects linked in statically. */
static int fsyncs;

int fsync(int fd)
{
	(void)fd;
	fsyncs++;
	return 0;
}

static void small_doc(struct prom *p, const void *arg)
{
	(void)arg;
	prom_family(p, "ibats_up", PROM_GAUGE, "Up.");
	prom_u64(p, "ibats_up", NULL, 1);
}

static void test_write_file(void **state)
{
	char dir[] = "/tmp/test_prom.XXXXXX", path[64], tmp[80], buf[128];
	FILE *f;
	size_t n;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/m.prom", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fsyncs = 0;
	assert_int_equal(prom_write_file(path, small_doc, NULL), 0);
	/* atsd writes from its one event loop, lookups wait meanwhile: no
	 * fsync, which can take a journal commit's time. */
	assert_int_equal(fsyncs, 0);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	assert_string_equal(buf, "# HELP ibats_up Up.\n# TYPE ibats_up gauge\nibats_up 1\n");
	assert_int_equal(access(tmp, F_OK), -1);
	/* A failed write leaves neither the file's new version nor a temporary. */
	unlink(path);
	assert_int_equal(prom_write_file(path, bad_name, NULL), -EINVAL);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(access(tmp, F_OK), -1);
	snprintf(path, sizeof(path), "%s/no/m.prom", dir);
	assert_int_equal(prom_write_file(path, small_doc, NULL), -ENOENT);
	rmdir(dir);
}

/* atsd writes as root, perhaps into a world-writable directory: a
 * symlink planted at the temporary's name (or the file's) must not
 * make it write through to the link's target. */
static void test_write_file_symlink(void **state)
{
	char dir[] = "/tmp/test_prom.XXXXXX", path[64], tmp[80], victim[64];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/m.prom", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	tmpconf_put(victim, "secret\n");
	assert_int_equal(symlink(victim, tmp), 0);
	assert_int_equal(symlink(victim, path), 0);
	assert_int_equal(prom_write_file(path, small_doc, NULL), 0);
	tmpconf_assert(victim, "secret\n");
	tmpconf_assert(path, "# HELP ibats_up Up.\n# TYPE ibats_up gauge\nibats_up 1\n");
	assert_int_equal(access(tmp, F_OK), -1);
	/* A stale temporary (a crash mid-write) does not stop the next. */
	tmpconf_put(tmp, "");
	assert_int_equal(prom_write_file(path, small_doc, NULL), 0);
	assert_int_equal(access(tmp, F_OK), -1);
	unlink(path);
	unlink(victim);
	rmdir(dir);
}

TEST_MAIN(
	cmocka_unit_test(test_document),
	cmocka_unit_test(test_escape),
	cmocka_unit_test(test_long_value),
	cmocka_unit_test(test_misuse),
	cmocka_unit_test(test_write_file),
	cmocka_unit_test(test_write_file_symlink))
