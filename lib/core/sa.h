/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Subnet Administration MAD header (IBTA Vol 1 15.2.1.1 Table 184) and
 * SA status codes (Table 185). */
#ifndef IBATS_SA_H
#define IBATS_SA_H

#include <stddef.h>
#include <stdint.h>

#include "mad.h"

#define SA_CLASS 0x03
#define SA_CLASS_VERSION 2
#define SA_QP 1
#define SA_QKEY 0x80010000u

enum {
	SA_METHOD_GET = 0x01,
	SA_METHOD_SET = 0x02,
	SA_METHOD_GET_RESP = 0x81,
	SA_METHOD_GET_TABLE = 0x12,
	SA_METHOD_GET_TABLE_RESP = 0x92,
	SA_METHOD_DELETE = 0x15,
	SA_METHOD_DELETE_RESP = 0x95,
	SA_METHOD_REPORT = 0x06,
	SA_METHOD_REPORT_RESP = 0x86,
};

enum {
	SA_ATTR_CLASS_PORT_INFO = 0x0001,
	SA_ATTR_NODE_RECORD = 0x0011,
	SA_ATTR_PORTINFO_RECORD = 0x0012,
	SA_ATTR_PKEY_TABLE_RECORD = 0x0033,
	SA_ATTR_PATH_RECORD = 0x0035,
	SA_ATTR_SERVICE_RECORD = 0x0031,
	SA_ATTR_NOTICE = 0x0002,
	SA_ATTR_INFORM_INFO = 0x0003,
	SA_ATTR_MCMEMBER_RECORD = 0x0038,
};

/* SA header fields after the RMPP header, Table 184. */
enum {
	SA_OFF_SM_KEY = 36,
	SA_OFF_ATTR_OFFSET = 44,
	SA_OFF_RESERVED = 46,
	SA_OFF_COMP_MASK = 48,
	SA_OFF_DATA = 56,
	SA_DATA_SIZE = MAD_SIZE - SA_OFF_DATA,
};

/* Class-specific status in MAD status bits 8..15, Table 185. */
enum sa_status {
	SA_STATUS_SUCCESS = 0,
	SA_STATUS_NO_RESOURCES = 1,
	SA_STATUS_REQ_INVALID = 2,
	SA_STATUS_NO_RECORDS = 3,
	SA_STATUS_TOO_MANY_RECORDS = 4,
	SA_STATUS_INVALID_GID = 5,
	SA_STATUS_INSUF_COMPS = 6,
	SA_STATUS_REQ_DENIED = 7,
};

struct sa_hdr {
	struct mad_hdr mad;
	uint8_t rmpp_version;
	uint8_t rmpp_type;
	uint8_t rmpp_flags; /* low 3 bits of byte 26 */
	uint8_t rmpp_status;
	uint32_t rmpp_data1;
	uint32_t rmpp_data2;
	uint64_t sm_key;
	uint16_t attr_offset; /* record size in 8-byte words */
	uint64_t comp_mask;
};

/* Writes the 56-byte header; the caller fills data from SA_OFF_DATA. */
void sa_hdr_encode(uint8_t *mad, const struct sa_hdr *h);
int sa_hdr_decode(const uint8_t *mad, size_t len, struct sa_hdr *h);

/* Negative errno for a non-zero SA MAD status: the class status wins over
 * the common code. 0 for success. */
int sa_status_to_errno(uint16_t mad_status);
/* Words for a full MAD status as the SA returned it. */
const char *sa_status_str(uint16_t mad_status);

/* Number of whole records in a GetTable answer of payload_len bytes, and
 * whether it was cut: a table longer than one MAD that reached us without
 * RMPP reassembly (an agent without RMPP, a broken RMPP path) ends in a
 * partial record, or is one MAD whose RMPP header says more segments
 * follow, or holds as many records as one MAD can under the header of an
 * SA that trims. */
struct sa_table_shape {
	size_t nrec;
	size_t rec_size;
	int truncated;
};
int sa_table_shape(const struct sa_hdr *h, size_t payload_len,
		   size_t min_rec_size, struct sa_table_shape *shape);

#endif
