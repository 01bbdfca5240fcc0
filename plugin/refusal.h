/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The refusal log lines' limiter (ratelim.c) and its summaries: the
 * first lines per requester and interval are logged, the rest counted
 * into one WRN 7A13 line when the interval ends. */
#ifndef IBATS_REFUSAL_H
#define IBATS_REFUSAL_H

#include <stdint.h>

/* The key of a requester known only by its LID (others are keyed by
 * port GUID). */
#define REFUSAL_LID (1ull << 63)

/* Kinds of refusal beyond the ATS rules (rule.h): OpenSM's own checks
 * of a ServiceRecord Set or Delete, which the handler makes for every
 * service (osm_sa_service_record.c). */
enum refusal_kind {
	REFUSAL_SA_REQUEST = 12, /* a MAD or component mask OpenSM refuses */
	REFUSAL_SA_PKEY,         /* validate_sr(): a port lacks the P_Key */
	REFUSAL_SA_NO_RECORD,    /* a Delete of no record */
	REFUSAL_UNKNOWN = 15,    /* a requester the SA cannot place (RATELIM_KINDS - 1) */
};

void refusal_init(void);
/* A kind's name in the summary line (WRN 7A13). */
const char *refusal_kind_name(unsigned kind);
/* Whether a refusal line of kind (an enum rule or a refusal_kind) from who may be logged now; logs the summary of an
 * earlier interval this one closes. Any lock. */
int refusal_allowed(uint64_t who, unsigned kind);
/* When the next summary is due (mono_ns), 0 when none is pending. */
uint64_t refusal_next_due(void);
/* Log the summaries whose interval is over. */
void refusal_expire(void);

#endif
