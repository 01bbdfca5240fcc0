/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* A standby SM's copy of the master's ServiceRecords (replication, see
 * repl.h): records by RID in the master's list order, each with the
 * monotonic time its lease ends. Pure data structure; repl.c locks. */
#ifndef IBATS_SHADOW_H
#define IBATS_SHADOW_H

#include <stddef.h>
#include <stdint.h>

#include "core/sr.h"

#define SHADOW_LEASE_INFINITE 0 /* lease_end value of a record that never expires */

struct shadow;

/* The monotonic end of a lease of lease_s seconds (SR_LEASE_INFINITE:
 * none) from now, and the whole seconds left of one at now (0 when over,
 * SR_LEASE_INFINITE when none). */
int64_t shadow_lease_end(uint32_t lease_s, int64_t now_ms);
uint32_t shadow_lease_left(int64_t end_ms, int64_t now_ms);

int shadow_init(struct shadow **out);
void shadow_fini(struct shadow *s);
void shadow_clear(struct shadow *s);
size_t shadow_count(const struct shadow *s);

/* The record of rec's RID becomes rec (in its place), or rec is added as
 * the newest. -ENOMEM. */
int shadow_set(struct shadow *s, const uint8_t *rec, int64_t lease_end_ms);
/* Remove the record of rec's RID; -ENOENT when there is none. */
int shadow_delete(struct shadow *s, const uint8_t *rec);
/* Take over everything of from (emptied). */
void shadow_move(struct shadow *to, struct shadow *from);

/* Every record, oldest first (the order that rebuilds the master's list
 * by inserting each at the head). Returns nonzero from fn to stop. */
typedef int (*shadow_fn)(const uint8_t *rec, int64_t lease_end_ms, void *arg);
int shadow_each_oldest_first(const struct shadow *s, shadow_fn fn, void *arg);

#endif
