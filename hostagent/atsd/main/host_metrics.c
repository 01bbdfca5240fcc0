/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Each stats field becomes one family: counters as ibats_host_NAME_total,
 * levels as gauges. A new ATSD_PROTO_S_* field without an entry here has no
 * help text, which makes the write fail (-EINVAL) and test_host_metrics
 * with it. */
#include <stdio.h>

#include "host_metrics.h"

static const struct {
	enum prom_type type;
	const char *help;
} fields[ATSD_PROTO_STATS] = {
	[ATSD_PROTO_S_CACHE_HITS] = { PROM_COUNTER, "Lookups answered from the cache." },
	[ATSD_PROTO_S_CACHE_MISSES] = { PROM_COUNTER, "Lookups the cache could not answer." },
	[ATSD_PROTO_S_NEGATIVE_HITS] = { PROM_COUNTER, "Lookups answered by a cached not-found." },
	[ATSD_PROTO_S_COALESCED] = { PROM_COUNTER, "Lookups that joined one already asked of the SA." },
	[ATSD_PROTO_S_SA_LOOKUPS] = { PROM_COUNTER, "Lookups sent to the SA." },
	[ATSD_PROTO_S_SA_QUERIES] = { PROM_COUNTER, "SA requests of every kind." },
	[ATSD_PROTO_S_SYNCS] = { PROM_COUNTER, "Syncs of the own records with the SA." },
	[ATSD_PROTO_S_SYNC_FAILURES] = { PROM_COUNTER, "Syncs that failed." },
	[ATSD_PROTO_S_SETS] = { PROM_COUNTER, "ServiceRecord Sets sent." },
	[ATSD_PROTO_S_DELETES] = { PROM_COUNTER, "ServiceRecord Deletes sent." },
	[ATSD_PROTO_S_SM_CHANGES] = { PROM_COUNTER, "Changes of the master SM seen." },
	[ATSD_PROTO_S_RECORDS] = { PROM_GAUGE, "Records atsd owns in the SA." },
	[ATSD_PROTO_S_HOLDS] = { PROM_GAUGE, "Addresses held by clients." },
	[ATSD_PROTO_S_CACHE_ENTRIES] = { PROM_GAUGE, "Entries in the lookup cache." },
	[ATSD_PROTO_S_LID] = { PROM_GAUGE, "The port's LID, 0 when unknown." },
	[ATSD_PROTO_S_SM_LID] = { PROM_GAUGE, "The master SM's LID, 0 when unknown." },
	[ATSD_PROTO_S_SUBSCRIBED] = { PROM_GAUGE, "1 while subscribed to the SA's reports." },
	[ATSD_PROTO_S_SUBSCRIPTIONS] = { PROM_COUNTER, "Subscriptions made." },
	[ATSD_PROTO_S_SUBSCRIPTION_FAILURES] = { PROM_COUNTER, "Subscriptions that failed." },
	[ATSD_PROTO_S_REPORTS] = { PROM_COUNTER, "Reports received from the SA." },
	[ATSD_PROTO_S_REPORT_DUPLICATES] = { PROM_COUNTER, "Reports received again (retransmissions)." },
	[ATSD_PROTO_S_REPORTS_REFUSED] = { PROM_COUNTER, "Reports not acted on (not issued by the SM)." },
	[ATSD_PROTO_S_INVALIDATIONS] = { PROM_COUNTER, "Cache entries dropped on a report." },
	[ATSD_PROTO_S_LOCAL_ANSWERS] = { PROM_COUNTER, "Lookups answered locally without an SA." },
	[ATSD_PROTO_S_SA_DEPTH] = { PROM_GAUGE, "SA lookups the agent keeps in flight at most (sa_depth)." },
	[ATSD_PROTO_S_SA_INFLIGHT] = { PROM_GAUGE, "SA lookups in flight now." },
	[ATSD_PROTO_S_SA_INFLIGHT_MAX] = { PROM_GAUGE, "SA lookups in flight at once, at most so far." },
	[ATSD_PROTO_S_SA_RESENT] = { PROM_COUNTER, "SA lookup requests sent again after a timeout." },
	[ATSD_PROTO_S_SA_TIMEOUTS] = { PROM_COUNTER, "SA lookups that ran out of retries." },
	[ATSD_PROTO_S_PREFETCHES] = { PROM_COUNTER, "ATS tables read ahead into the cache (prefetch_max)." },
	[ATSD_PROTO_S_PREFETCH_RECORDS] = { PROM_GAUGE, "Records of the last table read ahead." },
	[ATSD_PROTO_S_CACHE_CLEARS] = { PROM_COUNTER, "Times the whole lookup cache was dropped." },
};

/* Every series carries the port (ca, port): the atsd of each port of a
 * host (atsd@) writes its own file, and node_exporter's textfile
 * collector refuses the same series from two files. */
void host_metrics_fill(struct prom *p, const struct host_metrics *m)
{
	char port[12];
	const char *const l[] = { "ca", m->ca, "port", port, NULL };
	unsigned i;

	snprintf(port, sizeof(port), "%d", m->port);
	for (i = 0; i < ATSD_PROTO_STATS; i++) {
		char name[96];

		snprintf(name, sizeof(name), "ibats_host_%s%s", atsd_proto_stat_names[i],
			 fields[i].type == PROM_COUNTER ? "_total" : "");
		prom_family(p, name, fields[i].type, fields[i].help);
		prom_u64(p, name, l, m->stats[i]);
	}
	{
		const char *const lv[] = { "ca", m->ca, "port", port, "version", IBATS_VERSION,
					   NULL };

		/* The usual info metric: constant 1, the facts in labels. */
		prom_family(p, "ibats_host_info", PROM_GAUGE, "atsd's version, in the label.");
		prom_u64(p, "ibats_host_info", lv, 1);
	}
	prom_family(p, "ibats_host_addresses", PROM_GAUGE,
		    "This host's addresses by state, as atsctl status lists them.");
	for (i = 0; i < m->nstates; i++) {
		const char *const ls[] = { "ca", m->ca, "port", port, "state", m->state_names[i],
					   NULL };

		prom_u64(p, "ibats_host_addresses", ls, m->by_state[i]);
	}
}

static void fill(struct prom *p, const void *arg)
{
	host_metrics_fill(p, arg);
}

int host_metrics_write(const char *path, const struct host_metrics *m)
{
	return prom_write_file(path, fill, m);
}
