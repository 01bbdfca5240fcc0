/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <errno.h>
#include <string.h>

#include "nr.h"
#include "wire.h"

_Static_assert(NR_OFF_DESC + NR_DESC_LEN == NR_SIZE, "NodeRecord is 108 bytes");

void nr_encode(uint8_t *b, const struct nr_record *r)
{
	memset(b, 0, NR_SIZE);
	wire_put16(b + NR_OFF_LID, r->lid);
	b[NR_OFF_BASE_VERSION] = r->base_version;
	b[NR_OFF_CLASS_VERSION] = r->class_version;
	b[NR_OFF_NODE_TYPE] = r->node_type;
	b[NR_OFF_NUM_PORTS] = r->num_ports;
	wire_put64(b + NR_OFF_SYS_GUID, r->sys_guid);
	wire_put64(b + NR_OFF_NODE_GUID, r->node_guid);
	wire_put64(b + NR_OFF_PORT_GUID, r->port_guid);
	wire_put16(b + NR_OFF_PARTITION_CAP, r->partition_cap);
	wire_put16(b + NR_OFF_DEVICE_ID, r->device_id);
	wire_put32(b + NR_OFF_REVISION, r->revision);
	/* LocalPortNum and the 24-bit VendorID share one word. */
	wire_put32(b + NR_OFF_LOCAL_PORT, (uint32_t)r->local_port << 24 | (r->vendor_id & 0xffffff));
	memcpy(b + NR_OFF_DESC, r->desc, NR_DESC_LEN);
}

int nr_decode(const uint8_t *b, size_t len, struct nr_record *r)
{
	uint32_t w;

	if (len < NR_SIZE)
		return -EMSGSIZE;
	memset(r, 0, sizeof(*r));
	r->lid = wire_get16(b + NR_OFF_LID);
	r->base_version = b[NR_OFF_BASE_VERSION];
	r->class_version = b[NR_OFF_CLASS_VERSION];
	r->node_type = b[NR_OFF_NODE_TYPE];
	r->num_ports = b[NR_OFF_NUM_PORTS];
	r->sys_guid = wire_get64(b + NR_OFF_SYS_GUID);
	r->node_guid = wire_get64(b + NR_OFF_NODE_GUID);
	r->port_guid = wire_get64(b + NR_OFF_PORT_GUID);
	r->partition_cap = wire_get16(b + NR_OFF_PARTITION_CAP);
	r->device_id = wire_get16(b + NR_OFF_DEVICE_ID);
	r->revision = wire_get32(b + NR_OFF_REVISION);
	w = wire_get32(b + NR_OFF_LOCAL_PORT);
	r->local_port = (uint8_t)(w >> 24);
	r->vendor_id = w & 0xffffff;
	memcpy(r->desc, b + NR_OFF_DESC, NR_DESC_LEN);
	return 0;
}
