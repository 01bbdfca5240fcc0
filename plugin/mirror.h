/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The ServiceRecord index (srindex.c) kept in step with OpenSM's list:
 * changed under the exclusive osm->lock, read under the shared one.
 *
 * OpenSM also changes the list itself: lease expiry (its sr_timer, which
 * the plugin wraps), the SA database load and the SA clean on leaving
 * standby (both in a first master sweep). None of these keeps the count
 * unchanged except a clean followed by a load, which happens only while
 * first_time_master_sweep is set. So the index is trusted only while it
 * holds as many records as the list and no first master sweep runs;
 * otherwise writers rebuild it and readers fall back to OpenSM's scan.
 * Entries point into OpenSM's records: this rule is also what keeps
 * every pointer a reader follows alive (a record is freed only under the
 * exclusive lock, and every free changes the count or is the plugin's). */
#ifndef IBATS_MIRROR_H
#define IBATS_MIRROR_H

#include <stdint.h>

#include "srindex.h"

/* The index starts empty and stale. -ENOMEM. */
int mirror_init(void);
void mirror_fini(void);

/* Under either lock: whether the index mirrors the list. */
int mirror_current(void);
/* The index, for lookups under either lock while it is current. */
const struct srindex *mirror_index(void);
/* Exclusive lock: make the index mirror the list (0), or -ENOMEM. */
int mirror_sync(void);
/* The same, taking the exclusive lock (after OpenSM's lease timer, and
 * from the plugin thread). */
void mirror_resync(void);
/* At HEAVY_SWEEP_START (no lock held): invalidate unless steady master. */
void mirror_sweep_start(void);

/* Exclusive lock, index current. Store a Set's record (rec, SR_SIZE wire
 * bytes) in the list and the index, in place of the one of its RID if
 * any, charged to charge for the per-port cap: its handle, or NULL when
 * out of memory. */
void *mirror_set(const uint8_t *rec, uint64_t charge);
/* Remove the record of rec's RID from both, its bytes copied to gone
 * (SR_SIZE); -ENOENT when there is none. */
int mirror_delete(const uint8_t *rec, uint8_t *gone);
/* Remove one of OpenSM's records (a glue_sr_walk handle) from both. */
void mirror_remove(void *handle);

/* Times the index was rebuilt (any lock). */
uint64_t mirror_rebuilds(void);

#endif
