/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The RMPP transactions of one agent (rmpp_table.h): a small array
 * searched in full, as an agent has few transfers under way at once. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rmpp_table.h"
#include "core/wire.h"

int rmpp_table_init(struct rmpp_table *t, size_t cap)
{
	t->cap = 0;
	t->tid_mask = ~0ULL;
	if (!cap)
		return -EINVAL;
	t->e = calloc(cap, sizeof(*t->e));
	if (!t->e)
		return -ENOMEM;
	t->cap = cap;
	return 0;
}

void rmpp_table_fini(struct rmpp_table *t)
{
	size_t i;

	for (i = 0; i < t->cap; i++)
		if (t->e[i].used)
			rmpp_table_remove(t, &t->e[i]);
	free(t->e);
	t->e = NULL;
	t->cap = 0;
}

static int same_key(const struct rmpp_table_key *a, const struct rmpp_table_key *b, uint64_t tid_mask)
{
	return !((a->tid ^ b->tid) & tid_mask) && a->lid == b->lid && a->mgmt_class == b->mgmt_class &&
	       a->method == b->method;
}

struct rmpp_table_entry *rmpp_table_find(struct rmpp_table *t, const struct rmpp_table_key *k,
				   enum rmpp_table_role role)
{
	size_t i;

	for (i = 0; i < t->cap; i++)
		if (t->e[i].used && t->e[i].role == role && same_key(&t->e[i].key, k, t->tid_mask))
			return &t->e[i];
	return NULL;
}

/* An ended entry with nothing left to send lingers only to answer a
 * peer's repeats: of those, the one whose lingering ends first. */
static struct rmpp_table_entry *oldest_ended(struct rmpp_table *t)
{
	struct rmpp_table_entry *best = NULL, *e;
	size_t i;

	for (i = 0; i < t->cap; i++) {
		e = &t->e[i];
		if (!e->used || rmpp_table_entry_state(e) == RMPP_ACTIVE ||
		    (e->role == RMPP_TABLE_TX ? e->u.tx.abort_pending : e->u.rx.reply))
			continue;
		if (!best || rmpp_table_entry_deadline(e) < rmpp_table_entry_deadline(best))
			best = e;
	}
	return best;
}

struct rmpp_table_entry *rmpp_table_add(struct rmpp_table *t, const struct rmpp_table_key *k,
				  enum rmpp_table_role role)
{
	struct rmpp_table_entry *e = NULL;
	size_t i;

	if (rmpp_table_find(t, k, role))
		return NULL;
	for (i = 0; i < t->cap && !e; i++)
		if (!t->e[i].used)
			e = &t->e[i];
	/* Full: a new transfer goes before an old one's lingering. */
	if (!e && (e = oldest_ended(t)))
		rmpp_table_remove(t, e);
	if (!e)
		return NULL;
	memset(e, 0, sizeof(*e));
	e->used = 1;
	e->key = *k;
	e->role = role;
	return e;
}

void rmpp_table_remove(struct rmpp_table *t, struct rmpp_table_entry *e)
{
	(void)t;
	if (e->role == RMPP_TABLE_TX)
		rmpp_tx_fini(&e->u.tx);
	else
		rmpp_rx_fini(&e->u.rx);
	e->used = 0;
}

struct rmpp_table_entry *rmpp_table_lookup(struct rmpp_table *t, const uint8_t *mad, size_t len,
				     uint16_t lid)
{
	struct rmpp_table_key k;
	struct rmpp_table_entry *e;
	int type = rmpp_type(mad, len);

	if (type < 0)
		return NULL;
	k.tid = wire_get64(mad + MAD_OFF_TID);
	k.lid = lid;
	k.mgmt_class = mad[MAD_OFF_MGMT_CLASS];
	k.method = mad[MAD_OFF_METHOD];
	if (type == MAD_RMPP_TYPE_DATA)
		return rmpp_table_find(t, &k, RMPP_TABLE_RX);
	/* ABORT (or an unknown type) may come from a sender, with the
	 * DATA's method, or from a receiver. */
	if (type != MAD_RMPP_TYPE_ACK && type != MAD_RMPP_TYPE_STOP &&
	    (e = rmpp_table_find(t, &k, RMPP_TABLE_RX)))
		return e;
	k.method ^= MAD_METHOD_RESP_BIT;
	return rmpp_table_find(t, &k, RMPP_TABLE_TX);
}

int rmpp_table_entry_recv(struct rmpp_table_entry *e, const uint8_t *mad, size_t len, int64_t now_ms)
{
	return e->role == RMPP_TABLE_TX ? rmpp_tx_recv(&e->u.tx, mad, len, now_ms)
				  : rmpp_rx_recv(&e->u.rx, mad, len, now_ms);
}

size_t rmpp_table_entry_next(struct rmpp_table_entry *e, int64_t now_ms, uint8_t out[MAD_SIZE])
{
	return e->role == RMPP_TABLE_TX ? rmpp_tx_next(&e->u.tx, now_ms, out)
				  : rmpp_rx_next(&e->u.rx, now_ms, out);
}

int64_t rmpp_table_entry_deadline(const struct rmpp_table_entry *e)
{
	return e->role == RMPP_TABLE_TX ? rmpp_tx_deadline(&e->u.tx) : rmpp_rx_deadline(&e->u.rx);
}

enum rmpp_state rmpp_table_entry_state(const struct rmpp_table_entry *e)
{
	return e->role == RMPP_TABLE_TX ? rmpp_tx_state(&e->u.tx) : rmpp_rx_state(&e->u.rx);
}

int64_t rmpp_table_deadline(const struct rmpp_table *t)
{
	int64_t d = INT64_MAX, x;
	size_t i;

	for (i = 0; i < t->cap; i++) {
		if (!t->e[i].used)
			continue;
		x = rmpp_table_entry_deadline(&t->e[i]);
		if (x < d)
			d = x;
	}
	return d;
}

size_t rmpp_table_expire(struct rmpp_table *t, int64_t now_ms)
{
	const struct rmpp_table_entry *e;
	size_t i, n = 0;
	int pending;

	for (i = 0; i < t->cap; i++) {
		e = &t->e[i];
		if (!e->used || rmpp_table_entry_state(e) == RMPP_ACTIVE)
			continue;
		pending = e->role == RMPP_TABLE_TX ? e->u.tx.abort_pending : e->u.rx.reply;
		if (!pending && rmpp_table_entry_deadline(e) <= now_ms) {
			rmpp_table_remove(t, &t->e[i]);
			n++;
		}
	}
	return n;
}
