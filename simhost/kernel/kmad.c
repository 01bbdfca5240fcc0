/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The simulated kernel's MAD layer: see kmad.h. */
#include <errno.h>
#include <string.h>

#include <infiniband/umad.h>

#include "kmad.h"
#include "core/mad.h"
#include "core/wire.h"

/* include/rdma/ib_mad.h */
#define CLASS_SMI 0x01
#define CLASS_SMI_DR 0x81
#define CLASS_SA 0x03
#define CLASS_DEVICE_MGMT 0x06
#define CLASS_CM 0x07
#define CLASS_BM 0x05
#define CLASS_DEVICE_ADM 0x10
#define CLASS_BIS 0x12
#define VENDOR2_FIRST 0x30
#define VENDOR2_LAST 0x4f
#define MAX_MGMT_CLASS 0x80
#define MAX_MGMT_VERSION 8
#define METHOD_SEND 0x03
#define METHOD_TRAP_REPRESS 0x07
#define METHOD_GET_RESP 0x81
#define ATTR_CLASS_PORT_INFO 0x0001
#define BM_ATTR_MOD_RESP 0x80000000u
#define STATUS_UNSUPPORTED_METHOD_ATTRIB 0x000c
#define SMP_DIRECTION 0x8000
/* struct ib_vendor_mad: MAD header, RMPP header, a reserved byte, OUI. */
#define VENDOR_OFF_OUI 37

_Static_assert(sizeof(struct ib_user_mad) == 64, "umad header of 64 bytes (P_Key index ABI)");

void kmad_init(struct kmad *k)
{
	memset(k, 0, sizeof(*k));
}

void kmad_fini(struct kmad *k)
{
	size_t i;

	for (i = 0; i < KMAD_MAX_AGENTS; i++)
		kwait_fini(&k->a[i].waits);
	memset(k, 0, sizeof(*k));
}

static int is_vendor2(uint8_t c)
{
	return c >= VENDOR2_FIRST && c <= VENDOR2_LAST;
}

static int is_rmpp_class(uint8_t c)
{
	return c == CLASS_SA || c == CLASS_DEVICE_MGMT || c == CLASS_DEVICE_ADM ||
	       c == CLASS_BIS || is_vendor2(c);
}

int kmad_is_response(const uint8_t *mad)
{
	return (mad[MAD_OFF_METHOD] & MAD_METHOD_RESP_BIT) ||
	       mad[MAD_OFF_METHOD] == METHOD_TRAP_REPRESS ||
	       (mad[MAD_OFF_MGMT_CLASS] == CLASS_BM &&
		(wire_get32(mad + MAD_OFF_ATTR_MOD) & BM_ATTR_MOD_RESP));
}

int kmad_rmpp_active(const uint8_t *mad, size_t len)
{
	return len >= MAD_RMPP_HDR_END && is_rmpp_class(mad[MAD_OFF_MGMT_CLASS]) &&
	       (mad[MAD_RMPP_OFF_FLAGS] & MAD_RMPP_FLAG_ACTIVE);
}

int kmad_kernel_rmpp(const struct kmad_agent *a)
{
	return a->reg.rmpp_version && !(a->reg.flags & KMAD_USER_RMPP);
}

static int has_method(const struct kmad_reg *r, unsigned m)
{
	return (r->method_mask[m / 64] >> (m % 64)) & 1;
}

/* Same (class version, class[, OUI]) table in mad.c: the DR SMP class
 * shares nothing with the LID-routed one (convert_mgmt_class). */
static int same_table(const struct kmad_reg *a, const struct kmad_reg *b)
{
	return a->mgmt_class && a->mgmt_class == b->mgmt_class &&
	       a->class_version == b->class_version &&
	       (!is_vendor2(a->mgmt_class) || a->oui == b->oui);
}

/* mad.c ib_register_mad_agent's parameter checks, and user_mad.c's. */
static int reg_valid(const struct kmad_reg *r)
{
	if (r->qpn > 1 || (r->rmpp_version && r->rmpp_version != MAD_RMPP_VERSION))
		return 0;
	if (!r->mgmt_class)
		return 1; /* no registration request: sends only */
	if (r->class_version >= MAX_MGMT_VERSION)
		return 0;
	if (r->mgmt_class >= MAX_MGMT_CLASS && r->mgmt_class != CLASS_SMI_DR)
		return 0;
	if (is_vendor2(r->mgmt_class) && !r->oui)
		return 0;
	if (!is_rmpp_class(r->mgmt_class) && r->rmpp_version)
		return 0;
	if ((r->qpn == 0) != (r->mgmt_class == CLASS_SMI || r->mgmt_class == CLASS_SMI_DR))
		return 0;
	return 1;
}

static int method_in_use(const struct kmad *k, const struct kmad_reg *r)
{
	size_t i;
	unsigned m;

	for (i = 0; i < KMAD_MAX_AGENTS; i++) {
		if (!k->a[i].used || !same_table(&k->a[i].reg, r))
			continue;
		for (m = 0; m < 128; m++)
			if (has_method(r, m) && has_method(&k->a[i].reg, m))
				return 1;
	}
	return 0;
}

static int hi_tid_used(const struct kmad *k, uint32_t h)
{
	size_t i;

	for (i = 0; i < KMAD_MAX_AGENTS; i++)
		if (k->a[i].used && k->a[i].hi_tid == h)
			return 1;
	return 0;
}

int kmad_register(struct kmad *k, uint32_t file, const struct kmad_reg *r, uint32_t *id)
{
	struct kmad_agent *slot = NULL;
	uint32_t want;
	size_t i;

	if (!reg_valid(r) || method_in_use(k, r))
		return -EINVAL;
	/* The lowest free id of the file (user_mad.c ib_umad_reg_agent). */
	for (want = 0; want < KMAD_FILE_AGENTS; want++)
		if (!kmad_agent(k, file, want))
			break;
	if (want == KMAD_FILE_AGENTS)
		return -ENOMEM;
	for (i = 0; i < KMAD_MAX_AGENTS && !slot; i++)
		if (!k->a[i].used)
			slot = &k->a[i];
	if (!slot)
		return -ENOMEM;
	/* Cyclic, as mad.c's xa_alloc_cyclic: a late response to an agent
	 * gone does not reach its successor. */
	do
		k->last_hi_tid = k->last_hi_tid >= 0xffff ? 1 : k->last_hi_tid + 1;
	while (hi_tid_used(k, k->last_hi_tid));
	kwait_init(&slot->waits);
	slot->used = 1;
	slot->file = file;
	slot->id = want;
	slot->hi_tid = k->last_hi_tid;
	slot->reg = *r;
	*id = want;
	return 0;
}

struct kmad_agent *kmad_agent(struct kmad *k, uint32_t file, uint32_t id)
{
	size_t i;

	for (i = 0; i < KMAD_MAX_AGENTS; i++)
		if (k->a[i].used && k->a[i].file == file && k->a[i].id == id)
			return &k->a[i];
	return NULL;
}

int kmad_unregister(struct kmad *k, uint32_t file, uint32_t id)
{
	struct kmad_agent *a = kmad_agent(k, file, id);

	if (!a)
		return -EINVAL;
	kwait_fini(&a->waits);
	memset(a, 0, sizeof(*a));
	return 0;
}

void kmad_drop_file(struct kmad *k, uint32_t file)
{
	size_t i;

	for (i = 0; i < KMAD_MAX_AGENTS; i++)
		if (k->a[i].used && k->a[i].file == file)
			kmad_unregister(k, file, k->a[i].id);
}

void kmad_stamp_tid(const struct kmad_agent *a, uint8_t *mad)
{
	uint64_t tid = wire_get64(mad + MAD_OFF_TID);

	if (kmad_is_response(mad))
		return;
	wire_put64(mad + MAD_OFF_TID, (uint64_t)a->hi_tid << 32 | (tid & 0xffffffffULL));
}

/* An RMPP send waits for its response too (mad.c ib_post_send_mad: every
 * send with a timeout). Its retries belong to the transfer: mad_rmpp.c
 * ib_retry_rmpp resumes from the last ACK (krmpp resends unACKed segments
 * itself, krmpp_send_cfg) and, all of it ACKed, gives up: the response
 * timed out, ETIMEDOUT without a resend. So the wait keeps the umad
 * header and the first MAD (what an expiry hands back) and no retries.
 * Its clock starts again at the last ACK (process_rmpp_ack,
 * ib_reset_mad_timeout: kmad_rmpp_sent). */
int kmad_send_wait(struct kmad_agent *a, const uint8_t *buf, size_t len, int64_t now)
{
	uint8_t first[sizeof(struct ib_user_mad) + MAD_SIZE];
	struct ib_user_mad u;

	if (len <= sizeof(first) || !kmad_kernel_rmpp(a) ||
	    !kmad_rmpp_active(buf + sizeof(u), len - sizeof(u)))
		return kwait_add(&a->waits, buf, len, now);
	memcpy(first, buf, sizeof(first));
	memcpy(&u, first, sizeof(u));
	u.retries = 0;
	memcpy(first, &u, sizeof(u));
	return kwait_add(&a->waits, first, sizeof(first), now);
}

void kmad_rmpp_sent(struct kmad_agent *a, const uint8_t *mad, int64_t now)
{
	kwait_restart(&a->waits, (uint32_t)wire_get64(mad + MAD_OFF_TID), mad[MAD_OFF_MGMT_CLASS],
		      now);
}

int kmad_duplicate(const struct kmad_agent *a, const uint8_t *buf, size_t len)
{
	const uint8_t *mad = buf + sizeof(struct ib_user_mad);
	size_t mlen;

	if (len < sizeof(struct ib_user_mad) + MAD_HDR_SIZE)
		return 0;
	mlen = len - sizeof(struct ib_user_mad);
	/* ib_umad_write: an agent doing its own RMPP sends its active RMPP
	 * MADs without the check. */
	if (!kmad_kernel_rmpp(a) && is_rmpp_class(mad[MAD_OFF_MGMT_CLASS]) &&
	    kmad_rmpp_active(mad, mlen))
		return 0;
	/* A request: any other request with its TID and class (a response
	 * with them is no duplicate of it). */
	if (kmad_is_response(mad))
		return 0;
	return kwait_pending(&a->waits, (uint32_t)wire_get64(mad + MAD_OFF_TID),
			     mad[MAD_OFF_MGMT_CLASS]);
}

/* mad.c validate_mad: base version 1; SMPs on QP0 only, the rest never
 * there; CM attributes other than ClassPortInfo use Send only. */
static int mad_valid(const uint8_t *mad, size_t len, uint32_t qpn)
{
	uint8_t c = mad[MAD_OFF_MGMT_CLASS];

	if (len < MAD_HDR_SIZE || mad[MAD_OFF_BASE_VERSION] != MAD_BASE_VERSION)
		return 0;
	if (c == CLASS_SMI || c == CLASS_SMI_DR)
		return qpn == 0;
	if (c == CLASS_CM && wire_get16(mad + MAD_OFF_ATTR_ID) != ATTR_CLASS_PORT_INFO &&
	    mad[MAD_OFF_METHOD] != METHOD_SEND)
		return 0;
	return qpn != 0;
}

static struct kmad_agent *find_request_agent(struct kmad *k, const uint8_t *mad, size_t len)
{
	struct kmad_reg want;
	unsigned m = mad[MAD_OFF_METHOD] & (unsigned)~MAD_METHOD_RESP_BIT;
	size_t i;

	memset(&want, 0, sizeof(want));
	want.mgmt_class = mad[MAD_OFF_MGMT_CLASS];
	want.class_version = mad[MAD_OFF_CLASS_VERSION];
	if (want.class_version >= MAX_MGMT_VERSION)
		return NULL;
	if (is_vendor2(want.mgmt_class)) {
		if (len < VENDOR_OFF_OUI + 3)
			return NULL;
		want.oui = (uint32_t)mad[VENDOR_OFF_OUI] << 16 |
			   (uint32_t)mad[VENDOR_OFF_OUI + 1] << 8 | mad[VENDOR_OFF_OUI + 2];
	}
	for (i = 0; i < KMAD_MAX_AGENTS; i++)
		if (k->a[i].used && same_table(&k->a[i].reg, &want) &&
		    has_method(&k->a[i].reg, m))
			return &k->a[i];
	return NULL;
}

enum kmad_verdict kmad_route(struct kmad *k, uint8_t *mad, size_t len, uint32_t qpn,
			     struct kmad_agent **agent)
{
	size_t i;

	*agent = NULL;
	if (!mad_valid(mad, len, qpn))
		return KMAD_DROP;
	if (kmad_is_response(mad)) {
		uint64_t tid = wire_get64(mad + MAD_OFF_TID);
		uint32_t hi = (uint32_t)(tid >> 32) & 0xffff;

		for (i = 0; i < KMAD_MAX_AGENTS; i++)
			if (k->a[i].used && k->a[i].hi_tid == hi) {
				/* What the requester wrote, as on a host:
				 * ibsim's client id out of bits 48..63. */
				wire_put64(mad + MAD_OFF_TID,
					   (uint64_t)hi << 32 | (tid & 0xffffffffULL));
				*agent = &k->a[i];
				return KMAD_DELIVER;
			}
		return KMAD_DROP;
	}
	*agent = find_request_agent(k, mad, len);
	if (*agent)
		return KMAD_DELIVER;
	if (mad[MAD_OFF_METHOD] == MAD_METHOD_GET || mad[MAD_OFF_METHOD] == MAD_METHOD_SET)
		return KMAD_UNMATCHED;
	return KMAD_DROP;
}

int kmad_complete(struct kmad_agent *a, const uint8_t *mad, size_t len,
		  const struct kwait_src *src)
{
	if (!kmad_is_response(mad))
		return 1;
	if (kwait_answered(&a->waits, mad, len, src))
		return 1;
	/* user_mad.c: user RMPP in effect and an active RMPP MAD. */
	return !kmad_kernel_rmpp(a) && kmad_rmpp_active(mad, len);
}

size_t kmad_unmatched(const uint8_t *req, size_t len, uint8_t out[256])
{
	uint16_t status = STATUS_UNSUPPORTED_METHOD_ATTRIB;

	memset(out, 0, 256);
	memcpy(out, req, len < 256 ? len : 256);
	out[MAD_OFF_METHOD] = METHOD_GET_RESP;
	if (req[MAD_OFF_MGMT_CLASS] == CLASS_SMI_DR)
		status |= SMP_DIRECTION;
	wire_put16(out + MAD_OFF_STATUS, status);
	return 256;
}

int64_t kmad_deadline(const struct kmad *k)
{
	int64_t d = INT64_MAX, x;
	size_t i;

	for (i = 0; i < KMAD_MAX_AGENTS; i++)
		if (k->a[i].used && (x = kwait_deadline(&k->a[i].waits)) < d)
			d = x;
	return d;
}

struct due_ctx {
	struct kmad_agent *a;
	kmad_resend_fn resend;
	kmad_expire_fn expire;
	void *ctx;
};

static void due_resend(void *ctx, const uint8_t *buf, size_t len)
{
	struct due_ctx *d = ctx;

	d->resend(d->ctx, d->a, buf, len);
}

static void due_expire(void *ctx, const void *hdr, const uint8_t *mad, size_t len)
{
	struct due_ctx *d = ctx;

	d->expire(d->ctx, d->a, hdr, mad, len);
}

void kmad_due(struct kmad *k, int64_t now, kmad_resend_fn resend, kmad_expire_fn expire,
	      void *ctx)
{
	size_t i;

	for (i = 0; i < KMAD_MAX_AGENTS; i++) {
		struct due_ctx d = { &k->a[i], resend, expire, ctx };

		if (k->a[i].used && kwait_deadline(&k->a[i].waits) <= now)
			kwait_due(&k->a[i].waits, now, due_resend, due_expire, &d);
	}
}
