/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The standby's side of replication (see standby.h): the pulls, the
 * copy, and its installation when this SM takes over. Runs on the
 * responder thread but for the takeover (OpenSM's state manager). */
#include "standby.h"

#include "glue.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/mad.h"
#include "core/mono.h"
#include "ratelim.h"
#include "refusal.h"
#include "core/repl.h"
#include "replauth.h"
#include "sadb.h"
#include "shadow.h"
#include "core/wire.h"

/* A master holds an up-to-date standby's pull up to STANDBY_HOLD_MS; wait
 * a little longer. */
#define PULL_TIMEOUT_MS (STANDBY_HOLD_MS + 800)
/* After a failed pull, serve a while before the next. */
#define RETRY_MS 500
/* A takeover without a trusted copy waits for the final copy of the SM
 * that handed over while it comes (a snapshot of 100k records takes
 * ~2 s), but OpenSM's state manager waits with it: an old master that
 * sends nothing for FINAL_STALL_MS, or is not done in FINAL_WAIT_MS,
 * is given up. */
#define FINAL_WAIT_MS 30000
#define FINAL_STALL_MS (2 * PULL_TIMEOUT_MS)
/* Snapshot records asked for at once: each answer is a round trip of its
 * own through the master's responder, so a window hides the latency. */
#define SNAP_WINDOW 32
/* Changes asked for at once while behind (REPL_FLAG_NOACK, repl.h). One
 * change per round trip is slower than the master's Set thread makes
 * them: under a flood the standby fell further behind until the master
 * dropped it (issue 35). The master's responder thread, not its SA
 * thread, answers a window back to back from its log: 32 MADs of 256
 * bytes, 8 KiB in flight, as a snapshot's window. The ack moves once a
 * window, so a held answer waits a window's round trip more; a larger
 * window would hold them longer and ask the receive queues for more. */
#define STREAM_WINDOW 32
#define WINDOW_MAX (SNAP_WINDOW > STREAM_WINDOW ? SNAP_WINDOW : STREAM_WINDOW)

enum { FINAL_NONE, FINAL_WANTED, FINAL_DONE, FINAL_FAILED };

static struct {
	/* Set by standby_init(); read-only after. */
	void (*changed)(void);
	struct mport *port;       /* the responder's */
	int agent;
	int64_t retry_at_ms;      /* the responder thread's own */
	pthread_mutex_t mu;       /* the rest */
	struct shadow *shadow;    /* the master's records as of applied */
	struct shadow *building;  /* a snapshot coming in */
	uint64_t master_guid;
	uint16_t master_lid;
	uint64_t epoch, applied;  /* epoch 0: no shadow */
	uint64_t master_head;     /* the master's newest, as last heard */
	int snapshotting;
	uint64_t snap_seq_in;     /* the snapshot's sequence, 0 before known */
	uint32_t snap_pos;
	int64_t snap_t0;
	int in_sync;              /* the master waits for this standby */
	uint32_t master_caps;     /* REPL_CAP_*, as its last answer without
				   * a record said */
	int behind;               /* the last change applied came from the
				   * stream: more may wait, pull a window */
	int64_t answered_ms;      /* when the last answered pull was sent */
	unsigned master_ack_ms;
	int was_standby;
	/* FINAL_*: the takeover's ask for a final copy; under mu, and read
	 * lock-free by standby_final_wanted(). */
	atomic_int final;
	pthread_cond_t final_cv;  /* on CLOCK_MONOTONIC */
	uint64_t generation;      /* bumped at each takeover */
	uint64_t snapshots, snapshot_records, snapshot_ms;
	uint64_t installed, takeovers;
} R = { .mu = PTHREAD_MUTEX_INITIALIZER };

int standby_init(void (*changed)(void))
{
	pthread_condattr_t ca;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&R.final_cv, &ca);
	pthread_condattr_destroy(&ca);
	R.changed = changed;
	R.snapshotting = 1;
	if (shadow_init(&R.shadow) || shadow_init(&R.building)) {
		standby_fini();
		return -ENOMEM;
	}
	return 0;
}

void standby_fini(void)
{
	shadow_fini(R.shadow);
	shadow_fini(R.building);
	R.shadow = R.building = NULL;
}

void standby_attach(struct mport *port, int agent)
{
	R.port = port;
	R.agent = agent;
}

static void refused(uint16_t lid, const char *why)
{
	if (refusal_allowed(REFUSAL_LID | lid, RATELIM_KINDS - 1))
		GLUE_LOG(GLUE_LOG_INFO,
			 "WRN 7A43: replication answer from LID %u dropped: %s\n", lid, why);
}

/* Under mu: forget the shadow's continuity; the next pull snapshots. */
static void restart_locked(void)
{
	R.epoch = 0;
	R.applied = 0;
	R.in_sync = 0;
	R.snapshotting = 1;
	R.snap_seq_in = 0;
	R.snap_pos = 0;
	R.behind = 0;
	shadow_clear(R.building);
}

/* Under mu: the master's answer to the pull sent at sent_ms; acks: the
 * pull acked (not a window's NOACK one), its answer says whether the
 * master waits for us. */
static void apply_locked(const struct repl_answer *a, int64_t sent_ms, int acks)
{
	int64_t now = mono_ms();

	R.master_ack_ms = a->ack_ms ? a->ack_ms : R.master_ack_ms;
	if (!repl_kind_has_record(a->kind))
		R.master_caps = a->caps;
	/* An answer with a record has no room for the head (repl.h). */
	R.master_head = !repl_kind_has_record(a->kind) ? a->head :
			a->seq > R.master_head ? a->seq : R.master_head;
	switch (a->kind) {
	case REPL_NONE:
		if (R.snapshotting || a->epoch != R.epoch || a->seq != R.applied) {
			restart_locked();
			return;
		}
		R.behind = 0;
		break;
	case REPL_SET:
	case REPL_DELETE:
		if (R.snapshotting || a->epoch != R.epoch || a->seq != R.applied + 1) {
			restart_locked();
			return;
		}
		if (a->kind == REPL_SET
		    ? shadow_set(R.shadow, a->rec, shadow_lease_end(a->lease_left, now))
		    : (shadow_delete(R.shadow, a->rec), 0)) {
			restart_locked();
			return;
		}
		R.applied = a->seq;
		R.behind = 1;
		break;
	case REPL_SNAP_NEEDED:
		restart_locked();
		R.snap_t0 = now;
		return;
	case REPL_SNAP_RECORD:
		if (!R.snapshotting || a->pos != R.snap_pos ||
		    (R.snap_pos && a->seq != R.snap_seq_in) ||
		    shadow_set(R.building, a->rec, shadow_lease_end(a->lease_left, now))) {
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
		if (!R.snap_pos)
			R.snap_t0 = now; /* an empty list: no record started it */
		shadow_move(R.shadow, R.building);
		R.epoch = a->epoch;
		R.applied = a->seq;
		R.snapshotting = 0;
		R.snapshots++;
		R.snapshot_records = R.snap_pos;
		R.snapshot_ms = (uint64_t)(now - R.snap_t0);
		GLUE_LOG(GLUE_LOG_INFO,
			 "osmats replication: snapshot of %u ServiceRecords from master LID %u in "
			 "%" PRIu64 " ms (epoch 0x%016" PRIx64 ", seq %" PRIu64 ")\n",
			 R.snap_pos, R.master_lid, R.snapshot_ms, R.epoch, R.applied);
		return;
	default:
		return;
	}
	/* A NOACK pull's answer tells nothing of the master's wait: the
	 * takeover counts from the last pull that acked (untrusted_locked). */
	if (!acks)
		return;
	if (a->pos && !R.in_sync)
		GLUE_LOG(GLUE_LOG_INFO,
			 "osmats replication: in sync with master LID %u at seq %" PRIu64 "\n",
			 R.master_lid, R.applied);
	R.in_sync = (int)(a->pos & 1);
	R.answered_ms = sent_ms;
}

static int final_wanted(void)
{
	return atomic_load_explicit(&R.final, memory_order_acquire) == FINAL_WANTED;
}

/* Under mu: answers to a pull still go into the copy (a standby's
 * pulls while STANDBY, the takeover's final pulls while it waits). */
static int still_ours(int fin)
{
	return fin ? R.final == FINAL_WANTED : glue_is_standby();
}

/* Under mu, after answers to a final copy's pulls (fin: the pull was
 * one; a standby's pull still in flight at the takeover is not): done
 * when the snapshot is whole, failed when the old master did not answer
 * or started over. */
static void final_check_locked(int fin, int answered)
{
	if (!fin || R.final != FINAL_WANTED)
		return;
	if (!R.snapshotting)
		R.final = FINAL_DONE;
	else if (!answered || !R.snap_pos)
		R.final = FINAL_FAILED;
	else
		return;
	pthread_cond_broadcast(&R.final_cv);
}

struct window {
	uint32_t tid0;
	unsigned n;
	struct repl_answer ans[WINDOW_MAX];
	int got[WINDOW_MAX];
};

static int window_match(const uint8_t *mad, size_t len, void *ctx)
{
	const struct window *w = ctx;
	uint32_t i = (uint32_t)wire_get64(mad + MAD_OFF_TID) - w->tid0;

	return len >= MAD_HDR_SIZE && mad[1] == REPL_CLASS &&
	       mad[MAD_OFF_METHOD] == (MAD_METHOD_GET | MAD_METHOD_RESP_BIT) &&
	       i < w->n;
}

/* Whether answers after this one in a window can still be applied. */
static int window_goes_on(enum repl_kind k)
{
	return k == REPL_SNAP_RECORD || k == REPL_SET || k == REPL_DELETE;
}

/* Done when every answer came, or the answers in order up to one that
 * ends the window (the snapshot's end, "nothing yet", "snapshot
 * needed"): those after it are not applied. */
static int window_done(const struct window *w)
{
	unsigned i;

	for (i = 0; i < w->n && w->got[i] && window_goes_on(w->ans[i].kind); i++)
		;
	return i == w->n || w->got[i];
}

/* Send the w->n pulls p[] to d at once (TIDs from w->tid0 on), and
 * collect their answers from d's port, signed with our key, until
 * window_done or PULL_TIMEOUT_MS. */
static void window_exchange(const struct mport_dest *d, struct window *w,
			    const struct repl_pull *p)
{
	int64_t deadline = mono_ms() + PULL_TIMEOUT_MS, now;
	uint8_t req[MAD_SIZE], *resp;
	size_t len;
	unsigned i;

	w->tid0 = mport_new_tids(R.port, w->n);
	for (i = 0; i < w->n; i++) {
		repl_pull_encode(req, w->tid0 + i, &p[i]);
		replauth_sign(req);
		/* With a timeout: the kernel drops a response to a request
		 * sent without one (mport_send_req). */
		mport_send_req(R.port, R.agent, d, req, sizeof(req), PULL_TIMEOUT_MS);
	}
	while (!window_done(w) && (now = mono_ms()) < deadline &&
	       !mport_wait(R.port, (int)(deadline - now), window_match, w, &resp, &len)) {
		struct repl_answer a;

		i = (uint32_t)wire_get64(resp + MAD_OFF_TID) - w->tid0;
		if (mport_last_slid(R.port) == d->lid && !repl_answer_decode(resp, len, &a) &&
		    !replauth_verify(resp, len) && !w->got[i]) {
			w->ans[i] = a;
			w->got[i] = 1;
		}
		free(resp);
	}
}

/* Snapshot records pos .. pos + SNAP_WINDOW - 1 of snapshot seq at
 * once; applied in order up to the first missing one. Nonzero when any
 * came. */
static int pull_window(const struct mport_dest *d, uint64_t seq, uint32_t pos,
		       uint64_t gen)
{
	struct repl_pull p[SNAP_WINDOW];
	struct window *w = calloc(1, sizeof(*w));
	int64_t sent = mono_ms();
	int fin = final_wanted(), got;
	size_t i;

	if (!w)
		return 0;
	w->n = SNAP_WINDOW;
	for (i = 0; i < SNAP_WINDOW; i++)
		p[i] = (struct repl_pull){ .next = seq, .pos = pos + (uint32_t)i,
					   .flags = REPL_FLAG_SNAPSHOT |
						    (fin ? REPL_FLAG_FINAL : 0) };
	window_exchange(d, w, p);
	pthread_mutex_lock(&R.mu);
	for (i = 0; i < SNAP_WINDOW && w->got[i] && gen == R.generation &&
		    still_ours(fin) && R.snapshotting; i++)
		apply_locked(&w->ans[i], sent, 1);
	final_check_locked(fin, w->got[0]);
	pthread_mutex_unlock(&R.mu);
	got = w->got[0];
	free(w);
	if (got)
		R.changed();
	return got;
}

/* Changes next .. next + STREAM_WINDOW - 1 of epoch at once: the first
 * pull acks next - 1, the others carry REPL_FLAG_NOACK (the ack moves
 * only with what is applied). Applied in order up to the first missing
 * answer or one that ends the window; the next window starts there, so
 * a lost answer is asked again. Nonzero when the first was answered. */
static int stream_window(const struct mport_dest *d, uint64_t epoch, uint64_t next,
			 uint64_t gen)
{
	struct repl_pull p[STREAM_WINDOW];
	struct window *w = calloc(1, sizeof(*w));
	int64_t sent = mono_ms();
	int got;
	size_t i;

	if (!w)
		return 0;
	w->n = STREAM_WINDOW;
	for (i = 0; i < STREAM_WINDOW; i++)
		p[i] = (struct repl_pull){ .epoch = epoch, .next = next + i,
					   .flags = i ? REPL_FLAG_NOACK : 0 };
	window_exchange(d, w, p);
	pthread_mutex_lock(&R.mu);
	for (i = 0; i < STREAM_WINDOW && w->got[i] && gen == R.generation && still_ours(0) &&
		    !R.snapshotting && R.epoch == epoch && R.applied == next - 1 + i; i++) {
		apply_locked(&w->ans[i], sent, !i);
		if (!window_goes_on(w->ans[i].kind))
			break;
	}
	pthread_mutex_unlock(&R.mu);
	got = w->got[0];
	free(w);
	if (got)
		R.changed();
	return got;
}

/* One pull; nonzero when it got an answer. */
static int pull(void)
{
	struct mport_rpc_opts o = { .timeout_ms = PULL_TIMEOUT_MS, .retries = 0 };
	struct mport_dest d = { .qpn = 1, .qkey = 0x80010000u };
	struct repl_pull p = { 0 };
	struct repl_answer a;
	uint8_t req[MAD_SIZE], *resp = NULL;
	size_t resp_len = 0;
	const char *why;
	uint64_t guid, gen;
	uint16_t lid;
	int64_t sent;
	int ret, window = 0;

	if (final_wanted()) {
		/* The SM that handed over: OpenSM names this one master now. */
		pthread_mutex_lock(&R.mu);
		lid = R.master_lid;
		p.flags = REPL_FLAG_FINAL;
	} else {
		if (glue_master_sm(&lid, &guid))
			return 0;
		pthread_mutex_lock(&R.mu);
		if (guid != R.master_guid) {
			/* Another master: its log is not the one the shadow
			 * follows. */
			R.master_guid = guid;
			R.master_caps = 0;
			restart_locked();
		}
		R.master_lid = lid;
		R.was_standby = 1;
	}
	gen = R.generation;
	if (R.snapshotting) {
		p.flags |= REPL_FLAG_SNAPSHOT;
		p.next = R.snap_seq_in;
		p.pos = R.snap_pos;
	} else {
		p.epoch = R.epoch;
		p.next = R.applied + 1;
		/* Behind a master that serves windows: a window; up to date,
		 * one pull the master holds until a change comes. */
		window = !(p.flags & REPL_FLAG_FINAL) && R.behind &&
			 R.master_caps & REPL_CAP_WINDOW;
	}
	pthread_mutex_unlock(&R.mu);
	d.lid = lid;
	/* The first record names the snapshot; the rest come in windows. */
	if (p.flags & REPL_FLAG_SNAPSHOT && p.pos)
		return pull_window(&d, p.next, p.pos, gen);
	if (window)
		return stream_window(&d, p.epoch, p.next, gen);
	/* Signed over its TID, which mport_rpc_tid keeps. */
	repl_pull_encode(req, mport_new_tids(R.port, 1), &p);
	replauth_sign(req);
	sent = mono_ms();
	ret = mport_rpc_tid(R.port, R.agent, &d, req, sizeof(req), &o, &resp, &resp_len);
	if (ret) {
		pthread_mutex_lock(&R.mu);
		final_check_locked(p.flags & REPL_FLAG_FINAL, 0);
		pthread_mutex_unlock(&R.mu);
		return 0;
	}
	/* Only the master's port, tagged with the key the SMs share. */
	why = mport_last_slid(R.port) != lid || repl_answer_decode(resp, resp_len, &a) ?
	      "not the master's" : replauth_verify(resp, resp_len) ? "bad authentication tag" : NULL;
	ret = !why;
	free(resp);
	pthread_mutex_lock(&R.mu);
	if (!ret)
		refused(mport_last_slid(R.port), why);
	/* A takeover since the pull was sent owns the shadow now. */
	else if (gen == R.generation && still_ours(p.flags & REPL_FLAG_FINAL))
		apply_locked(&a, sent, 1);
	final_check_locked(p.flags & REPL_FLAG_FINAL, ret);
	pthread_mutex_unlock(&R.mu);
	if (!ret)
		return 0;
	R.changed();
	return 1;
}

int standby_pull(void)
{
	if (final_wanted())
		return pull(), 1;
	if (!glue_is_standby() || mono_ms() < R.retry_at_ms)
		return 0;
	if (pull())
		return 1;
	R.retry_at_ms = mono_ms() + RETRY_MS;
	return 0;
}

void standby_leaving(void)
{
	struct mport_dest d = { .qpn = 1, .qkey = 0x80010000u };
	struct repl_pull p = { .flags = REPL_FLAG_LEAVING };
	uint8_t req[MAD_SIZE];
	uint64_t guid;

	if (!glue_is_standby() || glue_master_sm(&d.lid, &guid))
		return;
	repl_pull_encode(req, 0, &p);
	replauth_sign(req);
	mport_send(R.port, R.agent, &d, req, sizeof(req));
}


/* Under mu, at the takeover: why the shadow may lack a change the master
 * committed, or NULL. The master commits without an in-sync standby only
 * ack_ms after the last pull of it that it answered "in sync" (rlog.c),
 * so not before answered_ms + ack_ms: an answer that says otherwise
 * clears in_sync. OpenSM takes over when the polls of
 * the master sent at ticks 1 .. retries + 1 after its last answer all
 * went unanswered, ticks sminfo_polling_timeout apart, so the master was
 * gone soon after tick 1: (retries + 1) timeouts before now, less a
 * second for a poll's own answer time. If that is before answered_ms +
 * ack_ms, the master died before it could commit without us. */
static const char *untrusted_locked(int64_t now, int handover)
{
	unsigned t, n;
	int64_t window;

	glue_polling(&t, &n);
	/* A handover (OpenSM went from STANDBY to MASTER on the old master's
	 * word, osm_sm_state_mgr.c): that master is alive and could commit
	 * without us up to the handover, so no polling window is credited. */
	window = handover ? 0 : (int64_t)(n + 1) * t - 1000;
	if (!R.epoch || R.snapshotting)
		return "it holds no whole copy of the master's records";
	if (!R.in_sync)
		return "it was still catching up with the master";
	if (now - R.answered_ms >= (int64_t)R.master_ack_ms + window)
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
	size_t n, expired, failed, replaced;
	int cleared;
};

/* The copy is the master's list: what OpenSM still holds from an
 * earlier mastership of its own is older, deletions included. Emptied
 * at the first record, so that a walk that cannot start (no memory)
 * leaves OpenSM's list as it is. */
static void clear_list(struct install *in)
{
	if (in->cleared)
		return;
	in->replaced = glue_sr_count();
	glue_sr_walk(0, clear_one, NULL);
	in->cleared = 1;
}

static int install_one(const uint8_t *rec, int64_t end, void *arg)
{
	struct install *in = arg;
	uint32_t left = shadow_lease_left(end, in->now);
	void *h;

	clear_list(in);
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

static void install_locked(const char *why, const char *from)
{
	struct install in = { .now = mono_ms() };

	R.takeovers++;
	if (why) {
		GLUE_LOG(GLUE_LOG_INFO,
			 "WRN 7A42: taking over without the standby's copy (%zu records): %s; "
			 "the SA starts from OpenSM's own %zu ServiceRecords and hosts register "
			 "again\n", shadow_count(R.shadow), why, glue_sr_count());
		R.installed = 0;
		return;
	}
	glue_lock_excl();
	if (!shadow_count(R.shadow))
		clear_list(&in);
	else if (shadow_each_oldest_first(R.shadow, install_one, &in)) {
		glue_unlock();
		R.installed = 0;
		GLUE_LOG(GLUE_LOG_ERROR,
			 "ERR 7A44: out of memory installing the standby's copy of %zu "
			 "ServiceRecords: the SA starts from OpenSM's own %zu and hosts register "
			 "again\n", shadow_count(R.shadow), glue_sr_count());
		return;
	}
	glue_sr_dirty();
	/* OpenSM's SA database load comes later in this sweep. */
	sadb_installed();
	glue_unlock();
	R.installed = in.n;
	if (in.failed)
		GLUE_LOG(GLUE_LOG_ERROR,
			 "ERR 7A44: out of memory installing the standby's copy: %zu of %zu "
			 "ServiceRecords lost\n", in.failed, shadow_count(R.shadow));
	GLUE_LOG(GLUE_LOG_INFO,
		 "osmats replication: installed %zu ServiceRecords from %s (epoch 0x%016"
		 PRIx64 ", seq %" PRIu64 ", %zu expired) in %" PRId64 " ms, in place of the %zu "
		 "OpenSM held\n", in.n, from, R.epoch, R.applied, in.expired, mono_ms() - in.now,
		 in.replaced);
}

/* Under mu, at a takeover without a copy to trust: a handover's old
 * master is alive and, a standby now, serves the list it left
 * (REPL_FLAG_FINAL); the responder thread fetches it into the shadow.
 * Nonzero when it did. A dead master costs one pull's timeout. */
static int final_copy_locked(void)
{
	int64_t t0 = mono_ms(), moved = t0;
	uint32_t pos = 0;
	int ok;

	restart_locked();
	atomic_store_explicit(&R.final, FINAL_WANTED, memory_order_release);
	while (R.final == FINAL_WANTED) {
		int64_t now = mono_ms(), until = moved + FINAL_STALL_MS;
		struct timespec ts;

		if (R.snap_pos != pos) {
			pos = R.snap_pos;
			moved = now;
			until = now + FINAL_STALL_MS;
		}
		if (until > t0 + FINAL_WAIT_MS)
			until = t0 + FINAL_WAIT_MS;
		if (now >= until)
			break;
		/* Woken when done or failed; looks at the progress twice a
		 * second. */
		ts = mono_ms_timespec(now + 500 < until ? now + 500 : until);
		pthread_cond_timedwait(&R.final_cv, &R.mu, &ts);
	}
	ok = R.final == FINAL_DONE;
	atomic_store_explicit(&R.final, FINAL_NONE, memory_order_release);
	GLUE_LOG(GLUE_LOG_INFO,
		 "osmats replication: the final copy of the SM at LID %u that handed over: %s\n",
		 R.master_lid, ok ? "received" : "none (it is gone, or was no master)");
	return ok;
}

void standby_takeover(void)
{
	const char *why, *from = "the shadow";

	pthread_mutex_lock(&R.mu);
	/* OpenSM's word too: a handover can come before the first pull. */
	if ((R.was_standby || glue_leaving_standby()) && !glue_is_standby()) {
		uint64_t guid;

		if (!R.master_lid && glue_master_sm(&R.master_lid, &guid))
			R.master_lid = 0;
		why = untrusted_locked(mono_ms(), glue_is_master());
		if (why && R.master_lid && final_copy_locked()) {
			why = NULL;
			from = "the final copy of the SM that handed over";
		}
		install_locked(why, from);
		R.was_standby = 0;
		R.generation++;
		R.master_guid = 0;
		restart_locked();
		shadow_clear(R.shadow);
	}
	pthread_mutex_unlock(&R.mu);
}

void standby_state(struct state_file_repl *out)
{
	pthread_mutex_lock(&R.mu);
	out->head = R.master_head;
	out->applied = R.applied;
	out->in_sync = R.in_sync;
	out->lag_ms = R.answered_ms ? (uint64_t)(mono_ms() - R.answered_ms) : 0;
	out->snapshots = R.snapshots;
	out->snapshot_records = R.snapshot_records;
	out->snapshot_ms = R.snapshot_ms;
	out->copy = R.shadow ? shadow_count(R.shadow) : 0;
	out->installed = R.installed;
	out->takeovers = R.takeovers;
	out->epoch = R.epoch;
	pthread_mutex_unlock(&R.mu);
}
