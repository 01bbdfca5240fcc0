/* Control socket requests about this host's own records: hold, release
 * and status (doc/atsd-protocol.md). */
#ifndef IBATS_CTL_RECORDS_H
#define IBATS_CTL_RECORDS_H

#include <stdint.h>

#include "agent_conf.h"
#include "own_records.h"
#include "sources.h"

/* The states of status lines: own_addr's, then an owned address that is
 * no longer wanted. */
#define CTL_REC_REMOVING (OWN_PENDING + 1)
#define CTL_REC_STATES (CTL_REC_REMOVING + 1)
extern const char *const ctl_rec_state_names[CTL_REC_STATES];

/* conf and src stay the caller's. */
void ctl_records_init(const struct agent_conf *conf, struct sources *src);
/* hold|release OWNER IP [PKEY] */
void ctl_records_hold(int slot, char **argv, int argc);
/* Per wanted or owned address: "SID GID PKEY LEASE IP STATE [REASON]". */
void ctl_records_status(int slot, char **argv, int argc);
/* Addresses in each of those states, as status would list them. 0 or
 * -ENOMEM. */
int ctl_records_count(uint64_t n[CTL_REC_STATES]);

#endif
