/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The plugin's Prometheus metrics: osmats.prom next to the state file,
 * the same figures the state file holds (from the same last scan and
 * live counters), for the node_exporter textfile collector. Names are
 * ibats_sm_* (atsd's are ibats_host_*); see libosmats(8). */
#ifndef IBATS_PLUGIN_METRICS_H
#define IBATS_PLUGIN_METRICS_H

#include <stddef.h>

#include "core/osmats_conf.h"
#include "core/prom.h"
#include "core/state_file.h"

struct metrics_src {
	const struct state_file_info *info;
	const struct state_file_summary *sum;
	const struct state_file_counters *cnt;
	const struct state_file_index *idx;
	const struct state_file_repl *repl;
};

/* The exposition text of src into p. */
void metrics_fill(struct prom *p, const struct metrics_src *src);

/* The metrics file's name; osmats.conf's state_file may not have it
 * (or its temporary's): osmats_conf.h holds it for that check. */
#define METRICS_NAME OSMATS_CONF_METRICS_NAME

/* The metrics file beside state_path: its directory, then osmats.prom.
 * -ENAMETOOLONG when it does not fit len. */
int metrics_path(char *buf, size_t len, const char *state_path);

/* Write it atomically (temporary and rename). 0 or -errno. */
int metrics_write(const char *path, const struct metrics_src *src);

#endif
