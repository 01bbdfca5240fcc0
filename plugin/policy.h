/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* ATS rules the SM enforces on ServiceRecord Set and Delete. Pure
 * functions: the OpenSM glue gathers the requester's facts and the ATS
 * records already held, so every decision is unit-tested without OpenSM. */
#ifndef IBATS_POLICY_H
#define IBATS_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "core/ats.h"
#include "core/rule.h"
#include "core/sr.h"

/* A P_Key's partition: the low 15 bits. The top bit is the membership
 * type (IBTA Vol 1 10.9.3), so 0x7FFF and 0xFFFF name one partition. */
#define POLICY_PKEY_BASE(k) ((uint16_t)((k) & 0x7FFFu))

static inline int pol_same_partition(uint16_t a, uint16_t b)
{
	return POLICY_PKEY_BASE(a) == POLICY_PKEY_BASE(b);
}

/* Partition 0 (P_Keys 0x0000 and 0x8000) is invalid (IBTA Vol 1 10.9.1.2). */
static inline int pol_pkey_invalid(uint16_t k)
{
	return POLICY_PKEY_BASE(k) == 0;
}

/* An ATS record the SA already holds, with the system image GUID of the
 * port its GID belongs to (0 when the port is not on the fabric). */
struct policy_peer {
	struct sr_record rec;
	uint64_t sys_guid;
};

struct policy_request {
	uint8_t method;       /* SA_METHOD_SET or SA_METHOD_DELETE */
	uint64_t comp_mask;
	uint64_t sm_key;
	struct sr_record rec; /* as received */
	int trusted;          /* SA key or a trusted GUID: skips ownership */
	int owns_gid;         /* requester's port owns the ServiceGID */
	uint64_t sys_guid;    /* system image GUID of the ServiceGID's port */
	int req_has_pkey;     /* requester's port holds the record's P_Key */
	int gid_has_pkey;     /* the ServiceGID's port holds it (0: no port) */
	int is_new;           /* Set of a RID the SA does not hold yet */
	uint64_t charged;     /* records already charged where this one would be */
};

struct policy_decision {
	enum rule rule;  /* RULE_PASS: hand the request to OpenSM */
	int is_ats;          /* the request concerns an ATS record */
	int warn;            /* accepted, but rule `warn_rule` asks for a WRN */
	enum rule warn_rule;
	int clamp;           /* accepted with the lease set to `lease` */
	uint32_t lease;
	char why[192];
	/* What a host is told of a refusal (lib/core/smq.h): the GID whose
	 * primary holds the address (duplicate-address), and a number per
	 * rule: the other SID (port-duplicate), the other records
	 * (primary-first Delete), lease_min << 32 | lease_max (lease), which
	 * port lacks the partition (1 requester, 2 GID's; 0 invalid), the
	 * records held (record-cap). */
	uint8_t other_gid[16];
	uint64_t detail;
};

/* Decode a ServiceRecord Set/Delete MAD into req (facts about the
 * requester left zero). -EMSGSIZE when it cannot hold a record. */
int policy_request_decode(const uint8_t *mad, size_t len, struct policy_request *req);

/* Whether a held record is relevant to req: same PKey and same GID or
 * same address; the glue passes only those. */
int policy_peer_relevant(const struct policy_request *req, const struct sr_record *r);

void policy_decide(const struct rule_config *c, const struct policy_request *req,
		const struct policy_peer *peers, size_t npeers,
		struct policy_decision *d);

/* Any Set, ATS or not: the per-port record cap (RULE_CAP). Only a new
 * record counts; an update of a held RID never does. */
void policy_decide_cap(const struct rule_config *c, const struct policy_request *req,
		    struct policy_decision *d);

/* Whether a request's SM_Key earns trust: it must equal OpenSM's sa_key,
 * and that key must not be 0 or OpenSM's default (every host can send
 * the default). */
int policy_key_trusted(uint64_t sa_key, uint64_t sm_key);
#define POLICY_DEFAULT_SA_KEY 1ull /* OpenSM's OSM_DEFAULT_SA_KEY */

/* Lease in effect for a Set: OpenSM makes it infinite without the mask bit. */
uint32_t policy_effective_lease(const struct policy_request *req);

#endif
