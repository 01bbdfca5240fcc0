/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The simulated node's rdma_cm ids: see kcma.h. Integers of the ABI are
 * in the process's (host) order except where the kernel stores network
 * order (node_guid, pkey, sib_pkey, sib_sid, sib_sid_mask). */
#include <errno.h>
#include <string.h>

#include <rdma/ib_user_verbs.h>

#include "kcm_qp.h"
#include "kcm_recv.h"
#include "simhost/wire/abi.h"
#include "kcma.h"
#include "core/sa.h"
#include "core/wire.h"

/* struct sockaddr_ib (48) */
enum {
	KCMA_SIB_FAMILY = 0,
	KCMA_SIB_PKEY = 2,
	KCMA_SIB_ADDR = 8,
	KCMA_SIB_SID = 24,
	KCMA_SIB_SID_MASK = 32,
};
/* struct rdma_ucm_query_addr_resp (280) */
enum {
	KCMA_QA_NODE_GUID = 0,
	KCMA_QA_PORT_NUM = 8,
	KCMA_QA_PKEY = 10,
	KCMA_QA_SRC_SIZE = 12,
	KCMA_QA_DST_SIZE = 14,
	KCMA_QA_SRC = 16,
	KCMA_QA_DST = 144,
	KCMA_QA_IBDEV_INDEX = 272,
};
#define KCMA_AF_IB 27
/* enum rdma_ucm_port_space */
#define KCMA_PS_IB 0x013F
#define KCMA_PS_TCP 0x0106
#define KCMA_PS_UDP 0x0111
/* cma.c: the service ID's port-space part (RDMA_IB_IP_PS_*). */
#define KCMA_SID_PS_MASK 0xFFFFFFFFFFFF0000ull
#define KCMA_SID_PORT_FIRST 32768 /* ip_local_port_range's default start */
/* sockaddr_ib's sib_flowinfo (be32: traffic class in bits 20-27). */
#define KCMA_SIB_FLOWINFO 4
/* PathRecord (IBTA Vol 1 15.2.5.16, Table 205) byte offsets and the
 * component mask bits of ib_sa.h (IB_SA_PATH_REC_*). */
enum {
	KCMA_PR_SERVICE_ID = 0,
	KCMA_PR_DGID = 8,
	KCMA_PR_SGID = 24,
	KCMA_PR_TCLASS = 48,
	KCMA_PR_REVERSIBLE_NUMB_PATH = 49,
	KCMA_PR_PKEY = 50,
};
#define KCMA_PR_CM_SERVICE_ID (3ull << 0) /* 8MSB | 56LSB */
#define KCMA_PR_CM_DGID (1ull << 2)
#define KCMA_PR_CM_SGID (1ull << 3)
#define KCMA_PR_CM_TCLASS (1ull << 10)
#define KCMA_PR_CM_REVERSIBLE (1ull << 11)
#define KCMA_PR_CM_NUMB_PATH (1ull << 12)
#define KCMA_PR_CM_PKEY (1ull << 13)
/* Route queries' TIDs: the upper half of the low 32 bits, clear of
 * kipoib's (counted from 1) on the same ib_sa agent. */
#define KCMA_TID_FIRST 0x80000000u
/* rdma_user_cm.h / ib_user_sa.h: IB_PATH_GMP | IB_PATH_PRIMARY |
 * IB_PATH_BIDIRECTIONAL (OUTBOUND | INBOUND_REVERSE). */
#define KCMA_PATH_FLAGS (1u | 2u | 8u | 32u)

/* core/cache.c ib_find_cached_pkey on the port's table: a full
 * member's index, else a limited member's; -ENOENT. */
static int kcma_pkey_index(const struct kcma *c, uint16_t pkey)
{
	int i, partial = -1;

	for (i = 0; i < KINET_PKEYS; i++)
		if (c->port.pkeys[i] && (c->port.pkeys[i] & 0x7fff) == (pkey & 0x7fff)) {
			if (c->port.pkeys[i] & 0x8000)
				return i;
			partial = i;
		}
	return partial >= 0 ? partial : -ENOENT;
}

/* ib_cm sends from the port as the device knows it now. */
static void kcma_cm_port(struct kcma *c)
{
	c->cm.port.ca_guid = c->port.node_guid;
	c->cm.port.lid = c->port.lid;
	memcpy(c->cm.port.gid, c->port.gid, 16);
	c->cm.port.hi_tid = c->port.cm_hi_tid;
}

void kcma_init(struct kcma *c, const struct kcma_port *port, uint32_t cm_retries,
	       uint8_t cm_timeout)
{
	struct kcm_port cp;

	memset(c, 0, sizeof(*c));
	c->port = *port;
	c->next_port = KCMA_SID_PORT_FIRST;
	c->next_tid = KCMA_TID_FIRST;
	memset(&cp, 0, sizeof(cp));
	kcm_init(&c->cm, &cp, cm_retries, cm_timeout, (uint32_t)port->node_guid);
	kcma_cm_port(c);
}

void kcma_fini(struct kcma *c)
{
	kcm_fini(&c->cm);
	memset(c->ids, 0, sizeof(c->ids));
	c->wn = c->sn = 0;
}

void kcma_create(struct kcma *c, uint32_t id, uint16_t ps, uint8_t qp_type)
{
	struct kcma_id *d = &c->ids[id];

	memset(d, 0, sizeof(*d));
	d->used = 1;
	d->ps = ps;
	d->qp_type = qp_type;
}

static struct kcma_work *kcma_work_put(struct kcma *c, uint32_t id, uint32_t event,
				       int32_t status)
{
	struct kcma_work *w;

	/* Drained after each command, MAD and timer: never full unless
	 * the caller stops draining (NULL: the event is lost). */
	if (c->wn == KCMA_WORK)
		return NULL;
	w = &c->work[(c->whead + c->wn++) % KCMA_WORK];
	memset(w, 0, sizeof(*w));
	w->id = id;
	w->child = id;
	w->event = event;
	w->status = status;
	return w;
}

int kcma_work(struct kcma *c, struct kcma_work *w)
{
	if (!c->wn)
		return 0;
	*w = c->work[c->whead];
	c->whead = (c->whead + 1) % KCMA_WORK;
	c->wn--;
	return 1;
}

void kcma_destroy(struct kcma *c, uint32_t id)
{
	struct kcma_work keep[KCMA_WORK];
	size_t i, n = 0;

	for (i = 0; i < c->wn; i++) {
		const struct kcma_work *w = &c->work[(c->whead + i) % KCMA_WORK];

		if (w->id != id)
			keep[n++] = *w;
	}
	memcpy(c->work, keep, n * sizeof(keep[0]));
	c->whead = 0;
	c->wn = n;
	/* cma.c destroy_id: ib_destroy_cm_id sends what the state asks
	 * (cm_destroy_id), a listener stops listening. */
	if (c->ids[id].has_conn)
		kcm_destroy(&c->cm, c->ids[id].conn, c->now);
	if (c->ids[id].listening)
		kcm_unlisten(&c->cm, id);
	c->ids[id].used = 0;
}

/* cma.c cma_select_ib_ps: the port space a service ID names, given the
 * id's; 0 when none (rdma_bind_addr fails -EPROTONOSUPPORT). */
static uint64_t kcma_sid_ps(uint16_t ps, uint64_t sid, uint64_t mask)
{
	mask &= KCMA_SID_PS_MASK;
	sid &= mask;
	if (ps == KCMA_PS_IB && sid == ((uint64_t)KCMA_PS_IB << 16 & mask))
		return (uint64_t)KCMA_PS_IB << 16;
	if ((ps == KCMA_PS_IB || ps == KCMA_PS_TCP) && sid == ((uint64_t)KCMA_PS_TCP << 16 & mask))
		return (uint64_t)KCMA_PS_TCP << 16;
	if ((ps == KCMA_PS_IB || ps == KCMA_PS_UDP) && sid == ((uint64_t)KCMA_PS_UDP << 16 & mask))
		return (uint64_t)KCMA_PS_UDP << 16;
	return 0;
}

/* Whether a bound id holds service ID sid (cma_use_port without
 * REUSEADDR: any holder conflicts). */
static int kcma_sid_used(const struct kcma *c, uint64_t sid)
{
	size_t i;

	for (i = 0; i < KCMA_IDS; i++)
		if (c->ids[i].used && c->ids[i].bound &&
		    wire_get64(c->ids[i].src + KCMA_SIB_SID) == sid)
			return 1;
	return 0;
}

int kcma_bind(struct kcma *c, uint32_t n, const uint8_t *sib)
{
	static const uint8_t any[16];
	struct kcma_id *id = &c->ids[n];
	uint16_t family = abi_get16(sib);
	uint64_t ps, port, sid, mask;
	int dev = 0;
	unsigned tries;

	if (id->bound)
		return -EINVAL; /* rdma_bind_addr: only from RDMA_CM_IDLE */
	if (family != KCMA_AF_IB)
		return -EADDRNOTAVAIL; /* the node has no IP address for rdma_cm yet */
	/* cma_translate_ib + cma_acquire_dev_by_src_ip: a GID names the
	 * device that has it; :: binds to none. */
	if (memcmp(sib + KCMA_SIB_ADDR, any, 16)) {
		if (memcmp(sib + KCMA_SIB_ADDR, c->port.gid, 16))
			return -ENODEV;
		dev = 1;
	}
	sid = wire_get64(sib + KCMA_SIB_SID);
	mask = wire_get64(sib + KCMA_SIB_SID_MASK);
	if (!(ps = kcma_sid_ps(id->ps, sid, mask)))
		return -EPROTONOSUPPORT;
	port = sid & 0xffff;
	if (port) {
		if (kcma_sid_used(c, ps | port))
			return -EADDRINUSE;
	} else { /* cma_alloc_any_port */
		for (tries = 0; tries < 0x10000 - KCMA_SID_PORT_FIRST; tries++) {
			port = c->next_port++;
			if (c->next_port < KCMA_SID_PORT_FIRST)
				c->next_port = KCMA_SID_PORT_FIRST;
			if (!kcma_sid_used(c, ps | port))
				break;
		}
		if (tries == 0x10000 - KCMA_SID_PORT_FIRST)
			return -EADDRNOTAVAIL;
	}
	memcpy(id->src, sib, KCMA_SIB_LEN);
	wire_put64(id->src + KCMA_SIB_SID, ps | port);
	wire_put64(id->src + KCMA_SIB_SID_MASK, KCMA_SID_PS_MASK | mask);
	id->bound = 1;
	id->dev = dev;
	return 0;
}

/* cma.c rdma_listen: cma_comp_exch(ADDR_BOUND, LISTEN), else
 * rdma_bind_addr(INADDR_ANY) (-EINVAL unless IDLE; no IPv4 here:
 * -EADDRNOTAVAIL); then cma_ib_listen, ib_cm_insert_listen on the
 * bound service ID, which bind already made the id's own (cma_use_port
 * without REUSEADDR). */
int kcma_listen(struct kcma *c, uint32_t n, int backlog)
{
	struct kcma_id *id = &c->ids[n];

	if (!id->bound)
		return -EADDRNOTAVAIL;
	if (id->resolved || id->listening)
		return -EINVAL;
	if (kcm_listen(&c->cm, wire_get64(id->src + KCMA_SIB_SID), n) < 0)
		return -EADDRINUSE;
	id->listening = 1;
	id->backlog = backlog;
	return 0;
}

/* rdma_resolve_addr for AF_IB (cma.c resolve_prepare_src,
 * cma_resolve_ib_addr): an IDLE id is bound first (cma_bind_addr: the
 * destination's family and P_Key, any GID, an ephemeral service ID);
 * the destination must share the port's subnet prefix and P_Key
 * (cma_resolve_ib_dev, else -ENODEV); the source becomes the port's
 * GID. No ARP on IB: ADDR_RESOLVED is queued at once
 * (enqueue_resolve_addr_work). */
int kcma_resolve_addr(struct kcma *c, uint32_t n, const uint8_t *src, const uint8_t *dst)
{
	struct kcma_id *id = &c->ids[n];
	uint8_t any[KCMA_SIB_LEN];
	int ret;

	if (id->resolved || id->listening)
		return -EINVAL; /* not ADDR_BOUND any more */
	if (abi_get16(dst) != KCMA_AF_IB)
		return -EADDRNOTAVAIL; /* no IP addresses for rdma_cm yet */
	if (!id->bound) {
		if (!src || !abi_get16(src)) {
			memset(any, 0, sizeof(any));
			abi_put16(any + KCMA_SIB_FAMILY, KCMA_AF_IB);
			memcpy(any + KCMA_SIB_PKEY, dst + KCMA_SIB_PKEY, 2);
			src = any;
		}
		if ((ret = kcma_bind(c, n, src)) < 0)
			return ret;
	}
	if (abi_get16(id->src) != KCMA_AF_IB)
		return -EINVAL;
	/* cma_resolve_ib_dev: a GID of the same subnet on a port whose
	 * P_Key table has the destination's P_Key (full member or not). */
	if (memcmp(dst + KCMA_SIB_ADDR, c->port.gid, 8) ||
	    kcma_pkey_index(c, wire_get16(dst + KCMA_SIB_PKEY)) < 0)
		return -ENODEV;
	memcpy(id->dst, dst, KCMA_SIB_LEN);
	memcpy(id->src + KCMA_SIB_ADDR, c->port.gid, 16);
	id->dev = 1;
	id->resolved = 1;
	kcma_work_put(c, n, KCMA_EV_ADDR_RESOLVED, 0);
	return 0;
}

/* ucma_query_addr, ucma_query_gid: for AF_IB both copy the id's
 * sockaddr_ib (the destination: the family only until resolved), and
 * the device's fields when the id has one (ucma_query_device_addr). */
void kcma_query_addr(const struct kcma *c, uint32_t n, uint8_t *resp)
{
	const struct kcma_id *id = &c->ids[n];

	memset(resp, 0, KCMA_QUERY_ADDR_LEN);
	if (id->dev) {
		wire_put64(resp + KCMA_QA_NODE_GUID, c->port.node_guid);
		resp[KCMA_QA_PORT_NUM] = 1;
		memcpy(resp + KCMA_QA_PKEY, id->src + KCMA_SIB_PKEY, 2);
		memset(resp + KCMA_QA_IBDEV_INDEX, 0, 4);
	}
	if (id->bound) {
		abi_put16(resp + KCMA_QA_SRC_SIZE, KCMA_SIB_LEN);
		abi_put16(resp + KCMA_QA_DST_SIZE, KCMA_SIB_LEN);
		memcpy(resp + KCMA_QA_SRC, id->src, KCMA_SIB_LEN);
		if (id->resolved)
			memcpy(resp + KCMA_QA_DST, id->dst, KCMA_SIB_LEN);
		else
			abi_put16(resp + KCMA_QA_DST + KCMA_SIB_FAMILY, KCMA_AF_IB);
	}
}

/* cma_query_ib_route (Linux 6.1): SGID and DGID of the resolved
 * addresses, the destination's P_Key, numb_path 1, reversible, the
 * destination's service ID (an SM's QoS policy may pick the SL from it:
 * cma.c asks no SL) and on AF_IB the source's traffic class; sent by
 * ib_sa_path_rec_get as a SubnAdmGet(PathRecord), timeout_ms, no
 * retries. */
int kcma_resolve_route(struct kcma *c, uint32_t n, uint32_t timeout_ms)
{
	struct kcma_id *id = &c->ids[n];
	struct kcma_send *s;
	uint8_t *pr;
	struct sa_hdr h;

	if (!timeout_ms)
		return -EINVAL; /* rdma_resolve_route */
	if (!id->resolved || id->route_query || id->routed)
		return -EINVAL; /* cma_comp_exch(ADDR_RESOLVED, ROUTE_QUERY) */
	if (c->sn == KCMA_SENDS)
		return -ENOBUFS;
	s = &c->sends[(c->shead + c->sn++) % KCMA_SENDS];
	memset(s, 0, sizeof(*s));
	s->timeout_ms = timeout_ms;
	memset(&h, 0, sizeof(h));
	h.mad.base_version = MAD_BASE_VERSION;
	h.mad.mgmt_class = SA_CLASS;
	h.mad.class_version = SA_CLASS_VERSION;
	h.mad.method = SA_METHOD_GET;
	h.mad.tid = id->tid_lo = c->next_tid++;
	if (c->next_tid < KCMA_TID_FIRST)
		c->next_tid = KCMA_TID_FIRST;
	h.mad.attr_id = SA_ATTR_PATH_RECORD;
	h.comp_mask = KCMA_PR_CM_SERVICE_ID | KCMA_PR_CM_DGID | KCMA_PR_CM_SGID |
		      KCMA_PR_CM_PKEY | KCMA_PR_CM_NUMB_PATH | KCMA_PR_CM_REVERSIBLE |
		      KCMA_PR_CM_TCLASS;
	sa_hdr_encode(s->mad, &h);
	pr = s->mad + SA_OFF_DATA;
	memcpy(pr + KCMA_PR_SERVICE_ID, id->dst + KCMA_SIB_SID, 8);
	memcpy(pr + KCMA_PR_DGID, id->dst + KCMA_SIB_ADDR, 16);
	memcpy(pr + KCMA_PR_SGID, id->src + KCMA_SIB_ADDR, 16);
	pr[KCMA_PR_TCLASS] = (uint8_t)(wire_get32(id->src + KCMA_SIB_FLOWINFO) >> 20);
	pr[KCMA_PR_REVERSIBLE_NUMB_PATH] = 0x80 | 1;
	memcpy(pr + KCMA_PR_PKEY, id->dst + KCMA_SIB_PKEY, 2);
	id->route_query = 1;
	return 0;
}

/* cma_query_handler: the first record becomes the route
 * (ROUTE_RESOLVED, status 0); sa_query.c's recv_handler fails a
 * non-zero MAD status with -EINVAL, send_handler a timeout with
 * -ETIMEDOUT (ROUTE_ERROR, the id back to ADDR_RESOLVED). */
int kcma_sa_answer(struct kcma *c, const uint8_t *mad, size_t len, int timed_out)
{
	uint32_t tid_lo;
	size_t i;

	/* A timeout comes with the request's MAD header only (user_mad.c
	 * send_handler's copy): its TID is all that is matched. */
	if (len < (timed_out ? (size_t)MAD_HDR_SIZE : (size_t)SA_OFF_DATA + KCMA_PATH_LEN))
		return 0;
	tid_lo = (uint32_t)wire_get64(mad + MAD_OFF_TID);
	for (i = 0; i < KCMA_IDS; i++) {
		struct kcma_id *id = &c->ids[i];

		if (!id->used || !id->route_query || id->tid_lo != tid_lo)
			continue;
		id->route_query = 0;
		if (timed_out) {
			kcma_work_put(c, (uint32_t)i, KCMA_EV_ROUTE_ERROR, -ETIMEDOUT);
		} else if (wire_get16(mad + MAD_OFF_STATUS)) {
			kcma_work_put(c, (uint32_t)i, KCMA_EV_ROUTE_ERROR, -EINVAL);
		} else {
			memcpy(id->path, mad + SA_OFF_DATA, KCMA_PATH_LEN);
			id->routed = 1;
			kcma_work_put(c, (uint32_t)i, KCMA_EV_ROUTE_RESOLVED, 0);
		}
		return 1;
	}
	return 0;
}

/* ucma_query_path: num_paths, then per path {flags, reserved, the
 * record packed as on the wire} while out has room for a whole one
 * (the kernel's loop: strictly more than its size left). */
int kcma_query_path(const struct kcma *c, uint32_t n, uint16_t out, uint8_t *resp)
{
	const struct kcma_id *id = &c->ids[n];
	uint32_t num = id->routed ? 1 : 0;

	if (out < 8)
		return -ENOSPC;
	memset(resp, 0, KCMA_QUERY_PATH_LEN);
	memcpy(resp, &num, 4);
	if (!num || (size_t)out - 8 <= 8 + KCMA_PATH_LEN)
		return 8;
	num = KCMA_PATH_FLAGS; /* flags: a host-order u32 */
	memcpy(resp + 8, &num, 4);
	memcpy(resp + 16, id->path, KCMA_PATH_LEN);
	return KCMA_QUERY_PATH_LEN;
}

int kcma_send(struct kcma *c, struct kcma_send *s)
{
	if (!c->sn)
		return 0;
	*s = c->sends[c->shead];
	c->shead = (c->shead + 1) % KCMA_SENDS;
	c->sn--;
	return 1;
}

/* ---- connections (cma.c over ib_cm) ---- */

/* struct rdma_ucm_conn_param (host order) */
enum {
	KCMA_CP_QP_NUM = 0,
	KCMA_CP_PDATA = 8,
	KCMA_CP_PDATA_LEN = 264,
	KCMA_CP_SRQ = 265,
	KCMA_CP_RESP_RES = 266,
	KCMA_CP_INIT_DEPTH = 267,
	KCMA_CP_FLOW_CONTROL = 268,
	KCMA_CP_RETRY = 269,
	KCMA_CP_RNR_RETRY = 270,
	KCMA_CP_VALID = 271,
};
#define KCMA_REQ_PDATA 92 /* IB_CM_REQ_PRIVATE_DATA_SIZE: AF_IB adds no header */
#define KCMA_REP_PDATA 196
#define KCMA_REJ_PDATA 148
/* enum ib_cm_rej_reason: what rdma_reject may give (ucma_reject) */
#define KCMA_REJ_CONSUMER 28
#define KCMA_REJ_VENDOR_OPTION 35

static void kcma_param_in(const uint8_t *cp, size_t max, struct kcm_param *p)
{
	memset(p, 0, sizeof(*p));
	memcpy(&p->qp_num, cp + KCMA_CP_QP_NUM, 4);
	p->pdata_len = cp[KCMA_CP_PDATA_LEN] > max ? (uint8_t)max : cp[KCMA_CP_PDATA_LEN];
	memcpy(p->pdata, cp + KCMA_CP_PDATA, p->pdata_len);
	p->srq = cp[KCMA_CP_SRQ];
	p->responder_resources = cp[KCMA_CP_RESP_RES];
	p->initiator_depth = cp[KCMA_CP_INIT_DEPTH];
	p->flow_control = cp[KCMA_CP_FLOW_CONTROL];
	p->retry_count = cp[KCMA_CP_RETRY];
	p->rnr_retry_count = cp[KCMA_CP_RNR_RETRY];
}

/* ucma_copy_conn_event: the event's conn param from ib_cm's. */
static void kcma_param_out(const struct kcm_param *p, uint8_t *cp)
{
	memset(cp, 0, KCMA_EV_PARAM_LEN);
	memcpy(cp + KCMA_CP_QP_NUM, &p->qp_num, 4);
	memcpy(cp + KCMA_CP_PDATA, p->pdata, p->pdata_len);
	cp[KCMA_CP_PDATA_LEN] = p->pdata_len;
	cp[KCMA_CP_SRQ] = p->srq;
	cp[KCMA_CP_RESP_RES] = p->responder_resources;
	cp[KCMA_CP_INIT_DEPTH] = p->initiator_depth;
	cp[KCMA_CP_FLOW_CONTROL] = p->flow_control;
	cp[KCMA_CP_RETRY] = p->retry_count;
	cp[KCMA_CP_RNR_RETRY] = p->rnr_retry_count;
}

/* cma.c rdma_connect (from ROUTE_RESOLVED to CONNECT), cma_connect_ib:
 * ib_cm's REQ on the route, to the destination's service ID, the
 * caller's private data as it is (AF_IB: cma_user_data_offset 0). */
int kcma_connect(struct kcma *c, uint32_t n, const uint8_t *param, int64_t now)
{
	struct kcma_id *id = &c->ids[n];
	struct kcm_param p;
	int ret;

	c->now = now;

	if (!param[KCMA_CP_VALID])
		return -EINVAL; /* ucma_connect */
	if (!id->routed || id->connecting || id->has_conn)
		return -EINVAL;
	if (param[KCMA_CP_PDATA_LEN] > KCMA_REQ_PDATA)
		return -EINVAL;
	kcma_param_in(param, KCMA_REQ_PDATA, &p);
	kcma_cm_port(c);
	ret = kcm_req(&c->cm, n, id->path, wire_get64(id->dst + KCMA_SIB_SID), &p, now);
	if (ret < 0)
		return ret;
	id->has_conn = 1;
	id->conn = (uint32_t)ret;
	id->connecting = 1;
	return 0;
}

/* cma.c rdma_accept, in CONNECT only: the passive side's REP
 * (cma_accept_ib), the active side's RTU (cma_rep_recv). */
int kcma_accept(struct kcma *c, uint32_t n, const uint8_t *param, int64_t now)
{
	struct kcma_id *id = &c->ids[n];
	struct kcm_param p;

	c->now = now;

	if (!id->has_conn || !id->connecting || id->disconnected)
		return -EINVAL;
	kcma_cm_port(c);
	if (!param)
		return kcm_rtu(&c->cm, id->conn, now);
	if (param[KCMA_CP_PDATA_LEN] > KCMA_REP_PDATA)
		return -EINVAL;
	kcma_param_in(param, KCMA_REP_PDATA, &p);
	return kcm_rep(&c->cm, id->conn, &p, now);
}

/* ucma_reject: reason 0 is consumer-defined; only that and
 * vendor-option-not-supported are taken. */
int kcma_reject(struct kcma *c, uint32_t n, uint8_t reason, const uint8_t *pdata, size_t len,
		int64_t now)
{
	struct kcma_id *id = &c->ids[n];

	c->now = now;
	if (!reason)
		reason = KCMA_REJ_CONSUMER;
	if (reason != KCMA_REJ_CONSUMER && reason != KCMA_REJ_VENDOR_OPTION)
		return -EINVAL;
	if (!id->has_conn || len > KCMA_REJ_PDATA)
		return -EINVAL;
	kcma_cm_port(c);
	return kcm_rej(&c->cm, id->conn, reason, pdata, len, now);
}

/* cma.c rdma_disconnect: a DREQ, or, when the peer's came first, the
 * DREP; 0 either way once the id has an ib_cm id. */
int kcma_disconnect(struct kcma *c, uint32_t n, int64_t now)
{
	struct kcma_id *id = &c->ids[n];

	c->now = now;

	if (!id->has_conn)
		return -EINVAL;
	kcma_cm_port(c);
	if (kcm_dreq(&c->cm, id->conn, now) < 0)
		(void)kcm_drep(&c->cm, id->conn, now);
	return 0;
}

/* ibv_qp_attr_mask bits (the kernel's ib_qp_attr_mask) */
#define KCMA_QP_STATE 1u
#define KCMA_QP_ACCESS_FLAGS 8u
#define KCMA_QP_PKEY_INDEX 16u
#define KCMA_QP_PORT 32u
#define KCMA_QP_QKEY 64u
#define KCMA_UDP_QKEY 0x01234567u /* RDMA_UDP_QKEY */
#define KCMA_QPS_ERR 6

/* cma.c rdma_init_qp_attr: ib_cm's answer for an RC id with an ib_cm
 * id, else cma_ib_init_qp_attr (the P_Key's index, the port, no access
 * or the UD Q_Key) whatever state is asked. */
int kcma_init_qp_attr(const struct kcma *c, uint32_t n, uint32_t qp_state, uint8_t *resp)
{
	const struct kcma_id *id = &c->ids[n];
	struct ib_uverbs_qp_attr a;
	int pk;

	if (!id->dev || qp_state > KCMA_QPS_ERR)
		return -EINVAL; /* ucma_init_qp_attr: no device yet */
	if (id->has_conn && id->qp_type != 4 /* UD */)
		return kcm_qp_init_attr(&c->cm, id->conn, qp_state, resp);
	memset(&a, 0, sizeof(a));
	a.qp_state = qp_state;
	/* ib_find_cached_pkey of the id's P_Key (the port's own at index 0
	 * when it is not in the table: an id bound to any) */
	pk = kcma_pkey_index(c, wire_get16(id->src + KCMA_SIB_PKEY));
	a.pkey_index = (uint16_t)(pk < 0 ? 0 : pk);
	a.port_num = 1;
	a.qp_attr_mask = KCMA_QP_STATE | KCMA_QP_PKEY_INDEX | KCMA_QP_PORT;
	if (id->qp_type == 4) {
		a.qkey = id->ps == KCMA_PS_IB ? 0 : KCMA_UDP_QKEY;
		a.qp_attr_mask |= KCMA_QP_QKEY;
	} else {
		a.qp_attr_mask |= KCMA_QP_ACCESS_FLAGS;
	}
	memcpy(resp, &a, KCMA_QP_ATTR_LEN);
	return 0;
}

_Static_assert(sizeof(struct ib_uverbs_qp_attr) == KCMA_QP_ATTR_LEN, "ib_uverbs_qp_attr");

/* cma_ib_new_conn_id: the REQ's id, bound to the service ID it asked
 * for on this port, its peer the REQ's primary path's far end. */
static int kcma_child(struct kcma *c, const struct kcm_event *e, const struct kcma_id *l)
{
	struct kcma_id *d;
	size_t i;

	for (i = 0; i < KCMA_IDS; i++)
		if (!c->ids[i].used)
			break;
	if (i == KCMA_IDS)
		return -ENOMEM;
	d = &c->ids[i];
	memset(d, 0, sizeof(*d));
	d->used = d->bound = d->dev = d->resolved = d->routed = 1;
	d->ps = l->ps;
	d->qp_type = l->qp_type;
	abi_put16(d->src + KCMA_SIB_FAMILY, KCMA_AF_IB);
	memcpy(d->src + KCMA_SIB_PKEY, e->path + KCMA_PR_PKEY, 2);
	memcpy(d->src + KCMA_SIB_ADDR, e->path + KCMA_PR_SGID, 16);
	wire_put64(d->src + KCMA_SIB_SID, e->service_id);
	wire_put64(d->src + KCMA_SIB_SID_MASK, ~0ull);
	memcpy(d->dst, d->src, KCMA_SIB_LEN);
	memcpy(d->dst + KCMA_SIB_ADDR, e->path + KCMA_PR_DGID, 16);
	memcpy(d->path, e->path, KCMA_PATH_LEN);
	d->has_conn = 1;
	d->conn = e->conn;
	d->connecting = 1;
	d->child = 1;
	d->listener = e->owner;
	return (int)i;
}

/* A REQ for a listener (cma_ib_req_handler, ucma_connect_event_handler):
 * first cma_ib_id_from_event's check of an IP request against ib_ipoib's
 * interfaces (kinet_cma_req: a REJ, reason 28 and no private data, the
 * listener never told); then a child id and CONNECT_REQUEST on the
 * listener, or, past the backlog or without room, the ib_cm id destroyed
 * (its REJ). Every listener here is AF_IB: cma_match_private_data takes
 * any request for it, cma_match_net_dev one without a net device too. */
static void kcma_req_rcvd(struct kcma *c, const struct kcm_event *e, int64_t now)
{
	struct kcma_id *l = e->owner < KCMA_IDS ? &c->ids[e->owner] : NULL;
	struct kcma_work *w;
	size_t ifidx;
	int ch;

	if (kinet_cma_req(c->net, e->param.pdata, e->param.pdata_len, c->port.pkeys,
			  wire_get16(e->path + KCMA_PR_PKEY), &ifidx) < 0) {
		c->ip_refused++;
		kcm_destroy(&c->cm, e->conn, now);
		return;
	}
	if (!l || !l->used || !l->listening || l->backlog <= 0 ||
	    (ch = kcma_child(c, e, l)) < 0) {
		kcm_destroy(&c->cm, e->conn, now);
		return;
	}
	kcm_set_owner(&c->cm, e->conn, (uint32_t)ch);
	l->backlog--;
	if (!(w = kcma_work_put(c, e->owner, KCMA_EV_CONNECT_REQUEST, 0)))
		return;
	w->child = (uint32_t)ch;
	w->has_param = 1;
	kcma_param_out(&e->param, w->param);
}

void kcma_fetched(struct kcma *c, uint32_t listener, uint32_t child)
{
	if (listener < KCMA_IDS && c->ids[listener].used && c->ids[listener].listening)
		c->ids[listener].backlog++;
	if (child < KCMA_IDS)
		c->ids[child].child = 0;
}

/* cma_ib_handler: ib_cm's events as rdma_cm's. */
static void kcma_cm_event(struct kcma *c, const struct kcm_event *e, int64_t now)
{
	struct kcma_id *id;
	struct kcma_work *w;
	uint32_t ev;
	int32_t status = 0;

	if (e->type == KCM_EV_REQ_RCVD) {
		kcma_req_rcvd(c, e, now);
		return;
	}
	if (e->owner >= KCMA_IDS || !(id = &c->ids[e->owner])->used || !id->has_conn ||
	    id->conn != e->conn)
		return;
	switch (e->type) {
	case KCM_EV_REP_RCVD:
		/* the QP is the process's: CONNECT_RESPONSE, the library
		 * moves it and answers with ACCEPT (the RTU) */
		ev = KCMA_EV_CONNECT_RESPONSE;
		break;
	case KCM_EV_RTU_RCVD:
		ev = KCMA_EV_ESTABLISHED;
		break;
	case KCM_EV_REJ_RCVD:
		ev = KCMA_EV_REJECTED;
		status = e->status;
		id->connecting = 0;
		break;
	case KCM_EV_REQ_ERROR:
	case KCM_EV_REP_ERROR:
		ev = KCMA_EV_UNREACHABLE;
		status = -ETIMEDOUT;
		id->connecting = 0;
		break;
	case KCM_EV_DREQ_ERROR:
		status = -ETIMEDOUT;
		/* fall through */
	case KCM_EV_DREQ_RCVD:
	case KCM_EV_DREP_RCVD:
		/* cma_comp_exch(CONNECT, DISCONNECT): once */
		if (!id->connecting || id->disconnected)
			return;
		id->disconnected = 1;
		ev = KCMA_EV_DISCONNECTED;
		break;
	case KCM_EV_TIMEWAIT_EXIT:
		ev = KCMA_EV_TIMEWAIT_EXIT;
		break;
	default:
		return;
	}
	if (!(w = kcma_work_put(c, e->owner, ev, status)))
		return;
	w->has_param = 1;
	kcma_param_out(&e->param, w->param);
	if (e->type == KCM_EV_REJ_RCVD) /* cma: always the REJ's whole 148 */
		w->param[KCMA_CP_PDATA_LEN] = KCMA_REJ_PDATA;
}

static void kcma_cm_events(struct kcma *c, int64_t now)
{
	struct kcm_event e;

	while (kcm_event(&c->cm, &e))
		kcma_cm_event(c, &e, now);
}

void kcma_cm_recv(struct kcma *c, const uint8_t *mad, size_t len, uint16_t slid, int64_t now)
{
	c->now = now;
	kcma_cm_port(c);
	kcm_recv(&c->cm, mad, len, slid, now);
	kcma_cm_events(c, now);
}

void kcma_cm_due(struct kcma *c, int64_t now)
{
	c->now = now;
	kcm_due(&c->cm, now);
	kcma_cm_events(c, now);
}

int64_t kcma_cm_deadline(const struct kcma *c)
{
	return kcm_deadline(&c->cm);
}

int kcma_cm_send(struct kcma *c, struct kcm_send *s)
{
	return kcm_send(&c->cm, s);
}
