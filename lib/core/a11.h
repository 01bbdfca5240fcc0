/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* RDMA IP CM Service (IBTA Vol 1 Annex A11): the service IDs of IP port
 * spaces and the private data a REQ carries when connecting by IP with
 * librdmacm over AF_IB. The CM messages themselves are the kernel's
 * (ib_cm), so the product has no codec for them. */
#ifndef IBATS_A11_H
#define IBATS_A11_H

#include <stddef.h>
#include <stdint.h>

#include "ats.h"

/* A port's service ID is (port space << 16) | port: 0x0000000001061389
 * is TCP port 5001. */
#define A11_PS_TCP 0x0106
#define A11_PS_UDP 0x0111
#define A11_PDATA_LEN 36

struct a11_pdata {
	uint8_t version;        /* major << 4 | minor; 0 */
	struct ats_ip src, dst;
	uint16_t src_port;
};

uint64_t a11_service_id(uint16_t ps, uint16_t port);
/* 1 when sid is an IP CM service ID; *ps and *port then filled. */
int a11_service_parse(uint64_t sid, uint16_t *ps, uint16_t *port);
void a11_pdata_encode(uint8_t *pd, const struct a11_pdata *p);
/* -EMSGSIZE: len < A11_PDATA_LEN; -EPROTONOSUPPORT: a major version
 * other than 0; -EINVAL: bad IP version. */
int a11_pdata_decode(const uint8_t *pd, size_t len, struct a11_pdata *p);

#endif
