/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* A rate limit per requesting LID (lidlim.h). */
#include <string.h>

#include "lidlim.h"

void lidlim_init(struct lidlim *l, unsigned burst, uint32_t interval_s)
{
	memset(l->slot, 0, sizeof(l->slot));
	l->burst = burst;
	l->interval_s = interval_s ? interval_s : 1;
}

int lidlim_allow(struct lidlim *l, uint16_t lid, uint64_t now_ns)
{
	/* +1: second 0 of the clock is an interval's start like any other,
	 * and start_s 0 means "never asked" */
	uint32_t now = (uint32_t)(now_ns / 1000000000u) + 1;
	struct lidlim_slot *s;

	if (lid == 0 || lid >= LIDLIM_LIDS)
		return 0;
	s = &l->slot[lid];
	if (!s->start_s || now - s->start_s >= l->interval_s) {
		s->start_s = now;
		s->used = 0;
	}
	if (s->used >= l->burst)
		return 0;
	s->used++;
	return 1;
}
