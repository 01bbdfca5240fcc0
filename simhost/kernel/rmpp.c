/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* RMPP sender and receiver (IBTA Vol 1 13.6), see rmpp.h. The protocol
 * choices follow Linux drivers/infiniband/core/mad_rmpp.c, the RMPP every
 * umad user (OpenSM's SA included) meets on a real fabric. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rmpp.h"
#include "core/sa.h"
#include "core/vmad.h"
#include "core/wire.h"

/* Vendor range 2: the classes whose MADs carry the RMPP header and an
 * OUI (13.4.2 Table 149). */
#define VENDOR2_FIRST 0x30
#define VENDOR2_LAST 0x4f

void rmpp_cfg_default(struct rmpp_cfg *cfg)
{
	cfg->window = 64;
	cfg->ack_ms = 2000;
	cfg->retries = 10;
	cfg->total_ms = 40000;
	cfg->linger_ms = 10000;
	cfg->max_len = 16u << 20;
}

/* 13.6.2 and the class headers: SA (15.2.1.1 Table 184) and vendor range 2
 * (13.4.2 Table 149) are the classes that use RMPP here. */
size_t rmpp_hdr_len(uint8_t mgmt_class)
{
	if (mgmt_class == SA_CLASS)
		return SA_OFF_DATA;
	if (mgmt_class >= VENDOR2_FIRST && mgmt_class <= VENDOR2_LAST)
		return VMAD_OFF_DATA;
	return 0;
}

int rmpp_type(const uint8_t *mad, size_t len)
{
	if (len < MAD_RMPP_HDR_END || !(mad[MAD_RMPP_OFF_FLAGS] & MAD_RMPP_FLAG_ACTIVE))
		return -1;
	return mad[MAD_RMPP_OFF_TYPE];
}

/* 13.6.2.1: a version other than 1 is UNV, an unknown type BADT; a
 * status on DATA or ACK, anything but RESX on STOP and anything outside
 * 118..127 on ABORT is BAD_STATUS. */
int rmpp_check(const uint8_t *mad, size_t len, uint8_t *status)
{
	uint8_t st;

	if (rmpp_type(mad, len) < 0)
		return -EINVAL;
	st = mad[MAD_RMPP_OFF_STATUS];
	if (mad[MAD_RMPP_OFF_VERSION] != MAD_RMPP_VERSION)
		*status = MAD_RMPP_STATUS_UNV;
	else if (mad[MAD_RMPP_OFF_TYPE] < MAD_RMPP_TYPE_DATA || mad[MAD_RMPP_OFF_TYPE] > MAD_RMPP_TYPE_ABORT)
		*status = MAD_RMPP_STATUS_BADT;
	else if ((mad[MAD_RMPP_OFF_TYPE] == MAD_RMPP_TYPE_DATA || mad[MAD_RMPP_OFF_TYPE] == MAD_RMPP_TYPE_ACK) && st)
		*status = MAD_RMPP_STATUS_BAD_STATUS;
	else if (mad[MAD_RMPP_OFF_TYPE] == MAD_RMPP_TYPE_STOP && st != MAD_RMPP_STATUS_RESX)
		*status = MAD_RMPP_STATUS_BAD_STATUS;
	else if (mad[MAD_RMPP_OFF_TYPE] == MAD_RMPP_TYPE_ABORT &&
		 (st < MAD_RMPP_STATUS_ABORT_MIN || st > MAD_RMPP_STATUS_ABORT_MAX))
		*status = MAD_RMPP_STATUS_BAD_STATUS;
	else
		return 0;
	return -EPROTO;
}

/* An RMPP MAD from hdr (its first hdr_len bytes: MAD, RMPP and class
 * header) with the RMPP header and method given, the data zero. */
static void make_ctl(const uint8_t *hdr, size_t hdr_len, uint8_t method, int type,
		     uint8_t status, uint32_t data1, uint32_t data2, uint8_t out[MAD_SIZE])
{
	memcpy(out, hdr, hdr_len);
	memset(out + hdr_len, 0, MAD_SIZE - hdr_len);
	out[MAD_OFF_METHOD] = method;
	out[MAD_RMPP_OFF_VERSION] = MAD_RMPP_VERSION;
	out[MAD_RMPP_OFF_TYPE] = (uint8_t)type;
	out[MAD_RMPP_OFF_FLAGS] = MAD_RMPP_RESPTIME_NONE << MAD_RMPP_RESPTIME_SHIFT | MAD_RMPP_FLAG_ACTIVE;
	out[MAD_RMPP_OFF_STATUS] = status;
	wire_put32(out + MAD_RMPP_OFF_DATA1, data1);
	wire_put32(out + MAD_RMPP_OFF_DATA2, data2);
}

size_t rmpp_reply(const uint8_t *mad, size_t hdr_len, int type, uint8_t status,
		  uint8_t out[MAD_SIZE])
{
	make_ctl(mad, hdr_len, mad[MAD_OFF_METHOD] ^ MAD_METHOD_RESP_BIT, type, status, 0, 0, out);
	return MAD_SIZE;
}

/* Sender. Segment n (from 1) carries data bytes (n-1)*seg_data on. */

static size_t seg_data(size_t hdr_len)
{
	return MAD_SIZE - hdr_len;
}

int rmpp_tx_init(struct rmpp_tx *t, const uint8_t *mad, size_t len, size_t hdr_len,
		 const struct rmpp_cfg *cfg, int64_t now_ms)
{
	size_t nseg;

	memset(t, 0, sizeof(*t));
	if (hdr_len < MAD_RMPP_HDR_END || hdr_len >= MAD_SIZE || len < hdr_len)
		return -EINVAL;
	/* One segment even without data (13.6.2: PayloadLength is then the
	 * class header alone); PayloadLength must fit its 32 bits. */
	nseg = len == hdr_len ? 1 : (len - hdr_len + seg_data(hdr_len) - 1) / seg_data(hdr_len);
	if (nseg > UINT32_MAX / MAD_RMPP_SEG_PAYLOAD)
		return -EMSGSIZE;
	t->mad = malloc(len);
	if (!t->mad)
		return -ENOMEM;
	memcpy(t->mad, mad, len);
	t->cfg = *cfg;
	t->len = len;
	t->hdr_len = hdr_len;
	t->nseg = (uint32_t)nseg;
	t->win = 1; /* 13.6: the first window is one segment */
	t->retries_left = cfg->retries;
	t->state = RMPP_ACTIVE;
	t->deadline = t->now = now_ms;
	return 0;
}

void rmpp_tx_fini(struct rmpp_tx *t)
{
	free(t->mad);
	t->mad = NULL;
}

static void tx_fail(struct rmpp_tx *t, uint8_t status, int send_abort, int64_t now_ms)
{
	t->state = RMPP_FAILED;
	t->status = status;
	t->abort_pending = send_abort;
	t->deadline = now_ms;
}

static uint32_t tx_limit(const struct rmpp_tx *t)
{
	return t->win < t->nseg ? t->win : t->nseg;
}

static void tx_segment(const struct rmpp_tx *t, uint32_t n, uint8_t seg[MAD_SIZE])
{
	size_t sd = seg_data(t->hdr_len), off = t->hdr_len + (size_t)(n - 1) * sd;
	size_t data = t->len - t->hdr_len, pad = (size_t)t->nseg * sd - data;
	size_t take = t->len - off < sd ? t->len - off : sd;
	uint8_t flags = MAD_RMPP_FLAG_ACTIVE;
	uint32_t paylen = 0;

	memcpy(seg, t->mad, t->hdr_len);
	memcpy(seg + t->hdr_len, t->mad + off, take);
	memset(seg + t->hdr_len + take, 0, sd - take);
	if (n == 1) {
		flags |= MAD_RMPP_FLAG_FIRST;
		paylen = (uint32_t)((size_t)t->nseg * MAD_RMPP_SEG_PAYLOAD - pad);
	}
	if (n == t->nseg) {
		flags |= MAD_RMPP_FLAG_LAST;
		paylen = (uint32_t)(MAD_RMPP_SEG_PAYLOAD - pad);
	}
	seg[MAD_RMPP_OFF_VERSION] = MAD_RMPP_VERSION;
	seg[MAD_RMPP_OFF_TYPE] = MAD_RMPP_TYPE_DATA;
	seg[MAD_RMPP_OFF_FLAGS] = (uint8_t)((t->mad[MAD_RMPP_OFF_FLAGS] & ~MAD_RMPP_FLAGS_MASK) | flags);
	seg[MAD_RMPP_OFF_STATUS] = MAD_RMPP_STATUS_OK;
	wire_put32(seg + MAD_RMPP_OFF_DATA1, n);
	wire_put32(seg + MAD_RMPP_OFF_DATA2, paylen);
}

size_t rmpp_tx_next(struct rmpp_tx *t, int64_t now_ms, uint8_t seg[MAD_SIZE])
{
	t->now = now_ms;
	if (t->abort_pending) {
		t->abort_pending = 0;
		make_ctl(t->mad, t->hdr_len, t->mad[MAD_OFF_METHOD], MAD_RMPP_TYPE_ABORT, t->status,
			 0, 0, seg);
		return MAD_SIZE;
	}
	if (t->state != RMPP_ACTIVE)
		return 0;
	if (t->sent >= tx_limit(t)) {
		if (now_ms < t->deadline)
			return 0;
		/* No ACK in time: resend from the first segment not ACKed
		 * (13.6), even past a closed window (a probe). */
		/* Out of retries the kernel gives up without a word on the
		 * wire (mad.c timeout_sends: retry_send fails, the send
		 * completes with a timeout; no ABORT): the receiver ends by
		 * its own total timeout. */
		if (!t->retries_left) {
			tx_fail(t, MAD_RMPP_STATUS_TMR, 0, now_ms);
			return 0;
		}
		t->retries_left--;
		t->sent = t->last_ack;
	}
	tx_segment(t, ++t->sent, seg);
	if (t->sent > t->hi)
		t->hi = t->sent;
	t->deadline = now_ms + t->cfg.ack_ms;
	return MAD_SIZE;
}

static int tx_ack(struct rmpp_tx *t, const uint8_t *mad, int64_t now_ms)
{
	uint32_t seg = wire_get32(mad + MAD_RMPP_OFF_DATA1);
	uint32_t newwin = wire_get32(mad + MAD_RMPP_OFF_DATA2);

	if (newwin < seg) {
		tx_fail(t, MAD_RMPP_STATUS_W2S, 1, now_ms);
		return -EPROTO;
	}
	if (seg > t->hi) {
		tx_fail(t, MAD_RMPP_STATUS_S2B, 1, now_ms);
		return -EPROTO;
	}
	if (newwin < t->win || seg < t->last_ack)
		return 0; /* an old ACK, overtaken */
	if (seg > t->last_ack) {
		t->last_ack = seg;
		t->retries_left = t->cfg.retries;
		if (t->sent < seg)
			t->sent = seg;
		t->deadline = now_ms + t->cfg.ack_ms;
	}
	t->win = newwin;
	if (t->last_ack == t->nseg) {
		t->state = RMPP_DONE;
		t->deadline = now_ms;
	}
	return 0;
}

int rmpp_tx_recv(struct rmpp_tx *t, const uint8_t *mad, size_t len, int64_t now_ms)
{
	uint8_t status;

	if (len < MAD_RMPP_HDR_END)
		return -EMSGSIZE;
	t->now = now_ms;
	if (rmpp_type(mad, len) < 0 || mad[MAD_RMPP_OFF_TYPE] == MAD_RMPP_TYPE_DATA)
		return -EINVAL;
	if (t->state != RMPP_ACTIVE)
		return 0; /* late: the transfer has ended */
	if (rmpp_check(mad, len, &status)) {
		/* Answer a bad ABORT or STOP too, as the kernel does. */
		tx_fail(t, status, 1, now_ms);
		return -EPROTO;
	}
	switch (mad[MAD_RMPP_OFF_TYPE]) {
	case MAD_RMPP_TYPE_ACK:
		return tx_ack(t, mad, now_ms);
	default: /* STOP or ABORT: the receiver ended it; no ABORT back */
		tx_fail(t, mad[MAD_RMPP_OFF_STATUS], 0, now_ms);
		return -EPROTO;
	}
}

int64_t rmpp_tx_deadline(const struct rmpp_tx *t)
{
	/* Something to send: due since the last call. */
	if (t->abort_pending || (t->state == RMPP_ACTIVE && t->sent < tx_limit(t)))
		return t->now;
	return t->deadline;
}

enum rmpp_state rmpp_tx_state(const struct rmpp_tx *t)
{
	return t->state;
}

/* Receiver. */

void rmpp_rx_init(struct rmpp_rx *r, const struct rmpp_cfg *cfg, int64_t now_ms)
{
	memset(r, 0, sizeof(*r));
	r->cfg = *cfg;
	if (!r->cfg.window)
		r->cfg.window = 1;
	r->win = 1;
	r->state = RMPP_ACTIVE;
	r->deadline = now_ms + cfg->total_ms;
	r->now = now_ms;
}

void rmpp_rx_fini(struct rmpp_rx *r)
{
	free(r->buf);
	free(r->held);
	r->buf = NULL;
	r->held = NULL;
}

/* Ends the transfer with a STOP or ABORT (type) due, answering mad. */
static int rx_fail(struct rmpp_rx *r, const uint8_t *mad, size_t hdr_len, int type,
		   uint8_t status, int64_t now_ms)
{
	memcpy(r->hdr, mad, hdr_len);
	r->hdr_len = hdr_len;
	r->reply = type;
	r->state = RMPP_FAILED;
	r->status = status;
	r->deadline = now_ms;
	return type == MAD_RMPP_TYPE_STOP ? -ENOBUFS : -EPROTO;
}

static void rx_ack(struct rmpp_rx *r, const uint8_t *mad)
{
	memcpy(r->hdr, mad, r->hdr_len);
	r->reply = MAD_RMPP_TYPE_ACK;
}

static int rx_reserve(struct rmpp_rx *r, size_t need)
{
	size_t cap = r->cap ? r->cap : MAD_SIZE;
	uint8_t *p;

	if (need > r->cfg.max_len)
		return -ENOBUFS;
	if (need <= r->cap)
		return 0;
	while (cap < need)
		cap *= 2;
	if (cap > r->cfg.max_len)
		cap = r->cfg.max_len;
	p = realloc(r->buf, cap);
	if (!p)
		return -ENOBUFS;
	r->buf = p;
	r->cap = cap;
	return 0;
}

/* The message length a FIRST PayloadLength announces (13.6.2): the
 * class header counts in every segment's payload but once in the MAD. */
static size_t announced_len(uint32_t paylen, size_t hdr_len)
{
	size_t nseg = ((size_t)paylen + MAD_RMPP_SEG_PAYLOAD - 1) / MAD_RMPP_SEG_PAYLOAD;
	size_t extra = nseg * (hdr_len - MAD_RMPP_HDR_END);

	return paylen > extra ? hdr_len + paylen - extra : hdr_len;
}

/* A LAST segment n: its PayloadLength gives the pad (13.6.2), and the
 * FIRST's, when given, must agree; one LAST only. */
static int rx_last(struct rmpp_rx *r, const uint8_t *mad, uint32_t n, int64_t now_ms)
{
	uint32_t paylen = wire_get32(mad + MAD_RMPP_OFF_DATA2);
	size_t cls = r->hdr_len - MAD_RMPP_HDR_END, pad;

	/* At least the class header; data too unless it is the only one. */
	if (paylen > MAD_RMPP_SEG_PAYLOAD || paylen < cls || (n > 1 && paylen == cls) ||
	    (r->last_seg && r->last_seg != n))
		return rx_fail(r, mad, r->hdr_len, MAD_RMPP_TYPE_ABORT, MAD_RMPP_STATUS_BAD_LEN, now_ms);
	pad = MAD_RMPP_SEG_PAYLOAD - paylen;
	if (r->first_paylen && r->first_paylen != (size_t)n * MAD_RMPP_SEG_PAYLOAD - pad)
		return rx_fail(r, mad, r->hdr_len, MAD_RMPP_TYPE_ABORT, MAD_RMPP_STATUS_BAD_LEN, now_ms);
	r->last_seg = n;
	r->pad = pad;
	return 0;
}

/* The first segment: the header of the message, room for what it
 * announces, the ring of segments held out of order. */
static int rx_first(struct rmpp_rx *r, const uint8_t *mad, size_t hdr_len, int64_t now_ms)
{
	r->hdr_len = hdr_len;
	r->first_paylen = wire_get32(mad + MAD_RMPP_OFF_DATA2);
	r->held = calloc(r->cfg.window, 1);
	if (!r->held || rx_reserve(r, r->first_paylen ? announced_len(r->first_paylen, hdr_len)
						      : hdr_len))
		return rx_fail(r, mad, hdr_len, MAD_RMPP_TYPE_STOP, MAD_RMPP_STATUS_RESX, now_ms);
	memcpy(r->buf, mad, hdr_len);
	return 0;
}

/* Segment n is held; the message grows by the segments now in order:
 * ACK at the window's end (13.6) and at the LAST. */
static int rx_advance(struct rmpp_rx *r, const uint8_t *mad, int64_t now_ms)
{
	while (r->held[(r->seg + 1) % r->cfg.window]) {
		r->held[++r->seg % r->cfg.window] = 0;
		if (r->seg == r->last_seg) {
			r->len = r->hdr_len + (size_t)r->seg * seg_data(r->hdr_len) - r->pad;
			r->state = RMPP_DONE;
			r->deadline = now_ms + r->cfg.linger_ms;
			rx_ack(r, mad);
			return 1;
		}
	}
	if (r->seg == r->win) {
		r->win += r->cfg.window;
		rx_ack(r, mad);
	}
	return 0;
}

static int rx_data(struct rmpp_rx *r, const uint8_t *mad, int64_t now_ms)
{
	uint32_t n = wire_get32(mad + MAD_RMPP_OFF_DATA1);
	uint8_t flags = mad[MAD_RMPP_OFF_FLAGS];
	size_t hdr_len = r->seg ? r->hdr_len : rmpp_hdr_len(mad[MAD_OFF_MGMT_CLASS]);
	size_t sd = seg_data(hdr_len);
	int ret;

	if (!hdr_len)
		return -EINVAL;
	/* 13.6.2.1: FIRST is set on segment 1 and on no other. */
	if (!n || (n == 1) != !!(flags & MAD_RMPP_FLAG_FIRST))
		return rx_fail(r, mad, hdr_len, MAD_RMPP_TYPE_ABORT, MAD_RMPP_STATUS_BAD_SEG, now_ms);
	/* Beyond the window or the LAST: dropped (the window is 1 before
	 * the FIRST segment). */
	if (n > r->win || (r->last_seg && n > r->last_seg))
		return 0;
	if (n <= r->last_ack) {
		rx_ack(r, mad); /* our ACK was lost: the sender resends */
		return 0;
	}
	/* A duplicate not ACKed yet, or held already. */
	if (n <= r->seg || (r->held && r->held[n % r->cfg.window]))
		return 0;
	if (n == 1 && (ret = rx_first(r, mad, hdr_len, now_ms)))
		return ret;
	if ((flags & MAD_RMPP_FLAG_LAST) && (ret = rx_last(r, mad, n, now_ms)))
		return ret;
	/* Held in place, out of order or not (the kernel keeps them too):
	 * after a loss the sender resends the window and fills the gaps. */
	if (rx_reserve(r, hdr_len + (size_t)n * sd))
		return rx_fail(r, mad, hdr_len, MAD_RMPP_TYPE_STOP, MAD_RMPP_STATUS_RESX, now_ms);
	memcpy(r->buf + hdr_len + (size_t)(n - 1) * sd, mad + hdr_len, sd);
	r->held[n % r->cfg.window] = 1;
	return rx_advance(r, mad, now_ms);
}

int rmpp_rx_recv(struct rmpp_rx *r, const uint8_t *mad, size_t len, int64_t now_ms)
{
	uint8_t status;
	int type = rmpp_type(mad, len);

	if (len < MAD_RMPP_HDR_END)
		return -EMSGSIZE;
	r->now = now_ms;
	/* ACK and STOP are for a sender; unknown types are ABORTed. */
	if (type < 0 || type == MAD_RMPP_TYPE_ACK || type == MAD_RMPP_TYPE_STOP)
		return -EINVAL;
	if (type == MAD_RMPP_TYPE_DATA && len < MAD_SIZE)
		return -EMSGSIZE;
	if (r->state == RMPP_FAILED)
		return 0; /* ended: what still comes is dropped */
	if (r->state == RMPP_DONE) {
		/* The last ACK may be lost: ACK a sound segment again; the
		 * message stands whatever else comes. */
		if (type == MAD_RMPP_TYPE_DATA && !rmpp_check(mad, len, &status) &&
		    wire_get32(mad + MAD_RMPP_OFF_DATA1) <= r->seg)
			rx_ack(r, mad);
		return 0;
	}
	if (rmpp_check(mad, len, &status)) {
		size_t hdr_len = r->seg ? r->hdr_len : rmpp_hdr_len(mad[MAD_OFF_MGMT_CLASS]);

		if (!hdr_len)
			return -EINVAL;
		return rx_fail(r, mad, hdr_len, MAD_RMPP_TYPE_ABORT, status, now_ms);
	}
	if (type == MAD_RMPP_TYPE_ABORT) {
		if (r->state == RMPP_ACTIVE) {
			r->state = RMPP_FAILED;
			r->status = mad[MAD_RMPP_OFF_STATUS];
			r->deadline = now_ms;
			return -EPROTO;
		}
		return 0;
	}
	return rx_data(r, mad, now_ms);
}

size_t rmpp_rx_next(struct rmpp_rx *r, int64_t now_ms, uint8_t out[MAD_SIZE])
{
	uint8_t method;
	int type = r->reply;

	r->now = now_ms;
	if (!type && r->state == RMPP_ACTIVE && now_ms >= r->deadline) {
		/* Too long in all: ABORT (13.6); nothing to answer
		 * before a first segment. */
		r->state = RMPP_FAILED;
		r->status = MAD_RMPP_STATUS_T2L;
		r->deadline = now_ms;
		type = r->seg ? MAD_RMPP_TYPE_ABORT : 0;
	}
	if (!type)
		return 0;
	r->reply = 0;
	method = r->hdr[MAD_OFF_METHOD] ^ MAD_METHOD_RESP_BIT;
	if (type == MAD_RMPP_TYPE_ACK) {
		r->last_ack = r->seg;
		make_ctl(r->hdr, r->hdr_len, method, type, 0, r->seg, r->win, out);
	} else {
		make_ctl(r->hdr, r->hdr_len, method, type, r->status, 0, 0, out);
	}
	return MAD_SIZE;
}

const uint8_t *rmpp_rx_message(const struct rmpp_rx *r, size_t *len)
{
	if (r->state != RMPP_DONE)
		return NULL;
	*len = r->len;
	return r->buf;
}

int64_t rmpp_rx_deadline(const struct rmpp_rx *r)
{
	return r->reply ? r->now : r->deadline;
}

enum rmpp_state rmpp_rx_state(const struct rmpp_rx *r)
{
	return r->state;
}
