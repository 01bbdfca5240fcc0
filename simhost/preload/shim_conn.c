/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* A connection to the node's simulated kernel (shim_conn.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "shim.h"
#include "shim_conn.h"

/* How long the kernel may take to welcome or answer: long enough for a
 * loaded machine, short enough that a wedged kernel fails the open. */
#define SHIM_CONN_WAIT_S 10
/* The send buffer: a long umad message (an SA table) goes in packets
 * of SIMHOST_CHUNK (simhost.h), and a big buffer lets it stream without
 * waiting for the kernel to take each. */
#define SHIM_CONN_BUF (16 << 20)

static void shim_conn_timeout(int fd, int secs)
{
	struct timeval tv = { secs, 0 };

	(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

int shim_conn_call(int fd, const void *req, size_t req_len, void *rep, size_t rep_len)
{
	ssize_t n;
	int old;

	/* Not a cancellation point for the caller (ioctl() is none), and
	 * a thread cancelled here would leave the reply for the next call. */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	n = send(fd, req, req_len, MSG_NOSIGNAL);
	if (n == (ssize_t)req_len) {
		do
			n = recv(fd, rep, rep_len, MSG_TRUNC);
		while (n < 0 && errno == EINTR);
	} else {
		n = -1;
	}
	pthread_setcancelstate(old, NULL);
	return n == (ssize_t)rep_len ? 0 : -EIO;
}

int shim_conn_open(uint32_t kind, uint32_t token, uint32_t port, int cloexec,
		   struct simhost_welcome *w)
{
	const struct shim_node *node = shim_node();
	struct simhost_hello h = { SIMHOST_MAGIC, kind, (uint32_t)getpid(), token, port };
	struct sockaddr_un sa;
	int fd, big = SHIM_CONN_BUF, ret, err;

	if (!node || !node->sock[0])
		return -ENOENT;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | (cloexec ? SOCK_CLOEXEC : 0), 0);
	if (fd < 0)
		return -errno;
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, node->sock, strlen(node->sock));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		err = errno;
		shim_next()->close(fd);
		/* No socket, or nobody behind it: no kernel module. */
		return err == ENOENT || err == ECONNREFUSED ? -ENOENT : -err;
	}
	/* Root may pass wmem_max (the tests run as root); else the
	 * system's maximum. */
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof(big)) < 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
	shim_conn_timeout(fd, SHIM_CONN_WAIT_S);
	ret = shim_conn_call(fd, &h, sizeof(h), w, sizeof(*w));
	/* A registration is a round trip too; a umad fd's reads wait as
	 * long as the process wants. */
	if (kind != SIMHOST_AGENTS)
		shim_conn_timeout(fd, 0);
	if (!ret && w->magic != SIMHOST_MAGIC)
		ret = -EIO;
	if (!ret && w->err)
		ret = w->err < 0 ? w->err : -EIO;
	if (ret) {
		shim_next()->close(fd);
		return ret;
	}
	return fd;
}
