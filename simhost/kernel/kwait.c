/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The simulated kernel's sends that wait for a response (kwait.h).
 *
 * The kernel resends a request `retries` times, each after timeout_ms,
 * then hands the sender its MAD header back with status ETIMEDOUT
 * (mad.c timeout_sends, user_mad.c send_handler); OpenSM's receiver and
 * libibmad take that as the request's failure. A response of the same
 * class whose TID matches in its low 32 bits ends the wait (mad.c
 * ib_find_send_mad; the upper half is the agent's hi_tid, which routed
 * the response to this agent's list). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/umad.h>

#include "kwait.h"
#include "core/mad.h"
#include "core/wire.h"

/* IBTA Vol 1 13.4.5: the response bit of Method; TrapRepress answers a
 * Trap without it. */
#define KWAIT_METHOD_TRAP_REPRESS 0x07

_Static_assert(sizeof(struct ib_user_mad) == 64, "kwait.buf holds a umad header of 64 bytes");

static int is_response(const uint8_t *mad)
{
	return (mad[MAD_OFF_METHOD] & MAD_METHOD_RESP_BIT) ||
	       mad[MAD_OFF_METHOD] == KWAIT_METHOD_TRAP_REPRESS;
}

void kwait_init(struct kwaits *ws)
{
	memset(ws, 0, sizeof(*ws));
}

void kwait_fini(struct kwaits *ws)
{
	free(ws->w);
	memset(ws, 0, sizeof(*ws));
}

int kwait_add(struct kwaits *ws, const void *buf, size_t len, int64_t now)
{
	const struct ib_user_mad *u = buf;
	const uint8_t *mad = (const uint8_t *)buf + sizeof(*u);
	struct kwait *w;

	if (!u->timeout_ms || len < sizeof(*u) + MAD_HDR_SIZE ||
	    len > sizeof(w->buf) || is_response(mad))
		return 0;
	if (ws->n == ws->cap) {
		size_t cap = ws->cap ? 2 * ws->cap : 16;
		struct kwait *nw;

		if (cap > KWAIT_MAX)
			return -ENOSPC;
		nw = realloc(ws->w, cap * sizeof(*nw));
		if (!nw)
			return -ENOMEM;
		ws->w = nw;
		ws->cap = cap;
	}
	w = &ws->w[ws->n++];
	w->mgmt_class = mad[MAD_OFF_MGMT_CLASS];
	w->tid_lo = (uint32_t)wire_get64(mad + MAD_OFF_TID);
	w->timeout_ms = u->timeout_ms;
	w->retries = u->retries;
	w->deadline = now + u->timeout_ms;
	w->len = len;
	memcpy(w->buf, buf, len);
	return 1;
}

static void drop(struct kwaits *ws, size_t i)
{
	ws->w[i] = ws->w[--ws->n];
}

int kwait_answered(struct kwaits *ws, const uint8_t *mad, size_t len)
{
	uint32_t tid_lo;
	size_t i;

	if (len < MAD_HDR_SIZE || !is_response(mad))
		return 0;
	tid_lo = (uint32_t)wire_get64(mad + MAD_OFF_TID);
	for (i = 0; i < ws->n; i++)
		if (ws->w[i].tid_lo == tid_lo && ws->w[i].mgmt_class == mad[MAD_OFF_MGMT_CLASS]) {
			drop(ws, i);
			return 1;
		}
	return 0;
}

int64_t kwait_deadline(const struct kwaits *ws)
{
	int64_t d = INT64_MAX;
	size_t i;

	for (i = 0; i < ws->n; i++)
		if (ws->w[i].deadline < d)
			d = ws->w[i].deadline;
	return d;
}

void kwait_due(struct kwaits *ws, int64_t now, kwait_resend_fn resend, kwait_expire_fn expire,
	       void *ctx)
{
	size_t i = 0;

	while (i < ws->n) {
		struct kwait *w = &ws->w[i];

		if (w->deadline > now) {
			i++;
		} else if (w->retries) {
			w->retries--;
			w->deadline = now + w->timeout_ms;
			resend(ctx, w->buf, w->len);
			i++;
		} else {
			struct ib_user_mad h;
			uint8_t hdr[MAD_HDR_SIZE];

			/* What user_mad.c send_handler queues: the umad
			 * header with ETIMEDOUT and the MAD header as sent
			 * (its TID carrying the agent's hi_tid). */
			memcpy(&h, w->buf, sizeof(h));
			memcpy(hdr, w->buf + sizeof(h), MAD_HDR_SIZE);
			h.status = ETIMEDOUT;
			h.timeout_ms = 0;
			h.retries = 0;
			h.length = (uint32_t)(sizeof(h) + MAD_HDR_SIZE);
			drop(ws, i);
			expire(ctx, &h, hdr, MAD_HDR_SIZE);
		}
	}
}
