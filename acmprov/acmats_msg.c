/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <string.h>
#include <sys/socket.h>

#include "acmats_msg.h"
#include "core/pr.h"

_Static_assert(sizeof(struct ibv_path_record) == PR_SIZE, "a PathRecord whole");
_Static_assert(sizeof(struct acm_ep_addr_data) == ACM_MSG_EP_LENGTH, "ibacm's entry");

/* Entries the message carries, at most what its buffer holds. */
static unsigned entries(const struct acm_msg *msg)
{
	unsigned n;

	if (msg->hdr.length < ACM_MSG_HDR_LENGTH)
		return 0;
	n = (unsigned)(msg->hdr.length - ACM_MSG_HDR_LENGTH) / ACM_MSG_EP_LENGTH;
	return n < ACM_MSG_DATA_LENGTH / ACM_MSG_EP_LENGTH ? n : ACM_MSG_DATA_LENGTH / ACM_MSG_EP_LENGTH;
}

uint8_t acmats_msg_question(const struct acm_msg *msg, struct acmats_msg_query *q)
{
	const struct acm_ep_addr_data *d;
	unsigned n = entries(msg);

	memset(q, 0, sizeof(*q));
	if (!n)
		return ACM_STATUS_EINVAL;
	d = &msg->resolve_data[0];
	if (d->type == ACM_EP_INFO_PATH) {
		/* Route-only (acm_svr_resolve_path): entry 0's destination. */
		memcpy(q->dgid, d->info.path.dgid.raw, 16);
		if (!memcmp(q->dgid, (const uint8_t[16]){ 0 }, 16))
			return ACM_STATUS_EDESTADDR;
		q->ask = ACMATS_MSG_ASK_PATH;
		q->nodelay = !!(d->flags & ACM_FLAGS_NODELAY);
		return ACM_STATUS_SUCCESS;
	}
	if (msg->hdr.dst_index >= n)
		return ACM_STATUS_EDESTADDR;
	d = &msg->resolve_data[msg->hdr.dst_index];
	q->nodelay = !!(d->flags & ACM_FLAGS_NODELAY);
	q->ask = ACMATS_MSG_ASK_IP;
	switch (d->type) {
	case ACM_EP_INFO_ADDRESS_IP:
		q->ip.family = AF_INET;
		memcpy(q->ip.addr, d->info.addr, 4);
		return ACM_STATUS_SUCCESS;
	case ACM_EP_INFO_ADDRESS_IP6:
		q->ip.family = AF_INET6;
		memcpy(q->ip.addr, d->info.addr, 16);
		return ACM_STATUS_SUCCESS;
	default:
		/* A name is the hosts file's (acmp), not ATS's. */
		return ACM_STATUS_EDESTTYPE;
	}
}

void acmats_msg_answer(const struct acm_msg *req, uint8_t status, const uint8_t *path,
		       struct acm_msg *out)
{
	memset(out, 0, sizeof(*out));
	out->hdr = req->hdr;
	out->hdr.opcode |= ACM_OP_ACK;
	out->hdr.status = status;
	out->hdr.length = ACM_MSG_HDR_LENGTH;
	memset(out->hdr.data, 0, sizeof(out->hdr.data));
	if (status != ACM_STATUS_SUCCESS || !path)
		return;
	out->hdr.length += ACM_MSG_EP_LENGTH;
	out->resolve_data[0].flags = IBV_PATH_FLAG_GMP | IBV_PATH_FLAG_PRIMARY |
				     IBV_PATH_FLAG_BIDIRECTIONAL;
	out->resolve_data[0].type = ACM_EP_INFO_PATH;
	memcpy(&out->resolve_data[0].info.path, path, PR_SIZE);
	/* ucma_ib_set_connect dereferences the source librdmacm reads here
	 * when it gave none (hdr.src_out). */
	if (req->hdr.src_out && req->hdr.src_index < ACM_MSG_DATA_LENGTH / ACM_MSG_EP_LENGTH) {
		out->hdr.length += ACM_MSG_EP_LENGTH;
		memcpy(&out->resolve_data[1], &req->resolve_data[req->hdr.src_index],
		       ACM_MSG_EP_LENGTH);
	}
}
