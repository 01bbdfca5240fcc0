/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* simhostd's connections from the node's processes (simhost/wire/
 * simhost.h): the listening socket DIR/NODE/kernel.sock, each accepted
 * connection's kind and what waits to be sent to it. A process that
 * does not read never blocks the kernel: what it has not taken waits in
 * a bounded queue, and past KCONN_QUEUE_MAX packets the oldest goes, as
 * a full receive queue loses MADs (counted in drops). A SIMHOST_UMAD
 * connection's messages are framed both ways (simhost.h simhost_frame):
 * one long message goes out a chunk at a time as the socket takes them,
 * never interleaved with the next, and comes in over several polls. */
#ifndef IBATS_KCONN_H
#define IBATS_KCONN_H

#include <stddef.h>
#include <stdint.h>

#include "simhost/kernel/krmpp.h"
#include "simhost/wire/simframe.h"

#define KCONN_MAX 256
#define KCONN_QUEUE_MAX 4096

struct kconn_pkt {
	struct kconn_pkt *next;
	size_t len;
	size_t off;  /* framed: bytes sent so far (the queue's head only) */
	int framed;  /* a message of simhost.h's simhost_frame, else one packet */
	uint8_t buf[];
};

struct kconn {
	int fd;
	uint32_t kind;  /* enum simhost_kind; 0 before the hello */
	uint32_t pid;
	/* SO_PEERCRED: who connected, as the socket recorded it */
	int32_t peer_pid;
	uint32_t peer_uid, peer_gid;
	uint32_t token; /* UMAD, UCMA: its own; AGENTS, UCMA_CMD: its file's */
	struct kconn_pkt *head, *tail;
	size_t queued;
	/* SIMHOST_UMAD */
	struct simframe_rx rx; /* the message coming in */
	uint8_t *rx_buf;       /* its bytes so far */
	struct krmpp *rmpp;
	int agents_used; /* an agent was registered (ENABLE_PKEY's check) */
	/* SIMHOST_UCMA */
	uint32_t doorbell; /* the last doorbell's gen (simhost.h), 0: none yet */
};

struct kconn_set {
	int listen_fd;
	struct kconn *c[KCONN_MAX];
	uint64_t drops; /* packets lost to full queues */
};

/* Listens on path (SOCK_SEQPACKET); -errno. */
int kconn_listen(struct kconn_set *s, const char *path);
void kconn_fini(struct kconn_set *s);
/* A new connection: NULL when there is none or no room. */
struct kconn *kconn_accept(struct kconn_set *s);
/* Whether c's process may open what a connection of kind (simhost.h)
 * stands for: its device node's owner and mode (simhost/wire/devnode.h)
 * against c's credentials (SO_PEERCRED; supplementary groups and
 * effective capabilities from /proc/PID/status), as the VFS checks an
 * open() (fs/namei.c generic_permission). The bench's console (no
 * device) is root's. 0 or -EACCES. */
int kconn_may_open(const struct kconn *c, uint32_t kind);
/* Closes it and frees its queue (the caller drops its agents first). */
void kconn_close(struct kconn_set *s, struct kconn *c);
/* The next packet from c into a new buffer (*len bytes), on a
 * SIMHOST_UMAD connection the next whole message: 1, 0 when none is
 * there (yet), -errno when the connection is over (EOF included). */
int kconn_recv(struct kconn *c, uint8_t **buf, size_t *len);
/* hdr then body as one packet to c: sent now if the socket takes it,
 * else queued. */
void kconn_send(struct kconn_set *s, struct kconn *c, const void *hdr, size_t hdr_len,
		const void *body, size_t body_len);
/* The same as one framed message (a SIMHOST_UMAD connection's). */
void kconn_send_msg(struct kconn_set *s, struct kconn *c, const void *hdr, size_t hdr_len,
		    const void *body, size_t body_len);
/* Sends what is queued; -errno when the connection is broken. */
int kconn_flush(struct kconn *c);
struct kconn *kconn_by_token(struct kconn_set *s, uint32_t kind, uint32_t token);

#endif
