/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* SA MCMemberRecord (IBTA Vol 1 15.2.5.17, Table 198): the codec. The
 * joins and leaves an IPoIB interface needs are SA requests (sa_client.h). */
#ifndef IBATS_MCM_H
#define IBATS_MCM_H

#include <stddef.h>
#include <stdint.h>


#define MCM_SIZE 52

enum {
	MCM_CM_MGID = 0,
	MCM_CM_PORT_GID = 1,
	MCM_CM_QKEY = 2,
	MCM_CM_MLID = 3,
	MCM_CM_MTU_SEL = 4,
	MCM_CM_MTU = 5,
	MCM_CM_TCLASS = 6,
	MCM_CM_PKEY = 7,
	MCM_CM_RATE_SEL = 8,
	MCM_CM_RATE = 9,
	MCM_CM_PLT_SEL = 10,
	MCM_CM_PLT = 11,
	MCM_CM_SL = 12,
	MCM_CM_FLOW = 13,
	MCM_CM_HOP = 14,
	MCM_CM_SCOPE = 15,
	MCM_CM_JOIN_STATE = 16,
	MCM_CM_PROXY = 17,
};

#define MCM_JOIN_FULL 0x1

struct mcm_record {
	uint8_t mgid[16];
	uint8_t port_gid[16];
	uint32_t qkey;
	uint16_t mlid;
	uint8_t mtu_sel, mtu;       /* MTU: 1 256 .. 5 4096 */
	uint8_t tclass;
	uint16_t pkey;
	uint8_t rate_sel, rate;
	uint8_t plt_sel, plt;
	uint8_t sl;
	uint32_t flow_label;
	uint8_t hop_limit;
	uint8_t scope, join_state;
	uint8_t proxy_join;
};

void mcm_encode(uint8_t *b, const struct mcm_record *m);
int mcm_decode(const uint8_t *b, size_t len, struct mcm_record *m);

/* Bytes of an IB MTU code (1..5), 0 when unknown. */
unsigned mcm_mtu_bytes(uint8_t code);

#endif
