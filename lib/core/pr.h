/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* SA PathRecord (IBTA Vol 1 15.2.5.16, Table 205): the query a resolver
 * sends for one path between two GIDs in a partition, and the fields a
 * caller reads back. The 64 bytes are the layout of rdma-core's struct
 * ibv_path_record, which ibacm's answers carry whole. */
#ifndef IBATS_PR_H
#define IBATS_PR_H

#include <stddef.h>
#include <stdint.h>

#define PR_SIZE 64

/* Table 205 offsets. */
enum {
	PR_OFF_SERVICE_ID = 0,
	PR_OFF_DGID = 8,
	PR_OFF_SGID = 24,
	PR_OFF_DLID = 40,
	PR_OFF_SLID = 42,
	PR_OFF_FLOW = 44,       /* RawTraffic:1 rsvd:3 FlowLabel:20 HopLimit:8 */
	PR_OFF_TCLASS = 48,
	PR_OFF_NUMB_PATH = 49,  /* Reversible:1 NumbPath:7 */
	PR_OFF_PKEY = 50,
	PR_OFF_QOS_SL = 52,     /* QosClass:12 SL:4 */
	PR_OFF_MTU = 54,        /* MTUSelector:2 MTU:6 */
	PR_OFF_RATE = 55,       /* RateSelector:2 Rate:6 */
	PR_OFF_LIFE = 56,       /* PacketLifeTimeSelector:2 PacketLifeTime:6 */
	PR_OFF_PREFERENCE = 57,
};

/* Component-mask bits (Table 205; the kernel's IB_SA_PATH_REC_*):
 * ServiceID takes bits 0 and 1. */
enum {
	PR_CM_DGID = 2,
	PR_CM_SGID = 3,
	PR_CM_DLID = 4,
	PR_CM_SLID = 5,
	PR_CM_REVERSIBLE = 11,
	PR_CM_NUMB_PATH = 12,
	PR_CM_PKEY = 13,
};

struct pr_record {
	uint8_t dgid[16], sgid[16];
	uint16_t dlid, slid, pkey;
	uint8_t reversible, numb_path, sl, mtu, rate, life;
	uint32_t flow_label;
	uint8_t hop_limit, tclass;
};

/* The query for one reversible path from sgid to dgid in pkey's
 * partition, as the kernel's and ibacm's resolvers ask it: its record at
 * rec (PR_SIZE bytes), its component mask returned. */
uint64_t pr_query(uint8_t *rec, const uint8_t *sgid, const uint8_t *dgid, uint16_t pkey);
/* -EMSGSIZE when len < PR_SIZE. */
int pr_decode(const uint8_t *rec, size_t len, struct pr_record *r);

#endif
