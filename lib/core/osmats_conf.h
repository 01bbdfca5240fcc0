/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* osmats.conf: strict, table-driven configuration of the plugin. Here,
 * not in plugin/, so atsctl check-config runs the plugin's own parser
 * without linking plugin code. */
#ifndef IBATS_OSMATS_CONF_H
#define IBATS_OSMATS_CONF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rule.h"

/* Beside opensm.conf, in OpenSM's configuration directory (configure
 * --with-opensm-confdir: /etc/opensm on Debian, /etc/rdma on RHEL). */
#define OSMATS_CONF_DEFAULT_PATH IBATS_OPENSM_CONFDIR "/osmats.conf"
#define OSMATS_CONF_MAX_TRUSTED 64
#define OSMATS_CONF_PATH_MAX 512
/* The plugin's metrics file, written beside the state file
 * (plugin/metrics.c): a state_file of that name is refused. */
#define OSMATS_CONF_METRICS_NAME "osmats.prom"

struct osmats_conf {
	struct rule_config pol;
	uint64_t trusted[OSMATS_CONF_MAX_TRUSTED];
	size_t ntrusted;
	int flush_departed;
	int liveness;           /* answer classes 0x34/0x32 on the SM port */
	int indexed_queries;    /* answer ServiceRecord Gets from the index */
	uint32_t flush_grace_sweeps;
	char state_file[OSMATS_CONF_PATH_MAX]; /* "" = default path, "none" = off */
	int replication;        /* SM-to-SM replication of ServiceRecords */
	uint32_t replication_ack_timeout; /* ms; 0 = from sminfo_polling_timeout */
	uint32_t replication_log; /* changes the master keeps for standbys */
	/* The key replication authenticates with (replauth.h); "" none:
	 * replication off. */
	char replication_key_file[OSMATS_CONF_PATH_MAX];
};

void osmats_conf_default(struct osmats_conf *c);

/* Parse path into c (which starts from defaults). Returns 0, -ENOENT when
 * the file does not exist (c keeps the defaults), or -EINVAL with err set
 * to "path:line: what is wrong". */
int osmats_conf_load(const char *path, struct osmats_conf *c, char *err, size_t errlen);

/* Whether two configurations differ in a key that needs a restart; names
 * it in *key. */
int osmats_conf_restart_needed(const struct osmats_conf *a,
			const struct osmats_conf *b, const char **key);

/* Copy every key that needs a restart from "from" into "to": a reload
 * keeps what is in force for those. */
void osmats_conf_keep_restart_keys(struct osmats_conf *to, const struct osmats_conf *from);

int osmats_conf_is_trusted(const struct osmats_conf *c, uint64_t guid);

/* The path given in OpenSM's event_plugin_options ("osmats_config=PATH"),
 * else the default. */
const char *osmats_conf_path_from_options(const char *options, char *buf, size_t len);

/* One line per key with its value, for the OpenSM log at load. */
void osmats_conf_describe(const struct osmats_conf *c, char *buf, size_t len);

#endif
