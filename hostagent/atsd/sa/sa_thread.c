/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The SA thread: a job queue in, a done queue out, and the executor of
 * each job kind (lookups and CM jobs here; syncs in sync_exec.c, group
 * joins in ipoib_exec.c, subscriptions in subs_exec.c). Between jobs it
 * serves unsolicited MADs (mad_serve.c) and the CM's events (rcm.c);
 * the SA's Reports come out on the done queue as SAJ_REPORT jobs. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "host/ats_query.h"
#include "host/ibsys.h"
#include "ipoib_exec.h"
#include "core/log.h"
#include "mad_serve.h"
#include "rcm.h"
#include "rcm_connect.h"
#include "core/sa.h"
#include "model/nosa.h"
#include "sa_thread.h"
#include "subs_exec.h"
#include "sync_exec.h"

/* How long the thread waits with lookups in flight before it looks at
 * its queue: each answer wakes it sooner. */
#define WINDOW_SLICE_MS 1

struct sa_thread {
	struct mport *port;
	struct sa_client *sa;
	struct smq_client smq;      /* the SM asked why a Set was refused */
	int have_smq;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct saj *todo, **todo_tail;
	struct saj *done, **done_tail;
	int stop;
	int pipe[2];
	int wake;                   /* eventfd: a job came while the thread waits */
	int port_err;               /* the last read of the port failed */
	int serving;                /* agents for requests registered */
	struct ats_window *win;     /* the lookups in flight */
	unsigned depth;
	struct ats_window_stats wst; /* under mu: as of the last pass */
	struct rcm *cm;
	int cm_refused;             /* cm asked for, rcm_init's error */
	unsigned cm_timeout_ms;
	saj_done_fn *report;
	void *report_ctx;
	saj_done_fn *sa_state;
	void *sa_state_ctx;
	int sa_down;                /* under mu: the last SAJ_SA_STATE told silence */
	uint64_t expired;           /* under mu: the window's attempts that timed out */
};

/* Why a connect or disconnect finds no CM. */
static void cm_off(const struct sa_thread *t, struct saj *j)
{
	const char *missing = rcm_missing_text(t->cm_refused);

	snprintf(j->errmsg, sizeof(j->errmsg), "%s", missing ? missing : t->cm_refused ?
		 "connecting by IP is off: rdma_cm could not start (atsd's log says why)" :
		 "connecting by IP is off (cm, cm_listen)");
}

/* The thread out of its idle poll (idle_wait). */
static void sa_thread_wake(struct sa_thread *t)
{
	uint64_t one = 1;

	(void)!write(t->wake, &one, sizeof(one));
}

static void queue_put(struct saj ***tail, struct saj *j)
{
	j->next = NULL;
	**tail = j;
	*tail = &j->next;
}

static struct saj *queue_take(struct saj **head, struct saj ***tail)
{
	struct saj *j = *head;

	if (j) {
		*head = j->next;
		if (!*head)
			*tail = head;
	}
	return j;
}

static int is_lookup(const struct saj *j)
{
	return j->kind == SAJ_LOOKUP;
}

/* With t->mu held: j to the main thread. The pipe wakes it when the
 * queue was empty: it takes every job there before it waits again
 * (sa_thread_complete), so one byte serves a batch. */
static void finish(struct sa_thread *t, struct saj *j)
{
	int wake = !t->done;

	queue_put(&t->done_tail, j);
	if (wake && write(t->pipe[1], "", 1) < 0 && errno != EAGAIN)
		log_err("SA thread: cannot wake the main loop: %s", strerror(errno));
}

/* With t->mu held: evidence ev (nosa.h) of the SA, told to the main
 * thread when it changes what is known. */
static void sa_seen(struct sa_thread *t, enum nosa_evidence ev, int err)
{
	int down = ev == NOSA_EV_SILENT;
	struct saj *j;

	if (ev == NOSA_EV_NONE || down == t->sa_down || !t->sa_state)
		return;
	j = saj_new(SAJ_SA_STATE, t->sa_state, t->sa_state_ctx);
	if (!j)
		return; /* told at the next evidence */
	t->sa_down = down;
	j->err = down ? err : 0;
	snprintf(j->errmsg, sizeof(j->errmsg), "%s", !down ? "" : err == -ENETDOWN ?
		 "port is not active or has no SM" : err == -EOPNOTSUPP ?
		 "the SM's port has no SA agent" : strerror(-err));
	finish(t, j);
}

/* With t->mu held: what finished job j says of the SA. CM jobs talk to
 * other hosts, not to the SA; a job that asked nothing says only that
 * the port is down. */
static void job_seen(struct sa_thread *t, const struct saj *j)
{
	enum nosa_evidence ev;

	if (j->kind == SAJ_CONNECT || j->kind == SAJ_DISCONNECT || j->kind == SAJ_CONNS ||
	    j->kind == SAJ_REPORT || j->kind == SAJ_SA_STATE)
		return;
	ev = nosa_evidence(j->err, j->sa_status);
	if (ev != NOSA_EV_ANSWERED || j->queries)
		sa_seen(t, ev, j->err);
}

/* mport_rpc's attempt went its timeout without an answer (a sync's Set,
 * a subscription, a whole lookup): a request of the SA class says the
 * SA is silent now, not after its retries. */
static void rpc_expired(void *ctx, const uint8_t *req, size_t len)
{
	struct sa_thread *t = ctx;

	if (len <= MAD_OFF_MGMT_CLASS || req[MAD_OFF_MGMT_CLASS] != SA_CLASS)
		return;
	pthread_mutex_lock(&t->mu);
	sa_seen(t, NOSA_EV_SILENT, -ETIMEDOUT);
	pthread_mutex_unlock(&t->mu);
}

/* With t->mu held: lookup job j into the window. */
static void lookup_submit(struct sa_thread *t, struct saj *j)
{
	struct saj_lookup *l = &j->u.lookup;
	struct ats_window_req *r = calloc(1, sizeof(*r));

	if (!r) {
		j->err = -ENOMEM;
		snprintf(j->errmsg, sizeof(j->errmsg), "%s", strerror(ENOMEM));
		finish(t, j);
		return;
	}
	l->wr = r;
	r->l = l->l;
	r->ctx = j;
	ats_window_submit(t->win, r);
}

/* A lookup the window finished: its job's outcome. */
static struct saj *lookup_done(struct ats_window_req *r)
{
	struct saj *j = r->ctx;
	struct saj_lookup *l = &j->u.lookup;
	int ret = r->err;

	if (l->l.kind == ATS_QUERY_PRIMARY && ret == -ENOENT)
		ret = 0;
	j->err = ret;
	j->sa_status = r->sa_status;
	if (ret == -ENETDOWN)
		snprintf(j->errmsg, sizeof(j->errmsg), "port is not active or has no SM");
	else if (ret)
		snprintf(j->errmsg, sizeof(j->errmsg), "%s", j->sa_status ?
			 sa_status_str(j->sa_status) : strerror(-ret));
	j->queries += r->set.queries;
	l->recs = ret ? NULL : r->set.recs;
	l->nrecs = ret ? 0 : r->set.n;
	if (ret)
		ats_query_set_free(&r->set);
	else
		free(r->set.idx);
	free(r);
	l->wr = NULL;
	return j;
}

/* The ATS table of a partition, one SubnAdmGetTable: without RMPP it
 * would be a walk of the whole SID block per GID, which a prefetch is
 * not worth. */
static void run_table(struct sa_thread *t, struct saj *j)
{
	struct saj_lookup *l = &j->u.lookup;
	struct ats_query_set s;
	int ret = -EOPNOTSUPP;

	memset(&s, 0, sizeof(s));
	if (sa_client_rmpp_state(t->sa) != 0)
		ret = ats_query_all(t->sa, l->l.pkey, &s);
	if (!ret && s.walked) {
		ats_query_set_free(&s);
		ret = -EOPNOTSUPP;
	}
	j->err = ret;
	j->sa_status = sa_client_last_status(t->sa);
	j->queries += s.queries;
	if (ret)
		snprintf(j->errmsg, sizeof(j->errmsg), "%s", ret == -EOPNOTSUPP ?
			 "no RMPP on the path to the SA" : j->sa_status ?
			 sa_status_str(j->sa_status) : strerror(-ret));
	free(s.idx);
	l->recs = ret ? NULL : s.recs;
	l->nrecs = ret ? 0 : s.n;
}

static void run_cm(struct sa_thread *t, struct saj *j)
{
	struct saj_cm *c = &j->u.cm;

	switch (j->kind) {
	case SAJ_CONNECT:
		if (!t->cm) {
			j->err = -ENOTSUP;
			cm_off(t, j);
			return;
		}
		j->err = rcm_connect(t->cm, &c->ip, c->port_no, c->pkey, c->sid, &c->src,
				     t->cm_timeout_ms, &c->conns[0], j->errmsg, sizeof(j->errmsg));
		c->nconns = j->err ? 0 : 1;
		return;
	case SAJ_DISCONNECT:
		if (!t->cm) {
			j->err = -ENOENT;
			cm_off(t, j);
			return;
		}
		j->err = rcm_disconnect(t->cm, c->conn_id, t->cm_timeout_ms, j->errmsg,
					sizeof(j->errmsg));
		return;
	default:
		c->nconns = t->cm ? rcm_list(t->cm, c->conns, RCM_MAX_CONNS) : 0;
		return;
	}
}

/* NodeRecord by LID: the port that holds it, for a listener's check that
 * a requester's GID sent its REQ (ibats_check_peer_lid(3)). */
static void run_lid(struct sa_thread *t, struct saj *j)
{
	struct saj_lid *l = &j->u.lid;
	uint64_t sent = sa_client_requests(t->sa);
	struct nr_record nr;
	int ret;

	ret = sa_client_node_at_lid(t->sa, l->lid, &nr);
	j->queries += (unsigned)(sa_client_requests(t->sa) - sent);
	j->sa_status = sa_client_last_status(t->sa);
	j->err = ret;
	if (ret == -ENOENT)
		snprintf(j->errmsg, sizeof(j->errmsg), "no port holds LID 0x%04x", l->lid);
	else if (ret)
		snprintf(j->errmsg, sizeof(j->errmsg), "%s", j->sa_status ?
			 sa_status_str(j->sa_status) : strerror(-ret));
	l->port_guid = ret ? 0 : nr.port_guid;
	l->base_lid = ret ? 0 : nr.lid;
}

static void run(struct sa_thread *t, struct saj *j)
{
	int ret;

	ret = mport_query(t->port, &j->port);
	if (!ret)
		mad_serve_identity(&j->port);
	if (!ret && (j->port.state != 4 || !j->port.sm_lid))
		ret = -ENETDOWN;
	if (ret || j->kind == SAJ_PORT) {
		j->err = ret;
		if (ret)
			snprintf(j->errmsg, sizeof(j->errmsg), "%s", ret == -ENETDOWN ?
				 "port is not active or has no SM" : strerror(-ret));
		return;
	}
	switch (j->kind) {
	case SAJ_SYNC:
		sync_exec_run(t->sa, t->have_smq ? &t->smq : NULL, j);
		return;
	case SAJ_IPOIB:
		ipoib_exec_run(t->sa, j);
		return;
	case SAJ_CONNECT:
	case SAJ_DISCONNECT:
	case SAJ_CONNS:
		run_cm(t, j);
		return;
	case SAJ_INFORM:
		subs_exec_run(t->sa, j);
		return;
	case SAJ_TABLE:
		run_table(t, j);
		return;
	case SAJ_LID:
		run_lid(t, j);
		return;
	default:
		j->err = -EINVAL;
		return;
	}
}

/* A Report arrived (subs_exec.c, on this thread). */
static void post_report(const struct saj_report *r, void *ctx)
{
	struct sa_thread *t = ctx;
	struct saj *j = saj_new(SAJ_REPORT, t->report, t->report_ctx);

	if (!j) {
		log_warn("SA Report (TID 0x%016" PRIx64 ") lost: out of memory", r->tid);
		return;
	}
	j->u.report = *r;
	pthread_mutex_lock(&t->mu);
	finish(t, j);
	pthread_mutex_unlock(&t->mu);
}

/* With t->mu held: the lookups at the head of the queue into the window,
 * while it has room. */
static void admit(struct sa_thread *t)
{
	while (t->todo && is_lookup(t->todo) && ats_window_busy(t->win) < t->depth)
		lookup_submit(t, queue_take(&t->todo, &t->todo_tail));
}

/* The window's work for up to ms, the finished lookups handed back. */
static void window_pass(struct sa_thread *t, int ms)
{
	struct ats_window_req *r;
	int ret = ats_window_run(t->win, ms);

	if (ret && ret != -ETIMEDOUT) {
		/* No answer will come through a failed port: the lookups
		 * fail now, not in a spin until their retries end. Said
		 * when it starts. */
		if (!t->port_err)
			log_warn("SA thread: reading the port: %s", strerror(-ret));
		ats_window_fail(t->win, ret);
	}
	t->port_err = ret && ret != -ETIMEDOUT;
	pthread_mutex_lock(&t->mu);
	ats_window_stats(t->win, &t->wst);
	/* An attempt of the window went its timeout unanswered: the SA
	 * is silent as of now (the lookup itself retries). Before the
	 * answers of this pass, which say it is not. */
	if (t->wst.resent + t->wst.timeouts != t->expired)
		sa_seen(t, NOSA_EV_SILENT, -ETIMEDOUT);
	t->expired = t->wst.resent + t->wst.timeouts;
	while ((r = ats_window_done(t->win))) {
		struct saj *j = lookup_done(r);

		job_seen(t, j);
		finish(t, j);
	}
	pthread_mutex_unlock(&t->mu);
}

/* The thread's next step, with t->mu held: a job to run alone (returned),
 * or NULL with *work set when the window has requests to wait for. A job
 * runs alone only while the window spares it a request. */
static struct saj *next_job(struct sa_thread *t, int *work)
{
	admit(t);
	*work = ats_window_busy(t->win) != 0;
	if (t->todo && !is_lookup(t->todo) && ats_window_inflight(t->win) < t->depth)
		return queue_take(&t->todo, &t->todo_tail);
	return NULL;
}

/* Until the port, the CM's channel or the wake-up has something (the
 * CM's at once when it has events left), or a CM connection falls due. */
static void idle_wait(struct sa_thread *t, int cm_more)
{
	struct pollfd p[3] = { { .fd = mport_fd(t->port), .events = POLLIN },
			       { .fd = t->wake, .events = POLLIN },
			       { .fd = t->cm ? rcm_fd(t->cm) : -1, .events = POLLIN } };
	uint64_t n;

	/* The CM's passive connections that fall due (no RTU, idle) go
	 * then, whether or not an event comes. */
	if (poll(p, 3, cm_more ? 0 : t->cm ? rcm_next_due(t->cm) : -1) < 0)
		return;
	if (p[1].revents & POLLIN)
		(void)!read(t->wake, &n, sizeof(n));
	if (p[0].revents & (POLLIN | POLLERR | POLLHUP))
		mport_serve(t->port, 0);
}

static void *thread_main(void *arg)
{
	struct sa_thread *t = arg;
	struct ats_window_req *r;
	int cm_more = 0; /* connection requests left after a batch */

	pthread_mutex_lock(&t->mu);
	for (;;) {
		struct saj *j;
		int work;

		if (t->stop)
			break;
		j = next_job(t, &work);
		if (!j && !work && !t->todo) {
			if (!t->serving) {
				pthread_cond_wait(&t->cv, &t->mu);
				continue;
			}
			/* Idle: the port, the CM's channel and the wake-up
			 * of sa_thread_submit, so that a job, a request or a
			 * connection request is taken at once. The CM's
			 * events go a batch at a time so queued jobs come
			 * between. The CM stays on this thread: its listener
			 * asks ATS who is calling, through the port this
			 * thread owns. */
			pthread_mutex_unlock(&t->mu);
			idle_wait(t, cm_more);
			cm_more = t->cm && rcm_serve(t->cm);
			pthread_mutex_lock(&t->mu);
			continue;
		}
		pthread_mutex_unlock(&t->mu);
		if (j) {
			run(t, j);
			pthread_mutex_lock(&t->mu);
			job_seen(t, j);
			finish(t, j);
			continue;
		}
		/* Lookups in flight: short slices, so that jobs submitted
		 * meanwhile join the window at once. The CM's check asks
		 * the SA too, one request at a time: only with one spare. */
		window_pass(t, cm_more ? 0 : WINDOW_SLICE_MS);
		cm_more = t->cm && ats_window_inflight(t->win) < t->depth && rcm_serve(t->cm);
		if (t->cm && !cm_more)
			rcm_expire(t->cm); /* due connections go, served or not */
		pthread_mutex_lock(&t->mu);
	}
	/* Stopping: what the window holds goes with the queues. */
	ats_window_cancel(t->win);
	while ((r = ats_window_done(t->win))) {
		ats_query_set_free(&r->set);
		saj_free(r->ctx);
		free(r);
	}
	pthread_mutex_unlock(&t->mu);
	return NULL;
}

/* Connecting by IP is librdmacm's: without the kernel's rdma_cm atsd
 * says once what is missing and runs everything else. */
static void cm_refused(int err)
{
	const char *missing = rcm_missing_text(err);

	if (missing)
		log_warn("%s; atsd runs without connections by IP (cm_listen, atsctl connect), "
			 "everything else runs", missing);
	else
		log_warn("cannot start rdma_cm (%s), so atsd runs without connections by IP "
			 "(cm_listen, atsctl connect); everything else runs", strerror(-err));
}

int sa_thread_start(struct sa_thread **out, const struct sa_thread_opts *o)
{
	struct sa_thread *t = calloc(1, sizeof(*t));
	struct sa_client_opts so = { 0 };
	char why[160];
	int ret;

	if (!t)
		return -ENOMEM;
	t->todo_tail = &t->todo;
	t->done_tail = &t->done;
	pthread_mutex_init(&t->mu, NULL);
	pthread_cond_init(&t->cv, NULL);
	t->wake = -1;
	if (pipe2(t->pipe, O_NONBLOCK | O_CLOEXEC)) {
		ret = -errno;
		goto fail;
	}
	t->wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (t->wake < 0) {
		ret = -errno;
		goto fail;
	}
	ret = ibsys_open_port(&t->port, o->ca, o->port, why, sizeof(why));
	if (ret) {
		log_err("no port to serve: %s", why);
		goto fail;
	}
	so.timeout_ms = o->timeout_ms;
	so.retries = o->retries;
	ret = sa_client_init(&t->sa, t->port, &so);
	if (ret)
		goto fail;
	t->depth = o->depth ? o->depth : ATS_WINDOW_DEPTH_DEFAULT;
	ret = ats_window_init(&t->win, t->sa, t->depth);
	if (ret)
		goto fail;
	if (o->cm && (ret = rcm_init(&t->cm, t->sa, o->cm, o->cm_timeout_ms))) {
		cm_refused(ret);
		t->cm_refused = ret;
	}
	if (t->cm) {
		t->cm_timeout_ms = o->cm_timeout_ms;
		t->serving = 1;
	}
	ret = mad_serve_init(t->port, o->liveness, o->ibping);
	if (ret) {
		log_err("cannot serve vendor classes 0x34/0x32 (is ibping -S running?): %s",
			strerror(-ret));
		goto fail;
	}
	if (o->liveness || o->ibping)
		t->serving = 1;
	ret = smq_client_init(&t->smq, t->port, 0, o->timeout_ms, 0);
	if (ret)
		log_warn("cannot ask the SM why a registration is refused (vendor class 0x36): %s",
			 strerror(-ret));
	t->have_smq = !ret;
	t->report = o->report;
	t->report_ctx = o->report_ctx;
	t->sa_state = o->sa_state;
	t->sa_state_ctx = o->sa_state_ctx;
	mport_on_expired(t->port, rpc_expired, t);
	subs_exec_init(t->port, post_report, t);
	/* The kernel (ib_mad) hands an unsolicited Report only to an agent
	 * that registered its method; the SA agent only asks. */
	ret = mport_register_serve(t->port, SA_CLASS, SA_CLASS_VERSION, SA_METHOD_REPORT);
	if (ret < 0)
		log_warn("cannot receive SA Reports (%s): cached answers last their TTL",
			 strerror(-ret));
	else
		t->serving = 1;
	ret = -pthread_create(&t->thread, NULL, thread_main, t);
	if (ret)
		goto fail;
	*out = t;
	return 0;
fail:
	rcm_fini(t->cm);
	ats_window_fini(t->win);
	if (t->sa)
		sa_client_fini(t->sa);
	mport_close(t->port);
	if (t->pipe[0] > 0) {
		close(t->pipe[0]);
		close(t->pipe[1]);
	}
	if (t->wake >= 0)
		close(t->wake);
	free(t);
	return ret;
}

void sa_thread_stop(struct sa_thread *t)
{
	struct saj *j;

	if (!t)
		return;
	pthread_mutex_lock(&t->mu);
	t->stop = 1;
	pthread_cond_signal(&t->cv);
	pthread_mutex_unlock(&t->mu);
	sa_thread_wake(t);
	pthread_join(t->thread, NULL);
	while ((j = queue_take(&t->todo, &t->todo_tail)))
		saj_free(j);
	while ((j = queue_take(&t->done, &t->done_tail)))
		saj_free(j);
	rcm_fini(t->cm);
	ats_window_fini(t->win);
	sa_client_fini(t->sa);
	mport_close(t->port);
	close(t->pipe[0]);
	close(t->pipe[1]);
	close(t->wake);
	pthread_cond_destroy(&t->cv);
	pthread_mutex_destroy(&t->mu);
	free(t);
}

int sa_thread_fd(const struct sa_thread *t)
{
	return t->pipe[0];
}

void sa_thread_submit(struct sa_thread *t, struct saj *job)
{
	pthread_mutex_lock(&t->mu);
	queue_put(&t->todo_tail, job);
	pthread_cond_signal(&t->cv);
	pthread_mutex_unlock(&t->mu);
	sa_thread_wake(t);
}

void sa_thread_complete(struct sa_thread *t)
{
	char buf[64];

	while (read(t->pipe[0], buf, sizeof(buf)) > 0)
		;
	for (;;) {
		struct saj *j;

		pthread_mutex_lock(&t->mu);
		j = queue_take(&t->done, &t->done_tail);
		pthread_mutex_unlock(&t->mu);
		if (!j)
			return;
		if (j->done)
			j->done(j, j->ctx);
		saj_free(j);
	}
}

void sa_thread_window_stats(struct sa_thread *t, struct ats_window_stats *st)
{
	pthread_mutex_lock(&t->mu);
	*st = t->wst;
	pthread_mutex_unlock(&t->mu);
}
