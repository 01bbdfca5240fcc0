/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugin/settings.c: the config file's load and reload, fail closed
 * (ERR 7A20-7A23), against a real OpenSM log object writing to a file. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "plugin/glue.h"
#include "plugin/settings.h"
#include "tmpconf.h"
#include "fixture.h"

static char log_path[64], conf_path[64], opts[96];

/* settings.c logs through glue: here each line goes to log_path as
 * OpenSM's log would write it, after its level. */
void glue_logf(enum glue_log_level level, const char *func, const char *fmt, ...)
{
	FILE *f = fopen(log_path, "a");
	va_list ap;

	assert_non_null(f);
	fprintf(f, "%s %s: ", level == GLUE_LOG_ERROR ? "ERROR" : "INFO", func);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
}

/* How many lines of the log so far contain what. */
static int logged(const char *what)
{
	char line[2048];
	FILE *f = fopen(log_path, "r");
	int n = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		n += strstr(line, what) != NULL;
	fclose(f);
	return n;
}

static void write_conf(const char *text)
{
	tmpconf_write(conf_path, sizeof(conf_path), "osmats-settings-test", text);
}

static int setup(void **state)
{
	(void)state;
	snprintf(log_path, sizeof(log_path), "/tmp/osmats-settings-test-log.%d", (int)getpid());
	unlink(log_path);
	snprintf(conf_path, sizeof(conf_path), "/tmp/osmats-settings-test.%d", (int)getpid());
	snprintf(opts, sizeof(opts), "osmats_config=%s", conf_path);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(log_path);
	unlink(conf_path);
	return 0;
}

static void assert_every_rule_on(void)
{
	struct osmats_conf c;
	unsigned r;

	settings_get(&c);
	for (r = 1; r < RULE_COUNT; r++)
		assert_true(c.pol.enabled[r]);
}

static void test_no_file(void **state)
{
	(void)state;
	unlink(conf_path);
	settings_init(opts);
	assert_string_equal(settings_path(), conf_path);
	assert_int_equal(logged("using defaults"), 1);
	assert_every_rule_on();
	assert_true(settings_indexed_queries());
}

static void test_broken_at_load_fails_closed(void **state)
{
	(void)state;
	write_conf("enforce_sid_block no\nno_such_key yes\n");
	settings_init(opts);
	assert_int_equal(logged("ERR 7A20"), 1);
	assert_int_equal(logged("ERR 7A23"), 1);
	/* The line that parsed does not count: every rule on. */
	assert_every_rule_on();

	/* Unchanged, it is not read again; fixed, it is. */
	settings_reload();
	assert_int_equal(logged("ERR 7A20"), 1);
	write_conf("enforce_sid_block no\n");
	settings_reload();
	assert_int_equal(logged("reloaded"), 1);
	{
		struct osmats_conf c;

		settings_get(&c);
		assert_false(c.pol.enabled[RULE_SID_BLOCK]);
		assert_true(c.pol.enabled[RULE_NAME]);
	}
}

static void test_reload(void **state)
{
	struct osmats_conf c;
	struct rule_config pol;

	(void)state;
	write_conf("lease_max 600\n");
	settings_init(opts);
	settings_reload();
	assert_int_equal(logged("reloaded"), 0);

	write_conf("lease_max 900\nindexed_queries no\nenforce_lease off\n");
	settings_reload();
	assert_int_equal(logged("reloaded"), 1);
	settings_get(&c);
	assert_int_equal(c.pol.lease_max, 900);
	assert_false(c.pol.enabled[RULE_LEASE]);
	assert_false(settings_indexed_queries());
	settings_get_pol(&pol);
	assert_memory_equal(&pol, &c.pol, sizeof(pol));
}

static void test_broken_at_reload_keeps_previous(void **state)
{
	struct osmats_conf c;

	(void)state;
	write_conf("lease_max 600\n");
	settings_init(opts);
	write_conf("lease_max 60\nlease_min\n");
	settings_reload();
	assert_int_equal(logged("ERR 7A20"), 1);
	assert_int_equal(logged("ERR 7A21"), 1);
	settings_get(&c);
	assert_int_equal(c.pol.lease_max, 600);
	/* Logged once: the broken file's stamp is remembered. */
	settings_reload();
	assert_int_equal(logged("ERR 7A21"), 1);
}

static void test_restart_key_kept(void **state)
{
	struct osmats_conf c;

	(void)state;
	write_conf("state_file /tmp/a.json\n");
	settings_init(opts);
	write_conf("state_file /tmp/bb.json\nlease_max 77\nreplication no\n"
		   "replication_log 64\nreplication_ack_timeout 900\n");
	settings_reload();
	assert_int_equal(logged("ERR 7A22"), 1);
	settings_get(&c);
	assert_string_equal(c.state_file, "/tmp/a.json");
	assert_true(c.replication);
	assert_int_equal(c.replication_log, 65536);
	assert_int_equal(c.pol.lease_max, 77);
	assert_int_equal(c.replication_ack_timeout, 900);
}

TEST_MAIN(
	FIXTURE_TEST(test_no_file),
	FIXTURE_TEST(test_broken_at_load_fails_closed),
	FIXTURE_TEST(test_reload),
	FIXTURE_TEST(test_broken_at_reload_keeps_previous),
	FIXTURE_TEST(test_restart_key_kept))
