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
	RMPP_OFF_VERSION = 24,
	RMPP_OFF_TYPE = 25,
	RMPP_OFF_FLAGS = 26, /* RRespTime (5 bits) | RMPPFlags (3 bits) */
	RMPP_OFF_STATUS = 27,
	RMPP_OFF_DATA1 = 28, /* SegmentNumber */
	RMPP_OFF_DATA2 = 32, /* PayloadLength (first/last segment) */
	RMPP_HDR_END = 36,
};

#define RMPP_FLAG_ACTIVE 0x01
#define RMPP_FLAG_FIRST 0x02
#define RMPP_FLAG_LAST 0x04

#define MAD_BASE_VERSION 1
#define MAD_METHOD_GET 0x01
#define MAD_METHOD_SET 0x02
#define MAD_METHOD_RESP_BIT 0x80

/* MAD status, Table 146: bits 2..4 are the common code, bits 8..15 are
 * class specific (the SA status, Table 185). */
#define MAD_STATUS_BUSY 0x0001
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
