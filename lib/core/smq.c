/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The SM query MADs (see smq.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ats.h"
#include "sa.h"
#include "smq.h"
#include "vmad.h"
#include "wire.h"

void smq_request_encode(uint8_t *mad, uint16_t attr, uint32_t page, uint64_t key)
{
	vmad_hdr_encode(mad, SMQ_CLASS, SMQ_CLASS_VERSION, MAD_METHOD_GET, 0, attr, page);
	wire_put64(mad + SMQ_OFF_KEY, key);
}

/* A whole MAD of this class, version and OUI, of method method. */
static int check(const uint8_t *mad, size_t len, uint8_t method, struct mad_hdr *h)
{
	return vmad_hdr_check(mad, len, SMQ_CLASS, SMQ_CLASS_VERSION, method, h);
}

int smq_request_decode(const uint8_t *mad, size_t len, uint16_t *attr, uint32_t *page,
		       uint64_t *key)
{
	struct mad_hdr h;
	int ret = check(mad, len, MAD_METHOD_GET, &h);

	if (ret)
		return ret;
	*attr = h.attr_id;
	*page = h.attr_mod;
	*key = wire_get64(mad + SMQ_OFF_KEY);
	return 0;
}

void smq_answer_init(uint8_t *resp, const uint8_t *req, uint16_t status)
{
	vmad_respond(resp, req, MAD_SIZE, status);
	memset(resp + SMQ_OFF_TOTAL, 0, MAD_SIZE - SMQ_OFF_TOTAL);
}

/* A NUL-padded string field of n bytes. */
static void put_str(uint8_t *p, const char *s, size_t n)
{
	memset(p, 0, n);
	memcpy(p, s, strnlen(s, n - 1));
}

static void get_str(char *s, const uint8_t *p, size_t n)
{
	size_t i;

	/* Printable ASCII only: the text reaches a terminal. */
	for (i = 0; i < n && p[i]; i++)
		s[i] = p[i] >= 0x20 && p[i] < 0x7f ? (char)p[i] : '?';
	s[i] = '\0';
}

void smq_refusals_put(uint8_t *resp, unsigned total, uint32_t gen,
		      const struct smq_refusal *r, size_t n)
{
	size_t i;

	resp[SMQ_OFF_TOTAL] = (uint8_t)total;
	resp[SMQ_OFF_COUNT] = (uint8_t)n;
	wire_put32(resp + SMQ_OFF_GEN, gen);
	for (i = 0; i < n && i < SMQ_REFUSALS_PER_MAD; i++) {
		uint8_t *e = resp + SMQ_OFF_BODY + i * SMQ_R_SIZE;

		wire_put32(e + SMQ_R_AGE, r[i].age_s);
		wire_put16(e + SMQ_R_CODE, r[i].code);
		e[SMQ_R_METHOD] = r[i].method;
		e[SMQ_R_FLAGS] = r[i].flags;
		wire_put16(e + SMQ_R_PKEY, r[i].pkey);
		wire_put16(e + SMQ_R_STATUS, r[i].status);
		wire_put32(e + SMQ_R_LEASE, r[i].lease);
		wire_put64(e + SMQ_R_SID, r[i].sid);
		memcpy(e + SMQ_R_GID, r[i].gid, 16);
		memcpy(e + SMQ_R_DATA8, r[i].data8, 16);
		memcpy(e + SMQ_R_OWNER, r[i].owner, 16);
		wire_put64(e + SMQ_R_DETAIL, r[i].detail);
		put_str(e + SMQ_R_NAME, r[i].name, SMQ_NAME_LEN);
	}
}

int smq_refusals_get(const uint8_t *resp, size_t len, uint16_t *status, unsigned *total,
		     uint32_t *gen, struct smq_refusal *r, size_t *n)
{
	struct mad_hdr h;
	size_t i;
	int ret = check(resp, len, MAD_METHOD_GET | MAD_METHOD_RESP_BIT, &h);

	*n = 0;
	*total = 0;
	if (ret)
		return ret;
	if (h.attr_id != SMQ_ATTR_REFUSALS)
		return -EPROTO;
	*status = h.status;
	if (h.status)
		return 0;
	*total = resp[SMQ_OFF_TOTAL];
	*gen = wire_get32(resp + SMQ_OFF_GEN);
	if (resp[SMQ_OFF_COUNT] > SMQ_REFUSALS_PER_MAD)
		return -EBADMSG;
	for (i = 0; i < resp[SMQ_OFF_COUNT]; i++) {
		const uint8_t *e = resp + SMQ_OFF_BODY + i * SMQ_R_SIZE;
		struct smq_refusal *o = &r[i];

		memset(o, 0, sizeof(*o));
		o->age_s = wire_get32(e + SMQ_R_AGE);
		o->code = wire_get16(e + SMQ_R_CODE);
		o->method = e[SMQ_R_METHOD];
		o->flags = e[SMQ_R_FLAGS];
		o->pkey = wire_get16(e + SMQ_R_PKEY);
		o->status = wire_get16(e + SMQ_R_STATUS);
		o->lease = wire_get32(e + SMQ_R_LEASE);
		o->sid = wire_get64(e + SMQ_R_SID);
		memcpy(o->gid, e + SMQ_R_GID, 16);
		memcpy(o->data8, e + SMQ_R_DATA8, 16);
		memcpy(o->owner, e + SMQ_R_OWNER, 16);
		o->detail = wire_get64(e + SMQ_R_DETAIL);
		get_str(o->name, e + SMQ_R_NAME, SMQ_NAME_LEN);
	}
	*n = i;
	return 0;
}

unsigned smq_info_pages(const struct smq_info *in)
{
	if (!(in->flags & SMQ_INFO_TRUSTED))
		return 1;
	return 1 + (unsigned)((in->nrules + SMQ_RULES_PER_MAD - 1) / SMQ_RULES_PER_MAD);
}

void smq_info_put(uint8_t *resp, uint32_t page, const struct smq_info *in)
{
	unsigned pages = smq_info_pages(in);
	uint8_t *p = resp;
	size_t i, first;

	resp[SMQ_OFF_TOTAL] = (uint8_t)pages;
	resp[SMQ_OFF_FLAGS] = in->flags & SMQ_INFO_TRUSTED;
	if (page >= pages)
		return;
	if (page) {
		first = (page - 1) * SMQ_RULES_PER_MAD;
		for (i = 0; i < SMQ_RULES_PER_MAD && first + i < in->nrules; i++) {
			uint8_t *e = resp + SMQ_OFF_BODY + i * SMQ_C_SIZE;
			const struct smq_rule_count *c = &in->rules[first + i];

			put_str(e + SMQ_C_NAME, c->name, SMQ_NAME_LEN);
			wire_put16(e + SMQ_C_CODE, c->code);
			wire_put64(e + SMQ_C_REJECTED, c->rejected);
			wire_put64(e + SMQ_C_WARNED, c->warned);
		}
		resp[SMQ_OFF_COUNT] = (uint8_t)i;
		return;
	}
	p[SMQ_I_ROLE] = in->role;
	p[SMQ_I_SM_STATE] = in->sm_state;
	wire_put64(p + SMQ_I_ATS, in->ats);
	wire_put64(p + SMQ_I_OTHER, in->other);
	put_str(p + SMQ_I_VERSION, in->version, SMQ_STR_LEN);
	put_str(p + SMQ_I_OPENSM, in->opensm, SMQ_STR_LEN);
	if (!(in->flags & SMQ_INFO_TRUSTED))
		return;
	p[SMQ_I_IN_SYNC] = in->in_sync;
	wire_put32(p + SMQ_I_STANDBYS, in->standbys_in_sync);
	wire_put64(p + SMQ_I_ABSENT, in->absent);
	wire_put64(p + SMQ_I_HEAD, in->head);
	wire_put64(p + SMQ_I_APPLIED, in->applied);
	wire_put64(p + SMQ_I_LAG_MS, in->lag_ms);
	wire_put64(p + SMQ_I_EPOCH, in->epoch);
	wire_put64(p + SMQ_I_ACCEPTED, in->accepted);
	wire_put64(p + SMQ_I_CLAMPED, in->clamped);
	wire_put64(p + SMQ_I_FLUSHED, in->flushed);
	wire_put64(p + SMQ_I_COPY, in->copy);
}

int smq_info_get(const uint8_t *resp, size_t len, uint32_t page, uint16_t *status,
		 unsigned *pages, struct smq_info *out)
{
	const uint8_t *p = resp;
	struct mad_hdr h;
	size_t i, first;
	int ret = check(resp, len, MAD_METHOD_GET | MAD_METHOD_RESP_BIT, &h);

	*pages = 0;
	if (ret)
		return ret;
	if (h.attr_id != SMQ_ATTR_SMINFO || h.attr_mod != page)
		return -EPROTO;
	*status = h.status;
	if (h.status)
		return 0;
	*pages = resp[SMQ_OFF_TOTAL];
	if (page) {
		first = (page - 1) * SMQ_RULES_PER_MAD;
		if (resp[SMQ_OFF_COUNT] > SMQ_RULES_PER_MAD ||
		    first + resp[SMQ_OFF_COUNT] > SMQ_MAX_RULES)
			return -EBADMSG;
		for (i = 0; i < resp[SMQ_OFF_COUNT]; i++) {
			const uint8_t *e = resp + SMQ_OFF_BODY + i * SMQ_C_SIZE;
			struct smq_rule_count *c = &out->rules[first + i];

			get_str(c->name, e + SMQ_C_NAME, SMQ_NAME_LEN);
			c->code = wire_get16(e + SMQ_C_CODE);
			c->rejected = wire_get64(e + SMQ_C_REJECTED);
			c->warned = wire_get64(e + SMQ_C_WARNED);
		}
		if (first + i > out->nrules)
			out->nrules = first + i;
		return 0;
	}
	memset(out, 0, sizeof(*out));
	out->flags = resp[SMQ_OFF_FLAGS] & SMQ_INFO_TRUSTED;
	out->role = p[SMQ_I_ROLE];
	out->sm_state = p[SMQ_I_SM_STATE];
	out->ats = wire_get64(p + SMQ_I_ATS);
	out->other = wire_get64(p + SMQ_I_OTHER);
	get_str(out->version, p + SMQ_I_VERSION, SMQ_STR_LEN);
	get_str(out->opensm, p + SMQ_I_OPENSM, SMQ_STR_LEN);
	out->in_sync = p[SMQ_I_IN_SYNC];
	out->standbys_in_sync = wire_get32(p + SMQ_I_STANDBYS);
	out->absent = wire_get64(p + SMQ_I_ABSENT);
	out->head = wire_get64(p + SMQ_I_HEAD);
	out->applied = wire_get64(p + SMQ_I_APPLIED);
	out->lag_ms = wire_get64(p + SMQ_I_LAG_MS);
	out->epoch = wire_get64(p + SMQ_I_EPOCH);
	out->accepted = wire_get64(p + SMQ_I_ACCEPTED);
	out->clamped = wire_get64(p + SMQ_I_CLAMPED);
	out->flushed = wire_get64(p + SMQ_I_FLUSHED);
	out->copy = wire_get64(p + SMQ_I_COPY);
	return 0;
}

void smq_standbys_put(uint8_t *resp, uint32_t page, const struct smq_standbys *in)
{
	size_t i, first = (size_t)page * SMQ_STANDBYS_PER_MAD;

	resp[SMQ_OFF_TOTAL] = (uint8_t)in->n;
	resp[SMQ_OFF_FLAGS] = in->flags & SMQ_INFO_TRUSTED;
	if (!(in->flags & SMQ_INFO_TRUSTED))
		return;
	wire_put64(resp + SMQ_S_EPOCH, in->epoch);
	wire_put64(resp + SMQ_S_HEAD, in->head);
	for (i = 0; i < SMQ_STANDBYS_PER_MAD && first + i < in->n; i++) {
		uint8_t *e = resp + SMQ_S_FIRST + i * SMQ_S_SIZE;
		const struct smq_standby *b = &in->s[first + i];

		wire_put64(e + SMQ_S_GUID, b->guid);
		wire_put64(e + SMQ_S_ACKED, b->acked);
		wire_put32(e + SMQ_S_SEEN_MS, b->seen_ms);
		e[SMQ_S_FLAGS] = b->in_sync ? SMQ_STANDBY_IN_SYNC : 0;
	}
	resp[SMQ_OFF_COUNT] = (uint8_t)i;
}

int smq_standbys_get(const uint8_t *resp, size_t len, uint32_t page, uint16_t *status,
		     struct smq_standbys *out)
{
	struct mad_hdr h;
	uint64_t head;
	size_t i, first = (size_t)page * SMQ_STANDBYS_PER_MAD;
	int ret = check(resp, len, MAD_METHOD_GET | MAD_METHOD_RESP_BIT, &h);

	if (!page)
		memset(out, 0, sizeof(*out));
	if (ret)
		return ret;
	if (h.attr_id != SMQ_ATTR_STANDBYS || h.attr_mod != page)
		return -EPROTO;
	*status = h.status;
	if (h.status)
		return 0;
	if (resp[SMQ_OFF_COUNT] > SMQ_STANDBYS_PER_MAD ||
	    first + resp[SMQ_OFF_COUNT] > SMQ_MAX_STANDBYS)
		return -EBADMSG;
	head = wire_get64(resp + SMQ_S_HEAD);
	if (!page) {
		out->flags = resp[SMQ_OFF_FLAGS] & SMQ_INFO_TRUSTED;
		out->total = resp[SMQ_OFF_TOTAL];
		out->epoch = wire_get64(resp + SMQ_S_EPOCH);
		out->head = head;
	}
	for (i = 0; i < resp[SMQ_OFF_COUNT]; i++) {
		const uint8_t *e = resp + SMQ_S_FIRST + i * SMQ_S_SIZE;
		struct smq_standby *b = &out->s[first + i];

		b->guid = wire_get64(e + SMQ_S_GUID);
		b->acked = wire_get64(e + SMQ_S_ACKED);
		/* Against its own page's head: the log may move between pages. */
		b->behind = head > b->acked ? head - b->acked : 0;
		b->seen_ms = wire_get32(e + SMQ_S_SEEN_MS);
		b->in_sync = !!(e[SMQ_S_FLAGS] & SMQ_STANDBY_IN_SYNC);
	}
	if (first + i > out->n)
		out->n = first + i;
	return 0;
}

const char *smq_role_name(uint8_t role)
{
	return role == SMQ_ROLE_MASTER ? "master" : role == SMQ_ROLE_STANDBY ? "standby" :
	       role == SMQ_ROLE_ERROR ? "error" : "off";
}

/* The words after "rule NAME (CODE): ", from the fields the rule
 * (plugin/policy.c) fills. */
static void detail(const struct smq_refusal *r, char *buf, size_t len)
{
	char ip[ATS_IP_STRLEN], gid[ATS_IP_STRLEN], owner[ATS_IP_STRLEN];

	ats_data8_str(r->data8, ip, sizeof(ip));
	ats_gid_format(r->gid, gid, sizeof(gid));
	ats_gid_format(r->owner, owner, sizeof(owner));
	buf[0] = '\0';
	switch (r->code) {
	case 0x7A01:
		snprintf(buf, len, "SID 0x%016" PRIx64 " carries the ATS name outside the ATS SID block",
			 r->sid);
		break;
	case 0x7A02:
		snprintf(buf, len, "SID 0x%016" PRIx64 " is in the ATS SID block, the ServiceName is not ATS's",
			 r->sid);
		break;
	case 0x7A03:
		snprintf(buf, len, "ServiceData8 is no unicast IPv4 or IPv6 address");
		break;
	case 0x7A04:
		snprintf(buf, len, "the ServiceKey must be 0");
		break;
	case 0x7A05:
		snprintf(buf, len, "this port does not own GID %s", gid);
		break;
	case 0x7A06:
		if (r->method == SA_METHOD_DELETE)
			snprintf(buf, len, "GID %s holds %" PRIu64 " other record(s) in P_Key 0x%04x; "
				 "delete those first", gid, r->detail, r->pkey);
		else
			snprintf(buf, len, "GID %s has no primary record in P_Key 0x%04x yet", gid,
				 r->pkey);
		break;
	case 0x7A07:
		if (r->detail == r->sid)
			snprintf(buf, len, "GID %s holds SID 0x%016" PRIx64 " in this partition under "
				 "the other P_Key form", gid, r->sid);
		else
			snprintf(buf, len, "%s is already registered by GID %s on SID 0x%016" PRIx64,
				 ip, gid, r->detail);
		break;
	case 0x7A08:
		if (r->flags & SMQ_OWNER_SHOWN)
			snprintf(buf, len, "%s is the primary address of %s in P_Key 0x%04x", ip,
				 owner, r->pkey);
		else
			snprintf(buf, len, "%s is the primary address of another port (not shown: "
				 "this port is not a member of its partition)", ip);
		break;
	case 0x7A09:
		snprintf(buf, len, "lease %" PRIu32 " s outside %" PRIu64 "..%" PRIu64, r->lease,
			 r->detail >> 32, r->detail & 0xffffffffu);
		break;
	case 0x7A0A:
		snprintf(buf, len, r->detail == 1 ? "this port is not a member of P_Key 0x%04x's partition" :
			 r->detail == 2 ? "the GID's port is not a member of P_Key 0x%04x's partition" :
			 "P_Key 0x%04x is invalid", r->pkey);
		break;
	case 0x7A0B:
		snprintf(buf, len, "the GID's port already holds %" PRIu64 " ServiceRecords "
			 "(max_records_per_port)", r->detail);
		break;
	default:
		break;
	}
}

const char *smq_refusal_str(const struct smq_refusal *r, char *buf, size_t len)
{
	char d[200];

	detail(r, d, sizeof(d));
	snprintf(buf, len, "rule %s (%04X)%s%s", r->name[0] ? r->name : "?", r->code,
		 d[0] ? ": " : "", d);
	return buf;
}
