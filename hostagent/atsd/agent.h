/* atsd's state, shared by the main loop (atsd.c) and the local resolver
 * (resolver.c). Everything here belongs to the main thread. */
#ifndef IBATS_AGENT_H
#define IBATS_AGENT_H

#include <stdint.h>
#include <sys/types.h>

#include "agent_conf.h"
#include "cache.h"
#include "port_events.h"
#include "atsd_client.h"
#include "sa_thread.h"
#include "sources.h"

#define AGENT_MAX_CLIENTS 64
#define AGENT_CACHE_MAX 1024

struct client {
	int fd;                 /* -1: free slot */
	unsigned gen;           /* tells a reused slot from the old client */
	char buf[ATSD_LINE_MAX];
	size_t len;
	uid_t uid;              /* SO_PEERCRED at connect time */
	pid_t pid;
	int privileged;         /* root or a member of control_group */
	int busy;               /* an answer is outstanding: later lines wait */
	int eof;                /* the client sent all it will send */
	int64_t last_active;    /* ms: for client_idle_timeout */
};

struct waiter {
	int slot;
	unsigned gen;
};

/* A lookup the SA thread is doing; clients asking the same wait on it. */
struct pending {
	char key[RC_KEY_MAX];
	struct waiter *w;
	size_t nw;
	struct pending *next;
};


struct agent_stats {
	uint64_t cache_hits, cache_misses, negative_hits, coalesced;
	uint64_t sa_lookups, sa_queries, syncs, sync_failures, sets, deletes;
	uint64_t sm_changes;
};

struct agent {
	struct agent_conf conf;
	const char *conf_path;
	struct saj_thread *saj;
	struct mport_info port;
	int port_known;
	struct sources src;
	struct pev *pev;        /* NULL without a verbs device (ibsim) */
	struct held_rec *owned;
	size_t nowned;
	struct held_rec *foreign;  /* others' records on our GID (last full read) */
	size_t nforeign;
	struct plan_refused *refused; /* addresses the SA refused */
	size_t nrefused;
	int owned_from_state;   /* owned is the state file's list, unconfirmed */
	int adopt_wanted;       /* no usable state file: adopt wanted addresses */
	int state_err;          /* last state file write error, logged once */

	int sync_running, sync_again, sync_full_next;
	int want_join;          /* (re)join the IPoIB broadcast groups */
	int joined;             /* a join went out: leave at shutdown */
	struct saj_group groups[AGENT_PKEYS_MAX];
	size_t ngroups;
	unsigned failures;      /* consecutive failed syncs */
	int64_t next_verify, next_retry, next_port_poll;
	int port_poll_running;
	int terminating, done;
	int delete_sent;        /* shutdown: the deleting sync went out */

	int listen_fd;
	struct client clients[AGENT_MAX_CLIENTS];
	unsigned next_gen;
	struct pending *pending;
	struct rcache *cache;
	struct agent_stats st;
};

/* Ask for a sync now (full: read the SA, not just verify ours). */
void agent_request_sync(struct agent *a, int full);

/* Join (1) or leave (0) the IPoIB broadcast groups of the interfaces. */
void agent_ipoib(struct agent *a, enum saj_ipoib_op join);

/* The SA's verdict on an address for status: NULL when not refused. */
const struct plan_refused *agent_refused(const struct agent *a, const struct ats_ip *ip,
					 uint16_t pkey);

/* own_records.c */
/* Read the state file into owned (or note that there is none). */
void own_state_start(struct agent *a);
/* After a sync: its state file write, its refusals. */
void own_state_done(struct agent *a, struct saj *j);
void own_refused_update(struct agent *a, struct saj *j);

/* resolver.c */
void resolver_reply(struct agent *a, int slot, const char *text);
void resolver_reply_err(struct agent *a, int slot, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* PKey text (default 0xFFFF when s is NULL): 0 or -EINVAL. */
int resolver_parse_pkey(const char *s, uint16_t *pkey);

/* ctl_records.c: hold/release OWNER IP [PKEY], status. */
void ctl_cmd_hold(struct agent *a, int slot, char **argv, int argc);
void ctl_cmd_status(struct agent *a, int slot, char **argv, int argc);

int resolver_open(struct agent *a);
void resolver_close(struct agent *a);
void resolver_accept(struct agent *a);
void resolver_read(struct agent *a, int slot);
/* A lookup job came back: answer everyone waiting, fill the cache. */
void resolver_job_done(struct agent *a, struct saj *j);
void resolver_cache_clear(struct agent *a);
/* A CM job (connect, disconnect, list) came back: answer its client. */
void resolver_cm_done(struct agent *a, struct saj *j);
/* Close clients idle longer than client_idle_timeout; the next deadline. */
int64_t resolver_timers(struct agent *a, int64_t now, int expire);

#endif
