/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The simulated node's IP view of its IPoIB interfaces: each one's
 * P_Key, admin state (IFF_UP) and addresses (`ip addr add IP/PREFIX dev
 * NAME`), and the check rdma_cm makes of an IP connection request
 * against them before any listener sees it (Linux
 * drivers/infiniband/core/cma.c cma_ib_id_from_event: cma_save_ip_info,
 * cma_get_net_dev -> ib_get_net_dev_by_params, which is
 * ulp/ipoib/ipoib_main.c ipoib_get_net_dev_by_params, then IFF_UP and
 * validate_net_dev). The node has one network namespace and no routes
 * but its interfaces' own: local addresses and connected prefixes.
 * Pure: kmod keeps it in step with ib_ipoib's interfaces. */
#ifndef IBATS_SIMHOST_KINET_H
#define IBATS_SIMHOST_KINET_H

#include <stddef.h>
#include <stdint.h>

#define KINET_IFS 16
#define KINET_ADDRS 8
#define KINET_PKEYS 32 /* the P_Key table's first block */

struct kinet_addr {
	int family; /* AF_INET, AF_INET6 */
	uint8_t addr[16]; /* IPv4 in the first four bytes */
	uint8_t prefixlen;
};

struct kinet_if {
	int used;
	char name[16];
	uint16_t pkey;
	int up; /* IFF_UP */
	struct kinet_addr addrs[KINET_ADDRS];
	size_t naddrs;
};

struct kinet {
	struct kinet_if ifs[KINET_IFS];
};

void kinet_init(struct kinet *n);
/* An IPoIB interface (up, no address): 0, -EEXIST, -ENOSPC. */
int kinet_if_add(struct kinet *n, const char *name, uint16_t pkey);
/* Gone with its addresses: 0, -ENODEV. */
int kinet_if_del(struct kinet *n, const char *name);
/* `ip link set NAME up|down`: 0, -ENODEV. */
int kinet_link(struct kinet *n, const char *name, int up);
/* "IP/PREFIX" (IPv4 or IPv6; no prefix: a host route's): 0, -EINVAL. */
int kinet_addr_parse(const char *spec, struct kinet_addr *a);
/* `ip addr add|del IP/PREFIX dev NAME`: 0, -ENODEV (no such interface),
 * -EEXIST (add: the address is there), -EADDRNOTAVAIL (del: it is
 * not), -ENOSPC. */
int kinet_addr(struct kinet *n, const char *name, const struct kinet_addr *a, int add);

/* What cma_ib_id_from_event makes of a REQ's private data (pdata, 92
 * bytes or fewer, zero-padded as the REQ carries it) on a port whose
 * P_Key table is pkeys, for the REQ's primary path's P_Key:
 *   KINET_REQ_IB  not an IP request (cma_hdr's IP version neither 4 nor
 *                 6: -EAFNOSUPPORT, "assuming the protocol is AF_IB");
 *                 only AF_IB listeners may take it;
 *   KINET_REQ_IP  an IP request with its IPoIB net device (*ifidx);
 *   -EINVAL       cma_hdr's version is not CMA_VERSION (0);
 *   -ENODEV       no IPoIB interface at the path's P_Key (or none
 *                 unique by the destination address);
 *   -EHOSTUNREACH the interface is down, or the addresses do not pass
 *                 validate_net_dev (the destination is not routed to
 *                 that interface, bad source or destination).
 * Every error is a REJ (ib_cm's, reason 28, no private data). */
#define KINET_REQ_IP 0
#define KINET_REQ_IB 1
int kinet_cma_req(const struct kinet *n, const uint8_t *pdata, size_t len,
		  const uint16_t pkeys[KINET_PKEYS], uint16_t path_pkey, size_t *ifidx);

#endif
