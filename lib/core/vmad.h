/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Vendor MADs of the OpenIB OUI: end-port liveness (class 0x34, "InfiniBand
 * EndPort Liveness and Responsiveness", 2005) and infiniband-diags ibping
 * (class 0x32). Vendor range 2 layout, IBTA
 * Vol 1 13.4.2 / Table 149: RMPP header at 24, OUI at 37..39, data from 40. */
#ifndef IBATS_VMAD_H
#define IBATS_VMAD_H

#include <stddef.h>
#include <stdint.h>

#include "mad.h"

#define VMAD_OUI_OPENIB 0x001405u
#define VMAD_CLASS_IBPING 0x32
#define VMAD_CLASS_LIVENESS 0x34
#define VMAD_LIVENESS_VERSION 1

enum {
	VMAD_OFF_RESV = 36,
	VMAD_OFF_OUI = 37,
	VMAD_OFF_DATA = 40,
	VMAD_DATA_SIZE = MAD_SIZE - VMAD_OFF_DATA,
};

/* Liveness payload ("EndPort Liveness and Responsiveness"). */
enum {
	VMAD_LIV_OFF_TYPE = 40,
	VMAD_LIV_OFF_ID = 44,
	VMAD_LIV_OFF_SEQ = 46,
	VMAD_LIV_OFF_DATA = 48,
	VMAD_LIV_OFF_TS_ORIG = 48,
	VMAD_LIV_OFF_TS_RECV = 52,
	VMAD_LIV_OFF_TS_XMIT = 56,
	VMAD_LIV_OFF_LID = 48,
	VMAD_LIV_OFF_GUID = 50,
	VMAD_LIV_ECHO_MAX = MAD_SIZE - VMAD_LIV_OFF_DATA, /* 208 in one MAD */
	VMAD_LIV_ECHO_RMPP_MAX = 8192,               /* RMPP (real hardware) */
};

enum vmad_liv_type {
	VMAD_LIV_ECHO_REQ = 1,
	VMAD_LIV_ECHO_RESP = 2,
	VMAD_LIV_TS_REQ = 3,
	VMAD_LIV_TS_RESP = 4,
	VMAD_LIV_INFO_REQ = 5,
	VMAD_LIV_INFO_RESP = 6,
};

/* High bit of a timestamp: not milliseconds since midnight UT. */
#define VMAD_LIV_TS_NONSTANDARD 0x80000000u

/* MAD status codes used in answers (Table 146, bits 2..4). */
#define VMAD_STATUS_BAD_VERSION 0x0004
#define VMAD_STATUS_BAD_METHOD 0x0008
#define VMAD_STATUS_BAD_ATTR 0x001C

struct vmad_identity {
	uint16_t lid;
	uint64_t port_guid;
	char host[VMAD_DATA_SIZE]; /* ibping's answer: host.domain */
	int liveness;              /* answer class 0x34 */
	int ibping;                /* answer class 0x32 */
};

uint32_t vmad_get_oui(const uint8_t *mad);
void vmad_put_oui(uint8_t *mad, uint32_t oui);

/* The header every vendor MAD of ours starts with (liveness, the SMs'
 * replication, the SM query), in mad[0..VMAD_OFF_DATA): Table 145's
 * common header (base version 1, status 0), an inactive RMPP header
 * (Table 168), a reserved byte and the OpenIB OUI (Table 149); the class
 * data zeroed to MAD_SIZE. An RMPP transfer sets its RMPP header after. */
void vmad_hdr_encode(uint8_t *mad, uint8_t mgmt_class, uint8_t class_version, uint8_t method,
		     uint64_t tid, uint16_t attr_id, uint32_t attr_mod);
/* A whole MAD (len >= MAD_SIZE, else -EMSGSIZE) of base version 1, the
 * OpenIB OUI and this class, class version and method (else -EPROTO);
 * h gets its common header either way when long enough. */
int vmad_hdr_check(const uint8_t *mad, size_t len, uint8_t mgmt_class, uint8_t class_version,
		   uint8_t method, struct mad_hdr *h);
/* The answer to req[0..len): a copy of it (TID, class, attribute, OUI,
 * class data) made a GetResp of this status, with no RMPP header. */
void vmad_respond(uint8_t *resp, const uint8_t *req, size_t len, uint16_t status);

/* Build a liveness request in mad[0..cap). Echo carries data[0..len);
 * beyond one MAD the request is an RMPP transfer (RMPP header active, the
 * kernel segments it). Returns its length (at least MAD_SIZE) or -errno. */
int vmad_liv_build(uint8_t *mad, size_t cap, enum vmad_liv_type type, uint16_t id,
	      uint16_t seq, const uint8_t *data, size_t len, uint32_t now_ts);

/* "host.domain" as infiniband-diags' ibping server answers. */
void vmad_host_name(char *buf, size_t len);

/* Milliseconds since midnight UT now (the liveness document's "standard value"). */
uint32_t vmad_liv_timestamp(void);

/* Answer a request addressed to us into resp[0..cap). Returns the
 * answer's length (a whole MAD, or as long as an RMPP echo request), or 0
 * when the MAD is not a request of a class we serve (not ours to answer,
 * or a response). */
size_t vmad_answer(const uint8_t *req, size_t len, const struct vmad_identity *id,
		   uint32_t now_ts, uint8_t *resp, size_t cap);

/* A parsed liveness answer. */
struct vmad_liv_reply {
	uint16_t status;
	uint8_t type;
	uint16_t id, seq;
	uint32_t ts_orig, ts_recv, ts_xmit;
	uint16_t lid;
	uint64_t port_guid;
};
int vmad_liv_parse(const uint8_t *mad, size_t len, struct vmad_liv_reply *r);
/* Whether resp[0..len) answers our request of this type and sequence:
 * status 0, the response type, and an echo's data[0..size) back whole.
 * 0; -EBADMSG when only the echo's data differ (or come back short);
 * -EPROTO for any other mismatch. r holds what parsed. */
int vmad_liv_check(const uint8_t *resp, size_t len, enum vmad_liv_type type, uint16_t seq,
	      const uint8_t *data, size_t size, struct vmad_liv_reply *r);

#endif
