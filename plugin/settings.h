/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The plugin's settings: the config file named in OpenSM's
 * event_plugin_options, read at create() and reread at SUBNET_UP when it
 * changed (OpenSM's SIGHUP starts a sweep, so that is also when a fixed
 * file is picked up). Fail closed: a file that does not parse at load
 * leaves every rule on; one that does not parse at a reload leaves the
 * previous settings in force. Readers get a consistent copy. */
#ifndef IBATS_SETTINGS_H
#define IBATS_SETTINGS_H

#include <stdint.h>

#include "core/osmats_conf.h"
#include "policy.h"

/* Load the file named by options ("osmats_config=PATH"), logging to
 * OpenSM's log (glue.h) what is in force (ERR 7A20, ERR 7A23 when the
 * built-in defaults stand in). Again from the start when called again. */
void settings_init(const char *options);
/* At SUBNET_UP, from the plugin thread: reread the file if it changed
 * (ERR 7A21, ERR 7A22). */
void settings_reload(void);

const char *settings_path(void);
void settings_get(struct osmats_conf *out);
void settings_get_pol(struct rule_config *out);
/* indexed_queries, without a lock (the query path reads it). */
int settings_indexed_queries(void);

#endif
