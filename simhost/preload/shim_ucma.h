/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* /dev/infiniband/rdma_cm of the simulated node (RDMACM.md 6): each
 * open is a SIMHOST_UCMA connection to the node's kernel, the fd the
 * process holds (poll and epoll on it see the file's doorbells); each
 * write() of a ucma command goes over a command connection of the
 * file, its response is copied to the command's `response` pointer, as
 * ucma_write does. fstat() shows the character device. */
#ifndef IBATS_SIMHOST_SHIM_UCMA_H
#define IBATS_SIMHOST_SHIM_UCMA_H

#include <stddef.h>
#include <sys/types.h>

/* open() of the device with open's flags: the fd, or -1 with errno
 * (ENOENT without a kernel or while the node has no ib_cm). */
int shim_ucma_open(int flags);
/* For an fd that is not the umad module's: write(), read() (the device
 * has none: EINVAL) and close() of a rdma_cm fd, else libc's. */
ssize_t shim_ucma_write(int fd, const void *buf, size_t count);
ssize_t shim_ucma_read(int fd, void *buf, size_t count);
int shim_ucma_close(int fd);

#endif
