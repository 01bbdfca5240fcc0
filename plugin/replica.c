/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* SM-to-SM replication (see replica.h and doc/design.md, "Standby SMs").
 *
 * Threads: the responder thread answers pulls (master) and pulls
 * (standby); the Set dispatcher logs a client's change under the
 * exclusive osm->lock and waits for the standbys' acks after releasing
 * it; the lease timer and the plugin thread log the changes they make;
 * OpenSM's state manager installs the shadow at HEAVY_SWEEP_START. */
#include "replica.h"

#include "glue.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "defer.h"
#include "core/mad.h"
#include "core/mono.h"
#include "ratelim.h"
#include "refusal.h"
#include "core/repl.h"
#include "replauth.h"
#include "rlog.h"
#include "settings.h"
#include "shadow.h"
#include "standby.h"
#include "core/wire.h"

#define HOLD_MS STANDBY_HOLD_MS
/* How long after stepping down an SM serves its final copy. */
#define FINAL_SERVE_MS 60000
/* A snapshot kept for other standbys this long after its last use. */
#define SNAP_KEEP_MS 60000

struct snap_rec {
	uint8_t rec[SR_SIZE];
	uint32_t lease_left;      /* at taken_ms */
};

static struct {
	/* Set by replica_init(); read-only after. The log locks itself
	 * (rlog.h). */
	int on;
	int error;                /* asked for (a key file named) but off: 7A48 */
	void (*changed)(void);
	struct mport *port;       /* the responder's */
	int agent;
	struct rlog *log;
	atomic_uint ack_told;     /* lock-free: the largest ack timeout told */
	/* Lock-free: the responder thread's last seen steady master,
	 * reset by OpenSM's thread at a sweep. */
	_Atomic int64_t steady_ms;
	uint64_t log_cap;         /* replication_log; read-only after init */

	/* The master's snapshot, the responder thread's alone. */
	struct snap_rec *snap;
	size_t nsnap;
	uint64_t snap_epoch, snap_seq;
	int64_t snap_taken_ms, snap_used_ms;
} R;

static unsigned ack_ms(void)
{
	struct osmats_conf c;
	unsigned t, n;

	settings_get(&c);
	/* An in-sync standby's pull is held up to HOLD_MS: silence is only
	 * silence well past that. */
	if (c.replication_ack_timeout)
		return c.replication_ack_timeout > 2 * HOLD_MS + 500 ?
		       c.replication_ack_timeout : 2 * HOLD_MS + 500;
	/* A standby that takes over installs its copy only when its last
	 * answer is recent enough that we cannot have dropped it (standby.c).
	 * After a real death its last answer is at most (retries + 2) polling
	 * intervals old; the rule allows ack_ms + (retries + 1) intervals - 1 s,
	 * so one interval and 3 s leave it 1.8 s to spare (doc/design.md,
	 * "Takeover"). */
	glue_polling(&t, &n);
	return t + 3000;
}

/* The timeout a standby judges by is the last one we told it: never
 * drop one sooner than any we ever told (a reload may lower it). */
static unsigned ack_ms_told(void)
{
	unsigned v = ack_ms(), told = atomic_load_explicit(&R.ack_told, memory_order_relaxed);

	return v > told ? v : told;
}

static uint64_t new_epoch(void)
{
	uint64_t e = 0;

	while (!e)
		if (getrandom(&e, sizeof(e), 0) != sizeof(e))
			e = (uint64_t)mono_ns() ^ glue_sm_port_guid();
	return e;
}

int replica_init(const struct osmats_conf *c, void (*changed)(void))
{
	char err[OSMATS_CONF_PATH_MAX + 128];

	R.on = 0;
	R.error = 0;
	R.changed = changed;
	if (!c->replication)
		return 0;
	if (glue_sm_key_readable())
		GLUE_LOG(GLUE_LOG_INFO,
			 "WRN 7A46: M_Key protection is off: any host reads OpenSM's sm_key with "
			 "SubnGet(SMInfo); it is no secret and earns no trust: replication "
			 "authenticates with replication_key_file only\n");
	/* A credential of our own: the SM_Key is none (replauth.h). */
	if (!c->replication_key_file[0]) {
		GLUE_LOG(GLUE_LOG_INFO,
			 "WRN 7A40: replication to standby SMs is off: no replication_key_file "
			 "in %s (OpenSM's sm_key alone never enables it); give every SM the "
			 "same key file\n", settings_path());
		return 0;
	}
	if (replauth_init(c->replication_key_file, err, sizeof(err))) {
		GLUE_LOG(GLUE_LOG_ERROR,
			 "ERR 7A48: replication to standby SMs is off: replication_key_file %s\n",
			 err);
		R.error = 1;
		return 0;
	}
	defer_init();
	if (rlog_init(&R.log, c->replication_log) || standby_init(changed)) {
		replica_fini();
		return -ENOMEM;
	}
	rlog_reset(R.log, new_epoch());
	R.log_cap = c->replication_log;
	R.on = 1;
	return 0;
}

void replica_fini(void)
{
	R.on = 0;
	defer_fini();
	rlog_fini(R.log);
	R.log = NULL;
	standby_fini();
	replauth_fini();
	free(R.snap);
	R.snap = NULL;
}


uint64_t replica_log_set(const uint8_t *rec, uint64_t *epoch)
{
	return R.on ? rlog_append(R.log, REPL_SET, rec,
				  shadow_lease_end(wire_get32(rec + SR_OFF_LEASE), mono_ms()),
				  epoch) : 0;
}

uint64_t replica_log_delete(const uint8_t *rec, uint64_t *epoch)
{
	return R.on ? rlog_append(R.log, REPL_DELETE, rec, SHADOW_LEASE_INFINITE, epoch) : 0;
}

int replica_reserve(uint16_t lid, struct defer_slot **slot)
{
	*slot = NULL;
	return R.on ? defer_reserve(lid, slot) : 0;
}

/* ---- master: answers ---- */

/* The ack timeout for an answer, remembered as told. */
static unsigned tell_ack(void)
{
	unsigned v = ack_ms(), told = atomic_load_explicit(&R.ack_told, memory_order_relaxed);

	while (v > told && !atomic_compare_exchange_strong_explicit(&R.ack_told, &told, v,
							 memory_order_relaxed,
							 memory_order_relaxed))
		;
	return v;
}

static void answer_head(struct repl_answer *a, enum repl_kind kind)
{
	memset(a, 0, sizeof(*a));
	a->kind = kind;
	a->epoch = rlog_epoch(R.log);
	a->head = rlog_head(R.log);
	a->ack_ms = tell_ack();
	/* Standbys send REPL_FLAG_NOACK windows once they read it. */
	a->caps = REPL_CAP_WINDOW;
}

static void answer_change(struct repl_answer *a, const struct rlog_entry *e, int in_sync)
{
	answer_head(a, e->kind);
	a->seq = e->seq;
	a->pos = (uint32_t)in_sync;
	a->lease_left = e->kind == REPL_SET ? shadow_lease_left(e->lease_end_ms, mono_ms()) : 0;
	memcpy(a->rec, e->rec, SR_SIZE);
}

/* A held pull answered from another thread: the change it waited for,
 * or NONE when the hold ran out. */
static void answer_held(const struct rlog_held *h, int changed)
{
	struct repl_answer a;
	struct rlog_entry e;
	uint8_t mad[MAD_SIZE];

	if (changed && !rlog_get(R.log, h->next, &e))
		answer_change(&a, &e, 1);
	else if (changed)
		answer_head(&a, REPL_SNAP_NEEDED); /* it left the log already */
	else {
		answer_head(&a, REPL_NONE);
		a.seq = h->next - 1;
		a.pos = 1;
	}
	repl_answer_encode(mad, h->tid, &a);
	replauth_sign(mad);
	mport_answer_held(R.port, &h->from, mad, sizeof(mad));
}

static void log_dropped(const uint64_t *dropped, size_t n, unsigned ack_ms)
{
	size_t i;

	for (i = 0; i < n; i++)
		GLUE_LOG(GLUE_LOG_INFO,
			 "WRN 7A41: standby SM port 0x%016" PRIx64 " owed a change and acked none "
			 "in time for %u ms: dropped; changes are committed without it until it "
			 "catches up, and it will not install its copy if it takes over before\n",
			 dropped[i], ack_ms);
	if (n)
		R.changed();
}

/* Any thread: send the answers the standbys now hold the changes of. */
static void release(void)
{
	uint64_t epoch, c = rlog_committed(R.log, &epoch);

	defer_release(epoch, c, glue_is_master());
}

void replica_publish(uint64_t seq)
{
	struct rlog_held held[RLOG_MAX_PEERS];
	size_t n, i;

	if (!R.on || !seq)
		return;
	n = rlog_take_held(R.log, seq, held, RLOG_MAX_PEERS);
	for (i = 0; i < n; i++)
		answer_held(&held[i], 1);
	/* The state file and metrics show the head (any service's change). */
	R.changed();
}

void replica_answer(struct defer_slot *slot, uint64_t epoch, uint64_t seq,
		    struct glue_sa_req *req, const uint8_t *rec)
{
	uint64_t oldest;

	if (!R.on || !seq) {
		defer_cancel(slot);
		glue_sa_respond_one(req, rec);
		return;
	}
	replica_publish(seq);
	/* Nobody to wait for, nothing held before it: as OpenSM answers. A
	 * handover that began meanwhile: the new master may not have the
	 * change, so the client must not hear it was made. */
	if (rlog_committed(R.log, NULL) >= seq && !defer_count(&oldest)) {
		defer_cancel(slot);
		if (glue_is_master())
			defer_send_now(req, rec);
		return;
	}
	defer_hold(slot, epoch, seq, req, rec);
	release();
}

/* The responder thread: a snapshot of the list at the log's head. */
struct snap_walk {
	size_t n;
};

static int snap_one(void *h, const uint8_t *bytes, void *arg)
{
	struct snap_walk *w = arg;

	memcpy(R.snap[w->n].rec, bytes, SR_SIZE);
	R.snap[w->n].lease_left = glue_sr_lease_left(h);
	w->n++;
	return 0;
}

static int snap_take(void)
{
	struct snap_walk w = { 0 };
	struct snap_rec *v;
	size_t n;

	glue_lock_shared();
	n = glue_sr_count();
	v = realloc(R.snap, (n ? n : 1) * sizeof(*v));
	if (!v) {
		glue_unlock();
		return -ENOMEM;
	}
	R.snap = v;
	/* Changes are logged under the exclusive lock: the head read under
	 * the shared one is the list's. Oldest first, so that the standby's
	 * list comes out in the master's order. */
	R.snap_seq = rlog_head(R.log);
	R.snap_epoch = rlog_epoch(R.log);
	glue_sr_walk(1, snap_one, &w);
	glue_unlock();
	R.nsnap = w.n;
	R.snap_taken_ms = mono_ms();
	return 0;
}

/* Changes since a snapshot up to which it is served again. */
static uint64_t reuse_max(void)
{
	return R.log_cap / 2 < 1024 ? R.log_cap / 2 : 1024;
}

static void answer_snapshot(const struct repl_pull *p, struct repl_answer *a)
{
	int64_t now = mono_ms();

	if (!p->pos && !p->next) {
		/* A new snapshot unless one the log can still continue is
		 * at hand (two standbys starting together share it): its
		 * next change must be in the log with room to spare, else
		 * the stream after it says "snapshot needed" and the next
		 * snapshot would be this one again, for ever. */
		if (!R.snap || R.snap_epoch != rlog_epoch(R.log) ||
		    now - R.snap_used_ms > SNAP_KEEP_MS ||
		    rlog_head(R.log) - R.snap_seq > reuse_max() ||
		    /* A final copy has no stream after it: the list now. */
		    (p->flags & REPL_FLAG_FINAL && rlog_head(R.log) != R.snap_seq)) {
			if (snap_take()) {
				answer_head(a, REPL_SNAP_NEEDED);
				return;
			}
		}
	} else if (!R.snap || p->next != R.snap_seq || R.snap_epoch != rlog_epoch(R.log) ||
		   p->pos > R.nsnap) {
		answer_head(a, REPL_SNAP_NEEDED);
		return;
	}
	R.snap_used_ms = now;
	if (p->pos == R.nsnap) {
		answer_head(a, REPL_SNAP_END);
		a->epoch = R.snap_epoch;
		a->seq = R.snap_seq;
		a->pos = (uint32_t)R.nsnap;
		return;
	}
	answer_head(a, REPL_SNAP_RECORD);
	a->epoch = R.snap_epoch;
	a->seq = R.snap_seq;
	a->pos = p->pos;
	memcpy(a->rec, R.snap[p->pos].rec, SR_SIZE);
	a->lease_left = R.snap[p->pos].lease_left;
	if (a->lease_left != SR_LEASE_INFINITE) {
		uint64_t gone = (uint64_t)(now - R.snap_taken_ms) / 1000;

		a->lease_left = a->lease_left > gone ? a->lease_left - (uint32_t)gone : 0;
	}
}

/* A window's pull after its first (REPL_FLAG_NOACK): answered at once
 * from the log, never held, no ack taken and no "in sync" told (pos 0):
 * the standby has not applied the changes before it yet. */
static void answer_noack(const struct repl_pull *p, struct repl_answer *a)
{
	struct rlog_entry e;

	switch (rlog_peek(R.log, p->epoch, p->next, &e)) {
	case RLOG_ANSWER:
		answer_change(a, &e, 0);
		break;
	case RLOG_NOT_YET:
		answer_head(a, REPL_NONE);
		a->seq = p->next - 1;
		break;
	default:
		answer_head(a, REPL_SNAP_NEEDED);
	}
}

static void refused(uint16_t lid, const char *why)
{
	if (refusal_allowed(REFUSAL_LID | lid, RATELIM_KINDS - 1))
		GLUE_LOG(GLUE_LOG_INFO,
			 "WRN 7A43: replication pull from LID %u dropped: %s\n", lid, why);
}

/* This SM was master of the epoch asked for (0: any) until at most
 * FINAL_SERVE_MS ago and is master no more: its list is the state it left
 * (no Set is answered after that; a standby's list sees only lease
 * expiry). */
static int final_ok(const struct repl_pull *p)
{
	int64_t steady = atomic_load_explicit(&R.steady_ms, memory_order_relaxed);

	return !glue_is_master() && steady && mono_ms() - steady < FINAL_SERVE_MS &&
	       (!p->epoch || p->epoch == rlog_epoch(R.log)) && p->flags & REPL_FLAG_SNAPSHOT;
}

static size_t on_pull(void *ctx, const uint8_t *req, size_t len, uint8_t *resp, size_t cap)
{
	struct repl_pull p;
	struct repl_answer a;
	struct rlog_held h;
	struct rlog_entry e;
	uint64_t guid;
	int in_sync, moved;

	(void)ctx;
	if (!R.on || cap < MAD_SIZE || repl_pull_decode(req, len, &p))
		return 0;
	/* Only a steady master answers: a standby's copy is no source. The
	 * exception is the final copy of an SM that stepped down a moment
	 * ago, for the SM it handed over to. */
	if ((p.flags & REPL_FLAG_FINAL ? !final_ok(&p) : !glue_steady()) ||
	    mport_requester(R.port, &h.from))
		return 0;
	if (replauth_verify(req, len)) {
		refused(h.from.slid, "bad authentication tag");
		return 0;
	}
	/* The tag is the credential (an SM a sweep has not found yet may
	 * pull); the port's GUID names the standby. A pull is not bound to
	 * its sender: one recorded off the wire (a tap on a link, not a
	 * host's own port) and sent again is answered to whoever sent it. */
	guid = glue_port_of_lid(h.from.slid);
	if (!guid) {
		refused(h.from.slid, "no port at that LID");
		return 0;
	}
	if (p.flags & REPL_FLAG_LEAVING) {
		rlog_leave(R.log, guid);
		release();
		GLUE_LOG(GLUE_LOG_INFO,
			 "osmats replication: standby SM port 0x%016" PRIx64 " stops\n", guid);
		R.changed();
		return 0;
	}
	if (p.flags & REPL_FLAG_SNAPSHOT) {
		/* A standby that starts a snapshot holds nothing it acked
		 * before (it restarted, or lost its stream): it is no longer
		 * in sync, and the acks of its earlier life are void. Else a
		 * reused older snapshot would have it told "in sync" while it
		 * catches up, and a takeover then would install a copy
		 * without changes the master committed. */
		if (!p.pos && !p.next) {
			rlog_leave(R.log, guid);
			release();
		}
		answer_snapshot(&p, &a);
	} else if (p.flags & REPL_FLAG_NOACK) {
		answer_noack(&p, &a);
	} else {
		h.tid = wire_get64(req + MAD_OFF_TID);
		enum rlog_verdict v = rlog_pull(R.log, guid, p.epoch, p.next, &h, mono_ms(), &e,
						&in_sync, &moved);

		release(); /* its ack may commit held answers */

		if (in_sync == 2)
			GLUE_LOG(GLUE_LOG_INFO,
				 "osmats replication: standby SM port 0x%016" PRIx64 " (LID %u) in "
				 "sync at seq %" PRIu64 "\n", guid, h.from.slid, p.next - 1);
		/* The state file shows the standbys the master waits for and
		 * how far behind each is: once per change it acks, not at the
		 * re-pulls of a quiet standby (a held pull ends every HOLD_MS). */
		if (in_sync == 2 || moved)
			R.changed();
		switch (v) {
		case RLOG_ANSWER:
			answer_change(&a, &e, in_sync != 0);
			break;
		case RLOG_HOLD:
			return 0; /* answered by a change or by the tick */
		case RLOG_SNAP_NEEDED:
			answer_head(&a, REPL_SNAP_NEEDED);
			break;
		default:
			refused(h.from.slid, "too many standby SMs");
			return 0;
		}
	}
	repl_answer_encode(resp, wire_get64(req + MAD_OFF_TID), &a);
	replauth_sign(resp);
	return MAD_SIZE;
}

static int on_tick(void *ctx)
{
	struct rlog_held held[RLOG_MAX_PEERS];
	uint64_t dropped[RLOG_MAX_PEERS];
	int64_t now = mono_ms();
	size_t n, i, ndropped;
	unsigned t = ack_ms_told();

	(void)ctx;
	if (!R.on)
		return 0;
	if (glue_steady())
		atomic_store_explicit(&R.steady_ms, now, memory_order_relaxed);
	n = rlog_take_stale(R.log, now, HOLD_MS, held, RLOG_MAX_PEERS);
	for (i = 0; i < n; i++)
		answer_held(&held[i], 0);
	/* A standby that owes a change RLOG_FRESH_MS old is no longer told
	 * it is in sync; ack_ms after it last was, it is dropped, whatever
	 * it pulls (one-way loss, a liar, a slow one): the answers it held
	 * back go out. */
	if (rlog_tick(R.log, now, t, dropped, &ndropped))
		R.changed();
	log_dropped(dropped, ndropped, t);
	release();
	if (R.snap && now - R.snap_used_ms > SNAP_KEEP_MS) {
		free(R.snap);
		R.snap = NULL;
		R.nsnap = 0;
	}
	return standby_pull();
}

static void on_attach(void *ctx, struct mport *port, int agent)
{
	(void)ctx;
	R.port = port;
	R.agent = agent;
	standby_attach(port, agent);
}

static void on_stop(void *ctx)
{
	(void)ctx;
	if (R.on)
		standby_leaving();
}

static const struct responder_ext ext = {
	.mgmt_class = REPL_CLASS,
	.class_version = REPL_CLASS_VERSION,
	.attach = on_attach,
	.answer = on_pull,
	.tick = on_tick,
	.stop = on_stop,
};

/* Registered even while off: a standby that replicates and pulls from
 * this SM gets no answer, where a class nobody registered would get the
 * port's "unsupported class". */
const struct responder_ext *replica_ext(void)
{
	return &ext;
}

void replica_sweep_start(void)
{
	if (!R.on || glue_steady())
		return;
	atomic_store_explicit(&R.steady_ms, 0, memory_order_relaxed);
	/* Answers held in an earlier mastership are no one's to send now:
	 * their clients asked the master since. */
	defer_release(0, UINT64_MAX, 0);
	standby_takeover();
	/* Whatever OpenSM does to its list in this first master sweep (the
	 * SA database file, a clean) is unlogged: standbys start over. */
	rlog_reset(R.log, new_epoch());
	R.changed();
}

_Static_assert(RLOG_MAX_PEERS <= STATE_FILE_MAX_STANDBYS, "every standby in the state file");

void replica_state(struct state_file_repl *out)
{
	struct rlog_stats st;
	int master = glue_is_master();
	size_t i;

	memset(out, 0, sizeof(*out));
	if (!R.on) {
		/* "error": a site that asked for replication sees it is off
		 * (state file, metrics, atsctl sm), not a quiet "off". */
		strcpy(out->role, R.error ? "error" : "off");
		return;
	}
	standby_state(out);
	rlog_stats(R.log, &st);
	strcpy(out->role, master ? "master" : "standby");
	if (master) {
		out->head = st.head;
		out->epoch = st.epoch;
		out->in_sync = 0;
		out->lag_ms = 0;
		out->standbys_in_sync = st.in_sync;
		for (i = 0; i < st.npeers; i++) {
			struct state_file_standby *s = &out->standbys[out->nstandbys++];

			s->guid = st.peers[i].guid;
			s->acked = st.peers[i].acked;
			s->behind = st.peers[i].behind;
			s->last_seen_ms = st.peers[i].since_ms;
			s->in_sync = (uint8_t)st.peers[i].in_sync;
		}
	}
}
