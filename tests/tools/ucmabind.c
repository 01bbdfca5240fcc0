/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* ucmabind: the stock librdmacm (rdma-core 44) on a node's rdma_cm
 * device, up to a bound id (simhost/RDMACM.md 1-2): the AF_IB
 * probe librdmacm runs at its first call must succeed, or it refuses
 * every sockaddr_ib; then an id of RDMA_PS_TCP bound to the port's GID
 * and a service ID of the TCP space (as ucmatose -f gid and
 * examples/rdma_ats bind), its device and address as the kernel
 * answered QUERY, a second bind of the same service ID refused
 * (EADDRINUSE), an empty channel's fd not readable and a non-blocking
 * rdma_get_cm_event EAGAIN, raw commands with bad pointers -EFAULT
 * (bad_pointers), then everything destroyed. With PEER (a
 * GID of the subnet): rdma_resolve_addr to it on a new channel, its fd
 * readable through epoll, ADDR_RESOLVED through a blocking
 * rdma_get_cm_event (librdmacm's QUERY(ADDR) on the way names the
 * device, the source GID and the peer), then the fd not readable;
 * then rdma_resolve_route and a blocking rdma_get_cm_event called
 * before the SA answered (parked in the kernel), ROUTE_RESOLVED, the
 * path (librdmacm's QUERY(PATH)) from the GID to PEER, its DLID
 * printed. With -e (and PEER; the node's SA class dropped, as
 * `simhost NODE drop 3 on`): first a short rdma_resolve_route that ends
 * in ROUTE_ERROR, status -ETIMEDOUT (cma.c cma_query_handler passes
 * sa_query.c's timeout status on), "route error -110" printed; then one
 * line read from stdin (the caller lifts the drop) and the retry on the
 * same id (back in ADDR_RESOLVED) resolves as above.
 *
 *   ucmabind [-e] GID [PORT [PEER]]   exit 0: all as said; 1: the failed step named */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/epoll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* rdma_resolve_addr from an unbound id to peer (RDMACM.md 2: AF_IB, no
 * ARP, the event at once), then rdma_resolve_route. */
/* -e: a route query nobody answers, then wait for the caller's go. */
static int route_error(struct rdma_event_channel *ch, struct rdma_cm_id *id)
{
	struct rdma_cm_event *ev;
	char line[16];

	if (rdma_resolve_route(id, 300))
		return fail("rdma_resolve_route (short)");
	if (rdma_get_cm_event(ch, &ev))
		return fail("rdma_get_cm_event (route error)");
	errno = EPROTO;
	if (ev->event != RDMA_CM_EVENT_ROUTE_ERROR || ev->status != -ETIMEDOUT || ev->id != id)
		return fail("the event is ROUTE_ERROR of the id, status -ETIMEDOUT");
	printf("route error %d\n", ev->status);
	fflush(stdout);
	rdma_ack_cm_event(ev);
	errno = EPIPE;
	if (!fgets(line, sizeof(line), stdin))
		return fail("a line on stdin before the retry");
	return 0;
}

static int resolve(const struct in6_addr *gid, const struct in6_addr *peer, unsigned port,
		   int want_error)
{
	struct rdma_event_channel *ch;
	struct epoll_event ee = { .events = EPOLLIN };
	struct rdma_cm_event *ev;
	struct sockaddr_ib dst, *got;
	struct rdma_cm_id *id;
	struct pollfd pf;
	int ep;

	if (!(ch = rdma_create_event_channel()))
		return fail("rdma_create_event_channel (resolve)");
	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
		return fail("rdma_create_id (resolve)");
	sib_of(&dst, peer, port);
	if (rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 2000))
		return fail("rdma_resolve_addr");
	if ((ep = epoll_create1(0)) < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, ch->fd, &ee) < 0)
		return fail("epoll of the channel");
	errno = ETIMEDOUT;
	if (epoll_wait(ep, &ee, 1, 5000) != 1)
		return fail("epoll_wait for ADDR_RESOLVED");
	if (rdma_get_cm_event(ch, &ev))
		return fail("rdma_get_cm_event (blocking)");
	errno = EPROTO;
	if (ev->event != RDMA_CM_EVENT_ADDR_RESOLVED || ev->status || ev->id != id)
		return fail("the event is ADDR_RESOLVED of the id, status 0");
	rdma_ack_cm_event(ev);
	errno = ENODEV;
	if (!id->verbs || id->port_num != 1)
		return fail("the resolved id's device and port");
	got = (struct sockaddr_ib *)rdma_get_local_addr(id);
	errno = EPROTO;
	if (got->sib_family != AF_IB || memcmp(&got->sib_addr, gid, 16))
		return fail("the source is the port's GID");
	got = (struct sockaddr_ib *)rdma_get_peer_addr(id);
	if (got->sib_family != AF_IB || memcmp(&got->sib_addr, peer, 16))
		return fail("the destination is the peer's GID");
	/* The doorbell was consumed with the event: not readable now. */
	pf.fd = ch->fd;
	pf.events = POLLIN;
	if (poll(&pf, 1, 0) != 0)
		return fail("poll after the event");
	/* rdma_resolve_route (no ibacm on a node: the kernel's SA query),
	 * then at once a blocking get: it waits in the kernel before its
	 * event exists, until the SA answers. */
	if (want_error && route_error(ch, id))
		return 1;
	if (rdma_resolve_route(id, 2000))
		return fail("rdma_resolve_route");
	if (rdma_get_cm_event(ch, &ev))
		return fail("rdma_get_cm_event (blocking, before the route)");
	errno = ev->status < 0 ? -ev->status : EPROTO;
	if (ev->event != RDMA_CM_EVENT_ROUTE_RESOLVED || ev->status || ev->id != id)
		return fail("the event is ROUTE_RESOLVED of the id, status 0");
	rdma_ack_cm_event(ev);
	/* librdmacm's QUERY(PATH) on the way filled the route. */
	errno = ENOENT;
	if (id->route.num_paths != 1 || !id->route.path_rec)
		return fail("the route has one path");
	errno = EPROTO;
	if (memcmp(&id->route.path_rec->sgid, gid, 16) ||
	    memcmp(&id->route.path_rec->dgid, peer, 16))
		return fail("the path's SGID and DGID");
	close(ep);
	printf("resolved dlid %u\n", be16toh(id->route.path_rec->dlid));
	if (rdma_destroy_id(id))
		return fail("rdma_destroy_id (resolve)");
	rdma_destroy_event_channel(ch);
	return 0;
}

/* One raw command on the channel's fd (struct rdma_ucm_cmd_hdr, then
 * the command at <rdma/rdma_user_cm.h>'s offsets; that header clashes
 * with <rdma/rdma_cma.h>): write()'s result. */
static ssize_t raw(int fd, uint32_t cmd, uint16_t out, const void *body, uint16_t in)
{
	uint8_t b[8 + 64];

	memcpy(b, &cmd, 4);
	memcpy(b + 4, &in, 2);
	memcpy(b + 6, &out, 2);
	memcpy(b + 8, body, in);
	return write(fd, b, 8u + in);
}

/* A process's bad pointers: ucma.c's copy_from_user/copy_to_user make
 * them -EFAULT; the process does not fault. CREATE_ID (0) answering
 * into a good buffer, then into address 8; SET_OPTION (14) REUSEADDR
 * whose optval is address 8; QUERY (19) answering to address 8;
 * MIGRATE_ID (18) from a closed fd: -ENOENT (fdget). */
static int bad_pointers(int fd)
{
	uint8_t c[24] = { 0 }, q[16] = { 0 }, o[24] = { 0 };
	uint64_t bad = 8, good;
	uint32_t h = UINT32_MAX, four = 4, one = 1, closed;
	uint16_t ps = RDMA_PS_TCP;

	good = (uintptr_t)&h;
	memcpy(c + 8, &good, 8);
	memcpy(c + 16, &ps, 2);
	if (raw(fd, 0, 4, c, 24) != 32 || h == UINT32_MAX)
		return fail("raw CREATE_ID");
	memcpy(c + 8, &bad, 8);
	errno = 0;
	if (raw(fd, 0, 4, c, 24) != -1 || errno != EFAULT)
		return fail("CREATE_ID answering to address 8 (want EFAULT)");
	memcpy(o, &bad, 8);
	memcpy(o + 8, &h, 4);
	memcpy(o + 16, &one, 4); /* RDMA_OPTION_ID_REUSEADDR */
	memcpy(o + 20, &four, 4);
	errno = 0;
	if (raw(fd, 14, 0, o, 24) != -1 || errno != EFAULT)
		return fail("SET_OPTION with optval 8 (want EFAULT)");
	memcpy(q, &bad, 8);
	memcpy(q + 8, &h, 4);
	errno = 0;
	if (raw(fd, 19, 280, q, 16) != -1 || errno != EFAULT)
		return fail("QUERY answering to address 8 (want EFAULT)");
	if ((int)(closed = (uint32_t)dup(fd)) < 0 || close((int)closed))
		return fail("dup and close a fd");
	memcpy(q + 12, &closed, 4);
	errno = 0;
	if (raw(fd, 18, 4, q, 16) != -1 || errno != ENOENT)
		return fail("MIGRATE_ID from a closed fd (want ENOENT)");
	memset(q, 0, 8);
	memcpy(q, &good, 8);
	if (raw(fd, 1, 4, q, 16) != 24)
		return fail("raw DESTROY_ID");
	return 0;
}

int main(int argc, char **argv)
{
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id, *id2;
	struct rdma_cm_event *ev;
	struct sockaddr_ib sib, *got;
	struct in6_addr gid, peer;
	struct pollfd pf;
	int want_error = argc > 1 && !strcmp(argv[1], "-e");
	unsigned port;

	argc -= want_error;
	argv += want_error;
	port = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 0) : 7471;
	if ((want_error && argc != 4) || argc < 2 || argc > 4 ||
	    inet_pton(AF_INET6, argv[1], &gid) != 1 || !port ||
	    port > 0xffff || (argc > 3 && inet_pton(AF_INET6, argv[3], &peer) != 1)) {
		fprintf(stderr, "usage: ucmabind [-e] GID [PORT [PEER]]\n");
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
	if (bad_pointers(ch->fd))
		return 1;
	if (rdma_destroy_id(id2) || rdma_destroy_id(id))
		return fail("rdma_destroy_id");
	rdma_destroy_event_channel(ch);
	printf("bound 0x%016llx\n", (unsigned long long)be64toh(sib.sib_sid));
	return argc > 3 ? resolve(&gid, &peer, port, want_error) : 0;
}
