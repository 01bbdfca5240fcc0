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
/* The same identity where Annex A11 cannot go (a12 below): the A11
 * fields with the IP version in the reserved low nibble, then a tag. */
#define A11_IB_PDATA_LEN 40

struct a11_pdata {
	uint8_t version;        /* major << 4 | minor; 0 */
	struct ats_ip src, dst;
	uint16_t src_port;
	int ib_form;            /* decoded from the AF_IB form */
};

uint64_t a11_service_id(uint16_t ps, uint16_t port);
/* 1 when sid is an IP CM service ID; *ps and *port then filled. */
int a11_service_parse(uint64_t sid, uint16_t *ps, uint16_t *port);
void a11_pdata_encode(uint8_t *pd, const struct a11_pdata *p);
/* The AF_IB form (A11_IB_PDATA_LEN bytes): Linux's rdma_cm reads every
 * REQ's private data as its cma_hdr (cma.c cma_save_ip_info): version
 * 0 with IP version 4 or 6 is an IP request, which the kernel hands to
 * a listener only when the destination is on an IPoIB interface of the
 * port at the path's P_Key (cma_get_net_dev, validate_net_dev), else it
 * answers REJ 28 itself. Version 0 with IP version 0 is an AF_IB
 * request (-EAFNOSUPPORT there), handed to AF_IB listeners whatever the
 * addresses: the IP version moves to the reserved low nibble, and
 * "IBAT" at byte 36 says whose header it is. */
void a11_pdata_encode_ib(uint8_t *pd, const struct a11_pdata *p);
/* Either form (ib_form says which). -EMSGSIZE: len < A11_PDATA_LEN (or
 * an AF_IB form cut short); -EPROTONOSUPPORT: a major version other
 * than 0; -EINVAL: bad IP version, or IP version 0 without the tag. */
int a11_pdata_decode(const uint8_t *pd, size_t len, struct a11_pdata *p);

#endif
