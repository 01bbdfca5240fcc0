/* The commands atsd alone answers, on its local resolver socket
 * (hostagent/atsd); the lookups ask it through libibats (cmd_lookup.h). */
#ifndef IBATS_CTL_AGENT_H
#define IBATS_CTL_AGENT_H

struct ctl;
struct ctl_args;

/* The commands atsd answers; exit status 3 when it does not run. */
int cmd_hold(struct ctl *c, const struct ctl_args *a);
int cmd_release(struct ctl *c, const struct ctl_args *a);
int cmd_status(struct ctl *c, const struct ctl_args *a);
int cmd_stats(struct ctl *c, const struct ctl_args *a);
int cmd_ipoib(struct ctl *c, const struct ctl_args *a);
int cmd_resync(struct ctl *c, const struct ctl_args *a);
int cmd_connections(struct ctl *c, const struct ctl_args *a);
int cmd_connect(struct ctl *c, const struct ctl_args *a);
int cmd_disconnect(struct ctl *c, const struct ctl_args *a);

#endif
