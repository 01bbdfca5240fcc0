/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The host's paths as the simulated node shows them (shim_path.h):
 * libc's path calls interposed, each on the node's path when it is the
 * node's. */
#ifndef IBATS_SIMHOST_SHIM_SYS_H
#define IBATS_SIMHOST_SHIM_SYS_H

#include <stddef.h>

/* path, or the node's path for it in buf (len bytes); kind and num as
 * shim_path_map gives them. NULL with errno when the node's path is too
 * long. */
const char *shim_sys_path(const char *path, char *buf, size_t len, int *kind, int *num);

/* Whether path names the host's /sys/class/net itself, the directory
 * that lists the node's interfaces beside the host's. */
int shim_sys_is_netdir(const char *path);

#endif
