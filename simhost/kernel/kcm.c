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
uint32_t kcm_ms(unsigned t)
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

uint8_t kcm_plt_of(const uint8_t *path)
{
	return path[KCM_MSG_PR_PLT] & 0x3f;
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
int kcm_alloc(struct kcm *m)
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

void kcm_push_send(struct kcm *m, uint16_t dlid, uint8_t sl, const uint8_t *mad)
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

struct kcm_event *kcm_push_event(struct kcm *m, const struct kcm_conn *c, enum kcm_ev type,
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

void kcm_conn_send(struct kcm *m, const struct kcm_conn *c, const uint8_t *mad)
{
	kcm_push_send(m, wire_get16(c->path + KCM_MSG_PR_DLID), c->path[KCM_MSG_PR_SL] & 0xf, mad);
}

/* The message stays outstanding: resent after msg_ms, tries_left times. */
static void send_outstanding(struct kcm *m, struct kcm_conn *c, int64_t now)
{
	c->has_msg = 1;
	c->msg_ms = c->timeout_ms;
	c->tries_left = c->max_retries;
	c->deadline = now + c->msg_ms;
	kcm_conn_send(m, c, c->msg);
}

/* cm.c cm_enter_timewait: kcm_ms(av.timeout), then TIMEWAIT_EXIT. */
void kcm_enter_timewait(struct kcm_conn *c, int64_t now)
{
	c->state = KCM_TIMEWAIT;
	c->has_msg = 0;
	c->deadline = now + kcm_ms(c->local_ack_timeout);
}

void kcm_to_idle(struct kcm_conn *c)
{
	c->state = KCM_IDLE;
	c->has_msg = 0;
}

static void send_rej(struct kcm *m, struct kcm_conn *c, uint16_t reason, const uint8_t *ari,
		     uint8_t ari_len, const uint8_t *pdata, size_t len)
{
	uint8_t mad[KCM_MAD];

	kcm_msg_rej(mad, c, reason, ari, ari_len, pdata, len);
	kcm_conn_send(m, c, mad);
}

void kcm_send_rtu(struct kcm *m, const struct kcm_conn *c)
{
	uint8_t mad[KCM_MAD];

	kcm_msg_rtu(mad, c);
	kcm_conn_send(m, c, mad);
}

/* A DREP with the DREQ's TID to the connection's peer. */
void kcm_send_drep(struct kcm *m, const struct kcm_conn *c, uint64_t tid)
{
	uint8_t mad[KCM_MAD];

	kcm_msg_drep(mad, c->local_id, c->remote_id, tid);
	kcm_conn_send(m, c, mad);
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
	i = kcm_alloc(m);
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
	c->path_mtu = path[KCM_MSG_PR_MTU] & 0x3f;
	/* cm_init_av_by_path: the QP's timeout until the REP's ACK delay */
	c->local_ack_timeout = (uint8_t)(kcm_plt_of(path) + 1 > 31 ? 31 : kcm_plt_of(path) + 1);
	c->remote_cm_timeout = m->cm_timeout;
	c->max_retries = (uint8_t)m->retries;
	/* ib_send_cm_req: 2 * packet life + the peer's response time */
	c->timeout_ms = 2 * kcm_ms(kcm_plt_of(path)) + kcm_ms(m->cm_timeout);

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
	kcm_send_rtu(m, c);
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
		kcm_to_idle(c);
		return 0;
	case KCM_REP_SENT:
	case KCM_MRA_REP_RCVD:
		send_rej(m, c, reason, NULL, 0, pdata, len);
		kcm_enter_timewait(c, now);
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
	kcm_send_drep(m, c, c->tid);
	kcm_enter_timewait(c, now);
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
		kcm_enter_timewait(c, now);
		break;
	case KCM_ESTABLISHED:
		/* one DREQ, never resent: cm_destroy_id cancels it at once */
		send_dreq(m, c, now);
		kcm_enter_timewait(c, now);
		break;
	case KCM_DREQ_SENT:
		kcm_enter_timewait(c, now);
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
		kcm_to_idle(c);
		kcm_push_event(m, c, KCM_EV_REQ_ERROR, -ETIMEDOUT);
		break;
	case KCM_REP_SENT:
	case KCM_MRA_REP_RCVD:
		kcm_to_idle(c);
		kcm_push_event(m, c, KCM_EV_REP_ERROR, -ETIMEDOUT);
		break;
	default: /* DREQ_SENT */
		kcm_enter_timewait(c, now);
		kcm_push_event(m, c, KCM_EV_DREQ_ERROR, -ETIMEDOUT);
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
			kcm_conn_send(m, c, c->msg);
		} else if (c->has_msg) {
			send_failed(m, c, now);
		} else if (c->state == KCM_TIMEWAIT && c->dead) {
			memset(c, 0, sizeof(*c));
		} else if (c->state == KCM_TIMEWAIT) {
			c->state = KCM_IDLE;
			kcm_push_event(m, c, KCM_EV_TIMEWAIT_EXIT, 0);
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
