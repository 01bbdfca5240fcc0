/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The RMPP transactions of one agent, for a umad shim. The key names the
 * DATA direction: the whole TID as on the wire, the peer's LID, the class
 * and the DATA segments' method. The MAD layer sets the high 32 TID bits
 * of a MAD without the response bit (an ACK of response DATA, say) to the
 * sending agent's (ib_umad: the agent's hi_tid); sent by the agent that
 * sent the request, it gets the bits the request got, so the TID still
 * matches. A sender of request DATA knows its TID only as written,
 * before those bits are set: a shim there compares the low 32 bits only
 * (tid_mask), as OpenSM matches answers (libvendor get_madw). A
 * receiver that ended lingers until its deadline (ACKing the sender's
 * repeats): take its message before rmpp_table_expire(). */
#ifndef IBATS_RMPP_TABLE_H
#define IBATS_RMPP_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "rmpp.h"

struct rmpp_table_key {
	uint64_t tid;
	uint16_t lid;
	uint8_t mgmt_class;
	uint8_t method;
};

enum rmpp_table_role { RMPP_TABLE_TX, RMPP_TABLE_RX };

struct rmpp_table_entry {
	int used;
	struct rmpp_table_key key;
	enum rmpp_table_role role;
	union {
		struct rmpp_tx tx;
		struct rmpp_rx rx;
	} u;
};

struct rmpp_table {
	struct rmpp_table_entry *e;
	size_t cap;
	uint64_t tid_mask; /* the TID bits that name a transaction: all by default */
};

int rmpp_table_init(struct rmpp_table *t, size_t cap);
void rmpp_table_fini(struct rmpp_table *t);
struct rmpp_table_entry *rmpp_table_find(struct rmpp_table *t, const struct rmpp_table_key *k,
				   enum rmpp_table_role role);
/* A free entry for k; its tx or rx is the caller's to init. When the
 * table is full, an ended entry that only lingers makes room. NULL when
 * every entry is under way or k is there already. */
struct rmpp_table_entry *rmpp_table_add(struct rmpp_table *t, const struct rmpp_table_key *k,
				  enum rmpp_table_role role);
/* Finishes the entry's tx or rx and frees the slot. */
void rmpp_table_remove(struct rmpp_table *t, struct rmpp_table_entry *e);
/* The entry a received RMPP MAD belongs to: DATA to a receiver keyed by
 * its method; ACK and STOP to a sender (their method is the DATA's with
 * the response bit flipped); ABORT to either. NULL when none. */
struct rmpp_table_entry *rmpp_table_lookup(struct rmpp_table *t, const uint8_t *mad, size_t len,
				     uint16_t lid);
/* Dispatch to the entry's tx or rx. */
int rmpp_table_entry_recv(struct rmpp_table_entry *e, const uint8_t *mad, size_t len, int64_t now_ms);
size_t rmpp_table_entry_next(struct rmpp_table_entry *e, int64_t now_ms, uint8_t out[MAD_SIZE]);
int64_t rmpp_table_entry_deadline(const struct rmpp_table_entry *e);
enum rmpp_state rmpp_table_entry_state(const struct rmpp_table_entry *e);
/* The earliest deadline of all entries (INT64_MAX when none). */
int64_t rmpp_table_deadline(const struct rmpp_table *t);
/* Removes the entries that ended (done or failed, nothing left to send)
 * and whose deadline passed. Returns how many. */
size_t rmpp_table_expire(struct rmpp_table *t, int64_t now_ms);

#endif
