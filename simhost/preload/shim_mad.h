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

/* The requests with a timeout this fd's writes sent and its reads have
 * not yet seen answered or timed out: those the kernel may still hold on
 * the file's send list (user_mad.c is_duplicate). The kernel drops one
 * there before the reader sees its answer, never after, so a request not
 * here is surely no duplicate and its write needs no verdict; one here
 * asks the kernel (SIMHOST_WRITE). Past SHIM_MAD_SENT_MAX, or while an
 * entry the set could not keep may still wait, every write asks. */
#define SHIM_MAD_SENT_MAX 128

struct shim_mad_sent {
	uint32_t n;
	int64_t blind_until; /* ms: an entry not kept may wait until then */
	struct {
		uint32_t tid;
		uint8_t agent, mgmt_class;
		int64_t until; /* ms: the kernel is surely done with it */
	} e[SHIM_MAD_SENT_MAX];
};

/* 1 when the write of buf (count bytes: umad header, MAD) must wait for
 * the kernel's verdict at now (ms): a request the set may hold, or a
 * response an RMPP transfer of the kernel's sends (it may still be
 * sending one with its TID to the same place). */
int shim_mad_sent_ask(const struct shim_mad_sent *s, const uint8_t *buf, size_t count,
		      const struct shim_mad_agent *agents, int64_t now);
/* A request with a timeout about to be written (taken out again with
 * shim_mad_sent_read's rule if the write fails: shim_mad_sent_forget). */
void shim_mad_sent_add(struct shim_mad_sent *s, const uint8_t *buf, size_t count, int64_t now);
void shim_mad_sent_forget(struct shim_mad_sent *s, const uint8_t *buf, size_t count);
/* What a read returned (len bytes: umad header, MAD): a response or a
 * send handed back (status set) ends its request's entry. */
void shim_mad_sent_read(struct shim_mad_sent *s, const uint8_t *buf, size_t len);
/* An agent unregistered: the kernel drops its sends (mad.c cancel_mads). */
void shim_mad_sent_agent_gone(struct shim_mad_sent *s, uint32_t agent);

#endif
