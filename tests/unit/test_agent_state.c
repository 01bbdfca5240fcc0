/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* atsd's state file: what it registered, across crashes. */
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

#include "model/agent_state.h"
#include "tmpconf.h"
#include "fixture.h"

static char path[64];

static int teardown(void **state)
{
	char tmp[80];

	(void)state;
	unlink(path);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	unlink(tmp);
	return 0;
}

static const uint8_t gid[16] = { 0xfe, 0x80, [15] = 3 };

static void test_round_trip(void **state)
{
	struct plan_held_rec r[2], *out;
	const char *why;
	size_t n;

	(void)state;
	memset(r, 0, sizeof(r));
	r[0].sid = ATS_SID_PRIMARY;
	r[0].pkey = 0xffff;
	assert_int_equal(ats_ip_parse("10.0.0.1", &r[0].ip), 0);
	r[1].sid = ats_sid_at(1);
	r[1].pkey = 0x8001;
	assert_int_equal(ats_ip_parse("fd00::1", &r[1].ip), 0);
	tmpconf_write(path, sizeof(path), "atsd-state-test", "");
	assert_int_equal(agent_state_save(path, gid, r, 2), 0);
	assert_int_equal(agent_state_load(path, gid, &out, &n, &why), 0);
	assert_int_equal(n, 2);
	assert_true(out[1].sid == r[1].sid && out[1].pkey == 0x8001 &&
		    ats_ip_equal(&out[1].ip, &r[1].ip));
	free(out);
	/* Empty is a valid list: atsd owns nothing. */
	assert_int_equal(agent_state_save(path, gid, NULL, 0), 0);
	assert_int_equal(agent_state_load(path, gid, &out, &n, &why), 0);
	assert_int_equal(n, 0);
	free(out);
}

/* Root atsd never writes through a link planted at STATE.tmp (a hard
 * link would be truncated through O_TRUNC alone): the temporary is made
 * anew (afile.c). */
static void test_planted_tmp(void **state)
{
	char tmp[80], victim[80];

	(void)state;
	tmpconf_write(path, sizeof(path), "atsd-state-test", "");
	tmpconf_write(victim, sizeof(victim), "atsd-state-victim", "precious\n");
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	unlink(tmp);
	assert_int_equal(symlink(victim, tmp), 0);
	assert_int_equal(agent_state_save(path, gid, NULL, 0), 0);
	unlink(tmp);
	assert_int_equal(link(victim, tmp), 0);
	assert_int_equal(agent_state_save(path, gid, NULL, 0), 0);
	tmpconf_assert(victim, "precious\n");
	unlink(victim);
}

static void test_damaged(void **state)
{
	static const uint8_t other[16] = { 0xfe, 0x80, [15] = 4 };
	struct plan_held_rec *out;
	const char *why;
	size_t n;

	(void)state;
	assert_int_equal(agent_state_load("/nonexistent/ibats.state", gid, &out, &n, &why), -ENOENT);
	tmpconf_write(path, sizeof(path), "atsd-state-test", "");
	assert_int_equal(agent_state_load(path, gid, &out, &n, &why), -EBADMSG);
	tmpconf_write(path, sizeof(path), "atsd-state-test", "garbage\n");
	assert_int_equal(agent_state_load(path, gid, &out, &n, &why), -EBADMSG);
	/* Cut short: no end line. */
	tmpconf_write(path, sizeof(path), "atsd-state-test",
		      "ibats-atsd-state 1 fe80::3\n0x10000ce100415453 0xffff 10.0.0.1\n");
	assert_int_equal(agent_state_load(path, gid, &out, &n, &why), -EBADMSG);
	assert_non_null(strstr(why, "cut short"));
	tmpconf_write(path, sizeof(path), "atsd-state-test",
		      "ibats-atsd-state 1 fe80::3\n0x10000ce100415453 0xffff 10.0.0.1\nend 2\n");
	assert_int_equal(agent_state_load(path, gid, &out, &n, &why), -EBADMSG);
	/* Outside the SID block: not something atsd registers. */
	tmpconf_write(path, sizeof(path), "atsd-state-test",
		      "ibats-atsd-state 1 fe80::3\n0x10000ce100415353 0xffff 10.0.0.1\nend 1\n");
	assert_int_equal(agent_state_load(path, gid, &out, &n, &why), -EBADMSG);
	tmpconf_write(path, sizeof(path), "atsd-state-test",
		      "ibats-atsd-state 1 fe80::3\n0x10000ce100415453 0xffff 10.0.0.1\nend 1\n");
	assert_int_equal(agent_state_load(path, gid, &out, &n, &why), 0);
	free(out);
	/* Another port's file. */
	assert_int_equal(agent_state_load(path, other, &out, &n, &why), -EBADMSG);
	assert_non_null(strstr(why, "another GID"));
	/* A directory that cannot take the file: an error, not a crash. */
	assert_true(agent_state_save("/proc/ibats-no/x.state", gid, NULL, 0) < 0);
}

static struct plan_action act(enum plan_op op, unsigned slot, const char *ip)
{
	struct plan_action a = { .op = op, .sid = ats_sid_at(slot), .pkey = 0xffff };

	assert_int_equal(ats_ip_parse(ip, &a.ip), 0);
	return a;
}

/* Issue 22, finding 8: the state file could not list a plan's Sets.
 * Deletes go on, and Sets of records the file already lists (a Set that
 * timed out before, listed then); a Set of a new record stays back, or
 * after a crash it would stay in the SA for ever. */
static void test_gate(void **state)
{
	struct plan_action p[5];
	struct plan_held_rec filed[2];
	size_t n;

	(void)state;
	p[0] = act(PLAN_DELETE, 2, "10.0.0.9");
	p[1] = act(PLAN_SET, 0, "10.0.0.1");  /* listed */
	p[2] = act(PLAN_SET, 1, "10.0.0.2");  /* new */
	p[3] = act(PLAN_SET, 3, "10.0.0.1");  /* listed address, another SID */
	p[4] = act(PLAN_SET, 4, "10.0.0.4");  /* listed SID, another address */
	memset(filed, 0, sizeof(filed));
	filed[0].sid = ats_sid_at(0);
	filed[0].pkey = 0xffff;
	assert_int_equal(ats_ip_parse("10.0.0.1", &filed[0].ip), 0);
	filed[1].sid = ats_sid_at(4);
	filed[1].pkey = 0xffff;
	assert_int_equal(ats_ip_parse("10.0.0.5", &filed[1].ip), 0);
	n = agent_state_gate(p, 5, filed, 2);
	assert_int_equal(n, 2);
	assert_true(p[0].op == PLAN_DELETE && p[0].sid == ats_sid_at(2));
	assert_true(p[1].op == PLAN_SET && p[1].sid == ats_sid_at(0));
	/* The held-back ones follow, in their order. */
	assert_true(p[2].sid == ats_sid_at(1) && p[3].sid == ats_sid_at(3) &&
		    p[4].sid == ats_sid_at(4));
	/* Nothing listed: every Set stays back, deletes go. */
	p[0] = act(PLAN_SET, 0, "10.0.0.1");
	p[1] = act(PLAN_DELETE, 1, "10.0.0.2");
	assert_int_equal(agent_state_gate(p, 2, NULL, 0), 1);
	assert_int_equal(p[0].op, PLAN_DELETE);
}

/* Where a state file may be: not in a directory others may swap it in,
 * and not a symlink (atsd reads it as root at start). */
static void test_check(void **state)
{
	char dir[] = "/tmp/ibats-astate.XXXXXX", file[64], why[320];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/atsd.state", dir);
	assert_int_equal(agent_state_check(file, why, sizeof(why)), 0);
	/* Not there yet: atsd makes it, 0755. */
	assert_int_equal(agent_state_check("/nonexistent-ibats/atsd.state", why, sizeof(why)), 0);
	assert_int_equal(chmod(dir, 0777), 0);
	assert_int_equal(agent_state_check(file, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, dir));
	assert_non_null(strstr(why, "writable by others"));
	assert_int_equal(chmod(dir, 0770), 0);
	assert_int_equal(agent_state_check(file, why, sizeof(why)), -EPERM);
	/* Sticky, as /tmp: others cannot replace root's file there. */
	assert_int_equal(chmod(dir, 01777), 0);
	assert_int_equal(agent_state_check(file, why, sizeof(why)), 0);
	assert_int_equal(chmod(dir, 0755), 0);
	if (geteuid() == 0) {
		assert_int_equal(chown(dir, 4242, (gid_t)-1), 0);
		assert_int_equal(agent_state_check(file, why, sizeof(why)), -EPERM);
		assert_non_null(strstr(why, "owned by uid 4242"));
		assert_int_equal(chown(dir, 0, (gid_t)-1), 0);
	}
	assert_int_equal(symlink("/etc/passwd", file), 0);
	assert_int_equal(agent_state_check(file, why, sizeof(why)), -ELOOP);
	assert_non_null(strstr(why, "symbolic link"));
	unlink(file);
	rmdir(dir);
}

/* A sticky directory others may write to (/tmp) keeps them from
 * replacing root's state file, not from making it first: a regular file
 * another user planted before atsd's first write would be read at start
 * as atsd's own list (records deleted or adopted on a stranger's word). */
static void test_check_planted(void **state)
{
	char dir[] = "/tmp/ibats-astate.XXXXXX", file[64], why[320];
	FILE *f;

	(void)state;
	if (geteuid() != 0)
		skip(); /* a file of another user needs chown */
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chmod(dir, 01777), 0);
	snprintf(file, sizeof(file), "%s/atsd.state", dir);
	f = fopen(file, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(agent_state_check(file, why, sizeof(why)), 0);
	assert_int_equal(chown(file, 4242, (gid_t)-1), 0);
	assert_int_equal(agent_state_check(file, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, file));
	assert_non_null(strstr(why, "owned by uid 4242"));
	/* Nor anything but a regular file (a FIFO would hang the start). */
	unlink(file);
	assert_int_equal(mkfifo(file, 0600), 0);
	assert_int_equal(agent_state_check(file, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "not a regular file"));
	unlink(file);
	rmdir(dir);
}

/* agent_state_check runs at start and reload, the load later (once the port's
 * GID is known): a file planted or swapped for a symlink between them is
 * still not read as atsd's list. */
static void test_load_foreign(void **state)
{
	char lnk[96];
	struct plan_held_rec r, *out;
	const char *why;
	size_t n;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.sid = ATS_SID_PRIMARY;
	r.pkey = 0xffff;
	assert_int_equal(ats_ip_parse("10.0.0.1", &r.ip), 0);
	tmpconf_write(path, sizeof(path), "atsd-state-test", "");
	assert_int_equal(agent_state_save(path, gid, &r, 1), 0);
	snprintf(lnk, sizeof(lnk), "%s.lnk", path);
	unlink(lnk);
	assert_int_equal(symlink(path, lnk), 0);
	assert_int_equal(agent_state_load(lnk, gid, &out, &n, &why), -EBADMSG);
	assert_non_null(strstr(why, "symbolic link"));
	unlink(lnk);
	if (geteuid() != 0)
		return; /* a file of another user needs chown */
	assert_int_equal(chown(path, 4242, (gid_t)-1), 0);
	assert_int_equal(agent_state_load(path, gid, &out, &n, &why), -EBADMSG);
	assert_non_null(strstr(why, "owned by uid 4242"));
}

TEST_MAIN(
	cmocka_unit_test_teardown(test_round_trip, teardown),
	cmocka_unit_test_teardown(test_damaged, teardown),
	cmocka_unit_test_teardown(test_planted_tmp, teardown),
	cmocka_unit_test(test_gate),
	cmocka_unit_test(test_check),
	cmocka_unit_test(test_check_planted),
	cmocka_unit_test_teardown(test_load_foreign, teardown))
