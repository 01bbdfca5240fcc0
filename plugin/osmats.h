/* Shared state of the plugin's OpenSM glue: the SA handler (osmats.c) and
 * the plugin thread (worker.c). Include after the OpenSM headers. */
#ifndef IBATS_OSMATS_H
#define IBATS_OSMATS_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "conf.h"
#include "responder.h"
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
	uint8_t (*departed)[16]; /* GIDs of trap 65 not yet handled */
	size_t ndeparted;
	size_t capdeparted;

	pthread_t thread;
	struct responder *resp;  /* NULL when liveness is off or failed */
	/* Worker thread only. */
	struct osmats_missing *missing;
	size_t nmissing;
};

int osmats_worker_start(struct osmats *p);
void osmats_worker_stop(struct osmats *p);
/* Queue work for the worker; safe with osm->lock held. */
void osmats_post_departed(struct osmats *p, const uint8_t *gid);
void osmats_post_sweep(struct osmats *p);
void osmats_post_state(struct osmats *p);

/* At SUBNET_UP, from the worker: reread the config file if it changed. */
void osmats_reload_conf(struct osmats *p);

/* Copy an OpenSM ServiceRecord into the codec's form. */
void osmats_sr_from_osm(const ib_service_record_t *in, struct sr_record *out);

#endif
