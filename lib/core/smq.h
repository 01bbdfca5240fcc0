/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The SM query class: a host asks the plugin on the SM port why its last
 * ServiceRecord requests were refused (attribute REFUSALS) and what the
 * plugin sees (SMINFO: role, replication, records, counters, version;
 * STANDBYS: on a master, each standby SM pulling its log).
 * A vendor range-2 class of the OpenIB OUI of its own (IBTA Vol 1
 * 13.4.2, Table 149: RMPP header at 24, OUI at 37, class data 40..255):
 * the public liveness protocol (0x34) keeps its types, and replication
 * (0x35) its authenticated transport. One MAD each way, Get and GetResp;
 * an answer longer than one MAD is paged by the attribute modifier (the
 * page wanted), never RMPP. Layout: doc/design.md, "Asking the SM". */
#ifndef IBATS_SMQ_H
#define IBATS_SMQ_H

#include <stddef.h>
#include <stdint.h>

#include "mad.h"

#define SMQ_CLASS 0x36
#define SMQ_CLASS_VERSION 1
#define SMQ_ATTR_REFUSALS 0xFF20
#define SMQ_ATTR_SMINFO 0xFF21
#define SMQ_ATTR_STANDBYS 0xFF22

/* Byte offsets in the MAD. Both answers start with the page header. */
enum {
	SMQ_OFF_KEY = 40,       /* request: the site sa_key (SMINFO), or 0 */
	SMQ_OFF_TOTAL = 40,     /* answer: REFUSALS entries held / SMINFO pages */
	SMQ_OFF_COUNT = 41,     /* answer: entries in this page */
	SMQ_OFF_FLAGS = 42,     /* answer: SMQ_INFO_* (SMINFO) */
	SMQ_OFF_GEN = 44,       /* answer: REFUSALS recorded for the port, ever */
	SMQ_OFF_BODY = 48,
};

/* A refusal, SMQ_R_SIZE bytes, two per answer from SMQ_OFF_BODY. */
enum {
	SMQ_R_AGE = 0,          /* seconds since, on the SM's clock */
	SMQ_R_CODE = 4,         /* the rule's log code, 0x7A08 for WRN 7A08 */
	SMQ_R_METHOD = 6,       /* SA method refused: Set 0x02, Delete 0x15 */
	SMQ_R_FLAGS = 7,        /* SMQ_OWNER_* */
	SMQ_R_PKEY = 8,         /* the refused record's */
	SMQ_R_STATUS = 10,      /* the SA's answer: MAD status */
	SMQ_R_LEASE = 12,       /* lease in effect for the request */
	SMQ_R_SID = 16,
	SMQ_R_GID = 24,
	SMQ_R_DATA8 = 40,       /* ServiceData8: the address */
	SMQ_R_OWNER = 56,       /* GID holding the address (duplicate-address) */
	SMQ_R_DETAIL = 72,      /* per rule, see smq_refusal_str */
	SMQ_R_NAME = 80,        /* the rule's name, NUL-padded */
	SMQ_R_SIZE = 104,
};
#define SMQ_NAME_LEN 24
#define SMQ_REFUSALS_PER_MAD 2
_Static_assert(SMQ_OFF_BODY + SMQ_REFUSALS_PER_MAD * SMQ_R_SIZE <= MAD_SIZE, "refusals fit");
_Static_assert(SMQ_R_NAME + SMQ_NAME_LEN == SMQ_R_SIZE, "the name ends the entry");

#define SMQ_OWNER_SHOWN 0x01    /* owner holds the conflicting record */
#define SMQ_OWNER_WITHHELD 0x02 /* there is one, in a partition the requester lacks */

struct smq_refusal {
	uint32_t age_s;
	uint16_t code;
	uint8_t method;
	uint8_t flags;
	uint16_t pkey;
	uint16_t status;
	uint32_t lease;
	uint64_t sid;
	uint8_t gid[16];
	uint8_t data8[16];
	uint8_t owner[16];
	uint64_t detail;
	char name[SMQ_NAME_LEN + 1];
};

/* SMINFO page 0, from SMQ_OFF_BODY; the fields after SMQ_I_PUBLIC_END
 * are zero unless SMQ_INFO_TRUSTED. */
enum {
	SMQ_I_ROLE = 48,        /* SMQ_ROLE_* */
	SMQ_I_SM_STATE = 49,    /* SMInfo:SMState, 0..3 */
	SMQ_I_ATS = 56,         /* ATS records at the last count */
	SMQ_I_OTHER = 64,       /* other ServiceRecords */
	SMQ_I_VERSION = 72,     /* the plugin's PACKAGE_VERSION, NUL-padded */
	SMQ_I_OPENSM = 104,     /* OSM_VERSION */
	SMQ_I_PUBLIC_END = 136,
	SMQ_I_IN_SYNC = 136,    /* standby: holds all the master committed */
	SMQ_I_STANDBYS = 140,   /* master: standbys in sync, u32 */
	SMQ_I_ABSENT = 144,     /* ATS records of ports not on the fabric */
	SMQ_I_HEAD = 152,       /* master: newest change's sequence */
	SMQ_I_APPLIED = 160,    /* standby: last sequence applied */
	SMQ_I_LAG_MS = 168,     /* standby: since its last answered pull */
	SMQ_I_EPOCH = 176,
	SMQ_I_ACCEPTED = 184,
	SMQ_I_CLAMPED = 192,
	SMQ_I_FLUSHED = 200,
	SMQ_I_COPY = 208,       /* standby: ServiceRecords in its copy (0 before 0.1.x's issue 37) */
	SMQ_I_END = 216,
};
#define SMQ_STR_LEN 32
_Static_assert(SMQ_I_VERSION + SMQ_STR_LEN == SMQ_I_OPENSM, "version strings packed");
_Static_assert(SMQ_I_OPENSM + SMQ_STR_LEN == SMQ_I_PUBLIC_END, "public part ends");
_Static_assert(SMQ_I_END <= MAD_SIZE, "page 0 fits");

/* SMINFO pages 1..: rule counters, SMQ_C_SIZE bytes, four a page. */
enum {
	SMQ_C_NAME = 0,
	SMQ_C_CODE = 24,
	SMQ_C_REJECTED = 32,
	SMQ_C_WARNED = 40,
	SMQ_C_SIZE = 48,
};
#define SMQ_RULES_PER_MAD 4
#define SMQ_MAX_RULES 32
_Static_assert(SMQ_OFF_BODY + SMQ_RULES_PER_MAD * SMQ_C_SIZE <= MAD_SIZE, "counters fit");

#define SMQ_INFO_TRUSTED 0x01

/* ERROR: asked for (a replication_key_file named) but off (ERR 7A48). */
enum smq_role { SMQ_ROLE_OFF = 0, SMQ_ROLE_MASTER = 1, SMQ_ROLE_STANDBY = 2, SMQ_ROLE_ERROR = 3 };

struct smq_rule_count {
	char name[SMQ_NAME_LEN + 1];
	uint16_t code;
	uint64_t rejected, warned;
};

struct smq_info {
	uint8_t flags;
	uint8_t role, sm_state, in_sync;
	uint32_t standbys_in_sync;
	uint64_t ats, other, absent, head, applied, lag_ms, epoch;
	uint64_t accepted, clamped, flushed, copy;
	char version[SMQ_STR_LEN + 1], opensm[SMQ_STR_LEN + 1];
	struct smq_rule_count rules[SMQ_MAX_RULES];
	size_t nrules;
};

/* STANDBYS: the page header as SMINFO's (40 standbys the master has,
 * 41 in this page, 42 flags), then the log's epoch and head; all zero
 * unless SMQ_INFO_TRUSTED. Entries of SMQ_S_SIZE from SMQ_S_FIRST, in
 * the master's slot order. */
enum {
	SMQ_S_EPOCH = 48,
	SMQ_S_HEAD = 56,        /* the newest change's sequence */
	SMQ_S_FIRST = 64,
};
enum {
	SMQ_S_GUID = 0,         /* the standby's port GUID */
	SMQ_S_ACKED = 8,        /* it holds every change up to this sequence */
	SMQ_S_SEEN_MS = 16,     /* since its last pull, u32 (saturated) */
	SMQ_S_FLAGS = 20,       /* SMQ_STANDBY_* */
	SMQ_S_SIZE = 24,        /* 21..23 zero */
};
#define SMQ_STANDBYS_PER_MAD 8
#define SMQ_MAX_STANDBYS 8      /* a master's (RLOG_MAX_PEERS): one page */
_Static_assert(SMQ_S_FIRST + SMQ_STANDBYS_PER_MAD * SMQ_S_SIZE <= MAD_SIZE, "standbys fit");
#define SMQ_STANDBY_IN_SYNC 0x01 /* the master waits for its ack of each change */

struct smq_standby {
	uint64_t guid, acked;
	uint64_t behind;        /* the page's head - acked (not on the wire) */
	uint32_t seen_ms;
	uint8_t in_sync;
};

struct smq_standbys {
	uint8_t flags;          /* SMQ_INFO_TRUSTED */
	unsigned total;         /* standbys the master has */
	uint64_t epoch, head;
	struct smq_standby s[SMQ_MAX_STANDBYS];
	size_t n;
};

/* A request: Get of attr, page in the attribute modifier, key at 40. */
void smq_request_encode(uint8_t *mad, uint16_t attr, uint32_t page, uint64_t key);
/* -EMSGSIZE (short), -EPROTO (not a request of this class and version). */
int smq_request_decode(const uint8_t *mad, size_t len, uint16_t *attr, uint32_t *page,
		       uint64_t *key);

/* The answer's common part in resp[0..MAD_SIZE): the request's header,
 * GetResp, status; class data zero. */
void smq_answer_init(uint8_t *resp, const uint8_t *req, uint16_t status);

/* REFUSALS: total held, gen, and r[0..n) (n <= SMQ_REFUSALS_PER_MAD). */
void smq_refusals_put(uint8_t *resp, unsigned total, uint32_t gen,
		      const struct smq_refusal *r, size_t n);
/* An answer of ours; its MAD status in *status (entries only when 0). */
int smq_refusals_get(const uint8_t *resp, size_t len, uint16_t *status, unsigned *total,
		     uint32_t *gen, struct smq_refusal *r, size_t *n);

/* SMINFO page of in (pages: 1, and the counters' when trusted). */
unsigned smq_info_pages(const struct smq_info *in);
void smq_info_put(uint8_t *resp, uint32_t page, const struct smq_info *in);
/* Page page of an answer into out (page 0 resets it). */
int smq_info_get(const uint8_t *resp, size_t len, uint32_t page, uint16_t *status,
		 unsigned *pages, struct smq_info *out);

/* STANDBYS page of in (in->s[page * SMQ_STANDBYS_PER_MAD ..]). */
void smq_standbys_put(uint8_t *resp, uint32_t page, const struct smq_standbys *in);
/* Page page of an answer into out (page 0 resets it); -EBADMSG for
 * more entries than a page or SMQ_MAX_STANDBYS hold. */
int smq_standbys_get(const uint8_t *resp, size_t len, uint32_t page, uint16_t *status,
		     struct smq_standbys *out);

/* "rule duplicate-address (7A08): 10.0.0.5 is the primary address of
 * fe80::2 in P_Key 0x7fff": the reason in words. */
const char *smq_refusal_str(const struct smq_refusal *r, char *buf, size_t len);
const char *smq_role_name(uint8_t role);

#endif
