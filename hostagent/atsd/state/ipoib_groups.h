/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The IPoIB broadcast groups of the interfaces' partitions (one per
 * PKey). A group atsd manages is joined after the first sync and after SM
 * changes, checked at each verify (an SM restart we saw no event of loses
 * memberships too) and left at exit. A group of a kernel IPoIB interface
 * is the kernel's (ipoib_membership, atsd.conf(5)): atsd only reads the
 * membership and reports it, since OpenSM drops a port's FullMember state
 * on a leave from the port, whoever joined (IBTA Vol 1 15.2.5.17). */
#ifndef IBATS_IPOIB_GROUPS_H
#define IBATS_IPOIB_GROUPS_H

#include <stddef.h>

#include "sa/sa_thread.h"
#include "main/sources.h"

/* left: a leave came back (the last step of a shutdown). src stays the
 * caller's. */
void ipoib_groups_init(struct sa_thread *saj, const struct agent_conf *conf,
		       const struct sources *src, void (*left)(void));
/* Join, leave or check the groups of the interfaces' PKeys. */
void ipoib_groups_submit(enum saj_ipoib_op op);
/* A join went out and no leave yet. */
int ipoib_groups_joined(void);
/* The groups were joined or first read: check them at each verify. */
int ipoib_groups_started(void);
/* The outcome of the last join or check, per group. */
const struct saj_group *ipoib_groups_list(size_t *n);

#endif
