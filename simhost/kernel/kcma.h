/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The simulated node's rdma_cm ids (Linux drivers/infiniband/core/cma.c;
 * RDMACM.md 2, 9): per id its port space and QP type, the AF_IB
 * addresses (sockaddr_ib as <rdma/ib.h> lays it out), the service-ID
 * table BIND and RESOLVE_ADDR reserve in, and address resolution. ids
 * are named by the handles kucma (ucma.c's file layer) allocates. What
 * the kernel does later from a work item (an event) is not called back:
 * it goes into a queue the caller drains with kcma_work once it has
 * answered the command, as the kernel's work runs after the write(). */
#ifndef IBATS_SIMHOST_KCMA_H
#define IBATS_SIMHOST_KCMA_H

#include <stddef.h>
#include <stdint.h>

#include "kcm.h"
#include "kinet.h"

#define KCMA_IDS 256
#define KCMA_WORK 64
#define KCMA_SENDS 64
#define KCMA_MAD 256
#define KCMA_PATH_LEN 64 /* a PathRecord on the wire (IBTA Vol 1 15.2.5.16) */
/* struct sockaddr_ib; struct rdma_ucm_query_addr_resp */
#define KCMA_SIB_LEN 48
#define KCMA_QUERY_ADDR_LEN 280
/* struct rdma_ucm_query_path_resp with one struct ib_path_rec_data */
#define KCMA_QUERY_PATH_LEN (8 + 8 + KCMA_PATH_LEN)
/* enum rdma_cm_event_type */
#define KCMA_EV_ADDR_RESOLVED 0
#define KCMA_EV_ROUTE_RESOLVED 2
#define KCMA_EV_ROUTE_ERROR 3
#define KCMA_EV_CONNECT_REQUEST 4
#define KCMA_EV_CONNECT_RESPONSE 5
#define KCMA_EV_UNREACHABLE 7
#define KCMA_EV_REJECTED 8
#define KCMA_EV_ESTABLISHED 9
#define KCMA_EV_DISCONNECTED 10
#define KCMA_EV_TIMEWAIT_EXIT 15
/* struct rdma_ucm_conn_param (272) inside the event's param union
 * (304, the UD param's size); struct ib_uverbs_qp_attr (144). */
#define KCMA_CONN_PARAM_LEN 272
#define KCMA_EV_PARAM_LEN 304
#define KCMA_QP_ATTR_LEN 144

/* The node's port, as the kernel's device knows it. */
struct kcma_port {
	uint64_t node_guid;
	uint8_t gid[16]; /* GID 0 */
	uint16_t pkey;   /* P_Key index 0 */
	uint16_t pkeys[KINET_PKEYS]; /* the P_Key table (its first block) */
	uint16_t lid;
	uint32_t cm_hi_tid; /* ib_cm's MAD agent's */
};

struct kcma_id {
	int used;
	uint16_t ps;
	uint8_t qp_type;
	int bound;               /* ADDR_BOUND */
	int dev;                 /* bound to the port's GID (a device) */
	uint8_t src[KCMA_SIB_LEN]; /* sockaddr_ib as bound */
	int resolved;            /* ADDR_RESOLVED or later */
	uint8_t dst[KCMA_SIB_LEN]; /* the destination, once resolved */
	int listening;           /* LISTEN */
	int backlog;
	int route_query;         /* ROUTE_QUERY: the PathRecord Get out */
	uint32_t tid_lo;         /* its TID's low 32 bits */
	int routed;              /* ROUTE_RESOLVED */
	uint8_t path[KCMA_PATH_LEN]; /* the route's PathRecord, as the SA sent it */
	int has_conn;            /* an ib_cm id (cm_id.ib) */
	uint32_t conn;
	int connecting;          /* RDMA_CM_CONNECT */
	int disconnected;        /* RDMA_CM_DISCONNECT */
	int child;               /* a CONNECT_REQUEST's id, not yet fetched */
	uint32_t listener;       /* a child's, for its backlog */
};

/* An SA MAD for the caller to send through the kernel's SA agent (the
 * TID's upper half is the agent's). */
struct kcma_send {
	uint8_t mad[KCMA_MAD];
	uint32_t timeout_ms;
};

/* One event for the file layer to queue: for CONNECT_REQUEST, id is
 * the listener's and child the new id; param the event's union. */
struct kcma_work {
	uint32_t id, event, child;
	int32_t status;
	int has_param;
	uint8_t param[KCMA_EV_PARAM_LEN];
};

struct kcma {
	struct kcma_port port;
	struct kcma_id ids[KCMA_IDS];
	uint16_t next_port; /* ephemeral service ports for sid port 0 */
	struct kcma_work work[KCMA_WORK];
	size_t whead, wn;
	struct kcma_send sends[KCMA_SENDS];
	size_t shead, sn;
	uint32_t next_tid;
	struct kcm cm; /* ib_cm under the ids */
	/* ib_ipoib's interfaces, which an IP request must reach
	 * (kinet_cma_req); NULL: ib_ipoib not loaded */
	const struct kinet *net;
	uint64_t ip_refused; /* REQs refused by that check */
	/* the time of the last call that had one: a destroy (DESTROY_ID, a
	 * file's close) starts ib_cm's timewait from then */
	int64_t now;
};

/* cm_retries, cm_timeout: ib_cm's (kcm_init). */
void kcma_init(struct kcma *c, const struct kcma_port *port, uint32_t cm_retries,
	       uint8_t cm_timeout);
void kcma_fini(struct kcma *c);
/* rdma_create_id for handle id (< KCMA_IDS, free). */
void kcma_create(struct kcma *c, uint32_t id, uint16_t ps, uint8_t qp_type);
/* rdma_destroy_id: its service ID free, its queued work dropped. */
void kcma_destroy(struct kcma *c, uint32_t id);
/* rdma_bind_addr to sockaddr sib (its size checked by the caller): 0,
 * -EINVAL (not IDLE), -EADDRNOTAVAIL (not AF_IB), -ENODEV (a GID not
 * the port's), -EPROTONOSUPPORT (sid of no port space), -EADDRINUSE. */
int kcma_bind(struct kcma *c, uint32_t id, const uint8_t *sib);
/* rdma_listen (ucma_listen clamps backlog first): from ADDR_BOUND, or
 * an IDLE id bound to IPv4 any first (-EADDRNOTAVAIL here), else
 * -EINVAL; the bound service ID listened on (cma_ib_listen). */
int kcma_listen(struct kcma *c, uint32_t id, int backlog);
/* rdma_resolve_addr for AF_IB (src NULL or of family 0: any): 0 and
 * ADDR_RESOLVED queued, or -errno as cma.c fails the write. */
int kcma_resolve_addr(struct kcma *c, uint32_t id, const uint8_t *src, const uint8_t *dst);
/* ucma_query_addr's answer (KCMA_QUERY_ADDR_LEN bytes) for id. */
void kcma_query_addr(const struct kcma *c, uint32_t id, uint8_t *resp);
/* rdma_resolve_route on IB (cma.c cma_resolve_ib_route): from
 * ADDR_RESOLVED (else -EINVAL), one SA PathRecord Get queued for
 * kcma_send; ROUTE_RESOLVED or ROUTE_ERROR when kcma_sa_answer gets its
 * answer or timeout. -ENOBUFS when the send queue is full. */
int kcma_resolve_route(struct kcma *c, uint32_t id, uint32_t timeout_ms);
/* An SA answer (timed_out 0) or the timeout of a request (timed_out 1,
 * mad at least the request's MAD header), matched by its TID's low 32
 * bits: 1 when it was a route query's (its event queued), else 0. */
int kcma_sa_answer(struct kcma *c, const uint8_t *mad, size_t len, int timed_out);
/* ucma_query_path's answer for id into resp (out bytes of room):
 * the length, or -ENOSPC when out < 8. */
int kcma_query_path(const struct kcma *c, uint32_t id, uint16_t out, uint8_t *resp);
/* rdma_connect from ROUTE_RESOLVED (else -EINVAL): the REQ with param
 * (a struct rdma_ucm_conn_param, valid set; pdata ≤ 92). */
int kcma_connect(struct kcma *c, uint32_t id, const uint8_t *param, int64_t now);
/* rdma_accept: param NULL on the active side (the RTU), else the REP. */
int kcma_accept(struct kcma *c, uint32_t id, const uint8_t *param, int64_t now);
/* rdma_reject with reason (IB_CM_REJ_*) and private data. */
int kcma_reject(struct kcma *c, uint32_t id, uint8_t reason, const uint8_t *pdata, size_t len,
		int64_t now);
/* rdma_disconnect: a DREQ, or the DREP of one received. */
int kcma_disconnect(struct kcma *c, uint32_t id, int64_t now);
/* rdma_init_qp_attr for qp_state into resp (KCMA_QP_ATTR_LEN): from
 * ib_cm once the id has a connection, else the INIT values of
 * cma_ib_init_qp_attr. -EINVAL without a device. */
int kcma_init_qp_attr(const struct kcma *c, uint32_t id, uint32_t qp_state, uint8_t *resp);
/* A CONNECT_REQUEST fetched (GET_EVENT): its listener's backlog back,
 * the child a visible id. */
void kcma_fetched(struct kcma *c, uint32_t listener, uint32_t child);
/* A CM MAD from the fabric, from slid; ib_cm's timers. */
void kcma_cm_recv(struct kcma *c, const uint8_t *mad, size_t len, uint16_t slid, int64_t now);
void kcma_cm_due(struct kcma *c, int64_t now);
int64_t kcma_cm_deadline(const struct kcma *c);
/* The oldest CM MAD to send: 1, or 0 when none. */
int kcma_cm_send(struct kcma *c, struct kcm_send *s);
/* The oldest queued event: 1 (in *w), 0 when none. */
int kcma_work(struct kcma *c, struct kcma_work *w);
/* The oldest queued SA MAD: 1 (in *s), 0 when none. */
int kcma_send(struct kcma *c, struct kcma_send *s);

#endif
