/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ats.h"
#include "ats_audit.h"

static const struct {
	const char *name;
	enum ats_audit_severity sev;
} kinds[ATS_AUDIT_NKINDS] = {
	[ATS_AUDIT_SID_BLOCK] = { "sid-block", ATS_AUDIT_ERROR },
	[ATS_AUDIT_NAME] = { "service-name", ATS_AUDIT_ERROR },
	[ATS_AUDIT_NO_PRIMARY] = { "no-primary", ATS_AUDIT_ERROR },
	[ATS_AUDIT_DUP_IP_GID] = { "duplicate-on-port", ATS_AUDIT_ERROR },
	[ATS_AUDIT_DUP_PRIMARY] = { "duplicate-primary", ATS_AUDIT_ERROR },
	[ATS_AUDIT_IPV4_FORM] = { "ipv4-form", ATS_AUDIT_WARNING },
	[ATS_AUDIT_BAD_ADDR] = { "address", ATS_AUDIT_ERROR },
	[ATS_AUDIT_UNUSED_FIELDS] = { "unused-fields", ATS_AUDIT_WARNING },
	[ATS_AUDIT_GID_ABSENT] = { "gid-absent", ATS_AUDIT_ERROR },
	[ATS_AUDIT_PKEY_NOT_HELD] = { "pkey-not-held", ATS_AUDIT_ERROR },
	[ATS_AUDIT_FINITE_LEASE] = { "finite-lease", ATS_AUDIT_WARNING },
};

const char *ats_audit_kind_name(enum ats_audit_kind k)
{
	return k < ATS_AUDIT_NKINDS ? kinds[k].name : "?";
}

const char *ats_audit_severity_name(enum ats_audit_severity s)
{
	static const char *const n[] = { "info", "warning", "error" };

	return s <= ATS_AUDIT_ERROR ? n[s] : "?";
}

static int add(struct ats_audit_result *r, enum ats_audit_kind k, size_t a, size_t b,
	       const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int add(struct ats_audit_result *r, enum ats_audit_kind k, size_t a, size_t b,
	       const char *fmt, ...)
{
	struct ats_audit_finding *f;
	va_list ap;

	/* Doubling: a table of many duplicates has findings by the ten
	 * thousand, and growing by one copied them all each time. */
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 64;

		f = realloc(r->f, cap * sizeof(*f));
		if (!f)
			return -ENOMEM;
		r->f = f;
		r->cap = cap;
	}
	f = &r->f[r->n++];
	f->kind = k;
	f->severity = kinds[k].sev;
	f->rec[0] = a;
	f->rec[1] = b;
	va_start(ap, fmt);
	vsnprintf(f->text, sizeof(f->text), fmt, ap);
	va_end(ap);
	return 0;
}

static const struct ats_audit_port *port_of(const struct ats_audit_port *p, size_t n,
					const uint8_t *gid)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!memcmp(p[i].gid, gid, 16))
			return &p[i];
	return NULL;
}

static int unused_zero(const struct sr_record *r)
{
	static const uint8_t zero[16];
	size_t i;

	if (memcmp(r->key, zero, 16))
		return 0;
	for (i = 0; i < 8; i++)
		if (r->data16[i])
			return 0;
	for (i = 0; i < 4; i++)
		if (r->data32[i])
			return 0;
	return !r->data64[0] && !r->data64[1];
}

/* Checks of one record on its own. */
static int check_one(const struct sr_record *r, size_t i,
		     const struct ats_audit_port *ports, size_t nports,
		     struct ats_audit_result *out)
{
	const struct ats_audit_port *p = port_of(ports, nports, r->gid);
	enum ats_ip_form form;
	struct ats_ip ip;
	const char *why;
	size_t k;
	int ret = 0;

	switch (ats_record_check(r, &why)) {
	case ATS_BAD_SID:
		return add(out, ATS_AUDIT_SID_BLOCK, i, (size_t)-1, "%s", why);
	case ATS_BAD_NAME:
		return add(out, ATS_AUDIT_NAME, i, (size_t)-1, "%s", why);
	case ATS_BAD_ADDR:
		ret = add(out, ATS_AUDIT_BAD_ADDR, i, (size_t)-1, "%s", why);
		break;
	default:
		break;
	}
	if (!ret && !ats_ip_decode(r->data8, &ip, &form) && form == ATS_IP_V4_MAPPED)
		ret = add(out, ATS_AUDIT_IPV4_FORM, i, (size_t)-1,
			  "IPv4 written as ::ffff:a.b.c.d, not in octets 12..15 with 0..11 zero");
	if (!ret && !unused_zero(r))
		ret = add(out, ATS_AUDIT_UNUSED_FIELDS, i, (size_t)-1,
			  "ServiceKey or ServiceData16/32/64 not zero");
	if (!ret && r->lease != SR_LEASE_INFINITE)
		ret = add(out, ATS_AUDIT_FINITE_LEASE, i, (size_t)-1,
			  "lease %" PRIu32 " s; ATS records should be infinite", r->lease);
	if (!ret && !p)
		ret = add(out, ATS_AUDIT_GID_ABSENT, i, (size_t)-1, "no port on the fabric has this GID");
	if (!ret && p && p->pkeys_known) {
		for (k = 0; k < p->npkeys; k++)
			if ((p->pkeys[k] & 0x7fff) == (r->pkey & 0x7fff))
				break;
		if (k == p->npkeys)
			ret = add(out, ATS_AUDIT_PKEY_NOT_HELD, i, (size_t)-1,
				  "the port (LID %u) does not hold PKey 0x%04x", p->lid, r->pkey);
	}
	return ret;
}

int ats_audit_check(const struct sr_record *recs, size_t n,
		    const struct ats_audit_port *ports, size_t nports,
		    struct ats_audit_result *out)
{
	size_t i, j;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < n && !ret; i++)
		ret = check_one(&recs[i], i, ports, nports, out);
	for (i = 0; i < n && !ret; i++) {
		const struct sr_record *a = &recs[i];
		int has_primary = 0, first = 1;

		if (!ats_sid_in_block(a->id) || !ats_name_is_ats(a->name))
			continue;
		for (j = 0; j < n; j++) {
			const struct sr_record *b = &recs[j];

			if (b->pkey != a->pkey || memcmp(b->gid, a->gid, 16) ||
			    !ats_sid_in_block(b->id))
				continue;
			if (b->id == ATS_SID_PRIMARY)
				has_primary = 1;
			if (j < i)
				first = 0; /* report the GID once, at its first record */
			if (j > i && ats_same_ip(a, b))
				ret = add(out, ATS_AUDIT_DUP_IP_GID, i, j,
					  "the same address on SIDs 0x%016" PRIx64 " and 0x%016" PRIx64,
					  a->id, b->id);
		}
		if (!ret && first && !has_primary)
			ret = add(out, ATS_AUDIT_NO_PRIMARY, i, (size_t)-1,
				  "GID has records in PKey 0x%04x but none on the primary SID", a->pkey);
		if (ret || a->id != ATS_SID_PRIMARY)
			continue;
		for (j = i + 1; j < n && !ret; j++) {
			const struct sr_record *b = &recs[j];
			const struct ats_audit_port *pa, *pb;

			if (b->id != ATS_SID_PRIMARY || b->pkey != a->pkey ||
			    !memcmp(b->gid, a->gid, 16) || !ats_same_ip(a, b))
				continue;
			pa = port_of(ports, nports, a->gid);
			pb = port_of(ports, nports, b->gid);
			/* Ports of one system image may share it (ATS 2.2). */
			if (pa && pb && pa->sys_guid && pa->sys_guid == pb->sys_guid)
				continue;
			ret = add(out, ATS_AUDIT_DUP_PRIMARY, i, j,
				  "one primary address on two systems (image GUIDs 0x%016" PRIx64
				  ", 0x%016" PRIx64 ")", pa ? pa->sys_guid : 0, pb ? pb->sys_guid : 0);
		}
	}
	if (ret)
		ats_audit_free(out);
	return ret;
}

void ats_audit_free(struct ats_audit_result *r)
{
	free(r->f);
	memset(r, 0, sizeof(*r));
}
