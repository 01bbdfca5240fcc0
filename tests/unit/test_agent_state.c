/* atsd's state file: what it registered, across crashes. */
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

#include "agent_state.h"
#include "tmpconf.h"

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
	struct held_rec r[2], *out;
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
	assert_int_equal(astate_save(path, gid, r, 2), 0);
	assert_int_equal(astate_load(path, gid, &out, &n, &why), 0);
	assert_int_equal(n, 2);
	assert_true(out[1].sid == r[1].sid && out[1].pkey == 0x8001 &&
		    ats_ip_equal(&out[1].ip, &r[1].ip));
	free(out);
	/* Empty is a valid list: atsd owns nothing. */
	assert_int_equal(astate_save(path, gid, NULL, 0), 0);
	assert_int_equal(astate_load(path, gid, &out, &n, &why), 0);
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
	assert_int_equal(astate_save(path, gid, NULL, 0), 0);
	unlink(tmp);
	assert_int_equal(link(victim, tmp), 0);
	assert_int_equal(astate_save(path, gid, NULL, 0), 0);
	tmpconf_assert(victim, "precious\n");
	unlink(victim);
}

static void test_damaged(void **state)
{
	static const uint8_t other[16] = { 0xfe, 0x80, [15] = 4 };
	struct held_rec *out;
	const char *why;
	size_t n;

	(void)state;
	assert_int_equal(astate_load("/nonexistent/ibats.state", gid, &out, &n, &why), -ENOENT);
	tmpconf_write(path, sizeof(path), "atsd-state-test", "");
	assert_int_equal(astate_load(path, gid, &out, &n, &why), -EBADMSG);
	tmpconf_write(path, sizeof(path), "atsd-state-test", "garbage\n");
	assert_int_equal(astate_load(path, gid, &out, &n, &why), -EBADMSG);
	/* Cut short: no end line. */
	tmpconf_write(path, sizeof(path), "atsd-state-test",
		      "ibats-atsd-state 1 fe80::3\n0x10000ce100415453 0xffff 10.0.0.1\n");
	assert_int_equal(astate_load(path, gid, &out, &n, &why), -EBADMSG);
	assert_non_null(strstr(why, "cut short"));
	tmpconf_write(path, sizeof(path), "atsd-state-test",
		      "ibats-atsd-state 1 fe80::3\n0x10000ce100415453 0xffff 10.0.0.1\nend 2\n");
	assert_int_equal(astate_load(path, gid, &out, &n, &why), -EBADMSG);
	/* Outside the SID block: not something atsd registers. */
	tmpconf_write(path, sizeof(path), "atsd-state-test",
		      "ibats-atsd-state 1 fe80::3\n0x10000ce100415353 0xffff 10.0.0.1\nend 1\n");
	assert_int_equal(astate_load(path, gid, &out, &n, &why), -EBADMSG);
	tmpconf_write(path, sizeof(path), "atsd-state-test",
		      "ibats-atsd-state 1 fe80::3\n0x10000ce100415453 0xffff 10.0.0.1\nend 1\n");
	assert_int_equal(astate_load(path, gid, &out, &n, &why), 0);
	free(out);
	/* Another port's file. */
	assert_int_equal(astate_load(path, other, &out, &n, &why), -EBADMSG);
	assert_non_null(strstr(why, "another GID"));
	/* A directory that cannot take the file: an error, not a crash. */
	assert_true(astate_save("/proc/ibats-no/x.state", gid, NULL, 0) < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_round_trip, teardown),
		cmocka_unit_test_teardown(test_damaged, teardown),
		cmocka_unit_test_teardown(test_planted_tmp, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
