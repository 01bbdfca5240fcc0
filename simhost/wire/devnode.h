/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The simulated node's device nodes under /dev/infiniband: the owner and
 * mode a distribution gives each, and the VFS's check of a process's
 * credentials against them when it opens one. Both sides use it:
 * simhostd enforces it on each connection (the credentials the socket
 * recorded at connect(), SO_PEERCRED: a process cannot skip it), the
 * preload shows it to stat() and access(). Pure: unit-tested.
 *
 * Owner and mode: devtmpfs creates each node (drivers/base/devtmpfs.c
 * devtmpfs_create_node) root:root with the mode its class's devnode
 * callback gives, 0600 when it gives none; udev then applies its rules,
 * and rdma-core's (kernel-boot/rdma-umad.rules, rdma-persistent-naming.rules,
 * rdma-description.rules) only name, tag and alias them:
 *   umadN, issmN  user_mad.c umad_devnode: a name, no mode: 0600
 *   uverbsN       uverbs_main.c uverbs_devnode: 0666
 *   rdma_cm       ucma.c ucma_misc: .mode = 0666 */
#ifndef IBATS_SIMHOST_DEVNODE_H
#define IBATS_SIMHOST_DEVNODE_H

#include <stdint.h>

enum devnode_kind {
	DEVNODE_UMAD = 0,
	DEVNODE_ISSM = 1,
	DEVNODE_UVERBS = 2,
	DEVNODE_RDMA_CM = 3,
};

struct devnode {
	const char *name;   /* /dev/infiniband/NAME, followed by N if numbered */
	const char *sysdir; /* its class under /sys: the node's numbers are in
			     * SYSDIR/NAME[N]/dev ("231:0"), as udev reads them */
	int numbered;       /* umad0, issm0, uverbs0; rdma_cm is one */
	uint32_t uid, gid;
	uint32_t mode;      /* permission bits */
};

/* The node of a kind (never NULL for the enum's values). */
const struct devnode *devnode_get(enum devnode_kind kind);

/* The device node a connection of a simhost_kind (simhost.h) stands for: a
 * SIMHOST_AGENTS connection is its umad file's, SIMHOST_UCMA_CMD its
 * rdma_cm file's. NULL for SIMHOST_ADMIN (the bench's console: no device)
 * and kinds it does not know. */
const struct devnode *devnode_of_kind(uint32_t simhost_kind);

/* include/linux/fs.h MAY_EXEC, MAY_WRITE, MAY_READ (access()'s X_OK,
 * W_OK, R_OK have the same values). */
#define DEVNODE_MAY_EXEC 1
#define DEVNODE_MAY_WRITE 2
#define DEVNODE_MAY_READ 4

/* include/uapi/linux/capability.h: 1 << CAP_DAC_OVERRIDE (1),
 * 1 << CAP_DAC_READ_SEARCH (2), as /proc/PID/status CapEff shows them. */
#define DEVNODE_CAP_DAC_OVERRIDE (1ull << 1)
#define DEVNODE_CAP_DAC_READ_SEARCH (1ull << 2)

/* Who opens: fsuid and fsgid (euid and egid unless setfsuid), whether
 * the node's group is among the supplementary groups, and the effective
 * capabilities (DEVNODE_CAP_*). */
struct devnode_cred {
	uint32_t uid, gid;
	int in_group;
	uint64_t caps;
};

/* fs/namei.c generic_permission and acl_permission_check for a device
 * node of devtmpfs (no ACL): 0 or -EACCES. mask: DEVNODE_MAY_*. */
int devnode_permission(const struct devnode *d, const struct devnode_cred *c, int mask);

#endif
