/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* ib_umad's registration ioctls: see kioctl.h. */
#include <errno.h>
#include <string.h>

#include "kioctl.h"

int kioctl_reg(const struct simhost_reg_req *q, struct kmad_reg *r, struct simhost_reg_rep *rep)
{
	memset(r, 0, sizeof(*r));
	if (q->op == SIMHOST_REG_AGENT) {
		const struct simhost_reg_v1 *v = &q->u.v1;

		r->qpn = v->qpn;
		r->mgmt_class = v->mgmt_class;
		r->class_version = v->mgmt_class_version;
		r->rmpp_version = v->rmpp_version;
		r->oui = (uint32_t)v->oui[0] << 16 | (uint32_t)v->oui[1] << 8 | v->oui[2];
		/* ib_umad_reg_agent copies the 128-bit mask as it is (the
		 * compat path is for 32-bit processes on 64-bit kernels). */
		memcpy(r->method_mask, v->method_mask, sizeof(r->method_mask));
		return 0;
	}
	if (q->op != SIMHOST_REG_AGENT2)
		return -EINVAL;
	rep->v2 = q->u.v2;
	if (q->u.v2.flags & ~KMAD_USER_RMPP) {
		rep->v2.flags = KMAD_USER_RMPP; /* IB_USER_MAD_REG_FLAGS_CAP */
		return -EINVAL;
	}
	if (q->u.v2.oui & 0xff000000u)
		return -EINVAL;
	r->qpn = q->u.v2.qpn;
	r->mgmt_class = q->u.v2.mgmt_class;
	r->class_version = q->u.v2.mgmt_class_version;
	r->rmpp_version = q->u.v2.rmpp_version;
	r->oui = q->u.v2.oui;
	r->flags = q->u.v2.flags;
	memcpy(r->method_mask, q->u.v2.method_mask, sizeof(r->method_mask));
	return 0;
}
