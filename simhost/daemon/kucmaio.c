/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* simhostd's rdma_cm connections: see kucmaio.h. */
#include <errno.h>
#include <string.h>

#include "kucmaio.h"
#include "simhost/wire/simhost.h"
#include "core/wire.h"

void kucmaio_init(struct kucmaio *io, struct kconn_set *cs, const struct ksysfs *fs,
		  kucmaio_send_fn send, kucmaio_cm_send_fn cm_send, void *send_ctx,
		  uint32_t cm_retries, uint8_t cm_timeout)
{
	struct kcma_port p;

	memset(io, 0, sizeof(*io));
	memset(&p, 0, sizeof(p));
	kucma_init(&io->u, &p, cm_retries, cm_timeout);
	io->cs = cs;
	io->fs = fs;
	io->send = send;
	io->cm_send = cm_send;
	io->send_ctx = send_ctx;
}

void kucmaio_fini(struct kucmaio *io)
{
	kucma_fini(&io->u);
	memset(io->park, 0, sizeof(io->park));
}

/* The port as the device knows it now: the GID's prefix comes from the
 * SM, so it is read at each command, not once. */
static void kucmaio_port(struct kucmaio *io)
{
	struct kcma_port *p = &io->u.cma.port;
	size_t i;

	p->node_guid = wire_get64(io->fs->nodeinfo + KSYSFS_NI_OFF_NODE_GUID);
	ksysfs_gid(io->fs, p->gid);
	p->pkey = wire_get16(io->fs->pk);
	for (i = 0; i < KINET_PKEYS; i++)
		p->pkeys[i] = wire_get16(io->fs->pk + 2 * i);
	p->lid = wire_get16(io->fs->pi + KSYSFS_PI_OFF_LID);
}

static void kucmaio_ring(struct kucmaio *io, uint32_t token)
{
	struct simhost_doorbell d;
	struct kconn *f = kconn_by_token(io->cs, SIMHOST_UCMA, token);

	if (!f)
		return;
	d.gen = ++f->doorbell ? f->doorbell : ++f->doorbell;
	kconn_send(io->cs, f, &d, sizeof(d), NULL, 0);
}

static void kucmaio_wake(struct kucmaio *io, uint32_t token);

int kucmaio_hello(struct kucmaio *io, struct kconn *c, uint32_t kind, uint32_t *token,
		  int cm_loaded)
{
	int ret;

	if (kind == SIMHOST_UCMA_CMD) {
		if (!kconn_by_token(io->cs, SIMHOST_UCMA, *token))
			return -EBADF;
		c->token = *token;
		return 0;
	}
	if ((ret = kucma_open(&io->u, cm_loaded)) < 0)
		return ret;
	c->token = *token = (uint32_t)ret;
	c->doorbell = 0;
	return 0;
}

/* What the kernel does after a command's write() returned (its work
 * items, ib_sa's sends): the events queued, the SA queries sent. */
static void kucmaio_drain(struct kucmaio *io)
{
	struct kcma_send s;
	struct kcma_work w;
	struct kcm_send m;
	uint32_t t;
	int more;

	/* Queuing an event can send (a CONNECT_REQUEST with no room is
	 * REJected): until all three are empty. */
	do {
		more = 0;
		while (kcma_send(&io->u.cma, &s))
			io->send(io->send_ctx, s.mad, s.timeout_ms);
		while (kcma_cm_send(&io->u.cma, &m))
			io->cm_send(io->send_ctx, &m);
		while (kcma_work(&io->u.cma, &w)) {
			kucmaio_queue(io, &w);
			more = 1;
		}
	} while (more);
	if ((t = io->u.ring)) { /* MIGRATE_ID filled an empty list */
		io->u.ring = 0;
		kucmaio_ring(io, t);
		kucmaio_wake(io, t);
	}
}

/* One write() of c's file; -EAGAIN when it parks. */
static int kucmaio_do(struct kucmaio *io, struct kconn *c, uint32_t flags, const uint8_t *buf,
		      size_t len)
{
	struct simhost_ucm_rep rep = { 0, 0, 0 };
	uint8_t resp[KUCMA_RESP_MAX];
	struct kconn *f;
	size_t rlen = 0;
	int ret;

	kucmaio_port(io);
	ret = kucma_write(&io->u, c->token,
			  flags & SIMHOST_UCM_NONBLOCK ? KUCMA_NONBLOCK : 0, buf, len, resp, &rlen,
			  io->now);
	if (ret == KUCMA_PARK)
		return -EAGAIN;
	rep.ret = ret;
	rep.resp_len = ret < 0 ? 0 : (uint32_t)rlen;
	/* The list is empty now: the doorbells rung so far are stale. */
	f = kconn_by_token(io->cs, SIMHOST_UCMA, c->token);
	if (f && !kucma_ready(&io->u, c->token))
		rep.doorbell = f->doorbell;
	kconn_send(io->cs, c, &rep, sizeof(rep), resp, rep.resp_len);
	kucmaio_drain(io);
	return 0;
}

static void kucmaio_park(struct kucmaio *io, struct kconn *c, uint32_t flags, const uint8_t *buf,
			 size_t len)
{
	struct simhost_ucm_rep rep = { -ENOMEM, 0, 0 };
	size_t i;

	for (i = 0; i < KUCMAIO_PARKS; i++)
		if (!io->park[i].c) {
			io->park[i].c = c;
			io->park[i].seq = io->next_seq++;
			io->park[i].flags = flags;
			io->park[i].len = len;
			memcpy(io->park[i].buf, buf, len);
			return;
		}
	kconn_send(io->cs, c, &rep, sizeof(rep), NULL, 0);
}

void kucmaio_input(struct kucmaio *io, struct kconn *c, const uint8_t *buf, size_t len,
		   int64_t now)
{
	struct simhost_ucm_rep rep = { -EINVAL, 0, 0 };
	struct simhost_ucm_req q;

	io->now = now;
	if (len < sizeof(q)) {
		kconn_send(io->cs, c, &rep, sizeof(rep), NULL, 0);
		return;
	}
	memcpy(&q, buf, sizeof(q));
	if (q.len != len - sizeof(q) || q.len > KUCMAIO_REQ_MAX) {
		kconn_send(io->cs, c, &rep, sizeof(rep), NULL, 0);
		return;
	}
	if (kucmaio_do(io, c, q.flags, buf + sizeof(q), q.len) == -EAGAIN)
		kucmaio_park(io, c, q.flags, buf + sizeof(q), q.len);
}

/* The parked GET_EVENTs of file token, oldest first, tried again: as
 * many are answered as there are events (all of them when the file is
 * gone: -EBADF). */
static void kucmaio_wake(struct kucmaio *io, uint32_t token)
{
	struct kucmaio_park *p;
	size_t i;

	for (;;) {
		p = NULL;
		for (i = 0; i < KUCMAIO_PARKS; i++)
			if (io->park[i].c && io->park[i].c->token == token &&
			    (!p || io->park[i].seq < p->seq))
				p = &io->park[i];
		if (!p || kucmaio_do(io, p->c, p->flags, p->buf, p->len) == -EAGAIN)
			return;
		p->c = NULL;
	}
}

void kucmaio_gone(struct kucmaio *io, struct kconn *c)
{
	size_t i;

	if (c->kind == SIMHOST_UCMA) {
		/* ucma_close: each id destroyed sends its DREQ/REJ now */
		kucma_close(&io->u, c->token);
		kucmaio_wake(io, c->token);
		kucmaio_drain(io);
		return;
	}
	for (i = 0; i < KUCMAIO_PARKS; i++)
		if (io->park[i].c == c)
			io->park[i].c = NULL;
}

int kucmaio_queue(struct kucmaio *io, const struct kcma_work *w)
{
	int ret = kucma_queue_work(&io->u, w);
	uint32_t file;

	if (ret < 0)
		return ret;
	file = io->u.ids[w->id].file;
	if (ret)
		kucmaio_ring(io, file);
	kucmaio_wake(io, file);
	return 0;
}

int kucmaio_sa_answer(struct kucmaio *io, const uint8_t *mad, size_t len, int timed_out)
{
	if (!kcma_sa_answer(&io->u.cma, mad, len, timed_out))
		return 0;
	kucmaio_drain(io);
	return 1;
}

void kucmaio_cm_agent(struct kucmaio *io, uint32_t hi_tid)
{
	io->u.cma.port.cm_hi_tid = hi_tid;
}

void kucmaio_cm_recv(struct kucmaio *io, const uint8_t *mad, size_t len, uint16_t slid,
		     int64_t now)
{
	io->now = now;
	kucmaio_port(io);
	kcma_cm_recv(&io->u.cma, mad, len, slid, now);
	kucmaio_drain(io);
}

void kucmaio_due(struct kucmaio *io, int64_t now)
{
	if (kcma_cm_deadline(&io->u.cma) > now)
		return;
	io->now = now;
	kcma_cm_due(&io->u.cma, now);
	kucmaio_drain(io);
}

int64_t kucmaio_deadline(const struct kucmaio *io)
{
	return kcma_cm_deadline(&io->u.cma);
}
