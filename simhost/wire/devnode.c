/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The node's device nodes and the VFS's permission check (devnode.h). */
#include <errno.h>
#include <stddef.h>

#include "devnode.h"
#include "simhost.h"

static const struct devnode devnode_tab[] = {
	[DEVNODE_UMAD] = { "umad", "class/infiniband_mad", 1, 0, 0, 0600 },
	[DEVNODE_ISSM] = { "issm", "class/infiniband_mad", 1, 0, 0, 0600 },
	[DEVNODE_UVERBS] = { "uverbs", "class/infiniband_verbs", 1, 0, 0, 0666 },
	[DEVNODE_RDMA_CM] = { "rdma_cm", "class/misc", 0, 0, 0, 0666 },
};

const struct devnode *devnode_get(enum devnode_kind kind)
{
	return (unsigned)kind < sizeof(devnode_tab) / sizeof(devnode_tab[0]) ?
	       &devnode_tab[kind] : NULL;
}

const struct devnode *devnode_of_kind(uint32_t simhost_kind)
{
	switch (simhost_kind) {
	case SIMHOST_UMAD:
	case SIMHOST_AGENTS:
		return &devnode_tab[DEVNODE_UMAD];
	case SIMHOST_ISSM:
		return &devnode_tab[DEVNODE_ISSM];
	case SIMHOST_VERBS:
		return &devnode_tab[DEVNODE_UVERBS];
	case SIMHOST_UCMA:
	case SIMHOST_UCMA_CMD:
		return &devnode_tab[DEVNODE_RDMA_CM];
	default:
		return NULL;
	}
}

int devnode_permission(const struct devnode *d, const struct devnode_cred *c, int mask)
{
	unsigned mode = d->mode;

	mask &= DEVNODE_MAY_READ | DEVNODE_MAY_WRITE | DEVNODE_MAY_EXEC;
	/* acl_permission_check: the owner's bits for the owner, whatever
	 * the others' say; else the group's when the caller is in it and
	 * they differ from the others' in the bits asked for. */
	if (c->uid == d->uid) {
		if (!(mask & ~(mode >> 6)))
			return 0;
	} else {
		if ((mask & (mode ^ (mode >> 3))) && (c->gid == d->gid || c->in_group))
			mode >>= 3;
		if (!(mask & ~mode & 7))
			return 0;
	}
	/* generic_permission: reading alone passes with CAP_DAC_READ_SEARCH;
	 * read and write always with CAP_DAC_OVERRIDE, execute only when
	 * some execute bit is set (none is on these nodes). */
	if (mask == DEVNODE_MAY_READ && (c->caps & DEVNODE_CAP_DAC_READ_SEARCH))
		return 0;
	if ((!(mask & DEVNODE_MAY_EXEC) || (d->mode & 0111)) &&
	    (c->caps & DEVNODE_CAP_DAC_OVERRIDE))
		return 0;
	return -EACCES;
}
