/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The ATS side of connecting by IP with librdmacm over AF_IB: the IP CM
 * service ID of a port, the AF_IB address of an IP's holder, the RDMA IP
 * CM Service private data (IBTA Vol 1 Annex A11), and the passive side's
 * check that the requester owns the source address it claims and, with
 * ibats_check_peer_lid, that the GID it claims is the port its REQ came
 * from: the port that holds the REQ's primary local LID (IBTA Vol 1
 * 12.6.5: where the REP and the data go), by the SA's NodeRecord.
 *
 * With AF_IB the kernel's rdma_cm does not write the Annex A11 header:
 * the application sends it as the first IBATS_A11_LEN bytes of its
 * private data and the listener checks it here. The listener's kernel
 * reads it though (cma.c cma_ib_id_from_event): an A11 request reaches
 * a listener only when its destination is on the port's IPoIB interface
 * at the path's P_Key; anywhere else that kernel answers REJ 28 with no
 * private data. ibats_a11_decode also takes atsd's AF_IB form of the
 * same header (core/a11.h), which it sends then. No librdmacm call is
 * made, so the library does not depend on librdmacm. */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "core/a11.h"
#include "core/wire.h"
#include "host/atsd_proto.h"
#include "priv.h"

/* configure: AC_CHECK_HEADERS([infiniband/ib.h]). */
#ifndef HAVE_INFINIBAND_IB_H
/* The kernel's struct sockaddr_ib (rdma_cm user ABI), for hosts without
 * rdma-core's <infiniband/ib.h>. */
#define AF_IB 27
struct sockaddr_ib {
	unsigned short int sib_family;
	uint16_t sib_pkey;
	uint32_t sib_flowinfo;
	union {
		uint8_t sib_raw[16];
		uint64_t align;
	} sib_addr;
	uint64_t sib_sid;
	uint64_t sib_sid_mask;
	uint64_t sib_scope_id;
};
#endif

_Static_assert(IBATS_PS_TCP == A11_PS_TCP && IBATS_PS_UDP == A11_PS_UDP,
	       "one port space numbering");
_Static_assert(IBATS_A11_LEN == A11_PDATA_LEN, "one A11 header length");

/* Annex A11: the IP CM service IDs are 0x0000000001PPpppp, PP the port
 * space (0x06 TCP, 0x11 UDP, 0x3F IB) and pppp the port; rdma_cm's
 * RDMA_IB_IP_PS_TCP etc. are the same numbers. */
IBATS_EXPORT uint64_t ibats_ip_cm_sid(uint16_t port_space, uint16_t port)
{
	return a11_service_id(port_space, port);
}

IBATS_EXPORT int ibats_sockaddr_ib_fill(const struct ibats_record *rec, uint64_t sid,
					struct sockaddr_ib *out)
{
	if (!rec || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->sib_family = AF_IB;
	out->sib_pkey = htobe16(rec->pkey);
	memcpy(out->sib_addr.sib_raw, rec->gid, 16);
	out->sib_sid = htobe64(sid);
	out->sib_sid_mask = htobe64(UINT64_MAX);
	return 0;
}

IBATS_EXPORT int ibats_sockaddr_ib(struct ibats *h, const struct sockaddr *ip,
				   uint16_t port, uint16_t pkey, struct sockaddr_ib *out)
{
	struct ibats_record *recs;
	size_t n;
	int ret;

	if (!out)
		return -EINVAL;
	ret = ibats_resolve_addr(h, ip, pkey, &recs, &n);
	if (ret)
		return ret;
	/* Holders with the address as their primary come first. */
	ret = ibats_sockaddr_ib_fill(&recs[0], ibats_ip_cm_sid(IBATS_PS_TCP, port), out);
	ibats_records_free(recs);
	return ret;
}

IBATS_EXPORT int ibats_a11_encode(const struct sockaddr *src, const struct sockaddr *dst,
				  void *buf, size_t len)
{
	struct a11_pdata p = { .version = 0 };
	struct sockaddr_in6 s6;
	struct sockaddr_in s4;
	int ret;

	if (!buf || !src || !dst)
		return -EINVAL;
	if (len < IBATS_A11_LEN)
		return -ENOSPC;
	ret = ibl_ip_from_sockaddr(src, &p.src);
	if (!ret)
		ret = ibl_ip_from_sockaddr(dst, &p.dst);
	if (ret)
		return ret;
	/* Table 1 has one IP version for both addresses. */
	if (p.src.family != p.dst.family)
		return -EINVAL;
	if (src->sa_family == AF_INET) {
		memcpy(&s4, src, sizeof(s4));
		p.src_port = ntohs(s4.sin_port);
	} else {
		memcpy(&s6, src, sizeof(s6));
		p.src_port = ntohs(s6.sin6_port);
	}
	a11_pdata_encode(buf, &p);
	return IBATS_A11_LEN;
}

/* Reserved bits (the low nibble of the IP version octet, the bytes
 * before an IPv4 address) are ignored on receipt, as rdma_cm does for
 * AF_INET; a major version other than 0 is a header this code does not
 * know. */
IBATS_EXPORT int ibats_a11_decode(const void *buf, size_t len, struct sockaddr_storage *src,
				  struct sockaddr_storage *dst)
{
	struct a11_pdata p;
	int ret;

	if (!buf || !src || !dst)
		return -EINVAL;
	ret = a11_pdata_decode(buf, len, &p);
	if (ret)
		return ret;
	ibl_ip_to_sockaddr(&p.src, p.src_port, src);
	ibl_ip_to_sockaddr(&p.dst, 0, dst);
	return 0;
}

static const char *lookup_words(int err)
{
	switch (-err) {
	case ETIMEDOUT:
		return "the SA did not answer";
	case ENETDOWN:
		return "the port is down or has no SM";
	case ECONNREFUSED:
		return "no atsd and no SA";
	case EINVAL:
		return "bad request";
	case EPROTO:
		return "atsd's answer is garbled";
	case ENOTCONN:
		return "atsd is not reachable";
	default:
		return "lookup failed";
	}
}

int ibl_peer_decide(int lookup, const struct ibats_record *primary,
		    const struct sockaddr *a11_src, char *why, size_t why_len)
{
	char claim[ATS_IP_STRLEN] = "?", have_s[ATS_IP_STRLEN];
	struct ats_ip want, have;
	char dummy[1];
	int ret;

	if (!why) {
		why = dummy;
		why_len = sizeof(dummy);
	}
	if (ibl_ip_from_sockaddr(a11_src, &want)) {
		snprintf(why, why_len, "the A11 source is not an IP address");
		return -EINVAL;
	}
	ats_ip_format(&want, claim, sizeof(claim));
	if (lookup == -ENOENT) {
		snprintf(why, why_len, "requester GID has no ATS primary address (claims %s)",
			 claim);
		return -ENOENT;
	}
	if (lookup) {
		snprintf(why, why_len, "cannot read the requester's ATS primary: %s (errno %d)",
			 lookup_words(lookup), -lookup);
		return lookup;
	}
	ret = ibl_ip_from_sockaddr((const struct sockaddr *)&primary->addr, &have);
	if (ret) {
		snprintf(why, why_len, "the requester's ATS primary record holds no address (claims %s)",
			 claim);
		return -EACCES;
	}
	ats_ip_format(&have, have_s, sizeof(have_s));
	if (!ats_ip_equal(&want, &have)) {
		snprintf(why, why_len, "A11 source %s is not the requester's ATS primary %s",
			 claim, have_s);
		return -EACCES;
	}
	snprintf(why, why_len, "A11 source %s is the requester's ATS primary", claim);
	return 0;
}

IBATS_EXPORT int ibats_check_peer(struct ibats *h, const uint8_t req_gid[16],
				  const struct sockaddr *a11_src, char *why, size_t why_len)
{
	struct ibats_record primary;
	int ret;

	if (!h || !req_gid)
		return -EINVAL;
	ret = ibats_primary(h, req_gid, 0, &primary);
	return ibl_peer_decide(ret, &primary, a11_src, why, why_len);
}

int ibl_peer_claim_check(const uint8_t local_gid[16], const uint8_t req_gid[16],
			 uint16_t req_lid, char *why, size_t why_len)
{
	char gid[ATS_IP_STRLEN];

	ats_gid_format(req_gid, gid, sizeof(gid));
	/* A REQ from another subnet comes through a router with the
	 * router's LID as its source (the kernel's cm_process_routed_req):
	 * the LID says nothing of the GID then. */
	if (memcmp(local_gid, req_gid, 8)) {
		snprintf(why, why_len, "requester GID %s is off this subnet: the claim cannot be verified",
			 gid);
		return -EACCES;
	}
	if (!req_lid || req_lid > ATSD_PROTO_LID_UNICAST_MAX) {
		snprintf(why, why_len, "requester LID 0x%04x is not a unicast LID: no port holds it (claims GID %s)",
			 req_lid, gid);
		return -EACCES;
	}
	return 0;
}

int ibl_peer_lid_decide(const uint8_t req_gid[16], uint16_t req_lid, int lookup,
			uint64_t guid, uint16_t base, char *why, size_t why_len)
{
	uint64_t claimed = wire_get64(req_gid + 8);
	char gid[ATS_IP_STRLEN];

	ats_gid_format(req_gid, gid, sizeof(gid));
	if (lookup == -ENOENT) {
		snprintf(why, why_len, "no port holds requester LID 0x%04x (claims GID %s)",
			 req_lid, gid);
		return -EACCES;
	}
	if (lookup) {
		snprintf(why, why_len, "cannot read which port holds LID 0x%04x: %s (errno %d)",
			 req_lid, lookup_words(lookup), -lookup);
		return lookup;
	}
	if (guid != claimed) {
		snprintf(why, why_len, "requester LID 0x%04x is port 0x%016" PRIx64 "'s (base LID 0x%04x), not claimed GID %s's port 0x%016" PRIx64,
			 req_lid, guid, base, gid, claimed);
		return -EACCES;
	}
	snprintf(why, why_len, "requester LID 0x%04x is claimed GID %s's port", req_lid, gid);
	return 0;
}

IBATS_EXPORT int ibats_check_peer_lid(struct ibats *h, const uint8_t req_gid[16],
				      uint16_t req_lid, const struct sockaddr *a11_src,
				      char *why, size_t why_len)
{
	struct ats_ip want;
	uint8_t local[16];
	uint64_t guid = 0;
	uint16_t base = 0;
	char dummy[1];
	int ret;

	if (!h || !req_gid)
		return -EINVAL;
	if (!why) {
		why = dummy;
		why_len = sizeof(dummy);
	}
	if (ibl_ip_from_sockaddr(a11_src, &want)) {
		snprintf(why, why_len, "the A11 source is not an IP address");
		return -EINVAL;
	}
	ret = ibats_port_gid(h, local);
	if (ret) {
		snprintf(why, why_len, "cannot read this port's GID (errno %d)", -ret);
		return ret;
	}
	ret = ibl_peer_claim_check(local, req_gid, req_lid, why, why_len);
	if (ret)
		return ret;
	ret = ibl_lid_owner(h, req_lid, &guid, &base);
	ret = ibl_peer_lid_decide(req_gid, req_lid, ret, guid, base, why, why_len);
	if (ret)
		return ret;
	/* Accepted, why reads as ibats_check_peer's: a listener's log of
	 * what it accepted keeps its words. */
	return ibats_check_peer(h, req_gid, a11_src, why, why_len);
}
