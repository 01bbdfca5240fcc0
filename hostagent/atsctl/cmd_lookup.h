/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* atsctl's lookups through libibats (libibats(7)): resolve, reverse and
 * primary, from atsd's cache when it runs, else from the SA (ATS spec
 * 3.2-3.4, 4.2). */
#ifndef IBATS_CMD_LOOKUP_H
#define IBATS_CMD_LOOKUP_H

struct ctl;
struct ctl_args;

/* Each opens the library handle (ctl.ats) and returns an exit status. */
int cmd_lookup_resolve(struct ctl *c, const struct ctl_args *a);
int cmd_lookup_reverse(struct ctl *c, const struct ctl_args *a);
int cmd_lookup_primary(struct ctl *c, const struct ctl_args *a);

#endif
