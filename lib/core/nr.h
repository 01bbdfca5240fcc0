/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* SA NodeRecord (IBTA Vol 1 15.2.5.2, Table 193): the LID, the NodeInfo
 * attribute (14.2.5.3, Table 132) and the NodeDescription (Table 133) of
 * one port. The codec; the queries are in sa_client.h. */
#ifndef IBATS_NR_H
#define IBATS_NR_H

#include <stddef.h>
#include <stdint.h>

#define NR_SIZE 108
#define NR_DESC_LEN 64

/* NodeRecord offsets: LID, reserved, then NodeInfo and NodeDescription. */
enum {
	NR_OFF_LID = 0,
	NR_OFF_INFO = 4,
	NR_OFF_BASE_VERSION = NR_OFF_INFO + 0,
	NR_OFF_CLASS_VERSION = NR_OFF_INFO + 1,
	NR_OFF_NODE_TYPE = NR_OFF_INFO + 2,
	NR_OFF_NUM_PORTS = NR_OFF_INFO + 3,
	NR_OFF_SYS_GUID = NR_OFF_INFO + 4,
	NR_OFF_NODE_GUID = NR_OFF_INFO + 12,
	NR_OFF_PORT_GUID = NR_OFF_INFO + 20,
	NR_OFF_PARTITION_CAP = NR_OFF_INFO + 28,
	NR_OFF_DEVICE_ID = NR_OFF_INFO + 30,
	NR_OFF_REVISION = NR_OFF_INFO + 32,
	NR_OFF_LOCAL_PORT = NR_OFF_INFO + 36,
	NR_OFF_VENDOR_ID = NR_OFF_INFO + 37, /* 24 bits */
	NR_OFF_DESC = NR_OFF_INFO + 40,
};

/* Component-mask bits, one per field in order (OpenSM's IB_NR_COMPMASK_*). */
enum {
	NR_CM_LID = 0,
	NR_CM_RESV = 1,
	NR_CM_BASE_VERSION = 2,
	NR_CM_CLASS_VERSION = 3,
	NR_CM_NODE_TYPE = 4,
	NR_CM_NUM_PORTS = 5,
	NR_CM_SYS_GUID = 6,
	NR_CM_NODE_GUID = 7,
	NR_CM_PORT_GUID = 8,
	NR_CM_PARTITION_CAP = 9,
	NR_CM_DEVICE_ID = 10,
	NR_CM_REVISION = 11,
	NR_CM_LOCAL_PORT = 12,
	NR_CM_VENDOR_ID = 13,
	NR_CM_DESC = 14,
};

enum {
	NR_NODE_TYPE_CA = 1,
	NR_NODE_TYPE_SWITCH = 2,
	NR_NODE_TYPE_ROUTER = 3,
};

struct nr_record {
	uint16_t lid;
	uint8_t base_version, class_version, node_type, num_ports;
	uint64_t sys_guid, node_guid, port_guid;
	uint16_t partition_cap, device_id;
	uint32_t revision;
	uint8_t local_port;
	uint32_t vendor_id;
	uint8_t desc[NR_DESC_LEN]; /* as received: NUL-padded, or not at all */
};

void nr_encode(uint8_t *b, const struct nr_record *r);
/* -EMSGSIZE when len < NR_SIZE. */
int nr_decode(const uint8_t *b, size_t len, struct nr_record *r);

#endif
