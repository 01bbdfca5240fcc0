/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "host/agent_conf.h"
#include "tmpconf.h"
#include "fixture.h"

static char path[64];

static int load(const char *text, struct agent_conf *c, char *err, size_t len)
{
	tmpconf_write(path, sizeof(path), "atsd-conf-test", text);
	agent_conf_default(c);
	return agent_conf_load(path, c, err, len);
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

static void test_full(void **state)
{
	struct agent_conf c;
	char err[256];

	(void)state;
	assert_int_equal(load("ca mlx5_0\nport 2\nsocket /run/x.sock\n"
			      "verify_interval 10\nsm_poll_interval 2\ncache_ttl 0\n"
			      "negative_ttl 1\nsa_timeout 200\nsa_retries 1\nbackoff_max 30\n"
			      "lease 3600\nlog_level debug\nipoib_membership check\n"
			      "interface ib0\n"
			      "interface ib0.8001 pkey 0x0001 primary 10.8.0.1\n"
			      "interface v0 netns host1\n"
			      "address 10.9.0.1 primary\naddress fd00::9 pkey 0x8002\n",
			      &c, err, sizeof(err)), 0);
	assert_string_equal(c.ca, "mlx5_0");
	assert_int_equal(c.port, 2);
	assert_string_equal(c.socket, "/run/x.sock");
	assert_int_equal(c.verify_interval, 10);
	assert_int_equal(c.cache_ttl, 0);
	assert_int_equal(c.lease, 3600);
	assert_int_equal(c.log_level, LOG_LVL_DEBUG);
	assert_int_equal(c.ipoib_membership, AGENT_CONF_MEMBERSHIP_CHECK);
	assert_int_equal(c.nifs, 3);
	assert_false(c.ifs[0].have_pkey);
	assert_true(c.ifs[1].have_pkey);
	assert_int_equal(c.ifs[1].pkey, 0x8001); /* full member */
	assert_true(c.ifs[1].have_primary);
	assert_string_equal(c.ifs[2].netns, "host1");
	assert_int_equal(c.naddrs, 2);
	assert_true(c.addrs[0].primary);
	assert_int_equal(c.addrs[0].pkey, 0xffff);
	assert_int_equal(c.addrs[1].pkey, 0x8002);
}

static void test_defaults(void **state)
{
	struct agent_conf c;

	(void)state;
	agent_conf_default(&c);
	assert_string_equal(c.socket, "/run/ibats/atsd.sock");
	assert_int_equal(c.verify_interval, 60);
	assert_true(c.lease == SR_LEASE_INFINITE);
	assert_int_equal(c.ipoib_membership, AGENT_CONF_MEMBERSHIP_AUTO);
	assert_int_equal(c.cm.idle_timeout, 120);
}

static void expect_error(const char *text, const char *msg)
{
	struct agent_conf c;
	char err[256];

	assert_int_equal(load(text, &c, err, sizeof(err)), -EINVAL);
	if (!strstr(err, msg) || !strstr(err, path))
		fail_msg("error '%s' lacks '%s'", err, msg);
}

static void test_errors(void **state)
{
	(void)state;
	expect_error("verify_interval 0\n", ":1: verify_interval: '0' is not a number in 1..86400");
	expect_error("\nfrobnicate 1\n", ":2: unknown key 'frobnicate'");
	expect_error("port 1\nport 2\n", ":2: 'port' already set on line 1");
	expect_error("interface v0 netns\n", ":1: interface v0: 'netns' needs a value");
	expect_error("interface v0 color red\n", ":1: interface v0: unknown option 'color'");
	expect_error("interface v0 pkey 0x8000\n", ":1: interface v0: pkey '0x8000' is not a PKey");
	expect_error("interface v0 netns ../x\n", "netns '../x' is not a namespace name");
	expect_error("address 127.0.0.1\n", ":1: address: '127.0.0.1': IPv4 loopback");
	expect_error("address 10.0.0.1 secondary\n", "unknown option 'secondary'");
	expect_error("lease 0\n", ":1: lease: '0' is not seconds");
	expect_error("log_level loud\n",
		     ":1: log_level: 'loud' is not error, warning, info or debug");
	expect_error("cm_policy maybe\n", ":1: cm_policy: 'maybe' is not any, agree or list");
	/* Passive connections always expire: no 0 for never. */
	expect_error("cm_idle_timeout 0\n", ":1: cm_idle_timeout: '0' is not a number in 1..86400");
	expect_error("ipoib_membership join\n",
		     ":1: ipoib_membership: 'join' is not auto, check or manage");
	expect_error("liveness perhaps\n", ":1: liveness: 'perhaps' is not yes or no");
	/* A removed key says so, and what to do, where the generic
	 * "unknown key" would leave the reader guessing. */
	expect_error("port 1\nibsim yes\n",
		     ":2: ibsim: this key was removed: atsd runs the same on the lab's "
		     "simulated host as on a real host and needs no setting for it");
	expect_error("ibsim no\n", ":1: ibsim: this key was removed");
	expect_error("socket relative.sock\n", ":1: socket: 'relative.sock' is not an absolute path");
	expect_error("interface v0\ninterface v0\n", "interface v0 listed twice");
	expect_error("address 10.0.0.1 primary\naddress 10.0.0.2 primary\n",
		     ":2: address: a second primary in PKey 0xffff (10.0.0.1 is one)");
	expect_error("address 10.0.0.1 primary pkey 0x7fff\naddress 10.0.0.2 primary\n",
		     ":2: address: a second primary in PKey 0xffff");
}

static void test_directory(void **state)
{
	struct agent_conf c;
	char err[256];

	(void)state;
	agent_conf_default(&c);
	assert_int_equal(agent_conf_load("/tmp", &c, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "/tmp: is a directory, not a config file");
}

static void test_restart_key(void **state)
{
	struct agent_conf a, b;

	(void)state;
	agent_conf_default(&a);
	b = a;
	b.verify_interval = 5;
	assert_null(agent_conf_restart_key(&a, &b));
	b.liveness = 0;
	assert_string_equal(agent_conf_restart_key(&a, &b), "liveness");
}

/* Every restart-only key warns on SIGHUP and keeps its running value,
 * the CM keys too (they are not fields of their own). */
static void test_restart_keep(void **state)
{
	static const struct {
		const char *text, *key;
	} cases[] = {
		{ "cm_listen 4791\n", "cm_listen" },
		{ "cm_policy list\n", "cm_policy" },
		{ "cm_accept 10.0.0.9\n", "cm_accept" },
		{ "cm_timeout 50\n", "cm_timeout" },
		{ "cm_idle_timeout 30\n", "cm_idle_timeout" },
		{ "socket /run/y.sock\n", "socket" },
		{ "state_file /var/tmp/y.state\n", "state_file" },
	};
	struct agent_conf cur, next;
	char err[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(load("", &cur, err, sizeof(err)), 0);
		assert_int_equal(load(cases[i].text, &next, err, sizeof(err)), 0);
		assert_non_null(agent_conf_restart_key(&cur, &next));
		assert_string_equal(agent_conf_restart_key(&cur, &next), cases[i].key);
		agent_conf_keep_restart(&next, &cur);
		assert_null(agent_conf_restart_key(&cur, &next));
	}
	/* Reloadable keys are taken. */
	assert_int_equal(load("", &cur, err, sizeof(err)), 0);
	assert_int_equal(load("cache_ttl 7\ncm_listen 4791\n", &next, err, sizeof(err)), 0);
	agent_conf_keep_restart(&next, &cur);
	assert_int_equal(next.cache_ttl, 7);
	assert_int_equal(next.cm.nlisten, 0);
	assert_false(next.cm_active);
}

/* The control socket and state keys (atsd.conf(5)). */
/* --instance CA:PORT: one spelling per port, no path cut short. */
static void test_instance(void **state)
{
	struct agent_conf c;
	char ca[80];
	size_t i;
	static const char *const bad[] = {
		"mlx5_0", ":1", "mlx5_0:", "mlx5_0:0", "mlx5_0:255", "mlx5_0:01",
		"mlx5_0:0x1", "mlx5_0:1 ", "mlx5_0: 1", "mlx5_0:+1", "a/b:1", "../x:1",
	};

	(void)state;
	agent_conf_default(&c);
	assert_int_equal(agent_conf_instance(&c, "mlx5_0:1"), 0);
	assert_string_equal(c.ca, "mlx5_0");
	assert_int_equal(c.port, 1);
	assert_string_equal(c.socket, "/run/ibats/atsd@mlx5_0:1.sock");
	assert_string_equal(c.state_file, "/var/lib/ibats/atsd@mlx5_0:1.state");
	assert_int_equal(agent_conf_instance(&c, "a:b:254"), 0);
	assert_string_equal(c.ca, "a:b");
	assert_int_equal(c.port, 254);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		agent_conf_default(&c);
		if (agent_conf_instance(&c, bad[i]) != -EINVAL)
			fail_msg("instance '%s' accepted", bad[i]);
		assert_string_equal(c.socket, ATSD_PROTO_SOCKET_DEFAULT);
	}
	/* The longest CA name still fits the socket path; one more does not. */
	memset(ca, 'x', 63);
	strcpy(ca + 63, ":254");
	assert_int_equal(agent_conf_instance(&c, ca), 0);
	memset(ca, 'x', 64);
	strcpy(ca + 64, ":1");
	assert_int_equal(agent_conf_instance(&c, ca), -EINVAL);
}

static void test_control_keys(void **state)
{
	struct agent_conf c;
	char err[256];

	(void)state;
	assert_int_equal(load("", &c, err, sizeof(err)), 0);
	assert_string_equal(c.state_file, "/var/lib/ibats/atsd.state");
	assert_int_equal(c.refused_retry, 600);
	assert_int_equal(c.max_clients_per_uid, 16);
	assert_int_equal(c.client_idle_timeout, 60);
	assert_string_equal(c.control_group, "");
	assert_int_equal(load("control_group root\nmax_clients_per_uid 4\n"
			      "client_idle_timeout 0\nrefused_retry 30\n"
			      "state_file /var/tmp/x.state\n", &c, err, sizeof(err)), 0);
	assert_string_equal(c.control_group, "root");
	assert_int_equal(c.control_gid, 0);
	assert_int_equal(c.max_clients_per_uid, 4);
	assert_int_equal(c.client_idle_timeout, 0);
	assert_int_equal(c.refused_retry, 30);
	assert_string_equal(c.state_file, "/var/tmp/x.state");
	assert_int_equal(load("verify_interval 5\ncontrol_group no-such-group-ibats\n", &c, err,
			      sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, ":2: control_group: no group 'no-such-group-ibats'"));
	/* Checked off the host (a configuration server): a warning, the
	 * rest of the file still checked. */
	{
		char warn[256];

		agent_conf_default(&c);
		assert_int_equal(agent_conf_check(path, &c, err, sizeof(err), warn, sizeof(warn)),
				 0);
		assert_non_null(strstr(warn, ":2: control_group: no group 'no-such-group-ibats' "
				       "on this machine\n"));
		assert_string_equal(c.control_group, "no-such-group-ibats");
		assert_int_equal(c.control_gid, (gid_t)-1);
		tmpconf_put(path, "control_group no-such-group-ibats\nverify_interval x\n");
		agent_conf_default(&c);
		assert_int_equal(agent_conf_check(path, &c, err, sizeof(err), warn, sizeof(warn)),
				 -EINVAL);
		assert_non_null(strstr(err, ":2: verify_interval"));
		tmpconf_put(path, "control_group root\n");
		assert_int_equal(agent_conf_check(path, &c, err, sizeof(err), warn, sizeof(warn)),
				 0);
		assert_string_equal(warn, "");
	}
	assert_int_equal(load("state_file relative.state\n", &c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, ":1: state_file: 'relative.state' is not an absolute path"));
	/* metrics_file: off by default, absolute, and reloadable. */
	assert_int_equal(load("log_level info\nmetrics_file atsd.prom\n", &c, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, ":2: metrics_file: 'atsd.prom' is not an absolute path"));
	{
		struct agent_conf next;

		assert_int_equal(load("", &c, err, sizeof(err)), 0);
		assert_string_equal(c.metrics_file, "");
		assert_int_equal(load("metrics_file /var/lib/node_exporter/atsd.prom\n", &next,
				      err, sizeof(err)), 0);
		assert_string_equal(next.metrics_file, "/var/lib/node_exporter/atsd.prom");
		assert_null(agent_conf_restart_key(&c, &next));
	}
	assert_int_equal(load("max_clients_per_uid 0\n", &c, err, sizeof(err)), -EINVAL);
	assert_int_equal(load("refused_retry 1\n", &c, err, sizeof(err)), -EINVAL);
}

/* metrics_file replaces its file every 10 s: naming atsd's state file
 * would lose the list of its records (a restart then leaves them in the
 * SA), the socket would cut every client off, the config itself would
 * be gone. */
static void test_metrics_file_clash(void **state)
{
	struct agent_conf c;
	char err[256], line[128];

	(void)state;
	assert_int_equal(load("metrics_file /var/lib/ibats/atsd.state\n", &c, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "metrics_file: '/var/lib/ibats/atsd.state' is the state_file"));
	assert_int_equal(load("metrics_file /x/a.prom\nstate_file /x/a.prom\n", &c, err,
			      sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "is the state_file"));
	assert_int_equal(load("metrics_file /run/ibats/atsd.sock\n", &c, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "is the socket"));
	tmpconf_write(path, sizeof(path), "atsd-conf-test", "");
	snprintf(line, sizeof(line), "metrics_file %s\n", path);
	assert_int_equal(load(line, &c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "is this configuration file"));
	/* An instance's own names, set before the file is read. */
	tmpconf_write(path, sizeof(path), "atsd-conf-test",
		      "metrics_file /var/lib/ibats/atsd@mlx5_0:1.state\n");
	agent_conf_default(&c);
	assert_int_equal(agent_conf_instance(&c, "mlx5_0:1"), 0);
	assert_int_equal(agent_conf_load(path, &c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "is the state_file"));
	assert_int_equal(load("metrics_file /var/lib/node_exporter/atsd.prom\n", &c, err,
			      sizeof(err)), 0);
	/* A SIGHUP that moves state_file (restart only) and puts
	 * metrics_file on the old name keeps the old metrics_file. */
	{
		struct agent_conf next;

		assert_int_equal(load("state_file /x/new.state\n"
				      "metrics_file /var/lib/ibats/atsd.state\n", &next, err,
				      sizeof(err)), 0);
		assert_int_equal(agent_conf_keep_restart(&next, &c), -EINVAL);
		assert_string_equal(next.state_file, "/var/lib/ibats/atsd.state");
		assert_string_equal(next.metrics_file, "/var/lib/node_exporter/atsd.prom");
	}
}

TEST_MAIN(
	cmocka_unit_test_teardown(test_full, teardown),
	cmocka_unit_test_teardown(test_metrics_file_clash, teardown),
	cmocka_unit_test_teardown(test_control_keys, teardown),
	cmocka_unit_test(test_defaults),
	cmocka_unit_test(test_instance),
	cmocka_unit_test_teardown(test_errors, teardown),
	cmocka_unit_test(test_restart_key),
	cmocka_unit_test_teardown(test_restart_keep, teardown),
	cmocka_unit_test(test_directory))
