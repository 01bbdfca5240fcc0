/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The master's side of replication (see repl.h): the numbered log of
 * ServiceRecord changes in one epoch, and the standby SMs pulling it.
 * A standby is "in sync" once it asked for the change after the newest;
 * from then on a change is committed only once it asked past it (its
 * ack), until its ack stays behind the head for ack_ms, when it is
 * dropped. Nothing here waits: the caller holds answers until
 * rlog_committed() passes them. Its own mutex; never held while taking
 * osm->lock. */
#ifndef IBATS_RLOG_H
#define IBATS_RLOG_H

#include <stddef.h>
#include <stdint.h>

#include "core/mport.h"
#include "core/repl.h"
#include "core/sr.h"

#define RLOG_MAX_PEERS 8
/* A standby that owes a change older than this is no longer told it is
 * in sync, and is dropped ack_ms after it last was: a Set's answer waits
 * at most ack_ms + RLOG_FRESH_MS for a standby. */
#define RLOG_FRESH_MS 500

struct rlog;

struct rlog_entry {
	uint64_t seq;
	enum repl_kind kind;     /* REPL_SET or REPL_DELETE */
	uint8_t rec[SR_SIZE];
	int64_t lease_end_ms;    /* monotonic; 0 = infinite */
	int64_t made_ms;         /* monotonic: when it was logged */
};

/* A pull the master holds until a change comes or hold_ms passes. */
struct rlog_held {
	struct mport_held from;
	uint64_t tid;
	uint64_t next;
	uint64_t guid;
};

int rlog_init(struct rlog **out, size_t capacity);
void rlog_fini(struct rlog *l);

/* A new epoch: the log empties and every standby must snapshot. */
void rlog_reset(struct rlog *l, uint64_t epoch);
uint64_t rlog_epoch(struct rlog *l);
uint64_t rlog_head(struct rlog *l);

/* Log a change (the caller holds osm->lock exclusively, so the order is
 * the list's); its sequence number, and in *epoch (unless NULL) the
 * epoch it was logged in. */
uint64_t rlog_append(struct rlog *l, enum repl_kind kind, const uint8_t *rec,
		     int64_t lease_end_ms, uint64_t *epoch);
/* The same, made at now_ms (monotonic, never before an earlier change's)
 * rather than now. */
uint64_t rlog_append_at(struct rlog *l, enum repl_kind kind, const uint8_t *rec,
			int64_t lease_end_ms, int64_t now_ms, uint64_t *epoch);

enum rlog_verdict {
	RLOG_ANSWER,       /* *out is the change asked for */
	RLOG_HOLD,         /* up to date: held (or answer NONE when hold fails) */
	RLOG_SNAP_NEEDED,  /* another epoch, or the change left the log */
	RLOG_FULL,         /* no room for another standby */
	RLOG_NOT_YET,      /* rlog_peek: past the head */
};

/* A stream pull from the standby guid (epoch, next) at now_ms. It acks
 * next - 1 and keeps its slot; one for a change
 * it acked before (it went back) makes it not in sync, its acks void.
 * *in_sync says whether the master now waits for this standby: 0 no,
 * 1 yes, 2 yes since this pull. *moved (unless NULL): 1 when its acked
 * position changed (what rlog_stats shows of it). A held pull replaces
 * the standby's previous one. */
enum rlog_verdict rlog_pull(struct rlog *l, uint64_t guid, uint64_t epoch, uint64_t next,
			    const struct rlog_held *held, int64_t now_ms,
			    struct rlog_entry *out, int *in_sync, int *moved);
/* A pull that acks nothing (REPL_FLAG_NOACK: a window's after its
 * first, repl.h): the change next of epoch into *out, no standby's
 * state touched and nothing held, whatever next is: RLOG_ANSWER,
 * RLOG_NOT_YET past the head, RLOG_SNAP_NEEDED for another epoch, 0 or
 * a change that left the log. */
enum rlog_verdict rlog_peek(struct rlog *l, uint64_t epoch, uint64_t next,
			    struct rlog_entry *out);
/* The standby said it stops (or was found gone): no more waits for it. */
void rlog_leave(struct rlog *l, uint64_t guid);

/* Held pulls to answer now: those asking for seq or before, and those
 * held longer than hold_ms (answered NONE). Up to max into out. */
size_t rlog_take_held(struct rlog *l, uint64_t seq, struct rlog_held *out, size_t max);
size_t rlog_take_stale(struct rlog *l, int64_t now_ms, unsigned hold_ms,
		       struct rlog_held *out, size_t max);
/* The change seq, when still in the log: 0, else -ENOENT. */
int rlog_get(struct rlog *l, uint64_t seq, struct rlog_entry *out);

/* The newest change every in-sync standby holds (the head when none
 * is waited for): a client's Set or Delete up to it may be answered. The
 * epoch it belongs to in *epoch (unless NULL). */
uint64_t rlog_committed(struct rlog *l, uint64_t *epoch);
/* Every few ms: drop the in-sync standbys that owe a change (or lost
 * their stream) and were last told "in sync" ack_ms ago (GUIDs in
 * dropped[], up to RLOG_MAX_PEERS, count in *ndropped), and free the
 * slots of standbys that pulled nothing for ack_ms. Returns the slots
 * freed. */
size_t rlog_tick(struct rlog *l, int64_t now_ms, unsigned ack_ms,
		 uint64_t *dropped, size_t *ndropped);

/* One standby as the master sees it (`atsctl sm`, the state file). */
struct rlog_peer_stat {
	uint64_t guid;
	uint64_t acked;        /* it holds every change up to this */
	uint64_t behind;       /* head - acked: changes it has yet to ack */
	uint64_t since_ms;     /* since its last pull */
	int in_sync;           /* waited for (counted in rlog_stats.in_sync) */
};

struct rlog_stats {
	uint64_t epoch, head;
	uint64_t in_sync;      /* standbys waited for */
	uint64_t dropped;      /* standbys dropped for acking nothing, ever */
	struct rlog_peer_stat peers[RLOG_MAX_PEERS]; /* by slot, npeers of them */
	size_t npeers;
};
/* One copy under the log's lock, so head and each ack agree; times
 * against now_ms (rlog_stats: now). */
void rlog_stats_at(struct rlog *l, int64_t now_ms, struct rlog_stats *out);
void rlog_stats(struct rlog *l, struct rlog_stats *out);

#endif
