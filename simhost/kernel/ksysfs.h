/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The simulated node's sysfs (under DIR/NODE/sys, mapped over /sys by
 * libsimhost.so): what rdma-core's libibumad (Debian 12, rdma-core 44)
 * and atsd's lib/host/ibsys.c read for CA "ibsim0" port 1 (umad2sim's
 * CA name, so saquery -C and the like behave as before), the umad and
 * uverbs class directories, /sys/module/ib_cm when ib_cm is "loaded",
 * and the IPoIB interfaces (drivers/infiniband/ulp/ipoib). Kept current
 * from the port's PortInfo and P_Key table (drivers/infiniband/core/
 * sysfs.c prints the attributes); every file written whole (temp file,
 * rename) so a reader never sees half of one.
 *
 * ksysfs_update also says what changed as the verbs async events the
 * node's driver (kdriver.h: driver) raises (enum ibv_event_type values,
 * in order). */
#ifndef IBATS_KSYSFS_H
#define IBATS_KSYSFS_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "kdriver.h"

#define KSYSFS_CA "ibsim0"
#define KSYSFS_MAX_NETDEVS 8
#define KSYSFS_MAX_EVENTS KDRIVER_MAX_EVENTS
#define KSYSFS_IFINDEX_FIRST 100
/* rdma_ucm's misc device (RDMACM.md 1): ABI 4, char 10:58. */
#define KSYSFS_UCMA_ABI 4
#define KSYSFS_UCMA_MAJOR 10
#define KSYSFS_UCMA_MINOR 58

/* PortInfo (IBTA Vol 1 14.2.5.6, Table 155) as SIM_CTL_GET_PORTINFO
 * gives it, in wire order. */
enum {
	KSYSFS_PI_OFF_GID_PREFIX = 8,
	KSYSFS_PI_OFF_LID = 16,
	KSYSFS_PI_OFF_SM_LID = 18,
	KSYSFS_PI_OFF_CAP_MASK = 20,
	KSYSFS_PI_OFF_LOCAL_PORT = 28,
	KSYSFS_PI_OFF_WIDTH_ACTIVE = 31,
	KSYSFS_PI_OFF_STATE = 32,      /* low nibble; LinkSpeedSupported high */
	KSYSFS_PI_OFF_PHYS_STATE = 33, /* high nibble */
	KSYSFS_PI_OFF_LMC = 34,        /* low 3 bits */
	KSYSFS_PI_OFF_SPEED_ACTIVE = 35, /* high nibble */
	KSYSFS_PI_OFF_SM_SL = 36,      /* low nibble */
	KSYSFS_PI_OFF_SPEED_EXT_ACTIVE = 62, /* high nibble */
};

#define KSYSFS_PI_STATE_ACTIVE 4

/* NodeInfo (14.2.5.3, Table 147). */
enum {
	KSYSFS_NI_OFF_NODE_TYPE = 2,
	KSYSFS_NI_OFF_SYS_GUID = 4,
	KSYSFS_NI_OFF_NODE_GUID = 12,
	KSYSFS_NI_OFF_REVISION = 32,
};

struct ksysfs_netdev {
	char name[16];
	uint16_t pkey;
	uint32_t qpn;
	int ifindex;
};

struct ksysfs {
	char root[PATH_MAX]; /* DIR/NODE/sys */
	uint8_t nodeinfo[64];
	int have; /* pi and pk hold what was last written */
	uint8_t pi[64], pk[64];
	struct ksysfs_netdev nd[KSYSFS_MAX_NETDEVS];
	size_t nnd;
	int next_ifindex;
	enum kdriver driver; /* the port's events: KDRIVER_MLX5 after init */
	int no_rereg; /* the node's SM sets no ClientReregister */
};

/* Writes the tree's fixed part (the CA, umad, uverbs). -errno. */
int ksysfs_init(struct ksysfs *s, const char *root, const char *node,
		const uint8_t nodeinfo[64]);
/* /sys/module/ib_cm and rdma_ucm's class/misc/rdma_cm/{abi_version,dev}
 * there (the CM stack loaded) or not. -errno. */
int ksysfs_cm(struct ksysfs *s, int loaded);
/* An IPoIB interface: written now once the port is known, else at the
 * first update. -EEXIST for a name in use, -ENOSPC past
 * KSYSFS_MAX_NETDEVS, -EINVAL for a bad name. */
int ksysfs_add_netdev(struct ksysfs *s, const char *name, uint16_t pkey, uint32_t qpn);
/* Interface name gone from the tree; its P_Key in *pkey. -ENODEV when
 * there is none. */
int ksysfs_del_netdev(struct ksysfs *s, const char *name, uint16_t *pkey);
/* The port as it is now: files that changed are rewritten, and the
 * events a driver raises for the change go into ev (at most
 * KSYSFS_MAX_EVENTS); returns how many. The first call writes
 * everything and raises nothing. -errno when a file cannot be written. */
int ksysfs_update(struct ksysfs *s, const uint8_t pi[64], const uint8_t pk[64], uint32_t *ev);
/* The port's GID 0 (prefix and port GUID, as ib_core's GID table). */
void ksysfs_gid(const struct ksysfs *s, uint8_t gid[16]);

#endif
