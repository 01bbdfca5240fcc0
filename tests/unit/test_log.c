/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* log: stderr lines carry sd-daemon(3) "<N>" priorities exactly when
 * $JOURNAL_STREAM names stderr's device and inode (sd_journal_stream_fd(3)),
 * and none otherwise: unset, another file's, malformed. */
#define _GNU_SOURCE
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

#include "core/log.h"
#include "fixture.h"

static char path[] = "/tmp/test_log.XXXXXX";
static int saved_err = -1;

/* stderr into a fresh file; its "DEV:INODE" in ID. */
static int setup(void **state)
{
	struct stat st;
	int fd;

	(void)state;
	strcpy(path, "/tmp/test_log.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0 || fstat(fd, &st))
		return -1;
	fflush(stderr);
	saved_err = dup(STDERR_FILENO);
	dup2(fd, STDERR_FILENO);
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	fflush(stderr);
	dup2(saved_err, STDERR_FILENO);
	close(saved_err);
	unlink(path);
	unsetenv("JOURNAL_STREAM");
	return 0;
}

static void set_stream(long long ino_delta, const char *suffix)
{
	struct stat st;
	char v[64];

	assert_int_equal(fstat(STDERR_FILENO, &st), 0);
	snprintf(v, sizeof(v), "%llu:%llu%s", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino + (unsigned long long)ino_delta, suffix);
	setenv("JOURNAL_STREAM", v, 1);
}

/* What was logged so far. */
static const char *logged(void)
{
	static char buf[1024];
	FILE *f;
	size_t n;

	fflush(stderr);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void test_journal(void **state)
{
	(void)state;
	set_stream(0, "");
	log_init("t", LOG_LVL_DEBUG);
	log_err("e %d", 1);
	log_warn("w");
	log_info("i");
	log_debug("d");
	assert_string_equal(logged(), "<3>t: error: e 1\n<4>t: warning: w\n"
			    "<6>t: info: i\n<7>t: debug: d\n");
}

static void test_unset(void **state)
{
	(void)state;
	unsetenv("JOURNAL_STREAM");
	log_init("t", LOG_LVL_INFO);
	log_warn("w");
	log_debug("not at this level");
	assert_string_equal(logged(), "t: warning: w\n");
}

/* A shell's redirection under the unit: stderr is not the stream. */
static void test_other_stream(void **state)
{
	(void)state;
	set_stream(1, "");
	log_init("t", LOG_LVL_INFO);
	log_warn("w");
	assert_string_equal(logged(), "t: warning: w\n");
}

static void test_malformed(void **state)
{
	(void)state;
	set_stream(0, "x");
	log_init("t", LOG_LVL_INFO);
	log_err("a");
	setenv("JOURNAL_STREAM", "12", 1);
	log_init("t", LOG_LVL_INFO);
	log_err("b");
	assert_string_equal(logged(), "t: error: a\nt: error: b\n");
}

/* A string from a peer or a client with a newline and a "<0>" cannot
 * forge a line of its own, nor its priority: control bytes as \xNN. */
static void test_injection(void **state)
{
	(void)state;
	set_stream(0, "");
	log_init("t", LOG_LVL_INFO);
	log_info("name %s end", "a\n<0>forged\r\x1b[2J\x7f");
	assert_string_equal(logged(), "<6>t: info: name a\\x0a<0>forged\\x0d\\x1b[2J\\x7f end\n");
}

TEST_MAIN(
	FIXTURE_TEST(test_journal),
	FIXTURE_TEST(test_unset),
	FIXTURE_TEST(test_other_stream),
	FIXTURE_TEST(test_malformed),
	FIXTURE_TEST(test_injection))
