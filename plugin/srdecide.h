/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The ServiceRecord Set/Delete decision, pure: from the decoded request,
 * what is known of the requester and what the index holds, which answer
 * the SA gives and what it does. sr_handler.c gathers the inputs under
 * osm->lock and carries the outcome out; the checks and their order are
 * OpenSM's (osm_sa_service_record.c: validate_sr(), then
 * sr_rcv_process_set_method / _delete_method) with the ATS rules
 * (policy.c) and the per-port cap before them. */
#ifndef IBATS_SRDECIDE_H
#define IBATS_SRDECIDE_H

#include <stddef.h>
#include <stdint.h>

#include "policy.h"

struct srdecide_in {
	/* Decoded (policy_request_decode); for an ATS request the facts of
	 * policy_decide() filled in too (owns_gid, trusted, ...), and for a Set
	 * is_new and charged. */
	const struct policy_request *req;
	const struct rule_config *pol;
	const struct policy_peer *peers; /* the records policy_decide() consults */
	size_t npeers;
	int req_holds_pkey;  /* the requester's port holds the P_Key's base */
	int gid_holds_pkey;  /* the ServiceGID's port does */
	uint64_t gid_port;   /* the ServiceGID's port GUID, 0 when none */
};

enum srdecide_act {
	SRDECIDE_REFUSE,     /* answer status, change nothing */
	SRDECIDE_SET,
	SRDECIDE_DELETE,     /* NO_RECORDS then when the index has no such RID */
};

/* Who refused: the ATS rules (rules), the cap (cap), or OpenSM's own
 * checks (kind REFUSAL_SA_*, code and why for the log line). */
enum srdecide_by { SRDECIDE_BY_NONE, SRDECIDE_BY_RULES, SRDECIDE_BY_CAP, SRDECIDE_BY_SA };

struct srdecide_out {
	enum srdecide_act act;
	uint16_t status;          /* SA_STATUS_* (sa.h, unshifted) when refused */
	enum srdecide_by by;
	int ats;                  /* the ATS rules ran: rules holds their verdict */
	struct policy_decision rules;
	struct policy_decision cap;  /* by CAP: the cap's verdict */
	unsigned kind;            /* by SA */
	const char *code, *why;   /* by SA */
	int lease_infinite;       /* SET: no lease in the mask, store none */
	int default_pkey;         /* SET: no P_Key in the mask, answer 0xffff */
};

void srdecide_change(const struct srdecide_in *in, struct srdecide_out *out);

/* Whether a Get's answer holds rec (PKey-filtered for the requester, as
 * OpenSM's get_matching_sr() does): requester_holds says whether the
 * requester's port holds rec's P_Key. */
int srdecide_visible(uint16_t rec_pkey, int requester_holds);
/* A Get (not GetTable) of no record is answered NO_RECORDS. */
uint16_t srdecide_get_status(int get_table, size_t nrecords);

#endif
