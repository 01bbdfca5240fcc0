/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Which paths of a host belong to the simulated node, and where they
 * are: the node's sysfs tree ($SIMHOST_DIR/<node>/sys) for the RDMA
 * classes, the simulated ib_cm and the simulated IPoIB interfaces; the
 * simulated kernel for /dev/infiniband's devices. Pure: unit-tested. */
#ifndef IBATS_SIMHOST_SHIM_PATH_H
#define IBATS_SIMHOST_SHIM_PATH_H

#include <stddef.h>

enum shim_path_kind {
	SHIM_PATH_HOST = 0, /* not the node's: the real path */
	SHIM_PATH_SYS = 1,  /* in the node's sysfs tree */
	SHIM_PATH_UMAD = 2, /* /dev/infiniband/umadN */
	SHIM_PATH_ISSM = 3, /* /dev/infiniband/issmN */
	SHIM_PATH_UCMA = 4, /* /dev/infiniband/rdma_cm (RDMACM.md) */
	SHIM_PATH_ABSENT = 5, /* a host's file the node has not: ENOENT */
	SHIM_PATH_UVERBS = 6, /* /dev/infiniband/uverbsN: stat() and access()
			       * only (libibverbs' calls are interposed) */
	SHIM_PATH_RUN = 7,  /* ibacm's socket or port file, the node's own */
};

/* Whether the node has network interface `name` (its sysfs tree's
 * class/net/<name>). */
typedef int (*shim_path_net_fn)(const char *name, size_t len, void *ctx);

/* Where path is: SHIM_PATH_SYS with the node's path in out (len bytes),
 * never without a node (sys NULL: the devices are still the node's, and
 * without one there are none),
 * SHIM_PATH_UMAD, SHIM_PATH_ISSM or SHIM_PATH_UVERBS with the device's
 * number in *num,
 * SHIM_PATH_UCMA, SHIM_PATH_ABSENT (only with a node), SHIM_PATH_HOST;
 * -ENAMETOOLONG when out is too short. */
int shim_path_map(const char *path, const char *sys, shim_path_net_fn net, void *ctx, char *out,
		  size_t len, int *num);

/* ibacm's files under /run (rdma-core's IBACM_SERVER_PATH and
 * IBACM_IBACME_SERVER_PATH, IBACM_PORT_FILE and IBACM_IBACME_PORT_FILE):
 * the node's, in its run directory, so that a node's ibacm and the
 * librdmacm of the node's programs meet there. SHIM_PATH_RUN with the
 * node's path in out, SHIM_PATH_ABSENT when the node has no run
 * directory that fits (run NULL or too long for sun_path's 108 bytes),
 * SHIM_PATH_HOST for any other path. */
int shim_path_run(const char *path, const char *run, char *out, size_t len);

#endif
