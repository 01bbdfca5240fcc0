/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* MAD common header and RMPP header (IBTA Vol 1 13.4.2 Table 145,
 * 13.6.2.1 Table 168). */
#ifndef IBATS_MAD_H
#define IBATS_MAD_H

#include <stddef.h>
#include <stdint.h>

#define MAD_SIZE 256

/* Common MAD header, Table 145. */
enum {
	MAD_OFF_BASE_VERSION = 0,
	MAD_OFF_MGMT_CLASS = 1,
	MAD_OFF_CLASS_VERSION = 2,
	MAD_OFF_METHOD = 3,
	MAD_OFF_STATUS = 4,
	MAD_OFF_CLASS_SPECIFIC = 6,
	MAD_OFF_TID = 8,
	MAD_OFF_ATTR_ID = 16,
	MAD_OFF_ATTR_MOD = 20,
	MAD_HDR_SIZE = 24,
};

/* RMPP header, Table 168; present in SA and vendor range 2 MADs. */
enum {
	MAD_RMPP_OFF_VERSION = 24,
	MAD_RMPP_OFF_TYPE = 25,
	MAD_RMPP_OFF_FLAGS = 26, /* RRespTime (5 bits) | RMPPFlags (3 bits) */
	MAD_RMPP_OFF_STATUS = 27,
	MAD_RMPP_OFF_DATA1 = 28, /* SegmentNumber */
	MAD_RMPP_OFF_DATA2 = 32, /* PayloadLength (first/last segment) */
	MAD_RMPP_HDR_END = 36,
};

#define MAD_RMPP_FLAG_ACTIVE 0x01
#define MAD_RMPP_FLAG_FIRST 0x02
#define MAD_RMPP_FLAG_LAST 0x04
#define MAD_RMPP_FLAGS_MASK 0x07
/* RRespTime is the top 5 bits of MAD_RMPP_OFF_FLAGS; 0x1F: none given. */
#define MAD_RMPP_RESPTIME_NONE 0x1f
#define MAD_RMPP_RESPTIME_SHIFT 3

/* RMPPVersion and RMPPType, 13.6.2.1 Table 168. */
#define MAD_RMPP_VERSION 1
enum {
	MAD_RMPP_TYPE_DATA = 1,
	MAD_RMPP_TYPE_ACK = 2,
	MAD_RMPP_TYPE_STOP = 3,
	MAD_RMPP_TYPE_ABORT = 4,
};

/* RMPPStatus, 13.6.2.1: 1 goes with STOP, 118..127 with ABORT. */
enum {
	MAD_RMPP_STATUS_OK = 0,
	MAD_RMPP_STATUS_RESX = 1,          /* resources exhausted */
	MAD_RMPP_STATUS_ABORT_MIN = 118,
	MAD_RMPP_STATUS_T2L = 118,         /* total time too long */
	MAD_RMPP_STATUS_BAD_LEN = 119,     /* inconsistent Last and PayloadLength */
	MAD_RMPP_STATUS_BAD_SEG = 120,     /* inconsistent First and SegmentNumber */
	MAD_RMPP_STATUS_BADT = 121,        /* bad RMPPType */
	MAD_RMPP_STATUS_W2S = 122,         /* NewWindowLast too small */
	MAD_RMPP_STATUS_S2B = 123,         /* SegmentNumber too big */
	MAD_RMPP_STATUS_BAD_STATUS = 124,  /* illegal status */
	MAD_RMPP_STATUS_UNV = 125,         /* unsupported version */
	MAD_RMPP_STATUS_TMR = 126,         /* too many retries */
	MAD_RMPP_STATUS_UNSPEC = 127,
	MAD_RMPP_STATUS_ABORT_MAX = 127,
};

/* Bytes of payload after the RMPP header in every segment (13.6.2):
 * PayloadLength counts these, the class header included. */
#define MAD_RMPP_SEG_PAYLOAD (MAD_SIZE - MAD_RMPP_HDR_END)

#define MAD_BASE_VERSION 1
#define MAD_METHOD_GET 0x01
#define MAD_METHOD_SET 0x02
#define MAD_METHOD_RESP_BIT 0x80

/* MAD status, Table 146: bits 2..4 are the common code, bits 8..15 are
 * class specific (the SA status, Table 185). */
#define MAD_STATUS_BUSY 0x0001
#define MAD_STATUS_REDIRECT 0x0002 /* redirect required: the data is a ClassPortInfo */
#define MAD_STATUS_CODE(s) (((s) >> 2) & 0x7)
#define MAD_STATUS_CLASS(s) (((s) >> 8) & 0xff)

struct mad_hdr {
	uint8_t base_version;
	uint8_t mgmt_class;
	uint8_t class_version;
	uint8_t method;
	uint16_t status;
	uint16_t class_specific;
	uint64_t tid;
	uint16_t attr_id;
	uint32_t attr_mod;
};

void mad_hdr_encode(uint8_t *mad, const struct mad_hdr *h);
/* Returns -EMSGSIZE when len is shorter than the common header. */
int mad_hdr_decode(const uint8_t *mad, size_t len, struct mad_hdr *h);

/* Text for the common MAD status code (bits 2..4). */
const char *mad_status_str(uint16_t status);

#endif
