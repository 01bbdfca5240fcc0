/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* atsctl purge: delete the ATS records of ports that left the fabric
 * (audit's gid-absent finding), which the plugin keeps with
 * flush_departed no. A dry run unless told --yes. */
#ifndef IBATS_CMD_PURGE_H
#define IBATS_CMD_PURGE_H

struct ctl;
struct ctl_args;

/* Exit status: 0 listed or all deleted, 3 a query or a Delete failed. */
int cmd_purge(struct ctl *c, const struct ctl_args *a);

#endif
