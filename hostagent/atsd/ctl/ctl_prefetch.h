/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The lookup cache filled ahead (atsd.conf prefetch_max): the ATS table
 * of the default partition read with one SubnAdmGetTable once the SA
 * answers, after every SM change and every cache_ttl, and every address
 * in it cached with the answer a forward lookup would get. Only while
 * the table is small: one larger than prefetch_max is dropped and read
 * again after cache_ttl, then 2x and 4x cache_ttl while it stays too
 * large, at once when the SM changes. An address not in the table still
 * goes to the SA: the table never answers "no record". */
#ifndef IBATS_CTL_PREFETCH_H
#define IBATS_CTL_PREFETCH_H

#include <stdint.h>

#include "host/agent_conf.h"
#include "sa/sa_thread.h"

struct ctl_prefetch_stats {
	uint64_t tables;       /* tables read and cached */
	uint64_t records;      /* records of the last one */
};

void ctl_prefetch_init(struct sa_thread *saj, const struct agent_conf *conf);
/* The SA answers (a sync went through): read the table if it is due. */
void ctl_prefetch_start(void);
/* A new SM (the cache was cleared): read it again now, even if it was
 * too large before. */
void ctl_prefetch_sm_changed(void);
/* Submits the read when it is due; the next time it is, INT64_MAX when
 * none is planned. */
int64_t ctl_prefetch_timers(int64_t now);
void ctl_prefetch_stats(struct ctl_prefetch_stats *st);

#endif
