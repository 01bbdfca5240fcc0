/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The simulated ib_ipoib's broadcast joins: see kipoib.h. */
#include <errno.h>
#include <string.h>

#include "core/ipoib.h"
#include "kipoib.h"
#include "core/mcm.h"
#include "core/sa.h"
#include "core/wire.h"

/* ipoib_multicast.c: backoff 1 s, doubled per failure, at most 16 s
 * (IPOIB_MAX_BACKOFF_SECONDS). */
#define KIPOIB_BACKOFF_MAX_S 16

void kipoib_init(struct kipoib *p)
{
	memset(p, 0, sizeof(*p));
	p->next_tid = 1;
}

int kipoib_add(struct kipoib *p, uint16_t pkey, int64_t now)
{
	struct kipoib_if *f;

	if (p->n == KIPOIB_MAX)
		return -ENOSPC;
	f = &p->ifs[p->n++];
	memset(f, 0, sizeof(*f));
	f->pkey = pkey;
	/* ipoib_open -> ipoib_mcast_start_thread: joins at once on a port
	 * that is up. */
	f->due = p->up ? now : INT64_MAX;
	f->backoff_s = 1;
	return 0;
}

void kipoib_port(struct kipoib *p, int active, int rejoin, int64_t now)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		struct kipoib_if *f = &p->ifs[i];

		if (!active) {
			/* ipoib_mcast_dev_flush: the port went; join again
			 * when it is back. */
			f->joined = f->pending = 0;
			f->due = INT64_MAX;
		} else if ((!p->up || rejoin || (!f->joined && !f->pending)) && f->due == INT64_MAX) {
			f->joined = 0;
			f->pending = 0;
			f->backoff_s = 1;
			f->due = now;
		}
	}
	p->up = active;
}

int64_t kipoib_deadline(const struct kipoib *p)
{
	int64_t d = INT64_MAX;
	size_t i;

	for (i = 0; i < p->n; i++)
		if (p->ifs[i].due < d)
			d = p->ifs[i].due;
	return d;
}

/* ipoib_mcast_join for the broadcast group: MGID, PortGID, P_Key and
 * JoinState (full member); the SM created the group (OpenSM does for
 * the partitions its config gives IPoIB). A leave (Delete) is ib_sa's
 * multicast.c send_leave: MGID, PortGID and JoinState. */
static void build_mcm(uint16_t pkey, uint32_t tid_lo, uint8_t method, const uint8_t gid[16],
		      uint8_t mad[256])
{
	struct sa_hdr h;
	struct mcm_record m;

	memset(mad, 0, 256);
	memset(&h, 0, sizeof(h));
	h.mad.base_version = MAD_BASE_VERSION;
	h.mad.mgmt_class = SA_CLASS;
	h.mad.class_version = SA_CLASS_VERSION;
	h.mad.method = method;
	h.mad.tid = tid_lo;
	h.mad.attr_id = SA_ATTR_MCMEMBER_RECORD;
	h.comp_mask = 1ull << MCM_CM_MGID | 1ull << MCM_CM_PORT_GID | 1ull << MCM_CM_JOIN_STATE;
	if (method == SA_METHOD_SET)
		h.comp_mask |= 1ull << MCM_CM_PKEY;
	sa_hdr_encode(mad, &h);
	memset(&m, 0, sizeof(m));
	ipoib_bcast_mgid(pkey, m.mgid);
	memcpy(m.port_gid, gid, 16);
	m.pkey = pkey | 0x8000;
	m.join_state = MCM_JOIN_FULL;
	mcm_encode(mad + SA_OFF_DATA, &m);
}

void kipoib_due(struct kipoib *p, int64_t now, const uint8_t port_gid[16], kipoib_send_fn send,
		void *ctx)
{
	uint8_t mad[256];
	size_t i;

	for (i = 0; i < p->n; i++) {
		struct kipoib_if *f = &p->ifs[i];

		if (f->due > now)
			continue;
		f->due = INT64_MAX;
		f->pending = 1;
		f->tid_lo = p->next_tid++;
		build_mcm(f->pkey, f->tid_lo, SA_METHOD_SET, port_gid, mad);
		p->joins++;
		send(ctx, mad);
	}
}

int kipoib_answer(struct kipoib *p, const uint8_t *mad, size_t len, int timed_out, int64_t now)
{
	uint32_t tid_lo;
	size_t i;

	if (len < MAD_HDR_SIZE)
		return 0;
	tid_lo = (uint32_t)wire_get64(mad + MAD_OFF_TID);
	for (i = 0; i < p->n; i++) {
		struct kipoib_if *f = &p->ifs[i];

		if (!f->pending || f->tid_lo != tid_lo)
			continue;
		f->pending = 0;
		if (!timed_out && !wire_get16(mad + MAD_OFF_STATUS)) {
			f->joined = 1;
			f->backoff_s = 1;
			return 1;
		}
		p->failures++;
		if (p->up) {
			f->due = now + 1000 * (int64_t)f->backoff_s;
			if (f->backoff_s < KIPOIB_BACKOFF_MAX_S)
				f->backoff_s *= 2;
		}
		return 1;
	}
	return 0;
}

int kipoib_del(struct kipoib *p, uint16_t pkey, const uint8_t port_gid[16], kipoib_send_fn send,
	       void *ctx)
{
	uint8_t mad[256];
	size_t i, at = p->n;
	int member = 0;

	for (i = 0; i < p->n; i++)
		if (p->ifs[i].pkey == pkey)
			at = i;
	if (at == p->n)
		return -ENOENT;
	member = p->ifs[at].joined || p->ifs[at].pending;
	memmove(&p->ifs[at], &p->ifs[at + 1], (p->n - at - 1) * sizeof(p->ifs[0]));
	p->n--;
	for (i = 0; i < p->n; i++)
		if (p->ifs[i].pkey == pkey)
			return 0; /* the group is still this node's */
	if (!member || !p->up)
		return 0;
	build_mcm(pkey, p->next_tid++, SA_METHOD_DELETE, port_gid, mad);
	p->leaves++;
	send(ctx, mad);
	return 1;
}
