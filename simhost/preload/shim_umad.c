/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The simulated node's umad and issm devices (shim_umad.h).
 *
 * A table of the fds that are connections to the kernel, each checked
 * by the socket's inode before use: an fd closed by another path
 * (dup2 over it, close_range, an exec's CLOEXEC in a child) is then no
 * longer taken for a device. No lock is held across a wait: OpenSM's
 * vendor layer cancels its receiver thread in poll or read
 * (osm_vendor_ibumad.c umad_receiver_stop), and a lock held there
 * would be held for ever. The one exception is a message longer than a
 * packet (simhost.h simhost_frame): its reader waits for the chunks under
 * the reader's lock, cancellation off, as they are already on their way;
 * its writer sends every chunk under the writer's lock, so that no
 * other thread's message lands between them. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <rdma/ib_user_mad.h>

#include "simhost/wire/simhost.h"
#include "shim.h"
#include "shim_conn.h"
#include "shim_mad.h"
#include "shim_ucma.h"
#include "shim_umad.h"
#include "simhost/wire/simframe.h"

#define SHIM_UMAD_MAX 256
/* The longest a reader waits for the next chunk of a message whose first
 * packet it took: the kernel sends them back to back, so only a wedged
 * kernel takes this long (then the read fails with EIO). */
#define SHIM_UMAD_CHUNK_WAIT_MS 10000

struct shim_umad_fd {
	int used, busy; /* busy: calls in progress (the slot stays theirs) */
	int fd, issm;
	ino_t ino;
	uint32_t token, port;
	int agents_fd; /* SIMHOST_AGENTS, opened with the fd (issm: -1) */
	struct shim_mad_agent agent[SHIM_MAD_MAX_AGENTS];
	struct shim_mad_sent sent; /* requests the kernel may hold (shim_mad.h) */
	pthread_mutex_t rd_mu; /* one reader takes a message at a time */
	pthread_mutex_t wr_mu; /* one writer sends a message at a time */
	pthread_mutex_t io_mu; /* one ioctl round trip at a time */
};

static pthread_mutex_t shim_umad_mu = PTHREAD_MUTEX_INITIALIZER;
static struct shim_umad_fd shim_umad_tab[SHIM_UMAD_MAX];
static int shim_umad_n; /* used slots: 0 spares every other fd the lock */
static pthread_once_t shim_umad_once = PTHREAD_ONCE_INIT;

static void shim_umad_lock(void)
{
	pthread_mutex_lock(&shim_umad_mu);
}

static void shim_umad_unlock(void)
{
	pthread_mutex_unlock(&shim_umad_mu);
}

static void shim_umad_init(void)
{
	int i;

	for (i = 0; i < SHIM_UMAD_MAX; i++) {
		pthread_mutex_init(&shim_umad_tab[i].rd_mu, NULL);
		pthread_mutex_init(&shim_umad_tab[i].wr_mu, NULL);
		pthread_mutex_init(&shim_umad_tab[i].io_mu, NULL);
	}
	/* A child forked while another thread held the table keeps it. */
	pthread_atfork(shim_umad_lock, shim_umad_unlock, shim_umad_unlock);
}

static ino_t shim_umad_ino(int fd)
{
	struct stat st;

	return fstat(fd, &st) ? 0 : st.st_ino;
}

/* Forgets a slot; its connection to the kernel goes with it (the
 * kernel drops the fd's agents with either connection). */
static void shim_umad_drop_locked(struct shim_umad_fd *u)
{
	if (u->agents_fd >= 0)
		shim_next()->close(u->agents_fd);
	u->agents_fd = -1;
	u->used = 0;
	__atomic_sub_fetch(&shim_umad_n, 1, __ATOMIC_RELEASE);
}

/* fd's slot with one more call on it, or NULL; call with the lock. */
static struct shim_umad_fd *shim_umad_find_locked(int fd)
{
	int i;

	for (i = 0; i < SHIM_UMAD_MAX; i++) {
		struct shim_umad_fd *u = &shim_umad_tab[i];

		if (!u->used || u->fd != fd)
			continue;
		if (shim_umad_ino(fd) != u->ino) {
			/* Closed behind our back. */
			shim_umad_drop_locked(u);
			return NULL;
		}
		u->busy++;
		return u;
	}
	return NULL;
}

static struct shim_umad_fd *shim_umad_get(int fd)
{
	struct shim_umad_fd *u;

	if (fd < 0 || !__atomic_load_n(&shim_umad_n, __ATOMIC_ACQUIRE))
		return NULL;
	pthread_once(&shim_umad_once, shim_umad_init);
	shim_umad_lock();
	u = shim_umad_find_locked(fd);
	shim_umad_unlock();
	return u;
}

static void shim_umad_put(struct shim_umad_fd *u)
{
	shim_umad_lock();
	u->busy--;
	shim_umad_unlock();
}

/* The port of umadN: the node's class/infiniband_mad/umadN/port. */
static uint32_t shim_umad_port(int num, int issm)
{
	const struct shim_node *node = shim_node();
	char path[4200], v[16] = "";
	ssize_t n = -1;
	int fd;

	if (!node)
		return (uint32_t)num + 1;
	snprintf(path, sizeof(path), "%s/class/infiniband_mad/%s%d/port", node->sys,
		 issm ? "issm" : "umad", num);
	fd = shim_next()->open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = shim_next()->read(fd, v, sizeof(v) - 1);
		shim_next()->close(fd);
	}
	return n > 0 ? (uint32_t)strtoul(v, NULL, 10) : (uint32_t)num + 1;
}

int shim_umad_open(int num, int issm, int flags)
{
	uint32_t port = shim_umad_port(num, issm);
	struct simhost_welcome w, aw;
	struct shim_umad_fd *u = NULL;
	int fd, afd = -1, i;

	pthread_once(&shim_umad_once, shim_umad_init);
	fd = shim_conn_open(issm ? SIMHOST_ISSM : SIMHOST_UMAD, 0, port, flags & O_CLOEXEC, &w);
	if (fd < 0) {
		errno = -fd;
		return -1;
	}
	/* The fd's ioctl connection now, with the credentials the open was
	 * checked with: the kernel checks them at open() only, and a
	 * process that drops root afterwards keeps its fd's ioctls. */
	if (!issm && (afd = shim_conn_open(SIMHOST_AGENTS, w.token, port, 1, &aw)) < 0) {
		shim_next()->close(fd);
		errno = afd == -ENOENT ? EIO : -afd;
		return -1;
	}
	if (flags & O_NONBLOCK)
		(void)fcntl(fd, F_SETFL, O_NONBLOCK);
	shim_umad_lock();
	for (i = 0; i < SHIM_UMAD_MAX && !u; i++) {
		struct shim_umad_fd *s = &shim_umad_tab[i];

		if (s->used && s->fd == fd) /* this number closed behind our back */
			shim_umad_drop_locked(s);
		if (!s->used && !s->busy)
			u = s;
	}
	if (u) {
		u->used = 1;
		u->fd = fd;
		u->issm = issm;
		u->ino = shim_umad_ino(fd);
		u->token = w.token;
		u->port = port;
		u->agents_fd = afd;
		memset(u->agent, 0, sizeof(u->agent));
		memset(&u->sent, 0, sizeof(u->sent));
		__atomic_add_fetch(&shim_umad_n, 1, __ATOMIC_RELEASE);
	}
	shim_umad_unlock();
	if (!u) {
		if (afd >= 0)
			shim_next()->close(afd);
		shim_next()->close(fd);
		errno = EMFILE;
		return -1;
	}
	return fd;
}

/* The message whose first packet is next, total bytes, into buf (which
 * holds them): its packets taken as they come. -EIO when the kernel goes
 * or breaks the framing (what is left of the message is dropped by the
 * next read). */
static ssize_t shim_umad_whole(struct shim_umad_fd *u, uint8_t *buf, size_t total)
{
	struct pollfd p = { u->fd, POLLIN, 0 };
	struct simframe_rx rx = { 0, 0 };
	struct simhost_frame f;
	size_t off, got = 0;
	ssize_t n;
	int r;

	for (;;) {
		/* Straight to its place: a packet of this message is at most
		 * what is missing. */
		n = simframe_take(u->fd, &f, buf + got, total - got);
		if (n == -EAGAIN) {
			r = poll(&p, 1, SHIM_UMAD_CHUNK_WAIT_MS);
			if (r == 0 || (r < 0 && errno != EINTR))
				return -EIO;
			continue;
		}
		if (n < 0)
			return n == -EPIPE || n == -EPROTO ? -EIO : n;
		/* The next packet of this message, not the first of another. */
		r = simframe_rx_next(&rx, &f, (size_t)n, &off);
		if (r < 0 || off != got || f.total != total)
			return -EIO;
		got += (size_t)n;
		if (r == SIMFRAME_DONE)
			return (ssize_t)total;
	}
}

/* One attempt at the next message under the reader's lock: its verdict
 * (shim_mad.h), or -errno of the socket (-EAGAIN: none yet). The verdict
 * comes from its first packet alone, left queued unless it is taken. */
static ssize_t shim_umad_take(struct shim_umad_fd *u, void *buf, size_t count)
{
	struct ib_user_mad_hdr h;
	struct simhost_frame f;
	ssize_t n, v;
	int old;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	pthread_mutex_lock(&u->rd_mu);
	/* What is left of a message a failed read broke off is dropped. */
	while ((n = simframe_peek(u->fd, &f, buf, count)) == -EPROTO ||
	       (n >= 0 && !(f.flags & SIMHOST_FRAME_FIRST)))
		(void)simframe_take(u->fd, &f, NULL, 0);
	if (n < 0) {
		v = n == -EPIPE ? -EIO : n; /* EOF: the kernel, the device, is gone */
	} else {
		memset(&h, 0, sizeof(h));
		memcpy(&h, buf, count < sizeof(h) ? count : sizeof(h));
		v = shim_mad_read_verdict(f.total, h.status, count);
		/* Taken for good, the lock held. */
		if (v >= 0)
			v = shim_umad_whole(u, buf, f.total);
	}
	pthread_mutex_unlock(&u->rd_mu);
	pthread_setcancelstate(old, NULL);
	return v;
}

/* ib_umad_read: one message per read; a short buffer fails and leaves
 * it queued (shim_mad_read_verdict); blocks unless O_NONBLOCK (which a
 * message whose first packet is there does not: the rest is coming). */
static ssize_t shim_umad_read(struct shim_umad_fd *u, void *buf, size_t count)
{
	struct pollfd p = { u->fd, POLLIN, 0 };
	ssize_t v;

	if (count < SHIM_MAD_UMAD_HDR) {
		errno = EINVAL;
		return -1;
	}
	for (;;) {
		v = shim_umad_take(u, buf, count);
		if (v != -EAGAIN || (fcntl(u->fd, F_GETFL) & O_NONBLOCK))
			break;
		/* The wait, with no lock held: a cancellation point. */
		if (poll(&p, 1, -1) < 0 && errno != EINTR)
			return -1;
	}
	if (v < 0) {
		errno = (int)-v;
		return -1;
	}
	shim_umad_lock();
	shim_mad_sent_read(&u->sent, buf, (size_t)v);
	shim_umad_unlock();
	return v;
}

static int64_t shim_umad_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int shim_umad_call(struct shim_umad_fd *u, const void *req, size_t req_len,
			  struct simhost_reg_rep *rep);

/* A write whose verdict the kernel gives (SIMHOST_WRITE): 0 or -errno. */
static int shim_umad_write_verdict(struct shim_umad_fd *u, const void *buf, size_t count)
{
	struct simhost_reg_req req;
	struct simhost_reg_rep rep;
	uint8_t *pkt = malloc(sizeof(req) + count);
	int ret;

	if (!pkt)
		return -ENOMEM;
	memset(&req, 0, sizeof(req));
	req.op = SIMHOST_WRITE;
	memcpy(pkt, &req, sizeof(req));
	memcpy(pkt + sizeof(req), buf, count);
	ret = shim_umad_call(u, pkt, sizeof(req) + count, &rep);
	free(pkt);
	return ret;
}

/* ib_umad_write: refused at once as the kernel refuses, else one
 * message to the kernel, which sends it (and does RMPP, timeouts,
 * retries). */
static ssize_t shim_umad_write(struct shim_umad_fd *u, const void *buf, size_t count)
{
	struct shim_mad_agent agent[SHIM_MAD_MAX_AGENTS];
	struct pollfd p = { u->fd, POLLOUT, 0 };
	int64_t now = shim_umad_now();
	size_t off = 0;
	int ret, old, ask;

	shim_umad_lock();
	memcpy(agent, u->agent, sizeof(agent));
	ret = shim_mad_write_check(buf, count, agent);
	ask = !ret && shim_mad_sent_ask(&u->sent, buf, count, agent, now);
	if (!ret)
		shim_mad_sent_add(&u->sent, buf, count, now);
	shim_umad_unlock();
	if (ret) {
		errno = -ret;
		return -1;
	}
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	if (ask && count <= SIMHOST_CHUNK) {
		/* is_duplicate may refuse it: the kernel's verdict first. */
		ret = shim_umad_write_verdict(u, buf, count);
	} else {
		pthread_mutex_lock(&u->wr_mu);
		/* The device never says EAGAIN to a write: wait for room. */
		while ((ret = simframe_send(u->fd, buf, count, &off)) == 0)
			(void)poll(&p, 1, -1);
		pthread_mutex_unlock(&u->wr_mu);
		if (ret > 0)
			ret = 0;
		else
			ret = ret == -EMSGSIZE || ret == -ENOBUFS ? -ENOMEM : ret == -EPIPE ? -EIO : ret;
	}
	pthread_setcancelstate(old, NULL);
	if (ret < 0) {
		shim_umad_lock();
		shim_mad_sent_forget(&u->sent, buf, count);
		shim_umad_unlock();
		errno = -ret;
		return -1;
	}
	return (ssize_t)count;
}

/* One round trip on the fd's SIMHOST_AGENTS connection (opened with the
 * fd): a registration or a SIMHOST_WRITE; its rep.err. */
static int shim_umad_call(struct shim_umad_fd *u, const void *req, size_t req_len,
			  struct simhost_reg_rep *rep)
{
	int ret;

	pthread_mutex_lock(&u->io_mu);
	ret = shim_conn_call(u->agents_fd, req, req_len, rep, sizeof(*rep));
	pthread_mutex_unlock(&u->io_mu);
	return ret ? ret : rep->err;
}

static int shim_umad_reg(struct shim_umad_fd *u, struct simhost_reg_req *req,
			 struct simhost_reg_rep *rep)
{
	return shim_umad_call(u, req, sizeof(*req), rep);
}

static void shim_umad_agent(struct shim_umad_fd *u, uint32_t id, int used, uint8_t rmpp_version)
{
	if (id >= SHIM_MAD_MAX_AGENTS)
		return;
	shim_umad_lock();
	u->agent[id].used = (uint8_t)used;
	u->agent[id].rmpp_version = rmpp_version;
	if (!used)
		shim_mad_sent_agent_gone(&u->sent, id);
	shim_umad_unlock();
}

/* ib_umad_ioctl, over the kernel's wire (simhost.h simhost_reg_req). */
static int shim_umad_ioctl(struct shim_umad_fd *u, unsigned long request, void *arg)
{
	struct simhost_reg_req req;
	struct simhost_reg_rep rep;
	int ret;

	memset(&req, 0, sizeof(req));
	memset(&rep, 0, sizeof(rep));
	switch (request) {
	case IB_USER_MAD_REGISTER_AGENT:
		req.op = SIMHOST_REG_AGENT;
		memcpy(&req.u.v1, arg, sizeof(req.u.v1));
		break;
	case IB_USER_MAD_REGISTER_AGENT2:
		req.op = SIMHOST_REG_AGENT2;
		memcpy(&req.u.v2, arg, sizeof(req.u.v2));
		break;
	case IB_USER_MAD_UNREGISTER_AGENT:
		req.op = SIMHOST_UNREG_AGENT;
		memcpy(&req.id, arg, sizeof(req.id));
		break;
	case IB_USER_MAD_ENABLE_PKEY:
		req.op = SIMHOST_ENABLE_PKEY;
		break;
	default:
		return -ENOTTY; /* ib_umad_ioctl: -ENOIOCTLCMD */
	}
	ret = shim_umad_reg(u, &req, &rep);
	if (request == IB_USER_MAD_REGISTER_AGENT && !ret) {
		memcpy(arg, &rep.id, sizeof(rep.id)); /* put_user(agent_id) */
		shim_umad_agent(u, rep.id, 1, req.u.v1.rmpp_version);
	} else if (request == IB_USER_MAD_REGISTER_AGENT2 && !ret) {
		memcpy(arg, &rep.id, sizeof(rep.id));
		shim_umad_agent(u, rep.id, 1, req.u.v2.rmpp_version);
	} else if (request == IB_USER_MAD_REGISTER_AGENT2 && ret == -EINVAL) {
		/* ib_umad_reg_agent2: the flags it supports, for libibumad's
		 * retry without them. */
		memcpy((char *)arg + offsetof(struct simhost_reg_v2, flags), &rep.v2.flags,
		       sizeof(rep.v2.flags));
	} else if (request == IB_USER_MAD_UNREGISTER_AGENT && !ret) {
		shim_umad_agent(u, req.id, 0, 0);
	}
	return ret;
}

ssize_t read(int fd, void *buf, size_t count)
{
	struct shim_umad_fd *u = shim_umad_get(fd);
	ssize_t ret;

	if (!u)
		return shim_ucma_read(fd, buf, count);
	if (u->issm) {
		shim_umad_put(u);
		errno = EINVAL; /* the issm device has no read */
		return -1;
	}
	ret = shim_umad_read(u, buf, count);
	shim_umad_put(u);
	return ret;
}

ssize_t write(int fd, const void *buf, size_t count)
{
	struct shim_umad_fd *u = shim_umad_get(fd);
	ssize_t ret;

	if (!u)
		return shim_ucma_write(fd, buf, count);
	if (u->issm) {
		shim_umad_put(u);
		errno = EINVAL;
		return -1;
	}
	ret = shim_umad_write(u, buf, count);
	shim_umad_put(u);
	return ret;
}

int ioctl(int fd, unsigned long request, ...)
{
	struct shim_umad_fd *u;
	va_list ap;
	void *arg;
	int ret;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	u = shim_umad_get(fd);
	/* The VFS's own (FIONBIO, FIOCLEX...) act on the socket as they
	 * would on the device; the rest is ib_umad's. */
	if (!u || _IOC_TYPE(request) != IB_IOCTL_MAGIC) {
		if (u)
			shim_umad_put(u);
		return shim_next()->ioctl(fd, request, arg);
	}
	ret = u->issm ? -ENOTTY : shim_umad_ioctl(u, request, arg);
	shim_umad_put(u);
	if (ret) {
		errno = -ret;
		return -1;
	}
	return 0;
}

int close(int fd)
{
	int i;

	if (fd >= 0 && __atomic_load_n(&shim_umad_n, __ATOMIC_ACQUIRE)) {
		shim_umad_lock();
		for (i = 0; i < SHIM_UMAD_MAX; i++)
			if (shim_umad_tab[i].used && shim_umad_tab[i].fd == fd)
				shim_umad_drop_locked(&shim_umad_tab[i]);
		shim_umad_unlock();
	}
	return shim_ucma_close(fd);
}
