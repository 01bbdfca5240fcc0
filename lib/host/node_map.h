/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* A node name map as infiniband-diags reads it (ibnetdiscover,
 * ibroute, saquery's --node-name-map; /etc/infiniband-diags/node-name-map
 * or ibnetdiscover.map): one node a line, its NodeGUID then its name,
 * bare (to a '#' or the line's end, trailing blanks dropped) or in double
 * quotes; blank lines and '#' comments ignored:
 *
 *     # rack 4
 *     0x0002c90300a1b2c0 "r4-node07 mlx5_0"
 *     0x0000000000100002 cn-0001
 *
 * Our own parser, stricter than theirs: a line it would skip (no GUID, no
 * name) is an error naming file:line, as is a GUID named twice. */
#ifndef IBATS_NODE_MAP_H
#define IBATS_NODE_MAP_H

#include <stddef.h>
#include <stdint.h>

struct node_map;

/* Read path; *out is NULL on error, and err holds "path:line: why" (or
 * "path: strerror"). -ENOENT/-EACCES... when it cannot be read, -EINVAL
 * for a line not in the format, -ENOMEM. */
int node_map_load(const char *path, struct node_map **out, char *err, size_t errlen);
/* The name mapped to node_guid, NULL when the map has none. */
const char *node_map_name(const struct node_map *m, uint64_t node_guid);
size_t node_map_count(const struct node_map *m);
void node_map_free(struct node_map *m);

#endif
