/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Control socket requests about this host's own records: hold, release,
 * holds, status and verify (doc/atsd-protocol.md). */
#ifndef IBATS_CTL_RECORDS_H
#define IBATS_CTL_RECORDS_H

#include <stdint.h>

#include "host/agent_conf.h"
#include "state/own_records.h"
#include "main/sources.h"

/* The states of status lines: own_records_addr's, then an owned address that is
 * no longer wanted. */
#define CTL_RECORDS_REMOVING (OWN_RECORDS_PENDING + 1)
#define CTL_RECORDS_STATES (CTL_RECORDS_REMOVING + 1)
extern const char *const ctl_records_state_names[CTL_RECORDS_STATES];

/* conf and src stay the caller's. */
void ctl_records_init(const struct agent_conf *conf, struct sources *src);
/* hold|release OWNER IP [PKEY] */
void ctl_records_hold(int slot, char **argv, int argc);
/* Per wanted or owned address: "SID GID PKEY LEASE IP STATE [REASON]". */
void ctl_records_status(int slot, char **argv, int argc);
/* holds: "OWNER UID IP PKEY" per hold. */
void ctl_records_holds(int slot, char **argv, int argc);
/* verify (atsctl resync): refused addresses retried at once, a full
 * sync, and the answer when it ends: what it did, then the addresses
 * still refused as status lines. */
void ctl_records_resync(int slot, char **argv, int argc);
/* own_records_hooks.full_done: answers the resyncs waiting for full sync seq. */
void ctl_records_full_done(uint64_t seq, const struct own_records_resync *r);
/* Addresses in each of those states, as status would list them. 0 or
 * -ENOMEM. */
int ctl_records_count(uint64_t n[CTL_RECORDS_STATES]);

#endif
