/* The IPoIB broadcast groups of the interfaces' partitions (one per
 * PKey): joined after the first sync and after SM changes, checked at each
 * verify (an SM restart we saw no event of loses memberships too), left
 * at exit. */
#ifndef IBATS_IPOIB_GROUPS_H
#define IBATS_IPOIB_GROUPS_H

#include <stddef.h>

#include "sa_thread.h"
#include "sources.h"

/* left: a leave came back (the last step of a shutdown). src stays the
 * caller's. */
void groups_init(struct saj_thread *saj, const struct sources *src, void (*left)(void));
/* Join, leave or check the groups of the interfaces' PKeys. */
void groups_submit(enum saj_ipoib_op op);
/* A join went out and no leave yet. */
int groups_joined(void);
/* The outcome of the last join or check, per group. */
const struct saj_group *groups_list(size_t *n);

#endif
