/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The simulated node's IPoIB interfaces as IP sees them: see kinet.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kinet.h"
#include "core/wire.h"

/* include/rdma/rdma_cm.h / cma_priv.h struct cma_hdr: cma_version (1),
 * ip_version in the upper nibble (1), port (2), src_addr (16),
 * dst_addr (16); IPv4 in the last four bytes of each (ip4.addr after
 * pad[3]). */
enum {
	KINET_HDR_VERSION = 0,
	KINET_HDR_IPVER = 1,
	KINET_HDR_SRC = 4,
	KINET_HDR_DST = 20,
	KINET_HDR_LEN = 36,
};
#define KINET_CMA_VERSION 0x00

void kinet_init(struct kinet *n)
{
	memset(n, 0, sizeof(*n));
}

static struct kinet_if *kinet_find(struct kinet *n, const char *name)
{
	size_t i;

	for (i = 0; i < KINET_IFS; i++)
		if (n->ifs[i].used && !strcmp(n->ifs[i].name, name))
			return &n->ifs[i];
	return NULL;
}

int kinet_if_add(struct kinet *n, const char *name, uint16_t pkey)
{
	size_t i;

	if (strlen(name) >= sizeof(n->ifs[0].name))
		return -EINVAL;
	if (kinet_find(n, name))
		return -EEXIST;
	for (i = 0; i < KINET_IFS; i++)
		if (!n->ifs[i].used)
			break;
	if (i == KINET_IFS)
		return -ENOSPC;
	memset(&n->ifs[i], 0, sizeof(n->ifs[i]));
	n->ifs[i].used = 1;
	snprintf(n->ifs[i].name, sizeof(n->ifs[i].name), "%s", name);
	n->ifs[i].pkey = pkey;
	n->ifs[i].up = 1;
	return 0;
}

int kinet_if_del(struct kinet *n, const char *name)
{
	struct kinet_if *f = kinet_find(n, name);

	if (!f)
		return -ENODEV;
	memset(f, 0, sizeof(*f));
	return 0;
}

int kinet_link(struct kinet *n, const char *name, int up)
{
	struct kinet_if *f = kinet_find(n, name);

	if (!f)
		return -ENODEV;
	f->up = !!up;
	return 0;
}

int kinet_addr_parse(const char *spec, struct kinet_addr *a)
{
	char ip[64], *end;
	const char *slash = strchr(spec, '/');
	size_t len = slash ? (size_t)(slash - spec) : strlen(spec);
	unsigned long p;
	unsigned max;

	memset(a, 0, sizeof(*a));
	if (!len || len >= sizeof(ip))
		return -EINVAL;
	memcpy(ip, spec, len);
	ip[len] = '\0';
	if (inet_pton(AF_INET, ip, a->addr) == 1)
		a->family = AF_INET;
	else if (inet_pton(AF_INET6, ip, a->addr) == 1)
		a->family = AF_INET6;
	else
		return -EINVAL;
	max = a->family == AF_INET ? 32 : 128;
	p = max;
	if (slash) {
		p = strtoul(slash + 1, &end, 10);
		if (end == slash + 1 || *end || p > max)
			return -EINVAL;
	}
	a->prefixlen = (uint8_t)p;
	return 0;
}

static int kinet_same(const struct kinet_addr *x, const struct kinet_addr *y)
{
	return x->family == y->family && !memcmp(x->addr, y->addr, 16);
}

int kinet_addr(struct kinet *n, const char *name, const struct kinet_addr *a, int add)
{
	struct kinet_if *f = kinet_find(n, name);
	size_t k;

	if (!f)
		return -ENODEV;
	for (k = 0; k < f->naddrs; k++)
		if (kinet_same(&f->addrs[k], a) && f->addrs[k].prefixlen == a->prefixlen)
			break;
	if (add) {
		if (k < f->naddrs)
			return -EEXIST;
		if (f->naddrs == KINET_ADDRS)
			return -ENOSPC;
		f->addrs[f->naddrs++] = *a;
		return 0;
	}
	if (k == f->naddrs)
		return -EADDRNOTAVAIL;
	memmove(&f->addrs[k], &f->addrs[k + 1], (f->naddrs - k - 1) * sizeof(f->addrs[0]));
	f->naddrs--;
	return 0;
}

/* core/cache.c ib_find_cached_pkey: the index of a full member entry of
 * pkey's partition, else of a limited one; -ENOENT when none. */
static int kinet_pkey_index(const uint16_t pkeys[KINET_PKEYS], uint16_t pkey)
{
	int i, partial = -1;

	for (i = 0; i < KINET_PKEYS; i++)
		if (pkeys[i] && (pkeys[i] & 0x7fff) == (pkey & 0x7fff)) {
			if (pkeys[i] & 0x8000)
				return i;
			partial = i;
		}
	return partial >= 0 ? partial : -ENOENT;
}

static int kinet_owns(const struct kinet_if *f, const struct kinet_addr *a)
{
	size_t k;

	for (k = 0; k < f->naddrs; k++)
		if (kinet_same(&f->addrs[k], a))
			return 1;
	return 0;
}

static int kinet_in_prefix(const struct kinet_addr *net, const struct kinet_addr *a)
{
	unsigned bits = net->prefixlen, i;

	if (net->family != a->family)
		return 0;
	for (i = 0; i < bits / 8; i++)
		if (net->addr[i] != a->addr[i])
			return 0;
	if (bits % 8) {
		uint8_t m = (uint8_t)(0xff << (8 - bits % 8));

		if ((net->addr[i] ^ a->addr[i]) & m)
			return 0;
	}
	return 1;
}

/* The interface fib_lookup (IPv4) / rt6_lookup (IPv6) routes dst to:
 * the one holding it as a local address, else the longest connected
 * prefix; only up interfaces have routes (fib_disable_ip on NETDEV_DOWN);
 * -1 when none. only >= 0: link-local IPv6, strict to that interface. */
static int kinet_route(const struct kinet *n, const struct kinet_addr *dst, int only)
{
	int i, best = -1, best_len = -1;
	size_t k;

	for (i = 0; i < KINET_IFS; i++)
		if (n->ifs[i].used && n->ifs[i].up && (only < 0 || i == only) &&
		    kinet_owns(&n->ifs[i], dst))
			return i;
	for (i = 0; i < KINET_IFS; i++) {
		if (!n->ifs[i].used || !n->ifs[i].up || (only >= 0 && i != only))
			continue;
		for (k = 0; k < n->ifs[i].naddrs; k++)
			if (kinet_in_prefix(&n->ifs[i].addrs[k], dst) &&
			    (int)n->ifs[i].addrs[k].prefixlen > best_len) {
				best = i;
				best_len = n->ifs[i].addrs[k].prefixlen;
			}
	}
	return best;
}

/* cma.c validate_ipv4_net_dev's address checks (ipv4_is_multicast,
 * _lbcast, _zeronet, _loopback). */
static int kinet_v4_bad(const uint8_t *a, int src)
{
	uint32_t v = wire_get32(a);

	return (src && (v >> 28) == 0xe) || v == 0xffffffffu || (v >> 24) == 0 ||
	       (v >> 24) == 127;
}

/* cma.c validate_net_dev: the request's destination (this node's
 * address) routed to net_dev from its source. */
static int kinet_validate(const struct kinet *n, size_t ifidx, const struct kinet_addr *dst,
			  const struct kinet_addr *src)
{
	int ll;

	if (dst->family == AF_INET) {
		if (kinet_v4_bad(src->addr, 1) || kinet_v4_bad(dst->addr, 0))
			return 0;
		return kinet_route(n, dst, -1) == (int)ifidx;
	}
	/* rt6_lookup with strict for a link-local destination */
	ll = dst->addr[0] == 0xfe && (dst->addr[1] & 0xc0) == 0x80;
	return kinet_route(n, dst, ll ? (int)ifidx : -1) == (int)ifidx;
}

/* ipoib_main.c ipoib_get_net_dev_by_params: the interfaces at the
 * P_Key's index (ipoib_match_gid_pkey_addr; one port, one GID); one by
 * L2 alone is the answer whatever its addresses, several are told apart
 * by who holds the destination (ipoib_is_dev_match_addr_rcu; the first
 * of duplicates, "duplicate IP address detected"). */
static int kinet_net_dev(const struct kinet *n, const uint16_t pkeys[KINET_PKEYS],
			 uint16_t pkey, const struct kinet_addr *dst, size_t *ifidx)
{
	int want = kinet_pkey_index(pkeys, pkey), l2 = 0, first = -1;
	size_t i;

	if (want < 0)
		return -ENODEV;
	for (i = 0; i < KINET_IFS; i++)
		if (n->ifs[i].used && kinet_pkey_index(pkeys, n->ifs[i].pkey) == want) {
			if (!l2++)
				first = (int)i;
		}
	if (!l2)
		return -ENODEV;
	if (l2 == 1) {
		*ifidx = (size_t)first;
		return 0;
	}
	for (i = 0; i < KINET_IFS; i++)
		if (n->ifs[i].used && kinet_pkey_index(pkeys, n->ifs[i].pkey) == want &&
		    kinet_owns(&n->ifs[i], dst)) {
			*ifidx = i;
			return 0;
		}
	return -ENODEV;
}

int kinet_cma_req(const struct kinet *n, const uint8_t *pdata, size_t len,
		  const uint16_t pkeys[KINET_PKEYS], uint16_t path_pkey, size_t *ifidx)
{
	uint8_t hdr[KINET_HDR_LEN];
	struct kinet_addr src, dst;
	unsigned ipver;
	int ret;

	/* The REQ's private data field is 92 bytes whatever was sent. */
	memset(hdr, 0, sizeof(hdr));
	memcpy(hdr, pdata, len < sizeof(hdr) ? len : sizeof(hdr));
	/* cma_save_ip_info */
	if (hdr[KINET_HDR_VERSION] != KINET_CMA_VERSION)
		return -EINVAL;
	ipver = hdr[KINET_HDR_IPVER] >> 4; /* cma_get_ip_ver */
	if (ipver != 4 && ipver != 6)
		return KINET_REQ_IB;
	memset(&src, 0, sizeof(src));
	memset(&dst, 0, sizeof(dst));
	src.family = dst.family = ipver == 4 ? AF_INET : AF_INET6;
	if (ipver == 4) {
		memcpy(src.addr, hdr + KINET_HDR_SRC + 12, 4);
		memcpy(dst.addr, hdr + KINET_HDR_DST + 12, 4);
	} else {
		memcpy(src.addr, hdr + KINET_HDR_SRC, 16);
		memcpy(dst.addr, hdr + KINET_HDR_DST, 16);
	}
	/* cma_get_net_dev: no ipoib (n NULL) is no net device */
	if (!n)
		return -ENODEV;
	if ((ret = kinet_net_dev(n, pkeys, path_pkey, &dst, ifidx)) < 0)
		return ret;
	/* cma_ib_id_from_event: IFF_UP, then validate_net_dev */
	if (!n->ifs[*ifidx].up || !kinet_validate(n, *ifidx, &dst, &src))
		return -EHOSTUNREACH;
	return KINET_REQ_IP;
}
