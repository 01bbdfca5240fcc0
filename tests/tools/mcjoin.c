/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* mcjoin join|leave|member [PKEY]: what the kernel's IPoIB driver does to
 * the IPv4 broadcast group of a partition (RFC 4391 4, MGID
 * ff12:401b:PPPP::ffff:ffff): a FullMember join with the port's GID, a
 * leave, or a read-only membership check. The tests use it to stand in
 * for a kernel membership that atsd must not disturb. Prints the group's
 * MLID, Q_Key and MTU; exit 0 done (or member), 1 refused (or not a
 * member), 2 usage, 3 no port. */
#include <stdio.h>
#include <string.h>

#include "core/ats.h"
#include "core/ipoib.h"
#include "core/mcm.h"
#include "core/mport.h"
#include "core/sa_client.h"

int main(int argc, char **argv)
{
	struct sa_client_opts so = { .timeout_ms = 500, .retries = 3 };
	uint16_t pkey = ATS_PKEY_DEFAULT;
	struct sa_client *sa;
	struct mcm_record m;
	struct mport *port;
	uint8_t mgid[16];
	int ret;

	if (argc < 2 || argc > 3 || (argc == 3 && ats_pkey_parse(argv[2], &pkey)) ||
	    (strcmp(argv[1], "join") && strcmp(argv[1], "leave") && strcmp(argv[1], "member"))) {
		fprintf(stderr, "usage: mcjoin join|leave|member [PKEY]\n");
		return 2;
	}
	if (mport_open(&port, NULL, 0) || sa_client_init(&sa, port, &so)) {
		fprintf(stderr, "mcjoin: no port\n");
		return 3;
	}
	ipoib_bcast_mgid(pkey, mgid);
	memset(&m, 0, sizeof(m));
	if (!strcmp(argv[1], "join"))
		ret = sa_client_mcm_join(sa, mgid, &m);
	else if (!strcmp(argv[1], "leave"))
		ret = sa_client_mcm_leave(sa, mgid);
	else
		ret = sa_client_mcm_member(sa, mgid, &m);
	if (ret) {
		printf("%s: %s (SA status 0x%04x)\n", argv[1], strerror(-ret),
		       sa_client_last_status(sa));
		ret = 1;
	} else {
		if (m.mlid)
			printf("%s: MLID 0x%04x Q_Key 0x%08x MTU %u JoinState 0x%x\n", argv[1],
			       m.mlid, m.qkey, mcm_mtu_bytes(m.mtu), m.join_state);
		else
			printf("%s: done\n", argv[1]);
	}
	sa_client_fini(sa);
	mport_close(port);
	return ret;
}
