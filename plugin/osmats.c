/* libosmats: OpenSM event plugin that guards the ATS ServiceRecords.
 *
 * It replaces the SA's ServiceRecord Set/Delete dispatcher registration
 * with its own handler, which applies the rules of policy.c and hands
 * every request it does not reject to OpenSM's own handler. Departed ports
 * and the state file are the plugin thread's (worker.c). */
#include <opensm/osm_config.h> /* first: it fixes the layout of osm_sa_t */
#include <opensm/osm_event_plugin.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_sa.h>
#include <opensm/osm_service.h>
#include <opensm/osm_version.h>
#include <complib/cl_dispatcher.h>

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

/* Exported by the opensm binary, declared in no installed header. */
void osm_sr_rcv_process(void *context, void *data);

void osmats_sr_from_osm(const ib_service_record_t *in, struct sr_record *out)
{
	uint8_t buf[SR_SIZE];

	memcpy(buf, in, SR_SIZE);
	sr_decode(buf, sizeof(buf), out);
}

/* What the rules need to know, gathered under OpenSM's lock. */
struct facts {
	uint64_t req_guid;
	uint16_t req_lid;
	int known;      /* the SA knows the requester */
	struct pol_peer *peers;
	size_t npeers;
};

static int gather(struct osmats *p, osm_madw_t *madw, const struct osmats_conf *c,
		  struct pol_request *req, struct facts *f)
{
	osm_subn_t *subn = &p->osm->subn;
	osm_physp_t *physp;
	osm_port_t *req_port = NULL, *tgt_port;
	cl_list_item_t *it;
	size_t cap = 0;
	int ret = 0;

	memset(f, 0, sizeof(*f));
	f->req_lid = cl_ntoh16(madw->mad_addr.dest_lid);
	cl_plock_acquire(&p->osm->lock);
	physp = osm_get_physp_by_mad_addr(p->log, subn, &madw->mad_addr);
	if (physp) {
		f->known = 1;
		f->req_guid = cl_ntoh64(osm_physp_get_port_guid(physp));
		req_port = osm_get_port_by_guid(subn, osm_physp_get_port_guid(physp));
	}
	/* The GID's interface ID may be the port GUID or an alias of it. */
	tgt_port = osm_get_port_by_alias_guid(subn, cl_hton64(wire_get64(req->rec.gid + 8)));
	req->owns_gid = req_port && tgt_port == req_port &&
			wire_get64(req->rec.gid) == cl_ntoh64(subn->opt.subnet_prefix);
	req->sys_guid = tgt_port && tgt_port->p_node ?
			cl_ntoh64(tgt_port->p_node->node_info.sys_guid) : 0;
	req->trusted = (subn->opt.sa_key && req->sm_key == cl_ntoh64(subn->opt.sa_key)) ||
		       conf_is_trusted(c, f->req_guid);

	for (it = cl_qlist_head(&subn->sa_sr_list);
	     it != cl_qlist_end(&subn->sa_sr_list); it = cl_qlist_next(it)) {
		osm_svcr_t *s = (osm_svcr_t *)it;
		struct pol_peer peer;
		osm_port_t *port;

		osmats_sr_from_osm(&s->service_record, &peer.rec);
		if (!pol_peer_relevant(req, &peer.rec))
			continue;
		port = osm_get_port_by_alias_guid(subn, cl_hton64(wire_get64(peer.rec.gid + 8)));
		peer.sys_guid = port && port->p_node ?
				cl_ntoh64(port->p_node->node_info.sys_guid) : 0;
		if (f->npeers == cap) {
			struct pol_peer *n;

			cap = cap ? 2 * cap : 8;
			n = realloc(f->peers, cap * sizeof(*n));
			if (!n) {
				ret = -ENOMEM;
				break;
			}
			f->peers = n;
		}
		f->peers[f->npeers++] = peer;
	}
	cl_plock_release(&p->osm->lock);
	return ret;
}

static void log_decision(struct osmats *p, const struct pol_request *req,
			 const struct facts *f, enum pol_rule rule,
			 osm_log_level_t level, const char *what, const char *why)
{
	char gid[ATS_IP_STRLEN], ip[ATS_IP_STRLEN];
	struct ats_ip a;

	if (ats_ip_decode(req->rec.data8, &a, NULL))
		snprintf(ip, sizeof(ip), "-");
	else
		ats_ip_format(&a, ip, sizeof(ip));
	OSM_LOG(p->log, level,
		"%s %s: ATS rule %s: %s ServiceRecord %s from LID %u port GUID 0x%016" PRIx64
		": SID 0x%016" PRIx64 " GID %s PKey 0x%04x IP %s: %s\n",
		level == OSM_LOG_ERROR ? "ERR" : "WRN", pol_rule_code(rule),
		pol_rule_name(rule), what,
		req->method == SA_METHOD_DELETE ? "Delete" : "Set", f->req_lid,
		f->req_guid, req->rec.id,
		ats_gid_format(req->rec.gid, gid, sizeof(gid)), req->rec.pkey, ip, why);
}

static void osmats_sr_set(void *context, void *data)
{
	struct osmats *p = context;
	osm_madw_t *madw = data;
	uint8_t *mad = (uint8_t *)osm_madw_get_mad_ptr(madw);
	struct osmats_conf conf;
	struct pol_request req;
	struct pol_decision d;
	struct facts f;

	if (pol_request_decode(mad, madw->mad_size, &req) ||
	    (req.method != SA_METHOD_SET && req.method != SA_METHOD_DELETE) ||
	    (!ats_sid_in_block(req.rec.id) && !ats_name_is_ats(req.rec.name))) {
		osm_sr_rcv_process(&p->osm->sa, data);
		return;
	}
	pthread_mutex_lock(&p->mu);
	conf = p->conf;
	pthread_mutex_unlock(&p->mu);
	if (gather(p, madw, &conf, &req, &f)) {
		OSM_LOG(p->log, OSM_LOG_ERROR,
			"ERR 7A11: out of memory checking an ATS request; answering NO_RESOURCES\n");
		osm_sa_send_error(&p->osm->sa, madw, IB_SA_MAD_STATUS_NO_RESOURCES);
		free(f.peers);
		return;
	}
	if (!f.known) {
		/* OpenSM drops requests from unknown ports silently. */
		free(f.peers);
		osm_sr_rcv_process(&p->osm->sa, data);
		return;
	}
	pol_decide(&conf.pol, &req, f.peers, f.npeers, &d);
	free(f.peers);
	if (d.rule != POL_PASS) {
		log_decision(p, &req, &f, d.rule, OSM_LOG_ERROR, "rejected", d.why);
		pthread_mutex_lock(&p->mu);
		p->cnt.rejected[d.rule]++;
		pthread_mutex_unlock(&p->mu);
		osm_sa_send_error(&p->osm->sa, madw, IB_SA_MAD_STATUS_REQ_INVALID);
		osmats_post_state(p);
		return;
	}
	if (d.warn)
		log_decision(p, &req, &f, d.warn_rule, OSM_LOG_INFO, "accepted despite", d.why);
	if (d.clamp) {
		char why[64];

		snprintf(why, sizeof(why), "lease %" PRIu32 " s clamped to %" PRIu32 " s",
			 pol_effective_lease(&req), d.lease);
		log_decision(p, &req, &f, POL_LEASE, OSM_LOG_INFO, "accepted with", why);
		wire_put32(mad + SA_OFF_DATA + SR_OFF_LEASE, d.lease);
		wire_put64(mad + SA_OFF_COMP_MASK, req.comp_mask | sr_comp_mask(SR_F_LEASE));
	}
	osm_sr_rcv_process(&p->osm->sa, data);
	pthread_mutex_lock(&p->mu);
	p->cnt.accepted++;
	if (d.warn)
		p->cnt.warned[d.warn_rule]++;
	if (d.clamp)
		p->cnt.clamped++;
	pthread_mutex_unlock(&p->mu);
	osmats_post_state(p);
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
		ret = 0;
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
	if (!memcmp(&old, &now, sizeof(now)))
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
	cl_disp_reg_handle_t h;
	struct osmats *p;
	const char *dir;

	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->osm = osm;
	p->log = &osm->log;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	OSM_LOG(p->log, OSM_LOG_INFO,
		"osmats %s for %s loaded, options \"%s\"\n", IBATS_VERSION,
		OSM_VERSION, opts ? opts : "");
	conf_path_from_options(opts, p->conf_path, sizeof(p->conf_path));
	if (load_conf(p, &p->conf, &p->conf_stamp)) {
		OSM_LOG(p->log, OSM_LOG_ERROR,
			"ERR 7A23: osmats not loaded: fix %s\n", p->conf_path);
		goto fail;
	}
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

	/* The SA is initialized but not bound yet, so no request can be in
	 * flight while the handler is swapped. The handle goes back into
	 * osm->sa so that osm_sa_shutdown() unregisters ours in OpenSM's
	 * place. */
	cl_disp_unregister(osm->sa.sr_set_disp_h);
	h = cl_disp_register(osm->sa.p_set_disp, OSM_MSG_MAD_SERVICE_RECORD,
			     osmats_sr_set, p);
	if (h == CL_DISP_INVALID_HANDLE) {
		OSM_LOG(p->log, OSM_LOG_ERROR,
			"ERR 7A00: cannot hook ServiceRecord Set/Delete; "
			"restoring OpenSM's handler\n");
		osm->sa.sr_set_disp_h = cl_disp_register(osm->sa.p_set_disp,
							 OSM_MSG_MAD_SERVICE_RECORD,
							 osm_sr_rcv_process,
							 &osm->sa);
		osmats_worker_stop(p);
		goto fail;
	}
	osm->sa.sr_set_disp_h = h;
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
