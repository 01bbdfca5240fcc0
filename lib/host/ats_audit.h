/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Audit of an ATS database against the spec (osmtest-style): pure checks
 * over the records and the fabric's ports, so they are unit-tested. */
#ifndef IBATS_ATS_AUDIT_H
#define IBATS_ATS_AUDIT_H

#include <stddef.h>
#include <stdint.h>

#include "core/sr.h"

#define ATS_AUDIT_MAX_PKEYS 32 /* one PKeyTable block: what sa_client_port_pkeys() reads */

struct ats_audit_port {
	uint8_t gid[16];
	uint16_t lid;
	uint64_t sys_guid;
	uint16_t pkeys[ATS_AUDIT_MAX_PKEYS]; /* 0 entries unused */
	size_t npkeys;
	int pkeys_known;
};

enum ats_audit_severity {
	ATS_AUDIT_INFO,
	ATS_AUDIT_WARNING,
	ATS_AUDIT_ERROR,
};

enum ats_audit_kind {
	ATS_AUDIT_SID_BLOCK,      /* ATS name, SID outside the block */
	ATS_AUDIT_NAME,           /* SID in the block, other or unpadded name */
	ATS_AUDIT_NO_PRIMARY,     /* (GID, PKey) with records but no primary */
	ATS_AUDIT_DUP_IP_GID,     /* same address twice on one (GID, PKey) */
	ATS_AUDIT_DUP_PRIMARY,    /* same primary address on other systems */
	ATS_AUDIT_IPV4_FORM,      /* ::ffff: instead of the canonical IPv4 form */
	ATS_AUDIT_BAD_ADDR,       /* ServiceData8 is no unicast address */
	ATS_AUDIT_UNUSED_FIELDS,  /* ServiceKey or Data16/32/64 not zero */
	ATS_AUDIT_GID_ABSENT,     /* GID of no port on the fabric */
	ATS_AUDIT_PKEY_NOT_HELD,  /* the GID's port lacks the PKey */
	ATS_AUDIT_FINITE_LEASE,   /* lease not infinite */
	ATS_AUDIT_NKINDS,
};

struct ats_audit_finding {
	enum ats_audit_kind kind;
	enum ats_audit_severity severity;
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
const char *ats_audit_kind_name(enum ats_audit_kind k);
const char *ats_audit_severity_name(enum ats_audit_severity s);

#endif
