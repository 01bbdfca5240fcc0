/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The simulated kernel's RMPP for one umad file (Linux
 * drivers/infiniband/core/mad_rmpp.c; IBTA Vol 1 13.6): sends of
 * kernel-RMPP agents cut into DATA segments, received segments ACKed and
 * put back together into the one message the reader gets. The protocol
 * is rmpp.c and rmpp_table.c; this is the plumbing. Pure: the caller passes now and moves
 * the MADs (out) and whole messages (msg). */
#ifndef IBATS_KRMPP_H
#define IBATS_KRMPP_H

#include <stddef.h>
#include <stdint.h>

#include <infiniband/umad.h>

#include "rmpp.h"
#include "rmpp_table.h"

/* Transfers under way per file; past it a send fails with ENOMEM and a
 * new incoming message is dropped (its sender times out and retries). */
#define KRMPP_CAP 256

struct krmpp {
	struct rmpp_table tab;
	/* The umad header of table slot i: agent and peer address its
	 * segments or answers go out with, and its whole message comes in
	 * with (the address fields mean the peer both ways). */
	struct ib_user_mad hdr[KRMPP_CAP];
	struct rmpp_cfg cfg;
};

typedef void (*krmpp_out_fn)(void *ctx, const struct ib_user_mad *hdr,
			     const uint8_t mad[MAD_SIZE]);
typedef void (*krmpp_msg_fn)(void *ctx, const struct ib_user_mad *hdr, const uint8_t *msg,
			     size_t len);

int krmpp_init(struct krmpp *r);
void krmpp_fini(struct krmpp *r);

/* Whether a send of this class goes by RMPP at all: a class whose
 * segment header rmpp.c knows (SA, vendor range 2). */
int krmpp_class(uint8_t mgmt_class);
/* A send's ACK wait and retries from its umad header, as mad_rmpp.c
 * takes them (send_next_seg, ib_post_send_mad), into cfg. */
void krmpp_send_cfg(struct rmpp_cfg *cfg, const struct ib_user_mad *hdr);
/* A transfer of the TID and class of mad to hdr's destination is under
 * way (user_mad.c is_duplicate of a response). */
int krmpp_sending(const struct krmpp *r, const struct ib_user_mad *hdr, const uint8_t *mad);
/* A send (hdr: the process's umad header; mad: the whole message, TID
 * stamped) as DATA segments, with the header's timeout and retries
 * (krmpp_send_cfg); the first window goes out now. -errno. */
int krmpp_send(struct krmpp *r, const struct ib_user_mad *hdr, const uint8_t *mad, size_t len,
	       int64_t now, krmpp_out_fn out, void *ctx);
/* An active RMPP MAD received for this file's agent (hdr: the umad
 * header it would be read with). ACKs, resends and ABORTs go out; a
 * message made whole goes to msg. KRMPP_SENT when it was the ACK that
 * ended a send (its response's wait starts now: mad_rmpp.c
 * process_rmpp_ack, ib_reset_mad_timeout), else 0. */
#define KRMPP_SENT 1
int krmpp_recv(struct krmpp *r, const struct ib_user_mad *hdr, const uint8_t *mad, size_t len,
		int64_t now, krmpp_out_fn out, krmpp_msg_fn msg, void *ctx);
/* What fell due: resends, ACKs, ABORTs on timeout; ended transfers go. */
void krmpp_timers(struct krmpp *r, int64_t now, krmpp_out_fn out, void *ctx);
int64_t krmpp_deadline(const struct krmpp *r);
/* The transfers of one agent end (it was unregistered): nothing more
 * is sent for them (mad_rmpp.c ib_cancel_rmpp_recvs). */
void krmpp_drop_agent(struct krmpp *r, uint32_t agent_id);

#endif
