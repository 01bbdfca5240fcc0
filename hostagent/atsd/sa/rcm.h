/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* atsd's connections by IP through librdmacm over AF_IB, as every host
 * connects: the kernel's ib_cm owns the CM class (0x07), rdma_ucm gives
 * it to processes. Passive side: listeners on the cm_listen service IDs
 * (IBTA Vol 1 Annex A11: (port space << 16) | port); a CONNECT_REQUEST's
 * Annex A11 source IP is checked against ATS (the requester GID's primary,
 * DAT Collaborative ATS v1 sections 2.2 and 5) and accepted or rejected
 * with the reason as the REJ's private data. Active side: connect by IP
 * (ATS forward lookup, then resolve the GID, route, connect with the A11
 * header as private data: with AF_IB the kernel adds none). Each
 * connection has an RC QP (rdma_create_qp, the id's default PD); atsd
 * moves no data over it. One event channel carries every id's events; the
 * SA thread drains it (rcm_serve) and runs the active side, so the ATS
 * lookups the listener makes go through the thread that owns the port. */
#ifndef IBATS_RCM_H
#define IBATS_RCM_H

#include <stddef.h>
#include <stdint.h>

#include "core/ats.h"
#include "host/rcm_conf.h"

#define RCM_MAX_CONNS 64
/* A REJ carries 148 bytes of private data (IBTA Vol 1 12.6.7). */
#define RCM_REJ_TEXT_MAX 148

enum rcm_state {
	RCM_RESOLVING,          /* active: address and route */
	RCM_REQ_SENT,           /* active: rdma_connect done */
	RCM_REP_SENT,           /* passive: rdma_accept done, no RTU yet */
	RCM_ESTABLISHED,
	RCM_DREQ_SENT,          /* rdma_disconnect done */
};

struct rcm_conn {
	uint32_t id;
	int active;
	enum rcm_state state;
	uint64_t service_id;
	uint8_t local_gid[16], remote_gid[16];
	uint16_t local_lid, remote_lid, pkey;
	uint32_t local_qpn, remote_qpn;
	struct ats_ip local_ip, remote_ip;
	uint16_t src_port;
	int ib_form; /* the A11 identity went in its AF_IB form (a11.h) */
};

struct rcm;
struct sa_client;

/* Opens the event channel and listens on conf's service IDs at the port
 * of sa (its GID); an accepted connection without the RTU within
 * rtu_timeout_ms is dropped, an established one after conf's
 * idle_timeout. -ENOENT/-ENODEV: the kernel's rdma_cm is missing (the
 * caller says so once: rcm_missing_text). A listen that fails is logged
 * and skipped. */
int rcm_init(struct rcm **out, struct sa_client *sa, const struct rcm_conf *conf,
	     unsigned rtu_timeout_ms);
void rcm_fini(struct rcm *r);
/* The text for rcm_init's error err, naming what is missing. */
const char *rcm_missing_text(int err);
/* The event channel's fd: readable when events wait. */
int rcm_fd(const struct rcm *r);
/* Handles the events that wait, without blocking, a batch at most, and
 * drops the passive connections that are due (no RTU in time, or idle
 * for cm_idle_timeout): 1 when more may wait (the caller serves again
 * without sleeping), else 0. */
int rcm_serve(struct rcm *r);
/* Drops the passive connections that are due (rcm_serve does too): for a
 * caller that cannot serve events now (its lookups fill the window). */
void rcm_expire(struct rcm *r);
/* Milliseconds until rcm_serve has a connection to drop (0: now), -1
 * when none is due: the caller's longest sleep. */
int rcm_next_due(const struct rcm *r);
int rcm_disconnect(struct rcm *r, uint32_t id, unsigned timeout_ms,
		   char *err, size_t errlen);
size_t rcm_list(const struct rcm *r, struct rcm_conn *v, size_t max);

const char *rcm_state_name(enum rcm_state s);

#endif
