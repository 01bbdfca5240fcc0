/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* atsctl's commands on ATS records through the SA (ATS spec 3.2-3.4,
 * 4.1-4.2): register, deregister, dump; and port. */
#ifndef IBATS_CMD_RECORDS_H
#define IBATS_CMD_RECORDS_H

struct ctl;
struct ctl_args;

/* Each returns an exit status; the port and SA client are open. */
int cmd_records_register(struct ctl *c, const struct ctl_args *a);
int cmd_records_deregister(struct ctl *c, const struct ctl_args *a);
int cmd_records_dump(struct ctl *c, const struct ctl_args *a);
int cmd_records_port(struct ctl *c, const struct ctl_args *a);

#endif
