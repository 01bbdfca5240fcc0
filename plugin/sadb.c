/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* OpenSM's SA database file after a takeover's install (see sadb.h). */
#include "sadb.h"

#include "glue.h"

#include <stdlib.h>
#include <string.h>

#include "srindex.h"

/* A record's RID (what osm_svcr_get_by_rid compares, and so what the
 * load skips when present). */
struct rid {
	uint8_t b[SRINDEX_RID_LEN];
};

/* OpenSM's state manager thread alone: the takeover's install and the
 * routing event of the sweep that follows both run on it. */
static struct {
	int armed;          /* a copy went in and its sweep's load is ahead */
	struct rid *rids;   /* the copy's, sorted */
	size_t n;
} S;

void sadb_init(void)
{
	memset(&S, 0, sizeof(S));
}

void sadb_fini(void)
{
	free(S.rids);
	memset(&S, 0, sizeof(S));
}

static int rid_cmp(const void *a, const void *b)
{
	return memcmp(a, b, SRINDEX_RID_LEN);
}

static int gather_one(void *h, const uint8_t *bytes, void *arg)
{
	(void)h;
	(void)arg;
	memcpy(S.rids[S.n++].b, bytes, SRINDEX_RID_LEN);
	return 0;
}

void sadb_installed(void)
{
	size_t n = glue_sr_count();

	sadb_fini();
	if (!glue_sa_db_file())
		return;
	/* At least one: bsearch wants a valid base even when empty. */
	S.rids = malloc((n ? n : 1) * sizeof(*S.rids));
	if (!S.rids) {
		GLUE_LOG(GLUE_LOG_INFO,
			 "WRN 7A49: out of memory remembering the %zu installed ServiceRecords: "
			 "the SA database file %s may bring back records deleted while another "
			 "SM was master\n", n, glue_sa_db_file());
		return;
	}
	glue_sr_walk(0, gather_one, NULL);
	qsort(S.rids, S.n, sizeof(*S.rids), rid_cmp);
	S.armed = 1;
}

static int drop_one(void *h, const uint8_t *bytes, void *arg)
{
	size_t *dropped = arg;

	if (!bsearch(bytes, S.rids, S.n, sizeof(*S.rids), rid_cmp)) {
		/* The index is stale in a first master sweep (mirror.h) and
		 * rebuilt at SUBNET_UP: the list alone changes here, as at
		 * the install. */
		glue_sr_remove(h);
		(*dropped)++;
	}
	return 0;
}

void sadb_after_load(void)
{
	size_t dropped = 0;

	if (!S.armed)
		return;
	glue_lock_excl();
	glue_sr_walk(0, drop_one, &dropped);
	/* The load cleared OpenSM's dirty flag that the install set: the
	 * file would keep the old list until the next change. The dump at
	 * the end of this sweep writes the copy instead. */
	glue_sr_dirty();
	glue_unlock();
	if (dropped)
		GLUE_LOG(GLUE_LOG_INFO,
			 "WRN 7A49: %zu ServiceRecords of the SA database file %s dropped: the "
			 "copy installed at this takeover is newer and has none of them (deleted, "
			 "expired or flushed while another SM was master)\n",
			 dropped, glue_sa_db_file());
	sadb_fini();
}
