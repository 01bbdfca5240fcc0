/* libosmats: OpenSM event plugin that guards the ATS ServiceRecords.
 *
 * It replaces the SA's ServiceRecord handlers with its own (sa_sr.c),
 * which apply the rules of policy.c and serve every ServiceRecord request
 * from an index instead of OpenSM's list scan. Departed ports and the
 * state file are the plugin thread's (worker.c). This file is the plugin
 * entry points and the config file. */
#include <opensm/osm_config.h> /* first: it fixes the layout of osm_sa_t */
#include <opensm/osm_event_plugin.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_sa.h>
#include <opensm/osm_service.h>
#include <opensm/osm_version.h>

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ats.h"
#include "osmats.h"
#include "policy.h"
#include "sa.h"
#include "wire.h"

_Static_assert(sizeof(ib_service_record_t) == SR_SIZE, "ServiceRecord layout");

void osmats_sr_from_osm(const ib_service_record_t *in, struct sr_record *out)
{
	uint8_t buf[SR_SIZE];

	memcpy(buf, in, SR_SIZE);
	sr_decode(buf, sizeof(buf), out);
}

static void conf_stamp(const char *path, struct osmats_stamp *s)
{
	struct stat st;

	memset(s, 0, sizeof(*s));
	if (stat(path, &st))
		return;
	s->exists = 1;
	s->sec = st.st_mtim.tv_sec;
	s->nsec = st.st_mtim.tv_nsec;
	s->size = st.st_size;
	s->ino = st.st_ino;
}

/* Member by member: struct copies need not carry the padding. */
static int stamp_equal(const struct osmats_stamp *a, const struct osmats_stamp *b)
{
	return a->exists == b->exists && a->sec == b->sec && a->nsec == b->nsec &&
	       a->size == b->size && a->ino == b->ino;
}

static int load_conf(struct osmats *p, struct osmats_conf *c,
		     struct osmats_stamp *stamp)
{
	char err[600], desc[1024];
	int ret;

	conf_default(c);
	conf_stamp(p->conf_path, stamp);
	ret = conf_load(p->conf_path, c, err, sizeof(err));
	if (ret == -ENOENT) {
		OSM_LOG(p->log, OSM_LOG_INFO, "no %s: using defaults\n", p->conf_path);
	} else if (ret) {
		OSM_LOG(p->log, OSM_LOG_ERROR, "ERR 7A20: %s\n", err);
		return ret;
	}
	conf_describe(c, desc, sizeof(desc));
	OSM_LOG(p->log, OSM_LOG_INFO, "config: %s\n", desc);
	return 0;
}

void osmats_reload_conf(struct osmats *p)
{
	struct osmats_stamp old, now;
	struct osmats_conf c;
	const char *key;

	pthread_mutex_lock(&p->mu);
	old = p->conf_stamp;
	pthread_mutex_unlock(&p->mu);
	conf_stamp(p->conf_path, &now);
	if (stamp_equal(&old, &now))
		return;
	if (load_conf(p, &c, &now)) {
		OSM_LOG(p->log, OSM_LOG_ERROR,
			"ERR 7A21: %s not reloaded; the previous settings stay in force\n",
			p->conf_path);
		pthread_mutex_lock(&p->mu);
		p->conf_stamp = now;
		pthread_mutex_unlock(&p->mu);
		return;
	}
	pthread_mutex_lock(&p->mu);
	if (conf_restart_needed(&p->conf, &c, &key)) {
		OSM_LOG(p->log, OSM_LOG_ERROR,
			"ERR 7A22: %s changed %s, which takes effect at the next OpenSM start\n",
			p->conf_path, key);
		memcpy(c.state_file, p->conf.state_file, sizeof(c.state_file));
	}
	p->conf = c;
	p->conf_stamp = now;
	__atomic_store_n(&p->indexed_queries, c.indexed_queries, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&p->mu);
	OSM_LOG(p->log, OSM_LOG_INFO, "reloaded %s\n", p->conf_path);
}

static int sm_is_master(void *ctx, uint16_t *lid)
{
	struct osmats *p = ctx;

	*lid = cl_ntoh16(p->osm->subn.sm_base_lid);
	return p->osm->subn.sm_state == IB_SMINFO_STATE_MASTER &&
	       !p->osm->subn.first_time_master_sweep;
}

static void *osmats_create(osm_opensm_t *osm)
{
	const char *opts = osm->subn.opt.event_plugin_options;
	pthread_condattr_t ca;
	struct osmats *p;
	const char *dir;

	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->osm = osm;
	p->log = &osm->log;
	pthread_mutex_init(&p->mu, NULL);
	/* The worker's timed waits count against (uint64_t)mono_ns(). */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->cv, &ca);
	pthread_condattr_destroy(&ca);
	OSM_LOG(p->log, OSM_LOG_INFO,
		"osmats %s for %s loaded, options \"%s\"\n", IBATS_VERSION,
		OSM_VERSION, opts ? opts : "");
	rl_init(&p->rl, OSMATS_RL_BURST, OSMATS_RL_INTERVAL_NS);
	conf_path_from_options(opts, p->conf_path, sizeof(p->conf_path));
	if (load_conf(p, &p->conf, &p->conf_stamp)) {
		/* Fail closed: without the plugin every rule would be off. Only
		 * a setting the file makes explicitly turns a rule off; a file
		 * that does not parse sets nothing. A SIGHUP after the fix
		 * loads it (the stamp stays the broken file's). */
		char desc[1024];

		conf_default(&p->conf);
		conf_describe(&p->conf, desc, sizeof(desc));
		OSM_LOG(p->log, OSM_LOG_ERROR,
			"ERR 7A23: %s not used: osmats runs with its built-in defaults, every rule on: %s\n",
			p->conf_path, desc);
	}
	if (!pol_key_trusted(cl_ntoh64(osm->subn.opt.sa_key), cl_ntoh64(osm->subn.opt.sa_key)))
		OSM_LOG(p->log, OSM_LOG_INFO,
			"WRN 7A26: OpenSM's sa_key is 0x%016" PRIx64 " (%s): every host can send it, "
			"so an SM_Key earns no trust; only trusted_guids in %s do\n",
			cl_ntoh64(osm->subn.opt.sa_key),
			osm->subn.opt.sa_key ? "the default" : "none", p->conf_path);
	p->indexed_queries = p->conf.indexed_queries;
	dir = osm->subn.opt.dump_files_dir ? osm->subn.opt.dump_files_dir : ".";
	if (!strcmp(p->conf.state_file, "none"))
		p->state_path[0] = '\0';
	else if (p->conf.state_file[0])
		snprintf(p->state_path, sizeof(p->state_path), "%s", p->conf.state_file);
	else
		snprintf(p->state_path, sizeof(p->state_path), "%s/osmats-state.json", dir);
	if (p->conf.liveness) {
		char err[256];

		if (responder_start(&p->resp, cl_ntoh64(osm->subn.sm_port_guid),
				    sm_is_master, p, err, sizeof(err)))
			OSM_LOG(p->log, OSM_LOG_ERROR,
				"ERR 7A25: no liveness responder on the SM port: %s\n", err);
	}
	if (osmats_worker_start(p)) {
		OSM_LOG(p->log, OSM_LOG_ERROR, "ERR 7A24: cannot start the plugin thread\n");
		goto fail;
	}

	if (osmats_sr_hook(p)) {
		OSM_LOG(p->log, OSM_LOG_ERROR,
			"ERR 7A00: cannot hook the ServiceRecord handlers; "
			"OpenSM's own stay in place\n");
		osmats_worker_stop(p);
		goto fail;
	}
	return p;
fail:
	responder_stop(p->resp);
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
	free(p);
	return NULL;
}

static void osmats_delete(void *plugin_data)
{
	struct osmats *p = plugin_data;
	unsigned r;
	char buf[512];
	size_t used = 0;

	/* The dispatcher registration is gone already (osm_sa_shutdown). */
	osmats_worker_stop(p);
	responder_stop(p->resp);
	srx_fini(p->idx);
	for (r = 1; r < POL_NRULES && used < sizeof(buf); r++)
		used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%s %" PRIu64,
					 r > 1 ? ", " : "", pol_rule_name((enum pol_rule)r),
					 p->cnt.rejected[r]);
	OSM_LOG(p->log, OSM_LOG_INFO,
		"osmats unloaded: %" PRIu64 " ATS request(s) accepted, %" PRIu64
		" record(s) flushed, %" PRIu64 " liveness request(s) answered; rejected: %s\n",
		p->cnt.accepted, p->cnt.flushed, responder_answered(p->resp), buf);
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
	free(p);
}

static void osmats_report(void *plugin_data, osm_epi_event_id_t event_id,
			  void *event_data)
{
	struct osmats *p = plugin_data;

	/* May run with osm->lock held: only queue work here. */
	switch (event_id) {
	case OSM_EVENT_ID_TRAP: {
		const ib_mad_notice_attr_t *ntc = event_data;

		if (ib_notice_is_generic(ntc) &&
		    ntc->g_or_v.generic.trap_num == CL_HTON16(65))
			osmats_post_departed(p, ntc->data_details.ntc_64_67.gid.raw);
		break;
	}
	case OSM_EVENT_ID_HEAVY_SWEEP_START:
		osmats_idx_sweep_start(p);
		break;
	case OSM_EVENT_ID_SUBNET_UP:
		osmats_post_sweep(p);
		break;
	default:
		break;
	}
}

osm_event_plugin_t osm_event_plugin = {
	.osm_version = OSM_VERSION,
	.create = osmats_create,
	.delete = osmats_delete,
	.report = osmats_report,
};
