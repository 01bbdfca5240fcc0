/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The simulated node's rdma_ucm file/context layer (Linux
 * drivers/infiniband/core/ucma.c; RDMACM.md 2, 9): ucma files (one per
 * open of /dev/infiniband/rdma_cm, named by a token), their ids
 * (handles from 0, as the kernel's xarray), each file's event list, and
 * the command table with ucma_write's checks. A command is the bytes of
 * one write() (struct rdma_ucm_cmd_hdr, then `in` bytes), decoded at
 * the named offsets of <rdma/rdma_user_cm.h> (ABI 4, x86-64 layout, the
 * process's byte order: both ends are this machine); the response goes
 * into the caller's buffer, which the shim copies to the process's
 * `response` pointer. The ids' rdma_cm side (addresses, resolution) is
 * kcma's; what it queues for later (events) the caller drains with
 * kcma_work after answering and gives to kucma_queue. Commands so far:
 * CREATE_ID, DESTROY_ID, BIND (AF_IB), RESOLVE_ADDR (AF_IB),
 * RESOLVE_ROUTE, QUERY (ADDR, GID, PATH), CONNECT, LISTEN, ACCEPT,
 * REJECT, DISCONNECT, INIT_QP_ATTR, GET_EVENT, SET_OPTION (stored
 * nowhere: TOS, REUSEADDR, AFONLY, ACK_TIMEOUT), MIGRATE_ID; the rest
 * -ENOSYS (the IP commands of a process whose AF_IB probe failed,
 * multicast, NOTIFY, GET_OPTION). */
#ifndef IBATS_SIMHOST_KUCMA_H
#define IBATS_SIMHOST_KUCMA_H

#include <stddef.h>
#include <stdint.h>

#include "kcma.h"

#define KUCMA_FILES 64
#define KUCMA_IDS KCMA_IDS
#define KUCMA_EVENTS 64
/* struct rdma_ucm_event_resp; the largest response of the commands. */
#define KUCMA_EVENT_LEN 336
#define KUCMA_RESP_MAX KUCMA_EVENT_LEN
/* simhost's request flag: the file is O_NONBLOCK. */
#define KUCMA_NONBLOCK 1u
/* kucma_write: GET_EVENT on an empty, blocking file; the caller parks
 * the request and repeats it when the file has an event. */
#define KUCMA_PARK (-4096)

struct kucma_event {
	uint8_t b[KUCMA_EVENT_LEN]; /* rdma_ucm_event_resp; uid, id set at queue time */
	uint32_t id;    /* the id it is reported on (a CONNECT_REQUEST's listener) */
	uint32_t child; /* CONNECT_REQUEST: the new id, else id */
};

/* ucma.c's struct ucma_context: the id's handle is its index, in kcma
 * too. */
struct kucma_ctx {
	int used;
	uint32_t file;
	uint64_t uid;
	uint32_t events_reported;
	int pending; /* a CONNECT_REQUEST's id, not yet fetched: no handle yet */
};

struct kucma_file {
	int used;
	uint32_t token;
	struct kucma_event ev[KUCMA_EVENTS];
	size_t head, n;
};

struct kucma {
	struct kcma cma; /* the ids' rdma_cm side; its work is the caller's to queue */
	struct kucma_file files[KUCMA_FILES];
	struct kucma_ctx ids[KUCMA_IDS];
	uint32_t next_token;
	uint32_t ring; /* a file whose list MIGRATE_ID filled: its doorbell is due */
};

/* cm_retries, cm_timeout: ib_cm's (kcm_init). */
void kucma_init(struct kucma *u, const struct kcma_port *port, uint32_t cm_retries,
		uint8_t cm_timeout);
void kucma_fini(struct kucma *u);
/* A new file: its token (> 0), -ENOENT while ib_cm (and with it
 * rdma_ucm) is not loaded, or -EMFILE. */
int kucma_open(struct kucma *u, int cm_loaded);
/* The file released: every id of it destroyed (ucma_close). */
void kucma_close(struct kucma *u, uint32_t token);
/* One write() of file token at time now: len (the bytes taken) or
 * -errno as ucma_write answers, KUCMA_PARK; the response in resp
 * (*resp_len bytes, at most KUCMA_RESP_MAX), only on success. A
 * SET_OPTION's option value follows the command (the shim's framing),
 * a MIGRATE_ID's fd is the other file's token. */
int kucma_write(struct kucma *u, uint32_t token, uint32_t flags, const uint8_t *buf, size_t len,
		uint8_t *resp, size_t *resp_len, int64_t now);
/* Queue event (RDMA_CM_EVENT_*) with status for id: -ENOENT for no
 * such id, -ENOBUFS when the file's list is full. 1 when the list was
 * empty (the file's doorbell rings), else 0. */
int kucma_queue(struct kucma *u, uint32_t id, uint32_t event, int32_t status);
/* kucma_queue for kcma's work: its param, a CONNECT_REQUEST's new id
 * (given a handle, not yet usable), an event of an id nobody accepted
 * yet dropped (ucma_event_handler: uid 0). */
int kucma_queue_work(struct kucma *u, const struct kcma_work *w);
/* Whether file token has an event (POLLIN). */
int kucma_ready(const struct kucma *u, uint32_t token);

#endif
