/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* atsctl verify: the kernel's IPoIB neighbours against ATS. */
#ifndef IBATS_CMD_VERIFY_H
#define IBATS_CMD_VERIFY_H

#include <stdint.h>

#include "core/ats.h"
#include "host/ifev.h"

struct ctl;
struct ctl_args;

/* 1 when n is a resolved IPoIB neighbour (20-byte link-layer address);
 * its IP and GID then in ip and gid. */
int cmd_verify_ipoib_neigh(const struct ifev_neigh *n, struct ats_ip *ip, uint8_t *gid);

/* Compare every IPoIB neighbour (of --netns, or ours) with ATS forward
 * lookups. Exit status: 0 all agree, 1 disagreements, 3 query errors. */
int cmd_verify(struct ctl *c, const struct ctl_args *a);

#endif
