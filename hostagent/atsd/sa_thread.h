/* The agent's SA thread: every MAD goes through it. The port is one umad
 * fd that carries all of atsd's agents (SA client, Reports, vendor
 * classes), and the kernel queues what arrives for any of them on that
 * fd, in arrival order: one reader takes each MAD and hands it on (a
 * response to the exchange waiting for it, a request to the responder,
 * mad_serve.h), so that no response is read by the wrong waiter. SA
 * exchanges block (timeouts, retries, whole RMPP tables): on this thread
 * they never stall the main loop's clients, netlink and signals, and they
 * run one at a time in submission order, the order the SA then sees a
 * record's Sets and Deletes in. The main loop submits jobs (saj.h);
 * finished jobs come back through a pipe and saj_complete() hands each to
 * its completion callback. */
#ifndef IBATS_SA_THREAD_H
#define IBATS_SA_THREAD_H

#include "rcm.h"
#include "saj.h"

struct saj_thread;

struct saj_opts {
	const char *ca;
	int port;
	unsigned timeout_ms;
	unsigned retries;
	int liveness;               /* answer vendor class 0x34 */
	int ibping;                 /* answer ibping (class 0x32) */
	const struct rcm_conf *cm;  /* connections by IP (rcm.h), or NULL */
	unsigned cm_timeout_ms;
	saj_done_fn *report;        /* each Report the SA sends, on the main thread */
	void *report_ctx;
};

/* Opens the port and starts the thread. */
int saj_start(struct saj_thread **out, const struct saj_opts *o);
void saj_stop(struct saj_thread *t);
/* Readable when finished jobs wait. */
int saj_fd(const struct saj_thread *t);
void saj_submit(struct saj_thread *t, struct saj *job);
/* Every finished job to its completion callback, then freed. */
void saj_complete(struct saj_thread *t);

#endif
