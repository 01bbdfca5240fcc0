/* The plugin thread (see worker.h). */
#include "worker.h"

#include "glue.h"

#include <opensm/osm_version.h>

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ats.h"
#include "metrics.h"
#include "mirror.h"
#include "mono.h"
#include "refusal.h"
#include "replica.h"
#include "settings.h"
#include "sr_handler.h"
#include "state_file.h"

struct missing {
	uint8_t gid[16];
	uint32_t sweeps; /* SUBNET_UPs seen with the port absent */
};

static char state_path[OSMATS_CONF_PATH_MAX + 32]; /* "" when off */
static char prom_path[OSMATS_CONF_PATH_MAX + 32];  /* osmats.prom beside it */
static pthread_t thread;

/* The work posted to the thread, from OpenSM's threads and the
 * responder's: all of it under mu. */
static struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;      /* on CLOCK_MONOTONIC */
	int stop;
	int want_sweep;         /* SUBNET_UP seen: reconcile, reload, write state */
	int want_state;         /* records changed: write state */
	int want_resync;        /* a query found the index behind: rebuild it */
	uint8_t (*departed)[16]; /* GIDs of trap 65 not yet handled */
	size_t ndeparted, capdeparted;
} P = { .mu = PTHREAD_MUTEX_INITIALIZER };
static int resync_posted;  /* atomic: want_resync is set or being served */
static uint64_t flushed_total; /* atomic */
static uint64_t counted[3];    /* atomic: the last scan's ATS, other, absent */

/* The thread's own. */
static struct missing *missing;
static size_t nmissing;
static struct state_summary summary; /* the state file's last scan */
static struct state_rec *absent;
static size_t nabsent;
static uint64_t scanned_sets;        /* srh_sets() at that scan */
static uint64_t scanned_at;          /* (uint64_t)mono_ns(), 0 = never */

static void post(int sweep, int state)
{
	pthread_mutex_lock(&P.mu);
	P.want_sweep |= sweep;
	P.want_state |= state;
	pthread_cond_signal(&P.cv);
	pthread_mutex_unlock(&P.mu);
}

void worker_post_sweep(void)
{
	post(1, 0);
}

void worker_post_state(void)
{
	post(0, 1);
}

void worker_post_resync(void)
{
	if (__atomic_exchange_n(&resync_posted, 1, __ATOMIC_ACQ_REL))
		return;
	pthread_mutex_lock(&P.mu);
	P.want_resync = 1;
	pthread_cond_signal(&P.cv);
	pthread_mutex_unlock(&P.mu);
}

void worker_post_departed(const uint8_t *gid)
{
	pthread_mutex_lock(&P.mu);
	if (P.ndeparted == P.capdeparted) {
		size_t cap = P.capdeparted ? 2 * P.capdeparted : 8;
		uint8_t (*n)[16] = realloc(P.departed, cap * sizeof(*n));

		if (!n) {
			/* The next SUBNET_UP reconciliation still finds it. */
			pthread_mutex_unlock(&P.mu);
			return;
		}
		P.departed = n;
		P.capdeparted = cap;
	}
	memcpy(P.departed[P.ndeparted++], gid, 16);
	pthread_cond_signal(&P.cv);
	pthread_mutex_unlock(&P.mu);
}

uint64_t worker_flushed(void)
{
	return __atomic_load_n(&flushed_total, __ATOMIC_RELAXED);
}

void worker_counts(uint64_t *ats, uint64_t *other, uint64_t *absent_recs)
{
	*ats = __atomic_load_n(&counted[0], __ATOMIC_RELAXED);
	*other = __atomic_load_n(&counted[1], __ATOMIC_RELAXED);
	*absent_recs = __atomic_load_n(&counted[2], __ATOMIC_RELAXED);
}

static int is_ats(const struct sr_record *r)
{
	return ats_sid_in_block(r->id) && ats_name_is_ats(r->name);
}

struct flush_walk {
	uint8_t (*gids)[16];
	size_t n;
	const char *why;
	unsigned flushed;
	uint64_t seq;   /* the last flush's, for the standbys */
};

static int flush_one(void *h, const uint8_t *bytes, void *arg)
{
	struct flush_walk *w = arg;
	char gid[ATS_IP_STRLEN], ip[ATS_IP_STRLEN];
	struct sr_record r;
	size_t i;

	sr_decode(bytes, SR_SIZE, &r);
	if (!is_ats(&r))
		return 0;
	for (i = 0; i < w->n; i++)
		if (!memcmp(w->gids[i], r.gid, 16))
			break;
	if (i == w->n)
		return 0;
	ats_data8_str(r.data8, ip, sizeof(ip));
	OSM_LOG(glue_log(), OSM_LOG_INFO,
		"WRN 7A10: flushed ATS record of departed port (%s): SID 0x%016" PRIx64
		" GID %s PKey 0x%04x IP %s\n", w->why, r.id,
		ats_gid_format(r.gid, gid, sizeof(gid)), r.pkey, ip);
	w->seq = replica_log_delete(bytes, NULL);
	mirror_remove(h);
	w->flushed++;
	return 0;
}

/* Remove every ATS record of the GIDs in gids[]. Takes osm->lock. */
static unsigned flush_gids(uint8_t (*gids)[16], size_t n, const char *why)
{
	struct flush_walk w = { .gids = gids, .n = n, .why = why };

	if (!n)
		return 0;
	glue_lock_excl();
	if (mirror_sync()) {
		glue_unlock();
		return 0;
	}
	glue_sr_walk(0, flush_one, &w);
	if (w.flushed)
		glue_sr_dirty(); /* so sa_db_dump writes the change */
	glue_unlock();
	replica_publish(w.seq);
	return w.flushed;
}

static struct missing *missing_find(const uint8_t *gid)
{
	size_t i;

	for (i = 0; i < nmissing; i++)
		if (!memcmp(missing[i].gid, gid, 16))
			return &missing[i];
	return NULL;
}

struct absent_walk {
	struct missing *now;
	size_t nnow;
};

static int note_absent(void *h, const uint8_t *bytes, void *arg)
{
	struct absent_walk *w = arg;
	struct missing *n, *m;
	struct sr_record r;
	size_t i;

	(void)h;
	sr_decode(bytes, SR_SIZE, &r);
	if (!is_ats(&r) || glue_gid_on_fabric(r.gid))
		return 0;
	for (i = 0; i < w->nnow; i++)
		if (!memcmp(w->now[i].gid, r.gid, 16))
			return 0;
	n = realloc(w->now, (w->nnow + 1) * sizeof(*n));
	if (!n)
		return 1;
	w->now = n;
	memcpy(n[w->nnow].gid, r.gid, 16);
	m = missing_find(r.gid);
	n[w->nnow].sweeps = (m ? m->sweeps : 0) + 1;
	w->nnow++;
	return 0;
}

/* At SUBNET_UP: count sweeps for which each ATS GID's port has been
 * absent; flush those absent for more than flush_grace_sweeps sweeps. */
static unsigned reconcile(uint32_t grace)
{
	struct absent_walk w = { .now = NULL };
	uint8_t (*gone)[16] = NULL;
	size_t ngone = 0, i;
	unsigned flushed;

	glue_lock_shared();
	glue_sr_walk(0, note_absent, &w);
	glue_unlock();

	for (i = 0; i < w.nnow; i++) {
		uint8_t (*g)[16];

		if (w.now[i].sweeps <= grace)
			continue;
		/* Out of memory: flush what is gathered, the rest next sweep. */
		g = realloc(gone, (ngone + 1) * sizeof(*gone));
		if (!g)
			break;
		gone = g;
		memcpy(gone[ngone++], w.now[i].gid, 16);
	}
	flushed = flush_gids(gone, ngone, "absent at SUBNET_UP");
	free(gone);
	free(missing);
	missing = w.now;
	nmissing = w.nnow;
	return flushed;
}

static const char *sm_state_name(uint8_t s)
{
	static const char *const names[] = { "not-active", "discovering", "standby", "master" };

	return s < 4 ? names[s] : "unknown";
}

struct scan_walk {
	struct state_summary sum;
	struct state_rec *recs;
	size_t n;
};

static int scan_one(void *h, const uint8_t *bytes, void *arg)
{
	struct scan_walk *w = arg;
	struct sr_record r;
	struct missing *m;
	int ats;

	(void)h;
	sr_decode(bytes, SR_SIZE, &r);
	ats = is_ats(&r);
	state_file_summary_add(&w->sum, &r, ats);
	if (!ats || glue_gid_on_fabric(r.gid))
		return 0;
	w->sum.absent++;
	if (!w->recs || w->n == STATE_MAX_ABSENT)
		return 0;
	state_file_rec_from(&w->recs[w->n], &r);
	m = missing_find(r.gid);
	w->recs[w->n++].missing_sweeps = m ? m->sweeps : 0;
	return 0;
}

/* The scan behind the state file's counts and absent-port records:
 * one pass over the list under the shared lock, no copy of what is on
 * the fabric. */
static void scan_state(void)
{
	struct scan_walk w;

	memset(&w, 0, sizeof(w));
	w.recs = malloc(STATE_MAX_ABSENT * sizeof(*w.recs));
	glue_lock_shared();
	glue_sr_walk(0, scan_one, &w);
	glue_unlock();
	w.sum.scanned = (long long)time(NULL);
	free(absent);
	absent = w.recs;
	nabsent = w.n;
	summary = w.sum;
	__atomic_store_n(&counted[0], w.sum.ats, __ATOMIC_RELAXED);
	__atomic_store_n(&counted[1], w.sum.other, __ATOMIC_RELAXED);
	__atomic_store_n(&counted[2], w.sum.absent, __ATOMIC_RELAXED);
	scanned_sets = srh_sets();
	scanned_at = (uint64_t)mono_ns();
}

/* The state file from the last scan and the live counters: a few
 * kilobytes, whatever the number of records. */
static void write_state(void)
{
	struct state_counters cnt;
	struct state_index idx;
	struct state_info info;
	struct state_repl repl;
	const struct metrics_src msrc = { &info, &summary, &cnt, &idx, &repl };
	int ret;

	if (!state_path[0])
		return;
	glue_lock_shared();
	idx.records = srx_count(mirror_index());
	idx.bytes = srx_bytes(mirror_index());
	glue_unlock();
	info.sm_state = sm_state_name(glue_sm_state());
	idx.rebuilds = mirror_rebuilds();
	srh_index_stats(&idx);
	info.opensm = OSM_VERSION;
	info.time = (long long)time(NULL);
	srh_counters(&cnt);
	cnt.flushed = worker_flushed();
	replica_state(&repl);
	ret = state_file_write(state_path, &info, &summary, absent, nabsent, &cnt, &idx, &repl);
	if (ret)
		OSM_LOG(glue_log(), OSM_LOG_ERROR, "ERR 7A12: cannot write %s: %s\n",
			state_path, strerror(-ret));
	/* The same figures for Prometheus; a failure of one file does not
	 * keep the other from being written. */
	ret = metrics_write(prom_path, &msrc);
	if (ret)
		OSM_LOG(glue_log(), OSM_LOG_ERROR, "ERR 7A12: cannot write %s: %s\n",
			prom_path, strerror(-ret));
}

/* Changes are coalesced into at most one state file write per interval;
 * sweeps and flushes write at once. The scan of every record (its
 * counts) runs at sweeps and flushes, and after Sets at most once per
 * STATE_SCAN_INTERVAL_NS: with 100k records it holds the shared lock for
 * milliseconds, which Sets wait for. */
#define STATE_MIN_INTERVAL_NS 1000000000ull
#define STATE_SCAN_INTERVAL_NS (10 * 1000000000ull)

static void *worker_main(void *arg)
{
	uint64_t last_write = 0, next_write, due, scan_due;

	(void)arg;
	pthread_mutex_lock(&P.mu);
	while (!P.stop) {
		uint8_t (*gids)[16];
		size_t ngids;
		int sweep, state, master;
		struct osmats_conf conf;
		unsigned flushed = 0;

		if (P.want_resync) {
			P.want_resync = 0;
			pthread_mutex_unlock(&P.mu);
			mirror_resync();
			__atomic_store_n(&resync_posted, 0, __ATOMIC_RELEASE);
			pthread_mutex_lock(&P.mu);
			continue;
		}
		due = refusal_next_due();
		if (due && (uint64_t)mono_ns() >= due) {
			pthread_mutex_unlock(&P.mu);
			refusal_expire();
			pthread_mutex_lock(&P.mu);
			continue;
		}
		/* Sets since the last scan: scan again when the interval is up,
		 * even if nothing else happens by then. */
		scan_due = state_path[0] && scanned_at && srh_sets() != scanned_sets ?
			   scanned_at + STATE_SCAN_INTERVAL_NS : 0;
		if (scan_due && (uint64_t)mono_ns() >= scan_due)
			P.want_state = 1;
		else if (scan_due && (!due || scan_due < due))
			due = scan_due;
		next_write = last_write + STATE_MIN_INTERVAL_NS;
		if (!P.want_sweep && !P.want_state && !P.ndeparted)
			next_write = due ? due : UINT64_MAX;
		else if (due && due < next_write)
			next_write = due;
		if (!P.want_sweep && !P.ndeparted && (uint64_t)mono_ns() < next_write) {
			struct timespec until = {
				.tv_sec = (time_t)(next_write / 1000000000u),
				.tv_nsec = (long)(next_write % 1000000000u),
			};

			if (next_write == UINT64_MAX)
				pthread_cond_wait(&P.cv, &P.mu);
			else
				pthread_cond_timedwait(&P.cv, &P.mu, &until);
			continue;
		}
		gids = P.departed;
		ngids = P.ndeparted;
		P.departed = NULL;
		P.ndeparted = P.capdeparted = 0;
		sweep = P.want_sweep;
		state = P.want_state;
		P.want_sweep = P.want_state = 0;
		pthread_mutex_unlock(&P.mu);

		if (sweep)
			settings_reload();
		settings_get(&conf);
		/* Only the master's SA database is the subnet's. */
		master = glue_is_master();
		if (conf.flush_departed && master && conf.flush_grace_sweeps == 0)
			flushed += flush_gids(gids, ngids, "trap 65");
		if (conf.flush_departed && master && sweep)
			flushed += reconcile(conf.flush_grace_sweeps);
		free(gids);
		if (flushed)
			__atomic_add_fetch(&flushed_total, flushed, __ATOMIC_RELAXED);
		/* Readers cannot rebuild the index: have it current after every
		 * sweep (a first master sweep may reload the SA). */
		if (master && sweep)
			mirror_resync();
		if (state_path[0] &&
		    (sweep || flushed || !scanned_at ||
		     (state && (uint64_t)mono_ns() - scanned_at >= STATE_SCAN_INTERVAL_NS &&
		      srh_sets() != scanned_sets)))
			scan_state();
		if (sweep || state || flushed) {
			write_state();
			last_write = (uint64_t)mono_ns();
		}
		pthread_mutex_lock(&P.mu);
	}
	pthread_mutex_unlock(&P.mu);
	return NULL;
}

int worker_start(const char *path)
{
	pthread_condattr_t ca;
	int ret;

	snprintf(state_path, sizeof(state_path), "%s", path);
	if (metrics_path(prom_path, sizeof(prom_path), state_path))
		return -ENAMETOOLONG;
	/* The timed waits count against (uint64_t)mono_ns(). */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&P.cv, &ca);
	pthread_condattr_destroy(&ca);
	ret = pthread_create(&thread, NULL, worker_main, NULL);
	if (ret)
		pthread_cond_destroy(&P.cv);
	return -ret;
}

void worker_stop(void)
{
	pthread_mutex_lock(&P.mu);
	P.stop = 1;
	pthread_cond_signal(&P.cv);
	pthread_mutex_unlock(&P.mu);
	pthread_join(thread, NULL);
}

/* Apart from worker_stop(): the responder thread posts here until it is
 * stopped, after the worker (whose commits answer on its port). */
void worker_fini(void)
{
	pthread_cond_destroy(&P.cv);
	free(P.departed);
	P.departed = NULL;
	P.ndeparted = P.capdeparted = 0;
	free(missing);
	free(absent);
}
