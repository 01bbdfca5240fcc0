/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The simulated node's ib_cm (Linux drivers/infiniband/core/cm.c;
 * RDMACM.md 4, 5): connection IDs, the REQ/MRA/REJ/REP/RTU/DREQ/DREP
 * exchange of IBTA Vol 1 chapter 12 (12.6 messages, 12.9 state
 * machine), each outstanding message resent on its timeout up to its
 * retries, the MRA rule of cm.c (only the first MRA of a REQ_SENT
 * changes the timeout; the REQ is never resent because of an MRA),
 * duplicate REQs answered (MRA before the consumer accepted, REP after),
 * REJ invalid service ID (8) for a REQ nobody listens to, a DREP for a
 * DREQ of an unknown connection. Pure: no I/O, no clock of its own. The
 * caller (kcma, for rdma_cm) names each connection's owner (an rdma_cm
 * id handle); MADs to send and events for owners are queued, drained
 * with kcm_send and kcm_event. */
#ifndef IBATS_SIMHOST_KCM_H
#define IBATS_SIMHOST_KCM_H

#include <stddef.h>
#include <stdint.h>

#define KCM_CONNS 1024 /* the kernel has no fixed bound; a bench node opens hundreds */
#define KCM_LISTENS 64
#define KCM_SENDS 128
#define KCM_EVENTS 128
#define KCM_MAD 256
#define KCM_PATH_LEN 64 /* a PathRecord on the wire (IBTA Vol 1 15.2.5.16) */
#define KCM_PDATA_MAX 224 /* the largest private data (RTU, DREP) */
/* cma.c: CMA_CM_RESPONSE_TIMEOUT, CMA_MAX_CM_RETRIES; cm.c's MRA of a
 * duplicate REQ (CMA_CM_MRA_SETTING & 0x1f on Linux 6.1). */
#define KCM_RESPONSE_TIMEOUT 20
#define KCM_MAX_RETRIES 15
#define KCM_MRA_TIMEOUT 24
#define KCM_NONE UINT32_MAX /* no owner */

/* The node's port as ib_cm sends from it. */
struct kcm_port {
	uint64_t ca_guid;   /* node GUID: REQ/REP's local CA GUID */
	uint16_t lid;
	uint8_t gid[16];
	uint32_t hi_tid;    /* ib_cm's MAD agent's: cm_form_tid */
	uint8_t ack_delay;  /* the device's target ACK delay (REP) */
};

/* What a consumer gives (struct rdma_conn_param) and a peer's message
 * brings: private data and the connection's parameters. */
struct kcm_param {
	uint8_t pdata[KCM_PDATA_MAX];
	uint8_t pdata_len;
	uint8_t responder_resources, initiator_depth;
	uint8_t flow_control, retry_count, rnr_retry_count, srq;
	uint32_t qp_num;
};

enum kcm_ev {
	KCM_EV_REQ_RCVD,     /* a REQ for a listened service ID: conn is new */
	KCM_EV_REP_RCVD,     /* the active side's REP: the caller sends the RTU */
	KCM_EV_RTU_RCVD,     /* the passive side is established */
	KCM_EV_REJ_RCVD,     /* status = the REJ's reason */
	KCM_EV_REQ_ERROR,    /* REQ unanswered after its retries: -ETIMEDOUT */
	KCM_EV_REP_ERROR,    /* REP unanswered (no RTU): -ETIMEDOUT */
	KCM_EV_DREQ_RCVD,    /* the peer disconnects */
	KCM_EV_DREQ_ERROR,   /* our DREQ unanswered: -ETIMEDOUT */
	KCM_EV_DREP_RCVD,
	KCM_EV_TIMEWAIT_EXIT,
};

struct kcm_event {
	uint32_t conn;  /* the connection */
	uint32_t owner; /* its owner; for REQ_RCVD the listener's */
	enum kcm_ev type;
	int32_t status;
	struct kcm_param param; /* the message's private data and values */
	uint8_t ari[72];        /* REJ's additional rejection information */
	uint8_t ari_len;
	/* REQ_RCVD: the REQ's primary path as a PathRecord (cm.c
	 * cm_format_path_from_req), its service ID */
	uint8_t path[KCM_PATH_LEN];
	uint64_t service_id;
};

/* One MAD to the peer's GSI (QP1, Q_Key 0x80010000), by the path's DLID
 * and SL and the P_Key's index (0 on a node). The TID is set (cm.c: the
 * agent's hi_tid and the local comm ID; a REP carries the REQ's). */
struct kcm_send {
	uint16_t dlid;
	uint8_t sl;
	uint8_t mad[KCM_MAD];
};

enum kcm_state {
	KCM_IDLE,
	KCM_REQ_SENT,
	KCM_MRA_REQ_RCVD,
	KCM_REQ_RCVD,
	KCM_MRA_REQ_SENT, /* a duplicate REQ got our MRA */
	KCM_REP_SENT,
	KCM_REP_RCVD,     /* active: REP in, RTU not yet sent */
	KCM_ESTABLISHED,
	KCM_DREQ_SENT,
	KCM_DREQ_RCVD,
	KCM_TIMEWAIT,
	KCM_MRA_REP_RCVD, /* the peer's MRA of our REP (cm.c IB_CM_MRA_REP_RCVD) */
};

struct kcm_conn {
	int used;
	uint32_t owner;
	enum kcm_state state;
	int active;
	uint32_t local_id, remote_id;
	uint64_t remote_ca_guid; /* with remote_id, names the peer's connection */
	uint64_t tid, service_id;
	uint8_t path[KCM_PATH_LEN]; /* primary path, as a PathRecord */
	uint32_t local_qpn, remote_qpn, local_psn, remote_psn;
	uint8_t responder_resources, initiator_depth, retry_count, rnr_retry_count;
	uint8_t path_mtu, local_ack_timeout, remote_cm_timeout, max_retries;
	/* the outstanding message, resent until answered */
	uint8_t msg[KCM_MAD];
	int has_msg;
	int64_t deadline;   /* the outstanding message's, or timewait's end */
	uint32_t timeout_ms; /* cm_id_priv->timeout_ms: each new message's */
	uint32_t msg_ms;     /* the outstanding one's (an MRA changes it) */
	uint32_t tries_left;
	int dead; /* destroyed in timewait: freed, silently, when it ends */
};

struct kcm_listen {
	int used;
	uint64_t service_id;
	uint32_t owner;
};

struct kcm {
	struct kcm_port port;
	uint32_t retries;     /* max_cm_retries of our REQs */
	uint8_t cm_timeout;   /* remote/local CM response timeout of our REQs */
	struct kcm_conn conns[KCM_CONNS];
	struct kcm_listen listens[KCM_LISTENS];
	struct kcm_send sends[KCM_SENDS];
	size_t shead, sn;
	struct kcm_event events[KCM_EVENTS];
	size_t ehead, en;
	uint32_t next_id, random;
	/* what a full queue or table refused (never silently) */
	uint32_t send_drops, event_drops, req_drops;
};

/* retries and cm_timeout: the kernel's KCM_MAX_RETRIES and
 * KCM_RESPONSE_TIMEOUT unless a bench shortens them (simhostd
 * --cm-retries, --cm-timeout). seed: the comm IDs' and PSNs' random. */
void kcm_init(struct kcm *m, const struct kcm_port *port, uint32_t retries, uint8_t cm_timeout,
	      uint32_t seed);
void kcm_fini(struct kcm *m);
/* ib_cm_listen: -EBUSY when the service ID is listened on already. */
int kcm_listen(struct kcm *m, uint64_t service_id, uint32_t owner);
void kcm_unlisten(struct kcm *m, uint32_t owner);
/* The service IDs listened on (simhostd's status: a bench waits for a
 * listener before it starts a client). */
size_t kcm_listens(const struct kcm *m);
/* ib_send_cm_req for owner: the route's PathRecord, service ID and the
 * consumer's parameters (pdata ≤ 92). The connection's index, or
 * -EINVAL, -ENOMEM. */
int kcm_req(struct kcm *m, uint32_t owner, const uint8_t path[KCM_PATH_LEN], uint64_t service_id,
	    const struct kcm_param *p, int64_t now);
/* ib_send_cm_rep (passive, REQ_RCVD or MRA_REQ_SENT; pdata ≤ 196). */
int kcm_rep(struct kcm *m, uint32_t conn, const struct kcm_param *p, int64_t now);
/* ib_send_cm_rtu (active, REP_RCVD): established. */
int kcm_rtu(struct kcm *m, uint32_t conn, int64_t now);
/* ib_send_cm_rej (cm_send_rej_locked's states: REQ_SENT, MRA_REQ_RCVD,
 * REQ_RCVD, MRA_REQ_SENT, REP_RCVD to idle; REP_SENT, MRA_REP_RCVD to
 * timewait, hence now): reason, pdata ≤ 148. */
int kcm_rej(struct kcm *m, uint32_t conn, uint16_t reason, const uint8_t *pdata, size_t len,
	    int64_t now);
/* ib_send_cm_dreq (ESTABLISHED) / ib_send_cm_drep (DREQ_RCVD; starts
 * timewait at now). */
int kcm_dreq(struct kcm *m, uint32_t conn, int64_t now);
int kcm_drep(struct kcm *m, uint32_t conn, int64_t now);
/* ib_destroy_cm_id: what cm_destroy_id sends in the connection's state
 * (REJ in REQ_RCVD/MRA_REQ_SENT/REP_SENT/REP_RCVD, REJ timeout in
 * REQ_SENT, DREQ in ESTABLISHED, DREP in DREQ_RCVD); no more events. */
void kcm_destroy(struct kcm *m, uint32_t conn, int64_t now);
void kcm_set_owner(struct kcm *m, uint32_t conn, uint32_t owner);
const struct kcm_conn *kcm_conn(const struct kcm *m, uint32_t conn);
/* ib_cm_init_qp_attr: kcm_qp_init_attr (kcm_qp.h). */
/* What kcm_recv.c, the receive side, shares of the state machine. */
uint32_t kcm_ms(unsigned t);
uint8_t kcm_plt_of(const uint8_t *path);
int kcm_alloc(struct kcm *m);
void kcm_push_send(struct kcm *m, uint16_t dlid, uint8_t sl, const uint8_t *mad);
struct kcm_event *kcm_push_event(struct kcm *m, const struct kcm_conn *c, enum kcm_ev type,
				 int32_t status);
void kcm_conn_send(struct kcm *m, const struct kcm_conn *c, const uint8_t *mad);
void kcm_enter_timewait(struct kcm_conn *c, int64_t now);
void kcm_to_idle(struct kcm_conn *c);
void kcm_send_rtu(struct kcm *m, const struct kcm_conn *c);
void kcm_send_drep(struct kcm *m, const struct kcm_conn *c, uint64_t tid);
/* Resends what timed out with tries left; fails the others. */
void kcm_due(struct kcm *m, int64_t now);
int64_t kcm_deadline(const struct kcm *m);
/* The oldest queued MAD / event: 1, or 0 when none. */
int kcm_send(struct kcm *m, struct kcm_send *s);
int kcm_event(struct kcm *m, struct kcm_event *e);

#endif
