/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <errno.h>
#include <string.h>

#include "notice.h"
#include "wire.h"

/* InformInfo, IBTA Vol 1 Table 159. */
enum {
	II_OFF_GID = 0,
	II_OFF_LID_BEGIN = 16,
	II_OFF_LID_END = 18,
	II_OFF_RESERVED = 20,
	II_OFF_IS_GENERIC = 22,
	II_OFF_SUBSCRIBE = 23,
	II_OFF_TYPE = 24,
	II_OFF_TRAP = 26,         /* TrapNumber or DeviceID */
	II_OFF_QPN_RESP = 28,     /* QPN (24) | reserved (3) | RespTimeValue (5) */
	II_OFF_PRODUCER = 32,     /* reserved (8) | ProducerType or VendorID (24) */
};

_Static_assert(II_OFF_PRODUCER + 4 == NOTICE_INFORM_SIZE, "InformInfo is 36 bytes");

/* Notice, IBTA Vol 1 Table 155. */
enum {
	NT_OFF_TYPE = 0,          /* IsGeneric (1) | Type (7) */
	NT_OFF_PRODUCER = 1,      /* ProducerType or VendorID (24) */
	NT_OFF_TRAP = 4,          /* TrapNumber or DeviceID */
	NT_OFF_ISSUER_LID = 6,
	NT_OFF_TOGGLE_COUNT = 8,  /* NoticeToggle (1) | NoticeCount (15) */
	NT_OFF_DETAILS = 10,
	NT_OFF_ISSUER_GID = 64,
};

_Static_assert(NT_OFF_ISSUER_GID + 16 == NOTICE_SIZE, "Notice is 80 bytes");
_Static_assert(NT_OFF_ISSUER_GID - NT_OFF_DETAILS == 54, "DataDetails is 54 bytes");

/* Traps 64..67 data details, Table 261: 6 reserved bytes, then the GID. */
#define TRAP64_OFF_GID 6

void notice_inform_encode(uint8_t *b, const struct notice_inform *ii)
{
	memset(b, 0, NOTICE_INFORM_SIZE);
	memcpy(b + II_OFF_GID, ii->gid, 16);
	wire_put16(b + II_OFF_LID_BEGIN, ii->lid_begin);
	wire_put16(b + II_OFF_LID_END, ii->lid_end);
	b[II_OFF_IS_GENERIC] = ii->is_generic;
	b[II_OFF_SUBSCRIBE] = ii->subscribe;
	wire_put16(b + II_OFF_TYPE, ii->type);
	wire_put16(b + II_OFF_TRAP, ii->trap_or_dev);
	wire_put32(b + II_OFF_QPN_RESP, (ii->qpn & 0xffffff) << 8 | (ii->resp_time & 0x1f));
	wire_put32(b + II_OFF_PRODUCER, ii->producer_or_vendor & 0xffffff);
}

int notice_inform_decode(const uint8_t *b, size_t len, struct notice_inform *ii)
{
	uint32_t w;

	if (len < NOTICE_INFORM_SIZE)
		return -EMSGSIZE;
	memset(ii, 0, sizeof(*ii));
	memcpy(ii->gid, b + II_OFF_GID, 16);
	ii->lid_begin = wire_get16(b + II_OFF_LID_BEGIN);
	ii->lid_end = wire_get16(b + II_OFF_LID_END);
	ii->is_generic = b[II_OFF_IS_GENERIC];
	ii->subscribe = b[II_OFF_SUBSCRIBE];
	ii->type = wire_get16(b + II_OFF_TYPE);
	ii->trap_or_dev = wire_get16(b + II_OFF_TRAP);
	w = wire_get32(b + II_OFF_QPN_RESP);
	ii->qpn = w >> 8;
	ii->resp_time = w & 0x1f;
	ii->producer_or_vendor = wire_get32(b + II_OFF_PRODUCER) & 0xffffff;
	return 0;
}

void notice_inform_for_trap(struct notice_inform *ii, uint16_t trap, int subscribe)
{
	memset(ii, 0, sizeof(*ii));
	ii->lid_begin = NOTICE_INFORM_LID_ALL;
	ii->is_generic = 1;
	ii->subscribe = subscribe ? 1 : 0;
	ii->type = NOTICE_INFORM_TYPE_ALL;
	ii->trap_or_dev = trap;
	/* Reports go to QP1 (13.4.8.3); OpenSM matches an unsubscribe on
	 * the QPN it stored, so both carry it. */
	ii->qpn = 1;
	ii->resp_time = 18; /* about 1 s for our ReportResp */
	ii->producer_or_vendor = NOTICE_INFORM_PRODUCER_ALL;
}

void notice_encode(uint8_t *b, const struct notice *n)
{
	memset(b, 0, NOTICE_SIZE);
	wire_put32(b + NT_OFF_TYPE, (uint32_t)(n->is_generic & 1) << 31 |
		   (uint32_t)(n->type & 0x7f) << 24 | (n->producer_or_vendor & 0xffffff));
	wire_put16(b + NT_OFF_TRAP, n->trap_or_dev);
	wire_put16(b + NT_OFF_ISSUER_LID, n->issuer_lid);
	wire_put16(b + NT_OFF_TOGGLE_COUNT, (uint16_t)((n->toggle & 1) << 15 | (n->count & 0x7fff)));
	memcpy(b + NT_OFF_DETAILS, n->details, sizeof(n->details));
	memcpy(b + NT_OFF_ISSUER_GID, n->issuer_gid, 16);
}

int notice_decode(const uint8_t *b, size_t len, struct notice *n)
{
	uint32_t w;
	uint16_t tc;

	if (len < NOTICE_SIZE)
		return -EMSGSIZE;
	memset(n, 0, sizeof(*n));
	w = wire_get32(b + NT_OFF_TYPE);
	n->is_generic = (uint8_t)(w >> 31);
	n->type = (uint8_t)(w >> 24) & 0x7f;
	n->producer_or_vendor = w & 0xffffff;
	n->trap_or_dev = wire_get16(b + NT_OFF_TRAP);
	n->issuer_lid = wire_get16(b + NT_OFF_ISSUER_LID);
	tc = wire_get16(b + NT_OFF_TOGGLE_COUNT);
	n->toggle = (uint8_t)(tc >> 15);
	n->count = tc & 0x7fff;
	memcpy(n->details, b + NT_OFF_DETAILS, sizeof(n->details));
	memcpy(n->issuer_gid, b + NT_OFF_ISSUER_GID, 16);
	return 0;
}

int notice_trap_gid(const struct notice *n, uint8_t gid[16])
{
	if (!n->is_generic || n->trap_or_dev < NOTICE_TRAP_GID_IN ||
	    n->trap_or_dev > NOTICE_TRAP_MGID_DELETED)
		return -EINVAL;
	memcpy(gid, n->details + TRAP64_OFF_GID, 16);
	return 0;
}

int notice_from_sm(const struct notice *n, uint64_t sm_port_guid)
{
	/* The GID's second half is the port GUID (4.1.1). */
	return wire_get64(n->issuer_gid + 8) == sm_port_guid;
}

void notice_gid_trap(struct notice *n, uint16_t trap, uint16_t sm_lid,
		     const uint8_t *sm_gid, const uint8_t *gid)
{
	memset(n, 0, sizeof(*n));
	n->is_generic = 1;
	n->type = 4;                  /* Informational (Table 155) */
	n->producer_or_vendor = 4;    /* Subnet Management */
	n->trap_or_dev = trap;
	n->issuer_lid = sm_lid;
	memcpy(n->details + TRAP64_OFF_GID, gid, 16);
	memcpy(n->issuer_gid, sm_gid, 16);
}
