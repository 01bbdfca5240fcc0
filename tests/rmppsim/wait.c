/* librmppsim: sends that wait for a response, as the kernel's MAD layer
 * keeps them (ib_mad.c: timeout_ms and retries of struct ib_user_mad).
 *
 * umad2sim passes a send's timeout to no one: a request whose response
 * never comes (ibsim drops what was queued for a client killed with -9)
 * is outstanding for ever, and OpenSM's next sweep waits for it without
 * end (wait_for_pending_transactions). The kernel resends the request
 * `retries` times, each after timeout_ms, then hands the sender its MAD
 * header back with status ETIMEDOUT (ib_umad.c, send_handler); OpenSM's
 * receiver and libibmad take that as the request's failure. A response
 * of the same class and agent whose TID matches in its low 32 bits (the
 * part OpenSM matches, get_madw) ends the wait; so does ibsim's own
 * echo of the request with status ETIMEDOUT (a client it knows is gone). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/umad.h>

#include "mad.h"
#include "rmppsim.h"
#include "wire.h"

/* IBTA Vol 1 13.4.5: the response bit of Method; TrapRepress answers a
 * Trap without it. */
#define RS_METHOD_TRAP_REPRESS 0x07

_Static_assert(sizeof(struct ib_user_mad) == 64, "rs_wait.buf holds a umad header of 64 bytes");

static int is_response(const uint8_t *mad)
{
	return (mad[MAD_OFF_METHOD] & MAD_METHOD_RESP_BIT) ||
	       mad[MAD_OFF_METHOD] == RS_METHOD_TRAP_REPRESS;
}

int rs_wait_add(struct rs_waits *ws, const void *buf, size_t len, int64_t now)
{
	const struct ib_user_mad *u = buf;
	const uint8_t *mad = (const uint8_t *)buf + sizeof(*u);
	struct rs_wait *w;

	if (!u->timeout_ms || len < sizeof(*u) + MAD_HDR_SIZE ||
	    len > sizeof(w->buf) || is_response(mad))
		return 0;
	if (ws->n == ws->cap) {
		size_t cap = ws->cap ? 2 * ws->cap : 16;
		struct rs_wait *nw;

		if (cap > RS_WAIT_MAX)
			return -ENOSPC;
		nw = realloc(ws->w, cap * sizeof(*nw));
		if (!nw)
			return -ENOMEM;
		ws->w = nw;
		ws->cap = cap;
	}
	w = &ws->w[ws->n++];
	w->agent = u->agent_id;
	w->mgmt_class = mad[MAD_OFF_MGMT_CLASS];
	w->tid_lo = (uint32_t)wire_get64(mad + MAD_OFF_TID);
	w->timeout_ms = u->timeout_ms;
	w->retries = u->retries;
	w->deadline = now + u->timeout_ms;
	w->len = len;
	memcpy(w->buf, buf, len);
	return 1;
}

static void drop(struct rs_waits *ws, size_t i)
{
	ws->w[i] = ws->w[--ws->n];
}

int rs_wait_answered(struct rs_waits *ws, uint32_t agent, const uint8_t *mad, size_t len,
		     uint32_t status)
{
	uint32_t tid_lo;
	size_t i;

	if (len < MAD_HDR_SIZE || (!status && !is_response(mad)))
		return 0;
	tid_lo = (uint32_t)wire_get64(mad + MAD_OFF_TID);
	for (i = 0; i < ws->n; i++)
		if (ws->w[i].tid_lo == tid_lo && ws->w[i].agent == agent &&
		    ws->w[i].mgmt_class == mad[MAD_OFF_MGMT_CLASS]) {
			drop(ws, i);
			return 1;
		}
	return 0;
}

int64_t rs_wait_deadline(const struct rs_waits *ws)
{
	int64_t d = INT64_MAX;
	size_t i;

	for (i = 0; i < ws->n; i++)
		if (ws->w[i].deadline < d)
			d = ws->w[i].deadline;
	return d;
}

void rs_wait_due(struct rs_waits *ws, int64_t now, rs_resend_fn resend, rs_expire_fn expire,
		 void *ctx)
{
	size_t i = 0;

	while (i < ws->n) {
		struct rs_wait *w = &ws->w[i];

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
			uint64_t tid;

			/* What the kernel returns: the umad header with
			 * ETIMEDOUT and the MAD header, its TID carrying the
			 * agent as umad2sim sent it. */
			memcpy(&h, w->buf, sizeof(h));
			memcpy(hdr, w->buf + sizeof(h), MAD_HDR_SIZE);
			tid = wire_get64(hdr + MAD_OFF_TID);
			tid = (tid & 0xffff0000ffffffffULL) | ((uint64_t)(w->agent & 0xffff) << 32);
			wire_put64(hdr + MAD_OFF_TID, tid);
			h.status = ETIMEDOUT;
			h.timeout_ms = 0;
			h.retries = 0;
			h.length = (uint32_t)(sizeof(h) + MAD_HDR_SIZE);
			drop(ws, i);
			expire(ctx, &h, hdr, MAD_HDR_SIZE);
		}
	}
}

void rs_wait_clear(struct rs_waits *ws)
{
	free(ws->w);
	memset(ws, 0, sizeof(*ws));
}
