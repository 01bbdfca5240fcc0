/* Control socket requests about this host's own records: hold, release
 * and status (doc/atsd-protocol.md). */
#ifndef IBATS_CTL_RECORDS_H
#define IBATS_CTL_RECORDS_H

#include "agent_conf.h"
#include "sources.h"

/* conf and src stay the caller's. */
void ctl_records_init(const struct agent_conf *conf, struct sources *src);
/* hold|release OWNER IP [PKEY] */
void ctl_records_hold(int slot, char **argv, int argc);
/* Per wanted or owned address: "SID GID PKEY LEASE IP STATE [REASON]". */
void ctl_records_status(int slot, char **argv, int argc);

#endif
