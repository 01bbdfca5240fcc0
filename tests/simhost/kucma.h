/* The simulated node's rdma_ucm file/context layer (Linux
 * drivers/infiniband/core/ucma.c; RDMACM.md 2, 9): ucma files (one per
 * open of /dev/infiniband/rdma_cm, named by a token), their ids
 * (handles from 0, as the kernel's xarray), each file's event list, and
 * the command table with ucma_write's checks. A command is the bytes of
 * one write() (struct rdma_ucm_cmd_hdr, then `in` bytes), decoded at
 * the named offsets of <rdma/rdma_user_cm.h> (ABI 4, x86-64 layout, the
 * process's byte order: both ends are this machine); the response goes
 * into the caller's buffer, which the shim copies to the process's
 * `response` pointer. Commands so far: CREATE_ID, DESTROY_ID,
 * BIND (AF_IB), RESOLVE_ADDR (AF_IB), QUERY (ADDR, GID), GET_EVENT;
 * the rest -ENOSYS. */
#ifndef IBATS_SIMHOST_KUCMA_H
#define IBATS_SIMHOST_KUCMA_H

#include <stddef.h>
#include <stdint.h>

#define KUCMA_FILES 64
#define KUCMA_IDS 256
#define KUCMA_EVENTS 64
/* struct rdma_ucm_event_resp; the largest response of the commands. */
#define KUCMA_EVENT_LEN 336
#define KUCMA_RESP_MAX KUCMA_EVENT_LEN
/* simhost's request flag: the file is O_NONBLOCK. */
#define KUCMA_NONBLOCK 1u
/* kucma_write: GET_EVENT on an empty, blocking file; the caller parks
 * the request and repeats it when the file has an event. */
#define KUCMA_PARK (-4096)

/* The node's port, as the kernel's device knows it. */
struct kucma_port {
	uint64_t node_guid;
	uint8_t gid[16]; /* GID 0 */
	uint16_t pkey;   /* P_Key index 0 */
};

struct kucma_event {
	uint8_t b[KUCMA_EVENT_LEN]; /* rdma_ucm_event_resp; uid, id set at queue time */
	uint32_t id;
};

struct kucma_id {
	int used;
	uint32_t file;
	uint64_t uid;
	uint16_t ps;
	uint8_t qp_type;
	int bound;      /* ADDR_BOUND */
	int dev;        /* bound to the port's GID (a device) */
	uint8_t src[48]; /* sockaddr_ib as bound */
	int resolved;    /* ADDR_RESOLVED or later */
	uint8_t dst[48]; /* the destination sockaddr_ib, once resolved */
	uint32_t events_reported;
};

struct kucma_file {
	int used;
	uint32_t token;
	struct kucma_event ev[KUCMA_EVENTS];
	size_t head, n;
};

struct kucma {
	struct kucma_port port;
	struct kucma_file files[KUCMA_FILES];
	struct kucma_id ids[KUCMA_IDS];
	uint32_t next_token;
	uint16_t next_port; /* ephemeral service ports for sid port 0 */
	/* The event the last kucma_write left for the caller to queue once
	 * it has answered (the kernel's cma work item): work != 0. */
	int work;
	uint32_t work_id, work_event;
};

void kucma_init(struct kucma *u, const struct kucma_port *port);
void kucma_fini(struct kucma *u);
/* A new file: its token (> 0), -ENOENT while ib_cm (and with it
 * rdma_ucm) is not loaded, or -EMFILE. */
int kucma_open(struct kucma *u, int cm_loaded);
/* The file released: every id of it destroyed (ucma_close). */
void kucma_close(struct kucma *u, uint32_t token);
/* One write() of file token: len (the bytes taken) or -errno as
 * ucma_write answers, KUCMA_PARK; the response in resp (*resp_len
 * bytes, at most KUCMA_RESP_MAX), only on success. */
int kucma_write(struct kucma *u, uint32_t token, uint32_t flags, const uint8_t *buf, size_t len,
		uint8_t *resp, size_t *resp_len);
/* Queue event (RDMA_CM_EVENT_*) with status for id: -ENOENT for no
 * such id, -ENOBUFS when the file's list is full. 1 when the list was
 * empty (the file's doorbell rings), else 0. */
int kucma_queue(struct kucma *u, uint32_t id, uint32_t event, int32_t status);
/* Whether file token has an event (POLLIN). */
int kucma_ready(const struct kucma *u, uint32_t token);

#endif
