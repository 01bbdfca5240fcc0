/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* atsd's connects by IP (rcm.h's active side): an ATS forward lookup,
 * then librdmacm's steps on rcm's table and event channel, the Annex A11
 * form first and the AF_IB form where the peer's kernel refuses it. */
#ifndef IBATS_RCM_CONNECT_H
#define IBATS_RCM_CONNECT_H

#include <stddef.h>
#include <stdint.h>

#include "rcm.h"

/* Active side, src our address in the A11 private data, dst looked up in
 * pkey's partition and connected to at its record's P_Key; each step is
 * bounded by timeout_ms. */
int rcm_connect(struct rcm *r, const struct ats_ip *dst, uint16_t port, uint16_t pkey,
		uint64_t sid, const struct ats_ip *src, unsigned timeout_ms,
		struct rcm_conn *out, char *err, size_t errlen);

#endif
