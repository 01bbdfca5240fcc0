/* Shared state of the plugin's OpenSM glue: the SA handler (osmats.c) and
 * the plugin thread (worker.c). Include after the OpenSM headers. */
#ifndef IBATS_OSMATS_H
#define IBATS_OSMATS_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "mono.h"
#include "conf.h"
#include "ratelim.h"
#include "responder.h"
#include "srindex.h"
#include "state.h"

struct osmats_missing {
	uint8_t gid[16];
	uint32_t sweeps; /* SUBNET_UPs seen with the port absent */
};

/* Identity of the config file as last read, to notice changes. */
struct osmats_stamp {
	time_t sec;
	long nsec;
	off_t size;
	ino_t ino;
	int exists;
};

struct osmats {
	osm_opensm_t *osm;
	osm_log_t *log;
	char conf_path[CONF_PATH_MAX];
	char state_path[CONF_PATH_MAX + 32]; /* "" when off */

	pthread_mutex_t mu; /* everything below */
	pthread_cond_t cv;
	struct osmats_conf conf;
	struct osmats_stamp conf_stamp;
	struct state_counters cnt;
	int stop;
	int want_sweep;   /* SUBNET_UP seen: reconcile, reload, write state */
	int want_state;   /* records changed: write state */
	int want_resync;  /* a query found the index behind: rebuild it */
	struct rl rl;     /* refusal log lines per requester */
	uint8_t (*departed)[16]; /* GIDs of trap 65 not yet handled */
	size_t ndeparted;
	size_t capdeparted;

	/* The ServiceRecord index (sa_sr.c): changed under the exclusive
	 * osm->lock, read under the shared one. */
	struct srx *idx;
	int idx_stale;          /* atomic: rebuild before trusting it */
	int resync_posted;      /* atomic: want_resync is set or being served */
	int indexed_queries;    /* atomic: conf.indexed_queries */
	uint64_t idx_rebuilds;  /* atomic counters */
	uint64_t get_indexed;
	uint64_t get_fallback;
	uint64_t get_ns;        /* their work until the answer is decided */
	uint64_t sets;          /* Sets and Deletes carried out */
	uint64_t set_ns;

	pthread_t thread;
	struct responder *resp;  /* NULL when liveness is off or failed */
	/* Worker thread only. */
	struct osmats_missing *missing;
	size_t nmissing;
	struct state_summary summary; /* the state file's last scan */
	struct state_rec *absent;
	size_t nabsent;
	uint64_t scanned_sets;        /* p->sets at that scan */
	uint64_t scanned_at;          /* (uint64_t)mono_ns(), 0 = never */
};

int osmats_worker_start(struct osmats *p);
void osmats_worker_stop(struct osmats *p);
/* Queue work for the worker; safe with osm->lock held. */
void osmats_post_departed(struct osmats *p, const uint8_t *gid);
void osmats_post_sweep(struct osmats *p);
void osmats_post_state(struct osmats *p);
/* From a query that fell back: have the worker rebuild the index. */
void osmats_post_resync(struct osmats *p);

/* At SUBNET_UP, from the worker: reread the config file if it changed. */
void osmats_reload_conf(struct osmats *p);

/* Replace OpenSM's ServiceRecord handlers with the indexed ones (from
 * create(), before the SA is bound). -ENOMEM or -EBUSY. */
int osmats_sr_hook(struct osmats *p);
/* With osm->lock held exclusively: make the index mirror OpenSM's list
 * (0), or -ENOMEM. */
int osmats_idx_sync(struct osmats *p);
/* Safe without the lock: the index must be rebuilt before use. */
void osmats_idx_invalidate(struct osmats *p);
/* At HEAVY_SWEEP_START (no lock held): invalidate unless steady master. */
void osmats_idx_sweep_start(struct osmats *p);
/* With osm->lock held exclusively: remove and free one of OpenSM's
 * records, in the list and in the index. */
void osmats_idx_remove(struct osmats *p, osm_svcr_t *s);

/* Refusal log lines: the limiter's key for a requester known only by
 * its LID; whether a line may be logged now (under no lock but osm's);
 * the summary of lines left out (WRN 7A13). */
#define OSMATS_RL_LID (1ull << 63)
#define OSMATS_RL_BURST 5
#define OSMATS_RL_INTERVAL_NS (10 * 1000000000ull)
int osmats_log_allowed(struct osmats *p, uint64_t who, unsigned kind);
void osmats_log_summary(struct osmats *p, const struct rl_summary *sum);
/* The per-port cap's account of a record naming gid (any lock). */
uint64_t osmats_charge_of(struct osmats *p, const uint8_t *gid);

/* Copy an OpenSM ServiceRecord into the codec's form. */
void osmats_sr_from_osm(const ib_service_record_t *in, struct sr_record *out);

#endif
