/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "policy.h"
#include "core/sa.h"

int policy_key_trusted(uint64_t sa_key, uint64_t sm_key)
{
	return sa_key && sa_key != POLICY_DEFAULT_SA_KEY && sm_key == sa_key;
}

void policy_decide_cap(const struct rule_config *c, const struct policy_request *req,
		    struct policy_decision *d)
{
	memset(d, 0, sizeof(*d));
	if (req->method != SA_METHOD_SET || !req->is_new || !c->max_records_per_port ||
	    req->charged < c->max_records_per_port)
		return;
	d->rule = RULE_CAP;
	d->detail = req->charged;
	snprintf(d->why, sizeof(d->why),
		 "the port already holds %" PRIu64 " ServiceRecords (max_records_per_port %" PRIu32 ")",
		 req->charged, c->max_records_per_port);
}

int policy_request_decode(const uint8_t *mad, size_t len, struct policy_request *req)
{
	struct sa_hdr h;

	memset(req, 0, sizeof(*req));
	if (sa_hdr_decode(mad, len, &h) || len < SA_OFF_DATA + SR_SIZE)
		return -EMSGSIZE;
	req->method = h.mad.method;
	req->comp_mask = h.comp_mask;
	req->sm_key = h.sm_key;
	return sr_decode(mad + SA_OFF_DATA, len - SA_OFF_DATA, &req->rec);
}

uint32_t policy_effective_lease(const struct policy_request *req)
{
	return req->comp_mask & sr_comp_mask(SR_F_LEASE) ? req->rec.lease :
	       SR_LEASE_INFINITE;
}

int policy_peer_relevant(const struct policy_request *req, const struct sr_record *r)
{
	if (!ats_sid_in_block(r->id) || !ats_name_is_ats(r->name) ||
	    !pol_same_partition(r->pkey, req->rec.pkey))
		return 0;
	return !memcmp(r->gid, req->rec.gid, 16) || ats_same_ip(r, &req->rec);
}

static enum rule reject(struct policy_decision *d, enum rule r,
			    const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static enum rule reject(struct policy_decision *d, enum rule r,
			    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(d->why, sizeof(d->why), fmt, ap);
	va_end(ap);
	return r;
}

/* Rules on the record alone. */
static enum rule check_record(const struct rule_config *c,
				  const struct policy_request *req,
				  struct policy_decision *d)
{
	static const uint8_t zero[16];
	const char *why;

	switch (ats_record_check(&req->rec, &why)) {
	case ATS_NOT_ATS:
	case ATS_VALID:
		break;
	case ATS_BAD_SID:
		if (c->enabled[RULE_SID_BLOCK])
			return reject(d, RULE_SID_BLOCK, "%s", why);
		break;
	case ATS_BAD_NAME:
		if (c->enabled[RULE_NAME])
			return reject(d, RULE_NAME, "%s", why);
		break;
	case ATS_BAD_ADDR:
		if (c->enabled[RULE_ADDR])
			return reject(d, RULE_ADDR, "%s", why);
		break;
	}
	if (c->enabled[RULE_KEY] && memcmp(req->rec.key, zero, 16))
		return reject(d, RULE_KEY, "ServiceKey is reserved and must be 0");
	return RULE_PASS;
}

/* What OpenSM's validate_sr() checks only when the component mask has
 * the P_Key bit (IBTA Vol 1 15.2.5.14: the ServiceRecord is visible in
 * its partition only), for every ATS Set whatever the mask: the record
 * goes into the SA with the P_Key received either way. Trusted requesters
 * too: trust is about ownership, not partitions. */
static enum rule check_pkey(const struct rule_config *c,
				const struct policy_request *req,
				struct policy_decision *d)
{
	uint16_t k = req->rec.pkey;

	if (!c->enabled[RULE_PKEY])
		return RULE_PASS;
	if (pol_pkey_invalid(k))
		return reject(d, RULE_PKEY, "P_Key 0x%04x is invalid", k);
	d->detail = !req->req_has_pkey ? 1 : 2;
	if (!req->req_has_pkey)
		return reject(d, RULE_PKEY, "requester's port is not a member of P_Key 0x%04x's partition",
			      k);
	if (!req->gid_has_pkey)
		return reject(d, RULE_PKEY,
			      "the ServiceGID's port is not a member of P_Key 0x%04x's partition",
			      k);
	return RULE_PASS;
}

static enum rule check_lease(const struct rule_config *c,
				 const struct policy_request *req,
				 struct policy_decision *d)
{
	uint32_t lease = policy_effective_lease(req);
	uint32_t to;

	if (!c->enabled[RULE_LEASE] ||
	    (lease >= c->lease_min && lease <= c->lease_max))
		return RULE_PASS;
	to = lease < c->lease_min ? c->lease_min : c->lease_max;
	if (c->lease_clamp) {
		d->clamp = 1;
		d->lease = to;
		return RULE_PASS;
	}
	d->detail = (uint64_t)c->lease_min << 32 | c->lease_max;
	return reject(d, RULE_LEASE, "lease %" PRIu32 " s outside %" PRIu32 "..%" PRIu32,
		      lease, c->lease_min, c->lease_max);
}

static enum rule check_set_db(const struct rule_config *c,
				  const struct policy_request *req,
				  const struct policy_peer *peers, size_t n,
				  struct policy_decision *d)
{
	const struct sr_record *r = &req->rec;
	int have_primary = r->id == ATS_SID_PRIMARY;
	char ip[ATS_IP_STRLEN], gid[ATS_IP_STRLEN];
	size_t i;

	for (i = 0; i < n; i++) {
		const struct sr_record *p = &peers[i].rec;

		if (!memcmp(p->gid, r->gid, 16) && p->id == ATS_SID_PRIMARY)
			have_primary = 1;
	}
	if (c->enabled[RULE_PRIMARY_FIRST] && !have_primary)
		return reject(d, RULE_PRIMARY_FIRST,
			      "GID has no primary record (SID 0x%016" PRIx64 ") in this partition yet",
			      (uint64_t)ATS_SID_PRIMARY);
	for (i = 0; i < n; i++) {
		const struct sr_record *p = &peers[i].rec;

		if (!c->enabled[RULE_PORT_DUP] || memcmp(p->gid, r->gid, 16))
			continue;
		d->detail = p->id; /* read only when refused */
		if (p->id != r->id && ats_same_ip(p, r))
			return reject(d, RULE_PORT_DUP,
				      "%s is already registered by this GID on SID 0x%016" PRIx64,
				      ats_data8_str(r->data8, ip, sizeof(ip)), p->id);
		/* The same SID under the other membership form is a second
		 * record for one (GID, SID, partition): refused, whatever its
		 * address. */
		if (p->id == r->id && p->pkey != r->pkey)
			return reject(d, RULE_PORT_DUP,
				      "this GID holds SID 0x%016" PRIx64 " in this partition under P_Key 0x%04x",
				      p->id, p->pkey);
	}
	for (i = 0; i < n; i++) {
		const struct sr_record *p = &peers[i].rec;

		if (!c->enabled[RULE_DUP_ADDR] || c->dup_mode == RULE_DUP_ALLOW ||
		    p->id != ATS_SID_PRIMARY || !memcmp(p->gid, r->gid, 16) ||
		    !ats_same_ip(p, r))
			continue;
		/* Ports of one system (a failover pair) may share it. */
		if (peers[i].sys_guid && peers[i].sys_guid == req->sys_guid)
			continue;
		memcpy(d->other_gid, p->gid, 16);
		snprintf(d->why, sizeof(d->why),
			 "%s is the primary address of %s on system image 0x%016" PRIx64,
			 ats_data8_str(r->data8, ip, sizeof(ip)),
			 ats_gid_format(p->gid, gid, sizeof(gid)), peers[i].sys_guid);
		if (c->dup_mode == RULE_DUP_WARN) {
			d->warn = 1;
			d->warn_rule = RULE_DUP_ADDR;
			return RULE_PASS;
		}
		return RULE_DUP_ADDR;
	}
	return RULE_PASS;
}

static enum rule check_delete_db(const struct rule_config *c,
				     const struct policy_request *req,
				     const struct policy_peer *peers, size_t n,
				     struct policy_decision *d)
{
	size_t i, others = 0;

	if (!c->enabled[RULE_PRIMARY_FIRST] || req->rec.id != ATS_SID_PRIMARY)
		return RULE_PASS;
	for (i = 0; i < n; i++)
		if (!memcmp(peers[i].rec.gid, req->rec.gid, 16) &&
		    peers[i].rec.id != ATS_SID_PRIMARY)
			others++;
	d->detail = others;
	if (others)
		return reject(d, RULE_PRIMARY_FIRST,
			      "primary record deleted while the GID holds %zu other record(s); delete those first",
			      others);
	return RULE_PASS;
}

void policy_decide(const struct rule_config *c, const struct policy_request *req,
		const struct policy_peer *peers, size_t npeers,
		struct policy_decision *d)
{
	int in_block = ats_sid_in_block(req->rec.id);
	enum rule r;

	memset(d, 0, sizeof(*d));
	d->is_ats = in_block || ats_name_is_ats(req->rec.name);
	if (req->method == SA_METHOD_DELETE) {
		/* Deleting a malformed record is cleanup; only ATS SIDs are
		 * guarded, whatever the name the request carries. */
		if (!in_block)
			return;
		d->is_ats = 1;
		if (c->enabled[RULE_OWNER] && !req->trusted && !req->owns_gid)
			r = reject(d, RULE_OWNER, "requester does not own the ServiceGID");
		else
			r = check_delete_db(c, req, peers, npeers, d);
		d->rule = r;
		return;
	}
	if (req->method != SA_METHOD_SET || !d->is_ats)
		return;
	r = check_record(c, req, d);
	if (r == RULE_PASS && c->enabled[RULE_OWNER] && !req->trusted &&
	    !req->owns_gid)
		r = reject(d, RULE_OWNER, "requester does not own the ServiceGID");
	if (r == RULE_PASS)
		r = check_pkey(c, req, d);
	if (r == RULE_PASS)
		r = check_lease(c, req, d);
	/* The database rules speak of ATS SIDs only. */
	if (r == RULE_PASS && in_block)
		r = check_set_db(c, req, peers, npeers, d);
	d->rule = r;
}
