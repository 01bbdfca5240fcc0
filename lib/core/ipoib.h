/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* IPoIB address formats: the RFC 4391 link-layer address (20 bytes), the
 * hardware address of the IETF draft "IPv4 and ARP over InfiniBand
 * networks" (2001, 26 bytes), and the IPv4 broadcast group's MGID. */
#ifndef IBATS_IPOIB_H
#define IBATS_IPOIB_H

#include <stddef.h>
#include <stdint.h>

#define IPOIB_HWADDR_LEN 20
#define IPOIB_DRAFT_HWADDR_LEN 26
#define IPOIB_FLAG_CM 0x80      /* Linux: peer speaks connected mode */
#define IPOIB_QPN_BROADCAST 0xFFFFFF

struct ipoib_hwaddr {
	uint8_t flags;          /* RFC 4391: reserved; Linux: connected mode */
	uint32_t qpn;           /* 24 bits */
	uint8_t gid[16];
};

/* Draft hardware address ("IPv4 and ARP over InfiniBand", 3.3.2): LID, capability flags, QPN,
 * Q_Key, GID. */
enum {
	IPOIB_CAP_UC = 0x80,
	IPOIB_CAP_RC = 0x40,
	IPOIB_CAP_RE = 0x20,
	IPOIB_CAP_R6 = 0x10,
	IPOIB_CAP_QPN = 0x08,
};

struct ipoib_draft_hwaddr {
	uint16_t lid;
	uint8_t caps;
	uint32_t qpn;
	uint32_t qkey;
	uint8_t gid[16];
};

void ipoib_hwaddr_encode(uint8_t *b, const struct ipoib_hwaddr *a);
int ipoib_hwaddr_decode(const uint8_t *b, size_t len, struct ipoib_hwaddr *a);
void ipoib_draft_hwaddr_encode(uint8_t *b, const struct ipoib_draft_hwaddr *a);
int ipoib_draft_hwaddr_decode(const uint8_t *b, size_t len,
			      struct ipoib_draft_hwaddr *a);

/* ff12:401b:PPPP::ffff:ffff, PKey with the full-member bit (RFC 4391 4). */
void ipoib_bcast_mgid(uint16_t pkey, uint8_t *mgid);

#endif
