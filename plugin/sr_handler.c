/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The plugin's ServiceRecord handlers. They replace OpenSM's on both SA
 * dispatchers and answer from the plugin's index (mirror.c) instead of
 * scanning osm->subn.sa_sr_list:
 *
 * - Set/Delete (one "subnadmin_set" thread): the ATS rules of policy.c,
 *   then OpenSM's own Set/Delete semantics (osm_sa_service_record.c),
 *   finding the record by RID in the index. List and index change together
 *   under the exclusive osm->lock.
 * - Get/GetTable (one thread per CPU, shared lock): matched in the index,
 *   PKey-filtered for the requester, answered through glue.c as
 *   OpenSM would, in the list's order.
 * OpenSM itself only through glue.h: requests are bytes (sa.h, sr.h). */
#include "sr_handler.h"

#include "glue.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/ats.h"
#include "mirror.h"
#include "core/mono.h"
#include "policy.h"
#include "ratelim.h"
#include "refhist.h"
#include "refusal.h"
#include "replica.h"
#include "core/sa.h"
#include "settings.h"
#include "srdecide.h"
#include "core/wire.h"

static struct {
	struct sr_handler_events events;      /* set by sr_handler_init(); read-only after */
	pthread_mutex_t mu;
	struct state_file_counters cnt;     /* under mu */
	/* Lock-free: the SA's own work on requests, from the dispatcher's
	 * call until the lock is released with the answer decided; sending
	 * it is transport. */
	_Atomic uint64_t get_indexed, get_fallback, get_ns;
	_Atomic uint64_t sets, set_ns; /* Sets and Deletes carried out */
	/* The lease timer's last expiry: its own thread's, under the
	 * exclusive osm->lock. */
	uint64_t lease_seq;
} H = { .mu = PTHREAD_MUTEX_INITIALIZER };

static void account(_Atomic uint64_t *count, _Atomic uint64_t *ns, uint64_t t0)
{
	atomic_fetch_add_explicit(count, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(ns, (uint64_t)mono_ns() - t0, memory_order_relaxed);
}

/* What the rules need to know about the requester and the records held. */
struct facts {
	uint64_t req_guid;
	uint16_t req_lid;
	struct policy_peer *peers;
	size_t npeers, cap;
	int err;
};

struct peer_walk {
	const struct policy_request *req;
	struct facts *f;
	const struct srindex_ent *skip[3]; /* found already */
	size_t nskip;
};

static int add_peer(const struct srindex_ent *e, void *arg)
{
	struct peer_walk *w = arg;
	struct facts *f = w->f;
	struct policy_peer peer;
	size_t i;

	for (i = 0; i < w->nskip; i++)
		if (e == w->skip[i])
			return 0;
	sr_decode(srindex_rec(e), SR_SIZE, &peer.rec);
	if (!policy_peer_relevant(w->req, &peer.rec))
		return 0;
	/* policy_decide compares system images of other GIDs' primaries only. */
	peer.sys_guid = peer.rec.id == ATS_SID_PRIMARY &&
			memcmp(peer.rec.gid, w->req->rec.gid, 16) ?
			glue_sys_guid_of(peer.rec.gid) : 0;
	if (f->npeers == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 8;
		struct policy_peer *n = realloc(f->peers, cap * sizeof(*n));

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

/* Exclusive lock, index current. Only the peers policy_decide() consults,
 * each found by a lookup rather than a walk of the GID's records:
 * - a Set needs the GID's primary in its partition (primary-first), and
 *   the records holding its address in either IPv4 form (the same GID's
 *   for port-duplicate, other GIDs' primaries for duplicate-address);
 * - a Delete of a primary needs the GID's other records. */
static int gather(const struct glue_port *port, const struct osmats_conf *c,
		  struct policy_request *req, struct facts *f)
{
	const struct srindex *idx = mirror_index();
	struct peer_walk w = { .req = req, .f = f };
	uint8_t key[3][SRINDEX_RID_LEN], alt[16];
	const struct srindex_ent *found[3];
	size_t nfound = 0, nkeys, i;
	uint64_t tgt;

	/* A Set's peers: the GID's primary and, for the port-duplicate rule,
	 * this SID, each under both membership forms of the partition, and
	 * the records of its address. Their table slots are fetched first,
	 * together: out of cache (100k records and more) the misses overlap,
	 * with each other and with OpenSM's port lookups below. */
	nkeys = req->method == SA_METHOD_DELETE ? 0 : req->rec.id == ATS_SID_PRIMARY ? 2 : 3;
	memset(key, 0, sizeof(key));
	for (i = 0; i < nkeys; i++) {
		memcpy(key[i] + SR_OFF_GID, req->rec.gid, 16);
		wire_put64(key[i] + SR_OFF_ID, i < 2 ? ATS_SID_PRIMARY : req->rec.id);
		wire_put16(key[i] + SR_OFF_PKEY, (uint16_t)(req->rec.pkey ^ (i == 1 ? 0 : 0x8000)));
		srindex_prefetch_rid(idx, key[i]);
	}
	if (nkeys)
		srindex_prefetch_data8(idx, req->rec.data8);
	f->req_guid = glue_port_guid(port);
	/* The GID's interface ID may be the port GUID or an alias of it. */
	tgt = glue_port_of_gid(req->rec.gid);
	req->owns_gid = tgt && tgt == f->req_guid &&
			wire_get64(req->rec.gid) == glue_subnet_prefix();
	req->sys_guid = glue_sys_guid_of(req->rec.gid);
	req->trusted = policy_key_trusted(glue_sa_key(), req->sm_key) ||
		       osmats_conf_is_trusted(c, f->req_guid);
	/* What validate_sr() would ask with the P_Key bit set; the
	 * base P_Key is what osm_physp_has_pkey() compares. */
	req->req_has_pkey = !pol_pkey_invalid(req->rec.pkey) &&
			    glue_port_has_pkey(port, req->rec.pkey);
	req->gid_has_pkey = !pol_pkey_invalid(req->rec.pkey) &&
			    glue_gid_has_pkey(req->rec.gid, req->rec.pkey);

	if (req->method == SA_METHOD_DELETE) {
		if (req->rec.id == ATS_SID_PRIMARY)
			srindex_each_gid(idx, req->rec.gid, add_peer, &w);
		return f->err;
	}
	for (i = 0; i < nkeys; i++) {
		const struct srindex_ent *e;
		size_t j;

		e = srindex_find_rid(idx, key[i]);
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
	srindex_each_data8(idx, req->rec.data8, add_peer, &w);
	if (!ats_ip_other_form(req->rec.data8, alt))
		srindex_each_data8(idx, alt, add_peer, &w);
	return f->err;
}

/* A refusal line may be logged now; when not, the plugin thread is
 * woken to summarise once the interval is over. */
static int log_allowed(uint64_t who, unsigned kind)
{
	int ok = refusal_allowed(who, kind);

	if (!ok)
		H.events.changed();
	return ok;
}

/* One line about a request from a known requester, naming it and the
 * record: "WRN 7A05: ATS rule ownership: rejected ServiceRecord Set ...".
 * A refusal is the client's doing, not the plugin's: OpenSM's own
 * ServiceRecord handler logs a client's bad request below OSM_LOG_ERROR
 * (osm_sa_service_record.c), so these go at OSM_LOG_INFO, with WRN, and
 * ERR is left to the plugin's own faults (libosmats(8) LOG LEVELS). */
static void log_request(const struct policy_request *req, const struct facts *f,
			unsigned kind, enum glue_log_level level, const char *code,
			const char *rule, const char *what, const char *why)
{
	char gid[ATS_IP_STRLEN], ip[ATS_IP_STRLEN];

	if (!log_allowed(f->req_guid, kind))
		return;
	ats_data8_str(req->rec.data8, ip, sizeof(ip));
	GLUE_LOG(level,
		"%s %s: %s: %s ServiceRecord %s from LID %u port GUID 0x%016" PRIx64
		": SID 0x%016" PRIx64 " GID %s PKey 0x%04x IP %s: %s\n",
		level == GLUE_LOG_ERROR ? "ERR" : "WRN", code, rule, what,
		req->method == SA_METHOD_DELETE ? "Delete" : "Set", f->req_lid,
		f->req_guid, req->rec.id,
		ats_gid_format(req->rec.gid, gid, sizeof(gid)), req->rec.pkey, ip, why);
}

static void log_decision(const struct policy_request *req, const struct facts *f,
			 enum rule rule, enum glue_log_level level, const char *what,
			 const char *why)
{
	char name[48];

	snprintf(name, sizeof(name), "%s %s", rule == RULE_CAP ? "rule" : "ATS rule",
		 rule_name(rule));
	log_request(req, f, rule, level, rule_code(rule), name, what, why);
}

/* The request's method, for log lines. */
static const char *method_str(struct glue_sa_req *sreq)
{
	size_t size;

	return glue_method_str(glue_req_mad(sreq, &size)[MAD_OFF_METHOD]);
}

static void log_unknown_lid(struct glue_sa_req *sreq, const char *outcome)
{
	uint16_t lid = glue_req_lid(sreq);

	if (log_allowed(REFUSAL_LID | lid, RATELIM_KINDS - 1))
		GLUE_LOG(GLUE_LOG_INFO, "WRN 7A33: ServiceRecord %s from unknown LID %u; "
			 "%s\n", method_str(sreq), lid, outcome);
}

/* A refusal by OpenSM's own rules, logged as the ATS rules' are; the
 * lock released. sa_status: SA_STATUS_* (sa.h). */
static void refuse(struct glue_sa_req *sreq, const struct policy_request *req, const struct facts *who,
		   unsigned kind, const char *code, const char *why, uint16_t sa_status)
{
	static const char *const rule[] = {
		[REFUSAL_SA_REQUEST - REFUSAL_SA_REQUEST] = "SA rule request",
		[REFUSAL_SA_PKEY - REFUSAL_SA_REQUEST] = "SA rule partition",
		[REFUSAL_SA_NO_RECORD - REFUSAL_SA_REQUEST] = "SA rule no-record",
	};

	log_request(req, who, kind, GLUE_LOG_INFO, code, rule[kind - REFUSAL_SA_REQUEST],
		    "rejected", why);
	glue_sa_status(sreq, sa_status);
}

/* OpenSM's sr_rcv_respond(): the ServiceKey only to trusted requests
 * (a nonzero SM_Key in the request). */
static int untrusted(struct glue_sa_req *sreq)
{
	size_t size;

	return !wire_get64(glue_req_mad(sreq, &size) + SA_OFF_SM_KEY);
}

/* A Set's or Delete's answer, as OpenSM's sr_rcv_respond() makes it,
 * once the standbys have the change seq (replica.h). */
static void answer_change(struct glue_sa_req *sreq, struct defer_slot *slot, uint64_t epoch,
			  uint64_t seq, uint8_t *rec)
{
	if (untrusted(sreq))
		memset(rec + SR_OFF_KEY, 0, 16);
	replica_answer(slot, epoch, seq, sreq, rec);
}

/* How a Set or Delete ended under the lock: what sr_set does once it is
 * released. */
enum set_outcome {
	SET_MADE,         /* the change made: answered once the standbys have it */
	SET_NOT_SYNCED,   /* the index could not be brought current */
	SET_UNKNOWN_LID,  /* no port at the requester's LID */
	SET_NO_MEMORY,    /* out of memory gathering an ATS request's facts */
	SET_RULE_REFUSED, /* refused by an ATS rule */
	SET_NO_PLACE,     /* no place for its answer (err) */
	SET_NOT_ADDED,    /* out of memory adding the record */
	SET_NO_RECORD,    /* a Delete of no record */
	SET_REFUSED,      /* refused by the cap or OpenSM's own rules (o.by) */
};

/* One Set or Delete: the request, what was learnt and decided under the
 * lock, and what was done. */
struct set_work {
	struct glue_sa_req *sreq;
	uint8_t *mad;              /* the request's, rewritten by a lease clamp */
	struct policy_request req;
	struct facts f;
	struct srdecide_out o;
	uint64_t charge;           /* the GID's port: the per-port cap's account */
	int err;                   /* SET_NO_PLACE: replica_reserve()'s */
	/* SET_MADE: the change, the place of its answer, and a Delete's
	 * answer (the record removed). */
	struct defer_slot *slot;
	uint64_t seq, epoch;
	uint8_t answer[SR_SIZE];
};

/* Exclusive lock held: a place for the answer before the change is made
 * (replica.h); nonzero when there is none. */
static int reserve(struct set_work *w)
{
	uint16_t lid = glue_req_lid(w->sreq);

	/* A port's 2^lmc LIDs are one requester (osm_lid_mgr.c aligns them). */
	w->err = replica_reserve(lid & ~((1u << glue_lmc()) - 1), &w->slot);
	return w->err;
}

/* Exclusive lock held. OpenSM's sr_rcv_process_set_method, its checks
 * made (srdecide.c), on the request's record in place. */
static enum set_outcome do_set(struct set_work *w)
{
	uint8_t *rec = w->mad + SA_OFF_DATA;
	void *s;

	if (reserve(w))
		return SET_NO_PLACE;
	if (w->o.lease_infinite)
		wire_put32(rec + SR_OFF_LEASE, SR_LEASE_INFINITE);
	s = mirror_set(rec, w->charge);
	if (!s) {
		defer_cancel(w->slot);
		return SET_NOT_ADDED;
	}
	/* As OpenSM does: a lease-timer call within a second. */
	if (wire_get32(rec + SR_OFF_LEASE) != SR_LEASE_INFINITE)
		glue_sr_lease_started(s);
	w->seq = replica_log_set(rec, &w->epoch);
	return SET_MADE;
}

/* Exclusive lock held. OpenSM's sr_rcv_process_delete_method. */
static enum set_outcome do_delete(struct set_work *w)
{
	if (reserve(w))
		return SET_NO_PLACE;
	if (mirror_delete(w->mad + SA_OFF_DATA, w->answer)) {
		defer_cancel(w->slot);
		return SET_NO_RECORD;
	}
	w->seq = replica_log_delete(w->answer, &w->epoch);
	return SET_MADE;
}

static void count_decision(const struct policy_decision *d)
{
	pthread_mutex_lock(&H.mu);
	if (d->rule != RULE_PASS) {
		H.cnt.rejected[d->rule]++;
	} else {
		H.cnt.accepted++;
		if (d->warn)
			H.cnt.warned[d->warn_rule]++;
		if (d->clamp)
			H.cnt.clamped++;
	}
	pthread_mutex_unlock(&H.mu);
	H.events.changed();
}

/* Exclusive lock held, index current: what srdecide_change() needs.
 * Nonzero when out of memory. */
static int facts_of(struct set_work *w, const struct glue_port *port,
		    const struct osmats_conf *conf, struct srdecide_in *in)
{
	const struct srindex *idx = mirror_index();
	struct policy_request *req = &w->req;
	uint64_t charge = glue_port_of_gid(req->rec.gid);

	if ((ats_sid_in_block(req->rec.id) || ats_name_is_ats(req->rec.name)) &&
	    gather(port, conf, req, &w->f))
		return 1;
	if (req->method == SA_METHOD_SET) {
		req->is_new = !srindex_find_rid(idx, w->mad + SA_OFF_DATA);
		req->charged = srindex_charged(idx, charge);
	}
	in->req = req;
	in->pol = &conf->pol;
	in->peers = w->f.peers;
	in->npeers = w->f.npeers;
	in->req_holds_pkey = glue_port_has_pkey(port, req->rec.pkey);
	in->gid_holds_pkey = glue_gid_has_pkey(req->rec.gid, req->rec.pkey);
	in->gid_port = charge;
	return 0;
}

/* Exclusive lock held: an accepted request's warnings logged, its lease
 * clamped and its verdict counted; nonzero when refused (logged and
 * counted once the lock is released). */
static int rules_done(struct set_work *w)
{
	const struct policy_request *req = &w->req;
	const struct policy_decision *d = &w->o.rules;

	if (d->rule != RULE_PASS)
		return 1;
	if (d->warn)
		log_decision(req, &w->f, d->warn_rule, GLUE_LOG_INFO, "accepted despite", d->why);
	if (d->clamp) {
		char why[64];

		snprintf(why, sizeof(why), "lease %" PRIu32 " s clamped to %" PRIu32 " s",
			 policy_effective_lease(req), d->lease);
		log_decision(req, &w->f, RULE_LEASE, GLUE_LOG_INFO, "accepted with", why);
		wire_put32(w->mad + SA_OFF_DATA + SR_OFF_LEASE, d->lease);
		wire_put64(w->mad + SA_OFF_COMP_MASK, req->comp_mask | sr_comp_mask(SR_F_LEASE));
	}
	count_decision(d);
	return 0;
}

/* Exclusive lock held: the index brought current, the requester placed,
 * the facts gathered, the decision made and carried out. */
static enum set_outcome set_locked(struct set_work *w)
{
	const struct glue_port *port;
	struct osmats_conf conf;
	struct srdecide_in in;

	if (mirror_sync())
		return SET_NOT_SYNCED;
	port = glue_requester(w->sreq);
	if (!port)
		return SET_UNKNOWN_LID;
	w->f.req_lid = glue_req_lid(w->sreq);
	w->f.req_guid = glue_port_guid(port);
	settings_get(&conf);
	if (facts_of(w, port, &conf, &in))
		return SET_NO_MEMORY;
	srdecide_change(&in, &w->o);
	w->charge = in.gid_port;
	if (w->o.ats && rules_done(w))
		return SET_RULE_REFUSED;
	switch (w->o.act) {
	case SRDECIDE_SET:
		return do_set(w);
	case SRDECIDE_DELETE:
		return do_delete(w);
	case SRDECIDE_REFUSE:
		break;
	}
	return SET_REFUSED;
}

/* Lock released: an ATS rule's refusal logged, counted, kept for hosts
 * to ask, and answered REQ_INVALID. */
static void rule_refused(struct set_work *w)
{
	const struct policy_decision *d = &w->o.rules;

	log_decision(&w->req, &w->f, d->rule, GLUE_LOG_INFO, "rejected", d->why);
	count_decision(d);
	/* Before the answer: a host that asks at once finds it. */
	refhist_add(w->f.req_guid, &w->req, d, SA_STATUS_REQ_INVALID << 8);
	glue_sa_status(w->sreq, SA_STATUS_REQ_INVALID);
}

/* Lock released: the per-port cap's refusal, logged, counted and
 * answered NO_RESOURCES. */
static void cap_refused(struct set_work *w)
{
	struct policy_decision *d = &w->o.cap;

	if (w->charge)
		snprintf(d->why + strlen(d->why), sizeof(d->why) - strlen(d->why),
			 " [port 0x%016" PRIx64 "]", w->charge);
	else
		snprintf(d->why + strlen(d->why), sizeof(d->why) - strlen(d->why),
			 " [GIDs on no port]");
	log_decision(&w->req, &w->f, RULE_CAP, GLUE_LOG_INFO, "rejected", d->why);
	count_decision(d);
	refhist_add(w->f.req_guid, &w->req, d, SA_STATUS_NO_RESOURCES << 8);
	glue_sa_status(w->sreq, SA_STATUS_NO_RESOURCES);
}

/* Lock released: no place for the answer, the request refused unmade
 * (NO_RESOURCES): a client that asks again is refused again until the
 * standbys ack or are dropped. */
static void no_place(struct set_work *w)
{
	uint16_t lid = glue_req_lid(w->sreq);

	if (log_allowed(REFUSAL_LID | lid, RATELIM_KINDS - 1))
		GLUE_LOG(GLUE_LOG_INFO,
			 "WRN 7A47: ServiceRecord %s from LID %u refused (NO_RESOURCES): %s\n",
			 method_str(w->sreq), lid,
			 w->err == -EDQUOT ? "this port's share of the answers waiting for standby "
					     "SMs (512) is taken" :
			 w->err == -ENOSPC ? "8192 answers wait for standby SMs" :
					     "out of memory holding its answer");
	glue_sa_status(w->sreq, SA_STATUS_NO_RESOURCES);
}

/* Lock released: the outcome logged, counted and answered. */
static void set_answer(struct set_work *w, enum set_outcome out, uint64_t t0)
{
	struct glue_sa_req *sreq = w->sreq;

	switch (out) {
	case SET_MADE:
		account(&H.sets, &H.set_ns, t0);
		if (w->o.act == SRDECIDE_SET) {
			memcpy(w->answer, w->mad + SA_OFF_DATA, SR_SIZE);
			if (w->o.default_pkey)
				wire_put16(w->answer + SR_OFF_PKEY, 0xffff);
		}
		answer_change(sreq, w->slot, w->epoch, w->seq, w->answer);
		return;
	case SET_NOT_SYNCED:
		glue_sa_status(sreq, SA_STATUS_NO_RESOURCES);
		return;
	case SET_UNKNOWN_LID:
		log_unknown_lid(sreq, "answering REQ_INVALID as OpenSM does");
		glue_sa_status(sreq, SA_STATUS_REQ_INVALID);
		return;
	case SET_NO_MEMORY:
		GLUE_LOG(GLUE_LOG_ERROR,
			 "ERR 7A11: out of memory checking an ATS request; answering NO_RESOURCES\n");
		glue_sa_status(sreq, SA_STATUS_NO_RESOURCES);
		return;
	case SET_RULE_REFUSED:
		rule_refused(w);
		return;
	case SET_NO_PLACE:
		no_place(w);
		return;
	case SET_NOT_ADDED:
		GLUE_LOG(GLUE_LOG_ERROR, "ERR 7A32: out of memory adding a ServiceRecord\n");
		glue_sa_status(sreq, SA_STATUS_NO_RESOURCES);
		return;
	case SET_NO_RECORD:
		refuse(sreq, &w->req, &w->f, REFUSAL_SA_NO_RECORD, "7A58",
		       "the SA holds no record of this ServiceID, ServiceGID and P_Key",
		       SA_STATUS_NO_RECORDS);
		return;
	case SET_REFUSED:
		if (w->o.by == SRDECIDE_BY_CAP)
			cap_refused(w);
		else if (w->o.by == SRDECIDE_BY_SA)
			refuse(sreq, &w->req, &w->f, w->o.kind, w->o.code, w->o.why, w->o.status);
		return;
	}
}

/* The Set dispatcher's thread: a ServiceRecord Set or Delete. The
 * exclusive lock is taken and released here alone. It covers bringing
 * the index current, placing the requester, gathering the facts, the
 * decision, an accepted request's warnings, lease clamp and count, and
 * the change (its answer's place, list and index, lease timer,
 * replication log): set_locked() and what it calls, none of which
 * touches the lock. Refusals are logged and counted, and every answer is
 * sent, once it is released (set_answer()). */
static void sr_set(struct glue_sa_req *sreq)
{
	uint64_t t0 = (uint64_t)mono_ns();
	size_t size;
	uint8_t *mad = glue_req_mad(sreq, &size);
	enum set_outcome out;
	struct set_work w;

	if (mad[MAD_OFF_METHOD] != SA_METHOD_SET && mad[MAD_OFF_METHOD] != SA_METHOD_DELETE) {
		glue_sa_fallback(sreq);
		return;
	}
	memset(&w, 0, sizeof(w));
	w.sreq = sreq;
	w.mad = mad;
	/* Every change of the list goes through the rules and the
	 * replication log: none through OpenSM's handler. */
	if (policy_request_decode(mad, size, &w.req)) {
		uint16_t lid = glue_req_lid(sreq);

		if (log_allowed(REFUSAL_LID | lid, REFUSAL_SA_REQUEST))
			GLUE_LOG(GLUE_LOG_INFO,
				 "WRN 7A55: ServiceRecord %s from LID %u: %zu bytes hold no "
				 "ServiceRecord; answering REQ_INVALID\n",
				 glue_method_str(mad[MAD_OFF_METHOD]), lid, size);
		glue_sa_status(sreq, SA_STATUS_REQ_INVALID);
		return;
	}
	glue_lock_excl();
	out = set_locked(&w);
	glue_unlock();
	free(w.f.peers);
	set_answer(&w, out, t0);
}

/* A Get's answer: the records' wire bytes, SR_SIZE each, in order. */
struct get_walk {
	const struct glue_port *port;
	uint8_t *recs;
	size_t n, cap;
	int err;
};

/* OpenSM's get_matching_sr() after the field matching. */
static int add_answer(const struct srindex_ent *e, void *arg)
{
	struct get_walk *w = arg;
	const uint8_t *rec = srindex_rec(e);
	uint16_t pkey = wire_get16(rec + SR_OFF_PKEY);

	if (!srdecide_visible(pkey, glue_port_has_pkey(w->port, pkey)))
		return 0;
	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 8;
		uint8_t *n = realloc(w->recs, cap * SR_SIZE);

		if (!n) {
			w->err = -ENOMEM;
			return 1;
		}
		w->recs = n;
		w->cap = cap;
	}
	memcpy(w->recs + w->n++ * SR_SIZE, rec, SR_SIZE);
	return 0;
}

/* Lock released: the records found answered (the ServiceKey only to
 * trusted requests, as OpenSM's sr_rcv_respond()), or the status. */
static void get_answer(struct glue_sa_req *sreq, uint8_t method, struct get_walk *w)
{
	uint16_t status;
	size_t i;

	if (!w->err) {
		status = srdecide_get_status(method == SA_METHOD_GET_TABLE, w->n);
		if (status) {
			glue_sa_status(sreq, status);
			return;
		}
		for (i = 0; untrusted(sreq) && i < w->n; i++)
			memset(w->recs + i * SR_SIZE + SR_OFF_KEY, 0, 16);
		w->err = glue_sa_respond(sreq, w->recs, w->n);
		if (!w->err)
			return;
	}
	GLUE_LOG(GLUE_LOG_ERROR, "ERR 7A32: out of memory answering a ServiceRecord query\n");
	glue_sa_status(sreq, SA_STATUS_NO_RESOURCES);
}

static void sr_get(struct glue_sa_req *sreq)
{
	size_t size;
	uint8_t *mad = glue_req_mad(sreq, &size);
	struct get_walk w = { .err = 0 };
	uint64_t t0 = (uint64_t)mono_ns();
	int indexed, wanted;

	if (mad[MAD_OFF_METHOD] != SA_METHOD_GET && mad[MAD_OFF_METHOD] != SA_METHOD_GET_TABLE) {
		glue_sa_fallback(sreq);
		return;
	}
	wanted = settings_indexed_queries();
	glue_lock_shared();
	indexed = wanted && mirror_current();
	if (!indexed) {
		glue_unlock();
		atomic_fetch_add_explicit(&H.get_fallback, 1, memory_order_relaxed);
		/* Behind in steady state (leases, a clean): the worker catches
		 * up, so that one query pays for it, not all of them. */
		if (wanted && glue_steady())
			H.events.behind();
		glue_sa_fallback(sreq);
		return;
	}
	w.port = glue_requester(sreq);
	if (!w.port) {
		/* OpenSM does not answer a requester it cannot place. */
		glue_unlock();
		log_unknown_lid(sreq, "not answered, as OpenSM does");
		return;
	}
	srindex_query(mirror_index(), mad + SA_OFF_DATA, wire_get64(mad + SA_OFF_COMP_MASK),
		      add_answer, &w);
	glue_unlock();
	account(&H.get_indexed, &H.get_ns, t0);
	get_answer(sreq, mad[MAD_OFF_METHOD], &w);
	free(w.recs);
}

/* The lease timer's thread, exclusive lock held. */
static void lease_expired(const uint8_t *bytes)
{
	H.lease_seq = replica_log_delete(bytes, NULL);
}

static void lease_done(void)
{
	mirror_resync();
	replica_publish(H.lease_seq);
}

int sr_handler_init(const struct sr_handler_events *ev)
{
	H.events = *ev;
	return glue_sa_hook(sr_set, sr_get, lease_expired, lease_done);
}

void sr_handler_counters(struct state_file_counters *out)
{
	pthread_mutex_lock(&H.mu);
	*out = H.cnt;
	pthread_mutex_unlock(&H.mu);
}

void sr_handler_index_stats(struct state_file_index *out)
{
	out->gets_indexed = atomic_load_explicit(&H.get_indexed, memory_order_relaxed);
	out->gets_fallback = atomic_load_explicit(&H.get_fallback, memory_order_relaxed);
	out->get_ns = atomic_load_explicit(&H.get_ns, memory_order_relaxed);
	out->sets = atomic_load_explicit(&H.sets, memory_order_relaxed);
	out->set_ns = atomic_load_explicit(&H.set_ns, memory_order_relaxed);
}

uint64_t sr_handler_sets(void)
{
	return atomic_load_explicit(&H.sets, memory_order_relaxed);
}
