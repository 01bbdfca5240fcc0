/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Public records and addresses: conversions from the project's record
 * model, and the error mapping shared with atsctl. Pure functions. */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "priv.h"

static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

/* An IPv4-mapped IPv6 address names an IPv4 host (as atsctl reads
 * ::ffff:a.b.c.d), so both spellings find the same records. */
int ibl_ip_from_sockaddr(const struct sockaddr *sa, struct ats_ip *ip)
{
	memset(ip, 0, sizeof(*ip));
	if (!sa)
		return -EINVAL;
	if (sa->sa_family == AF_INET) {
		struct sockaddr_in s4;

		memcpy(&s4, sa, sizeof(s4));
		ip->family = AF_INET;
		memcpy(ip->addr, &s4.sin_addr, 4);
		return 0;
	}
	if (sa->sa_family == AF_INET6) {
		struct sockaddr_in6 s6;

		memcpy(&s6, sa, sizeof(s6));
		if (!memcmp(s6.sin6_addr.s6_addr, v4mapped, 12)) {
			ip->family = AF_INET;
			memcpy(ip->addr, s6.sin6_addr.s6_addr + 12, 4);
		} else {
			ip->family = AF_INET6;
			memcpy(ip->addr, s6.sin6_addr.s6_addr, 16);
		}
		return 0;
	}
	return -EAFNOSUPPORT;
}

void ibl_ip_to_sockaddr(const struct ats_ip *ip, uint16_t port,
			struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (ip->family == AF_INET) {
		struct sockaddr_in s4 = { .sin_family = AF_INET, .sin_port = htons(port) };

		memcpy(&s4.sin_addr, ip->addr, 4);
		memcpy(ss, &s4, sizeof(s4));
	} else if (ip->family == AF_INET6) {
		struct sockaddr_in6 s6 = { .sin6_family = AF_INET6, .sin6_port = htons(port) };

		memcpy(s6.sin6_addr.s6_addr, ip->addr, 16);
		memcpy(ss, &s6, sizeof(s6));
	} else {
		ss->ss_family = AF_UNSPEC;
	}
}

void ibl_record_from_sr(const struct sr_record *r, struct ibats_record *out)
{
	struct ats_ip ip;

	memset(out, 0, sizeof(*out));
	out->sid = r->id;
	memcpy(out->gid, r->gid, 16);
	out->pkey = r->pkey;
	out->lease = r->lease;
	out->primary = r->id == ATS_SID_PRIMARY;
	/* A record without an address (all-zero ServiceData8) keeps
	 * AF_UNSPEC: the SM may hold one when its rules are off. */
	if (ats_ip_decode(r->data8, &ip, NULL))
		ip.family = AF_UNSPEC;
	ibl_ip_to_sockaddr(&ip, 0, &out->addr);
}

int ibl_records_from_sr(const struct sr_record *r, size_t n,
			struct ibats_record **out)
{
	size_t i;

	*out = calloc(n ? n : 1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		ibl_record_from_sr(&r[i], &(*out)[i]);
	return 0;
}

/* The codes of doc/atsd-protocol.md, "Answers". */
int ibl_agent_errno(const char *code)
{
	static const struct {
		const char *name;
		int err;
	} codes[] = {
		{ "ENOENT", ENOENT },       { "EINVAL", EINVAL },
		{ "EEXIST", EEXIST },       { "ENOSPC", ENOSPC },
		{ "ETIMEDOUT", ETIMEDOUT }, { "ENETDOWN", ENETDOWN },
		{ "EBUSY", EBUSY },         { "EIO", EIO },
	};
	size_t i;

	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		if (!strcmp(code, codes[i].name))
			return -codes[i].err;
	return -EIO;
}

int ibl_reply_local(const struct atsd_client_reply *rep)
{
	return rep->ok && rep->nlines && atsd_proto_record_local(rep->lines[0]);
}

int ibl_records_from_reply(const struct atsd_client_reply *rep,
			   struct ibats_record **out, size_t *n,
			   char *why, size_t why_len)
{
	struct sr_record r;
	size_t i;

	*out = NULL;
	*n = 0;
	if (why_len)
		*why = 0;
	if (!rep->ok) {
		snprintf(why, why_len, "%s", rep->message);
		return ibl_agent_errno(rep->code);
	}
	if (!rep->nlines)
		return -ENOENT;
	*out = calloc(rep->nlines, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (i = 0; i < rep->nlines; i++) {
		if (atsd_proto_parse_record(rep->lines[i], &r)) {
			snprintf(why, why_len, "%s", rep->lines[i]);
			free(*out);
			*out = NULL;
			return -EPROTO;
		}
		ibl_record_from_sr(&r, &(*out)[i]);
	}
	*n = rep->nlines;
	return 0;
}

IBATS_EXPORT void ibats_records_free(struct ibats_record *recs)
{
	free(recs);
}

/* atsctl(8), "Exit status": 0 done, 1 nothing found, 2 usage error,
 * 3 SA, agent or transport error. */
IBATS_EXPORT int ibats_exit_code(int ret)
{
	if (ret >= 0)
		return 0;
	switch (-ret) {
	case ENOENT:
		return 1;
	case EINVAL:
	case EAFNOSUPPORT:
		return 2;
	default:
		return 3;
	}
}

int ibl_lid_from_reply(const struct atsd_client_reply *rep, uint64_t *guid, uint16_t *base,
		       char *why, size_t why_len)
{
	if (!rep->ok) {
		snprintf(why, why_len, "%s", rep->message);
		return ibl_agent_errno(rep->code);
	}
	if (rep->nlines != 1 || atsd_proto_lid_parse(rep->lines[0], guid, base)) {
		snprintf(why, why_len, "%s", rep->nlines ? rep->lines[0] : "no answer line");
		return -EPROTO;
	}
	return 0;
}
