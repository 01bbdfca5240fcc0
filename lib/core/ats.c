/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ats.h"
#include "cfg.h"

/* The ::ffff:0:0/96 prefix of an IPv4-mapped address (RFC 4291 2.5.5.2). */
static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };

_Static_assert(sizeof(ATS_SERVICE_NAME) <= SR_NAME_LEN, "name fits");
_Static_assert(ATS_SID_LAST - ATS_SID_BASE + 1 == ATS_SID_COUNT, "256 SIDs");

int ats_sid_in_block(uint64_t sid)
{
	return (sid & ~0xffull) == ATS_SID_BASE;
}

uint64_t ats_sid_next(uint64_t sid)
{
	return ATS_SID_BASE | ((sid + 1) & 0xff);
}

unsigned ats_sid_order(uint64_t sid)
{
	return (unsigned)((sid - ATS_SID_PRIMARY) & 0xff);
}

uint64_t ats_sid_at(unsigned n)
{
	return ATS_SID_BASE | ((ATS_SID_PRIMARY + n) & 0xff);
}

int ats_name_is_ats(const uint8_t *name)
{
	return !memcmp(name, ATS_SERVICE_NAME, sizeof(ATS_SERVICE_NAME));
}

int ats_name_is_canonical(const uint8_t *name)
{
	size_t i;

	if (!ats_name_is_ats(name))
		return 0;
	for (i = sizeof(ATS_SERVICE_NAME); i < SR_NAME_LEN; i++)
		if (name[i])
			return 0;
	return 1;
}

void ats_name_put(uint8_t *name)
{
	memset(name, 0, SR_NAME_LEN);
	memcpy(name, ATS_SERVICE_NAME, sizeof(ATS_SERVICE_NAME) - 1);
}

int ats_ip_parse(const char *s, struct ats_ip *ip)
{
	uint8_t v6[16];

	memset(ip, 0, sizeof(*ip));
	if (inet_pton(AF_INET, s, ip->addr) == 1) {
		ip->family = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, s, v6) != 1)
		return -EINVAL;
	/* ::ffff:a.b.c.d names an IPv4 host: store it as one. */
	if (!memcmp(v6, mapped, 12)) {
		ip->family = AF_INET;
		memcpy(ip->addr, v6 + 12, 4);
		return 0;
	}
	ip->family = AF_INET6;
	memcpy(ip->addr, v6, 16);
	return 0;
}

const char *ats_ip_format(const struct ats_ip *ip, char *buf, size_t len)
{
	if (!inet_ntop(ip->family, ip->addr, buf, (socklen_t)len))
		snprintf(buf, len, "?");
	return buf;
}

int ats_ip_equal(const struct ats_ip *a, const struct ats_ip *b)
{
	return a->family == b->family &&
	       !memcmp(a->addr, b->addr, a->family == AF_INET ? 4 : 16);
}

int ats_ip_other_form(const uint8_t *data8, uint8_t *alt)
{
	struct ats_ip ip;
	enum ats_ip_form form;

	if (ats_ip_decode(data8, &ip, &form) || form == ATS_IP_V6)
		return -EINVAL;
	ats_ip_encode(&ip, alt);
	if (form == ATS_IP_V4)
		memcpy(alt, mapped, sizeof(mapped));
	return 0;
}

void ats_ip_encode(const struct ats_ip *ip, uint8_t *data8)
{
	memset(data8, 0, 16);
	if (ip->family == AF_INET)
		memcpy(data8 + 12, ip->addr, 4);
	else
		memcpy(data8, ip->addr, 16);
}

const char *ats_data8_str(const uint8_t *data8, char *buf, size_t len)
{
	struct ats_ip ip;

	if (ats_ip_decode(data8, &ip, NULL)) {
		snprintf(buf, len, "-");
		return buf;
	}
	return ats_ip_format(&ip, buf, len);
}

int ats_same_ip(const struct sr_record *a, const struct sr_record *b)
{
	struct ats_ip x, y;

	return !ats_ip_decode(a->data8, &x, NULL) &&
	       !ats_ip_decode(b->data8, &y, NULL) && ats_ip_equal(&x, &y);
}

int ats_ip_decode(const uint8_t *data8, struct ats_ip *ip,
		  enum ats_ip_form *form)
{
	static const uint8_t zero[16];
	enum ats_ip_form f;

	memset(ip, 0, sizeof(*ip));
	if (!memcmp(data8, zero, 16))
		return -EINVAL;
	if (!memcmp(data8, zero, 12))
		f = ATS_IP_V4;
	else if (!memcmp(data8, mapped, 12))
		f = ATS_IP_V4_MAPPED;
	else
		f = ATS_IP_V6;
	if (f == ATS_IP_V6) {
		ip->family = AF_INET6;
		memcpy(ip->addr, data8, 16);
	} else {
		ip->family = AF_INET;
		memcpy(ip->addr, data8 + 12, 4);
	}
	if (form)
		*form = f;
	return 0;
}

int ats_ip_check_unicast(const struct ats_ip *ip, const char **why)
{
	const uint8_t *a = ip->addr;
	static const uint8_t zero[16];
	const char *reason = NULL;

	if (ip->family == AF_INET) {
		if (a[0] == 0)
			reason = "IPv4 0.0.0.0/8 is not a host address";
		else if (a[0] == 127)
			reason = "IPv4 loopback";
		else if (a[0] >= 224 && a[0] <= 239)
			reason = "IPv4 multicast";
		else if (a[0] == 255 && a[1] == 255 && a[2] == 255 && a[3] == 255)
			reason = "IPv4 limited broadcast";
	} else if (ip->family == AF_INET6) {
		if (!memcmp(a, zero, 16))
			reason = "IPv6 unspecified address";
		else if (!memcmp(a, zero, 15) && a[15] == 1)
			reason = "IPv6 loopback";
		else if (a[0] == 0xff)
			reason = "IPv6 multicast";
	} else {
		reason = "no address";
	}
	if (why)
		*why = reason;
	return reason ? -EINVAL : 0;
}

void ats_record_init(struct sr_record *r, uint64_t sid, const uint8_t *gid,
		     uint16_t pkey, uint32_t lease, const struct ats_ip *ip)
{
	memset(r, 0, sizeof(*r));
	r->id = sid;
	memcpy(r->gid, gid, 16);
	r->pkey = pkey;
	r->lease = lease;
	ats_name_put(r->name);
	ats_ip_encode(ip, r->data8);
}

uint64_t ats_reg_mask(uint32_t lease)
{
	return sr_comp_mask(SR_F_ID | SR_F_GID | SR_F_PKEY | SR_F_NAME | SR_F_DATA8 |
			    SR_F_KEY | (lease != SR_LEASE_INFINITE ? SR_F_LEASE : 0));
}

int ats_pkey_parse(const char *s, uint16_t *pkey)
{
	uint64_t v;

	if (!s || cfg_parse_u64(s, 0xffff, &v) || !(v & 0x7fff))
		return -EINVAL;
	*pkey = (uint16_t)v;
	return 0;
}

enum ats_verdict ats_record_check(const struct sr_record *r, const char **why)
{
	int in_block = ats_sid_in_block(r->id);
	int named = ats_name_is_ats(r->name);
	struct ats_ip ip;

	*why = NULL;
	if (!in_block && !named)
		return ATS_NOT_ATS;
	if (!in_block) {
		*why = "ServiceID outside 0x10000CE100415400..0x10000CE1004154FF";
		return ATS_BAD_SID;
	}
	if (!named) {
		*why = "ServiceName is not \"" ATS_SERVICE_NAME "\"";
		return ATS_BAD_NAME;
	}
	if (!ats_name_is_canonical(r->name)) {
		*why = "ServiceName is not zero-padded";
		return ATS_BAD_NAME;
	}
	if (ats_ip_decode(r->data8, &ip, NULL)) {
		*why = "ServiceData8 holds no address";
		return ATS_BAD_ADDR;
	}
	if (ats_ip_check_unicast(&ip, why))
		return ATS_BAD_ADDR;
	return ATS_VALID;
}

const char *ats_verdict_str(enum ats_verdict v)
{
	switch (v) {
	case ATS_NOT_ATS:
		return "not-ats";
	case ATS_VALID:
		return "valid";
	case ATS_BAD_SID:
		return "sid-block";
	case ATS_BAD_NAME:
		return "service-name";
	case ATS_BAD_ADDR:
		return "address";
	}
	return "?";
}

int ats_gid_parse(const char *s, uint8_t *gid)
{
	return inet_pton(AF_INET6, s, gid) == 1 ? 0 : -EINVAL;
}

const char *ats_gid_format(const uint8_t *gid, char *buf, size_t len)
{
	if (!inet_ntop(AF_INET6, gid, buf, (socklen_t)len))
		snprintf(buf, len, "?");
	return buf;
}
