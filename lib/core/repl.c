/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The replication MADs (see repl.h). */
#include <errno.h>
#include <string.h>

#include "mad.h"
#include "repl.h"
#include "vmad.h"
#include "wire.h"

static void header(uint8_t *mad, uint64_t tid, uint8_t method, uint32_t mod)
{
	vmad_hdr_encode(mad, REPL_CLASS, REPL_CLASS_VERSION, method, tid, REPL_ATTR, mod);
}

static int check(const uint8_t *mad, size_t len, uint8_t method, uint32_t *mod)
{
	struct mad_hdr h;
	int ret = vmad_hdr_check(mad, len, REPL_CLASS, REPL_CLASS_VERSION, method, &h);

	if (ret)
		return ret;
	if (h.attr_id != REPL_ATTR)
		return -EPROTO;
	*mod = h.attr_mod;
	return 0;
}

int repl_kind_has_record(enum repl_kind k)
{
	return k == REPL_SET || k == REPL_DELETE || k == REPL_SNAP_RECORD;
}

void repl_pull_encode(uint8_t *mad, uint64_t tid, const struct repl_pull *p)
{
	header(mad, tid, MAD_METHOD_GET, p->flags);
	wire_put64(mad + REPL_OFF_EPOCH, p->epoch);
	wire_put64(mad + REPL_OFF_NEXT, p->next);
	wire_put32(mad + REPL_OFF_POS, p->pos);
}

int repl_pull_decode(const uint8_t *mad, size_t len, struct repl_pull *p)
{
	uint32_t mod = 0;
	int ret = check(mad, len, MAD_METHOD_GET, &mod);

	memset(p, 0, sizeof(*p));
	if (ret)
		return ret;
	if (mod & ~(uint32_t)REPL_FLAGS ||
	    (mod & REPL_FLAG_NOACK && mod != REPL_FLAG_NOACK))
		return -EPROTO;
	p->flags = (uint8_t)mod;
	p->epoch = wire_get64(mad + REPL_OFF_EPOCH);
	p->next = wire_get64(mad + REPL_OFF_NEXT);
	p->pos = wire_get32(mad + REPL_OFF_POS);
	return 0;
}

void repl_answer_encode(uint8_t *mad, uint64_t tid, const struct repl_answer *a)
{
	header(mad, tid, MAD_METHOD_GET | MAD_METHOD_RESP_BIT, (uint32_t)a->kind);
	wire_put64(mad + REPL_OFF_EPOCH, a->epoch);
	wire_put64(mad + REPL_OFF_SEQ, a->seq);
	wire_put32(mad + REPL_OFF_LEASE, a->lease_left);
	wire_put32(mad + REPL_OFF_POS, a->pos);
	if (repl_kind_has_record(a->kind)) {
		memcpy(mad + REPL_OFF_RECORD, a->rec, SR_SIZE);
	} else {
		wire_put64(mad + REPL_OFF_HEAD, a->head);
		wire_put32(mad + REPL_OFF_ACK_MS, a->ack_ms);
		wire_put32(mad + REPL_OFF_CAPS, a->caps);
	}
}

int repl_answer_decode(const uint8_t *mad, size_t len, struct repl_answer *a)
{
	uint32_t mod = 0;
	int ret = check(mad, len, MAD_METHOD_GET | MAD_METHOD_RESP_BIT, &mod);

	memset(a, 0, sizeof(*a));
	if (ret)
		return ret;
	/* A MAD status (the port's "unsupported class" answer) is no answer. */
	if (wire_get16(mad + MAD_OFF_STATUS) || mod >= REPL_KINDS)
		return -EPROTO;
	a->kind = (enum repl_kind)mod;
	a->epoch = wire_get64(mad + REPL_OFF_EPOCH);
	a->seq = wire_get64(mad + REPL_OFF_SEQ);
	a->lease_left = wire_get32(mad + REPL_OFF_LEASE);
	a->pos = wire_get32(mad + REPL_OFF_POS);
	if (repl_kind_has_record(a->kind)) {
		memcpy(a->rec, mad + REPL_OFF_RECORD, SR_SIZE);
	} else {
		a->head = wire_get64(mad + REPL_OFF_HEAD);
		a->ack_ms = wire_get32(mad + REPL_OFF_ACK_MS);
		a->caps = wire_get32(mad + REPL_OFF_CAPS);
	}
	return 0;
}
