/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The agent's SA thread: every MAD goes through it. The port is one umad
 * fd that carries all of atsd's agents (SA client, Reports, vendor
 * classes), and the kernel queues what arrives for any of them on that
 * fd, in arrival order: one reader takes each MAD and hands it on (a
 * response to the exchange waiting for it, a request to the responder,
 * mad_serve.h), so that no response is read by the wrong waiter. SA
 * exchanges block (timeouts, retries, whole RMPP tables): on this thread
 * they never stall the main loop's clients, netlink and signals. Lookups
 * share a window of sa_depth requests in flight (host/ats_window.h) and
 * finish as their answers come; every other job runs alone, in
 * submission order (the order the SA then sees a record's Sets and
 * Deletes in), when the window has a request to spare, so that the
 * port never has more than sa_depth requests at the SA. The main loop
 * submits jobs (saj.h);
 * finished jobs come back through a pipe and sa_thread_complete() hands each to
 * its completion callback. */
#ifndef IBATS_SA_THREAD_H
#define IBATS_SA_THREAD_H

#include "rcm.h"
#include "saj.h"

struct sa_thread;

struct sa_thread_opts {
	const char *ca;
	int port;
	unsigned timeout_ms;
	unsigned retries;
	unsigned depth;             /* SA lookups in flight at once */
	int liveness;               /* answer vendor class 0x34 */
	int ibping;                 /* answer ibping (class 0x32) */
	const struct rcm_conf *cm;  /* connections by IP (rcm.h), or NULL */
	unsigned cm_timeout_ms;
	saj_done_fn *report;        /* each Report the SA sends, on the main thread */
	void *report_ctx;
	/* What is known of the SA, on the main thread when it changes: a
	 * SAJ_SA_STATE job, err the silence's (-ETIMEDOUT: a request of
	 * the SA class went one timeout without its answer; -EOPNOTSUPP:
	 * the SM's port has no SA agent; -ENETDOWN: the port is down or
	 * has no SM) or 0 (the SA answered again). Before the job that
	 * showed it; never for a silence it already told. */
	saj_done_fn *sa_state;
	void *sa_state_ctx;
};

/* Opens the port and starts the thread. */
int sa_thread_start(struct sa_thread **out, const struct sa_thread_opts *o);
void sa_thread_stop(struct sa_thread *t);
/* Readable when finished jobs wait. */
int sa_thread_fd(const struct sa_thread *t);
void sa_thread_submit(struct sa_thread *t, struct saj *job);
/* Every finished job to its completion callback, then freed. */
void sa_thread_complete(struct sa_thread *t);
/* The lookup window's counters, as of the thread's last pass. */
void sa_thread_window_stats(struct sa_thread *t, struct ats_window_stats *st);

#endif
