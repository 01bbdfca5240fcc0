/* The ServiceRecord index mirroring OpenSM's list (see mirror.h). */
#include "mirror.h"

#include <errno.h>
#include <string.h>

#include "glue.h"
#include "sr.h"

static struct srx *idx;
static int stale;          /* atomic: rebuild before trusting it */
static uint64_t rebuilds;  /* atomic */

int mirror_init(void)
{
	if (srx_init(&idx))
		return -ENOMEM;
	stale = 1;
	return 0;
}

void mirror_fini(void)
{
	srx_fini(idx);
	idx = NULL;
}

/* Safe without the lock: the index must be rebuilt before use. */
static void invalidate(void)
{
	__atomic_store_n(&stale, 1, __ATOMIC_RELEASE);
}

int mirror_current(void)
{
	if (!glue_steady()) {
		__atomic_store_n(&stale, 1, __ATOMIC_RELAXED);
		return 0;
	}
	return !__atomic_load_n(&stale, __ATOMIC_ACQUIRE) && srx_count(idx) == glue_sr_count();
}

const struct srx *mirror_index(void)
{
	return idx;
}

static int add_one(void *rec, const uint8_t *bytes, void *arg)
{
	int *err = arg;

	*err = srx_add_charged(idx, bytes, rec, glue_port_of_gid(bytes + SR_OFF_GID));
	return *err;
}

/* -ENOMEM leaves the index marked stale. Outside steady state it stays
 * marked stale, so the next writer rebuilds again. */
int mirror_sync(void)
{
	int err = 0;

	if (mirror_current())
		return 0;
	srx_clear(idx);
	/* Oldest first: the index, like the list, puts the newest at the head. */
	glue_sr_walk(1, add_one, &err);
	if (err) {
		srx_clear(idx);
		__atomic_store_n(&stale, 1, __ATOMIC_RELEASE);
		OSM_LOG(glue_log(), OSM_LOG_ERROR,
			"ERR 7A31: out of memory indexing %zu ServiceRecords; "
			"queries fall back to OpenSM's scan\n", glue_sr_count());
		return -ENOMEM;
	}
	__atomic_add_fetch(&rebuilds, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&stale, !glue_steady(), __ATOMIC_RELEASE);
	OSM_LOG(glue_log(), OSM_LOG_VERBOSE, "ServiceRecord index rebuilt: %zu records\n",
		srx_count(idx));
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
	struct srx_ent *e = srx_find_rid(idx, rec);
	void *h;

	if (e) {
		h = srx_handle(e);
		srx_unhook(idx, e);
		glue_sr_replace(h, rec);
		srx_rehook(idx, e);
		return h;
	}
	h = glue_sr_insert(rec);
	if (h && srx_add_charged(idx, glue_sr_rec(h), h, charge))
		invalidate();
	return h;
}

int mirror_delete(const uint8_t *rec, uint8_t *gone)
{
	struct srx_ent *e = srx_find_rid(idx, rec);
	void *h;

	if (!e)
		return -ENOENT;
	h = srx_handle(e);
	memcpy(gone, glue_sr_rec(h), SR_SIZE);
	srx_del(idx, e);
	glue_sr_remove(h);
	return 0;
}

void mirror_remove(void *handle)
{
	struct srx_ent *e = srx_find_rid(idx, glue_sr_rec(handle));

	if (e && srx_handle(e) == handle)
		srx_del(idx, e);
	else
		invalidate();
	glue_sr_remove(handle);
}

uint64_t mirror_rebuilds(void)
{
	return __atomic_load_n(&rebuilds, __ATOMIC_RELAXED);
}
