/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* simhostd's ib_umad files (simhost.h SIMHOST_UMAD, SIMHOST_AGENTS): a
 * process's write() of a MAD (ib_umad_write: the TID stamped, a wait
 * for the answer, RMPP by the kernel for the agents that asked), its
 * agent ioctls, and what goes back up to it (deliver). The MADs go to
 * ibsim through the node's simclient. Routing of incoming MADs stays in
 * kmad.c; this module only moves bytes between files and the wire. */
#ifndef IBATS_SIMHOST_KUMAD_H
#define IBATS_SIMHOST_KUMAD_H

#include <stddef.h>
#include <stdint.h>

#include <infiniband/umad.h>

#include "kconn.h"
#include "simhost/kernel/kmad.h"
#include "simclient.h"

#define KUMAD_HDR ((size_t)sizeof(struct ib_user_mad))

struct kumad {
	struct kmad *k;
	struct kconn_set *cs;
	struct simclient *sc;
	const char *node; /* for the log */
	int verbose;
	int no_rmpp; /* `rmpp off` (kadmin.h) */
	uint64_t mads_out, resp_dropped;
	uint64_t dup_refused; /* writes is_duplicate refused (EINVAL) */
	/* SA answers the node's processes sent, whole (before RMPP
	 * segmentation): against the SA requests the node received, what
	 * an SM node holds unanswered (storm.sh). */
	uint64_t sa_answers_out;
};

void kumad_init(struct kumad *m, struct kmad *k, struct kconn_set *cs, struct simclient *sc,
		const char *node, int verbose);
void kumad_fini(struct kumad *m);
/* One MAD to ibsim from QP sqp to u's address (counted in mads_out). */
void kumad_wire(struct kumad *m, const struct ib_user_mad *u, uint32_t sqp, const uint8_t *mad,
		size_t len);
/* A MAD (or a whole RMPP message) up to agent a's file, as read() gives
 * it: u's address, a's id, the length. No file: dropped. */
void kumad_deliver(struct kumad *m, const struct kmad_agent *a, const struct ib_user_mad *u,
		   const uint8_t *mad, size_t len);
/* An incoming MAD of agent a's file that kmad accepted: reassembled by
 * the file's RMPP when it is an active RMPP segment of a kernel-RMPP
 * agent, else handed up when it completes a send (or is unsolicited). */
void kumad_recv(struct kumad *m, struct kmad_agent *a, const struct ib_user_mad *u,
		uint8_t *mad, size_t len, int64_t now);
/* The RMPP timers of every file that are due at now. */
void kumad_timers(struct kumad *m, int64_t now);
/* The write() of a MAD on umad file c (one message of its SIMHOST_UMAD
 * connection, or a SIMHOST_WRITE): 0 when the kernel took it, else
 * -EINVAL as ib_umad_write refuses it (no such agent, too short, or
 * is_duplicate). A refused message of the SIMHOST_UMAD connection is
 * lost: its write() has returned. */
int kumad_write(struct kumad *m, struct kconn *c, uint8_t *buf, size_t len, int64_t now);
/* One packet of a SIMHOST_AGENTS connection: the ioctl or SIMHOST_WRITE,
 * answered. The caller has taken in what the file's SIMHOST_UMAD
 * connection holds before it (the process wrote it first). */
void kumad_agents(struct kumad *m, struct kconn *c, const uint8_t *buf, size_t len, int64_t now);

#endif
