/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The SM query class on the plugin's port (lib/core/smq.h): a port asks
 * why its last requests were refused (its own only: the requester is
 * the port at the MAD's source LID, which the fabric sets), and what the
 * plugin sees (`atsctl sm`): role, version and record counts for anyone,
 * replication and the rule counters for trusted requesters (trusted_guids,
 * or the site sa_key in the request). Answers are rate-limited per
 * source port (its LIDs under the LMC) before OpenSM's lock (BUSY beyond), taken from snapshots:
 * OpenSM's lock only briefly, to place the requester and check its
 * partitions; on the master only, whose LID table is current. */
#ifndef IBATS_SMQUERY_H
#define IBATS_SMQUERY_H

#include "responder.h"

/* Answers per source port (LID under the LMC) and interval before BUSY,
 * counted per LID (lidlim.h): a port that asks rarely is answered
 * however many others flood. */
#define SMQUERY_BURST 16
#define SMQUERY_INTERVAL_S 10

void smquery_init(void);
const struct responder_ext *smquery_ext(void);

#endif
