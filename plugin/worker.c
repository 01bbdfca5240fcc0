/* The plugin thread: flushes the ATS records of departed ports, reloads
 * the config at SUBNET_UP, and writes the state file. report() only queues
 * work here, since OpenSM may call it with osm->lock held. */
#include <opensm/osm_config.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_service.h>
#include <opensm/osm_version.h>

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ats.h"
#include "osmats.h"
#include "wire.h"

static void post(struct osmats *p, int sweep, int state)
{
	pthread_mutex_lock(&p->mu);
	p->want_sweep |= sweep;
	p->want_state |= state;
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

void osmats_post_sweep(struct osmats *p)
{
	post(p, 1, 0);
}

void osmats_post_state(struct osmats *p)
{
	post(p, 0, 1);
}

void osmats_post_resync(struct osmats *p)
{
	if (__atomic_exchange_n(&p->resync_posted, 1, __ATOMIC_ACQ_REL))
		return;
	pthread_mutex_lock(&p->mu);
	p->want_resync = 1;
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

void osmats_post_departed(struct osmats *p, const uint8_t *gid)
{
	pthread_mutex_lock(&p->mu);
	if (p->ndeparted == p->capdeparted) {
		size_t cap = p->capdeparted ? 2 * p->capdeparted : 8;
		uint8_t (*n)[16] = realloc(p->departed, cap * sizeof(*n));

		if (!n) {
			/* The next SUBNET_UP reconciliation still finds it. */
			pthread_mutex_unlock(&p->mu);
			return;
		}
		p->departed = n;
		p->capdeparted = cap;
	}
	memcpy(p->departed[p->ndeparted++], gid, 16);
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

static int is_ats(const struct sr_record *r)
{
	return ats_sid_in_block(r->id) && ats_name_is_ats(r->name);
}

static osm_port_t *port_of(struct osmats *p, const uint8_t *gid)
{
	return osm_get_port_by_alias_guid(&p->osm->subn, cl_hton64(wire_get64(gid + 8)));
}

/* Remove every ATS record of the GIDs in gids[]. Takes osm->lock. */
static unsigned flush_gids(struct osmats *p, uint8_t (*gids)[16], size_t n,
			   const char *why)
{
	osm_subn_t *subn = &p->osm->subn;
	cl_list_item_t *it, *next;
	unsigned flushed = 0;
	size_t i;

	if (!n)
		return 0;
	cl_plock_excl_acquire(&p->osm->lock);
	if (osmats_idx_sync(p)) {
		cl_plock_release(&p->osm->lock);
		return 0;
	}
	for (it = cl_qlist_head(&subn->sa_sr_list);
	     it != cl_qlist_end(&subn->sa_sr_list); it = next) {
		osm_svcr_t *s = (osm_svcr_t *)it;
		char gid[ATS_IP_STRLEN], ip[ATS_IP_STRLEN];
		struct sr_record r;

		next = cl_qlist_next(it);
		osmats_sr_from_osm(&s->service_record, &r);
		if (!is_ats(&r))
			continue;
		for (i = 0; i < n; i++)
			if (!memcmp(gids[i], r.gid, 16))
				break;
		if (i == n)
			continue;
		ats_data8_str(r.data8, ip, sizeof(ip));
		OSM_LOG(p->log, OSM_LOG_INFO,
			"WRN 7A10: flushed ATS record of departed port (%s): SID 0x%016" PRIx64
			" GID %s PKey 0x%04x IP %s\n", why, r.id,
			ats_gid_format(r.gid, gid, sizeof(gid)), r.pkey, ip);
		osmats_idx_remove(p, s);
		flushed++;
	}
	if (flushed)
		p->osm->sa.dirty = TRUE; /* so sa_db_dump writes the change */
	cl_plock_release(&p->osm->lock);
	return flushed;
}

static struct osmats_missing *missing_find(struct osmats *p, const uint8_t *gid)
{
	size_t i;

	for (i = 0; i < p->nmissing; i++)
		if (!memcmp(p->missing[i].gid, gid, 16))
			return &p->missing[i];
	return NULL;
}

/* At SUBNET_UP: count sweeps for which each ATS GID's port has been
 * absent; flush those absent for more than flush_grace_sweeps sweeps. */
static unsigned reconcile(struct osmats *p, uint32_t grace)
{
	osm_subn_t *subn = &p->osm->subn;
	struct osmats_missing *now = NULL, *m;
	uint8_t (*gone)[16] = NULL;
	size_t nnow = 0, ngone = 0, i;
	cl_list_item_t *it;
	unsigned flushed;

	cl_plock_acquire(&p->osm->lock);
	for (it = cl_qlist_head(&subn->sa_sr_list);
	     it != cl_qlist_end(&subn->sa_sr_list); it = cl_qlist_next(it)) {
		struct sr_record r;
		struct osmats_missing *n;

		osmats_sr_from_osm(&((osm_svcr_t *)it)->service_record, &r);
		if (!is_ats(&r) || port_of(p, r.gid))
			continue;
		for (i = 0; i < nnow; i++)
			if (!memcmp(now[i].gid, r.gid, 16))
				break;
		if (i < nnow)
			continue;
		n = realloc(now, (nnow + 1) * sizeof(*n));
		if (!n)
			break;
		now = n;
		memcpy(now[nnow].gid, r.gid, 16);
		m = missing_find(p, r.gid);
		now[nnow].sweeps = (m ? m->sweeps : 0) + 1;
		nnow++;
	}
	cl_plock_release(&p->osm->lock);

	for (i = 0; i < nnow; i++) {
		uint8_t (*g)[16];

		if (now[i].sweeps <= grace)
			continue;
		/* Out of memory: flush what is gathered, the rest next sweep. */
		g = realloc(gone, (ngone + 1) * sizeof(*gone));
		if (!g)
			break;
		gone = g;
		memcpy(gone[ngone++], now[i].gid, 16);
	}
	flushed = flush_gids(p, gone, ngone, "absent at SUBNET_UP");
	free(gone);
	free(p->missing);
	p->missing = now;
	p->nmissing = nnow;
	return flushed;
}

static const char *sm_state_name(uint8_t s)
{
	static const char *const names[] = { "not-active", "discovering", "standby", "master" };

	return s < 4 ? names[s] : "unknown";
}

/* The scan behind the state file's counts and absent-port records:
 * one pass over the list under the shared lock, no copy of what is on
 * the fabric. */
static void scan_state(struct osmats *p)
{
	osm_subn_t *subn = &p->osm->subn;
	struct state_summary sum;
	struct state_rec *recs;
	size_t n = 0;
	cl_list_item_t *it;

	memset(&sum, 0, sizeof(sum));
	recs = malloc(STATE_MAX_ABSENT * sizeof(*recs));
	cl_plock_acquire(&p->osm->lock);
	for (it = cl_qlist_head(&subn->sa_sr_list);
	     it != cl_qlist_end(&subn->sa_sr_list); it = cl_qlist_next(it)) {
		struct sr_record r;
		struct osmats_missing *m;
		int ats;

		osmats_sr_from_osm(&((osm_svcr_t *)it)->service_record, &r);
		ats = is_ats(&r);
		state_summary_add(&sum, &r, ats);
		if (!ats || port_of(p, r.gid))
			continue;
		sum.absent++;
		if (!recs || n == STATE_MAX_ABSENT)
			continue;
		state_rec_from(&recs[n], &r);
		m = missing_find(p, r.gid);
		recs[n++].missing_sweeps = m ? m->sweeps : 0;
	}
	cl_plock_release(&p->osm->lock);
	sum.scanned = (long long)time(NULL);
	free(p->absent);
	p->absent = recs;
	p->nabsent = n;
	p->summary = sum;
	p->scanned_sets = __atomic_load_n(&p->sets, __ATOMIC_RELAXED);
	p->scanned_at = (uint64_t)mono_ns();
}

/* The state file from the last scan and the live counters: a few
 * kilobytes, whatever the number of records. */
static void write_state(struct osmats *p)
{
	osm_subn_t *subn = &p->osm->subn;
	struct state_counters cnt;
	struct state_index idx;
	struct state_info info;
	int ret;

	if (!p->state_path[0])
		return;
	cl_plock_acquire(&p->osm->lock);
	idx.records = srx_count(p->idx);
	idx.bytes = srx_bytes(p->idx);
	cl_plock_release(&p->osm->lock);
	info.sm_state = sm_state_name(subn->sm_state);
	idx.rebuilds = __atomic_load_n(&p->idx_rebuilds, __ATOMIC_RELAXED);
	idx.gets_indexed = __atomic_load_n(&p->get_indexed, __ATOMIC_RELAXED);
	idx.gets_fallback = __atomic_load_n(&p->get_fallback, __ATOMIC_RELAXED);
	idx.get_ns = __atomic_load_n(&p->get_ns, __ATOMIC_RELAXED);
	idx.sets = __atomic_load_n(&p->sets, __ATOMIC_RELAXED);
	idx.set_ns = __atomic_load_n(&p->set_ns, __ATOMIC_RELAXED);
	info.opensm = OSM_VERSION;
	info.time = (long long)time(NULL);
	pthread_mutex_lock(&p->mu);
	cnt = p->cnt;
	pthread_mutex_unlock(&p->mu);
	ret = state_write(p->state_path, &info, &p->summary, p->absent, p->nabsent, &cnt, &idx);
	if (ret)
		OSM_LOG(p->log, OSM_LOG_ERROR, "ERR 7A12: cannot write %s: %s\n",
			p->state_path, strerror(-ret));
}

/* Changes are coalesced into at most one state file write per interval;
 * sweeps and flushes write at once. The scan of every record (its
 * counts) runs at sweeps and flushes, and after Sets at most once per
 * STATE_SCAN_INTERVAL_NS: with 100k records it holds the shared lock for
 * milliseconds, which Sets wait for. */
#define STATE_MIN_INTERVAL_NS 1000000000ull
#define STATE_SCAN_INTERVAL_NS (10 * 1000000000ull)

struct summaries {
	struct rl_summary v[RL_SLOTS + 1];
	size_t n;
};

static void collect(const struct rl_summary *s, void *arg)
{
	struct summaries *acc = arg;

	if (acc->n < RL_SLOTS + 1)
		acc->v[acc->n++] = *s;
}

/* Summaries of refusal lines left out, once their interval is over;
 * logged outside p->mu. */
static void summarise(struct osmats *p, struct summaries *acc)
{
	size_t i;

	acc->n = 0;
	pthread_mutex_lock(&p->mu);
	rl_expire(&p->rl, (uint64_t)mono_ns(), collect, acc);
	pthread_mutex_unlock(&p->mu);
	for (i = 0; i < acc->n; i++)
		osmats_log_summary(p, &acc->v[i]);
}

static void *worker_main(void *arg)
{
	struct osmats *p = arg;
	uint64_t last_write = 0, next_write, due, scan_due;
	static struct summaries sums; /* the one worker's */

	pthread_mutex_lock(&p->mu);
	while (!p->stop) {
		uint8_t (*departed)[16];
		size_t ndeparted;
		int sweep, state, master, flush;
		uint32_t grace;
		unsigned flushed = 0;

		if (p->want_resync) {
			p->want_resync = 0;
			pthread_mutex_unlock(&p->mu);
			cl_plock_excl_acquire(&p->osm->lock);
			osmats_idx_sync(p);
			cl_plock_release(&p->osm->lock);
			__atomic_store_n(&p->resync_posted, 0, __ATOMIC_RELEASE);
			pthread_mutex_lock(&p->mu);
			continue;
		}
		due = rl_next_due(&p->rl);
		if (due && (uint64_t)mono_ns() >= due) {
			pthread_mutex_unlock(&p->mu);
			summarise(p, &sums);
			pthread_mutex_lock(&p->mu);
			continue;
		}
		/* Sets since the last scan: scan again when the interval is up,
		 * even if nothing else happens by then. */
		scan_due = p->state_path[0] && p->scanned_at &&
			   __atomic_load_n(&p->sets, __ATOMIC_RELAXED) != p->scanned_sets ?
			   p->scanned_at + STATE_SCAN_INTERVAL_NS : 0;
		if (scan_due && (uint64_t)mono_ns() >= scan_due)
			p->want_state = 1;
		else if (scan_due && (!due || scan_due < due))
			due = scan_due;
		next_write = last_write + STATE_MIN_INTERVAL_NS;
		if (!p->want_sweep && !p->want_state && !p->ndeparted)
			next_write = due ? due : UINT64_MAX;
		else if (due && due < next_write)
			next_write = due;
		if (!p->want_sweep && !p->ndeparted && (uint64_t)mono_ns() < next_write) {
			/* p->cv runs on CLOCK_MONOTONIC (osmats_create). */
			struct timespec until = {
				.tv_sec = (time_t)(next_write / 1000000000u),
				.tv_nsec = (long)(next_write % 1000000000u),
			};

			if (next_write == UINT64_MAX)
				pthread_cond_wait(&p->cv, &p->mu);
			else
				pthread_cond_timedwait(&p->cv, &p->mu, &until);
			continue;
		}
		departed = p->departed;
		ndeparted = p->ndeparted;
		p->departed = NULL;
		p->ndeparted = p->capdeparted = 0;
		sweep = p->want_sweep;
		state = p->want_state;
		p->want_sweep = p->want_state = 0;
		pthread_mutex_unlock(&p->mu);

		if (sweep)
			osmats_reload_conf(p);
		pthread_mutex_lock(&p->mu);
		flush = p->conf.flush_departed;
		grace = p->conf.flush_grace_sweeps;
		pthread_mutex_unlock(&p->mu);
		/* Only the master's SA database is the subnet's. */
		master = p->osm->subn.sm_state == IB_SMINFO_STATE_MASTER;
		if (flush && master && grace == 0)
			flushed += flush_gids(p, departed, ndeparted, "trap 65");
		if (flush && master && sweep)
			flushed += reconcile(p, grace);
		free(departed);
		if (flushed) {
			pthread_mutex_lock(&p->mu);
			p->cnt.flushed += flushed;
			pthread_mutex_unlock(&p->mu);
		}
		if (master && sweep) {
			/* Readers cannot rebuild the index: have it current after
			 * every sweep (a first master sweep may reload the SA). */
			cl_plock_excl_acquire(&p->osm->lock);
			osmats_idx_sync(p);
			cl_plock_release(&p->osm->lock);
		}
		if (p->state_path[0] &&
		    (sweep || flushed || !p->scanned_at ||
		     (state && (uint64_t)mono_ns() - p->scanned_at >= STATE_SCAN_INTERVAL_NS &&
		      __atomic_load_n(&p->sets, __ATOMIC_RELAXED) != p->scanned_sets)))
			scan_state(p);
		if (sweep || state || flushed) {
			write_state(p);
			last_write = (uint64_t)mono_ns();
		}
		pthread_mutex_lock(&p->mu);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

int osmats_worker_start(struct osmats *p)
{
	int ret = pthread_create(&p->thread, NULL, worker_main, p);

	return -ret;
}

void osmats_worker_stop(struct osmats *p)
{
	pthread_mutex_lock(&p->mu);
	p->stop = 1;
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->thread, NULL);
	free(p->departed);
	free(p->missing);
	free(p->absent);
}
