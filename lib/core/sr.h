/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* SA ServiceRecord (IBTA Vol 1 15.2.5.14, Table 207) and its component
 * mask (Table 208). */
#ifndef IBATS_SR_H
#define IBATS_SR_H

#include <stddef.h>
#include <stdint.h>

#define SR_SIZE 176
#define SR_NAME_LEN 64
/* ServiceLease 0xFFFFFFFF: the record never expires (15.2.5.14). */
#define SR_LEASE_INFINITE 0xFFFFFFFFu

enum {
	SR_OFF_ID = 0,
	SR_OFF_GID = 8,
	SR_OFF_PKEY = 24,
	SR_OFF_RESV = 26,
	SR_OFF_LEASE = 28,
	SR_OFF_KEY = 32,
	SR_OFF_NAME = 48,
	SR_OFF_DATA8 = 112,
	SR_OFF_DATA16 = 128,
	SR_OFF_DATA32 = 144,
	SR_OFF_DATA64 = 160,
};

/* Component-mask bits (Table 208); Data arrays take one bit per element. */
enum {
	SR_CM_ID = 0,
	SR_CM_GID = 1,
	SR_CM_PKEY = 2,
	SR_CM_RESV = 3,
	SR_CM_LEASE = 4,
	SR_CM_KEY = 5,
	SR_CM_NAME = 6,
	SR_CM_DATA8 = 7,   /* 7..22 */
	SR_CM_DATA16 = 23, /* 23..30 */
	SR_CM_DATA32 = 31, /* 31..34 */
	SR_CM_DATA64 = 35, /* 35..36 */
	SR_CM_NBITS = 37,
};

/* Field groups for building masks from what a query means. */
enum sr_field {
	SR_F_ID = 1u << 0,
	SR_F_GID = 1u << 1,
	SR_F_PKEY = 1u << 2,
	SR_F_LEASE = 1u << 3,
	SR_F_KEY = 1u << 4,
	SR_F_NAME = 1u << 5,
	SR_F_DATA8 = 1u << 6,
	SR_F_DATA16 = 1u << 7,
	SR_F_DATA32 = 1u << 8,
	SR_F_DATA64 = 1u << 9,
};

struct sr_record {
	uint64_t id;
	uint8_t gid[16];
	uint16_t pkey;
	uint16_t resv;
	uint32_t lease;
	uint8_t key[16];
	uint8_t name[SR_NAME_LEN];
	uint8_t data8[16];
	uint16_t data16[8];
	uint32_t data32[4];
	uint64_t data64[2];
};

void sr_encode(uint8_t *buf, const struct sr_record *r);
/* -EMSGSIZE when len < SR_SIZE. */
int sr_decode(const uint8_t *buf, size_t len, struct sr_record *r);

/* Component mask covering every bit of the given field groups. */
uint64_t sr_comp_mask(unsigned fields);

/* Whether the encoded record rec matches the encoded query on every field
 * selected by mask, byte for byte as the SA compares them. */
int sr_match(const uint8_t *rec, const uint8_t *query, uint64_t mask);

/* Whether rec can be in the SA's answer to query under mask: sr_match on
 * what an answer keeps (not the reserved field or the lease, which OpenSM
 * does not compare, nor the ServiceKey, which it zeroes for a requester
 * without the SM_Key). */
int sr_answers(const uint8_t *rec, const uint8_t *query, uint64_t mask);

/* The n records at stride rec_size in data (a GetTable answer's shape,
 * sa_table_shape) into a new array in *recs (NULL when n is 0); -EPROTO
 * when the stride is short of a record or a record is not an answer to
 * query under mask (sr_answers). */
int sr_table_decode(const uint8_t *data, size_t n, size_t rec_size, const uint8_t *query,
		    uint64_t mask, struct sr_record **recs);

/* Name of the field a component-mask bit selects ("ServiceData8[3]"). */
const char *sr_cm_field_name(unsigned bit, char *buf, size_t len);

#endif
