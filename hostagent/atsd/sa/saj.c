/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Jobs for the SA thread: allocation by kind and release of what a job
 * owns. */
#include <stdlib.h>

#include "saj.h"

size_t saj_size(enum saj_kind kind)
{
	size_t head = offsetof(struct saj, u);

	switch (kind) {
	case SAJ_SYNC:
		return head + sizeof(struct saj_sync);
	case SAJ_LOOKUP:
	case SAJ_TABLE:
		return head + sizeof(struct saj_lookup);
	case SAJ_IPOIB:
		return head + sizeof(struct saj_ipoib);
	case SAJ_CONNECT:
	case SAJ_DISCONNECT:
	case SAJ_CONNS:
		return head + sizeof(struct saj_cm);
	case SAJ_INFORM:
		return head + sizeof(struct saj_inform);
	case SAJ_REPORT:
		return head + sizeof(struct saj_report);
	case SAJ_LID:
		return head + sizeof(struct saj_lid);
	default:
		return head;
	}
}

struct saj *saj_new(enum saj_kind kind, saj_done_fn *done, void *ctx)
{
	struct saj *j = calloc(1, saj_size(kind));

	if (!j)
		return NULL;
	j->kind = kind;
	j->done = done;
	j->ctx = ctx;
	return j;
}

void saj_free(struct saj *j)
{
	if (!j)
		return;
	if (j->kind == SAJ_SYNC) {
		free(j->u.sync.want);
		free(j->u.sync.owned);
		free(j->u.sync.foreign);
		free(j->u.sync.refused);
		free(j->u.sync.result);
		free(j->u.sync.filed);
		free(j->u.sync.unsaved);
	} else if (j->kind == SAJ_LOOKUP || j->kind == SAJ_TABLE) {
		free(j->u.lookup.recs);
	}
	free(j);
}
