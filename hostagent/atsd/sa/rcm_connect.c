/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/ib.h>
#include <rdma/rdma_cma.h>

#include "core/a11.h"
#include "core/log.h"
#include "host/ats_query.h"
#include "rcm.h"
#include "rcm_connect.h"
#include "rcm_priv.h"
#include "core/sa_client.h"

static int step_over(struct rcm *r, uint32_t cid)
{
	struct rcm_slot *s = rcm_slot_find(r, cid);

	return !s || s->failed || s->c.state == RCM_ESTABLISHED;
}

/* What the connection is to: the destination, its holder's AF_IB
 * address at the record's P_Key, our source. */
struct rcm_target {
	const struct ats_ip *dst, *src;
	struct sockaddr_ib to;
	uint16_t pkey, src_port;
	uint64_t sid;
	const char *ip;
};

/* One REQ in one form, on an id of its own (a rejected id cannot
 * connect again: cma.c rdma_connect wants ROUTE_RESOLVED): 0 and *out,
 * or -errno with err set; *kernel_rej for the peer kernel's REJ. */
static int attempt(struct rcm *r, const struct rcm_target *t, int ib_form, unsigned timeout_ms,
		   struct rcm_conn *out, char *err, size_t errlen, int *kernel_rej)
{
	const struct mport_info *pi = sa_client_port(r->sa);
	struct sockaddr_ib from;
	struct rdma_cm_id *id;
	struct rcm_slot *s;
	uint32_t cid;
	int ret;

	*kernel_rej = 0;
	if (r->nconns == RCM_MAX_CONNS) {
		snprintf(err, errlen, "connection table full");
		return -ENOSPC;
	}
	if (rdma_create_id(r->ch, &id, NULL, RDMA_PS_TCP)) {
		ret = -errno;
		snprintf(err, errlen, "rdma_create_id failed: %s", strerror(errno));
		return ret;
	}
	s = rcm_slot_new(r, id);
	cid = s->c.id;
	s->c.active = 1;
	s->c.state = RCM_RESOLVING;
	s->c.service_id = t->sid;
	s->c.local_ip = *t->src;
	s->c.remote_ip = *t->dst;
	s->c.src_port = t->src_port;
	s->ib_form = s->c.ib_form = ib_form;
	/* From this port's GID at the record's P_Key: the kernel picks the
	 * device by it (cma.c cma_bind_addr); sid 0 takes an ephemeral one. */
	rcm_sib_fill(&from, pi->gid, t->pkey, 0, 0);
	r->timeout_ms = timeout_ms;
	r->err = err;
	r->errlen = errlen;
	if (rdma_resolve_addr(id, (struct sockaddr *)&from, (struct sockaddr *)&t->to,
			      (int)timeout_ms)) {
		s->failed = -errno;
		snprintf(err, errlen, "address resolution failed: %s", strerror(errno));
	}
	/* Each step (address, route, REQ to REP) within timeout_ms. While
	 * waiting, the listeners' events are served too; lookups wait. */
	ret = 0;
	while (!ret && (s = rcm_slot_find(r, cid)) && !s->failed && s->c.state != RCM_ESTABLISHED) {
		enum rcm_state was = s->c.state;

		ret = rcm_serve_until(r, timeout_ms, step_over, cid);
		if (ret == -ETIMEDOUT && (s = rcm_slot_find(r, cid)) && s->c.state != was && !s->failed)
			ret = 0; /* a step ended at the deadline: the next has its own */
	}
	s = rcm_slot_find(r, cid);
	if (s && !ret && !s->failed) {
		*out = s->c;
		return 0;
	}
	if (ret == -ETIMEDOUT)
		snprintf(err, errlen, "%s: no answer within %u ms", s && s->c.state == RCM_REQ_SENT ?
			 "connect" : "address or route resolution", timeout_ms);
	else if (ret)
		snprintf(err, errlen, "CM event channel: %s", strerror(-ret));
	else
		ret = s ? s->failed : -ECONNRESET;
	if (s) {
		*kernel_rej = s->kernel_rej;
		rcm_slot_del(r, s);
	}
	return ret;
}

int rcm_connect(struct rcm *r, const struct ats_ip *dst, uint16_t port, uint16_t pkey,
		uint64_t sid, const struct ats_ip *src, unsigned timeout_ms,
		struct rcm_conn *out, char *err, size_t errlen)
{
	struct rcm_target t;
	struct ats_query_set set;
	char ip[ATS_IP_STRLEN];
	int ret, krej;

	ats_ip_format(dst, ip, sizeof(ip));
	/* The forward lookup reads pkey's partition; the connection goes
	 * where the record is. */
	ret = ats_query_forward(r->sa, dst, pkey, &set);
	if (ret || !set.n) {
		snprintf(err, errlen, ret ? "ATS lookup of %s failed: %s" :
			 "%s has no ATS record: the connection fails locally (ATS 2.2)",
			 ip, strerror(-ret));
		ats_query_set_free(&set);
		return ret ? ret : -EHOSTUNREACH;
	}
	memset(&t, 0, sizeof(t));
	t.dst = dst;
	t.src = src;
	t.ip = ip;
	t.sid = sid ? sid : a11_service_id(A11_PS_TCP, port);
	t.pkey = set.recs[0].pkey; /* primary holders first */
	rcm_sib_fill(&t.to, set.recs[0].gid, t.pkey, t.sid, UINT64_MAX);
	ats_query_set_free(&set);
	t.src_port = (uint16_t)(0xc000 | (random() & 0x3fff));
	/* Annex A11 first: what every IP listener takes when the address is
	 * on the peer's IPoIB interface at this P_Key. Anywhere else (a
	 * static or service address, another partition's interface, a
	 * downed one) the peer's kernel refuses it before any listener
	 * (cma.c cma_ib_id_from_event: REJ 28, no private data): the same
	 * identity again in the AF_IB form, which it hands to an AF_IB
	 * listener as atsd's (a11.h). */
	ret = attempt(r, &t, 0, timeout_ms, out, err, errlen, &krej);
	if (ret == -ECONNREFUSED && krej) {
		log_info("CM: %s is not on the peer's IPoIB interface at P_Key 0x%04x (its kernel refused the Annex A11 request): asking again in the AF_IB form",
			 ip, t.pkey);
		ret = attempt(r, &t, 1, timeout_ms, out, err, errlen, &krej);
		if (ret == -ECONNREFUSED && krej)
			snprintf(err, errlen,
				 "%s is not on the peer's IPoIB interface at P_Key 0x%04x: its kernel refuses IP connections to it (REJ 28, no private data), and no AF_IB listener of service 0x%016" PRIx64 " took the request in the AF_IB form",
				 ip, t.pkey, t.sid);
	}
	if (!ret)
		log_info("CM: connected to %s%s, connection 0x%08x", ip,
			 out->ib_form ? " (AF_IB form: not on the peer's IPoIB)" : "", out->id);
	return ret;
}

