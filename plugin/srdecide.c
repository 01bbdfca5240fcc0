/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The ServiceRecord Set/Delete decision (see srdecide.h). */
#include "srdecide.h"

#include <string.h>

#include "core/ats.h"
#include "refusal.h"
#include "core/sa.h"
#include "core/sr.h"

/* OpenSM's validate_sr(): with the PKey in the mask, the requester and the
 * ServiceGID's port must both hold it. NULL when they do, else why not.
 * ats_delete: 0 for any other request, 1 for a Delete of an ATS record,
 * 2 when the partition rule is on too: then the requester is asked
 * whatever the mask, as the rule asks a Set (policy.c check_pkey): the
 * record is found by its P_Key either way, and trust is about ownership,
 * not partitions. A trusted Delete of an ATS record asks the requester
 * only: the record of a port that left the fabric (flush_departed no),
 * or that lost the partition, must stay removable by an administrator. */
static const char *pkeys_refused(const struct srdecide_in *in, int ats_delete)
{
	uint64_t mask = in->req->comp_mask;

	if (!(mask & sr_comp_mask(SR_F_PKEY)) && ats_delete < 2)
		return NULL;
	if (!in->req_holds_pkey)
		return "requester's port is not a member of the P_Key's partition";
	if (!(mask & sr_comp_mask(SR_F_PKEY)) || (ats_delete && in->req->trusted) ||
	    !(mask & sr_comp_mask(SR_F_GID)) || in->req->rec.gid[0] == 0xff)
		return NULL;
	if (!in->gid_holds_pkey)
		return in->gid_port ?
		       "the ServiceGID's port is not a member of the P_Key's partition" :
		       "no port on the fabric has the ServiceGID (a trusted requester may delete it)";
	return NULL;
}

static void refuse_sa(struct srdecide_out *out, unsigned kind, const char *code,
		      const char *why)
{
	out->act = SRDECIDE_REFUSE;
	out->status = SA_STATUS_REQ_INVALID;
	out->by = SRDECIDE_BY_SA;
	out->kind = kind;
	out->code = code;
	out->why = why;
}

void srdecide_change(const struct srdecide_in *in, struct srdecide_out *out)
{
	const struct policy_request *req = in->req;
	uint64_t need = sr_comp_mask(SR_F_ID | SR_F_GID);
	int ats_delete;
	const char *why;

	memset(out, 0, sizeof(*out));
	out->ats = ats_sid_in_block(req->rec.id) || ats_name_is_ats(req->rec.name);
	if (out->ats) {
		policy_decide(in->pol, req, in->peers, in->npeers, &out->rules);
		if (out->rules.rule != RULE_PASS) {
			out->act = SRDECIDE_REFUSE;
			out->status = SA_STATUS_REQ_INVALID;
			out->by = SRDECIDE_BY_RULES;
			return;
		}
	}
	/* A Delete finds its record by SID, GID and P_Key: only an ATS SID
	 * makes it an ATS record's, whatever name the request carries. The
	 * partition rule off, OpenSM's check alone (but for the trusted). */
	ats_delete = ats_sid_in_block(req->rec.id) && req->method == SA_METHOD_DELETE;
	if (ats_delete)
		ats_delete = in->pol->enabled[RULE_PKEY] ? 2 : 1;
	why = pkeys_refused(in, ats_delete);
	if (why) {
		refuse_sa(out, REFUSAL_SA_PKEY, "7A56", why);
		return;
	}
	if (req->method == SA_METHOD_DELETE) {
		out->act = SRDECIDE_DELETE;
		return;
	}
	/* The per-port cap on a new record, for every service. */
	policy_decide_cap(in->pol, req, &out->cap);
	if (out->cap.rule != RULE_PASS) {
		out->act = SRDECIDE_REFUSE;
		out->status = SA_STATUS_NO_RESOURCES;
		out->by = SRDECIDE_BY_CAP;
		return;
	}
	if ((req->comp_mask & need) != need) {
		refuse_sa(out, REFUSAL_SA_REQUEST, "7A57",
			  "a Set needs ServiceID and ServiceGID in the component mask");
		return;
	}
	out->act = SRDECIDE_SET;
	/* A clamped lease goes into the request with its mask bit. */
	out->lease_infinite = !(req->comp_mask & sr_comp_mask(SR_F_LEASE)) &&
			      !(out->ats && out->rules.clamp);
	out->default_pkey = !(req->comp_mask & sr_comp_mask(SR_F_PKEY));
}

int srdecide_visible(uint16_t rec_pkey, int requester_holds)
{
	return pol_pkey_invalid(rec_pkey) || requester_holds;
}

uint16_t srdecide_get_status(int get_table, size_t nrecords)
{
	return !get_table && !nrecords ? SA_STATUS_NO_RECORDS : SA_STATUS_SUCCESS;
}
