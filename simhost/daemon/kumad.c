/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* simhostd's ib_umad files: writes, agent ioctls, deliveries (kumad.h). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simhost/kernel/kioctl.h"
#include "simhost/kernel/krmpp.h"
#include "kumad.h"
#include "core/mad.h"
#include "simhost/wire/simhost.h"
#include "core/sa.h"
#include "core/wire.h"

static void dbg(const struct kumad *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void dbg(const struct kumad *m, const char *fmt, ...)
{
	va_list ap;

	if (!m->verbose)
		return;
	fprintf(stderr, "simhostd[%s]: ", m->node);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void kumad_init(struct kumad *m, struct kmad *k, struct kconn_set *cs, struct simclient *sc,
		const char *node, int verbose)
{
	memset(m, 0, sizeof(*m));
	m->k = k;
	m->cs = cs;
	m->sc = sc;
	m->node = node;
	m->verbose = verbose;
}

void kumad_fini(struct kumad *m)
{
	m->k = NULL;
}

void kumad_wire(struct kumad *m, const struct ib_user_mad *u, uint32_t sqp, const uint8_t *mad,
		size_t len)
{
	if (simclient_send_mad(m->sc, u->addr.lid, u->addr.qpn, sqp, mad, len) == 0)
		m->mads_out++;
}

void kumad_deliver(struct kumad *m, const struct kmad_agent *a, const struct ib_user_mad *u,
		   const uint8_t *mad, size_t len)
{
	struct kconn *c = kconn_by_token(m->cs, SIMHOST_UMAD, a->file);
	struct ib_user_mad hdr = *u;

	if (!c)
		return;
	hdr.agent_id = a->id;
	hdr.length = (uint32_t)(KUMAD_HDR + len);
	kconn_send_msg(m->cs, c, &hdr, KUMAD_HDR, mad, len);
}

/* How a received MAD came in, from the umad header it is read with
 * (user_mad.c recv_handler fills it from the work completion). */
static struct kwait_src src_of(const struct kumad *m, const struct ib_user_mad *u)
{
	struct kwait_src s = { u->addr.grh_present ? 1 : 0, u->addr.path_bits, m->k->lmc };

	return s;
}

/* ---- RMPP: what it sends and hands over ---- */

struct rctx {
	struct kumad *m;
	struct kmad_agent *a;
};

static void rmpp_out(void *ctx, const struct ib_user_mad *u, const uint8_t mad[MAD_SIZE])
{
	struct rctx *r = ctx;

	kumad_wire(r->m, u, 1, mad, MAD_SIZE); /* RMPP is GSI only */
}

static void rmpp_msg(void *ctx, const struct ib_user_mad *u, const uint8_t *msg, size_t len)
{
	struct rctx *r = ctx;
	struct kwait_src src = src_of(r->m, u);

	if (kmad_complete(r->a, msg, len, &src))
		kumad_deliver(r->m, r->a, u, msg, len);
	else
		r->m->resp_dropped++;
}

/* `rmpp off`: the first DATA segment of a message, then nothing, as an SA
 * path without RMPP delivers it (kadmin.h). */
static void first_segment(struct kumad *m, const struct ib_user_mad *u, uint32_t sqp,
			  const uint8_t *mad, size_t len, int64_t now)
{
	struct rmpp_cfg cfg;
	struct rmpp_tx t;
	uint8_t seg[MAD_SIZE];

	rmpp_cfg_default(&cfg);
	if (rmpp_tx_init(&t, mad, len, rmpp_hdr_len(mad[MAD_OFF_MGMT_CLASS]), &cfg, now) < 0)
		return;
	if (rmpp_tx_next(&t, now, seg) == MAD_SIZE)
		kumad_wire(m, u, sqp, seg, MAD_SIZE);
	rmpp_tx_fini(&t);
}

void kumad_recv(struct kumad *m, struct kmad_agent *a, const struct ib_user_mad *u,
		uint8_t *mad, size_t len, int64_t now)
{
	struct kwait_src src = src_of(m, u);

	if (!m->no_rmpp && kmad_kernel_rmpp(a) && krmpp_class(mad[MAD_OFF_MGMT_CLASS]) &&
	    kmad_rmpp_active(mad, len)) {
		struct kconn *c = kconn_by_token(m->cs, SIMHOST_UMAD, a->file);
		struct rctx r = { m, a };

		if (c && c->rmpp &&
		    krmpp_recv(c->rmpp, u, mad, len, now, rmpp_out, rmpp_msg, &r) == KRMPP_SENT)
			kmad_rmpp_sent(a, mad, now);
		return;
	}
	if (kmad_complete(a, mad, len, &src))
		kumad_deliver(m, a, u, mad, len);
	else
		m->resp_dropped++;
}

void kumad_timers(struct kumad *m, int64_t now)
{
	size_t i;

	for (i = 0; i < KCONN_MAX; i++) {
		struct kconn *c = m->cs->c[i];
		struct rctx r = { m, NULL };

		if (c && c->rmpp && krmpp_deadline(c->rmpp) <= now)
			krmpp_timers(c->rmpp, now, rmpp_out, &r);
	}
}

/* ---- a process's umad write ---- */

int kumad_write(struct kumad *m, struct kconn *c, uint8_t *buf, size_t len, int64_t now)
{
	struct ib_user_mad u;
	struct kmad_agent *a;
	uint8_t *mad = buf + KUMAD_HDR;
	size_t mlen;
	int rmpp;

	/* ib_umad_write: at least the header and an RMPP header; an agent
	 * of this file. */
	if (len < KUMAD_HDR + MAD_RMPP_HDR_END)
		return -EINVAL;
	memcpy(&u, buf, KUMAD_HDR);
	a = kmad_agent(m->k, c->token, u.agent_id);
	if (!a)
		return -EINVAL;
	mlen = len - KUMAD_HDR;
	kmad_stamp_tid(a, mad);
	rmpp = kmad_kernel_rmpp(a) && krmpp_class(mad[MAD_OFF_MGMT_CLASS]) &&
	       kmad_rmpp_active(mad, mlen);
	/* is_duplicate, on the TID as stamped: a request whose TID and
	 * class another still waiting has, or a response still being sent
	 * to the same place (an RMPP transfer). */
	if (kmad_duplicate(a, buf, len) ||
	    (kmad_is_response(mad) && c->rmpp && krmpp_sending(c->rmpp, &u, mad))) {
		m->dup_refused++;
		dbg(m, "tid 0x%016llx class 0x%02x: a duplicate, EINVAL",
		    (unsigned long long)wire_get64(mad + MAD_OFF_TID), mad[MAD_OFF_MGMT_CLASS]);
		return -EINVAL;
	}
	if (mad[MAD_OFF_MGMT_CLASS] == SA_CLASS && (mad[MAD_OFF_METHOD] & MAD_METHOD_RESP_BIT))
		m->sa_answers_out++;
	dbg(m, "out class 0x%02x method 0x%02x attr 0x%04x tid 0x%016llx to lid %u, %zu bytes",
	    mad[MAD_OFF_MGMT_CLASS], mad[MAD_OFF_METHOD], wire_get16(mad + MAD_OFF_ATTR_ID),
	    (unsigned long long)wire_get64(mad + MAD_OFF_TID), ntohs(u.addr.lid), mlen);
	if (u.timeout_ms)
		kmad_send_wait(a, buf, len, now);
	if (m->no_rmpp && rmpp) {
		first_segment(m, &u, a->reg.qpn, mad, mlen, now);
		return 0;
	}
	if (rmpp) {
		struct rctx r = { m, a };

		if (krmpp_send(c->rmpp, &u, mad, mlen, now, rmpp_out, &r) < 0)
			dbg(m, "RMPP send refused");
		return 0;
	}
	kumad_wire(m, &u, a->reg.qpn, mad, mlen);
	return 0;
}

/* ---- a process's ioctl (SIMHOST_AGENTS) ---- */

static int agents_op(struct kumad *m, struct kconn *c, const struct simhost_reg_req *q,
		     struct simhost_reg_rep *rep, const uint8_t *body, size_t body_len, int64_t now)
{
	struct kconn *f = kconn_by_token(m->cs, SIMHOST_UMAD, c->token);
	struct kmad_reg r;
	int ret;

	if (!f)
		return -EBADF;
	if (q->op == SIMHOST_WRITE) {
		uint8_t *w = malloc(body_len ? body_len : 1);
		int ret2;

		if (!w)
			return -ENOMEM;
		memcpy(w, body, body_len);
		ret2 = kumad_write(m, f, w, body_len, now);
		free(w);
		return ret2;
	}
	if (q->op == SIMHOST_UNREG_AGENT) {
		ret = kmad_unregister(m->k, f->token, q->id);
		if (!ret)
			krmpp_drop_agent(f->rmpp, q->id);
		return ret;
	}
	/* ib_umad_enable_pkey: only before the first agent. */
	if (q->op == SIMHOST_ENABLE_PKEY)
		return f->agents_used ? -EINVAL : 0;
	if ((ret = kioctl_reg(q, &r, rep)) < 0)
		return ret;
	ret = kmad_register(m->k, f->token, &r, &rep->id);
	if (!ret) {
		f->agents_used = 1;
		rep->v2.id = rep->id;
	}
	dbg(m, "pid %u registers class 0x%02x v%u rmpp %u: %d", c->pid, r.mgmt_class,
	    r.class_version, r.rmpp_version, ret);
	return ret;
}

void kumad_agents(struct kumad *m, struct kconn *c, const uint8_t *buf, size_t len, int64_t now)
{
	struct simhost_reg_rep rep;
	struct simhost_reg_req q;

	memset(&rep, 0, sizeof(rep));
	memset(&q, 0, sizeof(q));
	memcpy(&q, buf, len < sizeof(q) ? len : sizeof(q));
	rep.err = len >= offsetof(struct simhost_reg_req, u)
			  ? agents_op(m, c, &q, &rep, buf + (len > sizeof(q) ? sizeof(q) : len),
				      len > sizeof(q) ? len - sizeof(q) : 0, now)
			  : -EINVAL;
	kconn_send(m->cs, c, &rep, sizeof(rep), NULL, 0);
}
