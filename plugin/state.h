/* The plugin's state file: every ATS record the SA holds, whether its port
 * is on the fabric, and the per-rule counters, as one JSON document
 * replaced atomically. */
#ifndef IBATS_STATE_H
#define IBATS_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "policy.h"
#include "sr.h"

struct state_counters {
	uint64_t accepted;              /* ATS Sets/Deletes handed to OpenSM */
	uint64_t rejected[POL_NRULES];
	uint64_t warned[POL_NRULES];
	uint64_t clamped;
	uint64_t flushed;
};

/* The ServiceRecord index and how queries were answered. */
struct state_index {
	uint64_t records;
	uint64_t bytes;
	uint64_t rebuilds;
	uint64_t gets_indexed;   /* Get/GetTable answered from the index */
	uint64_t gets_fallback;  /* handed to OpenSM's scan */
	uint64_t get_ns;         /* the SA's work on them, before sending */
	uint64_t sets;           /* Sets and Deletes carried out */
	uint64_t set_ns;
};

/* What the file shows of one ATS record: the worker copies 100k of these
 * under the lock, so only these fields. */
struct state_rec {
	uint64_t sid;
	uint8_t gid[16];
	uint8_t data8[16];
	uint32_t lease;
	uint32_t missing_sweeps;
	uint16_t pkey;
	uint8_t port_present;
};

void state_rec_from(struct state_rec *s, const struct sr_record *r);

struct state_info {
	const char *sm_state;   /* "master", "standby", ... */
	const char *opensm;     /* OSM_VERSION */
	long long time;         /* seconds since the epoch */
};

/* Write to path.tmp, fsync, rename over path. -errno on failure. */
int state_write(const char *path, const struct state_info *info,
		const struct state_rec *recs, size_t n,
		const struct state_counters *cnt, const struct state_index *idx);

#endif
