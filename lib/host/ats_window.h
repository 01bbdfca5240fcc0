/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* A window of ATS lookups in flight on one SA client: up to depth SA
 * requests outstanding at once, each matched to its answer by TID, with
 * sa_client_request's timeouts and retries per request, so that a host
 * asks at the SA's pace rather than one round trip at a time (ibacm's
 * sa_depth does the same for PathRecords). A lookup one request cannot
 * answer (no RMPP: a walk; a primary in several partitions) runs whole,
 * alone, once the window has emptied. Not thread-safe: the caller
 * serializes every call, ats_window_recv too (it reads the port's one
 * receive buffer and its strays, mport.h, which pump's whole lookups
 * and the caller's own exchanges on the port use as well). */
#ifndef IBATS_ATS_WINDOW_H
#define IBATS_ATS_WINDOW_H

#include <stddef.h>
#include <stdint.h>

#include "core/mad.h"
#include "core/mport.h"
#include "core/sa_client.h"
#include "ats_query.h"

/* The default and largest depth: see doc/design.md "A window of SA
 * requests" for why 16. */
#define ATS_WINDOW_DEPTH_DEFAULT 16
#define ATS_WINDOW_DEPTH_MAX 256

struct ats_window_req {
	struct ats_query_lookup l;        /* in */
	void *ctx;                  /* the caller's */
	/* out, once ats_window_done hands it back */
	int err;                    /* 0 or -errno; PRIMARY: -ENOENT */
	uint16_t sa_status;         /* the answer's MAD status */
	struct ats_query_set set;         /* owned by the caller then */
	/* the window's */
	int state;
	unsigned attempt;
	/* Each attempt's TID (a fresh one: ib_umad refuses one another
	 * still waiting has); an answer to any of the last ones counts. */
	uint32_t tids[4];
	uint16_t lids[4];           /* where each went: its answer comes from there */
	unsigned spent;             /* requests answered before it went whole */
	int64_t deadline_ms;
	uint8_t method;
	uint8_t mad[MAD_SIZE];
	struct mport_dest dst;
	struct ats_window_req *next;
};

struct ats_window_stats {
	uint64_t sent;      /* first sends */
	uint64_t resent;    /* retries after a timeout */
	uint64_t timeouts;  /* requests that ran out of retries */
	uint64_t whole;     /* lookups run whole (a walk, a split) */
	unsigned inflight;  /* now */
	unsigned inflight_max;
};

struct ats_window;

int ats_window_init(struct ats_window **out, struct sa_client *sa, unsigned depth);
/* Requests still in it are the caller's: take them back first
 * (ats_window_cancel). */
void ats_window_fini(struct ats_window *w);

/* Queue r (its l and ctx set); it is sent by the next ats_window_pump. */
void ats_window_submit(struct ats_window *w, struct ats_window_req *r);
/* Send what the window has room for, send again what is due, fail what
 * ran out of retries, and run a whole lookup once nothing is in flight.
 * Returns the ms until the next request is due, or -1 when none is in
 * flight. */
int ats_window_pump(struct ats_window *w);
/* ats_window_pump without the whole lookups, which read the port: for a
 * thread that submits while another waits in ats_window_recv. */
int ats_window_send(struct ats_window *w);
/* r is done (on the done list or taken off it). */
int ats_window_finished(const struct ats_window_req *r);
/* Wait up to timeout_ms (0: only what has come) for one SA response
 * (malloc'ed in *mad). -ETIMEDOUT when none came. */
int ats_window_recv(struct ats_window *w, int timeout_ms, uint8_t **mad, size_t *len);
/* The request mad answers finishes (or goes on to a whole lookup); a
 * response to no request of the window is dropped. Takes mad. */
void ats_window_answer(struct ats_window *w, uint8_t *mad, size_t len);
/* A finished request, oldest first, or NULL. */
struct ats_window_req *ats_window_done(struct ats_window *w);
/* The answers that have come, pump, then answers for up to timeout_ms,
 * then pump: for a caller that owns the port alone. Returns -errno of the port, else 0. */
int ats_window_run(struct ats_window *w, int timeout_ms);
/* Every request not handed back yet, finished or not, with err set to
 * -ECANCELED where unfinished, onto the done list. */
void ats_window_cancel(struct ats_window *w);
/* The same with err: the port failed (ats_window_recv's -errno other
 * than -ETIMEDOUT), and no answer will come. */
void ats_window_fail(struct ats_window *w, int err);

/* Requests queued, in flight or waiting for a whole lookup. */
unsigned ats_window_busy(const struct ats_window *w);
unsigned ats_window_inflight(const struct ats_window *w);
unsigned ats_window_depth(const struct ats_window *w);
void ats_window_stats(const struct ats_window *w, struct ats_window_stats *st);

#endif
