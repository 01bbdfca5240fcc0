/* SM-to-SM replication of the SA's ServiceRecords (draft for issue 14,
 * doc/replication-draft.md): a standby's plugin pulls the master's
 * changes, one per MAD, over a vendor range-2 class of the OpenIB OUI
 * (IBTA Vol 1 13.4.2, Table 149: data from byte 40, 216 bytes). */
#ifndef IBATS_REPL_H
#define IBATS_REPL_H

#include <stddef.h>
#include <stdint.h>

#include "sr.h"

#define REPL_CLASS 0x35
#define REPL_CLASS_VERSION 1
#define REPL_ATTR_PULL 0xFF10

/* Byte offsets in the MAD. */
enum {
	/* Pull (Get, standby -> master). */
	REPL_OFF_EPOCH = 40,
	REPL_OFF_NEXT = 48,      /* first sequence number wanted */
	REPL_OFF_SMKEY = 56,
	REPL_OFF_FLAGS = 64,
	/* Answer (GetResp): epoch at 40, then */
	REPL_OFF_HEAD = 48,      /* the master's newest sequence number */
	REPL_OFF_SEQ = 56,       /* this change's, 0 with none */
	REPL_OFF_KIND = 64,
	REPL_OFF_LEASE = 68,     /* seconds left, 0xFFFFFFFF infinite */
	REPL_OFF_POS = 72,       /* snapshot: this record's position */
	REPL_OFF_TOTAL = 76,     /* snapshot: how many */
	REPL_OFF_RECORD = 80,    /* the ServiceRecord, 176 bytes */
};
_Static_assert(REPL_OFF_RECORD + SR_SIZE == 256, "one record fills one MAD");

#define REPL_FLAG_SNAPSHOT 0x01  /* the standby asks for a snapshot */

enum repl_kind {
	REPL_NONE = 0,          /* up to date: nothing after next - 1 */
	REPL_SET = 1,
	REPL_DELETE = 2,
	REPL_SNAP_RECORD = 3,
	REPL_SNAP_END = 4,      /* the snapshot is whole: stream from seq */
	REPL_SNAP_NEEDED = 5,   /* other epoch, or behind the master's log */
	REPL_KINDS
};

struct repl_pull {
	uint64_t epoch, next, sm_key;
	uint8_t flags;
};

struct repl_answer {
	uint64_t epoch, head, seq;
	enum repl_kind kind;
	uint32_t lease_left;
	uint32_t pos, total;
	struct sr_record rec;   /* REPL_SET, REPL_DELETE, REPL_SNAP_RECORD */
};

/* A whole MAD (256 bytes) with the given TID. */
void repl_pull_encode(uint8_t *mad, uint64_t tid, const struct repl_pull *p);
void repl_answer_encode(uint8_t *mad, uint64_t tid, const struct repl_answer *a);
/* -EMSGSIZE short, -EPROTO another class, attribute, method or an
 * unknown kind. */
int repl_pull_decode(const uint8_t *mad, size_t len, struct repl_pull *p);
int repl_answer_decode(const uint8_t *mad, size_t len, struct repl_answer *a);

#endif
