/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <errno.h>
#include <string.h>

#include "mad.h"
#include "wire.h"

void mad_hdr_encode(uint8_t *mad, const struct mad_hdr *h)
{
	mad[MAD_OFF_BASE_VERSION] = h->base_version;
	mad[MAD_OFF_MGMT_CLASS] = h->mgmt_class;
	mad[MAD_OFF_CLASS_VERSION] = h->class_version;
	mad[MAD_OFF_METHOD] = h->method;
	wire_put16(mad + MAD_OFF_STATUS, h->status);
	wire_put16(mad + MAD_OFF_CLASS_SPECIFIC, h->class_specific);
	wire_put64(mad + MAD_OFF_TID, h->tid);
	wire_put16(mad + MAD_OFF_ATTR_ID, h->attr_id);
	memset(mad + MAD_OFF_ATTR_ID + 2, 0, 2);
	wire_put32(mad + MAD_OFF_ATTR_MOD, h->attr_mod);
}

int mad_hdr_decode(const uint8_t *mad, size_t len, struct mad_hdr *h)
{
	if (len < MAD_HDR_SIZE)
		return -EMSGSIZE;
	h->base_version = mad[MAD_OFF_BASE_VERSION];
	h->mgmt_class = mad[MAD_OFF_MGMT_CLASS];
	h->class_version = mad[MAD_OFF_CLASS_VERSION];
	h->method = mad[MAD_OFF_METHOD];
	h->status = wire_get16(mad + MAD_OFF_STATUS);
	h->class_specific = wire_get16(mad + MAD_OFF_CLASS_SPECIFIC);
	h->tid = wire_get64(mad + MAD_OFF_TID);
	h->attr_id = wire_get16(mad + MAD_OFF_ATTR_ID);
	h->attr_mod = wire_get32(mad + MAD_OFF_ATTR_MOD);
	return 0;
}

const char *mad_status_str(uint16_t status)
{
	static const char *const code[8] = {
		"success",
		"bad base or class version",
		"method not supported",
		"method/attribute combination not supported",
		"reserved status 4",
		"reserved status 5",
		"reserved status 6",
		"invalid attribute or attribute modifier value",
	};
	return code[MAD_STATUS_CODE(status)];
}
