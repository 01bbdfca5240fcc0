/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* A job for the SA thread: a common header (kind, outcome, completion)
 * and the payload of its kind. saj_new allocates only the header and
 * that payload, so a lookup job is small. */
#ifndef IBATS_SAJ_H
#define IBATS_SAJ_H

#include <stddef.h>
#include <stdint.h>

#include "core/ats.h"
#include "host/ats_query.h"
#include "host/ats_window.h"
#include "rcm.h"
#include "core/mcm.h"
#include "core/mport.h"
#include "core/notice.h"
#include "model/plan.h"
#include "core/sr.h"

/* Distinct PKeys one sync or join looks at. */
#define SAJ_PKEYS_MAX 32

enum saj_kind {
	SAJ_PORT,     /* read the port's attributes (LID, SM LID, state) */
	SAJ_SYNC,     /* make the SA hold `want` for our GID */
	SAJ_LOOKUP,   /* a lookup of its kind (host/ats_query.h), in the window */
	SAJ_IPOIB,    /* join, leave or check the IPoIB broadcast groups */
	SAJ_CONNECT,  /* CM connection to ip:port */
	SAJ_DISCONNECT,
	SAJ_CONNS,    /* list the connections by IP (rcm.h) */
	SAJ_INFORM,   /* subscribe to traps 64/65 at the SA, or unsubscribe */
	SAJ_REPORT,   /* a Report the SA sent: posted by the thread, never submitted */
	SAJ_TABLE,    /* every ATS record of a partition (atsd's prefetch) */
	SAJ_SA_STATE, /* the SA fell silent (err) or answers again (0): posted
		       * by the thread, never submitted (sa_thread.h) */
	SAJ_LID,      /* the port that holds a LID (NodeRecord by LID) */
	SAJ_KINDS
};

enum saj_ipoib_op {
	SAJ_LEAVE = 0,
	SAJ_JOIN = 1,
	SAJ_CHECK = 2, /* join where the SA lost our membership */
};

struct saj_group {
	uint16_t pkey;
	int manage;   /* in: join and leave it; else only read it */
	int joined;   /* SAJ_CHECK: the membership was gone, joined again */
	int err;
	uint16_t sa_status;
	struct mcm_record rec;
};

struct saj_sync {
	/* in */
	struct plan_want_addr *want;     /* owned by the job */
	size_t nwant;
	int full;                   /* read the SA, not just verify */
	struct plan_held_rec *owned;     /* what we registered last */
	size_t nowned;
	struct plan_held_rec *foreign;   /* in: others' records on our GID known
				     * from the last full read; out: now */
	size_t nforeign;
	int adopt_wanted;           /* no state file: records carrying a
				     * wanted address are taken as ours */
	int owned_from_state;       /* owned is the state file's list */
	char state_path[256];       /* where to keep what we own */
	struct plan_held_rec *filed;     /* in: what the state file lists; out:
				     * after this sync's writes */
	size_t nfiled;
	uint32_t lease;
	/* out */
	struct plan_held_rec *result;    /* what we own afterwards */
	size_t nresult;
	unsigned sets, deletes;     /* what it changed */
	unsigned adopted;           /* records found and kept as ours */
	struct plan_refused *refused; /* Sets the SA refused */
	size_t nrefused;
	int state_err;              /* 0 or -errno of the last state file write */
	int state_saved;            /* a write succeeded: filed is the file's */
	struct plan_held_rec *unsaved; /* Sets held back: the state file
					* could not list them (agent_state_gate) */
	size_t nunsaved;
};

struct saj_lookup {             /* SAJ_LOOKUP, SAJ_TABLE */
	struct ats_query_lookup l;  /* in; SAJ_TABLE: its pkey alone */
	struct sr_record *recs;     /* out */
	size_t nrecs;
	/* The SA thread's, while the lookup is in its window: allocated
	 * then, so that a queued job does not carry a request MAD. */
	struct ats_window_req *wr;
};

struct saj_ipoib {
	enum saj_ipoib_op op;
	struct saj_group groups[SAJ_PKEYS_MAX];
	size_t ngroups;
};

struct saj_cm {                 /* SAJ_CONNECT, SAJ_DISCONNECT, SAJ_CONNS */
	struct ats_ip ip;           /* SAJ_CONNECT: to ip:port_no */
	uint16_t port_no;
	uint16_t pkey;              /* SAJ_CONNECT: the partition to look in */
	uint64_t sid;
	struct ats_ip src;
	uint32_t conn_id;           /* SAJ_DISCONNECT */
	struct rcm_conn conns[RCM_MAX_CONNS]; /* SAJ_CONNECT: [0]; SAJ_CONNS */
	size_t nconns;
};

struct saj_inform {
	int subscribe;              /* in: 1 subscribe, 0 unsubscribe */
	uint16_t sa_lid;            /* out: the SA it was done with */
};

struct saj_report {
	uint64_t tid;
	int64_t rx_ms;              /* when it arrived (mono_ms) */
	uint16_t slid;              /* the fabric's source LID */
	int refused;                /* not from the SA we subscribed with, or
				     * no Notice: not answered, not acted on */
	int forwarded;              /* from our SA, not issued by its SM (a
				     * forwarded trap): answered, not acted on */
	struct notice notice;
};

struct saj_lid {
	uint16_t lid;               /* in: a unicast LID */
	uint64_t port_guid;         /* out: the port that holds it */
	uint16_t base_lid;          /* out: that port's base LID */
};

struct saj;
/* Called on the main thread when the job is back; the job is freed after. */
typedef void saj_done_fn(struct saj *j, void *ctx);

struct saj {
	enum saj_kind kind;
	saj_done_fn *done;
	void *ctx;                  /* the submitter's */
	struct saj *next;           /* the thread's queues */
	/* out, every kind: the port is read first */
	int err;                    /* 0 or -errno */
	uint16_t sa_status;
	struct mport_info port;
	unsigned queries;           /* SA requests it took */
	char errmsg[160];
	union {
		struct saj_sync sync;
		struct saj_lookup lookup;
		struct saj_ipoib ipoib;
		struct saj_cm cm;
		struct saj_inform inform;
		struct saj_report report;
		struct saj_lid lid;
	} u;                        /* by kind; only that member is allocated */
};

/* A zeroed job of kind with its completion; NULL without memory. */
struct saj *saj_new(enum saj_kind kind, saj_done_fn *done, void *ctx);
void saj_free(struct saj *j);
/* Bytes saj_new allocates for kind. */
size_t saj_size(enum saj_kind kind);

#endif
