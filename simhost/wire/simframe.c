/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The framing of a SIMHOST_UMAD connection (simframe.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "simframe.h"

void simframe_at(struct simhost_frame *f, size_t total, size_t off, size_t *plen)
{
	size_t left = total - off;

	*plen = left < SIMHOST_CHUNK ? left : SIMHOST_CHUNK;
	f->flags = (off ? 0 : SIMHOST_FRAME_FIRST) | (*plen == left ? SIMHOST_FRAME_LAST : 0);
	f->total = (uint32_t)total;
}

void simframe_rx_reset(struct simframe_rx *rx)
{
	rx->total = 0;
	rx->got = 0;
}

int simframe_rx_next(struct simframe_rx *rx, const struct simhost_frame *f, size_t plen,
		     size_t *off)
{
	struct simhost_frame want;
	size_t wlen;

	if (f->flags & SIMHOST_FRAME_FIRST) {
		rx->total = f->total;
		rx->got = 0;
	}
	/* The one packet that may come next: exactly as the sender cuts. */
	if (rx->total)
		simframe_at(&want, rx->total, rx->got, &wlen);
	if (!rx->total || f->flags != want.flags || f->total != want.total || plen != wlen) {
		simframe_rx_reset(rx);
		return -EPROTO;
	}
	*off = rx->got;
	rx->got += plen;
	if (rx->got < rx->total)
		return SIMFRAME_MORE;
	simframe_rx_reset(rx);
	return SIMFRAME_DONE;
}

int simframe_send(int fd, const void *msg, size_t len, size_t *off)
{
	struct simhost_frame f;
	struct iovec iov[2];
	struct msghdr m;
	size_t plen;
	ssize_t n;

	if (!len || len > UINT32_MAX)
		return -EMSGSIZE;
	while (*off < len) {
		simframe_at(&f, len, *off, &plen);
		iov[0].iov_base = &f;
		iov[0].iov_len = sizeof(f);
		iov[1].iov_base = (uint8_t *)msg + *off;
		iov[1].iov_len = plen;
		memset(&m, 0, sizeof(m));
		m.msg_iov = iov;
		m.msg_iovlen = 2;
		n = sendmsg(fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -errno;
		*off += plen;
	}
	return 1;
}

static ssize_t simframe_recv(int fd, struct simhost_frame *f, void *buf, size_t count, int flags)
{
	struct iovec iov[2];
	struct msghdr m;
	ssize_t n;

	iov[0].iov_base = f;
	iov[0].iov_len = sizeof(*f);
	iov[1].iov_base = buf;
	iov[1].iov_len = buf ? count : 0;
	memset(&m, 0, sizeof(m));
	m.msg_iov = iov;
	m.msg_iovlen = 2;
	/* MSG_TRUNC: the packet's whole length, whatever was copied. */
	n = recvmsg(fd, &m, flags | MSG_DONTWAIT | MSG_TRUNC);
	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? -EAGAIN : -errno;
	if (n == 0)
		return -EPIPE;
	if ((size_t)n < sizeof(*f))
		return -EPROTO;
	return n - (ssize_t)sizeof(*f);
}

ssize_t simframe_peek(int fd, struct simhost_frame *f, void *buf, size_t count)
{
	return simframe_recv(fd, f, buf, count, MSG_PEEK);
}

ssize_t simframe_take(int fd, struct simhost_frame *f, void *buf, size_t count)
{
	return simframe_recv(fd, f, buf, count, 0);
}
