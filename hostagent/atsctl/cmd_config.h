/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* atsctl check-config: atsd.conf or osmats.conf checked offline by the
 * parser atsd or the plugin loads it with, as sshd -t does. */
#ifndef IBATS_CMD_CONFIG_H
#define IBATS_CMD_CONFIG_H

struct ctl;
struct ctl_args;

/* 0 valid; 1 with "path:line: what" on stderr. */
int cmd_config_check(struct ctl *c, const struct ctl_args *a);

#endif
