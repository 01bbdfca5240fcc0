/* The plugin's ServiceRecord handlers. They replace OpenSM's on both SA
 * dispatchers and answer from the plugin's index (srindex.c) instead of
 * scanning osm->subn.sa_sr_list:
 *
 * - Set/Delete (one "subnadmin_set" thread): the ATS rules of policy.c,
 *   then OpenSM's own Set/Delete semantics (osm_sa_service_record.c),
 *   finding the record by RID in the index. List and index change together
 *   under the exclusive osm->lock.
 * - Get/GetTable (one thread per CPU, shared lock): matched in the index,
 *   PKey-filtered for the requester, answered with osm_sa_respond() as
 *   OpenSM would, in the list's order.
 *
 * OpenSM also changes the list itself: lease expiry (its sr_timer, which
 * the plugin wraps), the SA database load and the SA clean on leaving
 * standby (both in a first master sweep). None of these keeps the count
 * unchanged except a clean followed by a load, which happens only while
 * first_time_master_sweep is set. So the index is trusted only while it
 * holds as many records as the list and no first master sweep runs;
 * otherwise writers rebuild it and readers fall back to OpenSM's scan.
 * Entries point into OpenSM's records: this rule is also what keeps
 * every pointer a reader follows alive (a record is freed only under the
 * exclusive lock, and every free changes the count or is the plugin's). */
#include <opensm/osm_config.h> /* first: it fixes the layout of osm_sa_t */
#include <opensm/osm_opensm.h>
#include <opensm/osm_helper.h>
#include <opensm/osm_sa.h>
#include <opensm/osm_service.h>
#include <complib/cl_dispatcher.h>
#include <complib/cl_timer.h>

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ats.h"
#include "osmats.h"
#include "policy.h"
#include "sa.h"
#include "srindex.h"
#include "wire.h"

/* Exported by the opensm binary, declared in no installed header. */
void osm_sr_rcv_process(void *context, void *data);
void osm_sr_rcv_lease_cb(void *context);

static void bump(uint64_t *c)
{
	__atomic_add_fetch(c, 1, __ATOMIC_RELAXED);
}

/* The SA's own work on a request, from the dispatcher's call until the
 * lock is released with the answer decided; sending it is transport. */
static void account(uint64_t *count, uint64_t *ns, uint64_t t0)
{
	__atomic_add_fetch(count, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(ns, (uint64_t)mono_ns() - t0, __ATOMIC_RELAXED);
}

static int steady(struct osmats *p)
{
	osm_subn_t *s = &p->osm->subn;

	return s->sm_state == IB_SMINFO_STATE_MASTER && !s->first_time_master_sweep;
}

/* Whom a record naming gid is charged to for the per-port cap: the port
 * the GID's interface ID belongs to (its port GUID or one of its alias
 * GUIDs, whatever the subnet prefix), or 0, the one shared account of
 * GIDs on no port. */
uint64_t osmats_charge_of(struct osmats *p, const uint8_t *gid)
{
	osm_port_t *port = osm_get_port_by_alias_guid(&p->osm->subn,
						      cl_hton64(wire_get64(gid + 8)));

	return port ? cl_ntoh64(osm_port_get_guid(port)) : 0;
}

/* Under either lock: whether the index mirrors the list. */
static int idx_current(struct osmats *p)
{
	if (!steady(p)) {
		__atomic_store_n(&p->idx_stale, 1, __ATOMIC_RELAXED);
		return 0;
	}
	return !__atomic_load_n(&p->idx_stale, __ATOMIC_ACQUIRE) &&
	       srx_count(p->idx) == cl_qlist_count(&p->osm->subn.sa_sr_list);
}

/* Exclusive lock: make the index mirror the list. -ENOMEM leaves it
 * marked stale. Outside steady state it stays marked stale, so the next
 * writer rebuilds again. */
int osmats_idx_sync(struct osmats *p)
{
	cl_qlist_t *l = &p->osm->subn.sa_sr_list;
	cl_list_item_t *it;

	if (idx_current(p))
		return 0;
	srx_clear(p->idx);
	/* Oldest first: the index, like the list, puts the newest at the head. */
	for (it = cl_qlist_tail(l); it != cl_qlist_end(l); it = cl_qlist_prev(it)) {
		osm_svcr_t *s = (osm_svcr_t *)it;

		if (srx_add_charged(p->idx, (const uint8_t *)&s->service_record, s,
				    osmats_charge_of(p, s->service_record.service_gid.raw))) {
			srx_clear(p->idx);
			__atomic_store_n(&p->idx_stale, 1, __ATOMIC_RELEASE);
			OSM_LOG(p->log, OSM_LOG_ERROR,
				"ERR 7A31: out of memory indexing %u ServiceRecords; "
				"queries fall back to OpenSM's scan\n", cl_qlist_count(l));
			return -ENOMEM;
		}
	}
	bump(&p->idx_rebuilds);
	__atomic_store_n(&p->idx_stale, !steady(p), __ATOMIC_RELEASE);
	OSM_LOG(p->log, OSM_LOG_VERBOSE, "ServiceRecord index rebuilt: %zu records\n",
		srx_count(p->idx));
	return 0;
}

void osmats_idx_invalidate(struct osmats *p)
{
	__atomic_store_n(&p->idx_stale, 1, __ATOMIC_RELEASE);
}

void osmats_idx_sweep_start(struct osmats *p)
{
	/* A first master sweep may clean and reload the SA database. */
	if (!steady(p))
		osmats_idx_invalidate(p);
}

/* Exclusive lock, index current: drop one of OpenSM's records from both. */
void osmats_idx_remove(struct osmats *p, osm_svcr_t *s)
{
	struct srx_ent *e = srx_find_rid(p->idx, (const uint8_t *)&s->service_record);

	osm_svcr_remove_from_db(&p->osm->subn, p->log, s);
	if (e && srx_handle(e) == s)
		srx_del(p->idx, e);
	else
		osmats_idx_invalidate(p);
	osm_svcr_delete(s);
}

/* OpenSM's lease timer, then a rebuild if it expired anything. */
static void lease_cb(void *context)
{
	struct osmats *p = context;

	osm_sr_rcv_lease_cb(&p->osm->sa);
	cl_plock_excl_acquire(&p->osm->lock);
	osmats_idx_sync(p);
	cl_plock_release(&p->osm->lock);
}

/* What the rules need to know about the requester and the records held. */
struct facts {
	uint64_t req_guid;
	uint16_t req_lid;
	struct pol_peer *peers;
	size_t npeers, cap;
	int err;
};

struct peer_walk {
	struct osmats *p;
	const struct pol_request *req;
	struct facts *f;
	const struct srx_ent *skip[3]; /* found already */
	size_t nskip;
};

static uint64_t sys_guid_of(struct osmats *p, const uint8_t *gid)
{
	osm_port_t *port = osm_get_port_by_alias_guid(&p->osm->subn,
						      cl_hton64(wire_get64(gid + 8)));

	return port && port->p_node ? cl_ntoh64(port->p_node->node_info.sys_guid) : 0;
}

static int add_peer(const struct srx_ent *e, void *arg)
{
	struct peer_walk *w = arg;
	struct facts *f = w->f;
	struct pol_peer peer;
	size_t i;

	for (i = 0; i < w->nskip; i++)
		if (e == w->skip[i])
			return 0;
	sr_decode(srx_rec(e), SR_SIZE, &peer.rec);
	if (!pol_peer_relevant(w->req, &peer.rec))
		return 0;
	/* pol_decide compares system images of other GIDs' primaries only. */
	peer.sys_guid = peer.rec.id == ATS_SID_PRIMARY &&
			memcmp(peer.rec.gid, w->req->rec.gid, 16) ?
			sys_guid_of(w->p, peer.rec.gid) : 0;
	if (f->npeers == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 8;
		struct pol_peer *n = realloc(f->peers, cap * sizeof(*n));

		if (!n) {
			f->err = -ENOMEM;
			return 1;
		}
		f->peers = n;
		f->cap = cap;
	}
	f->peers[f->npeers++] = peer;
	return 0;
}

/* Exclusive lock, index current. Only the peers pol_decide() consults,
 * each found by a lookup rather than a walk of the GID's records:
 * - a Set needs the GID's primary in its partition (primary-first), and
 *   the records holding its address in either IPv4 form (the same GID's
 *   for port-duplicate, other GIDs' primaries for duplicate-address);
 * - a Delete of a primary needs the GID's other records. */
static int gather(struct osmats *p, const osm_physp_t *physp,
		  const struct osmats_conf *c, struct pol_request *req,
		  struct facts *f)
{
	osm_subn_t *subn = &p->osm->subn;
	struct peer_walk w = { .p = p, .req = req, .f = f };
	osm_port_t *req_port, *tgt_port;
	uint8_t key[SR_SIZE], alt[16];
	const struct srx_ent *found[3];
	size_t nfound = 0, i;
	ib_net16_t pkey = cl_hton16(req->rec.pkey);

	f->req_guid = cl_ntoh64(osm_physp_get_port_guid(physp));
	req_port = osm_get_port_by_guid(subn, osm_physp_get_port_guid(physp));
	/* The GID's interface ID may be the port GUID or an alias of it. */
	tgt_port = osm_get_port_by_alias_guid(subn, cl_hton64(wire_get64(req->rec.gid + 8)));
	req->owns_gid = req_port && tgt_port == req_port &&
			wire_get64(req->rec.gid) == cl_ntoh64(subn->opt.subnet_prefix);
	req->sys_guid = sys_guid_of(p, req->rec.gid);
	req->trusted = pol_key_trusted(cl_ntoh64(subn->opt.sa_key), req->sm_key) ||
		       conf_is_trusted(c, f->req_guid);
	/* What validate_sr() would ask with the P_Key bit set; the
	 * base P_Key is what osm_physp_has_pkey() compares. */
	req->req_has_pkey = !pol_pkey_invalid(req->rec.pkey) &&
			    osm_physp_has_pkey(p->log, pkey, physp);
	req->gid_has_pkey = !pol_pkey_invalid(req->rec.pkey) && tgt_port &&
			    osm_physp_has_pkey(p->log, pkey, tgt_port->p_physp);

	if (req->method == SA_METHOD_DELETE) {
		if (req->rec.id == ATS_SID_PRIMARY)
			srx_each_gid(p->idx, req->rec.gid, add_peer, &w);
		return f->err;
	}
	/* The GID's primary and, for the port-duplicate rule, this SID, each
	 * under both membership forms of the partition. */
	memset(key, 0, sizeof(key));
	memcpy(key + SR_OFF_GID, req->rec.gid, 16);
	for (i = 0; i < 3; i++) {
		const struct srx_ent *e;
		size_t j;

		wire_put64(key + SR_OFF_ID, i < 2 ? ATS_SID_PRIMARY : req->rec.id);
		wire_put16(key + SR_OFF_PKEY, (uint16_t)(req->rec.pkey ^ (i == 1 ? 0 : 0x8000)));
		if (i == 2 && req->rec.id == ATS_SID_PRIMARY)
			break;
		e = srx_find_rid(p->idx, key);
		for (j = 0; j < nfound && e; j++)
			if (found[j] == e)
				e = NULL;
		if (e) {
			add_peer(e, &w);
			found[nfound++] = e;
		}
	}
	/* Every record of its address in this partition, but those found. */
	w.nskip = nfound;
	memcpy(w.skip, found, sizeof(found));
	srx_each_data8(p->idx, req->rec.data8, add_peer, &w);
	if (!ats_ip_other_form(req->rec.data8, alt))
		srx_each_data8(p->idx, alt, add_peer, &w);
	return f->err;
}

void osmats_log_summary(struct osmats *p, const struct rl_summary *sum)
{
	char by[256], who[48];
	size_t used = 0;
	unsigned k;

	by[0] = '\0';
	for (k = 0; k < RL_KINDS && used < sizeof(by); k++)
		if (sum->by_kind[k])
			used += (size_t)snprintf(by + used, sizeof(by) - used, "%s%s %" PRIu64,
						 used ? ", " : "",
						 k < POL_NRULES ? pol_rule_name((enum pol_rule)k) :
						 "unknown-requester", sum->by_kind[k]);
	if (sum->who == RL_OTHERS)
		snprintf(who, sizeof(who), "other ports");
	else if (sum->who & OSMATS_RL_LID)
		snprintf(who, sizeof(who), "unknown LID %u", (unsigned)(sum->who & 0xffff));
	else
		snprintf(who, sizeof(who), "port GUID 0x%016" PRIx64, sum->who);
	OSM_LOG(p->log, OSM_LOG_ERROR,
		"WRN 7A13: suppressed %" PRIu64 " refusal line(s) from %s in the last %" PRIu64
		" s (by rule: %s)\n", sum->suppressed, who,
		(sum->span_ns + 999999999u) / 1000000000u, by);
}

/* Whether a refusal line of kind from who may be logged now; logs the
 * summary of an interval this one closes. */
int osmats_log_allowed(struct osmats *p, uint64_t who, unsigned kind)
{
	struct rl_summary sum;
	int ok, have;

	pthread_mutex_lock(&p->mu);
	ok = rl_event(&p->rl, who, kind, (uint64_t)mono_ns(), &sum, &have);
	pthread_mutex_unlock(&p->mu);
	if (have)
		osmats_log_summary(p, &sum);
	if (!ok)
		osmats_post_state(p); /* the worker summarises when it is due */
	return ok;
}

static void log_decision(struct osmats *p, const struct pol_request *req,
			 const struct facts *f, enum pol_rule rule,
			 osm_log_level_t level, const char *what, const char *why)
{
	char gid[ATS_IP_STRLEN], ip[ATS_IP_STRLEN];

	if (!osmats_log_allowed(p, f->req_guid, rule))
		return;
	ats_data8_str(req->rec.data8, ip, sizeof(ip));
	OSM_LOG(p->log, level,
		"%s %s: %s %s: %s ServiceRecord %s from LID %u port GUID 0x%016" PRIx64
		": SID 0x%016" PRIx64 " GID %s PKey 0x%04x IP %s: %s\n",
		level == OSM_LOG_ERROR ? "ERR" : "WRN", pol_rule_code(rule),
		rule == POL_CAP ? "rule" : "ATS rule", pol_rule_name(rule), what,
		req->method == SA_METHOD_DELETE ? "Delete" : "Set", f->req_lid,
		f->req_guid, req->rec.id,
		ats_gid_format(req->rec.gid, gid, sizeof(gid)), req->rec.pkey, ip, why);
}

/* OpenSM's validate_sr(): with the PKey in the mask, the requester and the
 * ServiceGID's port must both hold it. */
static int pkeys_valid(struct osmats *p, const osm_physp_t *physp,
		       const ib_service_record_t *rec, ib_net64_t mask)
{
	osm_port_t *port;

	if (!(mask & IB_SR_COMPMASK_SPKEY))
		return 1;
	if (!osm_physp_has_pkey(p->log, rec->service_pkey, physp))
		return 0;
	if (!(mask & IB_SR_COMPMASK_SGID) || ib_gid_is_multicast(&rec->service_gid))
		return 1;
	port = osm_get_port_by_alias_guid(&p->osm->subn, rec->service_gid.unicast.interface_id);
	return port && osm_physp_has_pkey(p->log, rec->service_pkey, port->p_physp);
}

/* OpenSM's sr_rcv_respond(): the ServiceKey only to trusted requests. */
static void respond(struct osmats *p, osm_madw_t *madw, cl_qlist_t *list)
{
	if (!osm_madw_get_sa_mad_ptr(madw)->sm_key) {
		osm_sa_item_t *it;

		for (it = (osm_sa_item_t *)cl_qlist_head(list);
		     it != (osm_sa_item_t *)cl_qlist_end(list);
		     it = (osm_sa_item_t *)cl_qlist_next(&it->list_item))
			memset(it->resp.service_rec.service_key, 0,
			       sizeof(it->resp.service_rec.service_key));
	}
	osm_sa_respond(&p->osm->sa, madw, sizeof(ib_service_record_t), list);
}

static void respond_one(struct osmats *p, osm_madw_t *madw, const ib_service_record_t *rec)
{
	osm_sa_item_t *item = malloc(SA_ITEM_RESP_SIZE(service_rec));
	cl_qlist_t list;

	if (!item) {
		OSM_LOG(p->log, OSM_LOG_ERROR, "ERR 7A32: out of memory answering a ServiceRecord %s\n",
			ib_get_sa_method_str(osm_madw_get_sa_mad_ptr(madw)->method));
		osm_sa_send_error(&p->osm->sa, madw, IB_SA_MAD_STATUS_NO_RESOURCES);
		return;
	}
	item->resp.service_rec = *rec;
	cl_qlist_init(&list);
	cl_qlist_insert_tail(&list, &item->list_item);
	respond(p, madw, &list);
}

/* Exclusive lock held, released here. OpenSM's sr_rcv_process_set_method. */
static void do_set(struct osmats *p, osm_madw_t *madw, ib_service_record_t *rec,
		   ib_net64_t mask, uint64_t charge, uint64_t t0)
{
	struct srx_ent *e;
	osm_svcr_t *s;
	ib_service_record_t answer;

	if ((mask & (IB_SR_COMPMASK_SID | IB_SR_COMPMASK_SGID)) !=
	    (IB_SR_COMPMASK_SID | IB_SR_COMPMASK_SGID)) {
		cl_plock_release(&p->osm->lock);
		osm_sa_send_error(&p->osm->sa, madw, IB_SA_MAD_STATUS_REQ_INVALID);
		return;
	}
	if (!(mask & IB_SR_COMPMASK_SLEASE))
		rec->service_lease = SR_LEASE_INFINITE;
	e = srx_find_rid(p->idx, (const uint8_t *)rec);
	if (e) {
		s = srx_handle(e);
		srx_unhook(p->idx, e);
		osm_svcr_init(s, rec);
		srx_rehook(p->idx, e);
	} else {
		s = osm_svcr_new(rec);
		if (!s) {
			cl_plock_release(&p->osm->lock);
			OSM_LOG(p->log, OSM_LOG_ERROR,
				"ERR 7A32: out of memory adding a ServiceRecord\n");
			osm_sa_send_error(&p->osm->sa, madw, IB_SA_MAD_STATUS_NO_RESOURCES);
			return;
		}
		osm_svcr_insert_to_db(&p->osm->subn, p->log, s);
		if (srx_add_charged(p->idx, (const uint8_t *)&s->service_record, s, charge))
			osmats_idx_invalidate(p);
	}
	if (rec->service_lease != SR_LEASE_INFINITE) {
		/* As OpenSM does: a lease-timer call within a second. */
		cl_timer_trim(&p->osm->sa.sr_timer, 1000);
		s->modified_time = cl_get_time_stamp_sec();
	}
	cl_plock_release(&p->osm->lock);
	account(&p->sets, &p->set_ns, t0);
	answer = *rec;
	if (!(mask & IB_SR_COMPMASK_SPKEY))
		answer.service_pkey = IB_DEFAULT_PKEY;
	respond_one(p, madw, &answer);
}

/* Exclusive lock held, released here. OpenSM's sr_rcv_process_delete_method. */
static void do_delete(struct osmats *p, osm_madw_t *madw, const ib_service_record_t *rec,
		      uint64_t t0)
{
	struct srx_ent *e = srx_find_rid(p->idx, (const uint8_t *)rec);
	ib_service_record_t gone;
	osm_svcr_t *s;

	if (!e) {
		cl_plock_release(&p->osm->lock);
		osm_sa_send_error(&p->osm->sa, madw, IB_SA_MAD_STATUS_NO_RECORDS);
		return;
	}
	s = srx_handle(e);
	gone = s->service_record;
	osm_svcr_remove_from_db(&p->osm->subn, p->log, s);
	srx_del(p->idx, e);
	osm_svcr_delete(s);
	cl_plock_release(&p->osm->lock);
	account(&p->sets, &p->set_ns, t0);
	respond_one(p, madw, &gone);
}

static void count_decision(struct osmats *p, const struct pol_decision *d)
{
	pthread_mutex_lock(&p->mu);
	if (d->rule != POL_PASS) {
		p->cnt.rejected[d->rule]++;
	} else {
		p->cnt.accepted++;
		if (d->warn)
			p->cnt.warned[d->warn_rule]++;
		if (d->clamp)
			p->cnt.clamped++;
	}
	pthread_mutex_unlock(&p->mu);
	osmats_post_state(p);
}

/* Exclusive lock held. The ATS rules; nonzero when the request was
 * answered (rejected), with the lock released. */
static int apply_rules(struct osmats *p, osm_madw_t *madw, const osm_physp_t *physp,
		       uint8_t *mad, struct pol_request *req)
{
	struct osmats_conf conf;
	struct pol_decision d;
	struct facts f;

	memset(&f, 0, sizeof(f));
	f.req_lid = cl_ntoh16(madw->mad_addr.dest_lid);
	pthread_mutex_lock(&p->mu);
	conf = p->conf;
	pthread_mutex_unlock(&p->mu);
	if (gather(p, physp, &conf, req, &f)) {
		cl_plock_release(&p->osm->lock);
		free(f.peers);
		OSM_LOG(p->log, OSM_LOG_ERROR,
			"ERR 7A11: out of memory checking an ATS request; answering NO_RESOURCES\n");
		osm_sa_send_error(&p->osm->sa, madw, IB_SA_MAD_STATUS_NO_RESOURCES);
		return 1;
	}
	pol_decide(&conf.pol, req, f.peers, f.npeers, &d);
	free(f.peers);
	if (d.rule != POL_PASS) {
		cl_plock_release(&p->osm->lock);
		log_decision(p, req, &f, d.rule, OSM_LOG_ERROR, "rejected", d.why);
		count_decision(p, &d);
		osm_sa_send_error(&p->osm->sa, madw, IB_SA_MAD_STATUS_REQ_INVALID);
		return 1;
	}
	if (d.warn)
		log_decision(p, req, &f, d.warn_rule, OSM_LOG_INFO, "accepted despite", d.why);
	if (d.clamp) {
		char why[64];

		snprintf(why, sizeof(why), "lease %" PRIu32 " s clamped to %" PRIu32 " s",
			 pol_effective_lease(req), d.lease);
		log_decision(p, req, &f, POL_LEASE, OSM_LOG_INFO, "accepted with", why);
		wire_put32(mad + SA_OFF_DATA + SR_OFF_LEASE, d.lease);
		wire_put64(mad + SA_OFF_COMP_MASK, req->comp_mask | sr_comp_mask(SR_F_LEASE));
	}
	count_decision(p, &d);
	return 0;
}

/* Exclusive lock held, index current: the per-port cap on a new record,
 * for every service (trusted requesters too). Nonzero when the request
 * was answered (NO_RESOURCES), with the lock released. */
static int apply_cap(struct osmats *p, osm_madw_t *madw, const osm_physp_t *physp,
		     struct pol_request *req, uint64_t charge)
{
	struct pol_config pol;
	struct pol_decision d;
	struct facts f;

	pthread_mutex_lock(&p->mu);
	pol = p->conf.pol;
	pthread_mutex_unlock(&p->mu);
	req->is_new = !srx_find_rid(p->idx, (const uint8_t *)ib_sa_mad_get_payload_ptr(
					    osm_madw_get_sa_mad_ptr(madw)));
	req->charged = srx_charged(p->idx, charge);
	pol_decide_cap(&pol, req, &d);
	if (d.rule == POL_PASS)
		return 0;
	cl_plock_release(&p->osm->lock);
	memset(&f, 0, sizeof(f));
	f.req_lid = cl_ntoh16(madw->mad_addr.dest_lid);
	f.req_guid = cl_ntoh64(osm_physp_get_port_guid(physp));
	if (charge)
		snprintf(d.why + strlen(d.why), sizeof(d.why) - strlen(d.why),
			 " [port 0x%016" PRIx64 "]", charge);
	else
		snprintf(d.why + strlen(d.why), sizeof(d.why) - strlen(d.why),
			 " [GIDs on no port]");
	log_decision(p, req, &f, POL_CAP, OSM_LOG_ERROR, "rejected", d.why);
	count_decision(p, &d);
	osm_sa_send_error(&p->osm->sa, madw, IB_SA_MAD_STATUS_NO_RESOURCES);
	return 1;
}

static void sr_set(void *context, void *data)
{
	struct osmats *p = context;
	uint64_t t0 = (uint64_t)mono_ns();
	osm_madw_t *madw = data;
	ib_sa_mad_t *sam = osm_madw_get_sa_mad_ptr(madw);
	uint8_t *mad = (uint8_t *)sam;
	ib_service_record_t *rec = ib_sa_mad_get_payload_ptr(sam);
	struct pol_request req;
	osm_physp_t *physp;

	if ((sam->method != IB_MAD_METHOD_SET && sam->method != IB_MAD_METHOD_DELETE) ||
	    pol_request_decode(mad, madw->mad_size, &req)) {
		osm_sr_rcv_process(&p->osm->sa, data);
		return;
	}
	cl_plock_excl_acquire(&p->osm->lock);
	if (osmats_idx_sync(p)) {
		cl_plock_release(&p->osm->lock);
		osm_sa_send_error(&p->osm->sa, madw, IB_SA_MAD_STATUS_NO_RESOURCES);
		return;
	}
	physp = osm_get_physp_by_mad_addr(p->log, &p->osm->subn, &madw->mad_addr);
	if (!physp) {
		cl_plock_release(&p->osm->lock);
		if (osmats_log_allowed(p, OSMATS_RL_LID | cl_ntoh16(madw->mad_addr.dest_lid),
				       RL_KINDS - 1))
			OSM_LOG(p->log, OSM_LOG_ERROR, "ERR 7A33: ServiceRecord %s from unknown LID %u; "
				"answering REQ_INVALID as OpenSM does\n",
				ib_get_sa_method_str(sam->method),
				cl_ntoh16(madw->mad_addr.dest_lid));
		osm_sa_send_error(&p->osm->sa, madw, IB_SA_MAD_STATUS_REQ_INVALID);
		return;
	}
	if ((ats_sid_in_block(req.rec.id) || ats_name_is_ats(req.rec.name)) &&
	    apply_rules(p, madw, physp, mad, &req))
		return;
	if (!pkeys_valid(p, physp, rec, sam->comp_mask)) {
		cl_plock_release(&p->osm->lock);
		osm_sa_send_error(&p->osm->sa, madw, IB_SA_MAD_STATUS_REQ_INVALID);
		return;
	}
	if (sam->method == IB_MAD_METHOD_SET) {
		uint64_t charge = osmats_charge_of(p, rec->service_gid.raw);

		if (apply_cap(p, madw, physp, &req, charge))
			return;
		do_set(p, madw, rec, sam->comp_mask, charge, t0);
	} else
		do_delete(p, madw, rec, t0);
}

struct get_walk {
	struct osmats *p;
	const osm_physp_t *physp;
	cl_qlist_t list;
	int err;
};

/* OpenSM's get_matching_sr() after the field matching. */
static int add_answer(const struct srx_ent *e, void *arg)
{
	struct get_walk *w = arg;
	const ib_service_record_t *rec = (const ib_service_record_t *)srx_rec(e);
	osm_sa_item_t *item;

	if (!ib_pkey_is_invalid(rec->service_pkey) &&
	    !osm_physp_has_pkey(w->p->log, rec->service_pkey, w->physp))
		return 0;
	item = malloc(SA_ITEM_RESP_SIZE(service_rec));
	if (!item) {
		w->err = -ENOMEM;
		return 1;
	}
	item->resp.service_rec = *rec;
	cl_qlist_insert_tail(&w->list, &item->list_item);
	return 0;
}

static void free_items(cl_qlist_t *list)
{
	cl_list_item_t *it;

	while ((it = cl_qlist_remove_head(list)) != cl_qlist_end(list))
		free(it);
}

static void sr_get(void *context, void *data)
{
	struct osmats *p = context;
	osm_madw_t *madw = data;
	ib_sa_mad_t *sam = osm_madw_get_sa_mad_ptr(madw);
	struct get_walk w = { .p = p };
	uint64_t t0 = (uint64_t)mono_ns();
	int indexed, wanted;

	if (sam->method != IB_MAD_METHOD_GET && sam->method != IB_MAD_METHOD_GETTABLE) {
		osm_sr_rcv_process(&p->osm->sa, madw);
		return;
	}
	wanted = __atomic_load_n(&p->indexed_queries, __ATOMIC_RELAXED);
	cl_plock_acquire(&p->osm->lock);
	indexed = wanted && idx_current(p);
	if (!indexed) {
		cl_plock_release(&p->osm->lock);
		bump(&p->get_fallback);
		/* Behind in steady state (leases, a clean): the worker catches
		 * up, so that one query pays for it, not all of them. */
		if (wanted && steady(p))
			osmats_post_resync(p);
		osm_sr_rcv_process(&p->osm->sa, madw);
		return;
	}
	w.physp = osm_get_physp_by_mad_addr(p->log, &p->osm->subn, &madw->mad_addr);
	if (!w.physp) {
		/* OpenSM does not answer a requester it cannot place. */
		cl_plock_release(&p->osm->lock);
		if (osmats_log_allowed(p, OSMATS_RL_LID | cl_ntoh16(madw->mad_addr.dest_lid),
				       RL_KINDS - 1))
			OSM_LOG(p->log, OSM_LOG_ERROR, "ERR 7A33: ServiceRecord %s from unknown LID %u; "
				"not answered, as OpenSM does\n", ib_get_sa_method_str(sam->method),
				cl_ntoh16(madw->mad_addr.dest_lid));
		return;
	}
	cl_qlist_init(&w.list);
	if (srx_query(p->idx, ib_sa_mad_get_payload_ptr(sam), cl_ntoh64(sam->comp_mask),
		      add_answer, &w) < 0)
		w.err = -ENOMEM;
	cl_plock_release(&p->osm->lock);
	account(&p->get_indexed, &p->get_ns, t0);
	if (w.err) {
		free_items(&w.list);
		OSM_LOG(p->log, OSM_LOG_ERROR,
			"ERR 7A32: out of memory answering a ServiceRecord query\n");
		osm_sa_send_error(&p->osm->sa, madw, IB_SA_MAD_STATUS_NO_RESOURCES);
		return;
	}
	if (sam->method == IB_MAD_METHOD_GET && !cl_qlist_count(&w.list))
		osm_sa_send_error(&p->osm->sa, madw, IB_SA_MAD_STATUS_NO_RECORDS);
	else
		respond(p, madw, &w.list);
}

int osmats_sr_hook(struct osmats *p)
{
	osm_sa_t *sa = &p->osm->sa;
	cl_disp_reg_handle_t set_h, get_h;

	if (srx_init(&p->idx))
		return -ENOMEM;
	p->idx_stale = 1;
	/* The SA is initialized but not bound yet, so no request can be in
	 * flight while the handlers are swapped. The handles go back into
	 * osm->sa so that osm_sa_shutdown() unregisters ours in OpenSM's
	 * place. */
	cl_disp_unregister(sa->sr_set_disp_h);
	cl_disp_unregister(sa->sr_disp_h);
	set_h = cl_disp_register(sa->p_set_disp, OSM_MSG_MAD_SERVICE_RECORD, sr_set, p);
	get_h = cl_disp_register(sa->p_disp, OSM_MSG_MAD_SERVICE_RECORD, sr_get, p);
	if (set_h == CL_DISP_INVALID_HANDLE || get_h == CL_DISP_INVALID_HANDLE) {
		if (set_h != CL_DISP_INVALID_HANDLE)
			cl_disp_unregister(set_h);
		if (get_h != CL_DISP_INVALID_HANDLE)
			cl_disp_unregister(get_h);
		sa->sr_set_disp_h = cl_disp_register(sa->p_set_disp, OSM_MSG_MAD_SERVICE_RECORD,
						     osm_sr_rcv_process, sa);
		sa->sr_disp_h = cl_disp_register(sa->p_disp, OSM_MSG_MAD_SERVICE_RECORD,
						 osm_sr_rcv_process, sa);
		srx_fini(p->idx);
		p->idx = NULL;
		return -EBUSY;
	}
	sa->sr_set_disp_h = set_h;
	sa->sr_disp_h = get_h;
	/* No lease is pending before the SA is bound: the timer is idle. */
	sa->sr_timer.pfn_callback = lease_cb;
	sa->sr_timer.context = p;
	return 0;
}
