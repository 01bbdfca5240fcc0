/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The plugin thread (see worker.h). */
#include "worker.h"

#include "glue.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/ats.h"
#include "metrics.h"
#include "mirror.h"
#include "core/mono.h"
#include "refusal.h"
#include "replica.h"
#include "settings.h"
#include "sr_handler.h"
#include "core/state_file.h"

struct missing {
	uint8_t gid[16];
	uint32_t sweeps; /* SUBNET_UPs seen with the port absent */
};

#define NO_WRITE 0xff
/* How often an idle worker looks at OpenSM's SM state (sm_state_moved),
 * and the oldest the state file and osmats.prom get on any SM, so that
 * an old file means a plugin gone or stuck (the alert rules' mtime). */
#define SM_STATE_POLL_NS (2 * 1000000000ull)
#define STATE_REFRESH_NS (60 * 1000000000ull)

/* The module's state, by who may touch it. */
static struct {
	/* Set by worker_start() before the thread starts; read-only after. */
	char state_path[OSMATS_CONF_PATH_MAX + 32]; /* "" when off */
	char prom_path[OSMATS_CONF_PATH_MAX + 32];  /* osmats.prom beside it */
	pthread_t thread;

	/* The work posted to the thread, from OpenSM's threads and the
	 * responder's: under mu. */
	pthread_mutex_t mu;
	pthread_cond_t cv;      /* on CLOCK_MONOTONIC */
	int stop;
	int want_sweep;         /* SUBNET_UP seen: reconcile, reload, write state */
	int want_state;         /* records changed: write state */
	int want_resync;        /* a query found the index behind: rebuild it */
	uint8_t (*departed)[16]; /* GIDs of trap 65 not yet handled */
	size_t ndeparted, capdeparted;

	/* Lock-free, any thread. */
	atomic_int resync_posted;           /* want_resync is set or being served */
	_Atomic uint64_t flushed_total;
	_Atomic uint64_t counted[3];        /* the last scan's ATS, other, absent */

	/* The worker thread's own. */
	struct missing *missing;
	size_t nmissing;
	struct state_file_summary summary; /* the state file's last scan */
	struct state_file_rec *absent;
	size_t nabsent;
	uint64_t scanned_sets;        /* sr_handler_sets() at that scan */
	uint64_t scanned_at;          /* (uint64_t)mono_ns(), 0 = never */
	uint8_t written_sm_state;     /* OpenSM's, in the last write; NO_WRITE before */
} W = { .mu = PTHREAD_MUTEX_INITIALIZER, .written_sm_state = NO_WRITE };

static void post(int sweep, int state)
{
	pthread_mutex_lock(&W.mu);
	W.want_sweep |= sweep;
	W.want_state |= state;
	pthread_cond_signal(&W.cv);
	pthread_mutex_unlock(&W.mu);
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
	if (atomic_exchange_explicit(&W.resync_posted, 1, memory_order_acq_rel))
		return;
	pthread_mutex_lock(&W.mu);
	W.want_resync = 1;
	pthread_cond_signal(&W.cv);
	pthread_mutex_unlock(&W.mu);
}

void worker_post_departed(const uint8_t *gid)
{
	pthread_mutex_lock(&W.mu);
	if (W.ndeparted == W.capdeparted) {
		size_t cap = W.capdeparted ? 2 * W.capdeparted : 8;
		uint8_t (*n)[16] = realloc(W.departed, cap * sizeof(*n));

		if (!n) {
			/* The next SUBNET_UP reconciliation still finds it. */
			pthread_mutex_unlock(&W.mu);
			return;
		}
		W.departed = n;
		W.capdeparted = cap;
	}
	memcpy(W.departed[W.ndeparted++], gid, 16);
	pthread_cond_signal(&W.cv);
	pthread_mutex_unlock(&W.mu);
}

uint64_t worker_flushed(void)
{
	return atomic_load_explicit(&W.flushed_total, memory_order_relaxed);
}

void worker_counts(uint64_t *ats, uint64_t *other, uint64_t *absent_recs)
{
	*ats = atomic_load_explicit(&W.counted[0], memory_order_relaxed);
	*other = atomic_load_explicit(&W.counted[1], memory_order_relaxed);
	*absent_recs = atomic_load_explicit(&W.counted[2], memory_order_relaxed);
}

static int is_ats(const struct sr_record *r)
{
	return ats_sid_in_block(r->id) && ats_name_is_ats(r->name);
}

static int gid_cmp(const void *a, const void *b)
{
	return memcmp(a, b, 16);
}

/* gids (n, sorted by gid_cmp) holds gid: a departure of hundreds of
 * ports meets every record of the SA, under the lock OpenSM's sweep
 * waits for. */
static int gid_in(uint8_t (*gids)[16], size_t n, const uint8_t *gid)
{
	return n && bsearch(gid, gids, n, 16, gid_cmp) != NULL;
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

	sr_decode(bytes, SR_SIZE, &r);
	if (!is_ats(&r) || !gid_in(w->gids, w->n, r.gid))
		return 0;
	ats_data8_str(r.data8, ip, sizeof(ip));
	GLUE_LOG(GLUE_LOG_INFO,
		 "WRN 7A10: flushed ATS record of departed port (%s): SID 0x%016" PRIx64
		 " GID %s PKey 0x%04x IP %s\n", w->why, r.id,
		 ats_gid_format(r.gid, gid, sizeof(gid)), r.pkey, ip);
	w->seq = replica_log_delete(bytes, NULL);
	mirror_remove(h);
	w->flushed++;
	return 0;
}

/* One GID's records, found by the index. */
struct gid_recs {
	const struct srindex *x;
	void **h;
	size_t n, cap;
	int oom;
};

static int gid_rec(const struct srindex_ent *e, void *arg)
{
	struct gid_recs *g = arg;

	if (g->n == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 64;
		void **v = realloc(g->h, cap * sizeof(*v));

		if (!v) {
			g->oom = 1;
			return 1;
		}
		g->h = v;
		g->cap = cap;
	}
	g->h[g->n++] = srindex_handle(g->x, e);
	return 0;
}

/* Remove every ATS record of the GIDs in gids[] (sorted here). Takes
 * osm->lock. The index names each GID's records: the lock OpenSM's sweep
 * waits for is held for the records flushed, not for every record of
 * the SA (the walk is left for an index out of memory). */
static unsigned flush_gids(uint8_t (*gids)[16], size_t n, const char *why)
{
	struct flush_walk w = { .gids = gids, .n = n, .why = why };
	struct gid_recs g = { 0 };
	size_t i, k;
	int walk = 0;

	if (!n)
		return 0;
	qsort(gids, n, 16, gid_cmp);
	glue_lock_excl();
	if (mirror_sync()) {
		glue_unlock();
		return 0;
	}
	g.x = mirror_index();
	for (i = 0; i < n && !walk; i++) {
		g.n = 0;
		/* Collected first: a removal moves the index's entries. */
		srindex_each_gid(g.x, gids[i], gid_rec, &g);
		walk = g.oom;
		for (k = 0; k < g.n && !walk; k++)
			flush_one(g.h[k], glue_sr_rec(g.h[k]), &w);
	}
	free(g.h);
	if (walk)
		glue_sr_walk(0, flush_one, &w);
	if (w.flushed)
		glue_sr_dirty(); /* so sa_db_dump writes the change */
	glue_unlock();
	replica_publish(w.seq);
	return w.flushed;
}

/* W.missing is sorted by GID (gid its first member). */
static struct missing *missing_find(const uint8_t *gid)
{
	return W.nmissing ? bsearch(gid, W.missing, W.nmissing, sizeof(*W.missing), gid_cmp) :
	       NULL;
}

struct absent_walk {
	struct missing *now;
	size_t nnow, cap;
};

/* Every absent GID, once per record (made unique after the walk): a
 * search per record would be quadratic in a large departure. */
static int note_absent(void *h, const uint8_t *bytes, void *arg)
{
	struct absent_walk *w = arg;
	struct sr_record r;

	(void)h;
	sr_decode(bytes, SR_SIZE, &r);
	if (!is_ats(&r) || glue_gid_on_fabric(r.gid))
		return 0;
	if (w->nnow && !memcmp(w->now[w->nnow - 1].gid, r.gid, 16))
		return 0;
	if (w->nnow == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 64;
		struct missing *n = realloc(w->now, cap * sizeof(*n));

		if (!n)
			return 1;
		w->now = n;
		w->cap = cap;
	}
	memcpy(w->now[w->nnow++].gid, r.gid, 16);
	return 0;
}

/* w's GIDs sorted, once each, with their sweeps absent counted on. */
static void absent_count(struct absent_walk *w)
{
	size_t i, k = 0;

	if (w->nnow)
		qsort(w->now, w->nnow, sizeof(*w->now), gid_cmp);
	for (i = 0; i < w->nnow; i++) {
		struct missing *m;

		if (k && !memcmp(w->now[k - 1].gid, w->now[i].gid, 16))
			continue;
		w->now[k] = w->now[i];
		m = missing_find(w->now[k].gid);
		w->now[k++].sweeps = (m ? m->sweeps : 0) + 1;
	}
	w->nnow = k;
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
	absent_count(&w);

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
	free(W.missing);
	W.missing = w.now;
	W.nmissing = w.nnow;
	return flushed;
}

static const char *sm_state_name(uint8_t s)
{
	static const char *const names[] = { "not-active", "discovering", "standby", "master" };

	return s < 4 ? names[s] : "unknown";
}

struct scan_walk {
	struct state_file_summary sum;
	struct state_file_rec *recs;
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
	if (!w->recs || w->n == STATE_FILE_MAX_ABSENT)
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
	w.recs = malloc(STATE_FILE_MAX_ABSENT * sizeof(*w.recs));
	glue_lock_shared();
	glue_sr_walk(0, scan_one, &w);
	glue_unlock();
	w.sum.scanned = (long long)time(NULL);
	free(W.absent);
	W.absent = w.recs;
	W.nabsent = w.n;
	W.summary = w.sum;
	atomic_store_explicit(&W.counted[0], w.sum.ats, memory_order_relaxed);
	atomic_store_explicit(&W.counted[1], w.sum.other, memory_order_relaxed);
	atomic_store_explicit(&W.counted[2], w.sum.absent, memory_order_relaxed);
	W.scanned_sets = sr_handler_sets();
	W.scanned_at = (uint64_t)mono_ns();
}

/* The state file from the last scan and the live counters: a few
 * kilobytes, whatever the number of records. */
static void write_state(void)
{
	struct state_file_counters cnt;
	struct state_file_index idx;
	struct state_file_info info;
	struct state_file_repl repl;
	const struct metrics_src msrc = { &info, &W.summary, &cnt, &idx, &repl };
	int ret;

	if (!W.state_path[0])
		return;
	glue_lock_shared();
	idx.records = srindex_count(mirror_index());
	idx.bytes = srindex_bytes(mirror_index());
	glue_unlock();
	W.written_sm_state = glue_sm_state();
	info.sm_state = sm_state_name(W.written_sm_state);
	idx.rebuilds = mirror_rebuilds();
	sr_handler_index_stats(&idx);
	info.opensm = glue_osm_version();
	info.time = (long long)time(NULL);
	sr_handler_counters(&cnt);
	cnt.flushed = worker_flushed();
	replica_state(&repl);
	ret = state_file_write(W.state_path, &info, &W.summary, W.absent, W.nabsent, &cnt, &idx, &repl);
	if (ret)
		GLUE_LOG(GLUE_LOG_ERROR, "ERR 7A12: cannot write %s: %s\n",
			 W.state_path, strerror(-ret));
	/* The same figures for Prometheus; a failure of one file does not
	 * keep the other from being written. */
	ret = metrics_write(W.prom_path, &msrc);
	if (ret)
		GLUE_LOG(GLUE_LOG_ERROR, "ERR 7A12: cannot write %s: %s\n",
			 W.prom_path, strerror(-ret));
}

/* Changes are coalesced into at most one state file write per interval;
 * sweeps and flushes write at once. The scan of every record (its
 * counts) runs at sweeps and flushes, and after Sets at most once per
 * STATE_SCAN_INTERVAL_NS: with 100k records it holds the shared lock for
 * milliseconds, which Sets wait for. */
#define STATE_MIN_INTERVAL_NS 1000000000ull
#define STATE_SCAN_INTERVAL_NS (10 * 1000000000ull)

/* What one pass of the worker does, taken from W under its lock. */
struct worker_pass {
	uint8_t (*gids)[16]; /* departed ports' GIDs, the pass's to free */
	size_t ngids;
	int sweep, state;
};

/* OpenSM's SM state is not the last state file's: a standby whose
 * replication is off (or that waits for no master) writes nothing else,
 * and its file and metrics must say it is a standby, not the
 * "discovering" of its start; a master stepping down likewise. Only after
 * the first write, which waits for the index (osmats_create). */
static int sm_state_moved(void)
{
	return W.state_path[0] && W.written_sm_state != NO_WRITE &&
	       glue_sm_state() != W.written_sm_state;
}

/* Under W.mu: the side jobs (an index resync, the refusal log's
 * summaries) and the wait until a pass is due. 1 when it did one of
 * them (the caller looks again), 0 when a pass is due now. */
static int worker_idle(uint64_t last_write)
{
	uint64_t next_write, due, scan_due;

	if (W.want_resync) {
		W.want_resync = 0;
		pthread_mutex_unlock(&W.mu);
		mirror_resync();
		atomic_store_explicit(&W.resync_posted, 0, memory_order_release);
		pthread_mutex_lock(&W.mu);
		return 1;
	}
	due = refusal_next_due();
	if (due && (uint64_t)mono_ns() >= due) {
		pthread_mutex_unlock(&W.mu);
		refusal_expire();
		pthread_mutex_lock(&W.mu);
		return 1;
	}
	/* Sets since the last scan: scan again when the interval is up,
	 * even if nothing else happens by then. */
	scan_due = W.state_path[0] && W.scanned_at && sr_handler_sets() != W.scanned_sets ?
		   W.scanned_at + STATE_SCAN_INTERVAL_NS : 0;
	if (scan_due && (uint64_t)mono_ns() >= scan_due)
		W.want_state = 1;
	else if (scan_due && (!due || scan_due < due))
		due = scan_due;
	if (sm_state_moved() ||
	    (W.written_sm_state != NO_WRITE && (uint64_t)mono_ns() - last_write >= STATE_REFRESH_NS))
		W.want_state = 1;
	next_write = last_write + STATE_MIN_INTERVAL_NS;
	if (!W.want_sweep && !W.want_state && !W.ndeparted)
		next_write = W.state_path[0] ? (uint64_t)mono_ns() + SM_STATE_POLL_NS : UINT64_MAX;
	if (due && due < next_write)
		next_write = due;
	if (!W.want_sweep && !W.ndeparted && (uint64_t)mono_ns() < next_write) {
		struct timespec until = {
			.tv_sec = (time_t)(next_write / 1000000000u),
			.tv_nsec = (long)(next_write % 1000000000u),
		};

		if (next_write == UINT64_MAX)
			pthread_cond_wait(&W.cv, &W.mu);
		else
			pthread_cond_timedwait(&W.cv, &W.mu, &until);
		return 1;
	}
	return 0;
}

/* Under W.mu: the pass's work, W's requests cleared. */
static void worker_take(struct worker_pass *p)
{
	p->gids = W.departed;
	p->ngids = W.ndeparted;
	W.departed = NULL;
	W.ndeparted = W.capdeparted = 0;
	p->sweep = W.want_sweep;
	p->state = W.want_state;
	W.want_sweep = W.want_state = 0;
}

/* Without the lock: settings, flushes, the index after a sweep, the
 * state file. 1 when the state file was written. */
static int worker_run(struct worker_pass *p)
{
	struct osmats_conf conf;
	unsigned flushed = 0;
	int master;

	if (p->sweep)
		settings_reload();
	settings_get(&conf);
	/* Only the master's SA database is the subnet's. */
	master = glue_is_master();
	if (conf.flush_departed && master && conf.flush_grace_sweeps == 0)
		flushed += flush_gids(p->gids, p->ngids, "trap 65");
	if (conf.flush_departed && master && p->sweep)
		flushed += reconcile(conf.flush_grace_sweeps);
	free(p->gids);
	if (flushed)
		atomic_fetch_add_explicit(&W.flushed_total, flushed, memory_order_relaxed);
	/* Readers cannot rebuild the index: have it current after every
	 * sweep (a first master sweep may reload the SA). */
	if (master && p->sweep)
		mirror_resync();
	if (W.state_path[0] &&
	    (p->sweep || flushed || !W.scanned_at ||
	     (p->state && (uint64_t)mono_ns() - W.scanned_at >= STATE_SCAN_INTERVAL_NS &&
	      sr_handler_sets() != W.scanned_sets)))
		scan_state();
	if (!p->sweep && !p->state && !flushed)
		return 0;
	write_state();
	return 1;
}

static void *worker_main(void *arg)
{
	struct worker_pass p;
	uint64_t last_write = 0;

	(void)arg;
	pthread_mutex_lock(&W.mu);
	while (!W.stop) {
		if (worker_idle(last_write))
			continue;
		worker_take(&p);
		pthread_mutex_unlock(&W.mu);
		if (worker_run(&p))
			last_write = (uint64_t)mono_ns();
		pthread_mutex_lock(&W.mu);
	}
	pthread_mutex_unlock(&W.mu);
	return NULL;
}

int worker_start(const char *path)
{
	pthread_condattr_t ca;
	int ret;

	snprintf(W.state_path, sizeof(W.state_path), "%s", path);
	if (metrics_path(W.prom_path, sizeof(W.prom_path), W.state_path))
		return -ENAMETOOLONG;
	/* The timed waits count against (uint64_t)mono_ns(). */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&W.cv, &ca);
	pthread_condattr_destroy(&ca);
	ret = pthread_create(&W.thread, NULL, worker_main, NULL);
	if (ret)
		pthread_cond_destroy(&W.cv);
	return -ret;
}

void worker_stop(void)
{
	pthread_mutex_lock(&W.mu);
	W.stop = 1;
	pthread_cond_signal(&W.cv);
	pthread_mutex_unlock(&W.mu);
	pthread_join(W.thread, NULL);
}

/* Apart from worker_stop(): the responder thread posts here until it is
 * stopped, after the worker (whose commits answer on its port). */
void worker_fini(void)
{
	pthread_cond_destroy(&W.cv);
	free(W.departed);
	W.departed = NULL;
	W.ndeparted = W.capdeparted = 0;
	free(W.missing);
	free(W.absent);
}
