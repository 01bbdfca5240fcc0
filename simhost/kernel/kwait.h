/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The simulated kernel's sends that wait for a response, one list per
 * agent (Linux drivers/infiniband/core/mad.c: timeout_ms and retries of
 * struct ib_user_mad, the wait list, timeout_sends; user_mad.c
 * send_handler). Pure: no I/O, no clock of its own. */
#ifndef IBATS_KWAIT_H
#define IBATS_KWAIT_H

#include <stddef.h>
#include <stdint.h>

/* A send waiting for its response. */
struct kwait {
	int64_t deadline;
	uint32_t tid_lo, timeout_ms, retries;
	uint8_t mgmt_class;
	uint8_t grh, path_bits; /* the address it went with (umad header) */
	size_t len;
	uint8_t buf[64 + 256]; /* umad header, MAD */
};

struct kwait_set {
	struct kwait *w;
	size_t n, cap;
};

/* More sends outstanding on one agent than this go without a timeout. */
#define KWAIT_MAX 4096

typedef void (*kwait_resend_fn)(void *ctx, const uint8_t *buf, size_t len);
/* hdr: the umad header (status ETIMEDOUT), mad: the MAD header. */
typedef void (*kwait_expire_fn)(void *ctx, const void *hdr, const uint8_t *mad, size_t mad_len);

void kwait_init(struct kwait_set *ws);
/* The waiting sends go without a word (mad.c cancel_mads). */
void kwait_fini(struct kwait_set *ws);
/* buf (a umad write of len bytes, its TID as sent) waits for its
 * response if it has a timeout and is a request: 1, or 0 when not;
 * -errno when it cannot. */
int kwait_add(struct kwait_set *ws, const void *buf, size_t len, int64_t now);
/* How a response came in, as the work completion tells the kernel: with
 * a GRH or not, the path bits of the DLID it reached (wc->dlid_path_bits),
 * and the port's LMC. */
struct kwait_src {
	uint8_t grh, path_bits, lmc;
};

/* A response routed to this agent (src NULL: no GRH, to the base LID):
 * 1 when it ended a wait. It ends the wait of a request with its TID
 * (low 32 bits) and class (mad.c ib_find_send_mad, rcv_has_same_class)
 * that went the same way (rcv_has_same_gid for a request/response: both
 * with a GRH or both without, and without one the same path bits under
 * the port's LMC). Not its source LID: the kernel does not compare the
 * LID a response comes from with the one the request went to. */
int kwait_answered(struct kwait_set *ws, const uint8_t *mad, size_t len,
		   const struct kwait_src *src);
/* A request with this TID (low 32 bits) and class waits: a write of
 * another is refused (user_mad.c is_duplicate: it stays on the file's
 * send list until its response or its timeout). */
int kwait_pending(const struct kwait_set *ws, uint32_t tid_lo, uint8_t mgmt_class);
/* The request with this TID (low 32 bits) and class waits timeout_ms
 * from now on: its last RMPP segment was ACKed (mad_rmpp.c
 * process_rmpp_ack, ib_reset_mad_timeout). */
void kwait_restart(struct kwait_set *ws, uint32_t tid_lo, uint8_t mgmt_class, int64_t now);
/* The earliest deadline, INT64_MAX when none. */
int64_t kwait_deadline(const struct kwait_set *ws);
/* Resends what timed out with retries left; hands expire() the others. */
void kwait_due(struct kwait_set *ws, int64_t now, kwait_resend_fn resend, kwait_expire_fn expire,
	       void *ctx);

#endif
