/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* vmadtool LID TYPE [VERSION]: send one raw liveness request (vendor class
 * 0x34) of any type and print the answer's MAD status and type, for tests
 * of answers atsctl ping never provokes. Exit 0 answered, 1 no answer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mport.h"
#include "core/sa.h"
#include "core/vmad.h"

int main(int argc, char **argv)
{
	struct mport_rpc_opts ro = { 500, 1, 0, 0 };
	uint8_t req[MAD_SIZE], *resp = NULL;
	struct mport_dest dst = { 0, SA_QP, SA_QKEY, 0 };
	struct mport *port;
	struct vmad_liv_reply r;
	size_t len = 0;
	int agent;

	if (argc < 3 || argc > 4)
		return 2;
	dst.lid = (uint16_t)strtoul(argv[1], NULL, 0);
	if (mport_open(&port, NULL, 0))
		return 3;
	agent = mport_register_oui(port, VMAD_CLASS_LIVENESS, VMAD_LIVENESS_VERSION, 1,
				   VMAD_OUI_OPENIB, 0);
	if (agent < 0)
		return 3;
	vmad_liv_build(req, sizeof(req), VMAD_LIV_ECHO_REQ, 1, 1, NULL, 0, 0);
	req[VMAD_LIV_OFF_TYPE] = (uint8_t)strtoul(argv[2], NULL, 0);
	if (argc == 4)
		req[MAD_OFF_CLASS_VERSION] = (uint8_t)strtoul(argv[3], NULL, 0);
	if (mport_rpc(port, agent, &dst, req, sizeof(req), &ro, &resp, &len) ||
	    vmad_liv_parse(resp, len, &r)) {
		printf("no answer\n");
		free(resp);
		mport_close(port);
		return 1;
	}
	printf("status 0x%04x type %u\n", r.status, r.type);
	free(resp);
	mport_close(port);
	return 0;
}
