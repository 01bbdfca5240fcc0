/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The simulated ib_cm's receive side (Linux 6.1 cm.c cm_recv_handler and
 * cm_*_handler): a CM MAD from the wire matched to its connection, the
 * state moved and the consumer's event queued (kcm.h). */
#include <errno.h>
#include <string.h>

#include "kcm.h"
#include "kcm_recv.h"
#include "kcm_msg.h"
#include "core/mad.h"
#include "core/wire.h"

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
		kcm_conn_send(m, c, mad);
		break;
	case KCM_TIMEWAIT:
		/* the requester still thinks the old connection alive */
		kcm_msg_rej(mad, c, KCM_REJ_STALE_CONN, NULL, 0, NULL, 0);
		kcm_conn_send(m, c, mad);
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
		kcm_push_send(m, slid, r.primary.sl, out);
		return;
	}
	i = kcm_alloc(m);
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
	c->timeout_ms = kcm_ms(r.local_cm_response_timeout);
	e = kcm_push_event(m, c, KCM_EV_REQ_RCVD, 0);
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
	c->msg_ms = kcm_ms(r.service_timeout) + kcm_ms(c->local_ack_timeout);
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
			kcm_send_rtu(m, c);
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
	c->local_ack_timeout = kcm_msg_ack_timeout(r.target_ack_delay, kcm_plt_of(c->path));
	e = kcm_push_event(m, c, KCM_EV_REP_RCVD, 0);
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
	kcm_push_event(m, c, KCM_EV_RTU_RCVD, 0);
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
		kcm_to_idle(c);
		break;
	case KCM_DREQ_SENT:
	case KCM_REP_RCVD:
	case KCM_ESTABLISHED:
		kcm_enter_timewait(c, now);
		break;
	default:
		return;
	}
	e = kcm_push_event(m, c, KCM_EV_REJ_RCVD, r.reason);
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
		kcm_push_send(m, slid, 0, out);
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
		kcm_send_drep(m, c, tid);
		return;
	default:
		return;
	}
	if (c->dead)
		return;
	c->has_msg = 0;
	c->state = KCM_DREQ_RCVD;
	c->tid = tid;
	kcm_push_event(m, c, KCM_EV_DREQ_RCVD, 0);
}

static void recv_drep(struct kcm *m, const uint8_t *mad, int64_t now)
{
	struct cmwire_drep r;
	struct kcm_conn *c;

	cmwire_drep_decode(mad + CMWIRE_DATA_OFF, CMWIRE_DATA_SIZE, &r);
	c = find(m, r.remote_comm_id, r.local_comm_id);
	if (!c || c->dead || (c->state != KCM_DREQ_SENT && c->state != KCM_DREQ_RCVD))
		return;
	kcm_enter_timewait(c, now);
	kcm_push_event(m, c, KCM_EV_DREP_RCVD, 0);
}

void kcm_recv(struct kcm *m, const uint8_t *mad, size_t len, uint16_t slid, int64_t now)
{
	if (len < CMWIRE_DATA_OFF + CMWIRE_DATA_SIZE || mad[MAD_OFF_BASE_VERSION] != MAD_BASE_VERSION ||
	    mad[MAD_OFF_MGMT_CLASS] != CMWIRE_CLASS || mad[MAD_OFF_CLASS_VERSION] != CMWIRE_CLASS_VERSION ||
	    mad[MAD_OFF_METHOD] != KCM_MSG_METHOD_SEND)
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
