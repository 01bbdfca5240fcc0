/* librmppsim's framing of data in segments, its queue for the reader
 * and its dump, see rmppsim.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mad.h"
#include "rmpp.h"
#include "rmppsim.h"

#include <infiniband/umad.h>

/* umad2sim 0.10 hands a reader only the first 224 bytes of each MAD:
 * its receiver thread reads into a buffer of sizeof(struct sim_request)
 * (288 bytes), 64 of them the umad header, and the last 32 bytes of the
 * 256 it then returns are whatever follows that buffer on the heap. So
 * between two shims each segment carries its data in the bytes that
 * arrive: the message given to the protocol has keep = mad_bytes -
 * hdr_len bytes of data in each segment's seg = MAD_SIZE - hdr_len
 * (168 of 200 for the SA), the rest filler, and the receiver takes the
 * filler out again. The segments stay RMPP (13.6.2.3) on the wire. */
uint8_t *rs_pack(const uint8_t *mad, size_t len, size_t hdr_len, size_t mad_bytes,
		 size_t *out_len)
{
	size_t seg = MAD_SIZE - hdr_len, keep = mad_bytes - hdr_len;
	size_t data = len - hdr_len, k = (data + keep - 1) / keep, i, n;
	uint8_t *out;

	*out_len = hdr_len + (k ? (k - 1) * seg + (data - (k - 1) * keep) : 0);
	out = calloc(1, *out_len ? *out_len : 1);
	if (!out)
		return NULL;
	memcpy(out, mad, hdr_len);
	for (i = 0; i < k; i++) {
		n = i + 1 < k ? keep : data - i * keep;
		memcpy(out + hdr_len + i * seg, mad + hdr_len + i * keep, n);
	}
	return out;
}

/* rs_pack() undone in place: the message's true length, or 0 when msg
 * cannot be a packed one. */
size_t rs_unpack(uint8_t *msg, size_t len, size_t mad_bytes)
{
	size_t hdr_len = rmpp_hdr_len(msg[MAD_OFF_MGMT_CLASS]);
	size_t seg = MAD_SIZE - hdr_len, keep = mad_bytes - hdr_len, data, k, r, i;

	if (!hdr_len || len < hdr_len || keep >= seg)
		return hdr_len && keep >= seg ? len : 0;
	data = len - hdr_len;
	k = (data + seg - 1) / seg;
	r = k ? data - (k - 1) * seg : 0;
	if (r > keep)
		return 0;
	for (i = 1; i < k; i++)
		memmove(msg + hdr_len + i * keep, msg + hdr_len + i * seg,
			i + 1 < k ? keep : r);
	return hdr_len + (k ? (k - 1) * keep + r : 0);
}

/* RMPPSIM_DUMP=FILE: each whole message received is appended to FILE
 * (a test's witness of what the reader got). */
void rs_dump(const char *var, const uint8_t *msg, size_t len)
{
	const char *path = getenv(var);
	FILE *f;

	if (!path || !*path || !(f = fopen(path, "ab")))
		return;
	if (fwrite(msg, 1, len, f) != len)
		fprintf(stderr, "rmppsim: short write to %s\n", path);
	fclose(f);
}

void rs_queue_put(struct rs_queue *q, const void *hdr, size_t hdr_len, const void *mad,
		  size_t mad_len)
{
	struct rs_msg *m = malloc(sizeof(*m) + hdr_len + mad_len);

	if (!m)
		return;
	m->next = NULL;
	m->len = hdr_len + mad_len;
	memcpy(m->buf, hdr, hdr_len);
	memcpy(m->buf + hdr_len, mad, mad_len);
	if (q->tail)
		q->tail->next = m;
	else
		q->head = m;
	q->tail = m;
}

ssize_t rs_queue_get(struct rs_queue *q, void *buf, size_t count)
{
	const size_t umad = sizeof(struct ib_user_mad);
	struct rs_msg *m = q->head;

	if (m->len > count) {
		if (count < umad) {
			errno = EINVAL;
			return -1;
		}
		memcpy(buf, m->buf, count < umad + MAD_SIZE ? count : umad + MAD_SIZE);
		((struct ib_user_mad *)buf)->length = (uint32_t)m->len;
		errno = ENOSPC;
		return -1;
	}
	memcpy(buf, m->buf, m->len);
	q->head = m->next;
	if (!q->head)
		q->tail = NULL;
	count = m->len;
	free(m);
	return (ssize_t)count;
}

void rs_queue_clear(struct rs_queue *q)
{
	struct rs_msg *m;

	while ((m = q->head)) {
		q->head = m->next;
		free(m);
	}
	q->tail = NULL;
}
