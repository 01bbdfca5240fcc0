/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The ServiceRecord index mirroring OpenSM's list (see mirror.h). */
#include "mirror.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "glue.h"
#include "core/sr.h"

static struct {
	/* Built at init; its records change under the exclusive osm->lock
	 * and are read under either. */
	struct srindex *idx;
	/* Lock-free, any thread. */
	atomic_int stale;          /* rebuild before trusting it */
	_Atomic uint64_t rebuilds;
} M;

int mirror_init(void)
{
	if (srindex_init(&M.idx, glue_sr_rec_offset()))
		return -ENOMEM;
	M.stale = 1;
	return 0;
}

void mirror_fini(void)
{
	srindex_fini(M.idx);
	M.idx = NULL;
}

/* Safe without the lock: the index must be rebuilt before use. */
static void invalidate(void)
{
	atomic_store_explicit(&M.stale, 1, memory_order_release);
}

int mirror_current(void)
{
	if (!glue_steady()) {
		atomic_store_explicit(&M.stale, 1, memory_order_relaxed);
		return 0;
	}
	return !atomic_load_explicit(&M.stale, memory_order_acquire) && srindex_count(M.idx) == glue_sr_count();
}

const struct srindex *mirror_index(void)
{
	return M.idx;
}

static int add_one(void *rec, const uint8_t *bytes, void *arg)
{
	int *err = arg;

	*err = srindex_add_charged(M.idx, rec, glue_port_of_gid(bytes + SR_OFF_GID));
	return *err;
}

/* -ENOMEM leaves the index marked stale. Outside steady state it stays
 * marked stale, so the next writer rebuilds again. */
int mirror_sync(void)
{
	int err = 0;

	if (mirror_current())
		return 0;
	srindex_clear(M.idx);
	/* Oldest first: the index, like the list, puts the newest at the head. */
	glue_sr_walk(1, add_one, &err);
	if (err) {
		srindex_clear(M.idx);
		atomic_store_explicit(&M.stale, 1, memory_order_release);
		GLUE_LOG(GLUE_LOG_ERROR,
			 "ERR 7A31: out of memory indexing %zu ServiceRecords; "
			 "queries fall back to OpenSM's scan\n", glue_sr_count());
		return -ENOMEM;
	}
	atomic_fetch_add_explicit(&M.rebuilds, 1, memory_order_relaxed);
	atomic_store_explicit(&M.stale, !glue_steady(), memory_order_release);
	GLUE_LOG(GLUE_LOG_VERBOSE, "ServiceRecord index rebuilt: %zu records\n",
		 srindex_count(M.idx));
	return 0;
}

void mirror_resync(void)
{
	glue_lock_excl();
	mirror_sync();
	glue_unlock();
}

void mirror_sweep_start(void)
{
	/* A first master sweep may clean and reload the SA database. */
	if (!glue_steady())
		invalidate();
}

void *mirror_set(const uint8_t *rec, uint64_t charge)
{
	struct srindex_ent *e = srindex_find_rid(M.idx, rec);
	void *h;

	if (e) {
		h = srindex_handle(M.idx, e);
		if (srindex_unhook(M.idx, e))
			return NULL;
		glue_sr_replace(h, rec);
		srindex_rehook(M.idx, e);
		return h;
	}
	h = glue_sr_insert(rec);
	if (h && srindex_add_charged(M.idx, h, charge))
		invalidate();
	return h;
}

int mirror_delete(const uint8_t *rec, uint8_t *gone)
{
	struct srindex_ent *e = srindex_find_rid(M.idx, rec);
	void *h;

	if (!e)
		return -ENOENT;
	h = srindex_handle(M.idx, e);
	memcpy(gone, glue_sr_rec(h), SR_SIZE);
	srindex_del(M.idx, e);
	glue_sr_remove(h);
	return 0;
}

void mirror_remove(void *handle)
{
	struct srindex_ent *e = srindex_find_rid(M.idx, glue_sr_rec(handle));

	if (e && srindex_handle(M.idx, e) == handle)
		srindex_del(M.idx, e);
	else
		invalidate();
	glue_sr_remove(handle);
}

uint64_t mirror_rebuilds(void)
{
	return atomic_load_explicit(&M.rebuilds, memory_order_relaxed);
}
