/* ucmabind: the stock librdmacm (rdma-core 44) on a node's rdma_cm
 * device, up to a bound id (tests/simhost/RDMACM.md 1-2): the AF_IB
 * probe librdmacm runs at its first call must succeed, or it refuses
 * every sockaddr_ib; then an id of RDMA_PS_TCP bound to the port's GID
 * and a service ID of the TCP space (as ucmatose -f gid and
 * examples/rdma_ats bind), its device and address as the kernel
 * answered QUERY, a second bind of the same service ID refused
 * (EADDRINUSE), an empty channel's fd not readable and a non-blocking
 * rdma_get_cm_event EAGAIN, then everything destroyed.
 *
 *   ucmabind GID [PORT]    exit 0: all as said; 1: the failed step named */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/ib.h>
#include <rdma/rdma_cma.h>

static int fail(const char *step)
{
	fprintf(stderr, "ucmabind: %s: %s\n", step, strerror(errno));
	return 1;
}

static void sib_of(struct sockaddr_ib *sib, const struct in6_addr *gid, unsigned port)
{
	memset(sib, 0, sizeof(*sib));
	sib->sib_family = AF_IB;
	sib->sib_pkey = htons(0xffff);
	memcpy(&sib->sib_addr, gid, 16);
	sib->sib_sid = htobe64(RDMA_IB_IP_PS_TCP | port);
	sib->sib_sid_mask = htobe64(RDMA_IB_IP_PS_MASK | RDMA_IB_IP_PORT_MASK);
}

int main(int argc, char **argv)
{
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id, *id2;
	struct rdma_cm_event *ev;
	struct sockaddr_ib sib, *got;
	struct in6_addr gid;
	struct pollfd pf;
	unsigned port = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 0) : 7471;

	if (argc < 2 || argc > 3 || inet_pton(AF_INET6, argv[1], &gid) != 1 || !port ||
	    port > 0xffff) {
		fprintf(stderr, "usage: ucmabind GID [PORT]\n");
		return 2;
	}
	if (!(ch = rdma_create_event_channel()))
		return fail("rdma_create_event_channel");
	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
		return fail("rdma_create_id");
	sib_of(&sib, &gid, port);
	if (rdma_bind_addr(id, (struct sockaddr *)&sib))
		return fail("rdma_bind_addr AF_IB");
	/* QUERY(ADDR) named the device: librdmacm opened it. */
	errno = ENODEV;
	if (!id->verbs || id->port_num != 1)
		return fail("the bound id's device and port");
	got = (struct sockaddr_ib *)rdma_get_local_addr(id);
	errno = EPROTO;
	if (got->sib_family != AF_IB || memcmp(&got->sib_addr, &gid, 16) ||
	    got->sib_sid != sib.sib_sid || rdma_get_src_port(id) != htons((uint16_t)port))
		return fail("rdma_get_local_addr");
	if (rdma_create_id(ch, &id2, NULL, RDMA_PS_TCP))
		return fail("rdma_create_id (second)");
	if (!rdma_bind_addr(id2, (struct sockaddr *)&sib) || errno != EADDRINUSE) {
		errno = errno ? errno : EEXIST;
		return fail("a second bind of the service ID (want EADDRINUSE)");
	}
	pf.fd = ch->fd;
	pf.events = POLLIN;
	errno = EPROTO;
	if (poll(&pf, 1, 0) != 0)
		return fail("poll of the empty channel");
	if (fcntl(ch->fd, F_SETFL, fcntl(ch->fd, F_GETFL) | O_NONBLOCK) < 0)
		return fail("fcntl O_NONBLOCK");
	if (!rdma_get_cm_event(ch, &ev) || errno != EAGAIN) {
		errno = errno ? errno : EPROTO;
		return fail("rdma_get_cm_event on an empty channel (want EAGAIN)");
	}
	if (rdma_destroy_id(id2) || rdma_destroy_id(id))
		return fail("rdma_destroy_id");
	rdma_destroy_event_channel(ch);
	printf("bound 0x%016llx\n", (unsigned long long)be64toh(sib.sib_sid));
	return 0;
}
