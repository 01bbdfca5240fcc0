/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* libosmats: OpenSM event plugin that guards the ATS ServiceRecords.
 *
 * It replaces the SA's ServiceRecord handlers with its own (sr_handler.c),
 * which apply the rules of policy.c and serve every ServiceRecord request
 * from an index (mirror.c) instead of OpenSM's list scan. Departed ports
 * and the state file are the plugin thread's (worker.c), the config file
 * is settings.c's, and glue.c is the only module that reaches into
 * OpenSM. This file is the plugin's entry points: it starts the others in
 * order and turns OpenSM's events into work for them. */
#include "glue.h"
#include "osmats.h"

/* The entry points: OpenSM's plugin ABI and the events it reports. */
#include <opensm/osm_config.h> /* first: it fixes the layout of osm_sa_t */
#include <opensm/osm_event_plugin.h>
#include <opensm/osm_version.h>

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/osmats_conf.h"
#include "mirror.h"
#include "policy.h"
#include "refhist.h"
#include "refusal.h"
#include "replica.h"
#include "responder.h"
#include "sadb.h"
#include "settings.h"
#include "smquery.h"
#include "sr_handler.h"
#include "core/state_file.h"
#include "worker.h"

/* What create() hands OpenSM back as the plugin's data. */
static struct {
	struct responder *resp;  /* NULL when liveness is off or failed */
} plugin;

static int sm_is_master(void *ctx, uint16_t *lid)
{
	(void)ctx;
	*lid = glue_sm_lid();
	return glue_steady();
}

static void state_path_of(const struct osmats_conf *c, char *buf, size_t len)
{
	const char *dir = glue_dump_dir() ? glue_dump_dir() : ".";

	if (!strcmp(c->state_file, "none"))
		buf[0] = '\0';
	else if (c->state_file[0])
		snprintf(buf, len, "%s", c->state_file);
	else
		snprintf(buf, len, "%s/osmats-state.json", dir);
}

static void *osmats_create(struct osm_opensm *osm)
{
	static const struct sr_handler_events events = {
		.changed = worker_post_state,
		.behind = worker_post_resync,
	};
	const struct responder_ext *ext[2];
	const char *opts;
	struct osmats_conf conf;
	char state_path[OSMATS_CONF_PATH_MAX + 32], err[256];

	if (glue_init(osm, "osmats"))
		return NULL;
	opts = glue_plugin_options();
	GLUE_LOG(GLUE_LOG_INFO,
		 "osmats %s for %s loaded, options \"%s\"\n", IBATS_VERSION,
		 OSM_VERSION, opts ? opts : "");
	refusal_init();
	/* Without it hosts are not told why: the rules still stand. */
	if (refhist_init())
		GLUE_LOG(GLUE_LOG_ERROR,
			 "ERR 7A50: out of memory keeping refusals for hosts to ask; "
			 "running without it\n");
	smquery_init();
	sadb_init();
	settings_init(opts);
	if (!policy_key_trusted(glue_sa_key(), glue_sa_key()))
		GLUE_LOG(GLUE_LOG_INFO,
			 "WRN 7A26: OpenSM's sa_key is 0x%016" PRIx64 " (%s): every host can send it, "
			 "so an SM_Key earns no trust; only trusted_guids in %s do\n",
			 glue_sa_key(), glue_sa_key() ? "the default" : "none", settings_path());
	settings_get(&conf);
	state_path_of(&conf, state_path, sizeof(state_path));
	plugin.resp = NULL;
	/* Without replication the rules still stand: go on. */
	if (replica_init(&conf, worker_post_state))
		GLUE_LOG(GLUE_LOG_ERROR,
			 "ERR 7A45: out of memory starting replication to standby SMs; "
			 "running without it\n");
	ext[0] = replica_ext();
	ext[1] = smquery_ext();
	if (responder_start(&plugin.resp, glue_sm_port_guid(), conf.liveness, sm_is_master,
			    NULL, ext, 2, err, sizeof(err)))
		GLUE_LOG(GLUE_LOG_ERROR,
			 "ERR 7A25: no responder on the SM port (liveness, replication, SM "
			 "query): %s\n", err);
	if (worker_start(state_path)) {
		GLUE_LOG(GLUE_LOG_ERROR, "ERR 7A24: cannot start the plugin thread\n");
		goto fail;
	}
	if (mirror_init() || sr_handler_init(&events)) {
		GLUE_LOG(GLUE_LOG_ERROR,
			 "ERR 7A00: cannot hook the ServiceRecord handlers; "
			 "OpenSM's own stay in place\n");
		mirror_fini();
		worker_stop();
		responder_stop(plugin.resp);
		replica_fini();
		worker_fini();
		refhist_fini();
		return NULL;
	}
	/* The state file once at start, the index in place, whatever
	 * OpenSM's state: a standby whose replication is off gets no pass
	 * otherwise, and its role ("error": a refused key file) must show. */
	worker_post_state();
	return &plugin;
fail:
	responder_stop(plugin.resp);
	replica_fini();
	refhist_fini();
	return NULL;
}

static void osmats_delete(void *plugin_data)
{
	struct state_file_counters cnt;
	uint64_t answered;
	unsigned r;
	char buf[512];
	size_t used = 0;

	(void)plugin_data;
	/* The dispatcher registration is gone already (osm_sa_shutdown).
	 * Threads first, the worker before the responder (its commits answer
	 * held pulls on the responder's port; the responder posts to it until
	 * joined), then what they shared. */
	worker_stop();
	answered = responder_answered(plugin.resp);
	responder_stop(plugin.resp);
	replica_fini();
	sadb_fini();
	mirror_fini();
	worker_fini();
	refhist_fini();
	sr_handler_counters(&cnt);
	for (r = 1; r < RULE_COUNT && used < sizeof(buf); r++)
		used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%s %" PRIu64,
					 r > 1 ? ", " : "", rule_name((enum rule)r),
					 cnt.rejected[r]);
	GLUE_LOG(GLUE_LOG_INFO,
		 "osmats unloaded: %" PRIu64 " ATS request(s) accepted, %" PRIu64
		 " record(s) flushed, %" PRIu64 " liveness request(s) answered; rejected: %s\n",
		 cnt.accepted, worker_flushed(), answered, buf);
}

static void osmats_report(void *plugin_data, osm_epi_event_id_t event_id,
			  void *event_data)
{
	(void)plugin_data;
	/* May run with osm->lock held: only queue work here. */
	switch (event_id) {
	case OSM_EVENT_ID_TRAP: {
		const ib_mad_notice_attr_t *ntc = event_data;

		if (ib_notice_is_generic(ntc) &&
		    ntc->g_or_v.generic.trap_num == CL_HTON16(65))
			worker_post_departed(ntc->data_details.ntc_64_67.gid.raw);
		break;
	}
	case OSM_EVENT_ID_HEAVY_SWEEP_START:
		/* No lock held: a takeover installs the standby's copy here,
		 * before the SA answers anyone. */
		mirror_sweep_start();
		replica_sweep_start();
		break;
	case OSM_EVENT_ID_UCAST_ROUTING_DONE:
		/* No lock held. In a heavy sweep, the first event after
		 * OpenSM's SA database load, and before the first master
		 * sweep ends and the SA answers (osm_state_mgr.c do_sweep). */
		if ((uintptr_t)event_data == UCAST_ROUTING_HEAVY_SWEEP)
			sadb_after_load();
		break;
	case OSM_EVENT_ID_SUBNET_UP:
		worker_post_sweep();
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
