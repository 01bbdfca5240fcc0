/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The plugin's access to OpenSM's internals (see glue.h). */
#include "glue.h"

/* OpenSM's headers are this file's (and osmats.c's) alone: glue.h
 * gives the rest of the plugin plain C types and opaque handles. */
#include <opensm/osm_config.h> /* first: it fixes the layout of osm_sa_t */
#include <opensm/osm_opensm.h>
#include <opensm/osm_madw.h>
#include <opensm/osm_helper.h>
#include <opensm/osm_sa.h>
#include <opensm/osm_service.h>
#include <opensm/osm_version.h>
#include <complib/cl_dispatcher.h>
#include <complib/cl_timer.h>

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "core/sr.h"
#include "core/wire.h"

_Static_assert(sizeof(ib_service_record_t) == SR_SIZE, "ServiceRecord layout");

/* Exported by the opensm binary, declared in no installed header. */
void osm_sr_rcv_process(void *context, void *data);

/* Set by glue_init() and glue_sa_hook() from create(), before OpenSM's
 * threads call in; read-only after. OpenSM's own fields are guarded by
 * osm->lock (glue_lock_*) or read atomically (OSM_READ). */
static struct {
	osm_opensm_t *osm;
	void (*lease_expired)(const uint8_t *bytes);
	void (*lease_then)(void);
	glue_sa_fn sr_set, sr_get;
} G;

/* Whether OpenSM's list of plugin names holds name, whole: load_plugins
 * (osm_opensm.c) splits it at commas and blanks. */
static int names_plugin(const char *list, const char *name)
{
	size_t n = strlen(name), w;

	for (list += strspn(list, ", \t\n"); *list; list += strspn(list, ", \t\n")) {
		w = strcspn(list, ", \t\n");
		if (w == n && !strncmp(list, name, n))
			return 1;
		list += w;
	}
	return 0;
}

/* The layout canary (doc/opensm-versions.md). OpenSM's own guard is
 * strcmp(osm_version) (osm_event_plugin.c, osm_epi_construct), blind to
 * a same-version OpenSM laid out otherwise (a distro patch, another
 * osm_config.h), where every member read here would be another. Two
 * things OpenSM set before create() must be where the headers put them.
 * First the log object, by a pointer compared, never followed:
 * osm_opensm_init hands opt.log_file to osm_log_init_v2, which keeps the
 * pointer (osm_log.c), and osm_subn_init copies opt into subn. Until that
 * holds osm->log is not trusted either, so the refusal goes to syslog,
 * as OpenSM's OSM_LOG_SYS lines do. Then event_plugin_name, which OpenSM
 * loaded this plugin by, must name it. */
static int log_in_place(const osm_opensm_t *o)
{
	/* "log_file (null)" in opensm.conf (osm_subnet.c opts_parse_charp)
	 * leaves no pointer to compare: osm_log_init_v2 then logs to stdout. */
	if (!o->subn.opt.log_file)
		return !o->log.log_file_name && o->log.out_port == stdout;
	return o->log.log_file_name == o->subn.opt.log_file;
}

int glue_init(osm_opensm_t *o, const char *name)
{
	const char *list;

	if (!log_in_place(o)) {
		syslog(LOG_ERR, "ERR 7A4A: %s refused: OpenSM's log object is not where the %s "
		       "headers it was built with put it: rebuild it against this OpenSM's headers",
		       name, OSM_VERSION);
		return -EPROTO;
	}
	list = o->subn.opt.event_plugin_name;
	if (!list || !names_plugin(list, name)) {
		OSM_LOG(&o->log, OSM_LOG_ERROR,
			"ERR 7A4A: %s refused: event_plugin_name reads \"%.64s\", not its name: "
			"this OpenSM is not laid out as the %s headers it was built with say "
			"(rebuild it against this OpenSM's headers), or it was loaded under "
			"another name\n", name, list ? list : "(null)", OSM_VERSION);
		return -EPROTO;
	}
	G.osm = o;
	return 0;
}

const char *glue_osm_version(void)
{
	return OSM_VERSION;
}

const char *glue_plugin_options(void)
{
	return G.osm->subn.opt.event_plugin_options;
}

const char *glue_dump_dir(void)
{
	return G.osm->subn.opt.dump_files_dir;
}

const char *glue_sa_db_file(void)
{
	return G.osm->subn.opt.sa_db_file;
}

uint64_t glue_sa_key(void)
{
	return cl_ntoh64(G.osm->subn.opt.sa_key);
}

uint64_t glue_subnet_prefix(void)
{
	return cl_ntoh64(G.osm->subn.opt.subnet_prefix);
}

uint8_t glue_lmc(void)
{
	return G.osm->subn.opt.lmc;
}

uint64_t glue_sm_port_guid(void)
{
	return cl_ntoh64(G.osm->subn.sm_port_guid);
}

int glue_sm_key_readable(void)
{
	/* OpenSM gives its own port opt.m_key and opt.m_key_protect_bits
	 * (osm_lid_mgr.c), and answers SubnGet(SMInfo) with the SM_Key
	 * unless that M_Key is set, the MAD's is another and the protect
	 * bits are 1 (SM_Key zeroed) or more (no answer): osm_sminfo_rcv.c,
	 * smi_rcv_process_get_request's fill_sm_key. */
	return !G.osm->subn.opt.m_key || !G.osm->subn.opt.m_key_protect_bits;
}

void glue_polling(unsigned *timeout_ms, unsigned *retries)
{
	*timeout_ms = G.osm->subn.opt.sminfo_polling_timeout;
	*retries = G.osm->subn.opt.polling_retry_number;
}

/* OpenSM's state manager thread writes sm_state, first_time_master_sweep
 * and coming_out_of_standby mostly outside osm->lock (osm_sm_state_mgr.c,
 * do_sweep in osm_state_mgr.c), and our SA, responder and worker threads
 * read them: no lock to take, so each is one atomic load (TSan sees no
 * plain read). Relaxed: each is a single word that publishes nothing
 * else, and a value a moment old is what a moment earlier would have
 * read; every caller reads again at its next request, tick or sweep. */
#define OSM_READ(field) __atomic_load_n(&G.osm->subn.field, __ATOMIC_RELAXED)

uint8_t glue_sm_state(void)
{
	return OSM_READ(sm_state);
}

int glue_is_master(void)
{
	return OSM_READ(sm_state) == IB_SMINFO_STATE_MASTER;
}

int glue_is_standby(void)
{
	return OSM_READ(sm_state) == IB_SMINFO_STATE_STANDBY;
}

/* Two loads, not a snapshot, and none could be had: OpenSM sets sm_state
 * to MASTER before first_time_master_sweep (osm_sm_state_mgr.c), so in
 * between this says steady, as OpenSM's own SA, which tests the same
 * flag (osm_sa_mad_ctrl.c), answers then too. */
int glue_steady(void)
{
	return OSM_READ(sm_state) == IB_SMINFO_STATE_MASTER &&
	       !OSM_READ(first_time_master_sweep);
}

int glue_leaving_standby(void)
{
	return OSM_READ(coming_out_of_standby);
}

/* Written by OpenSM's LID manager (osm_lid_mgr.c); the responder reads
 * it once per liveness answer. */
uint16_t glue_sm_lid(void)
{
	return cl_ntoh16(OSM_READ(sm_base_lid));
}

int glue_master_sm(uint16_t *lid, uint64_t *guid)
{
	osm_port_t *port;
	int ret = -ENOENT;

	cl_plock_acquire(&G.osm->lock);
	port = G.osm->sm.master_sm_guid ?
	       osm_get_port_by_guid(&G.osm->subn, G.osm->sm.master_sm_guid) : NULL;
	if (port && G.osm->sm.master_sm_guid != G.osm->subn.sm_port_guid) {
		*lid = cl_ntoh16(osm_port_get_base_lid(port));
		*guid = cl_ntoh64(G.osm->sm.master_sm_guid);
		ret = *lid ? 0 : -ENOENT;
	}
	cl_plock_release(&G.osm->lock);
	return ret;
}

uint64_t glue_port_of_lid(uint16_t lid)
{
	osm_port_t *port;
	uint64_t guid = 0;

	cl_plock_acquire(&G.osm->lock);
	port = lid ? osm_get_port_by_lid_ho(&G.osm->subn, lid) : NULL;
	if (port)
		guid = cl_ntoh64(osm_port_get_guid(port));
	cl_plock_release(&G.osm->lock);
	return guid;
}

void glue_lock_shared(void)
{
	cl_plock_acquire(&G.osm->lock);
}

void glue_lock_excl(void)
{
	cl_plock_excl_acquire(&G.osm->lock);
}

void glue_unlock(void)
{
	cl_plock_release(&G.osm->lock);
}

static osm_port_t *port_of(const uint8_t *gid)
{
	return osm_get_port_by_alias_guid(&G.osm->subn, cl_hton64(wire_get64(gid + 8)));
}

int glue_gid_on_fabric(const uint8_t *gid)
{
	return port_of(gid) != NULL;
}

uint64_t glue_port_of_gid(const uint8_t *gid)
{
	osm_port_t *port = port_of(gid);

	return port ? cl_ntoh64(osm_port_get_guid(port)) : 0;
}

uint64_t glue_sys_guid_of(const uint8_t *gid)
{
	osm_port_t *port = port_of(gid);

	return port && port->p_node ? cl_ntoh64(port->p_node->node_info.sys_guid) : 0;
}

int glue_gid_has_pkey(const uint8_t *gid, uint16_t pkey)
{
	osm_port_t *port = port_of(gid);

	return port && osm_physp_has_pkey(&G.osm->log, cl_hton16(pkey), port->p_physp);
}

/* The opaque handles of glue.h are OpenSM's own objects. */
static osm_madw_t *madw_of(const struct glue_sa_req *req)
{
	return (osm_madw_t *)req;
}

static const osm_physp_t *physp_of(const struct glue_port *port)
{
	return (const osm_physp_t *)port;
}

const struct glue_port *glue_requester(struct glue_sa_req *req)
{
	return (const struct glue_port *)osm_get_physp_by_mad_addr(&G.osm->log, &G.osm->subn,
								  &madw_of(req)->mad_addr);
}

uint64_t glue_port_guid(const struct glue_port *port)
{
	return cl_ntoh64(osm_physp_get_port_guid(physp_of(port)));
}

int glue_port_has_pkey(const struct glue_port *port, uint16_t pkey)
{
	return osm_physp_has_pkey(&G.osm->log, cl_hton16(pkey), physp_of(port));
}

uint16_t glue_req_lid(const struct glue_sa_req *req)
{
	return cl_ntoh16(madw_of(req)->mad_addr.dest_lid);
}

uint8_t *glue_req_mad(struct glue_sa_req *req, size_t *size)
{
	osm_madw_t *madw = madw_of(req);

	*size = madw->mad_size;
	return (uint8_t *)osm_madw_get_sa_mad_ptr(madw);
}

const char *glue_method_str(uint8_t method)
{
	return ib_get_sa_method_str(method);
}

void glue_logf(enum glue_log_level level, const char *func, const char *fmt, ...)
{
	static const osm_log_level_t levels[] = {
		[GLUE_LOG_ERROR] = OSM_LOG_ERROR,
		[GLUE_LOG_INFO] = OSM_LOG_INFO,
		[GLUE_LOG_VERBOSE] = OSM_LOG_VERBOSE,
	};
	osm_log_level_t l = levels[level];
	/* As long as osm_log() writes a line: OSM_LOG() cut none shorter. */
	char msg[LOG_ENTRY_SIZE_MAX];
	va_list ap;

	if (!osm_log_is_active(&G.osm->log, l))
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* As OSM_LOG() writes it: "func: " and the line. */
	osm_log(&G.osm->log, l, "%s: %s", func, msg);
}

size_t glue_sr_count(void)
{
	return cl_qlist_count(&G.osm->subn.sa_sr_list);
}

void glue_sr_walk(int oldest_first, glue_sr_fn fn, void *arg)
{
	cl_qlist_t *l = &G.osm->subn.sa_sr_list;
	cl_list_item_t *it, *next;

	for (it = oldest_first ? cl_qlist_tail(l) : cl_qlist_head(l);
	     it != cl_qlist_end(l); it = next) {
		osm_svcr_t *s = (osm_svcr_t *)it;

		next = oldest_first ? cl_qlist_prev(it) : cl_qlist_next(it);
		if (fn(s, (const uint8_t *)&s->service_record, arg))
			break;
	}
}

const uint8_t *glue_sr_rec(const void *rec)
{
	return (const uint8_t *)&((const osm_svcr_t *)rec)->service_record;
}

size_t glue_sr_rec_offset(void)
{
	return offsetof(osm_svcr_t, service_record);
}

/* The SR_SIZE wire bytes as OpenSM's record (the layouts are the same). */
static const ib_service_record_t *as_osm(const uint8_t *bytes)
{
	return (const ib_service_record_t *)bytes;
}

void *glue_sr_insert(const uint8_t *bytes)
{
	osm_svcr_t *s = osm_svcr_new(as_osm(bytes));

	if (s)
		osm_svcr_insert_to_db(&G.osm->subn, &G.osm->log, s);
	return s;
}

void glue_sr_replace(void *rec, const uint8_t *bytes)
{
	osm_svcr_init(rec, as_osm(bytes));
}

void glue_sr_remove(void *rec)
{
	osm_svcr_remove_from_db(&G.osm->subn, &G.osm->log, rec);
	osm_svcr_delete(rec);
}

void glue_sr_lease_started(void *rec)
{
	cl_timer_trim(&G.osm->sa.sr_timer, 1000);
	((osm_svcr_t *)rec)->modified_time = cl_get_time_stamp_sec();
}

uint32_t glue_sr_lease_left(const void *rec)
{
	const osm_svcr_t *s = rec;
	uint32_t now = cl_get_time_stamp_sec(), elapsed;

	if (s->service_record.service_lease == 0xFFFFFFFF)
		return SR_LEASE_INFINITE;
	elapsed = now - s->modified_time;
	return elapsed < s->lease_period ? s->lease_period - elapsed : 0;
}

void glue_sr_set_lease_left(void *rec, uint32_t left)
{
	osm_svcr_t *s = rec;

	s->lease_period = left;
	s->modified_time = cl_get_time_stamp_sec();
	cl_timer_trim(&G.osm->sa.sr_timer, 1000);
}

void glue_sr_dirty(void)
{
	G.osm->sa.dirty = TRUE;
}

/* OpenSM's lease timer (osm_sr_rcv_lease_cb, which it replaces): every
 * finite lease counts down by the seconds since the record was last
 * visited, at least one; a record whose lease ran out is removed, told to
 * the plugin first. The timer comes back when the shortest lease left
 * ends, at most 20 s later. */
static void lease_cb(void *context)
{
	osm_sa_t *sa = context;
	cl_qlist_t *l = &G.osm->subn.sa_sr_list;
	cl_list_item_t *it, *next;
	uint32_t trim = 20;

	cl_plock_excl_acquire(&G.osm->lock);
	for (it = cl_qlist_head(l); it != cl_qlist_end(l); it = next) {
		osm_svcr_t *s = (osm_svcr_t *)it;
		uint32_t now = cl_get_time_stamp_sec(), elapsed;

		next = cl_qlist_next(it);
		if (s->service_record.service_lease == 0xFFFFFFFF)
			continue;
		elapsed = now - s->modified_time;
		if (elapsed < 1)
			elapsed = 1;
		if (elapsed < s->lease_period) {
			s->lease_period -= elapsed;
			s->modified_time = now;
			if (s->lease_period < trim)
				trim = s->lease_period;
			continue;
		}
		G.lease_expired((const uint8_t *)&s->service_record);
		osm_svcr_remove_from_db(&G.osm->subn, &G.osm->log, s);
		osm_svcr_delete(s);
	}
	cl_plock_release(&G.osm->lock);
	cl_timer_trim(&sa->sr_timer, (trim ? trim : 1) * 1000);
	G.lease_then();
}

/* The SA dispatchers' callbacks: the request to the plugin's handlers. */
static void sr_set(void *context, void *data)
{
	(void)context;
	G.sr_set(data);
}

static void sr_get(void *context, void *data)
{
	(void)context;
	G.sr_get(data);
}

int glue_sa_hook(glue_sa_fn set, glue_sa_fn get,
		 void (*expired)(const uint8_t *bytes), void (*after_lease)(void))
{
	osm_sa_t *sa = &G.osm->sa;
	cl_disp_reg_handle_t set_h, get_h;

	G.sr_set = set;
	G.sr_get = get;

	/* The SA is initialized but not bound yet, so no request can be in
	 * flight while the handlers are swapped. The handles go back into
	 * osm->sa so that osm_sa_shutdown() unregisters ours in OpenSM's
	 * place. */
	cl_disp_unregister(sa->sr_set_disp_h);
	cl_disp_unregister(sa->sr_disp_h);
	set_h = cl_disp_register(sa->p_set_disp, OSM_MSG_MAD_SERVICE_RECORD, sr_set, NULL);
	get_h = cl_disp_register(sa->p_disp, OSM_MSG_MAD_SERVICE_RECORD, sr_get, NULL);
	if (set_h == CL_DISP_INVALID_HANDLE || get_h == CL_DISP_INVALID_HANDLE) {
		if (set_h != CL_DISP_INVALID_HANDLE)
			cl_disp_unregister(set_h);
		if (get_h != CL_DISP_INVALID_HANDLE)
			cl_disp_unregister(get_h);
		sa->sr_set_disp_h = cl_disp_register(sa->p_set_disp, OSM_MSG_MAD_SERVICE_RECORD,
						     osm_sr_rcv_process, sa);
		sa->sr_disp_h = cl_disp_register(sa->p_disp, OSM_MSG_MAD_SERVICE_RECORD,
						 osm_sr_rcv_process, sa);
		return -EBUSY;
	}
	sa->sr_set_disp_h = set_h;
	sa->sr_disp_h = get_h;
	/* No lease is pending before the SA is bound: the timer is idle. */
	G.lease_expired = expired;
	G.lease_then = after_lease;
	sa->sr_timer.pfn_callback = lease_cb;
	sa->sr_timer.context = sa;
	return 0;
}

void glue_sa_fallback(struct glue_sa_req *req)
{
	osm_sr_rcv_process(&G.osm->sa, madw_of(req));
}

int glue_sa_respond(struct glue_sa_req *req, const uint8_t *recs, size_t n)
{
	cl_qlist_t list;
	size_t i;

	cl_qlist_init(&list);
	for (i = 0; i < n; i++) {
		osm_sa_item_t *item = malloc(SA_ITEM_RESP_SIZE(service_rec));

		if (!item) {
			cl_list_item_t *it;

			while ((it = cl_qlist_remove_head(&list)) != cl_qlist_end(&list))
				free(it);
			return -ENOMEM;
		}
		memcpy(&item->resp.service_rec, recs + i * SR_SIZE, SR_SIZE);
		cl_qlist_insert_tail(&list, &item->list_item);
	}
	osm_sa_respond(&G.osm->sa, madw_of(req), sizeof(ib_service_record_t), &list);
	return 0;
}

/* The class-specific status is bits 8..15 of the MAD's Status field
 * (IBTA Vol 1 Table 185, sa.h). */
void glue_sa_status(struct glue_sa_req *req, uint16_t sa_status)
{
	osm_sa_send_error(&G.osm->sa, madw_of(req), cl_hton16((uint16_t)(sa_status << 8)));
}

/* The one record rec answered to madw's request. */
static int respond_one(osm_madw_t *madw, const uint8_t *rec)
{
	osm_sa_item_t *item = malloc(SA_ITEM_RESP_SIZE(service_rec));
	cl_qlist_t list;

	if (!item) {
		osm_sa_send_error(&G.osm->sa, madw, IB_SA_MAD_STATUS_NO_RESOURCES);
		return -ENOMEM;
	}
	memcpy(&item->resp.service_rec, rec, SR_SIZE);
	cl_qlist_init(&list);
	cl_qlist_insert_tail(&list, &item->list_item);
	osm_sa_respond(&G.osm->sa, madw, sizeof(ib_service_record_t), &list);
	return 0;
}

int glue_sa_respond_one(struct glue_sa_req *req, const uint8_t *rec)
{
	return respond_one(madw_of(req), rec);
}

/* A kept request (glue.h): what osm_sa_respond reads of a madw. */
struct glue_req {
	osm_mad_addr_t addr;
	uint32_t size;
	uint8_t mad[MAD_BLOCK_SIZE];
};

_Static_assert(_Alignof(struct glue_req) <= _Alignof(max_align_t), "glue_req alignment");

size_t glue_req_size(void)
{
	return sizeof(struct glue_req);
}

void glue_req_save(const struct glue_sa_req *req, struct glue_req *out)
{
	const osm_madw_t *madw = madw_of(req);

	out->addr = madw->mad_addr;
	out->size = madw->mad_size < sizeof(out->mad) ? madw->mad_size : sizeof(out->mad);
	memcpy(out->mad, madw->p_mad, out->size);
}

void glue_req_respond_one(const struct glue_req *req, const uint8_t *rec)
{
	osm_madw_t madw;

	/* osm_opensm_destroy sets the flag before it unbinds the SA. */
	if (__atomic_load_n(&osm_exit_flag, __ATOMIC_ACQUIRE))
		return;
	/* osm_sa_respond reads the request's header, address and bind
	 * handle (the SA's one), and allocates its answer from the pool. */
	osm_madw_init(&madw, G.osm->sa.mad_ctrl.h_bind, req->size, &req->addr);
	osm_madw_set_mad(&madw, (const ib_mad_t *)req->mad);
	respond_one(&madw, rec);
}
