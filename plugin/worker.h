/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The plugin thread: flushes the ATS records of departed ports, reloads
 * the settings at SUBNET_UP, keeps the index current after sweeps and
 * when a query found it behind, summarises suppressed refusal lines and
 * writes the state file. OpenSM's callbacks only post work here, since
 * OpenSM may call them with osm->lock held. */
#ifndef IBATS_WORKER_H
#define IBATS_WORKER_H

#include <stdint.h>

/* Start the thread; state_path "" writes no state file. -errno.
 * worker_stop() ends the thread; posts are still taken (and dropped)
 * until worker_fini(), once nothing else can post. */
int worker_start(const char *state_path);
void worker_stop(void);
void worker_fini(void);

/* Queue work; safe with osm->lock held. */
void worker_post_departed(const uint8_t *gid); /* trap 65: GID out of service */
void worker_post_sweep(void);                  /* SUBNET_UP */
void worker_post_state(void);                  /* records or counters changed */
void worker_post_resync(void);                 /* the index is behind */

/* ATS records flushed so far. */
uint64_t worker_flushed(void);
/* The counts of the last scan (the state file's "records"): ATS
 * records, other ServiceRecords, ATS records of absent ports. Any thread. */
void worker_counts(uint64_t *ats, uint64_t *other, uint64_t *absent_recs);

#endif
