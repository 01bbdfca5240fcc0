/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* osmats.prom: counters end in _total, times are seconds, and each
 * family's labels are fixed so a query never meets a missing series. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "metrics.h"
#include "policy.h"

#define NS 1e-9

static void one(struct prom *p, const char *name, enum prom_type t,
		const char *help, double v)
{
	prom_family(p, name, t, help);
	prom_dbl(p, name, NULL, v);
}

static void u64(struct prom *p, const char *name, enum prom_type t,
		const char *help, uint64_t v)
{
	prom_family(p, name, t, help);
	prom_u64(p, name, NULL, v);
}

static void per_rule(struct prom *p, const char *name, const char *help,
		     const uint64_t *v)
{
	unsigned r;

	prom_family(p, name, PROM_COUNTER, help);
	for (r = 1; r < RULE_COUNT; r++) {
		const char *const l[] = { "rule", rule_name((enum rule)r), NULL };

		prom_u64(p, name, l, v[r]);
	}
}

/* A series per standby pulling the master's log, by its port GUID as
 * the state file and atsctl sm write it; one gone leaves with its slot. */
static void per_standby(struct prom *p, const struct state_file_repl *x)
{
	char guid[STATE_FILE_MAX_STANDBYS][19];
	size_t i;

	for (i = 0; i < x->nstandbys && i < STATE_FILE_MAX_STANDBYS; i++)
		snprintf(guid[i], sizeof(guid[i]), "0x%016" PRIx64, x->standbys[i].guid);
	prom_family(p, "ibats_sm_repl_standby_behind", PROM_GAUGE,
		    "Changes of the log a standby has yet to ack: the head minus its ack.");
	for (i = 0; i < x->nstandbys && i < STATE_FILE_MAX_STANDBYS; i++) {
		const char *const l[] = { "guid", guid[i], NULL };

		prom_u64(p, "ibats_sm_repl_standby_behind", l, x->standbys[i].behind);
	}
	prom_family(p, "ibats_sm_repl_standby_in_sync", PROM_GAUGE,
		    "1 while the master waits for the standby's ack of each change.");
	for (i = 0; i < x->nstandbys && i < STATE_FILE_MAX_STANDBYS; i++) {
		const char *const l[] = { "guid", guid[i], NULL };

		prom_u64(p, "ibats_sm_repl_standby_in_sync", l, x->standbys[i].in_sync ? 1 : 0);
	}
}

static void put_repl(struct prom *p, const struct state_file_repl *x)
{
	static const char *const roles[] = { "off", "master", "standby", "error" };
	size_t i;

	prom_family(p, "ibats_sm_repl_role", PROM_GAUGE,
		    "Replication role: 1 for the current one.");
	for (i = 0; i < sizeof(roles) / sizeof(roles[0]); i++) {
		const char *const l[] = { "role", roles[i], NULL };

		prom_u64(p, "ibats_sm_repl_role", l, !strcmp(x->role, roles[i]));
	}
	u64(p, "ibats_sm_repl_takeovers_total", PROM_COUNTER,
	    "Takeovers that installed the shadow into the SA.", x->takeovers);
	if (!strcmp(x->role, "master")) {
		u64(p, "ibats_sm_repl_head_sequence", PROM_GAUGE,
		    "Sequence of the newest change in the change log.", x->head);
		u64(p, "ibats_sm_repl_standbys_in_sync", PROM_GAUGE,
		    "Standbys the master waits for.", x->standbys_in_sync);
		per_standby(p, x);
	}
	/* Lag exists only where something follows a master. */
	if (!strcmp(x->role, "standby")) {
		u64(p, "ibats_sm_repl_applied_sequence", PROM_GAUGE,
		    "Sequence of the last change in the standby's shadow.", x->applied);
		u64(p, "ibats_sm_repl_in_sync", PROM_GAUGE,
		    "1 when the standby holds everything committed.", x->in_sync ? 1 : 0);
		one(p, "ibats_sm_repl_lag_seconds", PROM_GAUGE,
		    "Time since the standby's last answered pull.", x->lag_ms / 1e3);
		u64(p, "ibats_sm_repl_snapshots_total", PROM_COUNTER,
		    "Snapshots the standby loaded.", x->snapshots);
	}
}

void metrics_fill(struct prom *p, const struct metrics_src *src)
{
	const struct state_file_summary *sum = src->sum;
	const struct state_file_index *idx = src->idx;
	/* version: the plugin's (AM_CPPFLAGS' IBATS_VERSION = PACKAGE_VERSION),
	 * so an upgrade shows per SM. */
	const char *const info[] = { "opensm", src->info->opensm,
				     "sm_state", src->info->sm_state,
				     "version", IBATS_VERSION, NULL };
	const char *const ats[] = { "service", "ats", NULL };
	const char *const other[] = { "service", "other", NULL };
	const char *const present[] = { "state", "present", NULL };
	const char *const absent[] = { "state", "absent", NULL };
	const char *const indexed[] = { "answer", "index", NULL };
	const char *const fallback[] = { "answer", "fallback", NULL };
	size_t i;

	prom_family(p, "ibats_sm_info", PROM_GAUGE,
		    "Always 1: the OpenSM version, the SM's state and the plugin's version as labels.");
	prom_u64(p, "ibats_sm_info", info, 1);
	one(p, "ibats_sm_scan_timestamp_seconds", PROM_GAUGE,
	    "When the record counts were taken (Unix time).", (double)sum->scanned);
	prom_family(p, "ibats_sm_records", PROM_GAUGE,
		    "ServiceRecords in the SA, ATS or other services.");
	prom_u64(p, "ibats_sm_records", ats, sum->ats);
	prom_u64(p, "ibats_sm_records", other, sum->other);
	prom_family(p, "ibats_sm_ats_records", PROM_GAUGE,
		    "ATS records whose port is on the fabric, or absent.");
	prom_u64(p, "ibats_sm_ats_records", present,
		 sum->ats > sum->absent ? sum->ats - sum->absent : 0);
	prom_u64(p, "ibats_sm_ats_records", absent, sum->absent);
	prom_family(p, "ibats_sm_ats_records_by_pkey", PROM_GAUGE,
		    "ATS records per partition (the first 64 P_Keys seen).");
	for (i = 0; i < sum->npkeys; i++) {
		char pk[8];
		const char *const l[] = { "pkey", pk, NULL };

		snprintf(pk, sizeof(pk), "0x%04x", sum->pkeys[i].pkey);
		prom_u64(p, "ibats_sm_ats_records_by_pkey", l, sum->pkeys[i].n);
	}
	u64(p, "ibats_sm_sets_accepted_total", PROM_COUNTER,
	    "ATS Sets and Deletes handed to OpenSM.", src->cnt->accepted);
	per_rule(p, "ibats_sm_sets_refused_total", "ATS Sets refused, by policy rule.",
		 src->cnt->rejected);
	per_rule(p, "ibats_sm_sets_warned_total",
		 "ATS Sets a rule in warn mode let through, by rule.", src->cnt->warned);
	u64(p, "ibats_sm_leases_clamped_total", PROM_COUNTER,
	    "Leases shortened to the configured maximum.", src->cnt->clamped);
	u64(p, "ibats_sm_flushed_records_total", PROM_COUNTER,
	    "ATS records flushed for departed ports.", src->cnt->flushed);
	u64(p, "ibats_sm_index_records", PROM_GAUGE,
	    "Records in the ServiceRecord index.", idx->records);
	u64(p, "ibats_sm_index_bytes", PROM_GAUGE, "Memory the index holds.", idx->bytes);
	u64(p, "ibats_sm_index_rebuilds_total", PROM_COUNTER,
	    "Rebuilds of the index from the SA's records.", idx->rebuilds);
	prom_family(p, "ibats_sm_gets_total", PROM_COUNTER,
		    "Get/GetTable queries, answered from the index or by OpenSM's scan.");
	prom_u64(p, "ibats_sm_gets_total", indexed, idx->gets_indexed);
	prom_u64(p, "ibats_sm_gets_total", fallback, idx->gets_fallback);
	one(p, "ibats_sm_get_seconds_total", PROM_COUNTER,
	    "Handler time of the indexed Gets, before sending.", idx->get_ns * NS);
	u64(p, "ibats_sm_sets_total", PROM_COUNTER,
	    "Sets and Deletes the handler carried out.", idx->sets);
	one(p, "ibats_sm_set_seconds_total", PROM_COUNTER,
	    "Handler time of those Sets and Deletes.", idx->set_ns * NS);
	put_repl(p, src->repl);
}

int metrics_path(char *buf, size_t len, const char *state_path)
{
	const char *slash = strrchr(state_path, '/');
	int dir = slash ? (int)(slash - state_path + 1) : 0;
	int n = snprintf(buf, len, "%.*s" METRICS_NAME, dir, state_path);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static void fill(struct prom *p, const void *arg)
{
	metrics_fill(p, arg);
}

int metrics_write(const char *path, const struct metrics_src *src)
{
	return prom_write_file(path, fill, src);
}
