/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The plugin's index of the SA's ServiceRecords: every record of
 * osm->subn.sa_sr_list, hashed by RID (ServiceID, ServiceGID, ServiceP_Key),
 * by ServiceGID and by ServiceData8 (the ATS address), and kept in the
 * list's order (OpenSM inserts at the head, so newest first) so that
 * answers come out in the order OpenSM's own scan gives.
 *
 * Entries point at the records, which stay where they are, inside the
 * caller's objects (OpenSM's osm_svcr_t, the entry's opaque handle): the
 * index costs about 20 bytes per record and 8 per distinct key at most
 * 7/8 full, not a second copy. Pure data structure: its keeper (mirror.c)
 * does the locking. */
#ifndef IBATS_SRINDEX_H
#define IBATS_SRINDEX_H

#include <stddef.h>
#include <stdint.h>

#include "core/sr.h"

/* Bytes of the RID at the head of a ServiceRecord (what OpenSM's
 * osm_svcr_get_by_rid compares). */
#define SRINDEX_RID_LEN (SR_OFF_RESV)

struct srindex;
struct srindex_ent;

/* Return nonzero to stop the walk. */
typedef int (*srindex_visit_fn)(const struct srindex_ent *e, void *arg);

/* Every handle added holds its record's SR_SIZE wire bytes rec_off bytes
 * in. */
int srindex_init(struct srindex **out, size_t rec_off);
void srindex_fini(struct srindex *x);
void srindex_clear(struct srindex *x);
size_t srindex_count(const struct srindex *x);
/* Bytes held by the index, for the memory-per-record figure. */
size_t srindex_bytes(const struct srindex *x);

/* The longest probe of one key's table (slots stepped over to find a key),
 * to check the hash spreads keys. */
enum srindex_key { SRINDEX_BY_RID, SRINDEX_BY_GID, SRINDEX_BY_DATA8 };
size_t srindex_probe_max(const struct srindex *x, enum srindex_key k);

/* Add handle's record (which must stay valid until srindex_del, and whose
 * RID must not be in the index) as the newest record. -ENOMEM. Adding
 * moves the entries: an entry pointer is good until the next add. */
int srindex_add(struct srindex *x, void *handle);
/* The same, charged to `who` (a port GUID, 0 for GIDs on no port): the
 * index counts the records charged to each, for the per-port cap. */
int srindex_add_charged(struct srindex *x, void *handle, uint64_t who);
size_t srindex_charged(const struct srindex *x, uint64_t who);
struct srindex_ent *srindex_find_rid(const struct srindex *x, const uint8_t *rec);
/* Start loading the table slot where rec's RID, or the address data8, is
 * looked up, so that the cache misses of the several lookups of one Set
 * overlap instead of following each other (with 100k records and more
 * the tables are out of cache: issue 27's profile). */
void srindex_prefetch_rid(const struct srindex *x, const uint8_t *rec);
void srindex_prefetch_data8(const struct srindex *x, const uint8_t *data8);
/* Around an in-place update of an entry's record with one of the same
 * RID (it keeps its place in the order). unhook: -ENOMEM, and nothing
 * changed, when the address table could not make room for the new one. */
int srindex_unhook(struct srindex *x, struct srindex_ent *e);
void srindex_rehook(struct srindex *x, struct srindex_ent *e);
void srindex_del(struct srindex *x, struct srindex_ent *e);

const uint8_t *srindex_rec(const struct srindex_ent *e);
void *srindex_handle(const struct srindex *x, const struct srindex_ent *e);

/* Visit every record matching query on the component mask, byte for byte
 * as OpenSM compares (sr_match), newest first. Narrows by RID, GID or the
 * full ServiceData8 when the mask selects them; scans otherwise. Returns
 * the number visited. */
size_t srindex_query(const struct srindex *x, const uint8_t *query, uint64_t mask,
		     srindex_visit_fn fn, void *arg);

/* Visit the records whose ServiceGID is gid, or whose ServiceData8 is
 * data8, in no particular order. */
void srindex_each_gid(const struct srindex *x, const uint8_t *gid, srindex_visit_fn fn, void *arg);
void srindex_each_data8(const struct srindex *x, const uint8_t *data8, srindex_visit_fn fn, void *arg);

#endif
