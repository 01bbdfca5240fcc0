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
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "mad.h"
#include "mono.h"
#include "policy.h"
#include "ratelim.h"
#include "refusal.h"
#include "repl.h"
#include "rlog.h"
#include "settings.h"
#include "shadow.h"
#include "wire.h"

/* A master holds an up-to-date standby's pull this long before it
 * answers "nothing new"; the standby waits a little longer. */
#define HOLD_MS 200
#define PULL_TIMEOUT_MS (HOLD_MS + 800)
/* After a failed pull, serve a while before the next. */
#define RETRY_MS 500
/* Snapshot records asked for at once: each answer is a round trip of its
 * own through the SM's thread, so a window hides the latency. */
#define SNAP_WINDOW 32
/* A snapshot kept for other standbys this long after its last use. */
#define SNAP_KEEP_MS 60000

struct snap_rec {
	uint8_t rec[SR_SIZE];
	uint32_t lease_left;      /* at taken_ms */
};

static struct {
	int on;
	void (*changed)(void);
	uint64_t sm_key;
	struct mport *port;       /* the responder's */
	int agent;
	struct rlog *log;

	/* The master's snapshot, the responder thread's alone. */
	struct snap_rec *snap;
	size_t nsnap;
	uint64_t snap_epoch, snap_seq;
	int64_t snap_taken_ms, snap_used_ms;

	/* Standby; under mu. */
	pthread_mutex_t mu;
	struct shadow *shadow;    /* the master's records as of applied */
	struct shadow *building;  /* a snapshot coming in */
	uint64_t master_guid;
	uint16_t master_lid;
	uint64_t epoch, applied;  /* epoch 0: no shadow */
	int snapshotting;
	uint64_t snap_seq_in;     /* the snapshot's sequence, 0 before known */
	uint32_t snap_pos;
	int64_t snap_t0;
	int in_sync;              /* the master waits for this standby */
	int64_t answered_ms;      /* when the last answered pull was sent */
	unsigned master_ack_ms;
	int64_t retry_at_ms;
	int was_standby;
	uint64_t generation;      /* bumped at each takeover */
	uint64_t snapshots, snapshot_records, snapshot_ms;
	uint64_t installed, takeovers;
} R = { .mu = PTHREAD_MUTEX_INITIALIZER };

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
	/* A standby declares the master dead only after its polls have
	 * failed for a while (see takeover_trusted); the master must not drop
	 * it sooner than one polling interval and a margin. */
	glue_polling(&t, &n);
	return 2 * t + 1000;
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
	R.on = 0;
	R.changed = changed;
	if (!c->replication)
		return 0;
	R.sm_key = glue_sm_key();
	/* OpenSM's default SM_Key is 1: any host could claim to be an SM. */
	if (!pol_key_trusted(R.sm_key, R.sm_key) || R.sm_key == 1) {
		OSM_LOG(glue_log(), OSM_LOG_INFO,
			"WRN 7A40: replication to standby SMs is off: OpenSM's sm_key is "
			"0x%016" PRIx64 ", which any host can send; set the same secret sm_key "
			"in every SM's opensm.conf\n", R.sm_key);
		return 0;
	}
	if (rlog_init(&R.log, c->replication_log) || shadow_init(&R.shadow) ||
	    shadow_init(&R.building)) {
		replica_fini();
		return -ENOMEM;
	}
	rlog_reset(R.log, new_epoch());
	R.snapshotting = 1;
	R.on = 1;
	return 0;
}

void replica_fini(void)
{
	R.on = 0;
	rlog_fini(R.log);
	R.log = NULL;
	shadow_fini(R.shadow);
	shadow_fini(R.building);
	R.shadow = R.building = NULL;
	free(R.snap);
	R.snap = NULL;
}

static int64_t lease_end(const uint8_t *rec, int64_t now)
{
	uint32_t lease = wire_get32(rec + SR_OFF_LEASE);

	return lease == SR_LEASE_INFINITE ? SHADOW_LEASE_INFINITE : now + (int64_t)lease * 1000;
}

static uint32_t lease_left(int64_t end, int64_t now)
{
	if (end == SHADOW_LEASE_INFINITE)
		return SR_LEASE_INFINITE;
	return end > now ? (uint32_t)((end - now + 999) / 1000) : 0;
}

uint64_t replica_log_set(const uint8_t *rec)
{
	return R.on ? rlog_append(R.log, REPL_SET, rec, lease_end(rec, mono_ms())) : 0;
}

uint64_t replica_log_delete(const uint8_t *rec)
{
	return R.on ? rlog_append(R.log, REPL_DELETE, rec, SHADOW_LEASE_INFINITE) : 0;
}

/* ---- master: answers ---- */

static void answer_head(struct repl_answer *a, enum repl_kind kind)
{
	memset(a, 0, sizeof(*a));
	a->kind = kind;
	a->epoch = rlog_epoch(R.log);
	a->head = rlog_head(R.log);
	a->sm_key = R.sm_key;
	a->ack_ms = ack_ms();
}

static void answer_change(struct repl_answer *a, const struct rlog_entry *e, int in_sync)
{
	answer_head(a, e->kind);
	a->seq = e->seq;
	a->pos = (uint32_t)in_sync;
	a->lease_left = e->kind == REPL_SET ? lease_left(e->lease_end_ms, mono_ms()) : 0;
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
	mport_answer_held(R.port, &h->from, mad, sizeof(mad));
}

int replica_commit(uint64_t seq, int wait)
{
	struct rlog_held held[RLOG_MAX_PEERS];
	uint64_t dropped[RLOG_MAX_PEERS];
	size_t n, i, ndropped;
	unsigned t;

	if (!R.on || !seq)
		return 0;
	n = rlog_take_held(R.log, seq, held, RLOG_MAX_PEERS);
	for (i = 0; i < n; i++)
		answer_held(&held[i], 1);
	if (!wait)
		return 0;
	t = ack_ms();
	rlog_wait(R.log, seq, t, dropped, &ndropped);
	for (i = 0; i < ndropped; i++)
		OSM_LOG(glue_log(), OSM_LOG_INFO,
			"WRN 7A41: standby SM port 0x%016" PRIx64 " acked nothing for %u ms: "
			"dropped; changes are committed without it until it catches up, "
			"and it will not install its copy if it takes over before\n",
			dropped[i], t);
	/* A handover that started while we waited: the new master may not
	 * have this change, so the client must not hear it was made. */
	return glue_is_master() ? 0 : -ESHUTDOWN;
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

static void answer_snapshot(const struct repl_pull *p, struct repl_answer *a)
{
	int64_t now = mono_ms();

	if (!p->pos && !p->next) {
		/* A new snapshot unless one the log can still continue is
		 * at hand (two standbys starting together share it). */
		if (!R.snap || R.snap_epoch != rlog_epoch(R.log) ||
		    now - R.snap_used_ms > SNAP_KEEP_MS ||
		    rlog_head(R.log) - R.snap_seq > 1024) {
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

static void refused(uint16_t lid, const char *why)
{
	if (refusal_allowed(REFUSAL_LID | lid, RL_KINDS - 1))
		OSM_LOG(glue_log(), OSM_LOG_INFO,
			"WRN 7A43: replication pull from LID %u dropped: %s\n", lid, why);
}

static size_t on_pull(void *ctx, const uint8_t *req, size_t len, uint8_t *resp, size_t cap)
{
	struct repl_pull p;
	struct repl_answer a;
	struct rlog_held h;
	struct rlog_entry e;
	uint64_t guid;
	int in_sync;

	(void)ctx;
	if (cap < MAD_SIZE || repl_pull_decode(req, len, &p))
		return 0;
	/* Only a steady master answers: a standby's copy is no source. */
	if (!glue_steady() || mport_requester(R.port, &h.from))
		return 0;
	if (p.sm_key != R.sm_key) {
		refused(h.from.slid, "wrong SM_Key");
		return 0;
	}
	/* The key is the credential (an SM a sweep has not found yet may
	 * pull); the port's GUID names the standby. */
	guid = glue_port_of_lid(h.from.slid);
	if (!guid) {
		refused(h.from.slid, "no port at that LID");
		return 0;
	}
	if (p.flags & REPL_FLAG_LEAVING) {
		rlog_leave(R.log, guid);
		OSM_LOG(glue_log(), OSM_LOG_INFO,
			"osmats replication: standby SM port 0x%016" PRIx64 " stops\n", guid);
		return 0;
	}
	if (p.flags & REPL_FLAG_SNAPSHOT)
		answer_snapshot(&p, &a);
	else {
		h.tid = wire_get64(req + MAD_OFF_TID);
		switch (rlog_pull(R.log, guid, p.epoch, p.next, &h, mono_ms(), &e, &in_sync)) {
		case RLOG_ANSWER:
			answer_change(&a, &e, in_sync);
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
	return MAD_SIZE;
}

/* ---- standby ---- */

/* Under mu: forget the shadow's continuity; the next pull snapshots. */
static void restart_locked(void)
{
	R.epoch = 0;
	R.applied = 0;
	R.in_sync = 0;
	R.snapshotting = 1;
	R.snap_seq_in = 0;
	R.snap_pos = 0;
	shadow_clear(R.building);
}

/* Under mu: the master's answer to the pull sent at sent_ms. */
static void apply_locked(const struct repl_answer *a, int64_t sent_ms)
{
	int64_t now = mono_ms();

	R.master_ack_ms = a->ack_ms ? a->ack_ms : R.master_ack_ms;
	switch (a->kind) {
	case REPL_NONE:
		if (R.snapshotting || a->epoch != R.epoch || a->seq != R.applied) {
			restart_locked();
			return;
		}
		break;
	case REPL_SET:
	case REPL_DELETE:
		if (R.snapshotting || a->epoch != R.epoch || a->seq != R.applied + 1) {
			restart_locked();
			return;
		}
		if (a->kind == REPL_SET
		    ? shadow_set(R.shadow, a->rec, a->lease_left == SR_LEASE_INFINITE ?
				 SHADOW_LEASE_INFINITE : now + (int64_t)a->lease_left * 1000)
		    : (shadow_delete(R.shadow, a->rec), 0)) {
			restart_locked();
			return;
		}
		R.applied = a->seq;
		break;
	case REPL_SNAP_NEEDED:
		restart_locked();
		R.snap_t0 = now;
		return;
	case REPL_SNAP_RECORD:
		if (!R.snapshotting || a->pos != R.snap_pos ||
		    (R.snap_pos && a->seq != R.snap_seq_in) ||
		    shadow_set(R.building, a->rec, a->lease_left == SR_LEASE_INFINITE ?
			       SHADOW_LEASE_INFINITE : now + (int64_t)a->lease_left * 1000)) {
			restart_locked();
			return;
		}
		if (!R.snap_pos)
			R.snap_t0 = now;
		R.snap_seq_in = a->seq;
		R.snap_pos++;
		return;
	case REPL_SNAP_END:
		if (!R.snapshotting || a->pos != R.snap_pos ||
		    (R.snap_pos && a->seq != R.snap_seq_in)) {
			restart_locked();
			return;
		}
		shadow_move(R.shadow, R.building);
		R.epoch = a->epoch;
		R.applied = a->seq;
		R.snapshotting = 0;
		R.snapshots++;
		R.snapshot_records = R.snap_pos;
		R.snapshot_ms = (uint64_t)(now - R.snap_t0);
		OSM_LOG(glue_log(), OSM_LOG_INFO,
			"osmats replication: snapshot of %u ServiceRecords from master LID %u in "
			"%" PRIu64 " ms (epoch 0x%016" PRIx64 ", seq %" PRIu64 ")\n",
			R.snap_pos, R.master_lid, R.snapshot_ms, R.epoch, R.applied);
		return;
	default:
		return;
	}
	if (a->pos && !R.in_sync)
		OSM_LOG(glue_log(), OSM_LOG_INFO,
			"osmats replication: in sync with master LID %u at seq %" PRIu64 "\n",
			R.master_lid, R.applied);
	R.in_sync = (int)(a->pos & 1);
	R.answered_ms = sent_ms;
}

struct window {
	uint32_t tid0;
	uint16_t lid;
	struct repl_answer ans[SNAP_WINDOW];
	int got[SNAP_WINDOW];
};

static int window_match(const uint8_t *mad, size_t len, void *ctx)
{
	const struct window *w = ctx;
	uint32_t i = (uint32_t)wire_get64(mad + MAD_OFF_TID) - w->tid0;

	return len >= MAD_HDR_SIZE && mad[1] == REPL_CLASS &&
	       mad[MAD_OFF_METHOD] == (MAD_METHOD_GET | MAD_METHOD_RESP_BIT) &&
	       i < SNAP_WINDOW;
}

/* Snapshot records pos .. pos + SNAP_WINDOW - 1 of snapshot seq at
 * once; applied in order up to the first missing one. Nonzero when any
 * came. */
static int pull_window(const struct mport_dest *d, uint64_t seq, uint32_t pos,
		       uint64_t gen)
{
	struct repl_pull p = { .sm_key = R.sm_key, .flags = REPL_FLAG_SNAPSHOT, .next = seq };
	struct window *w = calloc(1, sizeof(*w));
	int64_t sent = mono_ms(), deadline = sent + PULL_TIMEOUT_MS, now;
	uint8_t req[MAD_SIZE], *resp;
	size_t len, i, got = 0;

	if (!w)
		return 0;
	w->tid0 = mport_new_tids(R.port, SNAP_WINDOW);
	w->lid = d->lid;
	for (i = 0; i < SNAP_WINDOW; i++) {
		p.pos = pos + (uint32_t)i;
		repl_pull_encode(req, w->tid0 + i, &p);
		mport_send(R.port, R.agent, d, req, sizeof(req));
	}
	while (got < SNAP_WINDOW && (now = mono_ms()) < deadline &&
	       !mport_wait(R.port, (int)(deadline - now), window_match, w, &resp, &len)) {
		struct repl_answer a;

		i = (uint32_t)wire_get64(resp + MAD_OFF_TID) - w->tid0;
		if (mport_last_slid(R.port) == d->lid && !repl_answer_decode(resp, len, &a) &&
		    a.sm_key == R.sm_key && !w->got[i]) {
			w->ans[i] = a;
			w->got[i] = 1;
			got++;
			/* Past the end the master answers "start over". */
			if (a.kind == REPL_SNAP_END)
				got = SNAP_WINDOW;
		}
		free(resp);
	}
	pthread_mutex_lock(&R.mu);
	for (i = 0; i < SNAP_WINDOW && w->got[i] && gen == R.generation &&
		    glue_sm_state() == IB_SMINFO_STATE_STANDBY && R.snapshotting; i++)
		apply_locked(&w->ans[i], sent);
	pthread_mutex_unlock(&R.mu);
	got = w->got[0];
	free(w);
	if (got)
		R.changed();
	return (int)got;
}

/* One pull; nonzero when it got an answer (pull again at once). */
static int pull(void)
{
	struct mport_rpc_opts o = { .timeout_ms = PULL_TIMEOUT_MS, .retries = 0 };
	struct mport_dest d = { .qpn = 1, .qkey = 0x80010000u };
	struct repl_pull p = { .sm_key = R.sm_key };
	struct repl_answer a;
	uint8_t req[MAD_SIZE], *resp = NULL;
	size_t resp_len = 0;
	uint64_t guid, gen;
	uint16_t lid;
	int64_t sent;
	int ret;

	if (glue_master_sm(&lid, &guid))
		return 0;
	pthread_mutex_lock(&R.mu);
	if (guid != R.master_guid) {
		/* Another master: its log is not the one the shadow follows. */
		R.master_guid = guid;
		restart_locked();
	}
	R.master_lid = lid;
	R.was_standby = 1;
	gen = R.generation;
	if (R.snapshotting) {
		p.flags = REPL_FLAG_SNAPSHOT;
		p.next = R.snap_seq_in;
		p.pos = R.snap_pos;
	} else {
		p.epoch = R.epoch;
		p.next = R.applied + 1;
	}
	pthread_mutex_unlock(&R.mu);
	d.lid = lid;
	/* The first record names the snapshot; the rest come in windows. */
	if (p.flags & REPL_FLAG_SNAPSHOT && p.pos)
		return pull_window(&d, p.next, p.pos, gen);
	repl_pull_encode(req, 0, &p);
	sent = mono_ms();
	ret = mport_rpc(R.port, R.agent, &d, req, sizeof(req), &o, &resp, &resp_len);
	if (ret)
		return 0;
	/* Only the master's port, with the key the SMs share. */
	ret = mport_last_slid(R.port) == lid && !repl_answer_decode(resp, resp_len, &a) &&
	      a.sm_key == R.sm_key;
	free(resp);
	if (!ret) {
		refused(mport_last_slid(R.port), "not the master's answer");
		return 0;
	}
	pthread_mutex_lock(&R.mu);
	/* A takeover since the pull was sent owns the shadow now. */
	if (gen == R.generation && glue_sm_state() == IB_SMINFO_STATE_STANDBY)
		apply_locked(&a, sent);
	pthread_mutex_unlock(&R.mu);
	R.changed();
	return 1;
}

static int on_tick(void *ctx)
{
	struct rlog_held held[RLOG_MAX_PEERS];
	int64_t now = mono_ms();
	size_t n, i;

	(void)ctx;
	n = rlog_take_stale(R.log, now, HOLD_MS, held, RLOG_MAX_PEERS);
	for (i = 0; i < n; i++)
		answer_held(&held[i], 0);
	if (R.snap && now - R.snap_used_ms > SNAP_KEEP_MS) {
		free(R.snap);
		R.snap = NULL;
		R.nsnap = 0;
	}
	if (glue_sm_state() != IB_SMINFO_STATE_STANDBY || now < R.retry_at_ms)
		return 0;
	if (pull())
		return 1;
	R.retry_at_ms = mono_ms() + RETRY_MS;
	return 0;
}

static void on_attach(void *ctx, struct mport *port, int agent)
{
	(void)ctx;
	R.port = port;
	R.agent = agent;
}

/* A standby that stops says so, so that the master stops waiting for it
 * at once rather than after the ack timeout. */
static void on_stop(void *ctx)
{
	struct mport_dest d = { .qpn = 1, .qkey = 0x80010000u };
	struct repl_pull p = { .sm_key = R.sm_key, .flags = REPL_FLAG_LEAVING };
	uint8_t req[MAD_SIZE];
	uint64_t guid;

	(void)ctx;
	if (glue_sm_state() != IB_SMINFO_STATE_STANDBY || glue_master_sm(&d.lid, &guid))
		return;
	repl_pull_encode(req, 0, &p);
	mport_send(R.port, R.agent, &d, req, sizeof(req));
}

static const struct responder_ext ext = {
	.mgmt_class = REPL_CLASS,
	.attach = on_attach,
	.answer = on_pull,
	.tick = on_tick,
	.stop = on_stop,
};

const struct responder_ext *replica_ext(void)
{
	return R.on ? &ext : NULL;
}

/* ---- takeover ---- */

/* Under mu, at the takeover: why the shadow may lack a change the master
 * committed, or NULL. The master commits without an in-sync standby only
 * once it has heard nothing from it for ack_ms since its last pull, so
 * not before answered_ms + ack_ms. OpenSM takes over when the polls of
 * the master sent at ticks 1 .. retries + 1 after its last answer all
 * went unanswered, ticks sminfo_polling_timeout apart, so the master was
 * gone soon after tick 1: (retries + 1) timeouts before now, less a
 * second for a poll's own answer time. If that is before answered_ms +
 * ack_ms, the master died before it could commit without us. */
static const char *untrusted_locked(int64_t now)
{
	unsigned t, n;

	glue_polling(&t, &n);
	if (!R.epoch || R.snapshotting)
		return "it holds no whole copy of the master's records";
	if (!R.in_sync)
		return "it was still catching up with the master";
	if (now - R.answered_ms >= (int64_t)R.master_ack_ms + (int64_t)(n + 1) * t - 1000)
		return "the master may have committed changes since its last answer";
	return NULL;
}

static int clear_one(void *h, const uint8_t *bytes, void *arg)
{
	(void)bytes;
	(void)arg;
	glue_sr_remove(h);
	return 0;
}

struct install {
	int64_t now;
	size_t n, expired, failed;
};

static int install_one(const uint8_t *rec, int64_t end, void *arg)
{
	struct install *in = arg;
	uint32_t left = lease_left(end, in->now);
	void *h;

	if (!left) {
		in->expired++;
		return 0;
	}
	h = glue_sr_insert(rec);
	if (!h) {
		in->failed++;
		return 0;
	}
	if (left != SR_LEASE_INFINITE)
		glue_sr_set_lease_left(h, left);
	in->n++;
	return 0;
}

static void install_locked(void)
{
	struct install in = { .now = mono_ms() };
	const char *why = untrusted_locked(in.now);

	R.takeovers++;
	if (why) {
		OSM_LOG(glue_log(), OSM_LOG_INFO,
			"WRN 7A42: taking over without the standby's copy (%zu records): %s; "
			"the SA starts from OpenSM's own %zu ServiceRecords and hosts register "
			"again\n", shadow_count(R.shadow), why, glue_sr_count());
		R.installed = 0;
		return;
	}
	/* The copy is the master's list: what OpenSM still holds from an
	 * earlier mastership of its own is older, deletions included. */
	glue_lock_excl();
	glue_sr_walk(0, clear_one, NULL);
	shadow_each_oldest_first(R.shadow, install_one, &in);
	glue_sr_dirty();
	glue_unlock();
	R.installed = in.n;
	if (in.failed)
		OSM_LOG(glue_log(), OSM_LOG_ERROR,
			"ERR 7A44: out of memory installing the standby's copy: %zu of %zu "
			"ServiceRecords lost\n", in.failed, shadow_count(R.shadow));
	OSM_LOG(glue_log(), OSM_LOG_INFO,
		"osmats replication: installed %zu ServiceRecords from the shadow (epoch 0x%016"
		PRIx64 ", seq %" PRIu64 ", %zu expired) in %" PRId64 " ms\n", in.n, R.epoch,
		R.applied, in.expired, mono_ms() - in.now);
}

void replica_sweep_start(void)
{
	if (!R.on || glue_steady())
		return;
	pthread_mutex_lock(&R.mu);
	if (R.was_standby && glue_sm_state() != IB_SMINFO_STATE_STANDBY) {
		install_locked();
		R.was_standby = 0;
		R.generation++;
		R.master_guid = 0;
		restart_locked();
		shadow_clear(R.shadow);
	}
	pthread_mutex_unlock(&R.mu);
	/* Whatever OpenSM does to its list in this first master sweep (the
	 * SA database file, a clean) is unlogged: standbys start over. */
	rlog_reset(R.log, new_epoch());
	R.changed();
}

void replica_state(struct state_repl *out)
{
	struct rlog_stats st;
	int master = glue_is_master();

	memset(out, 0, sizeof(*out));
	if (!R.on) {
		strcpy(out->role, "off");
		return;
	}
	rlog_stats(R.log, &st);
	pthread_mutex_lock(&R.mu);
	strcpy(out->role, master ? "master" : "standby");
	out->epoch = master ? st.epoch : R.epoch;
	out->head = st.head;
	out->applied = R.applied;
	out->in_sync = !master && R.in_sync;
	out->standbys_in_sync = master ? st.in_sync : 0;
	out->lag_ms = master || !R.answered_ms ? 0 : (uint64_t)(mono_ms() - R.answered_ms);
	out->snapshots = R.snapshots;
	out->snapshot_records = R.snapshot_records;
	out->snapshot_ms = R.snapshot_ms;
	out->installed = R.installed;
	out->takeovers = R.takeovers;
	pthread_mutex_unlock(&R.mu);
}
