/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The plugin's state file, one JSON document replaced atomically: the
 * per-rule counters, the index's and replication's figures, how many
 * records each kind of service and each partition holds, and the ATS
 * records whose port is not on the fabric (what an audit cannot learn
 * from the SA). It stays a few kilobytes with 100k records in the SA, so
 * writing it once a second costs little; the counts come from a scan
 * done at sweeps, flushes and at most every STATE_SCAN_INTERVAL of
 * changes, not at every write. The plugin writes it, atsctl audit reads
 * it: both link this module. */
#ifndef IBATS_STATE_FILE_H
#define IBATS_STATE_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "json.h"
#include "rule.h"
#include "sr.h"

struct state_file_counters {
	uint64_t accepted;              /* ATS Sets/Deletes handed to OpenSM */
	uint64_t rejected[RULE_COUNT];
	uint64_t warned[RULE_COUNT];
	uint64_t clamped;
	uint64_t flushed;
};

/* The ServiceRecord index and how queries were answered. */
struct state_file_index {
	uint64_t records;
	uint64_t bytes;
	uint64_t rebuilds;
	uint64_t gets_indexed;   /* Get/GetTable answered from the index */
	uint64_t gets_fallback;  /* handed to OpenSM's scan */
	uint64_t get_ns;         /* the SA's work on them, before sending */
	uint64_t sets;           /* Sets and Deletes carried out */
	uint64_t set_ns;
};

/* A standby SM as the master sees it (rlog_stats). */
struct state_file_standby {
	uint64_t guid;          /* its port GUID, written "0x%016" hex */
	uint64_t acked;         /* it holds every change up to this sequence */
	uint64_t behind;        /* head - acked */
	uint64_t last_seen_ms;  /* since its last pull, at the file's time */
	uint8_t in_sync;        /* the master waits for it (JSON true/false) */
};
#define STATE_FILE_MAX_STANDBYS 8    /* RLOG_MAX_PEERS */

/* SM-to-SM replication (issue 14). */
struct state_file_repl {
	char role[16];          /* "off", "error" (asked for, off: 7A48), "master", "standby" */
	uint64_t epoch;         /* written as a "0x%016" hex string */
	uint64_t head;          /* master: newest change's sequence */
	uint64_t applied;       /* standby: last sequence in its shadow */
	int in_sync;            /* standby: holds everything committed (JSON true/false) */
	uint64_t standbys_in_sync; /* master: standbys it waits for */
	uint64_t lag_ms;        /* standby: since its last answered pull */
	uint64_t snapshots, snapshot_records, snapshot_ms; /* standby: count, records and ms of the last */
	uint64_t installed;     /* records installed at the last takeover */
	uint64_t copy;          /* standby: ServiceRecords in its copy (not in the file) */
	uint64_t takeovers;
	/* master: each standby pulling its log. The file's "standbys" array,
	 * absent from files of plugins before it (read back as none). */
	struct state_file_standby standbys[STATE_FILE_MAX_STANDBYS];
	size_t nstandbys;
};

/* What the file shows of one ATS record: the worker copies 100k of these
 * under the lock, so only these fields. */
struct state_file_rec {
	uint64_t sid;
	uint8_t gid[16];
	uint8_t data8[16];
	uint32_t lease;
	uint32_t missing_sweeps;
	uint16_t pkey;
	uint8_t port_present;
};

#define STATE_FILE_MAX_PKEYS 64     /* partitions counted one by one */
#define STATE_FILE_MAX_ABSENT 4096   /* absent-port records listed */

/* What the last scan of the SA's records found. */
struct state_file_summary {
	uint64_t ats;             /* ATS records (SID block and name) */
	uint64_t other;           /* every other ServiceRecord */
	struct {
		uint16_t pkey;
		uint64_t n;
	} pkeys[STATE_FILE_MAX_PKEYS]; /* ATS records per P_Key */
	size_t npkeys;
	uint64_t pkeys_more;      /* ATS records in P_Keys beyond those */
	uint64_t absent;          /* ATS records of absent ports, all */
	long long scanned;        /* when, seconds since the epoch */
};

/* Count rec (an ATS record, or not) into sum. */
void state_file_summary_add(struct state_file_summary *sum, const struct sr_record *rec, int is_ats);

void state_file_rec_from(struct state_file_rec *s, const struct sr_record *r);

struct state_file_info {
	const char *sm_state;   /* "master", "standby", ... */
	const char *opensm;     /* OSM_VERSION */
	long long time;         /* seconds since the epoch */
};

#define STATE_FILE_VERSION 3

/* The counters object as the state file holds it, into j under key. */
void state_file_counters_json(struct json *j, const char *key, const struct state_file_counters *cnt);

/* Write to path.tmp, fsync, rename over path. recs are the ATS records
 * of absent ports (at most STATE_FILE_MAX_ABSENT of sum->absent). -EINVAL
 * (nothing written) for a role state_file_read() would refuse; -errno on
 * failure. */
int state_file_write(const char *path, const struct state_file_info *info,
		const struct state_file_summary *sum, const struct state_file_rec *recs, size_t n,
		const struct state_file_counters *cnt, const struct state_file_index *idx,
		const struct state_file_repl *repl);

/* A state file read back: what state_file_write() was given, but for the
 * index's get_ns and set_ns, which the file holds as averages (read back
 * as average times count), ServiceData8 that is no address (read back as
 * zeros), and in_sync (read back as 0 or 1). */
struct state_file {
	char plugin[64];
	char opensm[128];
	char sm_state[32];
	long long time;
	struct state_file_counters counters;
	struct state_file_index index;
	struct state_file_repl repl;
	struct state_file_summary summary;
	struct state_file_rec *recs;  /* absent_records */
	size_t nrecs;
};

/* Read what state_file_write() writes, strictly: the members in its order,
 * its rule names, its value types and ranges. -EINVAL with the line and
 * member in err when the file is anything else; -errno when it cannot be
 * read. */
int state_file_read(const char *path, struct state_file *sf, char *err, size_t errlen);
void state_file_free(struct state_file *sf);

#endif
