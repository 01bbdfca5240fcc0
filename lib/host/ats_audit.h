/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Audit of an ATS database against the spec (osmtest-style): pure checks
 * over the records and the fabric's ports, so they are unit-tested. */
#ifndef IBATS_ATS_AUDIT_H
#define IBATS_ATS_AUDIT_H

#include <stddef.h>
#include <stdint.h>

#include "core/sr.h"

#define AUDIT_MAX_PKEYS 32 /* one PKeyTable block: what sa_client_port_pkeys() reads */

struct ats_audit_port {
	uint8_t gid[16];
	uint16_t lid;
	uint64_t sys_guid;
	uint16_t pkeys[AUDIT_MAX_PKEYS]; /* 0 entries unused */
	size_t npkeys;
	int pkeys_known;
};

enum audit_severity {
	AUDIT_INFO,
	AUDIT_WARNING,
	AUDIT_ERROR,
};

enum audit_kind {
	AUD_SID_BLOCK,      /* ATS name, SID outside the block */
	AUD_NAME,           /* SID in the block, other or unpadded name */
	AUD_NO_PRIMARY,     /* (GID, PKey) with records but no primary */
	AUD_DUP_IP_GID,     /* same address twice on one (GID, PKey) */
	AUD_DUP_PRIMARY,    /* same primary address on other systems */
	AUD_IPV4_FORM,      /* ::ffff: instead of the canonical IPv4 form */
	AUD_BAD_ADDR,       /* ServiceData8 is no unicast address */
	AUD_UNUSED_FIELDS,  /* ServiceKey or Data16/32/64 not zero */
	AUD_GID_ABSENT,     /* GID of no port on the fabric */
	AUD_PKEY_NOT_HELD,  /* the GID's port lacks the PKey */
	AUD_FINITE_LEASE,   /* lease not infinite */
	AUD_NKINDS,
};

struct ats_audit_finding {
	enum audit_kind kind;
	enum audit_severity severity;
	size_t rec[2];          /* indexes into the records; rec[1] may be -1 */
	char text[200];
};

struct ats_audit_result {
	struct ats_audit_finding *f;
	size_t n;
	size_t cap;             /* f's room, grown by doubling */
};

/* recs: every ATS record found (ATS name or ATS SID). */
int ats_audit_check(const struct sr_record *recs, size_t nrecs,
		    const struct ats_audit_port *ports, size_t nports,
		    struct ats_audit_result *out);
void ats_audit_free(struct ats_audit_result *r);
const char *ats_audit_kind_name(enum audit_kind k);
const char *ats_audit_severity_name(enum audit_severity s);

#endif
