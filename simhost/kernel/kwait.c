/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The simulated kernel's sends that wait for a response (kwait.h).
 *
 * The kernel resends a request `retries` times, each after timeout_ms,
 * then hands the sender its MAD header back with status ETIMEDOUT
 * (mad.c timeout_sends, user_mad.c send_handler); OpenSM's receiver and
 * libibmad take that as the request's failure. The clock starts when the
 * send completes (mad.c ib_mad_complete_send_wr, wait_for_response),
 * never before the write reached the kernel. A response of the same
 * class whose TID matches in its low 32 bits and that came the same way
 * ends the wait (mad.c ib_find_send_mad, rcv_has_same_gid; the upper
 * half is the agent's hi_tid, which routed the response to this
 * agent's list). */
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
#define KWAIT_CLASS_SMI_DR 0x81

_Static_assert(sizeof(struct ib_user_mad) == 64, "kwait.buf holds a umad header of 64 bytes");

static int is_response(const uint8_t *mad)
{
	return (mad[MAD_OFF_METHOD] & MAD_METHOD_RESP_BIT) ||
	       mad[MAD_OFF_METHOD] == KWAIT_METHOD_TRAP_REPRESS;
}

void kwait_init(struct kwait_set *ws)
{
	memset(ws, 0, sizeof(*ws));
}

void kwait_fini(struct kwait_set *ws)
{
	free(ws->w);
	memset(ws, 0, sizeof(*ws));
}

int kwait_add(struct kwait_set *ws, const void *buf, size_t len, int64_t now)
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
	w->grh = u->addr.grh_present ? 1 : 0;
	w->path_bits = u->addr.path_bits;
	w->deadline = now + u->timeout_ms;
	w->len = len;
	memcpy(w->buf, buf, len);
	return 1;
}

static void drop(struct kwait_set *ws, size_t i)
{
	ws->w[i] = ws->w[--ws->n];
}

/* mad.c rcv_has_same_gid, a request sent and a response received: a GRH
 * on both or on neither; without, the path bits the request left with
 * and those of the DLID the response reached agree under the LMC (with
 * one, the SGID it left from is the response's DGID: ibsim's wire
 * carries no GRH, so none comes). Directed-route SMPs are not checked
 * (ib_find_send_mad: permissive LIDs). */
static int same_way(const struct kwait *w, const uint8_t *mad, const struct kwait_src *src)
{
	static const struct kwait_src base = { 0, 0, 0 };
	unsigned mask;

	if (mad[MAD_OFF_MGMT_CLASS] == KWAIT_CLASS_SMI_DR)
		return 1;
	if (!src)
		src = &base;
	if (w->grh != (src->grh ? 1 : 0))
		return 0;
	if (w->grh)
		return 1;
	mask = src->lmc >= 8 ? 0xffu : (1u << src->lmc) - 1;
	return !src->lmc || !((w->path_bits ^ src->path_bits) & mask);
}

int kwait_answered(struct kwait_set *ws, const uint8_t *mad, size_t len,
		   const struct kwait_src *src)
{
	uint32_t tid_lo;
	size_t i;

	if (len < MAD_HDR_SIZE || !is_response(mad))
		return 0;
	tid_lo = (uint32_t)wire_get64(mad + MAD_OFF_TID);
	for (i = 0; i < ws->n; i++)
		if (ws->w[i].tid_lo == tid_lo && ws->w[i].mgmt_class == mad[MAD_OFF_MGMT_CLASS] &&
		    same_way(&ws->w[i], mad, src)) {
			drop(ws, i);
			return 1;
		}
	return 0;
}

int kwait_pending(const struct kwait_set *ws, uint32_t tid_lo, uint8_t mgmt_class)
{
	size_t i;

	for (i = 0; i < ws->n; i++)
		if (ws->w[i].tid_lo == tid_lo && ws->w[i].mgmt_class == mgmt_class)
			return 1;
	return 0;
}

void kwait_restart(struct kwait_set *ws, uint32_t tid_lo, uint8_t mgmt_class, int64_t now)
{
	size_t i;

	for (i = 0; i < ws->n; i++)
		if (ws->w[i].tid_lo == tid_lo && ws->w[i].mgmt_class == mgmt_class)
			ws->w[i].deadline = now + ws->w[i].timeout_ms;
}

int64_t kwait_deadline(const struct kwait_set *ws)
{
	int64_t d = INT64_MAX;
	size_t i;

	for (i = 0; i < ws->n; i++)
		if (ws->w[i].deadline < d)
			d = ws->w[i].deadline;
	return d;
}

void kwait_due(struct kwait_set *ws, int64_t now, kwait_resend_fn resend, kwait_expire_fn expire,
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
