/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <errno.h>
#include <string.h>

#include "ipoib.h"
#include "wire.h"

/* RFC 4391 9.1.1: flags/reserved (1), QPN (3), GID (16). */
enum {
	HW_OFF_FLAGS = 0,
	HW_OFF_QPN = 1,
	HW_OFF_GID = 4,
};

/* Draft 3.3.2: LID (2), capabilities (1), QPN (3), Q_Key (4), GID (16). */
enum {
	DHW_OFF_LID = 0,
	DHW_OFF_CAPS = 2,
	DHW_OFF_QPN = 3,
	DHW_OFF_QKEY = 6,
	DHW_OFF_GID = 10,
};

_Static_assert(HW_OFF_GID + 16 == IPOIB_HWADDR_LEN, "20-byte address");
_Static_assert(DHW_OFF_GID + 16 == IPOIB_DRAFT_HWADDR_LEN, "26-byte draft address");

static void put24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
}

static uint32_t get24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

void ipoib_hwaddr_encode(uint8_t *b, const struct ipoib_hwaddr *a)
{
	b[HW_OFF_FLAGS] = a->flags;
	put24(b + HW_OFF_QPN, a->qpn);
	memcpy(b + HW_OFF_GID, a->gid, 16);
}

int ipoib_hwaddr_decode(const uint8_t *b, size_t len, struct ipoib_hwaddr *a)
{
	if (len != IPOIB_HWADDR_LEN)
		return -EINVAL;
	a->flags = b[HW_OFF_FLAGS];
	a->qpn = get24(b + HW_OFF_QPN);
	memcpy(a->gid, b + HW_OFF_GID, 16);
	return 0;
}

void ipoib_draft_hwaddr_encode(uint8_t *b, const struct ipoib_draft_hwaddr *a)
{
	wire_put16(b + DHW_OFF_LID, a->lid);
	b[DHW_OFF_CAPS] = a->caps;
	put24(b + DHW_OFF_QPN, a->qpn);
	wire_put32(b + DHW_OFF_QKEY, a->qkey);
	memcpy(b + DHW_OFF_GID, a->gid, 16);
}

int ipoib_draft_hwaddr_decode(const uint8_t *b, size_t len,
			      struct ipoib_draft_hwaddr *a)
{
	if (len != IPOIB_DRAFT_HWADDR_LEN)
		return -EINVAL;
	a->lid = wire_get16(b + DHW_OFF_LID);
	a->caps = b[DHW_OFF_CAPS];
	a->qpn = get24(b + DHW_OFF_QPN);
	a->qkey = wire_get32(b + DHW_OFF_QKEY);
	memcpy(a->gid, b + DHW_OFF_GID, 16);
	return 0;
}

void ipoib_bcast_mgid(uint16_t pkey, uint8_t *mgid)
{
	static const uint8_t tmpl[16] = {
		0xff, 0x12, 0x40, 0x1b, 0, 0, 0, 0,
		0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff,
	};

	memcpy(mgid, tmpl, 16);
	wire_put16(mgid + 4, pkey | 0x8000);
}
