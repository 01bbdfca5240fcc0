/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The simulated node's rdma_cm device (shim_ucma.h).
 *
 * A table of the open files, each with the fds that name it (dup()s
 * are found by the socket's inode at their first use) and a pool of
 * idle command connections: a thread blocked in GET_EVENT holds one
 * while others issue commands on the same fd (rping, atsd), so every
 * write() borrows one and gives it back. Command offsets are those of
 * <rdma/rdma_user_cm.h> (ABI 4). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <unistd.h>

#include "simhost/wire/simhost.h"
#include "shim.h"
#include "shim_conn.h"
#include "shim_ucma.h"

#define SHIM_UCMA_MAX 64
#define SHIM_UCMA_FDS 8
#define SHIM_UCMA_POOL 4
/* The longest write() passed on (simhostd's KUCMAIO_REQ_MAX). */
#define SHIM_UCMA_REQ_MAX 1024
/* The longest response (struct rdma_ucm_event_resp). */
#define SHIM_UCMA_RESP_MAX 336
/* struct rdma_ucm_cmd_hdr */
#define SHIM_UCMA_HDR 8
/* The last command of the table (RDMA_USER_CM_CMD_JOIN_MCAST). */
#define SHIM_UCMA_CMDS 23

struct shim_ucma_file {
	int used, busy;
	ino_t ino;
	uint32_t token;
	int fds[SHIM_UCMA_FDS];
	size_t nfds;
	int idle[SHIM_UCMA_POOL];
	size_t nidle;
};

static pthread_mutex_t shim_ucma_mu = PTHREAD_MUTEX_INITIALIZER;
static struct shim_ucma_file shim_ucma_tab[SHIM_UCMA_MAX];
static int shim_ucma_n; /* used slots: 0 spares every other fd the lock */

/* Where each command carries its `response` pointer (offset after the
 * header), -1 for the commands without one. */
static int shim_ucma_resp_off(uint32_t cmd)
{
	switch (cmd) {
	case 0: /* CREATE_ID: uid, then response */
		return 8;
	case 1:  /* DESTROY_ID */
	case 5:  /* QUERY_ROUTE */
	case 11: /* INIT_QP_ATTR */
	case 12: /* GET_EVENT */
	case 16: /* JOIN_IP_MCAST */
	case 17: /* LEAVE_MCAST */
	case 18: /* MIGRATE_ID */
	case 19: /* QUERY */
	case 22: /* JOIN_MCAST */
		return 0;
	default:
		return -1;
	}
}

static ino_t shim_ucma_ino(int fd)
{
	struct stat st;

	return shim_next()->fstat(fd, &st) ? 0 : st.st_ino;
}

/* Forgets a file: its command connections close (the kernel releases
 * the file when its own connection, the process's fd, closes). */
static void shim_ucma_drop_locked(struct shim_ucma_file *f)
{
	while (f->nidle)
		shim_next()->close(f->idle[--f->nidle]);
	f->used = 0;
	__atomic_sub_fetch(&shim_ucma_n, 1, __ATOMIC_RELEASE);
}

static void shim_ucma_unfd_locked(struct shim_ucma_file *f, size_t i)
{
	f->fds[i] = f->fds[--f->nfds];
	if (!f->nfds && !f->busy)
		shim_ucma_drop_locked(f);
}

/* fd's file with one more call on it, or NULL. */
static struct shim_ucma_file *shim_ucma_get(int fd)
{
	struct shim_ucma_file *f, *hit = NULL;
	ino_t ino = 0;
	size_t i, j;

	if (fd < 0 || !__atomic_load_n(&shim_ucma_n, __ATOMIC_ACQUIRE))
		return NULL;
	pthread_mutex_lock(&shim_ucma_mu);
	for (i = 0; i < SHIM_UCMA_MAX && !hit; i++) {
		f = &shim_ucma_tab[i];
		for (j = 0; f->used && j < f->nfds; j++) {
			if (f->fds[j] != fd)
				continue;
			if (!ino)
				ino = shim_ucma_ino(fd);
			if (ino == f->ino)
				hit = f;
			else /* closed behind our back */
				shim_ucma_unfd_locked(f, j);
			break;
		}
	}
	if (!hit) { /* a dup() of a file's fd? */
		if (!ino)
			ino = shim_ucma_ino(fd);
		for (i = 0; ino && i < SHIM_UCMA_MAX && !hit; i++) {
			f = &shim_ucma_tab[i];
			if (f->used && f->ino == ino && f->nfds < SHIM_UCMA_FDS) {
				f->fds[f->nfds++] = fd;
				hit = f;
			}
		}
	}
	if (hit)
		hit->busy++;
	pthread_mutex_unlock(&shim_ucma_mu);
	return hit;
}

static void shim_ucma_put(struct shim_ucma_file *f)
{
	pthread_mutex_lock(&shim_ucma_mu);
	if (!--f->busy && !f->nfds)
		shim_ucma_drop_locked(f);
	pthread_mutex_unlock(&shim_ucma_mu);
}

int shim_ucma_open(int flags)
{
	struct shim_ucma_file *f = NULL;
	struct simhost_welcome w;
	size_t i;
	int fd;

	fd = shim_conn_open(SIMHOST_UCMA, 0, 0, flags & O_CLOEXEC, &w);
	if (fd < 0) {
		errno = -fd;
		return -1;
	}
	if (flags & O_NONBLOCK)
		(void)fcntl(fd, F_SETFL, O_NONBLOCK);
	pthread_mutex_lock(&shim_ucma_mu);
	for (i = 0; i < SHIM_UCMA_MAX && !f; i++)
		if (!shim_ucma_tab[i].used && !shim_ucma_tab[i].busy)
			f = &shim_ucma_tab[i];
	if (f) {
		memset(f, 0, sizeof(*f));
		f->used = 1;
		f->ino = shim_ucma_ino(fd);
		f->token = w.token;
		f->fds[f->nfds++] = fd;
		__atomic_add_fetch(&shim_ucma_n, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&shim_ucma_mu);
	if (!f) {
		shim_next()->close(fd);
		errno = EMFILE;
		return -1;
	}
	return fd;
}

/* A command connection of f: an idle one, else a new one; -errno. */
static int shim_ucma_cmd_conn(struct shim_ucma_file *f)
{
	struct simhost_welcome w;
	int c = -1;

	pthread_mutex_lock(&shim_ucma_mu);
	if (f->nidle)
		c = f->idle[--f->nidle];
	pthread_mutex_unlock(&shim_ucma_mu);
	return c >= 0 ? c : shim_conn_open(SIMHOST_UCMA_CMD, f->token, 0, 1, &w);
}

static void shim_ucma_cmd_done(struct shim_ucma_file *f, int c)
{
	pthread_mutex_lock(&shim_ucma_mu);
	if (f->nidle < SHIM_UCMA_POOL && f->nfds) {
		f->idle[f->nidle++] = c;
		c = -1;
	}
	pthread_mutex_unlock(&shim_ucma_mu);
	if (c >= 0)
		shim_next()->close(c);
}

/* A thread cancelled while it waits (a GET_EVENT) leaves an answer
 * under way on its connection: that one is never used again. */
static void shim_ucma_cancelled(void *arg)
{
	shim_next()->close(*(int *)arg);
}

/* The doorbells up to gen are stale: the file's event list was emptied
 * by the command just answered. A later doorbell stays (POLLIN). */
static void shim_ucma_doorbells(int fd, uint32_t gen)
{
	struct simhost_doorbell d;

	while (recv(fd, &d, sizeof(d), MSG_PEEK | MSG_DONTWAIT) == (ssize_t)sizeof(d) &&
	       (int32_t)(d.gen - gen) <= 0)
		(void)recv(fd, &d, sizeof(d), MSG_DONTWAIT);
}

/* copy_from_user/copy_to_user within the process: a bad address is
 * -EFAULT to the caller, as ucma.c answers, not a fault in the process.
 * Where process_vm_* is refused (a seccomp filter), a plain copy. */
static int shim_ucma_copy(void *to, const void *from, size_t len, int to_user)
{
	struct iovec mine = { to_user ? (void *)from : to, len };
	struct iovec user = { to_user ? to : (void *)from, len };
	ssize_t n;

	if (!len)
		return 0;
	n = to_user ? process_vm_writev(getpid(), &mine, 1, &user, 1, 0) :
		      process_vm_readv(getpid(), &mine, 1, &user, 1, 0);
	if (n == (ssize_t)len)
		return 0;
	if (n < 0 && (errno == ENOSYS || errno == EPERM)) {
		memcpy(to, from, len);
		return 0;
	}
	return -EFAULT;
}

/* One command: the write()'s answer, or -errno. */
static ssize_t shim_ucma_cmd(struct shim_ucma_file *f, int fd, const uint8_t *buf, size_t count)
{
	struct simhost_ucm_req q = { 0, (uint32_t)count };
	struct iovec iov[2] = { { &q, sizeof(q) }, { (void *)buf, count } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };
	uint8_t rep[sizeof(struct simhost_ucm_rep) + SHIM_UCMA_RESP_MAX];
	struct simhost_ucm_rep r;
	uint32_t cmd = 0;
	uint16_t out = 0;
	uint64_t resp;
	int c, off, fl;
	ssize_t n;

	if (count > SHIM_UCMA_REQ_MAX)
		return -EINVAL;
	fl = fcntl(fd, F_GETFL);
	if (fl >= 0 && (fl & O_NONBLOCK))
		q.flags = SIMHOST_UCM_NONBLOCK;
	if ((c = shim_ucma_cmd_conn(f)) < 0)
		return c;
	pthread_cleanup_push(shim_ucma_cancelled, &c);
	n = sendmsg(c, &mh, MSG_NOSIGNAL);
	if (n == (ssize_t)(sizeof(q) + count)) {
		do
			n = recv(c, rep, sizeof(rep), MSG_TRUNC);
		while (n < 0 && errno == EINTR);
	} else {
		n = -1;
	}
	pthread_cleanup_pop(0);
	if (n < (ssize_t)sizeof(r) || n > (ssize_t)sizeof(rep)) {
		shim_next()->close(c);
		return -EIO;
	}
	memcpy(&r, rep, sizeof(r));
	if ((size_t)n != sizeof(r) + r.resp_len) {
		shim_next()->close(c);
		return -EIO;
	}
	shim_ucma_cmd_done(f, c);
	if (r.doorbell)
		shim_ucma_doorbells(fd, r.doorbell);
	if (r.ret < 0 || !r.resp_len || count < SHIM_UCMA_HDR)
		return r.ret;
	/* The kernel answered within `out`: copy_to_user(response). */
	memcpy(&cmd, buf, 4);
	memcpy(&out, buf + 6, 2);
	off = shim_ucma_resp_off(cmd);
	if (off < 0 || count < SHIM_UCMA_HDR + (size_t)off + 8 || r.resp_len > out)
		return -EIO;
	memcpy(&resp, buf + SHIM_UCMA_HDR + off, 8);
	/* The command took effect; the kernel answers -EFAULT all the same
	 * (RDMACM.md 9). */
	if (shim_ucma_copy((void *)(uintptr_t)resp, rep + sizeof(r), r.resp_len, 1) < 0)
		return -EFAULT;
	return r.ret;
}

/* What the kernel reads beside the command (RDMACM.md 6): SET_OPTION's
 * option value (optlen bytes at optval) goes after the command; a
 * MIGRATE_ID's fd becomes that file's token (0: no rdma_cm file). The
 * framed copy in out; its length, or -errno. */
static ssize_t shim_ucma_frame(const uint8_t *buf, size_t count, uint8_t *out)
{
	uint32_t cmd, fd, optlen, token = 0;
	struct shim_ucma_file *g;
	uint64_t optval;
	uint16_t in;

	if (shim_ucma_copy(out, buf, count, 0) < 0)
		return -EFAULT;
	if (count < SHIM_UCMA_HDR)
		return (ssize_t)count;
	memcpy(&cmd, buf, 4);
	memcpy(&in, buf + 4, 2);
	if (cmd == 18 && in >= 16 && count >= SHIM_UCMA_HDR + 16) { /* MIGRATE_ID */
		memcpy(&fd, buf + SHIM_UCMA_HDR + 12, 4);
		if ((g = shim_ucma_get((int)fd))) {
			token = g->token;
			shim_ucma_put(g);
		} else if (fcntl((int)fd, F_GETFD) < 0) {
			return -ENOENT; /* ucma_migrate_id: fdget failed */
		}
		memcpy(out + SHIM_UCMA_HDR + 12, &token, 4);
	} else if (cmd == 14 && in >= 24 && count >= SHIM_UCMA_HDR + 24) { /* SET_OPTION */
		memcpy(&optval, buf + SHIM_UCMA_HDR, 8);
		memcpy(&optlen, buf + SHIM_UCMA_HDR + 20, 4);
		if (count + optlen > SHIM_UCMA_REQ_MAX)
			return -EINVAL;
		if (shim_ucma_copy(out + count, (const void *)(uintptr_t)optval, optlen, 0) < 0)
			return -EFAULT;
		count += optlen;
	}
	return (ssize_t)count;
}

ssize_t shim_ucma_write(int fd, const void *buf, size_t count)
{
	struct shim_ucma_file *f = shim_ucma_get(fd);
	uint8_t framed[SHIM_UCMA_REQ_MAX];
	ssize_t ret, n;

	if (!f)
		return shim_next()->write(fd, buf, count);
	if (count > SHIM_UCMA_REQ_MAX)
		ret = -EINVAL;
	else if ((n = shim_ucma_frame(buf, count, framed)) < 0)
		ret = n;
	else if ((ret = shim_ucma_cmd(f, fd, framed, (size_t)n)) == n)
		ret = (ssize_t)count; /* the process wrote count bytes */
	shim_ucma_put(f);
	if (ret < 0) {
		errno = (int)-ret;
		return -1;
	}
	return ret;
}

ssize_t shim_ucma_read(int fd, void *buf, size_t count)
{
	struct shim_ucma_file *f = shim_ucma_get(fd);

	if (!f)
		return shim_next()->read(fd, buf, count);
	shim_ucma_put(f);
	errno = EINVAL; /* ucma_fops has no read */
	return -1;
}

int shim_ucma_close(int fd)
{
	size_t i, j;

	if (fd >= 0 && __atomic_load_n(&shim_ucma_n, __ATOMIC_ACQUIRE)) {
		pthread_mutex_lock(&shim_ucma_mu);
		for (i = 0; i < SHIM_UCMA_MAX; i++)
			for (j = 0; shim_ucma_tab[i].used && j < shim_ucma_tab[i].nfds; j++)
				if (shim_ucma_tab[i].fds[j] == fd) {
					shim_ucma_unfd_locked(&shim_ucma_tab[i], j);
					break;
				}
		pthread_mutex_unlock(&shim_ucma_mu);
	}
	return shim_next()->close(fd);
}

/* The device node's attributes (misc 10:58, 0666), as
 * shim_sys.c answers stat() of its path; libc's for other fds. */
#define SHIM_UCMA_FSTAT(fd, st, next)                                          \
	do {                                                                   \
		struct shim_ucma_file *f_ = shim_ucma_get(fd);                 \
		if (!f_)                                                       \
			return next(fd, st);                                   \
		shim_ucma_put(f_);                                             \
		memset((st), 0, sizeof(*(st)));                                \
		(st)->st_mode = S_IFCHR | 0666;                                \
		(st)->st_nlink = 1;                                            \
		(st)->st_rdev = makedev(10, 58);                               \
		(st)->st_blksize = 4096;                                       \
		return 0;                                                      \
	} while (0)

int fstat(int fd, struct stat *st)
{
	SHIM_UCMA_FSTAT(fd, st, shim_next()->fstat);
}

int fstat64(int fd, struct stat64 *st)
{
	SHIM_UCMA_FSTAT(fd, st, shim_next()->fstat64);
}
