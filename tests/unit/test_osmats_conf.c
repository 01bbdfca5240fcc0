/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
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

#include "core/cfg.h"
#include "core/osmats_conf.h"
#include "tmpconf.h"
#include "fixture.h"

static char path[64];

static int load(const char *text, struct osmats_conf *c, char *err, size_t len)
{
	tmpconf_write(path, sizeof(path), "osmats-conf-test", text);
	osmats_conf_default(c);
	return osmats_conf_load(path, c, err, len);
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

static void test_defaults(void **state)
{
	struct osmats_conf c;
	unsigned r;

	(void)state;
	osmats_conf_default(&c);
	for (r = 1; r < RULE_COUNT; r++)
		assert_true(c.pol.enabled[r]);
	assert_int_equal(c.pol.dup_mode, RULE_DUP_REJECT);
	assert_int_equal(c.pol.lease_min, 0);
	assert_true(c.pol.lease_max == 0xFFFFFFFFu);
	assert_false(c.pol.lease_clamp);
	assert_true(c.flush_departed);
	assert_int_equal(c.flush_grace_sweeps, 0);
	assert_int_equal(c.ntrusted, 0);
	assert_true(c.pol.enabled[RULE_PKEY]);
	assert_int_equal(c.pol.max_records_per_port, 4096);
	assert_true(c.replication);
	assert_int_equal(c.replication_ack_timeout, 0);
	assert_int_equal(c.replication_log, 65536);
	assert_string_equal(c.replication_key_file, "");
}

static void test_all_keys(void **state)
{
	struct osmats_conf c;
	char err[256];

	(void)state;
	assert_int_equal(load(
		"# comment\n"
		"\n"
		"enforce_sid_block no\n"
		"enforce_service_name = off\n"
		"enforce_address FALSE   # trailing comment\n"
		"enforce_service_key 0\n"
		"enforce_ownership no\n"
		"enforce_primary_first no\n"
		"enforce_port_duplicate no\n"
		"enforce_lease yes\n"
		"enforce_partition no\n"
		"max_records_per_port 0\n"
		"duplicate_address warn\n"
		"lease_min 60\n"
		"lease_max 0x1000\n"
		"lease_clamp yes\n"
		"trusted_guids 0x0002c90300000001, 0x0002c90300000002\n"
		"flush_departed no\n"
		"flush_grace_sweeps 3\n"
		"state_file /var/run/osmats.json\n"
		"replication no\n"
		"replication_ack_timeout 2500\n"
		"replication_log 0x100\n"
		"replication_key_file /etc/opensm/osmats.key\n", &c, err, sizeof(err)), 0);
	assert_false(c.pol.enabled[RULE_SID_BLOCK]);
	assert_false(c.pol.enabled[RULE_NAME]);
	assert_false(c.pol.enabled[RULE_ADDR]);
	assert_false(c.pol.enabled[RULE_KEY]);
	assert_false(c.pol.enabled[RULE_OWNER]);
	assert_false(c.pol.enabled[RULE_PRIMARY_FIRST]);
	assert_false(c.pol.enabled[RULE_PORT_DUP]);
	assert_true(c.pol.enabled[RULE_LEASE]);
	assert_false(c.pol.enabled[RULE_PKEY]);
	assert_int_equal(c.pol.max_records_per_port, 0);
	assert_int_equal(c.pol.dup_mode, RULE_DUP_WARN);
	assert_int_equal(c.pol.lease_min, 60);
	assert_int_equal(c.pol.lease_max, 0x1000);
	assert_true(c.pol.lease_clamp);
	assert_int_equal(c.ntrusted, 2);
	assert_true(osmats_conf_is_trusted(&c, 0x0002c90300000002ull));
	assert_false(osmats_conf_is_trusted(&c, 0x0002c90300000003ull));
	assert_false(c.flush_departed);
	assert_int_equal(c.flush_grace_sweeps, 3);
	assert_string_equal(c.state_file, "/var/run/osmats.json");
	assert_false(c.replication);
	assert_int_equal(c.replication_ack_timeout, 2500);
	assert_int_equal(c.replication_log, 256);
	assert_string_equal(c.replication_key_file, "/etc/opensm/osmats.key");
}

/* The replication keys' bounds are in range. */
static void test_replication_bounds(void **state)
{
	struct osmats_conf c;
	char err[256];

	(void)state;
	assert_int_equal(load("replication_ack_timeout 600000\nreplication_log 1048576\n",
			      &c, err, sizeof(err)), 0);
	assert_int_equal(c.replication_ack_timeout, 600000);
	assert_int_equal(c.replication_log, 1048576);
	assert_int_equal(load("replication_ack_timeout 0\nreplication_log 64\nreplication yes\n",
			      &c, err, sizeof(err)), 0);
	assert_int_equal(c.replication_ack_timeout, 0);
	assert_int_equal(c.replication_log, 64);
	assert_true(c.replication);
}

static void expect_error(const char *text, const char *msg)
{
	struct osmats_conf c;
	char err[256];

	assert_int_equal(load(text, &c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, path));
	if (!strstr(err, msg))
		fail_msg("error '%s' lacks '%s'", err, msg);
}

static void test_errors_name_file_and_line(void **state)
{
	(void)state;
	expect_error("lease_min 5\nbogus_key 1\n", ":2: unknown key 'bogus_key'");
	expect_error("\n\nenforce_ownership maybe\n", ":3: enforce_ownership: 'maybe' is not yes or no");
	expect_error("lease_max 0\n", ":1: lease_max: '0' is not a number in 1..4294967295");
	expect_error("lease_min -1\n", ":1: lease_min: '-1' is not a number");
	expect_error("lease_min 4294967296\n", ":1: lease_min");
	expect_error("duplicate_address sometimes\n", ":1: duplicate_address: 'sometimes' is not reject, warn or allow");
	expect_error("trusted_guids 0x1,nope\n", ":1: trusted_guids: 'nope' is not a port GUID");
	expect_error("flush_grace_sweeps 1001\n", ":1: flush_grace_sweeps");
	expect_error("state_file relative/path\n", ":1: state_file: 'relative/path' is not an absolute path or none");
	/* osmats.prom and its temporary are the metrics file beside it. */
	expect_error("state_file /var/log/osmats.prom\n",
		     ":1: state_file: '/var/log/osmats.prom' is the name of the metrics file");
	expect_error("state_file /var/log/osmats.prom.tmp\n", ":1: state_file:");
	expect_error("lease_min\n", ":1: 'lease_min' needs a value");
	expect_error("lease_min 1\nlease_min 2\n", ":2: 'lease_min' already set on line 1");
	expect_error("lease_min 100\nlease_max 10\n", "lease_min 100 is above lease_max 10");
	expect_error("\nreplication sometimes\n", ":2: replication: 'sometimes' is not yes or no");
	expect_error("replication_key_file osmats.key\n",
		     ":1: replication_key_file: 'osmats.key' is not an absolute path");
	expect_error("replication_key_file none\n",
		     ":1: replication_key_file: 'none' is not an absolute path");
	expect_error("replication_ack_timeout 600001\n",
		     ":1: replication_ack_timeout: '600001' is not a number in 0..600000");
	expect_error("replication_ack_timeout -1\n", ":1: replication_ack_timeout");
	expect_error("lease_min 1\nreplication_log 63\n",
		     ":2: replication_log: '63' is not a number in 64..1048576");
	expect_error("replication_log 1048577\n",
		     ":1: replication_log: '1048577' is not a number in 64..1048576");
	expect_error("replication_log\n", ":1: 'replication_log' needs a value");
}

/* check-config names the line of a value it checks after the load (the
 * key file): cfg_key_line finds it past comments and blank lines. */
static void test_key_line(void **state)
{
	struct osmats_conf c;
	char err[256];

	(void)state;
	assert_int_equal(load("# the key\n\nreplication yes\n  replication_key_file = /k y\n",
			      &c, err, sizeof(err)), 0);
	assert_string_equal(c.replication_key_file, "/k y");
	assert_int_equal(cfg_key_line(path, "replication_key_file"), 4);
	assert_int_equal(cfg_key_line(path, "replication"), 3);
	assert_int_equal(cfg_key_line(path, "state_file"), 0);
	assert_int_equal(cfg_key_line("/nonexistent/osmats.conf", "replication"), 0);
}

static void test_missing_file(void **state)
{
	struct osmats_conf c;
	char err[256];

	(void)state;
	osmats_conf_default(&c);
	assert_int_equal(osmats_conf_load("/nonexistent/osmats.conf", &c, err, sizeof(err)), -ENOENT);
	assert_true(c.pol.enabled[RULE_OWNER]);
}

static void test_options(void **state)
{
	char buf[OSMATS_CONF_PATH_MAX];

	(void)state;
	assert_string_equal(osmats_conf_path_from_options(NULL, buf, sizeof(buf)), OSMATS_CONF_DEFAULT_PATH);
	assert_string_equal(osmats_conf_path_from_options("", buf, sizeof(buf)), OSMATS_CONF_DEFAULT_PATH);
	assert_string_equal(osmats_conf_path_from_options("other=1 osmats_config=/etc/x.conf more",
						   buf, sizeof(buf)), "/etc/x.conf");
	assert_string_equal(osmats_conf_path_from_options("osmats_config=", buf, sizeof(buf)),
			    OSMATS_CONF_DEFAULT_PATH);
}

static void test_restart_keys(void **state)
{
	struct osmats_conf a, b;
	const char *key = NULL;

	(void)state;
	osmats_conf_default(&a);
	b = a;
	b.pol.lease_min = 9;
	assert_false(osmats_conf_restart_needed(&a, &b, &key));
	snprintf(b.state_file, sizeof(b.state_file), "/tmp/x");
	assert_true(osmats_conf_restart_needed(&a, &b, &key));
	assert_string_equal(key, "state_file");
	/* The ack timeout is reloadable; replication and its log are not. */
	b = a;
	b.replication_ack_timeout = 1000;
	assert_false(osmats_conf_restart_needed(&a, &b, &key));
	b.replication = 0;
	assert_true(osmats_conf_restart_needed(&a, &b, &key));
	assert_string_equal(key, "replication");
	b = a;
	b.replication_log = 64;
	assert_true(osmats_conf_restart_needed(&a, &b, &key));
	assert_string_equal(key, "replication_log");
	b = a;
	b.liveness = 0;
	assert_true(osmats_conf_restart_needed(&a, &b, &key));
	assert_string_equal(key, "liveness");
	/* The key is read at start only. */
	b = a;
	snprintf(b.replication_key_file, sizeof(b.replication_key_file), "/etc/opensm/k");
	assert_true(osmats_conf_restart_needed(&a, &b, &key));
	assert_string_equal(key, "replication_key_file");
}

/* A reload keeps what is in force for the restart-only keys, and takes
 * the rest. */
static void test_keep_restart_keys(void **state)
{
	struct osmats_conf a, b;
	const char *key = NULL;

	(void)state;
	osmats_conf_default(&a);
	b = a;
	snprintf(b.state_file, sizeof(b.state_file), "/tmp/x");
	b.liveness = 0;
	b.replication = 0;
	b.replication_log = 128;
	b.replication_ack_timeout = 700;
	b.pol.lease_min = 9;
	b.indexed_queries = 0;
	osmats_conf_keep_restart_keys(&b, &a);
	assert_false(osmats_conf_restart_needed(&a, &b, &key));
	assert_string_equal(b.state_file, "");
	assert_true(b.liveness);
	assert_true(b.replication);
	assert_int_equal(b.replication_log, 65536);
	assert_int_equal(b.replication_ack_timeout, 700);
	assert_int_equal(b.pol.lease_min, 9);
	assert_false(b.indexed_queries);
}

static void test_describe(void **state)
{
	struct osmats_conf c;
	char buf[1024];

	(void)state;
	osmats_conf_default(&c);
	c.trusted[0] = 0x10;
	c.ntrusted = 1;
	osmats_conf_describe(&c, buf, sizeof(buf));
	assert_non_null(strstr(buf, "enforce_ownership=yes"));
	assert_non_null(strstr(buf, "duplicate_address=reject"));
	assert_non_null(strstr(buf, "lease_max=4294967295"));
	assert_non_null(strstr(buf, "trusted_guids=0x0000000000000010"));
	assert_non_null(strstr(buf, "state_file=(default)"));
	/* The last keys, so the whole line fits settings.c's buffer. */
	assert_non_null(strstr(buf, " replication=yes replication_ack_timeout=0 "
				    "replication_log=65536 replication_key_file=(none)"));
	assert_int_equal(buf[strlen(buf) - 1], ')');
}

TEST_MAIN(
	cmocka_unit_test(test_defaults),
	cmocka_unit_test_teardown(test_all_keys, teardown),
	cmocka_unit_test_teardown(test_errors_name_file_and_line, teardown),
	cmocka_unit_test_teardown(test_key_line, teardown),
	cmocka_unit_test(test_missing_file),
	cmocka_unit_test(test_options),
	cmocka_unit_test_teardown(test_replication_bounds, teardown),
	cmocka_unit_test(test_restart_keys),
	cmocka_unit_test(test_keep_restart_keys),
	cmocka_unit_test(test_describe))
