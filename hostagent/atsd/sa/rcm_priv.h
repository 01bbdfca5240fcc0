/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* rcm's table and the helpers rcm.c (the table, the listener, the event
 * loop) gives rcm_connect.c (connecting by IP), which sits above it. */
#ifndef IBATS_RCM_PRIV_H
#define IBATS_RCM_PRIV_H

#include <stdint.h>

#include <infiniband/ib.h>
#include <rdma/rdma_cma.h>

#include "rcm.h"
#include "rcm_peer.h"

struct rcm_slot {
	struct rcm_conn c;
	struct rdma_cm_id *id;
	int failed;                 /* active: the step's error, text in rcm.err */
	int ib_form;                /* active: the REQ carries the AF_IB form */
	int kernel_rej;             /* active: REJ 28 without private data */
	uint64_t peer_guid;         /* passive: the verified requester port */
	int64_t due;                /* passive: the RTU due by then (REP sent), or
				     * closed then (established: idle) */
};

_Static_assert(RCM_PEER_MAX_PASSIVE < RCM_MAX_CONNS, "slots kept for atsd's own connects");

struct rcm {
	struct sa_client *sa;
	struct rcm_conf conf;
	struct rdma_event_channel *ch;
	struct rdma_cm_id *listeners[RCM_CONF_MAX_LISTEN];
	size_t nlisteners;
	struct rcm_slot conns[RCM_MAX_CONNS];
	size_t nconns;
	uint32_t next_id;
	unsigned rtu_timeout_ms;
	int64_t idle_ms;            /* conf.idle_timeout */
	unsigned timeout_ms;        /* of the connect under way */
	char *err;                  /* its error text */
	size_t errlen;
	/* refusal lines: a peer's REQ flood must not flood the log */
	int64_t rl_start;
	unsigned rl_lines, rl_quiet;
};

void rcm_sib_fill(struct sockaddr_ib *s, const uint8_t *gid, uint16_t pkey, uint64_t sid,
		  uint64_t mask);
/* A slot for id in the table, NULL when it is full. */
struct rcm_slot *rcm_slot_new(struct rcm *r, struct rdma_cm_id *id);
struct rcm_slot *rcm_slot_find(struct rcm *r, uint32_t cid);
/* The slot out of the table, its QP and id destroyed. */
void rcm_slot_del(struct rcm *r, struct rcm_slot *s);
/* The path's ends as rdma_cm holds them. */
void rcm_path_fill(struct rcm_conn *c, const struct rdma_cm_id *id);
struct ibv_qp_init_attr rcm_qp_attr(void);
struct rdma_conn_param rcm_conn_param(const void *pd, uint8_t len);
/* Serves events until done(r, cid) or timeout_ms pass: -ETIMEDOUT. */
int rcm_serve_until(struct rcm *r, unsigned timeout_ms, int (*done)(struct rcm *, uint32_t),
		    uint32_t cid);

#endif
