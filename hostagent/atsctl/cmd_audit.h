/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* atsctl audit: collect every ATS record of the fabric and check it
 * (lib/host/ats_audit.h), like osmtest -f c / -f v for inventories. */
#ifndef IBATS_CMD_AUDIT_H
#define IBATS_CMD_AUDIT_H

struct ctl;
struct ctl_args;

struct cmd_audit_opts {
	const char *save;       /* write the records found to this file */
	const char *inventory;  /* compare with a file --save wrote */
	const char *state;      /* the plugin's state file */
};

/* Exit status: 0 clean, 1 findings, 3 could not query. */
int cmd_audit(struct ctl *c, const struct ctl_args *a);

#endif
