/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* simhostd's process connections: see kconn.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "kconn.h"
#include "simhost/wire/devnode.h"
#include "simhost/wire/simhost.h"

/* A long message goes out in SIMHOST_CHUNK packets (simhost.h); a big send
 * buffer lets a table of megabytes stream without a poll round per
 * chunk while the reader catches up. */
#define KCONN_SNDBUF (32 << 20)

int kconn_listen(struct kconn_set *s, const char *path)
{
	struct sockaddr_un a;

	memset(s, 0, sizeof(*s));
	memset(&a, 0, sizeof(a));
	a.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(a.sun_path))
		return -ENAMETOOLONG;
	strcpy(a.sun_path, path);
	s->listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s->listen_fd < 0)
		return -errno;
	unlink(path);
	/* Every process may call into its kernel (connect() needs write
	 * permission on the socket): what it may open is decided per device
	 * at its hello (kconn_may_open), as the VFS decides at open(). */
	if (bind(s->listen_fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    chmod(path, 0666) < 0 || listen(s->listen_fd, 64) < 0) {
		int ret = -errno;

		close(s->listen_fd);
		s->listen_fd = -1;
		return ret;
	}
	return 0;
}

void kconn_fini(struct kconn_set *s)
{
	size_t i;

	for (i = 0; i < KCONN_MAX; i++)
		if (s->c[i])
			kconn_close(s, s->c[i]);
	if (s->listen_fd >= 0)
		close(s->listen_fd);
	s->listen_fd = -1;
}

struct kconn *kconn_accept(struct kconn_set *s)
{
	int sz = KCONN_SNDBUF, fd;
	struct ucred cr;
	socklen_t crlen = sizeof(cr);
	struct kconn *c;
	size_t i;

	fd = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0)
		return NULL;
	for (i = 0; i < KCONN_MAX && s->c[i]; i++)
		;
	c = i < KCONN_MAX ? calloc(1, sizeof(*c)) : NULL;
	if (!c) {
		close(fd);
		return NULL;
	}
	/* As root the limit (wmem_max) does not apply. */
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sz, sizeof(sz)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	/* The process's credentials as the kernel recorded them at its
	 * connect() (net/unix/af_unix.c unix_stream_connect, copied from
	 * current_cred(): euid and egid). Without them it is nobody's. */
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &crlen) == 0 && crlen == sizeof(cr)) {
		c->peer_pid = cr.pid;
		c->peer_uid = cr.uid;
		c->peer_gid = cr.gid;
	} else {
		c->peer_uid = c->peer_gid = 65534;
	}
	c->fd = fd;
	s->c[i] = c;
	return c;
}

/* CapEff and the supplementary groups from /proc/PID/status; nothing
 * when the process is gone or not visible from here (pid 0). */
static void proc_cred(pid_t pid, uint32_t node_gid, struct devnode_cred *out)
{
	char path[64], buf[8192], *p;
	ssize_t n;
	int fd;

	if (pid <= 0)
		return;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	if ((p = strstr(buf, "\nCapEff:")))
		out->caps = strtoull(p + 8, NULL, 16);
	if ((p = strstr(buf, "\nGroups:"))) {
		char *end, *eol;

		p += 8;
		eol = p + strcspn(p, "\n");
		*eol = '\0';
		for (;;) {
			unsigned long g = strtoul(p, &end, 10);

			if (end == p)
				break;
			if (g == node_gid)
				out->in_group = 1;
			p = end;
		}
	}
}

int kconn_may_open(const struct kconn *c, uint32_t kind)
{
	const struct devnode *d = devnode_of_kind(kind);
	struct devnode_cred cr = { c->peer_uid, c->peer_gid, 0, 0 };

	if (!d)
		return kind == SIMHOST_ADMIN && c->peer_uid ? -EACCES : 0;
	if (c->peer_uid != d->uid)
		proc_cred(c->peer_pid, d->gid, &cr);
	/* Each file here both reads and writes (every program opens these
	 * nodes O_RDWR), so the check asks for both. */
	return devnode_permission(d, &cr, DEVNODE_MAY_READ | DEVNODE_MAY_WRITE);
}

static void queue_clear(struct kconn *c)
{
	struct kconn_pkt *p;

	while ((p = c->head)) {
		c->head = p->next;
		free(p);
	}
	c->tail = NULL;
	c->queued = 0;
}

void kconn_close(struct kconn_set *s, struct kconn *c)
{
	size_t i;

	for (i = 0; i < KCONN_MAX; i++)
		if (s->c[i] == c)
			s->c[i] = NULL;
	queue_clear(c);
	free(c->rx_buf);
	if (c->rmpp) {
		krmpp_fini(c->rmpp);
		free(c->rmpp);
	}
	close(c->fd);
	free(c);
}

/* The next whole message of a SIMHOST_UMAD connection, its packets
 * taken as they come (over several calls for a long one). */
static int recv_msg(struct kconn *c, uint8_t **buf, size_t *len)
{
	struct simhost_frame f;
	ssize_t n;
	size_t off;
	int r;

	for (;;) {
		n = simframe_peek(c->fd, &f, NULL, 0);
		if (n == -EAGAIN)
			return 0;
		if (n < 0 && n != -EPROTO)
			return (int)n;
		r = n < 0 ? -EPROTO : simframe_rx_next(&c->rx, &f, (size_t)n, &off);
		if (r >= 0 && off == 0) {
			free(c->rx_buf);
			c->rx_buf = malloc(f.total);
			if (!c->rx_buf) {
				/* Taken and lost, as a kernel without memory would. */
				simframe_rx_reset(&c->rx);
				r = -ENOMEM;
			}
		}
		if (r < 0) {
			/* Not a packet of a message we can keep: dropped, and
			 * the message under way with it. */
			free(c->rx_buf);
			c->rx_buf = NULL;
			n = simframe_take(c->fd, &f, NULL, 0);
		} else {
			n = simframe_take(c->fd, &f, c->rx_buf + off, (size_t)n);
		}
		if (n < 0 && n != -EPROTO)
			return (int)n;
		if (r == SIMFRAME_DONE) {
			*buf = c->rx_buf;
			*len = f.total;
			c->rx_buf = NULL;
			return 1;
		}
	}
}

int kconn_recv(struct kconn *c, uint8_t **buf, size_t *len)
{
	uint8_t probe;
	ssize_t n;

	*buf = NULL;
	if (c->kind == SIMHOST_UMAD)
		return recv_msg(c, buf, len);
	/* The packet's length first: an RMPP message may be megabytes. */
	n = recv(c->fd, &probe, 1, MSG_PEEK | MSG_TRUNC | MSG_DONTWAIT);
	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -errno;
	if (n == 0)
		return -EPIPE;
	*buf = malloc((size_t)n);
	if (!*buf) {
		/* Taken and lost, as a kernel without memory would. */
		recv(c->fd, &probe, 1, MSG_DONTWAIT);
		return 0;
	}
	n = recv(c->fd, *buf, (size_t)n, MSG_DONTWAIT);
	if (n <= 0) {
		free(*buf);
		*buf = NULL;
		return n == 0 ? -EPIPE : -errno;
	}
	*len = (size_t)n;
	return 1;
}

/* 1 sent, 0 the socket is full (a framed message: as much of it as the
 * socket took is sent, p->off says how much), -errno broken; what is too
 * long for the socket is dropped as sent. ENOBUFS is the kernel short of
 * memory for now: tried again at the next poll. */
static int try_send(struct kconn *c, struct kconn_pkt *p)
{
	ssize_t n;
	int r;

	if (p->framed) {
		r = simframe_send(c->fd, p->buf, p->len, &p->off);
	} else {
		n = send(c->fd, p->buf, p->len, MSG_DONTWAIT | MSG_NOSIGNAL);
		r = n >= 0 ? 1 : errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
	}
	if (r == -EMSGSIZE)
		return 1;
	return r == -ENOBUFS ? 0 : r;
}

int kconn_flush(struct kconn *c)
{
	struct kconn_pkt *p;
	int r;

	while ((p = c->head)) {
		r = try_send(c, p);
		if (r <= 0)
			return r;
		c->head = p->next;
		if (!c->head)
			c->tail = NULL;
		c->queued--;
		free(p);
	}
	return 0;
}

static void send_pkt(struct kconn_set *s, struct kconn *c, int framed, const void *hdr,
		     size_t hdr_len, const void *body, size_t body_len)
{
	struct kconn_pkt *p = malloc(sizeof(*p) + hdr_len + body_len);

	if (!p) {
		s->drops++;
		return;
	}
	p->next = NULL;
	p->len = hdr_len + body_len;
	p->off = 0;
	p->framed = framed;
	memcpy(p->buf, hdr, hdr_len);
	if (body_len)
		memcpy(p->buf + hdr_len, body, body_len);
	if (!c->head && try_send(c, p) != 0) {
		free(p); /* sent, or the connection is going */
		return;
	}
	if (c->queued == KCONN_QUEUE_MAX) {
		/* The oldest goes, unless it is partly sent: its reader
		 * waits for the rest, so the next oldest goes instead. */
		struct kconn_pkt **pp = c->head->off ? &c->head->next : &c->head;
		struct kconn_pkt *old = *pp;

		*pp = old->next;
		if (c->tail == old)
			c->tail = pp == &c->head ? NULL : c->head;
		c->queued--;
		free(old);
		s->drops++;
	}
	if (c->tail)
		c->tail->next = p;
	else
		c->head = p;
	c->tail = p;
	c->queued++;
}

void kconn_send(struct kconn_set *s, struct kconn *c, const void *hdr, size_t hdr_len,
		const void *body, size_t body_len)
{
	send_pkt(s, c, 0, hdr, hdr_len, body, body_len);
}

void kconn_send_msg(struct kconn_set *s, struct kconn *c, const void *hdr, size_t hdr_len,
		    const void *body, size_t body_len)
{
	send_pkt(s, c, 1, hdr, hdr_len, body, body_len);
}

struct kconn *kconn_by_token(struct kconn_set *s, uint32_t kind, uint32_t token)
{
	size_t i;

	for (i = 0; i < KCONN_MAX; i++)
		if (s->c[i] && s->c[i]->kind == kind && s->c[i]->token == token)
			return s->c[i];
	return NULL;
}
