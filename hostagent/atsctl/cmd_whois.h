/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* atsctl whois, and the NodeDescription column of dump and resolve
 * (--names): each GID's port as the SA's NodeRecord shows it (LID,
 * NodeGUID, NodeDescription, as saquery -N does), its name from an
 * infiniband-diags node name map when one is given. */
#ifndef IBATS_CMD_WHOIS_H
#define IBATS_CMD_WHOIS_H

#include <stddef.h>

#include "core/sr.h"

struct ctl;
struct ctl_args;

/* Exit status: 0 found, 1 no record of the IP, 2 a bad map, 3 SA error. */
int cmd_whois(struct ctl *c, const struct ctl_args *a);
/* The records as out_records() prints them, with each GID's LID and name
 * (in JSON also node_guid and node_description); the SA client is open
 * (ctl_open). An exit status. */
int cmd_whois_records(const struct ctl *c, int partial, int local, const struct sr_record *r, size_t n);

struct node_map;
/* For other commands (sm, why): the map --node-name-map names, loaded in
 * *map (NULL without the option); 0, or CTL_EXIT_USAGE with the error said. */
int cmd_whois_map(const struct ctl *c, struct node_map **map);
/* The name of the node of port port_guid, as whois names it: the map's
 * entry for its NodeGUID, else its NodeDescription (raw: a terminal needs
 * out_clean()); NULL when the SA knows no such port or fails. */
const char *cmd_whois_port_name(const struct ctl *c, const struct node_map *map,
				uint64_t port_guid, char *buf, size_t len);

#endif
