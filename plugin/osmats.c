/* libosmats: OpenSM event plugin that guards the ATS ServiceRecords.
 *
 * It replaces the SA's ServiceRecord Set/Delete dispatcher registration
 * with its own handler, which rejects ATS records that break the rules in
 * policy.c and hands every other request to OpenSM's own handler. */
#include <opensm/osm_config.h> /* first: it fixes the layout of osm_sa_t */
#include <opensm/osm_event_plugin.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_sa.h>
#include <opensm/osm_version.h>
#include <complib/cl_dispatcher.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ats.h"
#include "policy.h"
#include "sa.h"

/* Exported by the opensm binary, declared in no installed header. */
void osm_sr_rcv_process(void *context, void *data);

struct osmats {
	osm_opensm_t *osm;
	osm_log_t *log;
	uint64_t rejected[POL_NRULES];
	uint64_t accepted;
};

/* Requester port GUID for the log; 0 when the LID is unknown to the SM. */
static uint64_t requester_guid(struct osmats *p, osm_madw_t *madw)
{
	osm_physp_t *physp;
	uint64_t guid = 0;

	cl_plock_acquire(&p->osm->lock);
	physp = osm_get_physp_by_mad_addr(p->log, &p->osm->subn,
					  &madw->mad_addr);
	if (physp)
		guid = cl_ntoh64(osm_physp_get_port_guid(physp));
	cl_plock_release(&p->osm->lock);
	return guid;
}

static void osmats_sr_set(void *context, void *data)
{
	struct osmats *p = context;
	osm_madw_t *madw = data;
	const uint8_t *mad = (const uint8_t *)osm_madw_get_mad_ptr(madw);
	struct pol_decision d;
	char gid[ATS_IP_STRLEN];

	if (mad[MAD_OFF_METHOD] != SA_METHOD_SET) {
		/* Delete of a malformed record is cleanup: let it through. */
		osm_sr_rcv_process(&p->osm->sa, data);
		return;
	}
	pol_check_set(mad, madw->mad_size, &d);
	if (d.rule == POL_PASS) {
		if (d.is_ats)
			p->accepted++;
		osm_sr_rcv_process(&p->osm->sa, data);
		return;
	}
	p->rejected[d.rule]++;
	OSM_LOG(p->log, OSM_LOG_ERROR,
		"ERR %s: ATS rule %s: rejected ServiceRecord Set from LID %u "
		"port GUID 0x%016" PRIx64 ": SID 0x%016" PRIx64 " GID %s "
		"PKey 0x%04x: %s\n",
		pol_rule_code(d.rule), pol_rule_name(d.rule),
		cl_ntoh16(madw->mad_addr.dest_lid), requester_guid(p, madw),
		d.rec.id, ats_gid_format(d.rec.gid, gid, sizeof(gid)),
		d.rec.pkey, d.why);
	osm_sa_send_error(&p->osm->sa, madw, IB_SA_MAD_STATUS_REQ_INVALID);
}

static void *osmats_create(osm_opensm_t *osm)
{
	struct osmats *p;
	const char *opts = osm->subn.opt.event_plugin_options;
	cl_disp_reg_handle_t h;

	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->osm = osm;
	p->log = &osm->log;
	OSM_LOG(p->log, OSM_LOG_INFO,
		"osmats %s for %s loaded, options \"%s\"\n", IBATS_VERSION,
		OSM_VERSION, opts ? opts : "");

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
		free(p);
		return NULL;
	}
	osm->sa.sr_set_disp_h = h;
	return p;
}

static void osmats_delete(void *plugin_data)
{
	struct osmats *p = plugin_data;

	/* The dispatcher registration is gone already (osm_sa_shutdown). */
	OSM_LOG(p->log, OSM_LOG_INFO,
		"osmats unloaded: %" PRIu64 " ATS Set(s) accepted; rejected: "
		"sid-block %" PRIu64 ", service-name %" PRIu64 ", address %" PRIu64 "\n",
		p->accepted, p->rejected[POL_SID_BLOCK], p->rejected[POL_NAME],
		p->rejected[POL_ADDR]);
	free(p);
}

static void osmats_report(void *plugin_data, osm_epi_event_id_t event_id,
			  void *event_data)
{
	(void)plugin_data;
	(void)event_id;
	(void)event_data;
}

osm_event_plugin_t osm_event_plugin = {
	.osm_version = OSM_VERSION,
	.create = osmats_create,
	.delete = osmats_delete,
	.report = osmats_report,
};
