/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* /dev/infiniband/umadN and issmN of the simulated node: each open is a
 * connection to the node's kernel (the fd the process gets is that
 * socket, so poll, O_NONBLOCK and fork work as on the device); read,
 * write, ioctl and close keep ib_umad's semantics on it. */
#ifndef IBATS_SIMHOST_SHIM_UMAD_H
#define IBATS_SIMHOST_SHIM_UMAD_H

/* open() of umadN (issm 0) or issmN (issm 1) with open's flags: the fd,
 * or -1 with errno (ENOENT without a simulated kernel). */
int shim_umad_open(int num, int issm, int flags);

#endif
