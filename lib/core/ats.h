/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The ATS record model (DAT Collaborative ATS v1, sections 2.3-2.7, 3.1). */
#ifndef IBATS_ATS_H
#define IBATS_ATS_H

#include <stddef.h>
#include <stdint.h>

#include "sr.h"

#define ATS_SID_BASE 0x10000CE100415400ull
#define ATS_SID_LAST 0x10000CE1004154FFull
#define ATS_SID_PRIMARY 0x10000CE100415453ull
#define ATS_SID_COUNT 256
#define ATS_SERVICE_NAME "DAPL Address Translation Service"
#define ATS_PKEY_DEFAULT 0xFFFF
/* A P_Key's membership bit (IBTA Vol 1 10.9.3): set full, clear limited;
 * both forms name one partition. */
#define ATS_PKEY_FULL_BIT 0x8000

/* How ServiceData8 held an address. */
enum ats_ip_form {
	ATS_IP_V6 = 0,
	ATS_IP_V4 = 1,        /* 0..11 zero, address in 12..15 (ATS 3.1) */
	ATS_IP_V4_MAPPED = 2, /* ::ffff:a.b.c.d, accepted on input */
};

struct ats_ip {
	int family; /* AF_INET or AF_INET6 */
	uint8_t addr[16]; /* AF_INET: bytes 0..3 */
};

#define ATS_IP_STRLEN 46 /* INET6_ADDRSTRLEN */

int ats_sid_in_block(uint64_t sid);
/* The SID after sid inside the block, wrapping ...FF -> ...00 (ATS 3.1). */
uint64_t ats_sid_next(uint64_t sid);
/* Position in registration order: 0 for the primary SID, 255 for ...52. */
unsigned ats_sid_order(uint64_t sid);
/* The SID at registration position n (0..255). */
uint64_t ats_sid_at(unsigned n);

/* Whether the 64-byte name field holds the ATS name followed by a NUL
 * (unused bytes are ignored on receipt, ATS 2.3). */
int ats_name_is_ats(const uint8_t *name);
/* Whether it is exactly the ATS name zero-padded to 64 bytes. */
int ats_name_is_canonical(const uint8_t *name);
void ats_name_put(uint8_t *name);

int ats_ip_parse(const char *s, struct ats_ip *ip);
const char *ats_ip_format(const struct ats_ip *ip, char *buf, size_t len);
int ats_ip_equal(const struct ats_ip *a, const struct ats_ip *b);
void ats_ip_encode(const struct ats_ip *ip, uint8_t *data8);
/* The address ServiceData8 holds as text, "-" when it holds none. */
const char *ats_data8_str(const uint8_t *data8, char *buf, size_t len);
/* Whether two records' ServiceData8 hold the same address, whatever
 * form each uses. */
int ats_same_ip(const struct sr_record *a, const struct sr_record *b);
/* Decodes any of the forms above; -EINVAL for the all-zero field. */
int ats_ip_decode(const uint8_t *data8, struct ats_ip *ip,
		  enum ats_ip_form *form);
/* The other encoding of the same IPv4 address (ATS_IP_V4 <->
 * ATS_IP_V4_MAPPED) into alt; -EINVAL for IPv6 or no address. */
int ats_ip_other_form(const uint8_t *data8, uint8_t *alt);
/* 0 for a unicast address a host may own, else -EINVAL with *why set. */
int ats_ip_check_unicast(const struct ats_ip *ip, const char **why);

/* Fill r as a registration record (Table 1): name, SID, GID, PKey, lease,
 * IP in ServiceData8, every other field zero. */
void ats_record_init(struct sr_record *r, uint64_t sid, const uint8_t *gid,
		     uint16_t pkey, uint32_t lease, const struct ats_ip *ip);

/* The component mask of a registration (Table 1): the fields
 * ats_record_init fills, ServiceKey, and ServiceLease when finite. */
uint64_t ats_reg_mask(uint32_t lease);

/* A P_Key argument: 1..0xFFFF with a non-zero partition number (the low
 * 15 bits); the membership bit is kept as written. */
int ats_pkey_parse(const char *s, uint16_t *pkey);

/* Classify a ServiceRecord against the ATS rules the SM enforces. */
enum ats_verdict {
	ATS_NOT_ATS = 0,      /* neither ATS name nor ATS SID: not ours */
	ATS_VALID,            /* well-formed ATS record */
	ATS_BAD_SID,          /* ATS name, SID outside the block */
	ATS_BAD_NAME,         /* SID in the block, other name */
	ATS_BAD_ADDR,         /* ServiceData8 is no unicast IP */
};
enum ats_verdict ats_record_check(const struct sr_record *r, const char **why);
const char *ats_verdict_str(enum ats_verdict v);

int ats_gid_parse(const char *s, uint8_t *gid);
const char *ats_gid_format(const uint8_t *gid, char *buf, size_t len);

#endif
