/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The control socket's requests: atsd_proto's verb table bound to the
 * modules that answer them, the privilege check, and the requests that
 * only read atsd's state (stats, ipoib) or poke it (verify). */
#ifndef IBATS_CTL_VERBS_H
#define IBATS_CTL_VERBS_H

#include <stdint.h>

#include "host/agent_conf.h"
#include "host/atsd_proto.h"
#include "main/sources.h"

/* conf and src stay the caller's. */
void ctl_verbs_init(const struct agent_conf *conf, const struct sources *src);
/* One request line of client slot (ctl_sock_line_fn). */
void ctl_verbs_line(int slot, char *line);
/* The figures the stats request answers with. */
void ctl_verbs_stats_collect(uint64_t v[ATSD_PROTO_STATS]);

#endif
