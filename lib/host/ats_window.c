/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ats_window.h"
#include "core/log.h"
#include "core/mono.h"
#include "core/sa.h"
#include "core/wire.h"

enum {
	REQ_QUEUED,
	REQ_FLYING,
	REQ_WHOLE,    /* waits for an empty window, then runs whole */
	REQ_DONE,
};

/* A singly linked FIFO of requests. */
struct fifo {
	struct ats_window_req *head, **tail;
};

struct ats_window {
	struct sa_client *sa;
	struct mport *port;
	uint16_t from;          /* the source LID of what ats_window_recv gave */
	unsigned depth;
	struct fifo queued, whole, done;
	struct ats_window_req **fly; /* depth slots, NULL free */
	unsigned nfly;
	int64_t read_ms;     /* when the port was last read, its outcome */
	int read_err;
	struct ats_window_stats st;
};

/* How long a reading of the port serves first sends: libibumad reads some
 * ten sysfs files and the whole P_Key table for it, more than the
 * lookup's own work; a request sent to an SM that moved within this
 * time is sent again to the new one by its retry, which reads anew. */
#define PORT_READ_MS 100

static void fifo_init(struct fifo *f)
{
	f->head = NULL;
	f->tail = &f->head;
}

static void fifo_put(struct fifo *f, struct ats_window_req *r)
{
	r->next = NULL;
	*f->tail = r;
	f->tail = &r->next;
}

static struct ats_window_req *fifo_take(struct fifo *f)
{
	struct ats_window_req *r = f->head;

	if (r) {
		f->head = r->next;
		if (!f->head)
			f->tail = &f->head;
	}
	return r;
}

int ats_window_init(struct ats_window **out, struct sa_client *sa, unsigned depth)
{
	struct ats_window *w;
	int ret;

	if (!depth || depth > ATS_WINDOW_DEPTH_MAX)
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fly = calloc(depth, sizeof(*w->fly));
	if (!w->fly) {
		free(w);
		return -ENOMEM;
	}
	w->sa = sa;
	w->port = sa_client_mport(sa);
	w->depth = depth;
	fifo_init(&w->queued);
	fifo_init(&w->whole);
	fifo_init(&w->done);
	/* Answers that come while a request of the caller's own (a sync,
	 * a CM check) waits on the same port are kept for us. */
	ret = mport_keep_strays(w->port, depth);
	if (ret) {
		free(w->fly);
		free(w);
		return ret;
	}
	*out = w;
	return 0;
}

void ats_window_fini(struct ats_window *w)
{
	if (!w)
		return;
	free(w->fly);
	free(w);
}

void ats_window_submit(struct ats_window *w, struct ats_window_req *r)
{
	r->err = 0;
	r->spent = 0;
	r->sa_status = 0;
	memset(&r->set, 0, sizeof(r->set));
	r->attempt = 0;
	r->state = REQ_QUEUED;
	fifo_put(&w->queued, r);
}

static void finish(struct ats_window *w, struct ats_window_req *r, int err)
{
	r->err = err;
	r->state = REQ_DONE;
	fifo_put(&w->done, r);
}

static void fly_drop(struct ats_window *w, unsigned slot)
{
	w->fly[slot] = NULL;
	w->nfly--;
}

/* How long attempt a of r waits: as sa_client_request's exchange does,
 * a GetTable twice as long each time, up to 16 times (its whole RMPP
 * transfer must fit in one attempt). */
static unsigned attempt_ms(const struct ats_window *w, const struct ats_window_req *r)
{
	struct mport_rpc_opts ro;

	uint64_t ms;

	sa_client_rpc_opts(w->sa, r->method, &ro);
	ms = (uint64_t)ro.timeout_ms << (ro.grow ? (r->attempt < 4 ? r->attempt : 4) : 0);
	/* A caller's timeout near UINT_MAX (ibats_opts) must not wrap. */
	return ms > INT32_MAX ? INT32_MAX : (unsigned)ms;
}

static int send_req(struct ats_window *w, struct ats_window_req *r)
{
	unsigned ms = attempt_ms(w, r);
	uint32_t tid = mport_new_tids(w->port, 1);

	/* A fresh TID each attempt: ib_umad refuses a request whose TID and
	 * class one still waiting has (user_mad.c is_duplicate, EINVAL), and
	 * the kernel's timer for the last attempt ends after ours (it starts
	 * when the send completes). */
	wire_put64(r->mad + MAD_OFF_TID, tid);
	r->tids[r->attempt % 4] = tid;
	r->lids[r->attempt % 4] = r->dst.lid;
	int ret = mport_send_req(w->port, sa_client_agent(w->sa), &r->dst, r->mad, MAD_SIZE, ms);

	r->deadline_ms = mono_ms() + ms;
	return ret;
}

/* r's first request into slot; 1 when it flies, 0 when r went on (a
 * whole lookup, done). */
static int launch(struct ats_window *w, struct ats_window_req *r, unsigned slot)
{
	uint8_t rec[SR_SIZE];
	uint64_t mask;
	int ret;

	ret = ats_query_first(w->sa, &r->l, &r->method, &mask, rec);
	if (ret == -EAGAIN) {
		r->state = REQ_WHOLE;
		fifo_put(&w->whole, r);
		return 0;
	}
	if (!ret)
		ret = sa_client_encode(w->sa, r->method, SA_ATTR_SERVICE_RECORD, mask, rec,
				       sizeof(rec), r->mad, &r->dst);
	if (!ret) {
		memset(r->tids, 0, sizeof(r->tids));
		ret = send_req(w, r);
	}
	if (ret) {
		finish(w, r, ret);
		return 0;
	}
	r->state = REQ_FLYING;
	w->fly[slot] = r;
	w->nfly++;
	w->st.sent++;
	if (w->nfly > w->st.inflight_max)
		w->st.inflight_max = w->nfly;
	return 1;
}

/* Requests whose time is up: again (to the SM the port names now), or
 * failed after the last retry. */
static void resend_due(struct ats_window *w, int64_t now, const struct mport_info *pi)
{
	struct mport_rpc_opts ro;
	unsigned i;

	for (i = 0; i < w->depth; i++) {
		struct ats_window_req *r = w->fly[i];

		if (!r || r->deadline_ms > now)
			continue;
		sa_client_rpc_opts(w->sa, r->method, &ro);
		if (r->attempt >= ro.retries) {
			log_debug("SA lookup (TID 0x%08x): no answer after %u attempts",
				  (uint32_t)wire_get64(r->mad + MAD_OFF_TID), r->attempt + 1);
			fly_drop(w, i);
			w->st.timeouts++;
			finish(w, r, -ETIMEDOUT);
			continue;
		}
		r->attempt++;
		if (pi && pi->sm_lid) {
			r->dst.lid = pi->sm_lid;
			r->dst.sl = pi->sm_sl;
		}
		w->st.resent++;
		if (send_req(w, r)) {
			fly_drop(w, i);
			finish(w, r, -EIO);
		}
	}
}

/* Whole lookups, one after the other, with nothing else in flight: they
 * use the port as sa_client_request does, and what they miss would be
 * lost to it. */
static void run_whole(struct ats_window *w)
{
	struct ats_window_req *r;

	while ((r = fifo_take(&w->whole))) {
		int ret;

		w->st.whole++;
		ats_query_set_free(&r->set);
		ret = r->spent ? ats_query_rest(w->sa, &r->l, &r->set) :
				 ats_query_lookup(w->sa, &r->l, &r->set);
		r->sa_status = sa_client_last_status(w->sa);
		/* The lookup's own count: the request that sent it here too. */
		r->set.queries += r->spent;
		finish(w, r, ret);
	}
}

static int pump(struct ats_window *w, int whole)
{
	const struct mport_info *pi = NULL;
	int64_t now = mono_ms(), next = -1;
	unsigned i, slot = 0;
	int ret;

	if (w->nfly) {
		int due = 0;

		for (i = 0; i < w->depth; i++)
			due |= w->fly[i] && w->fly[i]->deadline_ms <= now;
		/* A retry goes to the SM the port names now (the SA may
		 * have failed over), as sa_client_request's does. */
		if (due && !sa_client_refresh(w->sa)) {
			pi = sa_client_port(w->sa);
			w->read_ms = now;
		}
		if (due)
			resend_due(w, now, pi);
	}
	if (whole && !w->nfly && w->whole.head)
		run_whole(w);
	/* Whole lookups wait for an empty window: hold the rest back. */
	if (w->queued.head && w->nfly < w->depth && !w->whole.head) {
		if (pi || !w->read_ms || now - w->read_ms >= PORT_READ_MS || w->read_err) {
			w->read_err = pi ? 0 : sa_client_refresh(w->sa);
			w->read_ms = now;
		}
		ret = w->read_err;
		while (w->queued.head && w->nfly < w->depth && !w->whole.head) {
			struct ats_window_req *r = fifo_take(&w->queued);

			if (ret) {
				finish(w, r, ret);
				continue;
			}
			while (w->fly[slot])
				slot++;
			launch(w, r, slot);
		}
	}
	if (whole && !w->nfly && w->whole.head)
		run_whole(w);
	for (i = 0; i < w->depth; i++)
		if (w->fly[i] && (next < 0 || w->fly[i]->deadline_ms < next))
			next = w->fly[i]->deadline_ms;
	if (next < 0)
		return -1;
	now = mono_ms();
	return next > now ? (int)(next - now) : 0;
}

int ats_window_pump(struct ats_window *w)
{
	return pump(w, 1);
}

int ats_window_send(struct ats_window *w)
{
	return pump(w, 0);
}

int ats_window_finished(const struct ats_window_req *r)
{
	return r->state == REQ_DONE;
}

static int sa_response(const uint8_t *mad, size_t len, void *ctx)
{
	(void)ctx;
	return len >= MAD_HDR_SIZE && mad[MAD_OFF_MGMT_CLASS] == SA_CLASS &&
	       (mad[MAD_OFF_METHOD] & MAD_METHOD_RESP_BIT);
}

int ats_window_recv(struct ats_window *w, int timeout_ms, uint8_t **mad, size_t *len)
{
	int ret = mport_wait(w->port, timeout_ms, sa_response, NULL, mad, len);

	w->from = mport_last_slid(w->port);
	return ret;
}

/* tid is one of r's attempts' (a late answer to an earlier one counts:
 * the kernel still waited for it, and it answers the same question),
 * from the LID that attempt asked: the kernel matches a response by TID
 * and class alone (mad.c ib_find_send_mad), so another port that
 * guesses the TID could answer in the SA's name. */
static int answers(const struct ats_window_req *r, uint32_t tid, uint16_t from)
{
	unsigned i, n = r->attempt + 1 < 4 ? r->attempt + 1 : 4;

	for (i = 0; i < n; i++)
		if (r->tids[i] == tid && r->lids[i] == from)
			return 1;
	return 0;
}

void ats_window_answer(struct ats_window *w, uint8_t *mad, size_t len)
{
	uint32_t tid = (uint32_t)wire_get64(mad + MAD_OFF_TID);
	struct ats_window_req *r = NULL;
	struct sa_client_answer ans;
	unsigned i;
	int ret;

	for (i = 0; i < w->depth; i++)
		if (w->fly[i] && answers(w->fly[i], tid, w->from)) {
			r = w->fly[i];
			break;
		}
	if (!r) {
		free(mad); /* a late answer to one that timed out, or a forgery */
		return;
	}
	fly_drop(w, i);
	ret = sa_client_decode(w->sa, r->method, SA_ATTR_SERVICE_RECORD, mad, len, &ans);
	r->sa_status = sa_client_last_status(w->sa);
	ret = ats_query_finish(w->sa, &r->l, ret, &ans, &r->set);
	if (ans.mad)
		sa_client_answer_free(&ans);
	if (ret == -EAGAIN) {
		r->spent = 1;
		r->state = REQ_WHOLE;
		fifo_put(&w->whole, r);
		return;
	}
	finish(w, r, ret);
}

struct ats_window_req *ats_window_done(struct ats_window *w)
{
	return fifo_take(&w->done);
}

int ats_window_run(struct ats_window *w, int timeout_ms)
{
	int64_t end = mono_ms() + (timeout_ms > 0 ? timeout_ms : 0);
	uint8_t *mad;
	size_t len;
	int due, ret;

	/* Answers that came while the caller was away (atsd's SA thread
	 * runs a sync or the CM's check beside the window) before pump
	 * judges their requests lost: one without a retry left would fail
	 * with its answer waiting. */
	while (w->nfly && !ats_window_recv(w, 0, &mad, &len))
		ats_window_answer(w, mad, len);
	for (;;) {
		int64_t now = mono_ms();
		int wait;

		due = ats_window_pump(w);
		if (due < 0 || w->done.head)
			return 0;
		wait = now < end ? (int)(end - now) : 0;
		if (due < wait)
			wait = due;
		ret = ats_window_recv(w, wait, &mad, &len);
		if (ret == -ETIMEDOUT) {
			if (mono_ms() >= end)
				return 0;
			continue;
		}
		if (ret)
			return ret;
		ats_window_answer(w, mad, len);
		/* And whatever else has come. */
		while (!ats_window_recv(w, 0, &mad, &len))
			ats_window_answer(w, mad, len);
	}
}

void ats_window_fail(struct ats_window *w, int err)
{
	struct ats_window_req *r;
	unsigned i;

	for (i = 0; i < w->depth; i++)
		if (w->fly[i]) {
			r = w->fly[i];
			fly_drop(w, i);
			finish(w, r, err);
		}
	while ((r = fifo_take(&w->whole)))
		finish(w, r, err);
	while ((r = fifo_take(&w->queued)))
		finish(w, r, err);
}

void ats_window_cancel(struct ats_window *w)
{
	ats_window_fail(w, -ECANCELED);
}

unsigned ats_window_busy(const struct ats_window *w)
{
	const struct ats_window_req *r;
	unsigned n = w->nfly;

	for (r = w->queued.head; r; r = r->next)
		n++;
	for (r = w->whole.head; r; r = r->next)
		n++;
	return n;
}

unsigned ats_window_inflight(const struct ats_window *w)
{
	return w->nfly;
}

unsigned ats_window_depth(const struct ats_window *w)
{
	return w->depth;
}

void ats_window_stats(const struct ats_window *w, struct ats_window_stats *st)
{
	*st = w->st;
	st->inflight = w->nfly;
}
