/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* ib_umad's synchronous answers to read() and write(), apart from the
 * I/O so that tests/unit/test_shim holds them to the kernel's
 * (drivers/infiniband/core/user_mad.c: ib_umad_read, copy_recv_mad,
 * copy_send_mad, ib_umad_write; mad.c: ib_create_send_mad). */
#ifndef IBATS_SIMHOST_SHIM_MAD_H
#define IBATS_SIMHOST_SHIM_MAD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* hdr_size(): struct ib_user_mad before its data (the P_Key index ABI
 * libibumad enables). */
#define SHIM_MAD_UMAD_HDR 64
/* IB_UMAD_MAX_AGENTS */
#define SHIM_MAD_MAX_AGENTS 32

/* What read(count) does with the next packet, plen bytes (the umad
 * header, then the MAD or the whole RMPP message) of umad status
 * `status`: plen (the packet is consumed), -ENOSPC (header and first
 * MAD copied, the packet stays queued) or -EINVAL (it stays queued). */
ssize_t shim_mad_read_verdict(size_t plen, uint32_t status, size_t count);

/* An agent as a write needs it: registered on the fd, and its RMPP. */
struct shim_mad_agent {
	uint8_t used;
	uint8_t rmpp_version;
};

/* 0 when ib_umad_write would take buf (count bytes: umad header then
 * the MAD) for the fd's agents (SHIM_MAD_MAX_AGENTS of them), else
 * -EINVAL as it fails before sending anything. */
int shim_mad_write_check(const uint8_t *buf, size_t count, const struct shim_mad_agent *agents);

#endif
