/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* ib_cm's messages as Linux 6.1 cm.c formats them (cm_format_req,
 * cm_format_rep, cm_format_rej, ...), through the cmwire.c codec. */
#include <string.h>

#include "kcm_msg.h"
#include "core/mad.h"
#include "core/wire.h"

#define SA_EQ 2 /* PathRecord selector "exactly" (IBTA 15.2.5.16) */

uint8_t kcm_msg_ack_timeout(uint8_t ca_ack_delay, uint8_t packet_life_time)
{
	int t = packet_life_time + 1;

	if (t >= ca_ack_delay)
		t += ca_ack_delay >= t - 1;
	else
		t = ca_ack_delay + (t >= ca_ack_delay - 1);
	return (uint8_t)(t > 31 ? 31 : t);
}

/* The 24-byte header of every CM MAD (IBTA 13.4.2; 12.6: method Send). */
static void hdr(uint8_t *mad, uint16_t attr, uint64_t tid)
{
	struct mad_hdr h = { .base_version = MAD_BASE_VERSION, .mgmt_class = CMWIRE_CLASS,
			     .class_version = CMWIRE_CLASS_VERSION, .method = KCM_MSG_METHOD_SEND,
			     .tid = tid, .attr_id = attr };

	memset(mad, 0, KCM_MAD);
	mad_hdr_encode(mad, &h);
}

/* cm_format_req's primary path from the route (cma_connect_ib). */
static void req_path(struct cmwire_path *p, const uint8_t *path, uint8_t ca_ack_delay)
{
	uint8_t hop = path[KCM_MSG_PR_HOP_FLOW + 3];

	p->subnet_local = hop <= 1;
	/* a routed path's LIDs are the routers': cm.c sends permissive */
	p->local_lid = p->subnet_local ? wire_get16(path + KCM_MSG_PR_SLID) : 0xffff;
	p->remote_lid = p->subnet_local ? wire_get16(path + KCM_MSG_PR_DLID) : 0xffff;
	memcpy(p->local_gid, path + KCM_MSG_PR_SGID, 16);
	memcpy(p->remote_gid, path + KCM_MSG_PR_DGID, 16);
	p->flow_label = (wire_get32(path + KCM_MSG_PR_HOP_FLOW) >> 8) & 0xfffff;
	p->packet_rate = path[KCM_MSG_PR_RATE] & 0x3f;
	p->traffic_class = path[KCM_MSG_PR_TCLASS];
	p->hop_limit = hop;
	p->sl = path[KCM_MSG_PR_SL] & 0xf;
	p->local_ack_timeout = kcm_msg_ack_timeout(ca_ack_delay, path[KCM_MSG_PR_PLT] & 0x3f);
}

void kcm_msg_req(uint8_t *mad, const struct kcm_conn *c, const struct kcm_port *port,
		 const struct kcm_param *p)
{
	struct cmwire_req r;

	memset(&r, 0, sizeof(r));
	r.local_comm_id = c->local_id;
	r.service_id = c->service_id;
	r.local_ca_guid = port->ca_guid;
	r.local_qpn = c->local_qpn;
	r.responder_resources = c->responder_resources;
	r.initiator_depth = c->initiator_depth;
	r.remote_cm_response_timeout = c->remote_cm_timeout;
	r.transport_service_type = 0; /* RC */
	r.e2e_flow_control = p->flow_control & 1;
	r.starting_psn = c->local_psn;
	r.local_cm_response_timeout = c->remote_cm_timeout; /* cma: both the same */
	r.retry_count = c->retry_count;
	r.pkey = wire_get16(c->path + KCM_MSG_PR_PKEY);
	r.path_mtu = c->path_mtu & 0xf;
	r.rnr_retry_count = c->rnr_retry_count;
	r.max_cm_retries = c->max_retries;
	r.srq = p->srq & 1;
	req_path(&r.primary, c->path, port->ack_delay);
	memcpy(r.private_data, p->pdata, p->pdata_len);
	hdr(mad, CMWIRE_ATTR_REQ, c->tid);
	cmwire_req_encode(mad + CMWIRE_DATA_OFF, &r);
}

void kcm_msg_rep(uint8_t *mad, const struct kcm_conn *c, const struct kcm_port *port,
		 const struct kcm_param *p)
{
	struct cmwire_rep r;

	memset(&r, 0, sizeof(r));
	r.local_comm_id = c->local_id;
	r.remote_comm_id = c->remote_id;
	r.local_qpn = c->local_qpn;
	r.starting_psn = c->local_psn;
	r.responder_resources = c->responder_resources;
	r.initiator_depth = c->initiator_depth;
	r.target_ack_delay = port->ack_delay & 0x1f;
	r.e2e_flow_control = p->flow_control & 1;
	r.rnr_retry_count = c->rnr_retry_count;
	r.srq = p->srq & 1;
	r.local_ca_guid = port->ca_guid;
	memcpy(r.private_data, p->pdata, p->pdata_len);
	hdr(mad, CMWIRE_ATTR_REP, c->tid);
	cmwire_rep_encode(mad + CMWIRE_DATA_OFF, &r);
}

void kcm_msg_rej(uint8_t *mad, const struct kcm_conn *c, uint16_t reason, const uint8_t *ari,
		 uint8_t ari_len, const uint8_t *pdata, size_t len)
{
	struct cmwire_rej r = { .local_comm_id = c->local_id, .remote_comm_id = c->remote_id,
			    .reason = reason, .ari_length = ari_len };

	/* cm_format_rej: in REQ_RCVD the local comm ID is left 0 */
	switch (c->state) {
	case KCM_REQ_RCVD:
		r.local_comm_id = 0;
		/* fall through */
	case KCM_MRA_REQ_SENT:
		r.message_rejected = KCM_MSG_REQ;
		break;
	case KCM_REP_RCVD:
		r.message_rejected = KCM_MSG_REP;
		break;
	default:
		r.message_rejected = KCM_MSG_OTHER;
		break;
	}
	if (ari_len)
		memcpy(r.ari, ari, ari_len);
	if (len)
		memcpy(r.private_data, pdata, len);
	hdr(mad, CMWIRE_ATTR_REJ, c->tid);
	cmwire_rej_encode(mad + CMWIRE_DATA_OFF, &r);
}

void kcm_msg_rej_req(uint8_t *mad, uint32_t remote_id, uint64_t tid, uint16_t reason)
{
	struct cmwire_rej r = { .remote_comm_id = remote_id, .message_rejected = KCM_MSG_REQ,
			    .reason = reason };

	hdr(mad, CMWIRE_ATTR_REJ, tid);
	cmwire_rej_encode(mad + CMWIRE_DATA_OFF, &r);
}

void kcm_msg_rtu(uint8_t *mad, const struct kcm_conn *c)
{
	struct cmwire_rtu r = { .local_comm_id = c->local_id, .remote_comm_id = c->remote_id };

	hdr(mad, CMWIRE_ATTR_RTU, c->tid);
	cmwire_rtu_encode(mad + CMWIRE_DATA_OFF, &r);
}

void kcm_msg_mra(uint8_t *mad, const struct kcm_conn *c, uint8_t service_timeout)
{
	struct cmwire_mra r = { .local_comm_id = c->local_id, .remote_comm_id = c->remote_id,
			    .message_mraed = KCM_MSG_REQ, .service_timeout = service_timeout };

	hdr(mad, CMWIRE_ATTR_MRA, c->tid);
	cmwire_mra_encode(mad + CMWIRE_DATA_OFF, &r);
}

void kcm_msg_dreq(uint8_t *mad, const struct kcm_conn *c)
{
	struct cmwire_dreq r = { .local_comm_id = c->local_id, .remote_comm_id = c->remote_id,
			     .remote_qpn_eecn = c->remote_qpn };

	hdr(mad, CMWIRE_ATTR_DREQ, c->tid);
	cmwire_dreq_encode(mad + CMWIRE_DATA_OFF, &r);
}

void kcm_msg_drep(uint8_t *mad, uint32_t local_id, uint32_t remote_id, uint64_t tid)
{
	struct cmwire_drep r = { .local_comm_id = local_id, .remote_comm_id = remote_id };

	hdr(mad, CMWIRE_ATTR_DREP, tid);
	cmwire_drep_encode(mad + CMWIRE_DATA_OFF, &r);
}

void kcm_msg_path_from_req(uint8_t path[KCM_PATH_LEN], const struct cmwire_req *r)
{
	const struct cmwire_path *p = &r->primary;
	uint8_t plt = p->local_ack_timeout;

	memset(path, 0, KCM_PATH_LEN);
	wire_put64(path + KCM_MSG_PR_SID, r->service_id);
	memcpy(path + KCM_MSG_PR_DGID, p->local_gid, 16);
	memcpy(path + KCM_MSG_PR_SGID, p->remote_gid, 16);
	wire_put16(path + KCM_MSG_PR_DLID, p->local_lid);
	wire_put16(path + KCM_MSG_PR_SLID, p->remote_lid);
	wire_put32(path + KCM_MSG_PR_HOP_FLOW, p->flow_label << 8 | p->hop_limit);
	path[KCM_MSG_PR_TCLASS] = p->traffic_class;
	path[KCM_MSG_PR_NUMPATH] = 0x81; /* reversible, one path */
	wire_put16(path + KCM_MSG_PR_PKEY, r->pkey);
	path[KCM_MSG_PR_SL] = p->sl;
	path[KCM_MSG_PR_MTU] = SA_EQ << 6 | r->path_mtu;
	path[KCM_MSG_PR_RATE] = SA_EQ << 6 | p->packet_rate;
	/* the REQ carries the ACK timeout, packet life time + 1 */
	path[KCM_MSG_PR_PLT] = (uint8_t)(SA_EQ << 6 | (plt - (plt > 0)));
}
