/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The commands atsd alone answers, on its local resolver socket
 * (hostagent/atsd); the lookups ask it through libibats (cmd_lookup.h). */
#ifndef IBATS_CMD_AGENT_H
#define IBATS_CMD_AGENT_H

struct ctl;
struct ctl_args;

/* The commands atsd answers; exit status 3 when it does not run. */
int cmd_agent_hold(struct ctl *c, const struct ctl_args *a);
int cmd_agent_release(struct ctl *c, const struct ctl_args *a);
int cmd_agent_status(struct ctl *c, const struct ctl_args *a);
int cmd_agent_stats(struct ctl *c, const struct ctl_args *a);
int cmd_agent_ipoib(struct ctl *c, const struct ctl_args *a);
int cmd_agent_resync(struct ctl *c, const struct ctl_args *a);
int cmd_agent_connections(struct ctl *c, const struct ctl_args *a);
int cmd_agent_connect(struct ctl *c, const struct ctl_args *a);
int cmd_agent_disconnect(struct ctl *c, const struct ctl_args *a);

#endif
