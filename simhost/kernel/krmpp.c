/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The simulated kernel's RMPP plumbing: see krmpp.h. */
#include <errno.h>
#include <string.h>

#include "krmpp.h"
#include "core/mad.h"
#include "core/wire.h"

/* mad_rmpp.c: a receiver opens windows of window_size() segments (the
 * GSI receive queue's 512 >> 3: 64) and lingers 10 s after the end
 * (complete_rmpp's cleanup_work); a whole transfer gets 40 s
 * (start_rmpp's timeout_work, rmpp_cfg_default). A sender's ACK wait and
 * retries come from each send's umad header (krmpp_send). A received
 * message is capped by memory alone in mad_rmpp.c; the bench's largest
 * is a GetTable of 1M ServiceRecords, some 180 MB. */
#define KRMPP_WINDOW 64
#define KRMPP_LINGER_MS 10000
#define KRMPP_MAX_LEN (256u << 20)
/* mad_rmpp.c send_next_seg: "2 seconds for an ACK until we can find the
 * packet lifetime", or the send's own timeout_ms when shorter. */
#define KRMPP_ACK_MAX_MS 2000

int krmpp_init(struct krmpp *r)
{
	memset(r, 0, sizeof(*r));
	rmpp_cfg_default(&r->cfg);
	r->cfg.window = KRMPP_WINDOW;
	r->cfg.max_len = KRMPP_MAX_LEN;
	r->cfg.linger_ms = KRMPP_LINGER_MS;
	return rmpp_table_init(&r->tab, KRMPP_CAP);
}

void krmpp_fini(struct krmpp *r)
{
	rmpp_table_fini(&r->tab);
}

int krmpp_class(uint8_t mgmt_class)
{
	return rmpp_hdr_len(mgmt_class) != 0;
}

static size_t slot_of(const struct krmpp *r, const struct rmpp_table_entry *e)
{
	return (size_t)(e - r->tab.e);
}

/* What entry e has due now; a window at most per call (the cap guards
 * against a loop). */
static void flush(struct krmpp *r, struct rmpp_table_entry *e, int64_t now, krmpp_out_fn out,
		  void *ctx)
{
	uint8_t seg[MAD_SIZE];
	int n;

	for (n = 0; n < 4096 && rmpp_table_entry_next(e, now, seg); n++)
		out(ctx, &r->hdr[slot_of(r, e)], seg);
}

static void key_of(struct rmpp_table_key *k, const struct ib_user_mad *hdr, const uint8_t *mad)
{
	memset(k, 0, sizeof(*k));
	k->tid = wire_get64(mad + MAD_OFF_TID);
	k->lid = ntohs(hdr->addr.lid);
	k->mgmt_class = mad[MAD_OFF_MGMT_CLASS];
	k->method = mad[MAD_OFF_METHOD];
}

void krmpp_send_cfg(struct rmpp_cfg *cfg, const struct ib_user_mad *hdr)
{
	/* send_next_seg: the ACK wait is timeout_ms, 2 s when it is 0 or
	 * longer; ib_post_send_mad: retries_left = the header's retries
	 * (process_rmpp_ack gives them back on progress; timeout_sends'
	 * retry_send spends one per wait without an ACK, ib_retry_rmpp
	 * resends from the last ACK). */
	cfg->ack_ms = hdr->timeout_ms && hdr->timeout_ms <= KRMPP_ACK_MAX_MS ? hdr->timeout_ms
									   : KRMPP_ACK_MAX_MS;
	cfg->retries = hdr->retries;
}

int krmpp_sending(const struct krmpp *r, const struct ib_user_mad *hdr, const uint8_t *mad)
{
	uint64_t tid = wire_get64(mad + MAD_OFF_TID);
	size_t i;

	/* user_mad.c is_duplicate for a response: one with the TID and
	 * class still on the send list to the same destination
	 * (same_destination: the LID, neither with a GRH). A kernel RMPP
	 * send stays there until its last ACK (or its failure). */
	for (i = 0; i < r->tab.cap; i++) {
		const struct rmpp_table_entry *e = &r->tab.e[i];

		if (e->used && e->role == RMPP_TABLE_TX && e->key.tid == tid &&
		    e->key.mgmt_class == mad[MAD_OFF_MGMT_CLASS] &&
		    rmpp_tx_state(&e->u.tx) == RMPP_ACTIVE &&
		    r->hdr[i].addr.lid == hdr->addr.lid &&
		    !r->hdr[i].addr.grh_present && !hdr->addr.grh_present)
			return 1;
	}
	return 0;
}

int krmpp_send(struct krmpp *r, const struct ib_user_mad *hdr, const uint8_t *mad, size_t len,
	       int64_t now, krmpp_out_fn out, void *ctx)
{
	size_t hdr_len = rmpp_hdr_len(mad[MAD_OFF_MGMT_CLASS]);
	struct rmpp_table_entry *e;
	struct rmpp_cfg cfg = r->cfg;
	struct rmpp_table_key k;
	int ret;

	key_of(&k, hdr, mad);
	e = rmpp_table_find(&r->tab, &k, RMPP_TABLE_TX);
	if (e) /* the same TID again: the old transfer is over */
		rmpp_table_remove(&r->tab, e);
	e = rmpp_table_add(&r->tab, &k, RMPP_TABLE_TX);
	if (!e)
		return -ENOMEM;
	krmpp_send_cfg(&cfg, hdr);
	ret = rmpp_tx_init(&e->u.tx, mad, len, hdr_len, &cfg, now);
	if (ret) {
		rmpp_table_remove(&r->tab, e);
		return ret;
	}
	r->hdr[slot_of(r, e)] = *hdr;
	flush(r, e, now, out, ctx);
	return 0;
}

int krmpp_recv(struct krmpp *r, const struct ib_user_mad *hdr, const uint8_t *mad, size_t len,
	       int64_t now, krmpp_out_fn out, krmpp_msg_fn msg, void *ctx)
{
	size_t hdr_len = rmpp_hdr_len(mad[MAD_OFF_MGMT_CLASS]);
	struct rmpp_table_entry *e;
	uint8_t reply[MAD_SIZE];
	enum rmpp_state was;
	int type, ret;

	if (!hdr_len || len < MAD_RMPP_HDR_END)
		return 0;
	type = rmpp_type(mad, len);
	/* mad_rmpp.c ib_process_rmpp_recv_wc: another version is ABORTed
	 * (UNV) at once, no transfer takes it. */
	if (mad[MAD_RMPP_OFF_VERSION] != MAD_RMPP_VERSION) {
		if (type != MAD_RMPP_TYPE_ABORT) {
			rmpp_reply(mad, hdr_len, MAD_RMPP_TYPE_ABORT, MAD_RMPP_STATUS_UNV, reply);
			out(ctx, hdr, reply);
		}
		return 0;
	}
	e = rmpp_table_lookup(&r->tab, mad, len, ntohs(hdr->addr.lid));
	/* Only the FIRST segment starts a receiver (13.6.5.1); anything
	 * else of no transfer is dropped, its sender resends or gives up. */
	if (!e && type == MAD_RMPP_TYPE_DATA && wire_get32(mad + MAD_RMPP_OFF_DATA1) == 1 &&
	    (mad[MAD_RMPP_OFF_FLAGS] & MAD_RMPP_FLAG_FIRST)) {
		struct rmpp_table_key k;

		key_of(&k, hdr, mad);
		e = rmpp_table_add(&r->tab, &k, RMPP_TABLE_RX);
		if (e) {
			rmpp_rx_init(&e->u.rx, &r->cfg, now);
			r->hdr[slot_of(r, e)] = *hdr;
		}
	}
	if (!e)
		return 0;
	was = rmpp_table_entry_state(e);
	ret = rmpp_table_entry_recv(e, mad, len, now);
	flush(r, e, now, out, ctx);
	if (e->role == RMPP_TABLE_TX && was == RMPP_ACTIVE && rmpp_table_entry_state(e) == RMPP_DONE)
		return KRMPP_SENT;
	if (ret == 1 && e->role == RMPP_TABLE_RX) {
		size_t mlen;
		const uint8_t *m = rmpp_rx_message(&e->u.rx, &mlen);
		struct ib_user_mad h = r->hdr[slot_of(r, e)];

		if (m) {
			h.length = (uint32_t)(sizeof(h) + mlen);
			msg(ctx, &h, m, mlen);
		}
	}
	return 0;
}

void krmpp_timers(struct krmpp *r, int64_t now, krmpp_out_fn out, void *ctx)
{
	size_t i;

	for (i = 0; i < r->tab.cap; i++) {
		struct rmpp_table_entry *e = &r->tab.e[i];

		if (e->used && rmpp_table_entry_deadline(e) <= now)
			flush(r, e, now, out, ctx);
	}
	rmpp_table_expire(&r->tab, now);
}

int64_t krmpp_deadline(const struct krmpp *r)
{
	return rmpp_table_deadline(&r->tab);
}

void krmpp_drop_agent(struct krmpp *r, uint32_t agent_id)
{
	size_t i;

	for (i = 0; i < r->tab.cap; i++)
		if (r->tab.e[i].used && r->hdr[i].agent_id == agent_id)
			rmpp_table_remove(&r->tab, &r->tab.e[i]);
}
