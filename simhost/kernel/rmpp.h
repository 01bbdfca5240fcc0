/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* RMPP, the reliable multi-packet transaction protocol (IBTA Vol 1 13.6),
 * as the kernel's MAD layer runs it for umad agents registered with an
 * RMPP version: a sender cuts one long MAD into DATA segments and sends
 * them as the receiver's ACK window allows; a receiver puts the segments
 * back together into that MAD. Pure: no I/O, no clock of its own. The
 * caller passes now_ms (any monotonic clock), sends what *_next() gives
 * and calls *_next() again at *_deadline().
 *
 * Segment layout (13.6.2, as Linux drivers/infiniband/core lays it
 * out): the class header (bytes 0..hdr_len: MAD header, RMPP header and
 * the class's own header, e.g. the SA header to 56) is repeated in every
 * segment and MAD_SIZE - hdr_len bytes of data follow it. PayloadLength
 * counts the MAD_RMPP_SEG_PAYLOAD bytes after the RMPP header: in the FIRST
 * segment those of the whole transfer, in the LAST those of that segment,
 * its pad excluded. */
#ifndef IBATS_RMPP_H
#define IBATS_RMPP_H

#include <stddef.h>
#include <stdint.h>

#include "core/mad.h"

enum rmpp_state {
	RMPP_ACTIVE,
	RMPP_DONE,   /* sender: every segment ACKed; receiver: message whole */
	RMPP_FAILED, /* ABORT or STOP sent or received, or timed out */
};

struct rmpp_cfg {
	uint32_t window;     /* receiver: segments per ACK window */
	int64_t ack_ms;      /* sender: wait for an ACK before resending */
	unsigned retries;    /* sender: resends without progress, then ABORT */
	int64_t total_ms;    /* receiver: whole transfer, then ABORT (T2L) */
	int64_t linger_ms;   /* receiver: re-ACK duplicates after the end */
	size_t max_len;      /* receiver: longest message, else STOP */
};

/* The kernel's values: 2 s per ACK, 40 s a transfer, 10 s linger. */
void rmpp_cfg_default(struct rmpp_cfg *cfg);

/* Offset of a class's data after its header: the segment header length
 * (13.6.2). 0 for classes without RMPP. */
size_t rmpp_hdr_len(uint8_t mgmt_class);

/* The RMPPType of an active RMPP MAD (RMPPFlags.Active), else -1. */
int rmpp_type(const uint8_t *mad, size_t len);

/* Checks an active RMPP header: returns 0, or -EPROTO with *status set
 * to the ABORT status the spec gives (version, type, status field). */
int rmpp_check(const uint8_t *mad, size_t len, uint8_t *status);

/* An RMPP MAD of type (ABORT, say, or STOP with MAD_RMPP_STATUS_RESX)
 * answering mad: its header to hdr_len, the method's response bit
 * flipped (the other direction of the transaction), SegmentNumber and
 * PayloadLength 0. For a segment no transaction takes (the kernel ABORTs
 * a bad version or type at once). Returns MAD_SIZE. */
size_t rmpp_reply(const uint8_t *mad, size_t hdr_len, int type, uint8_t status,
		  uint8_t out[MAD_SIZE]);

/* Sender. */
struct rmpp_tx {
	struct rmpp_cfg cfg;
	uint8_t *mad; /* a copy of the whole MAD */
	size_t len, hdr_len;
	uint32_t nseg, sent, hi, last_ack, win;
	unsigned retries_left;
	enum rmpp_state state;
	uint8_t status;     /* why it failed: an RMPP status */
	int abort_pending;  /* an ABORT to send */
	int64_t deadline, now;
};

/* mad: the whole MAD, header and class header to hdr_len then any length
 * of data (its RRespTime is kept, the rest of its RMPP header is the
 * sender's). Returns -EINVAL when hdr_len is no RMPP header length or len
 * is shorter, -EMSGSIZE past 32 bits of PayloadLength, -ENOMEM. */
int rmpp_tx_init(struct rmpp_tx *t, const uint8_t *mad, size_t len, size_t hdr_len,
		 const struct rmpp_cfg *cfg, int64_t now_ms);
void rmpp_tx_fini(struct rmpp_tx *t);
/* The next MAD to send now (a DATA segment, or an ABORT after a bad
 * ACK) into seg: MAD_SIZE, or 0 when nothing is due
 * before rmpp_tx_deadline(). Call until 0: a window gives several. No
 * ACK by the deadline: the segments from the first one not ACKed go
 * again; after cfg.retries such rounds without progress the transfer
 * fails (TMR) with no ABORT sent, as the kernel's sender does. */
size_t rmpp_tx_next(struct rmpp_tx *t, int64_t now_ms, uint8_t seg[MAD_SIZE]);
/* An ACK, STOP or ABORT of this transaction. Returns 0; -EPROTO when it
 * ended the transfer (ABORT or STOP received, or an ACK the spec aborts:
 * an ABORT is then due); -EINVAL for any other MAD; -EMSGSIZE. A STOP
 * ends the transfer as an ABORT does (the kernel's reading; a receiver
 * pauses a sender by not opening its window). */
int rmpp_tx_recv(struct rmpp_tx *t, const uint8_t *mad, size_t len, int64_t now_ms);
int64_t rmpp_tx_deadline(const struct rmpp_tx *t);
enum rmpp_state rmpp_tx_state(const struct rmpp_tx *t);

/* Receiver. */
struct rmpp_rx {
	struct rmpp_cfg cfg;
	uint8_t *buf; /* the message: first segment's header, then data */
	size_t cap, len, hdr_len, pad;
	uint8_t *held; /* segment n held: held[n % window] */
	uint8_t hdr[MAD_SIZE]; /* answers are made from the segment's header */
	uint32_t seg, last_ack, win, first_paylen, last_seg;
	enum rmpp_state state;
	uint8_t status;
	int reply;     /* due: 0, MAD_RMPP_TYPE_ACK, _STOP or _ABORT */
	int64_t deadline, now;
};

void rmpp_rx_init(struct rmpp_rx *r, const struct rmpp_cfg *cfg, int64_t now_ms);
void rmpp_rx_fini(struct rmpp_rx *r);
/* A DATA segment (an ABORT from the sender also ends the transfer).
 * Returns 1 when the message is whole, 0 when taken or dropped (one
 * ACKed already is ACKed again, one beyond the window dropped; one out
 * of order is held until the gap before it is filled), -EPROTO
 * when it ended the transfer with an ABORT due (or received),
 * -ENOBUFS with a STOP due (past max_len or out of memory), -EINVAL for
 * a MAD that is no RMPP DATA or ABORT, -EMSGSIZE for a short one. */
int rmpp_rx_recv(struct rmpp_rx *r, const uint8_t *mad, size_t len, int64_t now_ms);
/* The ACK, STOP or ABORT due now into out: MAD_SIZE, or 0. At the
 * deadline of an unfinished transfer an ABORT (T2L) is due. */
size_t rmpp_rx_next(struct rmpp_rx *r, int64_t now_ms, uint8_t out[MAD_SIZE]);
/* The whole message once RMPP_DONE, else NULL. */
const uint8_t *rmpp_rx_message(const struct rmpp_rx *r, size_t *len);
int64_t rmpp_rx_deadline(const struct rmpp_rx *r);
enum rmpp_state rmpp_rx_state(const struct rmpp_rx *r);

#endif
