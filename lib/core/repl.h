/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* SM-to-SM replication of the SA's ServiceRecords (doc/design.md,
 * "Standby SMs"): the plugin on a standby SM pulls the master's changes,
 * one per MAD, over a vendor range-2 class of the OpenIB OUI (IBTA Vol 1
 * 13.4.2, Table 149: class data from byte 40, 216 bytes). The standby
 * asks (Get) and the master only answers (GetResp), so nothing is ever
 * sent to an SM that did not ask. Both carry an authentication tag made
 * with a key the SMs share (plugin/replauth.h): version 1 carried
 * OpenSM's SM_Key instead, which any host reads with SubnGet(SMInfo). */
#ifndef IBATS_REPL_H
#define IBATS_REPL_H

#include <stddef.h>
#include <stdint.h>

#include "sr.h"

#define REPL_CLASS 0x35
/* 2: the SM_Key field gave way to an authentication tag (plugin/replauth.h). */
#define REPL_CLASS_VERSION 2
#define REPL_ATTR 0xFF10

/* Byte offsets in the MAD. The attribute modifier (byte 20) holds the
 * pull's flags and the answer's kind. The class data (Table 149: bytes
 * 40..255) holds a 16-byte tag beside a whole ServiceRecord, so an
 * answer with a record has no room for the master's head: the standby
 * takes the larger of the head it knew and the record's seq. */
enum {
	REPL_OFF_MOD = 20,
	REPL_OFF_EPOCH = 40,     /* the master's epoch (pull: the one held) */
	REPL_OFF_NEXT = 48,      /* pull: next sequence wanted; in a snapshot,
				  * the snapshot's sequence */
	REPL_OFF_SEQ = 48,       /* answer: this change's (snapshot: its seq) */
	REPL_OFF_LEASE = 56,     /* answer: lease seconds left, ~0 infinite */
	REPL_OFF_POS = 60,       /* snapshot position (pull and answer) */
	REPL_OFF_TAG = 64,       /* both: the authentication tag */
	REPL_OFF_RECORD = 80,    /* the ServiceRecord, 176 bytes */
	REPL_OFF_HEAD = 80,      /* answers without a record: the master's
				  * newest sequence */
	REPL_OFF_ACK_MS = 88,    /* and its ack timeout in ms */
	REPL_OFF_CAPS = 92,      /* and what it serves (REPL_CAP_*); an
				  * earlier master left it 0 */
};
#define REPL_TAG_SIZE 16
_Static_assert(REPL_OFF_SEQ + 8 == REPL_OFF_LEASE && REPL_OFF_LEASE + 4 == REPL_OFF_POS &&
	       REPL_OFF_POS + 4 == REPL_OFF_TAG, "the fields before the tag are packed");
_Static_assert(REPL_OFF_TAG + REPL_TAG_SIZE == REPL_OFF_RECORD, "the tag ends where the record starts");
_Static_assert(REPL_OFF_RECORD + SR_SIZE == 256, "one record fills one MAD");
_Static_assert(REPL_OFF_HEAD + 8 == REPL_OFF_ACK_MS && REPL_OFF_ACK_MS + 4 == REPL_OFF_CAPS,
	       "head, ack_ms, then caps");

#define REPL_FLAG_SNAPSHOT 0x01  /* pull: the snapshot record at pos */
#define REPL_FLAG_LEAVING 0x02   /* pull: this standby stops; no answer */
#define REPL_FLAG_FINAL 0x04     /* snapshot pull to an SM that just stepped
				  * down: its list as it left it */
/* Stream pull: not an ack. A standby pulls a window of changes at once
 * (next = N, N + 1, ...): only the first acks (N - 1); the others must
 * not, since the standby has not applied what they ask after. The master
 * answers them at once, NONE when the change is not made yet, never
 * holds them. Sent only to a master that announced REPL_CAP_WINDOW: an
 * earlier one refuses the unknown flag (no answer). Alone, or with no
 * other flag. */
#define REPL_FLAG_NOACK 0x08
#define REPL_FLAGS (REPL_FLAG_SNAPSHOT | REPL_FLAG_LEAVING | REPL_FLAG_FINAL | REPL_FLAG_NOACK)

/* Answers without a record: what the master serves. The field was 0
 * before, and an earlier standby never reads it. */
#define REPL_CAP_WINDOW 0x00000001u /* REPL_FLAG_NOACK pulls */

enum repl_kind {
	REPL_NONE = 0,          /* up to date: nothing after next - 1 */
	REPL_SET = 1,           /* the record of seq is now this */
	REPL_DELETE = 2,        /* the record of this RID is gone */
	REPL_SNAP_RECORD = 3,   /* snapshot record number pos */
	REPL_SNAP_END = 4,      /* pos records, whole as of seq */
	REPL_SNAP_NEEDED = 5,   /* other epoch, or behind the master's log */
	REPL_KINDS
};

struct repl_pull {
	uint64_t epoch, next;
	uint32_t pos;
	uint8_t flags;
};

struct repl_answer {
	uint64_t epoch, seq;
	enum repl_kind kind;
	uint32_t lease_left;
	uint32_t pos;
	uint64_t head;            /* kinds without a record */
	uint32_t ack_ms;          /* kinds without a record */
	uint32_t caps;            /* kinds without a record: REPL_CAP_*, any
				   * bit (later ones kept, unread) */
	uint8_t rec[SR_SIZE];     /* kinds with one, byte for byte */
};

int repl_kind_has_record(enum repl_kind k);

/* A whole MAD (256 bytes) with the given TID and a zero tag: the
 * plugin signs it after (replauth_sign). */
void repl_pull_encode(uint8_t *mad, uint64_t tid, const struct repl_pull *p);
void repl_answer_encode(uint8_t *mad, uint64_t tid, const struct repl_answer *a);
/* -EMSGSIZE short, -EPROTO another class, version, attribute, OUI or
 * method, an unknown kind or pull flag, or NOACK with another flag. The
 * tag is not looked at (replauth_verify). */
int repl_pull_decode(const uint8_t *mad, size_t len, struct repl_pull *p);
int repl_answer_decode(const uint8_t *mad, size_t len, struct repl_answer *a);

#endif
