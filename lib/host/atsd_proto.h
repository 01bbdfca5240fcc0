/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The atsd socket protocol (doc/atsd-protocol.md), defined once for atsd
 * and its clients: the verbs, the stats fields, and the format of every
 * answer line that carries fields. A request is one line; the answer is
 * "OK N" and N lines, or "ERR CODE text". */
#ifndef IBATS_ATSD_PROTO_H
#define IBATS_ATSD_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "core/ats.h"
#include "core/sr.h"

/* A request line: at most ATSD_PROTO_LINE_MAX - 2 bytes and its newline. */
#define ATSD_PROTO_LINE_MAX 512
#define ATSD_PROTO_SOCKET_DEFAULT "/run/ibats/atsd.sock"
/* Words of a request, the verb included. */
#define ATSD_PROTO_ARGS_MAX 8

/* atsd answers a lookup (resolve, reverse, primary) within this long
 * whatever the SA does: the SA's answer, a local one (ATS 5.1), else
 * ERR ETIMEDOUT. The SA lookup's own worst case with atsd's defaults is
 * 7500 ms (a SubnAdmGetTable: 500 ms, then 1, 2, 4 s: sa_client.h);
 * larger sa_timeout or sa_retries go on in the background, for the
 * cache. */
#define ATSD_PROTO_LOOKUP_REPLY_MS 8000u
/* How long a client waits for that answer by default: atsd's bound and
 * room for a loaded host's scheduling, so that a client never gives up
 * on a working atsd to ask the SA itself. */
#define ATSD_PROTO_LOOKUP_WAIT_MS (ATSD_PROTO_LOOKUP_REPLY_MS + 2000)

enum atsd_proto_verb {
	ATSD_PROTO_V_RESOLVE,
	ATSD_PROTO_V_REVERSE,
	ATSD_PROTO_V_PRIMARY,
	ATSD_PROTO_V_STATUS,
	ATSD_PROTO_V_STATS,
	ATSD_PROTO_V_IPOIB,
	ATSD_PROTO_V_CONNECTIONS,
	ATSD_PROTO_V_HOLD,
	ATSD_PROTO_V_RELEASE,
	ATSD_PROTO_V_VERIFY,
	ATSD_PROTO_V_CONNECT,
	ATSD_PROTO_V_DISCONNECT,
	ATSD_PROTO_V_HOLDS,
	ATSD_PROTO_V_LID,
	ATSD_PROTO_VERBS
};

struct atsd_proto_verb_def {
	const char *name;
	int min, max;        /* words, the verb included */
	int privileged;      /* root or control_group only */
};

extern const struct atsd_proto_verb_def atsd_proto_verbs[ATSD_PROTO_VERBS];
/* The verb called name, or -1. */
int atsd_proto_verb_find(const char *name);

/* A request's optional PKEY word (s NULL: absent, the default
 * partition 0xFFFF). 0 or -EINVAL. */
int atsd_proto_pkey_arg(const char *s, uint16_t *pkey);

/* An answer's first line, "OK N\n": N lines follow. The parser refuses a
 * count above ATSD_PROTO_ANSWER_MAX (no answer atsd sends has more). */
#define ATSD_PROTO_ANSWER_MAX 100000
int atsd_proto_ok_format(char *buf, size_t len, size_t n);
int atsd_proto_ok_parse(const char *line, size_t *n);

/* The stats answer: one "name value" line per field, in this order. */
enum atsd_proto_stat {
	ATSD_PROTO_S_CACHE_HITS,
	ATSD_PROTO_S_CACHE_MISSES,
	ATSD_PROTO_S_NEGATIVE_HITS,
	ATSD_PROTO_S_COALESCED,
	ATSD_PROTO_S_SA_LOOKUPS,
	ATSD_PROTO_S_SA_QUERIES,
	ATSD_PROTO_S_SYNCS,
	ATSD_PROTO_S_SYNC_FAILURES,
	ATSD_PROTO_S_SETS,
	ATSD_PROTO_S_DELETES,
	ATSD_PROTO_S_SM_CHANGES,
	ATSD_PROTO_S_RECORDS,
	ATSD_PROTO_S_HOLDS,
	ATSD_PROTO_S_CACHE_ENTRIES,
	ATSD_PROTO_S_LID,
	ATSD_PROTO_S_SM_LID,
	ATSD_PROTO_S_SUBSCRIBED,
	ATSD_PROTO_S_SUBSCRIPTIONS,
	ATSD_PROTO_S_SUBSCRIPTION_FAILURES,
	ATSD_PROTO_S_REPORTS,
	ATSD_PROTO_S_REPORT_DUPLICATES,
	ATSD_PROTO_S_REPORTS_REFUSED,
	ATSD_PROTO_S_INVALIDATIONS,
	ATSD_PROTO_S_LOCAL_ANSWERS,
	ATSD_PROTO_S_SA_DEPTH,
	ATSD_PROTO_S_SA_INFLIGHT,
	ATSD_PROTO_S_SA_INFLIGHT_MAX,
	ATSD_PROTO_S_SA_RESENT,
	ATSD_PROTO_S_SA_TIMEOUTS,
	ATSD_PROTO_S_PREFETCHES,
	ATSD_PROTO_S_PREFETCH_RECORDS,
	ATSD_PROTO_S_CACHE_CLEARS,
	ATSD_PROTO_STATS
};

extern const char *const atsd_proto_stat_names[ATSD_PROTO_STATS];
/* The whole answer, "OK N" first. Like snprintf. */
int atsd_proto_stats_format(char *buf, size_t len, const uint64_t v[ATSD_PROTO_STATS]);
/* A stats line: its name into name (truncated to len) and its value. */
void atsd_proto_stats_split(const char *line, char *name, size_t len, const char **value);

/* Record lines (resolve, reverse, primary): "SID GID PKEY LEASE IP". */
int atsd_proto_format_record(char *buf, size_t len, const struct sr_record *r);
int atsd_proto_parse_record(const char *line, struct sr_record *r);
/* The word after a record line's fields when atsd answered from the
 * host's own knowledge because the SA did not answer (ATS 5.1, point to
 * point); clients that read the five fields alone ignore it. */
#define ATSD_PROTO_REC_LOCAL "local"
/* 1 when record line carries ATSD_PROTO_REC_LOCAL, else 0. */
int atsd_proto_record_local(const char *line);

/* Status lines: "SID GID PKEY LEASE IP STATE [REASON]", SID "-" when the
 * address has none yet. */
struct atsd_proto_status {
	char sid[24], gid[64], ip[64], state[24], reason[256];
	unsigned pkey;
	unsigned long lease;
};

/* sid 0: none. Like snprintf; the line ends in a newline. */
int atsd_proto_status_format(char *buf, size_t len, uint64_t sid, const uint8_t *gid,
		       uint16_t pkey, uint32_t lease, const struct ats_ip *ip,
		       const char *state, const char *reason);
int atsd_proto_status_parse(const char *line, struct atsd_proto_status *st);

/* verify's first line: what the full sync it waited for did,
 * "checked N registered N deleted N refused N"; the refused addresses
 * follow as status lines. */
struct atsd_proto_resync {
	unsigned long checked, registered, deleted, refused;
};
int atsd_proto_resync_format(char *buf, size_t len, const struct atsd_proto_resync *r);
int atsd_proto_resync_parse(const char *line, struct atsd_proto_resync *r);

/* holds lines: "OWNER UID IP PKEY", the uid of the client that took the
 * hold (SO_PEERCRED). */
struct atsd_proto_hold {
	char owner[64], ip[64];
	unsigned long uid;
	unsigned pkey;
};
int atsd_proto_hold_format(char *buf, size_t len, const char *owner, unsigned long uid,
		     const struct ats_ip *ip, uint16_t pkey);
int atsd_proto_hold_parse(const char *line, struct atsd_proto_hold *h);

/* lid LID: the port that holds a unicast LID, as the SA's NodeRecord
 * says (IBTA Vol 1 15.2.5.2), for a listener's check that a requester's
 * GID is the port its REQ came from (ibats_check_peer_lid(3)). One answer
 * line "PORT_GUID BASE_LID", both hex: "0x0002c9030000a1b2 0x0012". A
 * LID outside 1..0xBFFF (0 reserved, 0xC000 up multicast, 0xFFFF
 * permissive: IBTA Vol 1 4.1.3) is no port's. */
#define ATSD_PROTO_LID_UNICAST_MAX 0xBFFF
/* A request's LID word, decimal or 0x hex: 0, or -EINVAL when it is not a
 * unicast LID. */
int atsd_proto_lid_arg(const char *s, uint16_t *lid);
/* Like snprintf; the line ends in a newline. */
int atsd_proto_lid_format(char *buf, size_t len, uint64_t port_guid, uint16_t base_lid);
/* -EPROTO unless the line is exactly two hex words, the base LID unicast. */
int atsd_proto_lid_parse(const char *line, uint64_t *port_guid, uint16_t *base_lid);

/* Connection and group lines: plain words, then name=value words. */
enum atsd_proto_line_kind {
	ATSD_PROTO_LINE_CONN,   /* connections, connect */
	ATSD_PROTO_LINE_GROUP,  /* ipoib */
};

struct atsd_proto_conn_line {
	uint32_t id;
	int active;
	const char *state;
	uint64_t sid;
	uint8_t local_gid[16], remote_gid[16];
	uint16_t local_lid, remote_lid;
	uint32_t local_qpn, remote_qpn;
	struct ats_ip src, dst;  /* the active side's address and port first */
	uint16_t src_port;
	uint16_t pkey;
};

struct atsd_proto_group_line {
	uint16_t pkey;
	uint8_t mgid[16];
	const char *state;       /* "joined" (by atsd), "member" (the kernel's) */
	const char *error;       /* NULL: state, with the fields below */
	uint32_t qkey;
	uint16_t mlid;
	unsigned mtu;            /* bytes */
	unsigned sl, rate;
};

/* Like snprintf; each line ends in a newline. */
int atsd_proto_conn_format(char *buf, size_t len, const struct atsd_proto_conn_line *c);
int atsd_proto_group_format(char *buf, size_t len, const struct atsd_proto_group_line *g);

struct atsd_proto_field {
	const char *name;
	const char *value;
	char buf[16];            /* a name made up for an unnamed plain word */
};

/* Split line (modified in place) into named fields: the first plain words
 * named after the kind's fields, further plain words "fieldN", name=value
 * words by their name. The number of fields (at most max). */
size_t atsd_proto_line_fields(char *line, enum atsd_proto_line_kind kind, struct atsd_proto_field *f,
			size_t max);

#endif
