/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* ibsim's client protocol for simhostd: see simclient.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <endian.h>

#include "core/mono.h"
#include "simclient.h"

/* The MAD header's class byte (IBTA Vol 1 13.4.3); directed-route SMPs. */
#define SIMCLIENT_OFF_MGMT_CLASS 1
#define SIMCLIENT_CLASS_DR_SMP 0x81

/* include/ibsim.h (0.10). */
#define SIM_MAGIC 0xdeadbeef
enum {
	SIM_CTL_ERROR,
	SIM_CTL_CONNECT,
	SIM_CTL_DISCONNECT,
	SIM_CTL_GET_PORT,
	SIM_CTL_GET_VENDOR,
	SIM_CTL_GET_GID,
	SIM_CTL_GET_GUID,
	SIM_CTL_GET_NODEINFO,
	SIM_CTL_GET_PORTINFO,
	SIM_CTL_SET_ISSM,
	SIM_CTL_GET_PKEYS,
};

struct sim_ctl {
	uint32_t magic;
	uint32_t clientid;
	uint32_t type;
	uint32_t len;
	uint8_t data[SIMCLIENT_DATA];
};

struct sim_client_info {
	uint32_t id;
	uint32_t qp;
	uint32_t issm;
	char nodeid[32];
};

_Static_assert(sizeof(struct simclient_req) == 288, "ibsim's struct sim_request is 288 bytes");

/* ibsim answers a control request at once; a silent ibsim is gone. */
#define SIMCLIENT_CTL_TIMEOUT_S 3

/* An abstract AF_UNIX name "<base>:<what>[<n>]", as sim_client.c's
 * make_name() makes it: its length counts the NUL after the name. */
static socklen_t make_name(struct sockaddr_un *a, const char *base, const char *what, int n)
{
	int k;

	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	if (n >= 0)
		k = snprintf(a->sun_path + 1, sizeof(a->sun_path) - 1, "%s:%s%d", base, what, n);
	else
		k = snprintf(a->sun_path + 1, sizeof(a->sun_path) - 1, "%s:%s", base, what);
	if (k < 0 || (size_t)k >= sizeof(a->sun_path) - 2)
		k = (int)sizeof(a->sun_path) - 3;
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 2 + (size_t)k);
}

/* The most MADs kept while a control request waits: past it they are
 * dropped, as a full receive queue drops them. */
#define SIMCLIENT_BACKLOG_MAX 65536

/* Every datagram waiting on the data socket into the backlog. */
static void drain_data(struct simclient *c)
{
	for (;;) {
		struct simclient_req *slot;
		ssize_t n;

		if (c->back_n == c->back_cap) {
			size_t cap = c->back_cap ? 2 * c->back_cap : 64, i;
			struct simclient_req *v;

			if (cap > SIMCLIENT_BACKLOG_MAX)
				return;
			v = malloc(cap * sizeof(*v));
			if (!v)
				return;
			for (i = 0; i < c->back_n; i++)
				v[i] = c->back[(c->back_first + i) % c->back_cap];
			free(c->back);
			c->back = v;
			c->back_cap = cap;
			c->back_first = 0;
		}
		slot = &c->back[(c->back_first + c->back_n) % c->back_cap];
		n = recv(c->fd_data, slot, sizeof(*slot), MSG_DONTWAIT);
		if (n != (ssize_t)sizeof(*slot))
			return;
		c->back_n++;
	}
}

/* The control answer, the data socket drained meanwhile. */
static ssize_t ctl_read(struct simclient *c, struct sim_ctl *m)
{
	int64_t end = mono_ms() + SIMCLIENT_CTL_TIMEOUT_S * 1000;

	for (;;) {
		struct pollfd p[2] = { { .fd = c->fd_ctl, .events = POLLIN },
				       { .fd = c->fd_data, .events = POLLIN } };
		int64_t left = end - mono_ms();

		if (left <= 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		if (poll(p, c->fd_data >= 0 ? 2 : 1, (int)left) < 0 && errno != EINTR)
			return -1;
		if (p[1].revents & POLLIN)
			drain_data(c);
		if (p[0].revents & POLLIN)
			return read(c->fd_ctl, m, sizeof(*m));
	}
}

static int ctl(struct simclient *c, uint32_t clientid, uint32_t type, void *data, size_t len)
{
	struct sim_ctl m;

	memset(&m, 0, sizeof(m));
	m.magic = SIM_MAGIC;
	m.clientid = clientid;
	m.type = type;
	m.len = (uint32_t)len;
	if (len)
		memcpy(m.data, data, len);
	if (write(c->fd_ctl, &m, sizeof(m)) != (ssize_t)sizeof(m))
		return errno ? -errno : -EIO;
	m.type = SIM_CTL_ERROR;
	if (ctl_read(c, &m) != (ssize_t)sizeof(m))
		return errno ? -errno : -EIO;
	if (m.type == SIM_CTL_ERROR)
		return -ECONNREFUSED;
	if (len)
		memcpy(data, m.data, len);
	return 0;
}

/* A data socket bound to "<base>:in<conn_id>", where ibsim's slot for
 * the client connects (ibsim.c sim_ctl_new_client). */
static int data_socket(struct simclient *c)
{
	struct sockaddr_un a;
	socklen_t n = make_name(&a, c->base, "in", (int)c->conn_id);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&a, n) < 0) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	return fd;
}

/* SIM_CTL_CONNECT with issm = 1; the data socket then talks to the
 * client's slot "<base>:out<id>" (ibsim.c sim_init_conn). */
static int attach(struct simclient *c)
{
	struct sim_client_info info;
	struct sockaddr_un a;
	socklen_t n;
	int ret;

	memset(&info, 0, sizeof(info));
	info.id = c->conn_id;
	info.issm = 1;
	snprintf(info.nodeid, sizeof(info.nodeid), "%s", c->node);
	ret = ctl(c, 0, SIM_CTL_CONNECT, &info, sizeof(info));
	if (ret)
		return ret;
	c->id = info.id;
	n = make_name(&a, c->base, "out", (int)c->id);
	if (connect(c->fd_data, (struct sockaddr *)&a, n) < 0)
		return -errno;
	return 0;
}

int simclient_init(struct simclient *c, const char *node)
{
	const char *base = getenv("IBSIM_SOCKNAME");
	struct timeval tv = { SIMCLIENT_CTL_TIMEOUT_S, 0 };
	struct sockaddr_un a;
	socklen_t n;
	int ret;

	memset(c, 0, sizeof(*c));
	c->fd_ctl = c->fd_data = -1;
	snprintf(c->base, sizeof(c->base), "%s", base && *base ? base : "sim");
	if (strlen(node) >= sizeof(c->node))
		return -ENAMETOOLONG;
	snprintf(c->node, sizeof(c->node), "%s", node);
	c->conn_id = (uint32_t)getpid();
	c->fd_ctl = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (c->fd_ctl < 0)
		goto fail;
	if (setsockopt(c->fd_ctl, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0)
		goto fail;
	n = make_name(&a, c->base, "ctl", (int)c->conn_id);
	if (bind(c->fd_ctl, (struct sockaddr *)&a, n) < 0)
		goto fail;
	n = make_name(&a, c->base, "ctl", -1);
	if (connect(c->fd_ctl, (struct sockaddr *)&a, n) < 0)
		goto fail;
	c->fd_data = data_socket(c);
	if (c->fd_data < 0) {
		errno = -c->fd_data;
		goto fail;
	}
	ret = attach(c);
	if (ret) {
		simclient_fini(c);
		return ret;
	}
	return 0;
fail:
	ret = -errno;
	simclient_fini(c);
	return ret;
}

void simclient_fini(struct simclient *c)
{
	int32_t off = 0;

	if (c->fd_ctl >= 0 && c->fd_data >= 0) {
		if (c->issm)
			ctl(c, c->id, SIM_CTL_SET_ISSM, &off, sizeof(off));
		ctl(c, c->id, SIM_CTL_DISCONNECT, NULL, 0);
	}
	c->issm = 0;
	if (c->fd_ctl >= 0)
		close(c->fd_ctl);
	if (c->fd_data >= 0)
		close(c->fd_data);
	c->fd_ctl = c->fd_data = -1;
	free(c->back);
	c->back = NULL;
	c->back_first = c->back_n = c->back_cap = 0;
}

int simclient_nodeinfo(struct simclient *c, uint8_t out[SIMCLIENT_DATA])
{
	memset(out, 0, SIMCLIENT_DATA);
	return ctl(c, c->id, SIM_CTL_GET_NODEINFO, out, SIMCLIENT_DATA);
}

int simclient_portinfo(struct simclient *c, uint8_t out[SIMCLIENT_DATA])
{
	memset(out, 0, SIMCLIENT_DATA);
	out[0] = 0; /* the client's own port */
	return ctl(c, c->id, SIM_CTL_GET_PORTINFO, out, SIMCLIENT_DATA);
}

int simclient_pkeys(struct simclient *c, uint8_t out[SIMCLIENT_DATA])
{
	memset(out, 0, SIMCLIENT_DATA);
	return ctl(c, c->id, SIM_CTL_GET_PKEYS, out, SIMCLIENT_DATA);
}

/* Names for the sockets of a client that connects again: the pid in
 * the low 22 bits (pid_max is at most 2^22), a generation above, so no
 * other process's names are taken. */
static uint32_t next_conn_id(uint32_t id)
{
	uint32_t gen = (id >> 22) + 1;

	return (uint32_t)getpid() | (gen & 0x1ff) << 22;
}

int simclient_set_issm(struct simclient *c, int on)
{
	int32_t v = on ? 1 : 0;
	uint32_t old = c->id;
	int ret, old_fd;

	ret = ctl(c, c->id, SIM_CTL_SET_ISSM, &v, sizeof(v));
	if (ret)
		return ret;
	c->issm = on;
	if (on)
		return 0;
	/* The new slot first, then the old one goes: the node is never
	 * without a client (sm_exists() no longer sees the old one). The
	 * new slot needs a data socket of its own: ibsim connect()s the
	 * slot to it, and a datagram socket already connected to the old
	 * slot refuses that (EPERM, on which ibsim panics). What was still
	 * queued on the old socket is lost, as in a port reset. */
	old_fd = c->fd_data;
	c->conn_id = next_conn_id(c->conn_id);
	c->fd_data = data_socket(c);
	if (c->fd_data < 0) {
		ret = c->fd_data;
		c->fd_data = old_fd;
		return ret;
	}
	ret = attach(c);
	if (ret) {
		close(c->fd_data);
		c->fd_data = old_fd;
		return ret;
	}
	close(old_fd);
	return ctl(c, old, SIM_CTL_DISCONNECT, NULL, 0);
}

int simclient_send(struct simclient *c, const struct simclient_req *r)
{
	struct pollfd p = { .fd = c->fd_data, .events = POLLOUT };
	ssize_t n;
	int tries = 0;

	/* ibsim's queue full (max_dgram_qlen): give it a moment, as a
	 * send queue would, rather than lose the MAD at once. */
	do {
		n = send(c->fd_data, r, sizeof(*r), 0);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && tries++ < 10)
			poll(&p, 1, 10);
	} while (n < 0 && (errno == EINTR || ((errno == EAGAIN || errno == EWOULDBLOCK) && tries <= 10)));
	if (n < 0)
		return -errno;
	return n == (ssize_t)sizeof(*r) ? 0 : -EIO;
}

size_t simclient_backlog(const struct simclient *c)
{
	return c->back_n;
}

int simclient_recv(struct simclient *c, struct simclient_req *r)
{
	ssize_t n;

	if (c->back_n) {
		*r = c->back[c->back_first];
		c->back_first = (c->back_first + 1) % c->back_cap;
		c->back_n--;
		return 1;
	}
	n = recv(c->fd_data, r, sizeof(*r), MSG_DONTWAIT);

	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -errno;
	if (n != (ssize_t)sizeof(*r))
		return -EPROTO;
	return 1;
}

int simclient_send_mad(struct simclient *c, uint16_t dlid_be, uint32_t dqp_be, uint32_t sqp,
		       const uint8_t *mad, size_t len)
{
	struct simclient_req r;

	memset(&r, 0, sizeof(r));
	r.dlid = dlid_be;
	r.slid = dlid_be == 0xffff ? 0xffff : 0;
	r.dqp = dqp_be;
	r.sqp = htonl(sqp);
	memcpy(r.mad, mad, len > sizeof(r.mad) ? sizeof(r.mad) : len);
	r.length = htobe64(sizeof(r.mad));
	return simclient_send(c, &r);
}

int simclient_reply(struct simclient *c, const struct simclient_req *in, const uint8_t *mad)
{
	struct simclient_req r;

	memset(&r, 0, sizeof(r));
	memcpy(r.mad, mad, sizeof(r.mad));
	r.dlid = in->slid;
	r.slid = 0;
	if (in->mad[SIMCLIENT_OFF_MGMT_CLASS] == SIMCLIENT_CLASS_DR_SMP)
		r.dlid = r.slid = 0xffff;
	r.dqp = in->sqp;
	r.sqp = in->dqp;
	r.length = htobe64(sizeof(r.mad));
	return simclient_send(c, &r);
}
