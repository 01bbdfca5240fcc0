/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* ib_cm_init_qp_attr for a kcm connection (Linux 6.1 cm.c). The masks
 * are libibverbs' enum ibv_qp_attr_mask: the kernel's IB_QP_* bits. */
#include <errno.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

#include "kcm_qp.h"
#include "kcm_msg.h"
#include "core/wire.h"

_Static_assert(sizeof(struct ib_uverbs_qp_attr) == KCM_QP_ATTR_LEN, "INIT_QP_ATTR's answer");

/* The states in which cm.c answers: INIT in any but idle/timewait and the
 * disconnect states; RTR/RTS once the peer's QPN is known. */
static int allowed(const struct kcm_conn *c, uint32_t qp_state)
{
	switch (c->state) {
	case KCM_REQ_SENT:
	case KCM_MRA_REQ_RCVD:
		return qp_state == IBV_QPS_INIT;
	case KCM_REQ_RCVD:
	case KCM_MRA_REQ_SENT:
	case KCM_REP_RCVD:
	case KCM_REP_SENT:
	case KCM_MRA_REP_RCVD:
	case KCM_ESTABLISHED:
		return 1;
	default:
		return 0;
	}
}

/* cm_init_av_by_path (ib_init_ah_attr_from_path): a GRH when the path
 * has a hop limit, port 1, GID index 0. */
static void ah(struct ib_uverbs_ah_attr *a, const uint8_t *path)
{
	uint32_t hop_flow = wire_get32(path + KCM_MSG_PR_HOP_FLOW);

	a->dlid = wire_get16(path + KCM_MSG_PR_DLID);
	a->sl = path[KCM_MSG_PR_SL] & 0xf;
	a->src_path_bits = 0; /* LMC 0 on the bench's ports */
	a->static_rate = path[KCM_MSG_PR_RATE] & 0x3f;
	a->port_num = 1;
	a->is_global = (hop_flow & 0xff) > 0;
	if (!a->is_global)
		return;
	memcpy(a->grh.dgid, path + KCM_MSG_PR_DGID, 16);
	a->grh.flow_label = (hop_flow >> 8) & 0xfffff;
	a->grh.hop_limit = (uint8_t)hop_flow;
	a->grh.traffic_class = path[KCM_MSG_PR_TCLASS];
}

int kcm_qp_init_attr(const struct kcm *m, uint32_t conn, uint32_t qp_state, uint8_t *resp)
{
	const struct kcm_conn *c = kcm_conn(m, conn);
	struct ib_uverbs_qp_attr a;

	if (!c || !allowed(c, qp_state))
		return -EINVAL;
	memset(&a, 0, sizeof(a));
	a.qp_state = qp_state;
	switch (qp_state) {
	case IBV_QPS_INIT:
		a.qp_attr_mask = IBV_QP_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
		a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
		if (c->responder_resources)
			a.qp_access_flags |= IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
		a.pkey_index = 0; /* the node's one P_Key index */
		a.port_num = 1;
		break;
	case IBV_QPS_RTR:
		a.qp_attr_mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				 IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
		ah(&a.ah_attr, c->path);
		a.path_mtu = c->path_mtu;
		a.dest_qp_num = c->remote_qpn;
		a.rq_psn = c->remote_psn;
		a.max_dest_rd_atomic = c->responder_resources;
		a.min_rnr_timer = 0;
		break;
	case IBV_QPS_RTS:
		a.qp_attr_mask = IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				 IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
		a.sq_psn = c->local_psn;
		a.timeout = c->local_ack_timeout;
		a.retry_cnt = c->retry_count;
		a.rnr_retry = c->rnr_retry_count;
		a.max_rd_atomic = c->initiator_depth;
		break;
	default:
		return -EINVAL;
	}
	memcpy(resp, &a, sizeof(a));
	return 0;
}
