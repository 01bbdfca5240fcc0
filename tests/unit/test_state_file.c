/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/ats.h"
#include "core/state_file.h"
#include "tmpconf.h"
#include "fixture.h"

/* A directory of its own and its state.json, tmp the writer's temporary. */
struct state_dir {
	char dir[sizeof("/tmp/osmats-state-XXXXXX")], path[128], tmp[140];
};

static void state_dir(struct state_dir *d)
{
	strcpy(d->dir, "/tmp/osmats-state-XXXXXX");
	assert_non_null(mkdtemp(d->dir));
	snprintf(d->path, sizeof(d->path), "%s/state.json", d->dir);
	snprintf(d->tmp, sizeof(d->tmp), "%s.tmp", d->path);
}

static void test_write_and_read_back(void **state)
{
	struct state_dir d;
	char buf[4096];
	struct state_file_counters cnt = { 0 };
	struct state_file_index idx = { 2, 1024, 1, 5, 0, 20000, 3, 9000 };
	struct state_file_info info = { "master", "OpenSM 3.3.23", 1700000000 };
	struct state_file_repl repl = { .role = "master", .epoch = 0xab, .head = 9, .in_sync = 1,
				   .standbys_in_sync = 2, .installed = 7, .takeovers = 1 };
	struct state_file_rec recs[2];
	struct state_file_summary sum;
	struct sr_record r;
	struct ats_ip ip;
	uint8_t gid[16];
	FILE *f;
	size_t n;

	(void)state;
	state_dir(&d);
	memset(recs, 0, sizeof(recs));
	ats_gid_parse("fe80::10:3", gid);
	ats_ip_parse("10.0.0.1", &ip);
	ats_record_init(&r, ATS_SID_PRIMARY, gid, 0xffff, SR_LEASE_INFINITE, &ip);
	memset(&sum, 0, sizeof(sum));
	state_file_summary_add(&sum, &r, 1);
	r.pkey = 0x7fff;
	state_file_summary_add(&sum, &r, 1);
	state_file_summary_add(&sum, &r, 0);
	r.pkey = 0xffff;
	state_file_rec_from(&recs[0], &r);
	recs[0].port_present = 1;
	ats_ip_parse("fd00::1", &ip);
	ats_record_init(&r, ATS_SID_PRIMARY + 1, gid, 0x8001, 60, &ip);
	state_file_rec_from(&recs[1], &r);
	recs[1].missing_sweeps = 2;
	sum.absent = 7;
	sum.scanned = 1700000000;
	cnt.accepted = 7;
	cnt.rejected[RULE_OWNER] = 3;
	cnt.warned[RULE_DUP_ADDR] = 1;
	cnt.flushed = 4;
	repl.standbys[0] = (struct state_file_standby){ 0x0002c90300000003ull, 8, 1, 120, 1 };
	repl.nstandbys = 1;
	assert_int_equal(state_file_write(d.path, &info, &sum, recs, 2, &cnt, &idx, &repl), 0);

	f = fopen(d.path, "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	assert_non_null(strstr(buf, "\"sm_state\": \"master\""));
	assert_non_null(strstr(buf, "\"accepted\": 7"));
	assert_non_null(strstr(buf, "\"ownership\": 3"));
	assert_non_null(strstr(buf, "\"flushed\": 4"));
	assert_non_null(strstr(buf, "\"index\": {\"records\": 2, \"bytes\": 1024, \"rebuilds\": 1, "
				    "\"gets_indexed\": 5, \"gets_fallback\": 0, \"get_avg_ns\": 4000, "
				    "\"sets\": 3, \"set_avg_ns\": 3000},\n"
				    "  \"replication\": {\"role\": \"master\", "
				    "\"epoch\": \"0x00000000000000ab\", \"head\": 9, \"applied\": 0, "
				    "\"in_sync\": true, \"standbys_in_sync\": 2, \"lag_ms\": 0, "
				    "\"snapshots\": 0, \"snapshot_records\": 0, \"snapshot_ms\": 0, "
				    "\"installed\": 7, \"takeovers\": 1, \"standbys\": [{\"guid\": "
				    "\"0x0002c90300000003\", \"acked\": 8, \"behind\": 1, \"in_sync\": true, "
				    "\"last_seen_ms\": 120}]},\n  \"services\": {"));
	assert_non_null(strstr(buf, "{\"sid\": \"0x10000ce100415453\", \"gid\": \"fe80::10:3\", "
				    "\"pkey\": \"0xffff\", \"lease\": 4294967295, \"ip\": \"10.0.0.1\", "
				    "\"port_present\": true, \"missing_sweeps\": 0}"));
	assert_non_null(strstr(buf, "\"ip\": \"fd00::1\", \"port_present\": false, \"missing_sweeps\": 2"));
	assert_non_null(strstr(buf, "\"services\": {\"ats\": 2, \"other\": 1, \"scanned\": 1700000000}"));
	/* One P_Key a line, as atsctl audit --state reads them. */
	assert_non_null(strstr(buf, "\n    {\"pkey\": \"0xffff\", \"ats_records\": 1},\n"
				    "    {\"pkey\": \"0x7fff\", \"ats_records\": 1}\n  ],"));
	assert_non_null(strstr(buf, "\"absent\": 7,"));
	assert_int_equal(access(d.tmp, F_OK), -1);

	/* Empty database, replacing the previous file. */
	memset(&sum, 0, sizeof(sum));
	assert_int_equal(state_file_write(d.path, &info, &sum, NULL, 0, &cnt, &idx, &repl), 0);
	f = fopen(d.path, "r");
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	assert_non_null(strstr(buf, "\"absent_records\": []"));
	assert_non_null(strstr(buf, "\"partitions\": [],"));
	unlink(d.path);
	rmdir(d.dir);
}

/* The file a plugin would write, with something in every field. */
static void sample(struct state_file_summary *sum, struct state_file_rec *recs,
		   struct state_file_counters *cnt, struct state_file_index *idx, struct state_file_repl *repl)
{
	struct sr_record r;
	struct ats_ip ip;
	uint8_t gid[16];
	unsigned i;

	memset(sum, 0, sizeof(*sum));
	memset(recs, 0, 3 * sizeof(*recs));
	memset(cnt, 0, sizeof(*cnt));
	memset(idx, 0, sizeof(*idx));
	ats_gid_parse("fe80::2c9:300:1:2", gid);
	ats_ip_parse("10.1.2.3", &ip);
	ats_record_init(&r, ATS_SID_PRIMARY, gid, 0xffff, SR_LEASE_INFINITE, &ip);
	state_file_summary_add(sum, &r, 1);
	r.pkey = 0x8001;
	state_file_summary_add(sum, &r, 1);
	state_file_summary_add(sum, &r, 0);
	sum->pkeys_more = 5;
	sum->absent = 4000;
	sum->scanned = -1;
	state_file_rec_from(&recs[0], &r);
	recs[0].missing_sweeps = 4294967295u;
	ats_ip_parse("fd00::7", &ip);
	ats_record_init(&r, ATS_SID_PRIMARY + 3, gid, 0x7fff, 0, &ip);
	state_file_rec_from(&recs[1], &r);
	recs[1].port_present = 1;
	memset(r.data8, 0, 16);
	state_file_rec_from(&recs[2], &r);
	cnt->accepted = UINT64_MAX;
	for (i = 1; i < RULE_COUNT; i++) {
		cnt->rejected[i] = i;
		cnt->warned[i] = 100 + i;
	}
	cnt->clamped = 8;
	cnt->flushed = 9;
	*idx = (struct state_file_index){ 2, 1024, 1, 5, 6, 5 * 4000, 3, 3 * 3000 };
	*repl = (struct state_file_repl){ .role = "standby", .epoch = 0xfedcba9876543210ull,
				     .head = UINT64_MAX, .applied = 42, .in_sync = 1,
				     .standbys_in_sync = 3, .lag_ms = 17, .snapshots = 2,
				     .snapshot_records = 100000, .snapshot_ms = 250,
				     .installed = 99999, .takeovers = 4 };
	repl->standbys[0] = (struct state_file_standby){ 0x0002c90300000005ull, 42, 0, 7, 1 };
	repl->standbys[1] = (struct state_file_standby){ UINT64_MAX, 0, UINT64_MAX, UINT64_MAX, 0 };
	repl->nstandbys = 2;
}

static void assert_repl_equal(const struct state_file_repl *a, const struct state_file_repl *b)
{
	assert_string_equal(a->role, b->role);
	assert_true(a->epoch == b->epoch && a->head == b->head && a->applied == b->applied);
	assert_int_equal(a->in_sync, b->in_sync);
	assert_true(a->standbys_in_sync == b->standbys_in_sync && a->lag_ms == b->lag_ms);
	assert_true(a->snapshots == b->snapshots && a->snapshot_records == b->snapshot_records &&
		    a->snapshot_ms == b->snapshot_ms);
	assert_true(a->installed == b->installed && a->takeovers == b->takeovers);
	assert_int_equal(a->nstandbys, b->nstandbys);
	assert_memory_equal(a->standbys, b->standbys, a->nstandbys * sizeof(a->standbys[0]));
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 65536);

	assert_non_null(f);
	assert_non_null(buf);
	*len = fread(buf, 1, 65535, f);
	fclose(f);
	return buf;
}

static void put(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	fclose(f);
}

/* The fixture of the reading tests: sample() written, and its text. */
struct written {
	struct state_dir d;
	char *text;
	size_t len;
};

static int sample_setup(void **state)
{
	struct state_file_info info = { "master", "OpenSM \"3.3\"\x01 \xc3\xa9", -5 };
	struct written *w = calloc(1, sizeof(*w));
	struct state_file_summary sum;
	struct state_file_rec recs[3];
	struct state_file_counters cnt;
	struct state_file_index idx;
	struct state_file_repl repl;

	assert_non_null(w);
	state_dir(&w->d);
	sample(&sum, recs, &cnt, &idx, &repl);
	assert_int_equal(state_file_write(w->d.path, &info, &sum, recs, 3, &cnt, &idx, &repl), 0);
	w->text = slurp(w->d.path, &w->len);
	*state = w;
	return 0;
}

static int sample_teardown(void **state)
{
	struct written *w = *state;

	unlink(w->d.path);
	rmdir(w->d.dir);
	free(w->text);
	free(w);
	return 0;
}

static void test_round_trip(void **state)
{
	struct written *w = *state;
	struct state_file_summary sum;
	char err[200];
	struct state_file_rec recs[3];
	struct state_file_counters cnt;
	struct state_file_index idx;
	struct state_file_repl repl;
	struct state_file sf;
	size_t i;

	sample(&sum, recs, &cnt, &idx, &repl);
	assert_int_equal(state_file_read(w->d.path, &sf, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	assert_string_equal(sf.plugin, "osmats " IBATS_VERSION);
	assert_string_equal(sf.opensm, "OpenSM \"3.3\"\x01 \xc3\xa9");
	assert_string_equal(sf.sm_state, "master");
	assert_int_equal(sf.time, -5);
	assert_memory_equal(&sf.counters, &cnt, sizeof(cnt));
	assert_memory_equal(&sf.index, &idx, sizeof(idx));
	assert_repl_equal(&sf.repl, &repl);
	assert_int_equal(sf.summary.ats, sum.ats);
	assert_int_equal(sf.summary.other, sum.other);
	assert_int_equal(sf.summary.scanned, sum.scanned);
	assert_int_equal(sf.summary.pkeys_more, sum.pkeys_more);
	assert_int_equal(sf.summary.absent, sum.absent);
	assert_int_equal(sf.summary.npkeys, 2);
	for (i = 0; i < 2; i++) {
		assert_int_equal(sf.summary.pkeys[i].pkey, sum.pkeys[i].pkey);
		assert_int_equal(sf.summary.pkeys[i].n, sum.pkeys[i].n);
	}
	assert_int_equal(sf.nrecs, 3);
	assert_memory_equal(sf.recs, recs, sizeof(recs));
	state_file_free(&sf);
}

/* A file of a plugin before the standbys' list reads back as none. */
static void test_without_standbys(void **state)
{
	struct written *w = *state;
	char err[200], *text = w->text, *at, *end;
	struct state_file sf;

	at = strstr(text, ", \"standbys\": [");
	assert_non_null(at);
	end = strstr(at, "]}");
	assert_non_null(end);
	memmove(at, end + 1, strlen(end + 1) + 1);
	assert_null(strstr(text, "standbys\""));
	put(w->d.path, text, strlen(text));
	assert_int_equal(state_file_read(w->d.path, &sf, err, sizeof(err)), 0);
	assert_int_equal(sf.repl.nstandbys, 0);
	assert_int_equal(sf.repl.takeovers, 4);
	state_file_free(&sf);
}

/* Every prefix of a good file is refused, and says where it stopped. */
static void test_truncated(void **state)
{
	struct written *w = *state;
	struct state_file sf;
	char err[200];
	size_t cut;

	/* The last byte is the newline json_fini ends the line with. */
	for (cut = 0; cut + 1 < w->len; cut++) {
		put(w->d.path, w->text, cut);
		assert_int_equal(state_file_read(w->d.path, &sf, err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "line "));
		assert_null(sf.recs);
	}
}

/* text without the line that starts with start, into out. */
static void drop_line(char *out, const char *text, const char *start)
{
	const char *at = strstr(text, start);

	assert_non_null(at);
	memcpy(out, text, (size_t)(at - text));
	strcpy(out + (at - text), strchr(at, '\n') + 1);
}

/* Edits of a good file: each one refused with -EINVAL, naming the line
 * and the member. */
static void test_hostile(void **state)
{
	static const struct {
		const char *from, *to, *why;
	} edits[] = {
		{ "\"version\": 3", "\"version\": 2", "\"version\": 2, not 3" },
		{ "\"plugin\": \"osmats", "\"plugin\": \"other", "\"plugin\": not osmats" },
		{ "\"accepted\": 18446744073709551615", "\"accepted\": 18446744073709551616",
		  "\"accepted\": not a number" },
		{ "\"clamped\": 8", "\"clamped\": -8", "\"clamped\": not a number" },
		{ "\"clamped\": 8", "\"clamped\": 08", "\"clamped\": not a number" },
		{ "\"clamped\": 8", "\"clamped\": \"8\"", "\"clamped\": not a number" },
		{ "\"flushed\": 9", "\"flushed\": 9, \"extra\": 1", "expected '}' after \"flushed\"" },
		{ "\"ownership\"", "\"owner\"", "expected \"ownership\"" },
		{ "\"pkey\": \"0x8001\"", "\"pkey\": \"0x18001\"", "\"pkey\": not 0x and 4 hex digits" },
		{ "\"lease\": 0", "\"lease\": 4294967296", "\"lease\": not a number" },
		{ "\"gid\": \"fe80", "\"gid\": \"xe80", "\"gid\": not a GID" },
		{ "\"ip\": \"fd00::7\"", "\"ip\": \"fd00::7\\u0000\"", "\"ip\": bad \\u escape" },
		{ "\"ip\": \"fd00::7\"", "\"ip\": \"\\ud800\"", "\"ip\": bad \\u escape" },
		{ "\"port_present\": true", "\"port_present\": 1", "\"port_present\": not true or false" },
		{ "\"sm_state\": \"master\"", "\"sm_state\": \"master\\q\"", "\"sm_state\": bad escape" },
		{ "\"sm_state\": \"master\"", "\"sm_state\": \"" "0123456789012345678901234567890123456789\"",
		  "\"sm_state\": longer than 31 bytes" },
		{ "\n}\n", "\n}\n{}\n", "data after the document" },
		{ "\"partitions\": [", "\"partitions\": {", "expected '[' partitions" },
		/* The replication object, member by member. */
		{ "\"replication\": {", "\"replication\": [", "expected '{' replication" },
		{ "\"role\": \"standby\"", "\"role\": \"slave\"",
		  "\"role\": not off, error, master or standby" },
		{ "\"role\": \"standby\"", "\"role\": \"Standby\"",
		  "\"role\": not off, error, master or standby" },
		{ "\"role\": \"standby\"", "\"role\": \"standby-standby!\"",
		  "\"role\": longer than 15 bytes" },
		{ "\"role\": \"standby\"", "\"role\": 1", "\"role\": not a string" },
		{ "\"epoch\": \"0xfedcba9876543210\"", "\"epoch\": \"0xFEDCBA9876543210\"",
		  "\"epoch\": not 0x and 16 hex digits" },
		{ "\"epoch\": \"0xfedcba9876543210\"", "\"epoch\": \"0xfedcba987654321\"",
		  "\"epoch\": not 0x and 16 hex digits" },
		{ "\"epoch\": \"0xfedcba9876543210\"", "\"epoch\": \"fedcba9876543210\"",
		  "\"epoch\": not 0x and 16 hex digits" },
		{ "\"epoch\": \"0xfedcba9876543210\"", "\"epoch\": \"0xfedcba987654321g\"",
		  "\"epoch\": not 0x and 16 hex digits" },
		{ "\"epoch\": \"0xfedcba9876543210\"", "\"epoch\": 18364758544493064720",
		  "\"epoch\": not a string" },
		{ "\"head\": 18446744073709551615", "\"head\": \"18446744073709551615\"",
		  "\"head\": not a number" },
		{ "\"applied\": 42", "\"applied\": -42", "\"applied\": not a number" },
		{ "\"in_sync\": true", "\"in_sync\": 1", "\"in_sync\": not true or false" },
		{ "\"in_sync\": true", "\"in_sync\": \"true\"", "\"in_sync\": not true or false" },
		{ "\"snapshot_ms\": 250", "\"snapshot_ms\": 2.5", "expected ',' installed" },
		{ "\"lag_ms\": 17, ", "", "expected \"lag_ms\"" },
		{ "\"role\": \"standby\", ", "", "expected \"role\"" },
		{ "\"takeovers\": 4", "\"takeovers\": 4, \"extra\": 0",
		  "expected \"standbys\"" },
		{ "\"takeovers\": 4, \"standbys\": [", "\"takeovers\": 4}, \"standbys\": [",
		  "expected \"services\"" },
		/* Each standby the master lists. */
		{ "\"standbys\": [", "\"standbys\": {", "expected '[' standbys" },
		{ "\"guid\": \"0x0002c90300000005\"", "\"guid\": \"0x2c90300000005\"",
		  "\"guid\": not 0x and 16 hex digits" },
		{ "\"acked\": 42", "\"acked\": -1", "\"acked\": not a number" },
		{ "\"behind\": 0", "\"behind\": 0.5", "expected ',' in_sync" },
		{ "\"in_sync\": false", "\"in_sync\": 0", "\"in_sync\": not true or false" },
		{ "\"last_seen_ms\": 7}", "\"last_seen_ms\": 7, \"x\": 1}", "expected '}' standbys" },
		{ "\"last_seen_ms\": 7}", "\"last_seen_ms\": 7}, 3", "expected '{' standbys" },
		{ "}]}", "}], \"extra\": 0}", "expected '}' after \"standbys\"" },
		{ "\"snapshots\": 2, \"snapshot_records\": 100000",
		  "\"snapshot_records\": 100000, \"snapshots\": 2", "expected \"snapshots\"" },
	};
	struct written *w = *state;
	const char *path = w->d.path, *text = w->text;
	size_t len = w->len, i;
	struct state_file sf;
	char err[200], *bad;

	bad = malloc(len + 200);
	assert_non_null(bad);
	for (i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
		const char *at = strstr(text, edits[i].from);
		size_t pre;

		assert_non_null(at);
		pre = (size_t)(at - text);
		memcpy(bad, text, pre);
		strcpy(bad + pre, edits[i].to);
		strcat(bad, at + strlen(edits[i].from));
		put(path, bad, strlen(bad));
		if (state_file_read(path, &sf, err, sizeof(err)) != -EINVAL)
			fail_msg("edit %zu: read", i);
		if (!strstr(err, edits[i].why))
			fail_msg("edit %zu: '%s' does not say '%s'", i, err, edits[i].why);
		assert_non_null(strstr(err, "line "));
	}
	/* A file of this version without the replication object. */
	drop_line(bad, text, "  \"replication\": {");
	put(path, bad, strlen(bad));
	assert_int_equal(state_file_read(path, &sf, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "expected \"replication\""));
	assert_null(sf.recs);
	/* A NUL byte, and a file that is no state file at all. */
	memcpy(bad, text, len);
	bad[10] = '\0';
	put(path, bad, len);
	assert_int_equal(state_file_read(path, &sf, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "line 1: a NUL byte");
	put(path, "{\"not\": \"a state file\"}\n", 24);
	assert_int_equal(state_file_read(path, &sf, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "line 1: expected \"version\"");
	/* The line counts. */
	put(path, "{\n\n  \"version\": 3,\n  \"plugin\": 7", 32);
	assert_int_equal(state_file_read(path, &sf, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "line 4: \"plugin\": not a string");
	unlink(path);
	assert_int_equal(state_file_read(path, &sf, err, sizeof(err)), -ENOENT);
	/* No regular file: refused at once, not read (a FIFO would hang,
	 * /dev/zero fill the memory). */
	assert_int_equal(mkfifo(path, 0600), 0);
	alarm(10);
	assert_int_equal(state_file_read(path, &sf, err, sizeof(err)), -EINVAL);
	alarm(0);
	assert_string_equal(err, "not a regular file");
	unlink(path);
	alarm(10);
	assert_int_equal(state_file_read("/dev/zero", &sf, err, sizeof(err)), -EINVAL);
	alarm(0);
	assert_string_equal(err, "not a regular file");
	free(bad);
}

/* An empty database of the given replication role into path. */
static int write_empty(const char *path, const char *role)
{
	struct state_file_counters cnt = { 0 };
	struct state_file_index idx = { 0 };
	struct state_file_info info = { "master", "OpenSM 3.3.23", 0 };
	struct state_file_summary sum = { 0 };
	struct state_file_repl repl = { 0 };

	snprintf(repl.role, sizeof(repl.role), "%s", role);
	return state_file_write(path, &info, &sum, NULL, 0, &cnt, &idx, &repl);
}

static void test_unwritable(void **state)
{
	(void)state;
	assert_int_equal(write_empty("/nonexistent/dir/state.json", "off"), -ENOENT);
}

/* The plugin runs as root in OpenSM: a symlink planted at the
 * temporary's name is not written through. */
static void test_symlink(void **state)
{
	struct state_dir d;
	char victim[128];

	(void)state;
	state_dir(&d);
	snprintf(victim, sizeof(victim), "%s/victim", d.dir);
	tmpconf_put(victim, "secret\n");
	assert_int_equal(symlink(victim, d.tmp), 0);
	assert_int_equal(write_empty(d.path, "off"), 0);
	tmpconf_assert(victim, "secret\n");
	assert_int_equal(access(d.tmp, F_OK), -1);
	unlink(d.path);
	unlink(victim);
	rmdir(d.dir);
}

/* A role its reader would refuse is not written at all. */
static void test_unknown_role(void **state)
{
	static const char *const roles[] = { "", "slave", "Master", "off " };
	struct state_dir d;
	size_t i;

	(void)state;
	state_dir(&d);
	for (i = 0; i < sizeof(roles) / sizeof(roles[0]); i++) {
		assert_int_equal(write_empty(d.path, roles[i]), -EINVAL);
		assert_int_equal(access(d.path, F_OK), -1);
		assert_int_equal(access(d.tmp, F_OK), -1);
	}
	rmdir(d.dir);
}

TEST_MAIN(
	cmocka_unit_test(test_write_and_read_back),
	cmocka_unit_test(test_unwritable),
	cmocka_unit_test(test_unknown_role),
	cmocka_unit_test(test_symlink),
	cmocka_unit_test_setup_teardown(test_round_trip, sample_setup, sample_teardown),
	cmocka_unit_test_setup_teardown(test_without_standbys, sample_setup, sample_teardown),
	cmocka_unit_test_setup_teardown(test_truncated, sample_setup, sample_teardown),
	cmocka_unit_test_setup_teardown(test_hostile, sample_setup, sample_teardown))
