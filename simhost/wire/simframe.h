/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The framing of a SIMHOST_UMAD connection (simhost.h, simhost_frame):
 * a message cut into packets and put together again, and the socket I/O
 * of one packet. Shared by libsimhost.so and simhostd; no state of its
 * own (the caller keeps a simframe_rx per message under way). */
#ifndef IBATS_SIMHOST_SIMFRAME_H
#define IBATS_SIMHOST_SIMFRAME_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "simhost.h"

/* The frame of the packet at byte off of a message of total bytes; its
 * payload length in *plen. */
void simframe_at(struct simhost_frame *f, size_t total, size_t off, size_t *plen);

/* A message being received: total 0 when none is under way. */
struct simframe_rx {
	size_t total, got;
};

#define SIMFRAME_MORE 0
#define SIMFRAME_DONE 1

void simframe_rx_reset(struct simframe_rx *rx);
/* A packet (frame f, plen payload bytes) taken into rx: where its
 * payload goes in the message (*off; 0: a new message of rx->total
 * bytes starts, any under way is dropped), then SIMFRAME_MORE or
 * SIMFRAME_DONE (rx->total bytes are whole). -EPROTO for a packet that is
 * not the next of the message under way nor a first: drop it, and rx is
 * reset (a message under way is lost). */
int simframe_rx_next(struct simframe_rx *rx, const struct simhost_frame *f, size_t plen,
		     size_t *off);

/* Sends msg (len bytes, 0 < len <= UINT32_MAX) on fd from byte *off on,
 * one packet at a time, never waiting: 1 when all of it is sent, 0 when
 * the socket is full (*off says how far it got), else -errno. */
int simframe_send(int fd, const void *msg, size_t len, size_t *off);

/* The next packet's frame into f and up to count bytes of its payload
 * into buf, the packet left queued: its payload length, -EAGAIN when
 * there is none, -EPIPE when the peer closed, -EPROTO when it is too
 * short for a frame (simframe_take drops it), else -errno. */
ssize_t simframe_peek(int fd, struct simhost_frame *f, void *buf, size_t count);
/* The same, the packet taken (bytes past count are lost). */
ssize_t simframe_take(int fd, struct simhost_frame *f, void *buf, size_t count);

#endif
