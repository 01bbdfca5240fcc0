/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* A listening AF_UNIX socket in a fresh directory under /tmp, for the
 * unit tests' fake atsd, and its removal. Header only: each test links
 * its own copy. */
#ifndef IBATS_TEST_FAKE_SOCK_H
#define IBATS_TEST_FAKE_SOCK_H

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* path (cap bytes) receives "<dir>/atsd.sock"; the listening fd. */
static inline int fake_sock_listen(char *path, size_t cap)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	char dir[] = "/tmp/ibats-unit.XXXXXX";
	int fd;

	assert_non_null(mkdtemp(dir));
	snprintf(path, cap, "%s/atsd.sock", dir);
	assert_true(strlen(path) < sizeof(sun.sun_path));
	memcpy(sun.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sun, sizeof(sun)), 0);
	assert_int_equal(listen(fd, 8), 0);
	return fd;
}

/* Stop accepting (a thread blocked in accept() returns) and close. */
static inline void fake_sock_close(int fd)
{
	shutdown(fd, SHUT_RDWR);
	close(fd);
}

/* The socket and its directory. */
static inline void fake_sock_remove(char *path)
{
	char *slash;

	unlink(path);
	slash = strrchr(path, '/');
	*slash = '\0';
	rmdir(path);
}

/* A fake atsd: its socket and the thread that accepts on it, first in
 * each test's own fake. */
struct fake_sock_srv {
	char path[108];
	int lfd;
	pthread_t thr;
};

/* Listen, then run serve(arg) on a thread of its own. */
static inline void fake_sock_start(struct fake_sock_srv *s, void *(*serve)(void *), void *arg)
{
	s->lfd = fake_sock_listen(s->path, sizeof(s->path));
	assert_int_equal(pthread_create(&s->thr, NULL, serve, arg), 0);
}

/* Stop accepting, wait for the thread, remove the socket. */
static inline void fake_sock_stop(struct fake_sock_srv *s)
{
	fake_sock_close(s->lfd);
	pthread_join(s->thr, NULL);
	fake_sock_remove(s->path);
}

/* cmocka teardown of a fake calloc'ed with its struct fake_sock_srv
 * first: stopped and freed. */
static inline int fake_sock_teardown(void **state)
{
	struct fake_sock_srv *s = *state;

	fake_sock_stop(s);
	free(s);
	return 0;
}

#endif
