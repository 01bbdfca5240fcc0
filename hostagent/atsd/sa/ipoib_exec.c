/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* IPoIB broadcast group membership through the SA's MCMemberRecord
 * (IBTA Vol 1 15.2.5.17), one group per PKey. */
#include <errno.h>

#include "core/ipoib.h"
#include "ipoib_exec.h"
#include "core/mcm.h"

void ipoib_exec_run(struct sa_client *sa, struct saj *j)
{
	struct saj_ipoib *p = &j->u.ipoib;
	size_t i;

	for (i = 0; i < p->ngroups; i++) {
		struct saj_group *g = &p->groups[i];
		uint8_t mgid[16];

		/* The kernel's group: read it, never join or leave. */
		if (!g->manage && p->op == SAJ_LEAVE)
			continue;
		ipoib_bcast_mgid(g->pkey, mgid);
		j->queries++;
		if (!g->manage) {
			g->err = sa_client_mcm_member(sa, mgid, &g->rec);
		} else if (p->op == SAJ_LEAVE) {
			g->err = sa_client_mcm_leave(sa, mgid);
		} else if (p->op == SAJ_JOIN) {
			g->err = sa_client_mcm_join(sa, mgid, &g->rec);
		} else {
			g->err = sa_client_mcm_member(sa, mgid, &g->rec);
			if (g->err == -ENOENT) {
				j->queries++;
				g->err = sa_client_mcm_join(sa, mgid, &g->rec);
				g->joined = !g->err;
			}
		}
		g->sa_status = g->err ? sa_client_last_status(sa) : 0;
	}
}
