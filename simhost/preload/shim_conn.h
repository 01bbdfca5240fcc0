/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* A connection of the process to its node's simulated kernel
 * (kernel.sock, the wire of simhost.h). */
#ifndef IBATS_SIMHOST_SHIM_CONN_H
#define IBATS_SIMHOST_SHIM_CONN_H

#include <stdint.h>

#include "simhost/wire/simhost.h"

/* A connected, welcomed socket of `kind` (enum simhost_kind), token and
 * port as the hello carries them, SOCK_CLOEXEC with cloexec; or -errno:
 * -ENOENT without a node or a kernel listening (a host without the
 * modules), the welcome's error, -EIO for a kernel that does not
 * answer as simhost.h says. Never waits for ever. */
int shim_conn_open(uint32_t kind, uint32_t token, uint32_t port, int cloexec,
		   struct simhost_welcome *w);

/* One request packet out, one reply packet back (len bytes exactly);
 * 0 or -errno (-EIO when the kernel went away or answered otherwise). */
int shim_conn_call(int fd, const void *req, size_t req_len, void *rep, size_t rep_len);

#endif
