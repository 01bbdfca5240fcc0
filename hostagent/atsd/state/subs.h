/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Report subscriptions, the main thread's half: when to subscribe to
 * traps 64 and 65 at the SA (start, SM change, ClientReregister, a
 * reload, each verify period in case the SA restarted) and to drop the
 * subscription (exit), and what a Report does: trap 65 (GID out of
 * service) drops the cached answers holding that GID, trap 64 (GID in
 * service) the negative ones. The SA thread's half is subs_exec.h. */
#ifndef IBATS_SUBS_H
#define IBATS_SUBS_H

#include <stddef.h>
#include <stdint.h>

#include "sa/sa_thread.h"

struct subs_hooks {
	size_t (*gone)(const uint8_t gid[16]); /* trap 65: entries dropped */
	size_t (*back)(const uint8_t gid[16]); /* trap 64: entries dropped */
	/* Subscribed again after a failure: reports may have been missed. */
	void (*lapsed)(void);
};

/* Before the SA thread starts: its Reports go to subs_report. */
void subs_init(const struct subs_hooks *hooks);
/* The thread to submit subscriptions to. */
void subs_start(struct sa_thread *saj);
/* Subscribe (again); why goes to the debug log. */
void subs_request(const char *why);
/* Whether a subscription is in place. */
int subs_active(void);
/* Shutdown: unsubscribe, if subscribed. The job is queued before the
 * deleting sync, so it is done before atsd exits. */
void subs_shutdown(void);
/* A subscribe or unsubscribe is on the SA thread: a shutdown that sends
 * no deleting sync after it waits for this to clear. */
int subs_pending(void);
/* sa_thread_opts.report: one Report from the SA thread. */
void subs_report(struct saj *j, void *ctx);

struct subs_stats {
	uint64_t subscriptions;     /* successful subscribes */
	uint64_t failures;          /* failed subscribes or unsubscribes */
	uint64_t reports;           /* Reports acted on */
	uint64_t duplicates;        /* the same Report again (a lost ReportResp) */
	uint64_t refused;           /* not from our SA, or no Notice */
	uint64_t invalidations;     /* cache entries dropped by reports */
	int active;
};
void subs_stats(struct subs_stats *st);

#endif
