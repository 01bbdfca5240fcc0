/* librmppsim internals shared by its files (tests/rmppsim). */
#ifndef IBATS_RMPPSIM_H
#define IBATS_RMPPSIM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* mad (len bytes, hdr_len of them the class header) with its data put
 * in the first mad_bytes - hdr_len bytes of each segment's data; a new
 * buffer of *out_len bytes, or NULL. */
uint8_t *rs_pack(const uint8_t *mad, size_t len, size_t hdr_len, size_t mad_bytes,
		 size_t *out_len);
/* rs_pack() undone in place: the true length, or 0 when msg (len bytes)
 * cannot be a packed message. */
size_t rs_unpack(uint8_t *msg, size_t len, size_t mad_bytes);
/* Appends msg to the file the environment variable var names, if any. */
void rs_dump(const char *var, const uint8_t *msg, size_t len);

/* The registration requests (linux/include/uapi/rdma/ib_user_mad.h);
 * <rdma/ib_user_mad.h> cannot come with <infiniband/umad.h>, whose
 * struct ib_user_mad it redefines. */
struct ib_user_mad_reg_req {
	uint32_t id;
	uint32_t method_mask[4];
	uint8_t qpn;
	uint8_t mgmt_class;
	uint8_t mgmt_class_version;
	uint8_t oui[3];
	uint8_t rmpp_version;
};

struct ib_user_mad_reg_req2 {
	uint32_t id;
	uint32_t qpn;
	uint8_t mgmt_class;
	uint8_t mgmt_class_version;
	uint16_t res;
	uint32_t flags;
	uint64_t method_mask[2] __attribute__((aligned(8)));
	uint32_t oui;
	uint8_t rmpp_version;
	uint8_t reserved[3];
};

/* MADs waiting for the reader, each a umad header then the MAD. */
struct rs_msg {
	struct rs_msg *next;
	size_t len;
	uint8_t buf[];
};

struct rs_queue {
	struct rs_msg *head, *tail;
};

/* Appends hdr then mad; without memory drops it, as a lost MAD. */
void rs_queue_put(struct rs_queue *q, const void *hdr, size_t hdr_len, const void *mad,
		  size_t mad_len);
/* The first MAD into buf: its length. With a short buf, its umad header
 * (the whole length in it) and first MAD, ENOSPC, and it stays queued
 * (ib_umad_read's copy_recv_mad); -1 with EINVAL below a umad header. */
ssize_t rs_queue_get(struct rs_queue *q, void *buf, size_t count);
void rs_queue_clear(struct rs_queue *q);

/* A send waiting for its response (wait.c). */
struct rs_wait {
	int64_t deadline;
	uint32_t agent, tid_lo, timeout_ms, retries;
	uint8_t mgmt_class;
	size_t len;
	uint8_t buf[64 + 256]; /* umad header, MAD */
};

struct rs_waits {
	struct rs_wait *w;
	size_t n, cap;
};

/* More sends outstanding on one fd than this go without a timeout. */
#define RS_WAIT_MAX 4096

typedef void (*rs_resend_fn)(void *ctx, const uint8_t *buf, size_t len);
typedef void (*rs_expire_fn)(void *ctx, const void *umad_hdr, const uint8_t *mad,
			     size_t mad_len);

/* buf (a umad write of len bytes) waits for its response if it has a
 * timeout and is a request: 1, or 0 when not; -errno when it cannot. */
int rs_wait_add(struct rs_waits *ws, const void *buf, size_t len, int64_t now);
/* A MAD read on agent (umad status): 1 when it ended a wait. */
int rs_wait_answered(struct rs_waits *ws, uint32_t agent, const uint8_t *mad, size_t len,
		     uint32_t status);
/* The earliest deadline, INT64_MAX when none. */
int64_t rs_wait_deadline(const struct rs_waits *ws);
/* Resends what timed out with retries left; hands expire() the others. */
void rs_wait_due(struct rs_waits *ws, int64_t now, rs_resend_fn resend, rs_expire_fn expire,
		 void *ctx);
void rs_wait_clear(struct rs_waits *ws);

#endif
