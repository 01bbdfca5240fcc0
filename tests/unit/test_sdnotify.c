/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* sdnotify: the datagrams a listener on $NOTIFY_SOCKET receives (a path
 * and an abstract name), and the addresses refused (relative, overlong)
 * or absent (no manager: every call a no-op), and a manager that does
 * not read. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "main/sdnotify.h"
#include "fixture.h"

/* A datagram listener on NAME (a path, or '@' + an abstract name), as
 * systemd's notification socket is. */
static int listener(const char *name)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len = strlen(name);
	socklen_t alen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	memcpy(sa.sun_path, name, len);
	if (name[0] == '@')
		sa.sun_path[0] = '\0';
	else
		alen++;
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, alen), 0);
	return fd;
}

/* The next datagram, NUL-terminated; "" when none is queued. */
static const char *receive(int fd)
{
	static char buf[1024];
	ssize_t n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);

	buf[n < 0 ? 0 : n] = '\0';
	return buf;
}

/* A listener on the abstract name @ibats-test-sdnotify<TAG>-<pid>, given
 * to sdnotify in NOTIFY_SOCKET: its fd. */
static int notified(const char *tag)
{
	char name[64];
	int fd;

	snprintf(name, sizeof(name), "@ibats-test-sdnotify%s-%d", tag, (int)getpid());
	fd = listener(name);
	setenv("NOTIFY_SOCKET", name, 1);
	assert_int_equal(sdnotify_init(), 0);
	return fd;
}

static void test_path(void **state)
{
	char path[] = "/tmp/test_sdnotify.XXXXXX", sock[64];
	int fd;

	(void)state;
	assert_non_null(mkdtemp(path));
	snprintf(sock, sizeof(sock), "%s/notify", path);
	fd = listener(sock);
	setenv("NOTIFY_SOCKET", sock, 1);
	assert_int_equal(sdnotify_init(), 0);
	assert_true(sdnotify_enabled());
	/* Unset: nothing atsd starts talks to the manager in its name. */
	assert_null(getenv("NOTIFY_SOCKET"));
	assert_int_equal(sdnotify_send("READY=1\nSTATUS=starting"), 0);
	assert_string_equal(receive(fd), "READY=1\nSTATUS=starting");
	assert_int_equal(sdnotify_sendf("STATUS=%d records registered, SM LID %u", 3, 1u), 0);
	assert_string_equal(receive(fd), "STATUS=3 records registered, SM LID 1");
	assert_string_equal(receive(fd), "");
	sdnotify_fini();
	assert_false(sdnotify_enabled());
	close(fd);
	unlink(sock);
	rmdir(path);
}

static void test_abstract_reloading(void **state)
{
	unsigned long long usec;
	struct timespec ts;
	const char *got;
	int fd;

	(void)state;
	fd = notified("");
	assert_int_equal(sdnotify_reloading(), 0);
	got = receive(fd);
	assert_int_equal(sscanf(got, "RELOADING=1\nMONOTONIC_USEC=%llu", &usec), 1);
	/* The time the reload started, on the manager's clock. */
	assert_int_equal(clock_gettime(CLOCK_MONOTONIC, &ts), 0);
	assert_true(usec <= (unsigned long long)ts.tv_sec * 1000000ULL +
		    (unsigned long long)ts.tv_nsec / 1000ULL);
	assert_true(usec + 10000000ULL > (unsigned long long)ts.tv_sec * 1000000ULL);
	assert_int_equal(sdnotify_send("READY=1"), 0);
	assert_string_equal(receive(fd), "READY=1");
	assert_int_equal(sdnotify_send("STOPPING=1"), 0);
	assert_string_equal(receive(fd), "STOPPING=1");
	sdnotify_fini();
	close(fd);
}

#define SUN_PATH_LEN sizeof(((struct sockaddr_un *)0)->sun_path)

/* $NOTIFY_SOCKET of first and 'x's, fits bytes long, is taken; one byte
 * longer, refused. */
static void check_longest(char first, size_t fits)
{
	char name[SUN_PATH_LEN + 2];

	memset(name, 'x', fits + 1);
	name[0] = first;
	name[fits] = '\0';
	assert_int_equal(strlen(name), fits);
	setenv("NOTIFY_SOCKET", name, 1);
	assert_int_equal(sdnotify_init(), 0);
	sdnotify_fini();
	name[fits] = 'x';
	name[fits + 1] = '\0';
	setenv("NOTIFY_SOCKET", name, 1);
	assert_int_equal(sdnotify_init(), -EINVAL);
	assert_false(sdnotify_enabled());
}

static void test_unset_and_bad(void **state)
{
	(void)state;
	unsetenv("NOTIFY_SOCKET");
	assert_int_equal(sdnotify_init(), 0);
	assert_false(sdnotify_enabled());
	/* No manager: a successful no-op, as sd_notify(3) without one. */
	assert_int_equal(sdnotify_send("READY=1"), 0);
	assert_int_equal(sdnotify_reloading(), 0);
	setenv("NOTIFY_SOCKET", "", 1);
	assert_int_equal(sdnotify_init(), 0);
	assert_false(sdnotify_enabled());
	setenv("NOTIFY_SOCKET", "relative/notify", 1);
	assert_int_equal(sdnotify_init(), -EINVAL);
	assert_false(sdnotify_enabled());
	/* A path as long as sun_path leaves no room for its NUL. */
	check_longest('/', SUN_PATH_LEN - 1);
	/* An abstract name may fill sun_path: no NUL after it. */
	check_longest('@', SUN_PATH_LEN);
	/* A listener gone away: the send fails with its errno. */
	setenv("NOTIFY_SOCKET", "/nonexistent/notify", 1);
	assert_int_equal(sdnotify_init(), 0);
	assert_int_equal(sdnotify_send("READY=1"), -ENOENT);
	sdnotify_fini();
}

/* A manager that does not read: once its queue is full a send fails
 * with EAGAIN instead of blocking atsd's event loop (the alarm fails the
 * test where it would hang). */
static void test_full_queue(void **state)
{
	int fd, i, ret = 0;

	(void)state;
	fd = notified("-full");
	alarm(10);
	for (i = 0; i < 100000 && !ret; i++)
		ret = sdnotify_send("STATUS=a status nobody reads");
	alarm(0);
	assert_int_equal(ret, -EAGAIN);
	assert_string_equal(receive(fd), "STATUS=a status nobody reads");
	assert_int_equal(sdnotify_send("READY=1"), 0);
	sdnotify_fini();
	close(fd);
}

/* sd_watchdog_enabled(3)'s reading of the environment: WATCHDOG_USEC a
 * positive number, WATCHDOG_PID (if set) ours; both removed. */
static void test_watchdog_env(void **state)
{
	char pid[24];

	(void)state;
	unsetenv("WATCHDOG_USEC");
	unsetenv("WATCHDOG_PID");
	assert_int_equal(sdnotify_watchdog_init(), 0);
	assert_true(sdnotify_watchdog(0) == INT64_MAX);
	setenv("WATCHDOG_USEC", "30000000", 1);
	assert_int_equal(sdnotify_watchdog_init(), 1);
	assert_null(getenv("WATCHDOG_USEC"));
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	setenv("WATCHDOG_USEC", "30000000", 1);
	setenv("WATCHDOG_PID", pid, 1);
	assert_int_equal(sdnotify_watchdog_init(), 1);
	assert_null(getenv("WATCHDOG_PID"));
	/* Another process's watchdog (a parent's, inherited). */
	snprintf(pid, sizeof(pid), "%d", (int)getpid() + 1);
	setenv("WATCHDOG_USEC", "30000000", 1);
	setenv("WATCHDOG_PID", pid, 1);
	assert_int_equal(sdnotify_watchdog_init(), 0);
	assert_null(getenv("WATCHDOG_USEC"));
	assert_true(sdnotify_watchdog(0) == INT64_MAX);
	setenv("WATCHDOG_USEC", "0", 1);
	assert_int_equal(sdnotify_watchdog_init(), -EINVAL);
	setenv("WATCHDOG_USEC", "30s", 1);
	assert_int_equal(sdnotify_watchdog_init(), -EINVAL);
	setenv("WATCHDOG_USEC", "-5", 1);
	assert_int_equal(sdnotify_watchdog_init(), -EINVAL);
	setenv("WATCHDOG_USEC", "1000", 1);
	setenv("WATCHDOG_PID", "me", 1);
	assert_int_equal(sdnotify_watchdog_init(), -EINVAL);
	assert_true(sdnotify_watchdog(0) == INT64_MAX);
}

/* WATCHDOG=1 at once, then each half interval, not between. */
static void test_watchdog_pings(void **state)
{
	int fd;

	(void)state;
	fd = notified("-wd");
	unsetenv("WATCHDOG_PID");
	setenv("WATCHDOG_USEC", "10000000", 1);
	assert_int_equal(sdnotify_watchdog_init(), 1);
	assert_true(sdnotify_watchdog(1000) == 6000);
	assert_string_equal(receive(fd), "WATCHDOG=1");
	assert_true(sdnotify_watchdog(5999) == 6000);
	assert_string_equal(receive(fd), "");
	assert_true(sdnotify_watchdog(6000) == 11000);
	assert_string_equal(receive(fd), "WATCHDOG=1");
	sdnotify_fini();
	close(fd);
}

TEST_MAIN(
	cmocka_unit_test(test_path),
	cmocka_unit_test(test_abstract_reloading),
	cmocka_unit_test(test_unset_and_bad),
	cmocka_unit_test(test_full_queue),
	cmocka_unit_test(test_watchdog_env),
	cmocka_unit_test(test_watchdog_pings))
