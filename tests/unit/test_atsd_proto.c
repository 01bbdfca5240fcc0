/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "host/atsd_proto.h"
#include "fixture.h"

static void test_verbs(void **state)
{
	int i;

	(void)state;
	assert_int_equal(atsd_proto_verb_find("resolve"), ATSD_PROTO_V_RESOLVE);
	assert_int_equal(atsd_proto_verb_find("disconnect"), ATSD_PROTO_V_DISCONNECT);
	assert_int_equal(atsd_proto_verb_find("frobnicate"), -1);
	for (i = 0; i < ATSD_PROTO_VERBS; i++) {
		assert_non_null(atsd_proto_verbs[i].name);
		assert_true(atsd_proto_verbs[i].min >= 1);
		assert_true(atsd_proto_verbs[i].max <= ATSD_PROTO_ARGS_MAX);
	}
	assert_true(atsd_proto_verbs[ATSD_PROTO_V_HOLD].privileged);
	assert_false(atsd_proto_verbs[ATSD_PROTO_V_STATS].privileged);
}

/* The count line follows the table: "OK 32" and 32 lines. */
static void test_stats(void **state)
{
	uint64_t v[ATSD_PROTO_STATS];
	char buf[1024], name[32];
	const char *val, *line;
	int i, n;

	(void)state;
	for (i = 0; i < ATSD_PROTO_STATS; i++)
		v[i] = (uint64_t)i * 10;
	n = atsd_proto_stats_format(buf, sizeof(buf), v);
	assert_int_equal(n, (int)strlen(buf));
	assert_int_equal(ATSD_PROTO_STATS, 32);
	assert_memory_equal(buf, "OK 32\ncache_hits 0\ncache_misses 10\n", 34);
	assert_non_null(strstr(buf, "\nsm_lid 150\n"));
	assert_non_null(strstr(buf, "\ninvalidations 220\n"));
	assert_non_null(strstr(buf, "\nlocal_answers 230\n"));
	assert_non_null(strstr(buf, "\nsa_depth 240\nsa_inflight 250\nsa_inflight_max 260\n"
				    "sa_resent 270\nsa_timeouts 280\nprefetches 290\n"
				    "prefetch_records 300\ncache_clears 310\n"));
	line = strchr(buf, '\n') + 1;
	for (i = 0; i < ATSD_PROTO_STATS; i++) {
		atsd_proto_stats_split(line, name, sizeof(name), &val);
		assert_string_equal(name, atsd_proto_stat_names[i]);
		line = strchr(line, '\n') + 1;
	}
	assert_string_equal(line, "");
	atsd_proto_stats_split("records 3", name, sizeof(name), &val);
	assert_string_equal(val, "3");
	/* Too small a buffer: snprintf's count, never past the end. */
	n = atsd_proto_stats_format(buf, 10, v);
	assert_true(n > 10);
	assert_int_equal(strlen(buf), 9);
}

static void test_record(void **state)
{
	static const char line[] = "0x10000ce100415453 fe80::2:c903:0:1 0xffff 4294967295 10.0.0.1";
	struct sr_record r;
	char buf[ATSD_PROTO_LINE_MAX];

	(void)state;
	assert_int_equal(atsd_proto_parse_record(line, &r), 0);
	assert_int_equal(r.pkey, 0xffff);
	atsd_proto_format_record(buf, sizeof(buf), &r);
	assert_string_equal(buf, line);
	assert_int_equal(atsd_proto_parse_record("0x1 nogid 0xffff 1 10.0.0.1", &r), -EPROTO);
}

/* A local answer's record line: the five fields still parse (old
 * clients), the sixth word marks it. */
static void test_record_local(void **state)
{
	static const char line[] = "0x10000ce100415453 fe80::2:c903:0:1 0xffff 4294967295 10.0.0.1";
	char buf[ATSD_PROTO_LINE_MAX];
	struct sr_record r;

	(void)state;
	snprintf(buf, sizeof(buf), "%s " ATSD_PROTO_REC_LOCAL, line);
	assert_int_equal(atsd_proto_parse_record(buf, &r), 0);
	assert_int_equal(r.id, 0x10000ce100415453ull);
	assert_int_equal(atsd_proto_record_local(buf), 1);
	assert_int_equal(atsd_proto_record_local(line), 0);
	assert_int_equal(atsd_proto_record_local("0x1 fe80::1 0xffff 1 10.0.0.1 localx"), 0);
	assert_int_equal(atsd_proto_record_local("0x1 fe80::1 0xffff 1 10.0.0.1 other"), 0);
	assert_int_equal(atsd_proto_record_local("local"), 0);
	assert_int_equal(atsd_proto_record_local(""), 0);
}

static void test_status(void **state)
{
	uint8_t gid[16] = { 0xfe, 0x80 };
	struct atsd_proto_status st;
	struct ats_ip ip;
	char buf[ATSD_PROTO_LINE_MAX];

	(void)state;
	assert_int_equal(ats_ip_parse("10.0.0.2", &ip), 0);
	atsd_proto_status_format(buf, sizeof(buf), 0, gid, 0xffff, 60, &ip, "refused",
			   "ERR_REQ_DENIED");
	assert_string_equal(buf, "- fe80:: 0xffff 60 10.0.0.2 refused ERR_REQ_DENIED\n");
	assert_int_equal(atsd_proto_status_parse(buf, &st), 0);
	assert_string_equal(st.sid, "-");
	assert_string_equal(st.state, "refused");
	assert_string_equal(st.reason, "ERR_REQ_DENIED\n");
	atsd_proto_status_format(buf, sizeof(buf), 0x10000ce100415453ULL, gid, 0x8001, 60, &ip,
			   "registered", NULL);
	assert_string_equal(buf, "0x10000ce100415453 fe80:: 0x8001 60 10.0.0.2 registered\n");
	assert_int_equal(atsd_proto_status_parse(buf, &st), 0);
	assert_int_equal(st.pkey, 0x8001);
	assert_string_equal(st.reason, "");
	assert_int_equal(atsd_proto_status_parse("- fe80:: 0xffff", &st), -EPROTO);
}

/* A field of a line: its index, name and, unless NULL, value. */
struct field_want {
	size_t i;
	const char *name, *value;
};

/* line, its newline cut, splits into n fields of kind, among them want. */
static void check_fields(char *line, enum atsd_proto_line_kind kind, size_t n,
			 const struct field_want *want, size_t nwant)
{
	struct atsd_proto_field f[16];
	size_t i;

	line[strlen(line) - 1] = '\0';
	assert_int_equal(atsd_proto_line_fields(line, kind, f, 16), n);
	for (i = 0; i < nwant; i++) {
		assert_string_equal(f[want[i].i].name, want[i].name);
		if (want[i].value)
			assert_string_equal(f[want[i].i].value, want[i].value);
	}
}

static const struct field_want conn_fields[] = {
	{ 0, "id", NULL },
	{ 2, "state", "ESTABLISHED" },
	{ 4, "local", "fe80::/lid=1/qpn=0x000012" },
	{ 7, "pkey", NULL },
};

/* An error line: the words after its state have no names of their own. */
static const struct field_want group_fields[] = {
	{ 1, "mgid", NULL },
	{ 3, "field3", NULL },
	{ 4, "field4", "(bad" },
};

/* The connection line as doc/atsd-protocol.md shows it, and its fields
 * named for atsctl --json. */
static void test_conn(void **state)
{
	struct atsd_proto_conn_line c = { .id = 7, .active = 1, .state = "ESTABLISHED",
				    .sid = 0x10000ce1000012b7ULL, .local_lid = 1,
				    .remote_lid = 2, .local_qpn = 0x12, .remote_qpn = 0x34,
				    .src_port = 4791, .pkey = 0xffff };
	char buf[ATSD_PROTO_LINE_MAX];

	(void)state;
	c.local_gid[0] = c.remote_gid[0] = 0xfe;
	c.local_gid[1] = c.remote_gid[1] = 0x80;
	assert_int_equal(ats_ip_parse("10.0.0.1", &c.src), 0);
	assert_int_equal(ats_ip_parse("10.0.0.2", &c.dst), 0);
	atsd_proto_conn_format(buf, sizeof(buf), &c);
	assert_string_equal(buf, "0x00000007 active ESTABLISHED sid=0x10000ce1000012b7 "
			    "local=fe80::/lid=1/qpn=0x000012 remote=fe80::/lid=2/qpn=0x000034 "
			    "ip=10.0.0.1:4791->10.0.0.2 pkey=0xffff\n");
	check_fields(buf, ATSD_PROTO_LINE_CONN, 8, conn_fields,
		     sizeof(conn_fields) / sizeof(conn_fields[0]));
}

static void test_group(void **state)
{
	struct atsd_proto_group_line g = { .pkey = 0xffff, .qkey = 0x0b1b, .mlid = 0xc000,
				     .mtu = 2048, .sl = 0, .rate = 3 };
	char buf[ATSD_PROTO_LINE_MAX];

	(void)state;
	g.mgid[0] = 0xff;
	g.mgid[1] = 0x12;
	atsd_proto_group_format(buf, sizeof(buf), &g);
	assert_string_equal(buf, "0xffff ff12:: joined qkey=0x00000b1b mlid=0xc000 mtu=2048 sl=0 rate=3\n");
	g.error = "ERR_REQ_INVALID (bad request)";
	atsd_proto_group_format(buf, sizeof(buf), &g);
	assert_string_equal(buf, "0xffff ff12:: error ERR_REQ_INVALID (bad request)\n");
	check_fields(buf, ATSD_PROTO_LINE_GROUP, 6, group_fields,
		     sizeof(group_fields) / sizeof(group_fields[0]));
}

static void test_pkey_arg(void **state)
{
	uint16_t pk;

	(void)state;
	assert_int_equal(atsd_proto_pkey_arg(NULL, &pk), 0);
	assert_int_equal(pk, 0xffff);
	assert_int_equal(atsd_proto_pkey_arg("0x7fff", &pk), 0);
	assert_int_equal(pk, 0x7fff);
	assert_int_equal(atsd_proto_pkey_arg("pk", &pk), -EINVAL);
}

/* "OK N": written and read by one pair of functions. */
static void test_ok_line(void **state)
{
	char buf[32];
	size_t n = 0;

	(void)state;
	assert_int_equal(atsd_proto_ok_format(buf, sizeof(buf), 16), 6);
	assert_string_equal(buf, "OK 16\n");
	buf[5] = '\0';
	assert_int_equal(atsd_proto_ok_parse(buf, &n), 0);
	assert_int_equal(n, 16);
	assert_int_equal(atsd_proto_ok_parse("OK 100001", &n), -EPROTO);
	assert_int_equal(atsd_proto_ok_parse("OK 3x", &n), -EPROTO);
	assert_int_equal(atsd_proto_ok_parse("OK", &n), -EPROTO);
	assert_int_equal(atsd_proto_ok_parse("ERR ENOENT no", &n), -EPROTO);
}

/* verify's first line and holds lines: what atsd writes, clients read. */
static void test_resync_hold(void **state)
{
	struct atsd_proto_resync r = { 3, 1, 2, 1 }, back;
	struct atsd_proto_hold h;
	struct ats_ip ip;
	char buf[200];

	(void)state;
	atsd_proto_resync_format(buf, sizeof(buf), &r);
	assert_string_equal(buf, "checked 3 registered 1 deleted 2 refused 1\n");
	buf[strlen(buf) - 1] = '\0';
	assert_int_equal(atsd_proto_resync_parse(buf, &back), 0);
	assert_memory_equal(&r, &back, sizeof(r));
	assert_int_equal(atsd_proto_resync_parse("checked 3 registered 1 deleted 2", &back), -EPROTO);
	assert_int_equal(atsd_proto_resync_parse("checked 3 registered 1 deleted 2 refused 1 x", &back),
			 -EPROTO);
	assert_int_equal(ats_ip_parse("10.0.8.1", &ip), 0);
	atsd_proto_hold_format(buf, sizeof(buf), "jobA", 65534, &ip, 0xffff);
	assert_string_equal(buf, "jobA 65534 10.0.8.1 0xffff\n");
	buf[strlen(buf) - 1] = '\0';
	assert_int_equal(atsd_proto_hold_parse(buf, &h), 0);
	assert_string_equal(h.owner, "jobA");
	assert_int_equal(h.uid, 65534);
	assert_string_equal(h.ip, "10.0.8.1");
	assert_int_equal(h.pkey, 0xffff);
	assert_int_equal(atsd_proto_hold_parse("jobA 65534 10.0.8.1 0x10000", &h), -EPROTO);
	assert_int_equal(atsd_proto_hold_parse("jobA 65534 10.0.8.1", &h), -EPROTO);
	assert_int_equal(atsd_proto_verb_find("holds"), ATSD_PROTO_V_HOLDS);
	assert_false(atsd_proto_verbs[ATSD_PROTO_V_HOLDS].privileged);
}

static void test_lid(void **state)
{
	char buf[64], line[64];
	uint64_t guid;
	uint16_t lid;
	static const char *const bad_args[] = {
		"0", "0x0", "0xc000", "49152", "0xffff", "65535", "0x10012", "-1", "+4", " 4",
		"4 ", "0x", "x12", "12a", "0x12g", "99999999999999999999", "",
	};
	static const char *const bad_lines[] = {
		"", "0x0002c9030000a1b2", "0x0002c9030000a1b2 ", "0x0002c9030000a1b2 0x0000",
		"0x0002c9030000a1b2 0xc000", "0x0002c9030000a1b2 0xffff",
		"0x0002c9030000a1b2 0x00012", "0x0002c9030000a1b2 0x12 local",
		"0x0002c9030000a1b2  0x12", "0x0002c9030000a1b2\t0x12", "2c9030000a1b2 0x12",
		"0x10002c9030000a1b2 0x12", "0x0002c9030000a1bz 0x12", "0x 0x12",
		"0x0002c9030000a1b2 0x12\n", "0x0002c9030000a1b2 12", "-0x1 0x12",
	};
	size_t i;

	(void)state;
	assert_int_equal(atsd_proto_verb_find("lid"), ATSD_PROTO_V_LID);
	assert_false(atsd_proto_verbs[ATSD_PROTO_V_LID].privileged);
	assert_int_equal(atsd_proto_verbs[ATSD_PROTO_V_LID].min, 2);
	assert_int_equal(atsd_proto_verbs[ATSD_PROTO_V_LID].max, 2);
	assert_int_equal(atsd_proto_lid_arg("0x12", &lid), 0);
	assert_int_equal(lid, 0x12);
	assert_int_equal(atsd_proto_lid_arg("18", &lid), 0);
	assert_int_equal(lid, 18);
	assert_int_equal(atsd_proto_lid_arg("1", &lid), 0);
	assert_int_equal(atsd_proto_lid_arg("0xBFFF", &lid), 0);
	assert_int_equal(lid, 0xbfff);
	for (i = 0; i < sizeof(bad_args) / sizeof(bad_args[0]); i++) {
		lid = 7;
		assert_int_equal(atsd_proto_lid_arg(bad_args[i], &lid), -EINVAL);
		assert_int_equal(lid, 7);
	}
	assert_int_equal(atsd_proto_lid_arg(NULL, &lid), -EINVAL);
	/* Golden line. */
	assert_int_equal(atsd_proto_lid_format(buf, sizeof(buf), 0x0002c9030000a1b2ull, 0x12), 26);
	assert_string_equal(buf, "0x0002c9030000a1b2 0x0012\n");
	snprintf(line, sizeof(line), "%.*s", (int)strlen(buf) - 1, buf);
	assert_int_equal(atsd_proto_lid_parse(line, &guid, &lid), 0);
	assert_true(guid == 0x0002c9030000a1b2ull);
	assert_int_equal(lid, 0x12);
	assert_int_equal(atsd_proto_lid_parse("0xFFFFFFFFFFFFFFFF 0xBFFF", &guid, &lid), 0);
	assert_true(guid == UINT64_MAX);
	assert_int_equal(lid, 0xbfff);
	assert_int_equal(atsd_proto_lid_parse("0x1 0x1", &guid, &lid), 0);
	for (i = 0; i < sizeof(bad_lines) / sizeof(bad_lines[0]); i++) {
		guid = 5;
		lid = 7;
		assert_int_equal(atsd_proto_lid_parse(bad_lines[i], &guid, &lid), -EPROTO);
		assert_true(guid == 5 && lid == 7);
	}
}

TEST_MAIN(
	cmocka_unit_test(test_verbs),
	cmocka_unit_test(test_ok_line),
	cmocka_unit_test(test_stats),
	cmocka_unit_test(test_record),
	cmocka_unit_test(test_record_local),
	cmocka_unit_test(test_status),
	cmocka_unit_test(test_conn),
	cmocka_unit_test(test_group),
	cmocka_unit_test(test_pkey_arg),
	cmocka_unit_test(test_resync_hold),
	cmocka_unit_test(test_lid))
