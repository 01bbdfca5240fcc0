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
	size_t len;
	uint8_t buf[64 + 256]; /* umad header, MAD */
};

struct kwaits {
	struct kwait *w;
	size_t n, cap;
};

/* More sends outstanding on one agent than this go without a timeout. */
#define KWAIT_MAX 4096

typedef void (*kwait_resend_fn)(void *ctx, const uint8_t *buf, size_t len);
/* hdr: the umad header (status ETIMEDOUT), mad: the MAD header. */
typedef void (*kwait_expire_fn)(void *ctx, const void *hdr, const uint8_t *mad, size_t mad_len);

void kwait_init(struct kwaits *ws);
/* The waiting sends go without a word (mad.c cancel_mads). */
void kwait_fini(struct kwaits *ws);
/* buf (a umad write of len bytes, its TID as sent) waits for its
 * response if it has a timeout and is a request: 1, or 0 when not;
 * -errno when it cannot. */
int kwait_add(struct kwaits *ws, const void *buf, size_t len, int64_t now);
/* A response routed to this agent: 1 when it ended a wait. */
int kwait_answered(struct kwaits *ws, const uint8_t *mad, size_t len);
/* The earliest deadline, INT64_MAX when none. */
int64_t kwait_deadline(const struct kwaits *ws);
/* Resends what timed out with retries left; hands expire() the others. */
void kwait_due(struct kwaits *ws, int64_t now, kwait_resend_fn resend, kwait_expire_fn expire,
	       void *ctx);

#endif
