/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The simulated kernel's MAD layer for one port (Linux
 * drivers/infiniband/core/mad.c and user_mad.c): the agents processes
 * register through their umad files, which agent a received MAD goes
 * to, the sends that wait for a response, and the answer the kernel
 * gives a Get or Set nobody registered for. Pure: no I/O, no clock of
 * its own; simhostd moves the bytes.
 *
 * A "file" is one open umad fd (simhostd's token for its connection);
 * file KMAD_KERNEL is the kernel's own agents (the IPoIB joins, a loaded
 * ib_cm's class). Agent ids count per file, as ib_umad's (0..31). */
#ifndef IBATS_KMAD_H
#define IBATS_KMAD_H

#include <stddef.h>
#include <stdint.h>

#include "kwait.h"

#define KMAD_KERNEL 0u
#define KMAD_FILE_AGENTS 32 /* user_mad.c IB_UMAD_MAX_AGENTS */
#define KMAD_MAX_AGENTS 1024
/* <rdma/ib_user_mad.h> IB_USER_MAD_USER_RMPP: the process runs RMPP. */
#define KMAD_USER_RMPP 0x1u

/* A registration as IB_USER_MAD_REGISTER_AGENT(2) gives it. */
struct kmad_reg {
	uint32_t qpn; /* 0: SMI, 1: GSI */
	uint8_t mgmt_class, class_version, rmpp_version;
	uint32_t oui; /* 24 bits, vendor range 2 only */
	uint64_t method_mask[2];
	uint32_t flags;
};

struct kmad_agent {
	int used;
	uint32_t file, id;
	/* Names the agent in the upper 32 bits of its requests' TIDs
	 * (user_mad.c ib_umad_write). ibsim writes its client id over bits
	 * 48..63 of every request (sim_mad.c update_trid), so only 16 bits
	 * survive the trip: hi_tid stays below 0x10000 (mad.c allocates 24). */
	uint32_t hi_tid;
	struct kmad_reg reg;
	struct kwait_set waits; /* its sends waiting for a response */
};

struct kmad {
	struct kmad_agent a[KMAD_MAX_AGENTS];
	uint32_t last_hi_tid;
	uint8_t lmc; /* the port's LMC (PortInfo), for kmad_complete */
};

enum kmad_verdict {
	KMAD_DELIVER,   /* to *agent */
	KMAD_UNMATCHED, /* a Get or Set for no agent: kmad_unmatched() answers it */
	KMAD_DROP,      /* invalid, or nobody's */
};

void kmad_init(struct kmad *k);
void kmad_fini(struct kmad *k);

/* ib_register_mad_agent's checks, then method_in_use(): a registration
 * overlapping another agent's (class version, class, method; OUI in
 * vendor range 2) is -EINVAL, a file with 32 agents -ENOMEM. */
int kmad_register(struct kmad *k, uint32_t file, const struct kmad_reg *r, uint32_t *id);
/* -EINVAL when the file has no such agent. Its waiting sends go without
 * a word (mad.c cancel_mads: user_mad.c reports only timeouts). */
int kmad_unregister(struct kmad *k, uint32_t file, uint32_t id);
/* Every agent of a closed file. */
void kmad_drop_file(struct kmad *k, uint32_t file);
struct kmad_agent *kmad_agent(struct kmad *k, uint32_t file, uint32_t id);
/* Registered with an RMPP version and not IB_USER_MAD_USER_RMPP: the
 * kernel segments and reassembles its MADs (mad.c
 * ib_mad_kernel_rmpp_agent). */
int kmad_kernel_rmpp(const struct kmad_agent *a);

/* mad.c ib_response_mad: the response bit, TrapRepress, or a BM MAD
 * with the response bit of its AttributeModifier. */
int kmad_is_response(const uint8_t *mad);
/* An RMPP class (mad.h ib_is_mad_class_rmpp) with RMPPFlags.Active. */
int kmad_rmpp_active(const uint8_t *mad, size_t len);

/* A request sent by a: the upper 32 bits of its TID become a's hi_tid
 * (ib_umad_write). Responses keep the TID of their request. */
void kmad_stamp_tid(const struct kmad_agent *a, uint8_t *mad);
/* A send (umad header then MAD, TID stamped) with a timeout waits for
 * its response, a kernel-RMPP message too (no retries: see kmad.c): 1,
 * 0 when it does not wait, -errno. */
int kmad_send_wait(struct kmad_agent *a, const uint8_t *buf, size_t len, int64_t now);
/* The last segment of a's RMPP request with mad's TID and class was
 * ACKed at now: its response's wait starts (kwait_restart). */
void kmad_rmpp_sent(struct kmad_agent *a, const uint8_t *mad, int64_t now);
/* user_mad.c ib_umad_write's is_duplicate for a request of agent a (buf:
 * the umad header then the MAD, TID stamped): 1 when a request with its
 * TID and class still waits for its response or timeout, so the write
 * fails with EINVAL. A response's duplicates (the same TID, class and
 * destination still being sent: an RMPP transfer) are the caller's
 * (krmpp_sending). An active RMPP MAD of an agent doing its own RMPP is
 * never one. */
int kmad_duplicate(const struct kmad_agent *a, const uint8_t *buf, size_t len);

/* Where a MAD received on QP qpn goes (mad.c ib_mad_recv_done,
 * validate_mad, find_mad_agent): a response to the agent whose hi_tid
 * its TID carries (the TID's upper 32 bits set back to that hi_tid), a
 * request to the agent registered for its class version, class and
 * method (and OUI). */
enum kmad_verdict kmad_route(struct kmad *k, uint8_t *mad, size_t len, uint32_t qpn,
			     struct kmad_agent **agent);
/* A whole MAD (or reassembled message) for agent a: 1 to hand to it, 0
 * to drop. A response ends the send waiting for it (kwait_answered:
 * TID, class, and the way it came, src), and one that matches no
 * waiting send is dropped (mad.c ib_mad_complete_recv,
 * ib_find_send_mad), except active RMPP for an agent doing its own. */
int kmad_complete(struct kmad_agent *a, const uint8_t *mad, size_t len,
		  const struct kwait_src *src);
/* The GetResp with status 0x000C (unsupported method/attribute, with
 * the D bit for a directed-route SMP) mad.c generate_unmatched_resp
 * makes of an unmatched Get or Set, into out; 256. */
size_t kmad_unmatched(const uint8_t *req, size_t len, uint8_t out[256]);

/* Timed sends. */
typedef void (*kmad_resend_fn)(void *ctx, struct kmad_agent *a, const uint8_t *buf, size_t len);
/* hdr: the umad header (status ETIMEDOUT), then the MAD header. */
typedef void (*kmad_expire_fn)(void *ctx, struct kmad_agent *a, const void *hdr,
			       const uint8_t *mad, size_t len);
int64_t kmad_deadline(const struct kmad *k);
void kmad_due(struct kmad *k, int64_t now, kmad_resend_fn resend, kmad_expire_fn expire,
	      void *ctx);

#endif
