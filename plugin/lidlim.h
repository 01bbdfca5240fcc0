/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* A rate limit per requesting port, sized to the LID space: every
 * unicast LID (IBTA Vol 1 4.1.3, 0x0001-0xBFFF) has its own counter, so
 * a port that asks rarely is answered however many others ask or flood.
 * A table of requesters (ratelim.h) fills up and then makes every port
 * past it share one budget; this one cannot. A port's LMC range is one
 * requester (the caller passes its base LID). 8 bytes a LID: 384 KiB,
 * held inline (a static limiter costs no allocation that could fail).
 *
 * Pure: the caller passes the time (monotonic ns) and does the locking. */
#ifndef IBATS_LIDLIM_H
#define IBATS_LIDLIM_H

#include <stdint.h>

#define LIDLIM_LIDS 0xC000u /* unicast LIDs 1..0xBFFF, and 0 */

struct lidlim_slot {
	uint32_t start_s; /* the interval's start, in seconds of the clock */
	uint32_t used;    /* answers in it */
};

struct lidlim {
	unsigned burst;
	uint32_t interval_s;
	struct lidlim_slot slot[LIDLIM_LIDS];
};

void lidlim_init(struct lidlim *l, unsigned burst, uint32_t interval_s);
/* 1 when lid may be answered at now (counted), 0 when it is over its
 * burst for the interval; a LID outside the unicast range is never. */
int lidlim_allow(struct lidlim *l, uint16_t lid, uint64_t now_ns);

#endif
