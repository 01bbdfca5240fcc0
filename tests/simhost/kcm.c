/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The simulated node's ib_cm: the connection state machine of Linux 6.1
 * drivers/infiniband/core/cm.c over the cmwire.c codec (RDMACM.md
 * 4, 5). Pure: every send and event is queued for the caller. */
#include <errno.h>
#include <string.h>

#include "kcm.h"
#include "kcm_msg.h"
#include "core/mad.h"
#include "core/wire.h"

/* cm.c cm_convert_to_ms: 4.096 us * 2^t, roughly. */
static uint32_t ms(unsigned t)
{
	return 1u << (t > 8 ? (t > 31 ? 23 : t - 8) : 0);
}

static uint32_t rnd(struct kcm *m)
{
	uint32_t x = m->random;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return m->random = x;
}

static uint8_t plt_of(const uint8_t *path)
{
	return path[KCM_PR_PLT] & 0x3f;
}

void kcm_init(struct kcm *m, const struct kcm_port *port, uint32_t retries, uint8_t cm_timeout,
	      uint32_t seed)
{
	memset(m, 0, sizeof(*m));
	m->port = *port;
	/* the REQ's MaxCMRetries and response timeouts are 4 and 5 bits */
	m->retries = retries > 15 ? 15 : retries;
	m->cm_timeout = cm_timeout > 31 ? 31 : cm_timeout;
	m->random = seed ? seed : 0x2545f491;
	m->next_id = rnd(m);
}

void kcm_fini(struct kcm *m)
{
	memset(m->conns, 0, sizeof(m->conns));
	memset(m->listens, 0, sizeof(m->listens));
	m->sn = m->en = 0;
}

static struct kcm_conn *get(struct kcm *m, uint32_t conn)
{
	if (conn >= KCM_CONNS || !m->conns[conn].used || m->conns[conn].dead)
		return NULL;
	return &m->conns[conn];
}

const struct kcm_conn *kcm_conn(const struct kcm *m, uint32_t conn)
{
	return get((struct kcm *)m, conn);
}

void kcm_set_owner(struct kcm *m, uint32_t conn, uint32_t owner)
{
	struct kcm_conn *c = get(m, conn);

	if (c)
		c->owner = owner;
}

/* A new connection with a fresh local comm ID (cm.c cm_alloc_id: never
 * 0, unique among ours). */
static int alloc(struct kcm *m)
{
	uint32_t i, j, id;

	for (i = 0; i < KCM_CONNS && m->conns[i].used; i++)
		;
	if (i == KCM_CONNS)
		return -ENOMEM;
	do {
		id = m->next_id++ ^ (rnd(m) & 0xffff0000);
		for (j = 0; j < KCM_CONNS && !(m->conns[j].used && m->conns[j].local_id == id); j++)
			;
	} while (!id || j < KCM_CONNS);
	memset(&m->conns[i], 0, sizeof(m->conns[i]));
	m->conns[i].used = 1;
	m->conns[i].owner = KCM_NONE;
	m->conns[i].local_id = id;
	return (int)i;
}

static void push_send(struct kcm *m, uint16_t dlid, uint8_t sl, const uint8_t *mad)
{
	struct kcm_send *s;

	if (m->sn == KCM_SENDS) {
		m->send_drops++;
		return;
	}
	s = &m->sends[(m->shead + m->sn++) % KCM_SENDS];
	s->dlid = dlid;
	s->sl = sl;
	memcpy(s->mad, mad, KCM_MAD);
}

static struct kcm_event *push_event(struct kcm *m, const struct kcm_conn *c, enum kcm_ev type,
				    int32_t status)
{
	struct kcm_event *e;

	if (m->en == KCM_EVENTS) {
		m->event_drops++;
		return NULL;
	}
	e = &m->events[(m->ehead + m->en++) % KCM_EVENTS];
	memset(e, 0, sizeof(*e));
	e->conn = (uint32_t)(c - m->conns);
	e->owner = c->owner;
	e->type = type;
	e->status = status;
	return e;
}

/* kcm_destroy: no more events for conn, queued ones included. */
static void purge_events(struct kcm *m, uint32_t conn)
{
	size_t i, n = 0;

	for (i = 0; i < m->en; i++) {
		struct kcm_event *e = &m->events[(m->ehead + i) % KCM_EVENTS];

		if (e->conn != conn)
			m->events[(m->ehead + n++) % KCM_EVENTS] = *e;
	}
	m->en = n;
}

int kcm_send(struct kcm *m, struct kcm_send *s)
{
	if (!m->sn)
		return 0;
	*s = m->sends[m->shead];
	m->shead = (m->shead + 1) % KCM_SENDS;
	m->sn--;
	return 1;
}

int kcm_event(struct kcm *m, struct kcm_event *e)
{
	if (!m->en)
		return 0;
	*e = m->events[m->ehead];
	m->ehead = (m->ehead + 1) % KCM_EVENTS;
	m->en--;
	return 1;
}

/* ---- MADs ---- */

static void conn_send(struct kcm *m, const struct kcm_conn *c, const uint8_t *mad)
{
	push_send(m, wire_get16(c->path + KCM_PR_DLID), c->path[KCM_PR_SL] & 0xf, mad);
}

/* The message stays outstanding: resent after msg_ms, tries_left times. */
static void send_outstanding(struct kcm *m, struct kcm_conn *c, int64_t now)
{
	c->has_msg = 1;
	c->msg_ms = c->timeout_ms;
	c->tries_left = c->max_retries;
	c->deadline = now + c->msg_ms;
	conn_send(m, c, c->msg);
}

/* cm.c cm_enter_timewait: ms(av.timeout), then TIMEWAIT_EXIT. */
static void enter_timewait(struct kcm_conn *c, int64_t now)
{
	c->state = KCM_TIMEWAIT;
	c->has_msg = 0;
	c->deadline = now + ms(c->local_ack_timeout);
}

static void to_idle(struct kcm_conn *c)
{
	c->state = KCM_IDLE;
	c->has_msg = 0;
}

static void send_rej(struct kcm *m, struct kcm_conn *c, uint16_t reason, const uint8_t *ari,
		     uint8_t ari_len, const uint8_t *pdata, size_t len)
{
	uint8_t mad[KCM_MAD];

	kcm_msg_rej(mad, c, reason, ari, ari_len, pdata, len);
	conn_send(m, c, mad);
}

static void send_rtu(struct kcm *m, const struct kcm_conn *c)
{
	uint8_t mad[KCM_MAD];

	kcm_msg_rtu(mad, c);
	conn_send(m, c, mad);
}

/* A DREP with the DREQ's TID to the connection's peer. */
static void send_drep(struct kcm *m, const struct kcm_conn *c, uint64_t tid)
{
	uint8_t mad[KCM_MAD];

	kcm_msg_drep(mad, c->local_id, c->remote_id, tid);
	conn_send(m, c, mad);
}

int kcm_listen(struct kcm *m, uint64_t service_id, uint32_t owner)
{
	int i, free = -1;

	for (i = 0; i < KCM_LISTENS; i++) {
		if (m->listens[i].used && m->listens[i].service_id == service_id)
			return -EBUSY;
		if (!m->listens[i].used && free < 0)
			free = i;
	}
	if (free < 0)
		return -ENOMEM;
	m->listens[free] = (struct kcm_listen){ .used = 1, .service_id = service_id, .owner = owner };
	return 0;
}

void kcm_unlisten(struct kcm *m, uint32_t owner)
{
	int i;

	for (i = 0; i < KCM_LISTENS; i++)
		if (m->listens[i].used && m->listens[i].owner == owner)
			m->listens[i].used = 0;
}

size_t kcm_listens(const struct kcm *m)
{
	size_t n = 0;
	int i;

	for (i = 0; i < KCM_LISTENS; i++)
		n += m->listens[i].used != 0;
	return n;
}

int kcm_req(struct kcm *m, uint32_t owner, const uint8_t path[KCM_PATH_LEN], uint64_t service_id,
	    const struct kcm_param *p, int64_t now)
{
	struct kcm_conn *c;
	int i;

	if (p->pdata_len > CMWIRE_REQ_PDATA)
		return -EINVAL;
	i = alloc(m);
	if (i < 0)
		return i;
	c = &m->conns[i];
	c->owner = owner;
	c->active = 1;
	c->state = KCM_REQ_SENT;
	c->tid = (uint64_t)m->port.hi_tid << 32 | c->local_id; /* cm_form_tid */
	c->service_id = service_id;
	memcpy(c->path, path, KCM_PATH_LEN);
	c->local_qpn = p->qp_num & 0xffffff;
	c->local_psn = rnd(m) & 0xffffff;
	c->responder_resources = p->responder_resources;
	c->initiator_depth = p->initiator_depth;
	c->retry_count = p->retry_count & 7;
	c->rnr_retry_count = p->rnr_retry_count & 7;
	c->path_mtu = path[KCM_PR_MTU] & 0x3f;
	/* cm_init_av_by_path: the QP's timeout until the REP's ACK delay */
	c->local_ack_timeout = (uint8_t)(plt_of(path) + 1 > 31 ? 31 : plt_of(path) + 1);
	c->remote_cm_timeout = m->cm_timeout;
	c->max_retries = (uint8_t)m->retries;
	/* ib_send_cm_req: 2 * packet life + the peer's response time */
	c->timeout_ms = 2 * ms(plt_of(path)) + ms(m->cm_timeout);

	kcm_msg_req(c->msg, c, &m->port, p);
	send_outstanding(m, c, now);
	return i;
}

int kcm_rtu(struct kcm *m, uint32_t conn, int64_t now)
{
	struct kcm_conn *c = get(m, conn);

	(void)now;
	if (!c || c->state != KCM_REP_RCVD)
		return -EINVAL;
	send_rtu(m, c);
	c->state = KCM_ESTABLISHED;
	return 0;
}

int kcm_rep(struct kcm *m, uint32_t conn, const struct kcm_param *p, int64_t now)
{
	struct kcm_conn *c = get(m, conn);

	if (!c || (c->state != KCM_REQ_RCVD && c->state != KCM_MRA_REQ_SENT))
		return -EINVAL;
	if (p->pdata_len > CMWIRE_REP_PDATA)
		return -EINVAL;
	/* ib_send_cm_rep: the QP's values are now the consumer's */
	c->local_qpn = p->qp_num & 0xffffff;
	c->local_psn = rnd(m) & 0xffffff;
	c->responder_resources = p->responder_resources;
	c->initiator_depth = p->initiator_depth;
	c->rnr_retry_count = p->rnr_retry_count & 7;

	kcm_msg_rep(c->msg, c, &m->port, p);
	c->state = KCM_REP_SENT;
	send_outstanding(m, c, now);
	return 0;
}

int kcm_rej(struct kcm *m, uint32_t conn, uint16_t reason, const uint8_t *pdata, size_t len,
	    int64_t now)
{
	struct kcm_conn *c = get(m, conn);

	if (!c || len > CMWIRE_REJ_PDATA)
		return -EINVAL;
	switch (c->state) {
	case KCM_REQ_SENT:
	case KCM_MRA_REQ_RCVD:
	case KCM_REQ_RCVD:
	case KCM_MRA_REQ_SENT:
	case KCM_REP_RCVD:
		send_rej(m, c, reason, NULL, 0, pdata, len);
		to_idle(c);
		return 0;
	case KCM_REP_SENT:
	case KCM_MRA_REP_RCVD:
		send_rej(m, c, reason, NULL, 0, pdata, len);
		enter_timewait(c, now);
		return 0;
	default:
		return -EINVAL;
	}
}

static void send_dreq(struct kcm *m, struct kcm_conn *c, int64_t now)
{
	c->tid = (uint64_t)m->port.hi_tid << 32 | c->local_id; /* cm_form_tid */
	kcm_msg_dreq(c->msg, c);
	c->state = KCM_DREQ_SENT;
	send_outstanding(m, c, now);
}

int kcm_dreq(struct kcm *m, uint32_t conn, int64_t now)
{
	struct kcm_conn *c = get(m, conn);

	if (!c || c->state != KCM_ESTABLISHED)
		return -EINVAL;
	send_dreq(m, c, now);
	return 0;
}

int kcm_drep(struct kcm *m, uint32_t conn, int64_t now)
{
	struct kcm_conn *c = get(m, conn);

	if (!c || c->state != KCM_DREQ_RCVD)
		return -EINVAL;
	send_drep(m, c, c->tid);
	enter_timewait(c, now);
	return 0;
}

/* cm.c cm_destroy_id, state by state; a connection left in timewait
 * keeps its comm ID until timewait ends, then goes silently. */
void kcm_destroy(struct kcm *m, uint32_t conn, int64_t now)
{
	struct kcm_conn *c = get(m, conn);
	uint8_t guid[8];

	if (!c)
		return;
	switch (c->state) {
	case KCM_REQ_SENT:
	case KCM_MRA_REQ_RCVD:
		/* REJ timeout, ARI = our node GUID: the peer finds its
		 * connection by our comm ID and CA GUID */
		wire_put64(guid, m->port.ca_guid);
		send_rej(m, c, CMWIRE_REJ_TIMEOUT, guid, 8, NULL, 0);
		break;
	case KCM_REQ_RCVD:
	case KCM_MRA_REQ_SENT:
	case KCM_REP_RCVD:
		send_rej(m, c, CMWIRE_REJ_CONSUMER, NULL, 0, NULL, 0);
		break;
	case KCM_REP_SENT:
	case KCM_MRA_REP_RCVD:
		send_rej(m, c, CMWIRE_REJ_CONSUMER, NULL, 0, NULL, 0);
		enter_timewait(c, now);
		break;
	case KCM_ESTABLISHED:
		/* one DREQ, never resent: cm_destroy_id cancels it at once */
		send_dreq(m, c, now);
		enter_timewait(c, now);
		break;
	case KCM_DREQ_SENT:
		enter_timewait(c, now);
		break;
	case KCM_DREQ_RCVD:
		kcm_drep(m, conn, now);
		break;
	default:
		break;
	}
	purge_events(m, conn);
	if (c->state == KCM_TIMEWAIT)
		c->dead = 1;
	else
		memset(c, 0, sizeof(*c));
}

static void send_failed(struct kcm *m, struct kcm_conn *c, int64_t now)
{
	c->has_msg = 0;
	switch (c->state) {
	case KCM_REQ_SENT:
	case KCM_MRA_REQ_RCVD:
		to_idle(c);
		push_event(m, c, KCM_EV_REQ_ERROR, -ETIMEDOUT);
		break;
	case KCM_REP_SENT:
	case KCM_MRA_REP_RCVD:
		to_idle(c);
		push_event(m, c, KCM_EV_REP_ERROR, -ETIMEDOUT);
		break;
	default: /* DREQ_SENT */
		enter_timewait(c, now);
		push_event(m, c, KCM_EV_DREQ_ERROR, -ETIMEDOUT);
		break;
	}
}

void kcm_due(struct kcm *m, int64_t now)
{
	size_t i;

	for (i = 0; i < KCM_CONNS; i++) {
		struct kcm_conn *c = &m->conns[i];

		if (!c->used || c->deadline > now)
			continue;
		if (c->has_msg && c->tries_left) {
			c->tries_left--;
			c->deadline = now + c->msg_ms;
			conn_send(m, c, c->msg);
		} else if (c->has_msg) {
			send_failed(m, c, now);
		} else if (c->state == KCM_TIMEWAIT && c->dead) {
			memset(c, 0, sizeof(*c));
		} else if (c->state == KCM_TIMEWAIT) {
			c->state = KCM_IDLE;
			push_event(m, c, KCM_EV_TIMEWAIT_EXIT, 0);
		}
	}
}

int64_t kcm_deadline(const struct kcm *m)
{
	int64_t d = INT64_MAX;
	size_t i;

	for (i = 0; i < KCM_CONNS; i++) {
		const struct kcm_conn *c = &m->conns[i];

		if (c->used && (c->has_msg || c->state == KCM_TIMEWAIT) && c->deadline < d)
			d = c->deadline;
	}
	return d;
}

/* ---- received MADs ---- */

static struct kcm_conn *find(struct kcm *m, uint32_t local, uint32_t remote)
{
	size_t i;

	for (i = 0; i < KCM_CONNS; i++)
		if (m->conns[i].used && m->conns[i].local_id == local &&
		    m->conns[i].remote_id == remote)
			return &m->conns[i];
	return NULL;
}

/* cm_insert_remote_id's key: the peer's comm ID and CA GUID. */
static struct kcm_conn *find_remote(struct kcm *m, uint32_t remote, uint64_t guid)
{
	size_t i;

	for (i = 0; i < KCM_CONNS; i++)
		if (m->conns[i].used && !m->conns[i].active && m->conns[i].remote_id == remote &&
		    m->conns[i].remote_ca_guid == guid)
			return &m->conns[i];
	return NULL;
}

static int listener(const struct kcm *m, uint64_t sid)
{
	int i;

	for (i = 0; i < KCM_LISTENS; i++)
		if (m->listens[i].used && m->listens[i].service_id == sid)
			return i;
	return -1;
}

#define KCM_REJ_STALE_CONN 10 /* IB_CM_REJ_STALE_CONN */

static void dup_req(struct kcm *m, struct kcm_conn *c)
{
	uint8_t mad[KCM_MAD];

	/* Linux 6.1 cm.c cm_dup_req_handler */
	switch (c->state) {
	case KCM_REQ_RCVD:
		/* cma's REQ handler asked for a delayed MRA
		 * (CMA_CM_MRA_SETTING) once the consumer had the request:
		 * the state is MRA_REQ_SENT and a duplicate gets the MRA */
		c->state = KCM_MRA_REQ_SENT;
		/* fall through */
	case KCM_MRA_REQ_SENT:
		kcm_msg_mra(mad, c, KCM_MRA_TIMEOUT);
		conn_send(m, c, mad);
		break;
	case KCM_TIMEWAIT:
		/* the requester still thinks the old connection alive */
		kcm_msg_rej(mad, c, KCM_REJ_STALE_CONN, NULL, 0, NULL, 0);
		conn_send(m, c, mad);
		break;
	default:
		/* REP_SENT: the REP's own timer resends it; ESTABLISHED and
		 * the rest: nothing (cm_dup_req_handler) */
		break;
	}
}

static void recv_req(struct kcm *m, const uint8_t *mad, uint16_t slid)
{
	struct cmwire_req r;
	struct kcm_conn *c;
	struct kcm_event *e;
	int l, i;

	cmwire_req_decode(mad + CMWIRE_DATA_OFF, CMWIRE_DATA_SIZE, &r);
	c = find_remote(m, r.local_comm_id, r.local_ca_guid);
	if (c) {
		dup_req(m, c);
		return;
	}
	/* cm_process_routed_req: a routed REQ's LIDs are the packet's */
	if (!r.primary.subnet_local) {
		if (r.primary.local_lid == 0xffff)
			r.primary.local_lid = slid;
		if (r.primary.remote_lid == 0xffff)
			r.primary.remote_lid = m->port.lid;
	}
	l = listener(m, r.service_id);
	if (l < 0) {
		/* cm_issue_rej: reason 8, the REQ's TID, to its sender */
		uint8_t out[KCM_MAD];

		kcm_msg_rej_req(out, r.local_comm_id, wire_get64(mad + MAD_OFF_TID),
				CMWIRE_REJ_INVALID_SERVICE_ID);
		push_send(m, slid, r.primary.sl, out);
		return;
	}
	i = alloc(m);
	if (i < 0) {
		m->req_drops++;
		return;
	}
	c = &m->conns[i];
	c->state = KCM_REQ_RCVD;
	c->remote_id = r.local_comm_id;
	c->remote_ca_guid = r.local_ca_guid;
	c->tid = wire_get64(mad + MAD_OFF_TID);
	c->service_id = r.service_id;
	kcm_msg_path_from_req(c->path, &r);
	c->remote_qpn = r.local_qpn;
	c->remote_psn = r.starting_psn;
	/* cm_req_handler: our initiator depth is their responder
	 * resources and the other way round */
	c->initiator_depth = r.responder_resources;
	c->responder_resources = r.initiator_depth;
	c->retry_count = r.retry_count;
	c->rnr_retry_count = r.rnr_retry_count;
	c->path_mtu = r.path_mtu;
	c->local_ack_timeout = r.primary.local_ack_timeout;
	c->remote_cm_timeout = r.remote_cm_response_timeout;
	c->max_retries = r.max_cm_retries;
	c->timeout_ms = ms(r.local_cm_response_timeout);
	e = push_event(m, c, KCM_EV_REQ_RCVD, 0);
	if (!e)
		return;
	e->owner = m->listens[l].owner;
	memcpy(e->param.pdata, r.private_data, CMWIRE_REQ_PDATA);
	e->param.pdata_len = CMWIRE_REQ_PDATA;
	e->param.responder_resources = r.responder_resources;
	e->param.initiator_depth = r.initiator_depth;
	e->param.flow_control = r.e2e_flow_control;
	e->param.retry_count = r.retry_count;
	e->param.rnr_retry_count = r.rnr_retry_count;
	e->param.srq = r.srq;
	e->param.qp_num = r.local_qpn;
	memcpy(e->path, c->path, KCM_PATH_LEN);
	e->service_id = r.service_id;
}

/* cm_mra_handler: only the first MRA of the outstanding REQ (or REP)
 * counts; it changes that message's timeout from now, gives no try back
 * and sends nothing. */
static void recv_mra(struct kcm *m, const uint8_t *mad, int64_t now)
{
	struct cmwire_mra r;
	struct kcm_conn *c;
	size_t i;

	cmwire_mra_decode(mad + CMWIRE_DATA_OFF, CMWIRE_DATA_SIZE, &r);
	for (i = 0, c = NULL; i < KCM_CONNS && !c; i++)
		if (m->conns[i].used && m->conns[i].local_id == r.remote_comm_id)
			c = &m->conns[i];
	if (!c || !c->has_msg)
		return;
	if (c->state == KCM_REQ_SENT && r.message_mraed == KCM_MSG_REQ)
		c->state = KCM_MRA_REQ_RCVD;
	else if (c->state == KCM_REP_SENT && r.message_mraed == KCM_MSG_REP &&
		 c->remote_id == r.local_comm_id)
		c->state = KCM_MRA_REP_RCVD;
	else
		return;
	c->msg_ms = ms(r.service_timeout) + ms(c->local_ack_timeout);
	c->deadline = now + c->msg_ms;
}

static void recv_rep(struct kcm *m, const uint8_t *mad)
{
	struct cmwire_rep r;
	struct kcm_conn *c;
	struct kcm_event *e;

	cmwire_rep_decode(mad + CMWIRE_DATA_OFF, CMWIRE_DATA_SIZE, &r);
	c = find(m, r.remote_comm_id, 0);
	if (!c || !c->active || (c->state != KCM_REQ_SENT && c->state != KCM_MRA_REQ_RCVD)) {
		/* cm_dup_rep_handler: our RTU was lost */
		c = find(m, r.remote_comm_id, r.local_comm_id);
		if (c && c->active && c->state == KCM_ESTABLISHED && !c->dead)
			send_rtu(m, c);
		return;
	}
	c->has_msg = 0;
	c->state = KCM_REP_RCVD;
	c->remote_id = r.local_comm_id;
	c->remote_ca_guid = r.local_ca_guid;
	c->remote_qpn = r.local_qpn;
	c->remote_psn = r.starting_psn;
	c->initiator_depth = r.responder_resources;
	c->responder_resources = r.initiator_depth;
	c->rnr_retry_count = r.rnr_retry_count;
	c->local_ack_timeout = kcm_msg_ack_timeout(r.target_ack_delay, plt_of(c->path));
	e = push_event(m, c, KCM_EV_REP_RCVD, 0);
	if (!e)
		return;
	memcpy(e->param.pdata, r.private_data, CMWIRE_REP_PDATA);
	e->param.pdata_len = CMWIRE_REP_PDATA;
	e->param.responder_resources = r.responder_resources;
	e->param.initiator_depth = r.initiator_depth;
	e->param.flow_control = r.e2e_flow_control;
	e->param.rnr_retry_count = r.rnr_retry_count;
	e->param.srq = r.srq;
	e->param.qp_num = r.local_qpn;
}

static void recv_rtu(struct kcm *m, const uint8_t *mad)
{
	struct cmwire_rtu r;
	struct kcm_conn *c;

	cmwire_rtu_decode(mad + CMWIRE_DATA_OFF, CMWIRE_DATA_SIZE, &r);
	c = find(m, r.remote_comm_id, r.local_comm_id);
	if (!c || c->dead || c->active || (c->state != KCM_REP_SENT && c->state != KCM_MRA_REP_RCVD))
		return;
	c->has_msg = 0;
	c->state = KCM_ESTABLISHED;
	push_event(m, c, KCM_EV_RTU_RCVD, 0);
}

/* cm_acquire_rejected_id: a REJ timeout names us by its ARI (the
 * rejecter's CA GUID), a REJ of our REQ by our comm ID alone. */
static struct kcm_conn *rejected(struct kcm *m, const struct cmwire_rej *r)
{
	if (r->reason == CMWIRE_REJ_TIMEOUT)
		return r->ari_length >= 8 ? find_remote(m, r->local_comm_id, wire_get64(r->ari)) : NULL;
	if (r->message_rejected == KCM_MSG_REQ)
		return find(m, r->remote_comm_id, 0);
	return find(m, r->remote_comm_id, r->local_comm_id);
}

static void recv_rej(struct kcm *m, const uint8_t *mad, int64_t now)
{
	struct cmwire_rej r;
	struct kcm_conn *c;
	struct kcm_event *e;

	cmwire_rej_decode(mad + CMWIRE_DATA_OFF, CMWIRE_DATA_SIZE, &r);
	c = rejected(m, &r);
	if (!c || c->dead)
		return;
	switch (c->state) {
	case KCM_REQ_SENT:
	case KCM_MRA_REQ_RCVD:
	case KCM_REP_SENT:
	case KCM_MRA_REP_RCVD:
	case KCM_REQ_RCVD:
	case KCM_MRA_REQ_SENT:
		to_idle(c);
		break;
	case KCM_DREQ_SENT:
	case KCM_REP_RCVD:
	case KCM_ESTABLISHED:
		enter_timewait(c, now);
		break;
	default:
		return;
	}
	e = push_event(m, c, KCM_EV_REJ_RCVD, r.reason);
	if (!e)
		return;
	memcpy(e->param.pdata, r.private_data, CMWIRE_REJ_PDATA);
	e->param.pdata_len = CMWIRE_REJ_PDATA;
	e->ari_len = r.ari_length > CMWIRE_REJ_ARI ? CMWIRE_REJ_ARI : r.ari_length;
	memcpy(e->ari, r.ari, e->ari_len);
}

static void recv_dreq(struct kcm *m, const uint8_t *mad, uint16_t slid)
{
	uint64_t tid = wire_get64(mad + MAD_OFF_TID);
	struct cmwire_dreq r;
	struct kcm_conn *c;

	cmwire_dreq_decode(mad + CMWIRE_DATA_OFF, CMWIRE_DATA_SIZE, &r);
	c = find(m, r.remote_comm_id, r.local_comm_id);
	if (!c) {
		/* cm_issue_drep: whoever it was gets its DREP */
		uint8_t out[KCM_MAD];

		kcm_msg_drep(out, r.remote_comm_id, r.local_comm_id, tid);
		push_send(m, slid, 0, out);
		return;
	}
	if (r.remote_qpn_eecn != c->local_qpn)
		return;
	switch (c->state) {
	case KCM_REP_SENT:
	case KCM_MRA_REP_RCVD:
	case KCM_DREQ_SENT:
	case KCM_ESTABLISHED:
		break;
	case KCM_TIMEWAIT:
		/* our DREP was lost */
		send_drep(m, c, tid);
		return;
	default:
		return;
	}
	if (c->dead)
		return;
	c->has_msg = 0;
	c->state = KCM_DREQ_RCVD;
	c->tid = tid;
	push_event(m, c, KCM_EV_DREQ_RCVD, 0);
}

static void recv_drep(struct kcm *m, const uint8_t *mad, int64_t now)
{
	struct cmwire_drep r;
	struct kcm_conn *c;

	cmwire_drep_decode(mad + CMWIRE_DATA_OFF, CMWIRE_DATA_SIZE, &r);
	c = find(m, r.remote_comm_id, r.local_comm_id);
	if (!c || c->dead || (c->state != KCM_DREQ_SENT && c->state != KCM_DREQ_RCVD))
		return;
	enter_timewait(c, now);
	push_event(m, c, KCM_EV_DREP_RCVD, 0);
}

void kcm_recv(struct kcm *m, const uint8_t *mad, size_t len, uint16_t slid, int64_t now)
{
	if (len < CMWIRE_DATA_OFF + CMWIRE_DATA_SIZE || mad[MAD_OFF_BASE_VERSION] != MAD_BASE_VERSION ||
	    mad[MAD_OFF_MGMT_CLASS] != CMWIRE_CLASS || mad[MAD_OFF_CLASS_VERSION] != CMWIRE_CLASS_VERSION ||
	    mad[MAD_OFF_METHOD] != KCM_METHOD_SEND)
		return;
	switch (wire_get16(mad + MAD_OFF_ATTR_ID)) {
	case CMWIRE_ATTR_REQ: recv_req(m, mad, slid); break;
	case CMWIRE_ATTR_MRA: recv_mra(m, mad, now); break;
	case CMWIRE_ATTR_REJ: recv_rej(m, mad, now); break;
	case CMWIRE_ATTR_REP: recv_rep(m, mad); break;
	case CMWIRE_ATTR_RTU: recv_rtu(m, mad); break;
	case CMWIRE_ATTR_DREQ: recv_dreq(m, mad, slid); break;
	case CMWIRE_ATTR_DREP: recv_drep(m, mad, now); break;
	default: break;
	}
}
