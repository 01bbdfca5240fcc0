/* The agent's SA thread: every MAD goes through it, because under ibsim
 * umad2sim emulates poll() for one umad fd only, so the umad fd cannot
 * share the main event loop. The main loop submits jobs; finished jobs
 * come back through a pipe. */
#ifndef IBATS_SA_THREAD_H
#define IBATS_SA_THREAD_H

#include <stddef.h>
#include <stdint.h>

#include "ats.h"
#include "cm_ep.h"
#include "mcm.h"
#include "mport.h"
#include "plan.h"
#include "sa_client.h"

/* Distinct PKeys one sync looks at. */
#define AGENT_PKEYS_MAX 32

enum saj_kind {
	SAJ_PORT,     /* read the port's attributes (LID, SM LID, state) */
	SAJ_SYNC,     /* make the SA hold `want` for our GID */
	SAJ_FORWARD,  /* IP -> records */
	SAJ_REVERSE,  /* GID -> records */
	SAJ_PRIMARY,  /* GID -> primary record */
	SAJ_IPOIB,    /* join, leave or check the IPoIB broadcast groups */
	SAJ_CONNECT,  /* CM connection to ip:port */
	SAJ_DISCONNECT,
	SAJ_CONNS,    /* list the CM endpoint's connections */
};

enum saj_ipoib_op {
	SAJ_LEAVE = 0,
	SAJ_JOIN = 1,
	SAJ_CHECK = 2, /* join where the SA lost our membership */
};

struct saj_group {
	uint16_t pkey;
	int joined;   /* SAJ_CHECK: the membership was gone, joined again */
	int err;
	uint16_t sa_status;
	struct mcm_record rec;
};

struct saj {
	enum saj_kind kind;
	/* in */
	struct want_addr *want;     /* SAJ_SYNC, owned by the job */
	size_t nwant;
	int full;                   /* SAJ_SYNC: read the SA, not just verify */
	struct held_rec *owned;     /* SAJ_SYNC: what we registered last */
	size_t nowned;
	struct held_rec *foreign;   /* SAJ_SYNC: in: others' records on our GID
				     * known from the last full read; out: now */
	size_t nforeign;
	int adopt_wanted;           /* SAJ_SYNC: no state file: records carrying a
				     * wanted address are taken as ours */
	int owned_from_state;       /* SAJ_SYNC: owned is the state file's list */
	char state_path[256];       /* SAJ_SYNC: where to keep what we own */
	uint32_t lease;
	struct ats_ip ip;
	uint8_t gid[16];
	uint16_t pkey;
	/* out */
	int err;                    /* 0 or -errno */
	uint16_t sa_status;
	struct mport_info port;
	struct sr_record *recs;     /* lookups; SAJ_SYNC: nothing */
	size_t nrecs;
	struct held_rec *result;    /* SAJ_SYNC: what we own afterwards */
	size_t nresult;
	unsigned sets, deletes;     /* SAJ_SYNC: what it changed */
	unsigned adopted;           /* SAJ_SYNC: records found and kept as ours */
	struct plan_refused *refused; /* SAJ_SYNC: Sets the SA refused */
	size_t nrefused;
	int state_err;              /* SAJ_SYNC: 0 or -errno of the state file write */
	int state_saved;
	unsigned queries;           /* SA requests it took */
	char errmsg[160];
	enum saj_ipoib_op join;     /* SAJ_IPOIB */
	struct saj_group groups[AGENT_PKEYS_MAX];
	size_t ngroups;
	uint16_t port_no;           /* SAJ_CONNECT */
	uint64_t sid;
	struct ats_ip src;
	uint32_t conn_id;           /* SAJ_DISCONNECT */
	struct cmep_conn conns[CMEP_MAX_CONNS]; /* SAJ_CONNECT: [0]; SAJ_CONNS */
	size_t nconns;
	struct saj *next;
	void *ctx;                  /* the submitter's */
};

struct saj_thread;

struct saj_opts {
	const char *ca;
	int port;
	unsigned timeout_ms;
	unsigned retries;
	int ibsim;                  /* become the node's SM client (ibsim only) */
	int liveness;               /* answer vendor class 0x34 */
	int ibping;                 /* answer ibping (class 0x32) */
	const struct cmep_conf *cm; /* CM endpoint, or NULL */
	unsigned cm_timeout_ms;
};

/* Opens the port and starts the thread. */
int saj_start(struct saj_thread **out, const struct saj_opts *o);
void saj_stop(struct saj_thread *t);
/* Readable when finished jobs wait. */
int saj_fd(const struct saj_thread *t);
void saj_submit(struct saj_thread *t, struct saj *job);
/* Next finished job or NULL. */
struct saj *saj_done(struct saj_thread *t);
void saj_free(struct saj *job);
/* Jobs submitted and not yet taken back. */
unsigned saj_pending(const struct saj_thread *t);

#endif
