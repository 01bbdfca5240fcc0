/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <errno.h>
#include <string.h>

#include "mcm.h"
#include "wire.h"

/* Table 198 offsets. */
enum {
	MCM_OFF_MGID = 0,
	MCM_OFF_PORT_GID = 16,
	MCM_OFF_QKEY = 32,
	MCM_OFF_MLID = 36,
	MCM_OFF_MTU = 38,       /* selector (2) | MTU (6) */
	MCM_OFF_TCLASS = 39,
	MCM_OFF_PKEY = 40,
	MCM_OFF_RATE = 42,      /* selector (2) | rate (6) */
	MCM_OFF_PLT = 43,       /* selector (2) | packet life time (6) */
	MCM_OFF_SL_FLOW_HOP = 44, /* SL (4) | flow label (20) | hop limit (8) */
	MCM_OFF_SCOPE_JOIN = 48,  /* scope (4) | join state (4) */
	MCM_OFF_PROXY = 49,       /* proxy join (1) | reserved */
};

_Static_assert(MCM_OFF_PROXY + 3 == MCM_SIZE, "MCMemberRecord is 52 bytes");

static uint8_t sel6(uint8_t sel, uint8_t v)
{
	return (uint8_t)((sel & 3) << 6 | (v & 0x3f));
}

void mcm_encode(uint8_t *b, const struct mcm_record *m)
{
	memset(b, 0, MCM_SIZE);
	memcpy(b + MCM_OFF_MGID, m->mgid, 16);
	memcpy(b + MCM_OFF_PORT_GID, m->port_gid, 16);
	wire_put32(b + MCM_OFF_QKEY, m->qkey);
	wire_put16(b + MCM_OFF_MLID, m->mlid);
	b[MCM_OFF_MTU] = sel6(m->mtu_sel, m->mtu);
	b[MCM_OFF_TCLASS] = m->tclass;
	wire_put16(b + MCM_OFF_PKEY, m->pkey);
	b[MCM_OFF_RATE] = sel6(m->rate_sel, m->rate);
	b[MCM_OFF_PLT] = sel6(m->plt_sel, m->plt);
	wire_put32(b + MCM_OFF_SL_FLOW_HOP, (uint32_t)(m->sl & 0xf) << 28 |
		   (m->flow_label & 0xfffff) << 8 | m->hop_limit);
	b[MCM_OFF_SCOPE_JOIN] = (uint8_t)((m->scope & 0xf) << 4 | (m->join_state & 0xf));
	b[MCM_OFF_PROXY] = (uint8_t)((m->proxy_join & 1) << 7);
}

int mcm_decode(const uint8_t *b, size_t len, struct mcm_record *m)
{
	uint32_t w;

	if (len < MCM_SIZE)
		return -EMSGSIZE;
	memset(m, 0, sizeof(*m));
	memcpy(m->mgid, b + MCM_OFF_MGID, 16);
	memcpy(m->port_gid, b + MCM_OFF_PORT_GID, 16);
	m->qkey = wire_get32(b + MCM_OFF_QKEY);
	m->mlid = wire_get16(b + MCM_OFF_MLID);
	m->mtu_sel = b[MCM_OFF_MTU] >> 6;
	m->mtu = b[MCM_OFF_MTU] & 0x3f;
	m->tclass = b[MCM_OFF_TCLASS];
	m->pkey = wire_get16(b + MCM_OFF_PKEY);
	m->rate_sel = b[MCM_OFF_RATE] >> 6;
	m->rate = b[MCM_OFF_RATE] & 0x3f;
	m->plt_sel = b[MCM_OFF_PLT] >> 6;
	m->plt = b[MCM_OFF_PLT] & 0x3f;
	w = wire_get32(b + MCM_OFF_SL_FLOW_HOP);
	m->sl = (uint8_t)(w >> 28);
	m->flow_label = (w >> 8) & 0xfffff;
	m->hop_limit = (uint8_t)w;
	m->scope = b[MCM_OFF_SCOPE_JOIN] >> 4;
	m->join_state = b[MCM_OFF_SCOPE_JOIN] & 0xf;
	m->proxy_join = b[MCM_OFF_PROXY] >> 7;
	return 0;
}

unsigned mcm_mtu_bytes(uint8_t code)
{
	return code >= 1 && code <= 5 ? 128u << code : 0;
}
