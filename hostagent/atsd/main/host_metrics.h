/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* atsd's Prometheus metrics file (metrics_file in atsd.conf): the stats
 * request's figures and the own records by state, named ibats_host_*
 * (the plugin's are ibats_sm_*); see atsd(8). */
#ifndef IBATS_HOST_METRICS_H
#define IBATS_HOST_METRICS_H

#include <stdint.h>

#include "host/atsd_proto.h"
#include "core/prom.h"

/* How often atsd rewrites the file. */
#define HOST_METRICS_INTERVAL_MS 10000

struct host_metrics {
	const char *ca;                 /* the port, labels of every series */
	int port;
	uint64_t stats[ATSD_PROTO_STATS];
	const char *const *state_names; /* nstates names, for by_state */
	const uint64_t *by_state;
	unsigned nstates;
};

void host_metrics_fill(struct prom *p, const struct host_metrics *m);
/* Written atomically (temporary and rename). 0 or -errno. */
int host_metrics_write(const char *path, const struct host_metrics *m);

#endif
