#include <errno.h>
#include <string.h>

#include "mad.h"
#include "repl.h"
#include "vmad.h"
#include "wire.h"

static void header(uint8_t *mad, uint64_t tid, uint8_t method)
{
	struct mad_hdr h = {
		.base_version = MAD_BASE_VERSION,
		.mgmt_class = REPL_CLASS,
		.class_version = REPL_CLASS_VERSION,
		.method = method,
		.tid = tid,
		.attr_id = REPL_ATTR_PULL,
	};

	memset(mad, 0, MAD_SIZE);
	mad_hdr_encode(mad, &h);
	vmad_put_oui(mad, VMAD_OUI_OPENIB);
}

static int check(const uint8_t *mad, size_t len, uint8_t method)
{
	struct mad_hdr h;

	if (len < MAD_SIZE || mad_hdr_decode(mad, len, &h))
		return -EMSGSIZE;
	if (h.mgmt_class != REPL_CLASS || h.class_version != REPL_CLASS_VERSION ||
	    h.method != method || h.attr_id != REPL_ATTR_PULL ||
	    vmad_get_oui(mad) != VMAD_OUI_OPENIB)
		return -EPROTO;
	return 0;
}

void repl_pull_encode(uint8_t *mad, uint64_t tid, const struct repl_pull *p)
{
	header(mad, tid, MAD_METHOD_GET);
	wire_put64(mad + REPL_OFF_EPOCH, p->epoch);
	wire_put64(mad + REPL_OFF_NEXT, p->next);
	wire_put64(mad + REPL_OFF_SMKEY, p->sm_key);
	mad[REPL_OFF_FLAGS] = p->flags;
}

int repl_pull_decode(const uint8_t *mad, size_t len, struct repl_pull *p)
{
	int ret = check(mad, len, MAD_METHOD_GET);

	memset(p, 0, sizeof(*p));
	if (ret)
		return ret;
	p->epoch = wire_get64(mad + REPL_OFF_EPOCH);
	p->next = wire_get64(mad + REPL_OFF_NEXT);
	p->sm_key = wire_get64(mad + REPL_OFF_SMKEY);
	p->flags = mad[REPL_OFF_FLAGS];
	return 0;
}

static int carries_record(enum repl_kind k)
{
	return k == REPL_SET || k == REPL_DELETE || k == REPL_SNAP_RECORD;
}

void repl_answer_encode(uint8_t *mad, uint64_t tid, const struct repl_answer *a)
{
	header(mad, tid, (MAD_METHOD_GET | MAD_METHOD_RESP_BIT));
	wire_put64(mad + REPL_OFF_EPOCH, a->epoch);
	wire_put64(mad + REPL_OFF_HEAD, a->head);
	wire_put64(mad + REPL_OFF_SEQ, a->seq);
	mad[REPL_OFF_KIND] = (uint8_t)a->kind;
	wire_put32(mad + REPL_OFF_LEASE, a->lease_left);
	wire_put32(mad + REPL_OFF_POS, a->pos);
	wire_put32(mad + REPL_OFF_TOTAL, a->total);
	if (carries_record(a->kind))
		sr_encode(mad + REPL_OFF_RECORD, &a->rec);
}

int repl_answer_decode(const uint8_t *mad, size_t len, struct repl_answer *a)
{
	int ret = check(mad, len, (MAD_METHOD_GET | MAD_METHOD_RESP_BIT));

	memset(a, 0, sizeof(*a));
	if (ret)
		return ret;
	if (mad[REPL_OFF_KIND] >= REPL_KINDS)
		return -EPROTO;
	a->epoch = wire_get64(mad + REPL_OFF_EPOCH);
	a->head = wire_get64(mad + REPL_OFF_HEAD);
	a->seq = wire_get64(mad + REPL_OFF_SEQ);
	a->kind = (enum repl_kind)mad[REPL_OFF_KIND];
	a->lease_left = wire_get32(mad + REPL_OFF_LEASE);
	a->pos = wire_get32(mad + REPL_OFF_POS);
	a->total = wire_get32(mad + REPL_OFF_TOTAL);
	if (carries_record(a->kind))
		return sr_decode(mad + REPL_OFF_RECORD, SR_SIZE, &a->rec) ? -EPROTO : 0;
	return 0;
}
