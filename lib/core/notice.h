/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Event forwarding attributes: InformInfo (IBTA Vol 1 13.4.8.3,
 * Table 159), the subscription a client Sets at the SA, and Notice
 * (13.4.8.2, Table 155), what a trap or an SA Report carries. The data
 * details of traps 64 (GID in service) and 65 (GID out of service) are
 * decoded: the GID (14.2.5.1, Table 261). */
#ifndef IBATS_NOTICE_H
#define IBATS_NOTICE_H

#include <stddef.h>
#include <stdint.h>

#define NOTICE_INFORM_SIZE 36
#define NOTICE_SIZE 80

/* Generic traps the SM issues (14.2.5.1). */
#define NOTICE_TRAP_GID_IN 64
#define NOTICE_TRAP_GID_OUT 65
#define NOTICE_TRAP_MGID_DELETED 67 /* the last trap whose details hold a GID */

/* Wildcards of InformInfo (Table 159): "all" in every filter field. */
#define NOTICE_INFORM_LID_ALL 0xffff
#define NOTICE_INFORM_TYPE_ALL 0xffff
#define NOTICE_INFORM_PRODUCER_ALL 0xffffff

struct notice_inform {
	uint8_t gid[16];           /* 0: all GIDs, then the LID range applies */
	uint16_t lid_begin, lid_end;
	uint8_t is_generic;
	uint8_t subscribe;         /* 1 subscribe, 0 unsubscribe */
	uint16_t type;
	uint16_t trap_or_dev;      /* TrapNumber (generic) or DeviceID */
	uint32_t qpn;              /* 24 bits */
	uint8_t resp_time;         /* 5 bits: 4.096 us * 2^v */
	uint32_t producer_or_vendor; /* 24 bits */
};

struct notice {
	uint8_t is_generic;
	uint8_t type;              /* 7 bits */
	uint32_t producer_or_vendor; /* 24 bits */
	uint16_t trap_or_dev;
	uint16_t issuer_lid;
	uint8_t toggle;            /* 1 bit */
	uint16_t count;            /* 15 bits */
	uint8_t details[54];
	uint8_t issuer_gid[16];
};

void notice_inform_encode(uint8_t *b, const struct notice_inform *ii);
/* -EMSGSIZE when len < NOTICE_INFORM_SIZE. */
int notice_inform_decode(const uint8_t *b, size_t len, struct notice_inform *ii);
/* A generic subscription to one trap number from every source. */
void notice_inform_for_trap(struct notice_inform *ii, uint16_t trap, int subscribe);

void notice_encode(uint8_t *b, const struct notice *n);
int notice_decode(const uint8_t *b, size_t len, struct notice *n);
/* The GID a generic trap 64..67 names: 0, or -EINVAL for another notice. */
int notice_trap_gid(const struct notice *n, uint8_t gid[16]);
/* 1 when the SM issued n itself (IssuerGID's port GUID, Table 155, is
 * sm_port_guid). An SM forwards the traps endports send it as Reports
 * with their own port's GID as IssuerGID (OpenSM: osm_trap_rcv.c), so a
 * root on any host could otherwise report any GID in or out of service. */
int notice_from_sm(const struct notice *n, uint64_t sm_port_guid);
/* A generic trap 64/65 as the SM issues it (tests, tools). */
void notice_gid_trap(struct notice *n, uint16_t trap, uint16_t sm_lid,
		     const uint8_t *sm_gid, const uint8_t *gid);

#endif
