/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The MAD responder (see mad_serve.h). Its state belongs to the SA
 * thread, the only one that reads the port. */
#include <errno.h>

#include "mad_serve.h"
#include "core/sa.h"
#include "subs_exec.h"
#include "core/vmad.h"

static struct {
	struct vmad_identity id;
} ms;

static size_t answer(const uint8_t *req, size_t len, uint8_t *resp, size_t cap,
		     void *ctx)
{
	(void)ctx;
	if (len >= MAD_HDR_SIZE && req[MAD_OFF_MGMT_CLASS] == SA_CLASS)
		return subs_exec_answer(req, len, resp, cap);
	return vmad_answer(req, len, &ms.id, vmad_liv_timestamp(), resp, cap);
}

void mad_serve_identity(const struct mport_info *pi)
{
	ms.id.lid = pi->lid;
	ms.id.port_guid = pi->port_guid;
}

int mad_serve_init(struct mport *port, int liveness, int ibping)
{
	struct mport_info pi;
	int ret;

	mport_set_responder(port, answer, NULL);
	if (!liveness && !ibping)
		return 0;
	ms.id.liveness = liveness;
	ms.id.ibping = ibping;
	vmad_host_name(ms.id.host, sizeof(ms.id.host));
	if (!mport_query(port, &pi))
		mad_serve_identity(&pi);
	ret = mport_register_oui(port, VMAD_CLASS_LIVENESS, VMAD_LIVENESS_VERSION, 1,
				 VMAD_OUI_OPENIB, 1);
	if (ret >= 0)
		ret = mport_register_oui(port, VMAD_CLASS_IBPING, 1, 0, VMAD_OUI_OPENIB, 1);
	return ret < 0 ? ret : 0;
}
