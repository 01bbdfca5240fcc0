/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "a11.h"
#include "wire.h"

uint64_t a11_service_id(uint16_t ps, uint16_t port)
{
	return (uint64_t)ps << 16 | port;
}

int a11_service_parse(uint64_t sid, uint16_t *ps, uint16_t *port)
{
	uint16_t p = (uint16_t)(sid >> 16);

	if (sid >> 32 || (p != A11_PS_TCP && p != A11_PS_UDP))
		return 0;
	*ps = p;
	*port = (uint16_t)sid;
	return 1;
}

/* Annex A11 Table 1: version (1), IP version in the upper nibble (1),
 * source port (2), source IP (16), destination IP (16); IPv4 in the last
 * four bytes of each address field. */
enum {
	IPPD_OFF_VERSION = 0,
	IPPD_OFF_IPVER = 1,
	IPPD_OFF_PORT = 2,
	IPPD_OFF_SRC = 4,
	IPPD_OFF_DST = 20,
	IPPD_OFF_TAG = 36, /* the AF_IB form's */
};
static const uint8_t a11_ib_tag[4] = { 'I', 'B', 'A', 'T' };

void a11_pdata_encode(uint8_t *pd, const struct a11_pdata *p)
{
	memset(pd, 0, A11_PDATA_LEN);
	pd[IPPD_OFF_VERSION] = p->version;
	pd[IPPD_OFF_IPVER] = (uint8_t)((p->src.family == AF_INET ? 4 : 6) << 4);
	wire_put16(pd + IPPD_OFF_PORT, p->src_port);
	ats_ip_encode(&p->src, pd + IPPD_OFF_SRC);
	ats_ip_encode(&p->dst, pd + IPPD_OFF_DST);
}

void a11_pdata_encode_ib(uint8_t *pd, const struct a11_pdata *p)
{
	a11_pdata_encode(pd, p);
	/* cma.c cma_get_ip_ver reads the upper nibble: 0 is not IP */
	pd[IPPD_OFF_IPVER] >>= 4;
	memcpy(pd + IPPD_OFF_TAG, a11_ib_tag, sizeof(a11_ib_tag));
}

int a11_pdata_decode(const uint8_t *pd, size_t len, struct a11_pdata *p)
{
	unsigned ipver;
	int ib = 0;

	memset(p, 0, sizeof(*p));
	if (len < A11_PDATA_LEN)
		return -EMSGSIZE;
	/* Only major version 0 is defined (Annex A11 Table 1): another is a
	 * header this code does not know; a minor one may add fields. */
	if (pd[IPPD_OFF_VERSION] >> 4)
		return -EPROTONOSUPPORT;
	ipver = pd[IPPD_OFF_IPVER] >> 4;
	if (!ipver) {
		if (len < A11_IB_PDATA_LEN)
			return -EMSGSIZE;
		if (memcmp(pd + IPPD_OFF_TAG, a11_ib_tag, sizeof(a11_ib_tag)))
			return -EINVAL;
		ipver = pd[IPPD_OFF_IPVER] & 0x0f;
		ib = 1;
	}
	if (ipver != 4 && ipver != 6)
		return -EINVAL;
	p->ib_form = ib;
	p->version = pd[IPPD_OFF_VERSION];
	p->src_port = wire_get16(pd + IPPD_OFF_PORT);
	p->src.family = p->dst.family = ipver == 4 ? AF_INET : AF_INET6;
	if (ipver == 4) {
		memcpy(p->src.addr, pd + IPPD_OFF_SRC + 12, 4);
		memcpy(p->dst.addr, pd + IPPD_OFF_DST + 12, 4);
	} else {
		memcpy(p->src.addr, pd + IPPD_OFF_SRC, 16);
		memcpy(p->dst.addr, pd + IPPD_OFF_DST, 16);
	}
	return 0;
}
