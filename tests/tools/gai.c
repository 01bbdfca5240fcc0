/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* gai SRC_IP DST_IP PORT [nodelay]: what a plain rdma_getaddrinfo() caller gets for
 * DST_IP from SRC_IP (active side, TCP port space), as rdma_client and
 * every program written like it asks: one line per answer, "AF_IB dgid
 * GID sid SID pkey P route N" or "AF_INET"/"AF_INET6" (librdmacm fell back
 * to the kernel's IP resolution: no ibacm, or no path from it).
 * nodelay: RAI_NUMERICHOST, which librdmacm sends to ibacm as
 * ACM_FLAGS_NODELAY (acm.c ucma_ib_resolve). */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/ib.h>
#include <rdma/rdma_cma.h>

int main(int argc, char **argv)
{
	struct rdma_addrinfo hints, *res = NULL, *r;
	struct sockaddr_in src;
	char gid[INET6_ADDRSTRLEN];

	if (argc != 4 && (argc != 5 || strcmp(argv[4], "nodelay")))
		return 2;
	memset(&src, 0, sizeof(src));
	src.sin_family = AF_INET;
	if (inet_pton(AF_INET, argv[1], &src.sin_addr) != 1)
		return 2;
	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = RDMA_PS_TCP;
	if (argc == 5)
		hints.ai_flags = RAI_NUMERICHOST;
	hints.ai_src_addr = (struct sockaddr *)&src;
	hints.ai_src_len = sizeof(src);
	if (rdma_getaddrinfo(argv[2], argv[3], &hints, &res)) {
		printf("error %s\n", strerror(errno));
		return 3;
	}
	for (r = res; r; r = r->ai_next) {
		if (r->ai_family == AF_IB) {
			const struct sockaddr_ib *s = (const struct sockaddr_ib *)r->ai_dst_addr;

			inet_ntop(AF_INET6, &s->sib_addr, gid, sizeof(gid));
			printf("AF_IB dgid %s sid 0x%016" PRIx64 " pkey 0x%04x route %zu\n", gid,
			       be64toh(s->sib_sid), be16toh(s->sib_pkey), r->ai_route_len);
		} else {
			printf("%s\n", r->ai_family == AF_INET ? "AF_INET" : "AF_INET6");
		}
	}
	rdma_freeaddrinfo(res);
	return 0;
}
