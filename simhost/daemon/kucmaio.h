/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* simhostd's side of the node's rdma_cm device (simhost.h SIMHOST_UCMA,
 * SIMHOST_UCMA_CMD; RDMACM.md 6): a SIMHOST_UCMA connection is a ucma
 * file of kucma, its command connections carry one write() each, a
 * blocking GET_EVENT on an empty file is parked until the file has an
 * event (or goes), and each time a file's event list becomes non-empty
 * a doorbell goes down its connection, the fd's readability. */
#ifndef IBATS_SIMHOST_KUCMAIO_H
#define IBATS_SIMHOST_KUCMAIO_H

#include <stddef.h>
#include <stdint.h>

#include "kconn.h"
#include "simhost/kernel/ksysfs.h"
#include "simhost/kernel/kucma.h"

/* The longest write() taken: a command (at most 8 + 296 bytes, ACCEPT)
 * and SET_OPTION's value. */
#define KUCMAIO_REQ_MAX 1024
/* GET_EVENTs blocked at once: one per thread waiting on a channel. */
#define KUCMAIO_PARKS 64

struct kucmaio_park {
	struct kconn *c; /* NULL: the slot is free */
	uint64_t seq;    /* answered in the order they came */
	uint32_t flags;
	size_t len;
	uint8_t buf[KUCMAIO_REQ_MAX];
};

/* The kernel SA agent's send of mad (kcma's TID low half; the agent
 * stamps the upper), waiting timeout_ms for its answer. */
typedef void (*kucmaio_send_fn)(void *ctx, const uint8_t *mad, uint32_t timeout_ms);
/* ib_cm's send of a CM MAD to the peer's GSI (QP1). */
typedef void (*kucmaio_cm_send_fn)(void *ctx, const struct kcm_send *s);

struct kucmaio {
	struct kucma u;
	struct kconn_set *cs;
	const struct ksysfs *fs;
	struct kucmaio_park park[KUCMAIO_PARKS];
	uint64_t next_seq;
	kucmaio_send_fn send;
	kucmaio_cm_send_fn cm_send;
	void *send_ctx;
	int64_t now; /* the time of the call being served */
};

/* cm_retries, cm_timeout: ib_cm's (kcm_init). */
void kucmaio_init(struct kucmaio *io, struct kconn_set *cs, const struct ksysfs *fs,
		  kucmaio_send_fn send, kucmaio_cm_send_fn cm_send, void *send_ctx,
		  uint32_t cm_retries, uint8_t cm_timeout);
void kucmaio_fini(struct kucmaio *io);
/* The hello of a SIMHOST_UCMA (a new file, cm_loaded as kucma_open
 * takes it; its token in *token) or SIMHOST_UCMA_CMD (for the file
 * `token`) connection c: 0 or -errno for the welcome. */
int kucmaio_hello(struct kucmaio *io, struct kconn *c, uint32_t kind, uint32_t *token,
		  int cm_loaded);
/* One packet of a SIMHOST_UCMA_CMD connection: answered now, or parked. */
void kucmaio_input(struct kucmaio *io, struct kconn *c, const uint8_t *buf, size_t len,
		   int64_t now);
/* c (either kind) is going: a file is released, its parked GET_EVENTs
 * answered -EBADF; a command connection's park is forgotten. */
void kucmaio_gone(struct kucmaio *io, struct kconn *c);
/* The producers' (rdma_cm, ib_cm) way to queue an event: kucma_queue,
 * then the doorbell and the parked GET_EVENTs of the file. */
int kucmaio_queue(struct kucmaio *io, const struct kcma_work *w);
/* An SA MAD for the kernel's SA agent (timed_out 0: an answer; 1: the
 * request that got none): 1 when it was an rdma_cm route query's (its
 * event queued), 0 when it is someone else's (kipoib's). */
int kucmaio_sa_answer(struct kucmaio *io, const uint8_t *mad, size_t len, int timed_out);
/* ib_cm loaded with its MAD agent's hi_tid (cm_form_tid). */
void kucmaio_cm_agent(struct kucmaio *io, uint32_t hi_tid);
/* A CM MAD (class 0x07) for ib_cm, from slid. */
void kucmaio_cm_recv(struct kucmaio *io, const uint8_t *mad, size_t len, uint16_t slid,
		     int64_t now);
/* ib_cm's resends and timeouts due at now; the next one's time. */
void kucmaio_due(struct kucmaio *io, int64_t now);
int64_t kucmaio_deadline(const struct kucmaio *io);

#endif
