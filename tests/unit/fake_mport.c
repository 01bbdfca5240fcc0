/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/mono.h"
#include "core/sa.h"
#include "core/wire.h"
#include "fake_mport.h"

#define FAKE_MAX_REQS 4096
#define FAKE_MAX_RECS 4096
#define FAKE_MAX_PENDING 1024

struct mport {
	int unused;
};

struct fake_req {
	uint32_t tid;     /* its last send's */
	uint8_t body[MAD_SIZE]; /* the request, TID zeroed */
	unsigned sends;
	int64_t expires;  /* the kernel's send timeout */
	int answered;
};

struct fake_answer {
	uint8_t *mad;
	size_t len;
	int64_t ready;
};

static struct {
	struct mport port;
	int knob[FAKE_KNOBS];
	struct sr_record recs[FAKE_MAX_RECS];
	size_t nrecs;
	struct fake_req reqs[FAKE_MAX_REQS];
	unsigned nreqs, max_out, rpcs;
	struct fake_answer pending[FAKE_MAX_PENDING];
	unsigned npending;
	uint32_t next_tid;
} F;

void fake_mport_reset(void)
{
	unsigned i;

	for (i = 0; i < F.npending; i++)
		free(F.pending[i].mad);
	memset(&F, 0, sizeof(F));
	F.knob[FAKE_PORT_STATE] = 4;
	for (i = FAKE_DROP_FIRST; i < FAKE_KNOBS; i++)
		F.knob[i] = -1;
	F.next_tid = 0x100;
}

void fake_mport_set(enum fake_mport_knob k, int value)
{
	F.knob[k] = value;
}

int fake_mport_add(const struct sr_record *r)
{
	if (F.nrecs == FAKE_MAX_RECS)
		return -ENOSPC;
	F.recs[F.nrecs++] = *r;
	return 0;
}

struct mport *fake_mport_port(void)
{
	return &F.port;
}

unsigned fake_mport_max_outstanding(void)
{
	return F.max_out;
}

unsigned fake_mport_sends(unsigned n)
{
	return n < F.nreqs ? F.reqs[n].sends : 0;
}

uint32_t fake_mport_tid(unsigned n)
{
	return n < F.nreqs ? F.reqs[n].tid : 0;
}

unsigned fake_mport_requests(void)
{
	return F.nreqs;
}

unsigned fake_mport_rpcs(void)
{
	return F.rpcs;
}

static void pend(const uint8_t *mad, size_t len, int64_t ready)
{
	struct fake_answer *a;

	if (F.npending == FAKE_MAX_PENDING)
		return;
	a = &F.pending[F.npending];
	a->mad = malloc(len);
	if (!a->mad)
		return;
	memcpy(a->mad, mad, len);
	a->len = len;
	a->ready = ready;
	F.npending++;
}

void fake_mport_inject(const uint8_t *mad, size_t len)
{
	pend(mad, len, 0);
}

/* The SA's answer to the ServiceRecord request req, in a new buffer. A
 * table comes as the kernel hands a reassembled RMPP message: the first
 * segment's header, PayloadLength of the whole, padding trimmed
 * (mad_rmpp.c get_mad_len); one segment's worth comes whole (256 bytes).
 * Without RMPP, its first MAD alone: one record and part of the next
 * (OpenSM osm_sa_respond without VENDOR_RMPP_SUPPORT keeps what fits). */
static uint8_t *sa_answer(const uint8_t *req, size_t *len)
{
	struct sa_hdr h;
	uint8_t *mad, rec[SR_SIZE];
	const uint8_t *q = req + SA_OFF_DATA;
	size_t i, n = 0, total, cap = 1, data;
	int table = req[MAD_OFF_METHOD] == SA_METHOD_GET_TABLE;

	sa_hdr_decode(req, MAD_SIZE, &h);
	for (i = 0; i < F.nrecs; i++) {
		sr_encode(rec, &F.recs[i]);
		n += sr_match(rec, q, h.comp_mask);
	}
	total = n;
	if (table && !F.knob[FAKE_NO_RMPP])
		cap = n;
	data = (n < cap ? n : cap) * SR_SIZE;
	*len = SA_OFF_DATA + data > MAD_SIZE ? SA_OFF_DATA + data : MAD_SIZE;
	mad = calloc(1, *len);
	if (!mad)
		return NULL;
	h.mad.method = table ? SA_METHOD_GET_TABLE_RESP : SA_METHOD_GET_RESP;
	h.sm_key = 0;
	h.attr_offset = SR_SIZE / 8;
	h.rmpp_version = MAD_RMPP_VERSION;
	h.rmpp_type = MAD_RMPP_TYPE_DATA;
	h.rmpp_flags = MAD_RMPP_FLAG_ACTIVE | MAD_RMPP_FLAG_FIRST;
	h.rmpp_data2 = (uint32_t)(SA_OFF_DATA - MAD_RMPP_HDR_END + n * SR_SIZE);
	if (SA_OFF_DATA + n * SR_SIZE <= MAD_SIZE)
		h.rmpp_flags |= MAD_RMPP_FLAG_LAST;
	if (!table) {
		h.rmpp_version = 0;
		h.rmpp_type = 0;
		h.rmpp_flags = 0;
		h.rmpp_data2 = 0;
		h.attr_offset = 0;
		h.mad.status = n == 1 ? 0 : (uint16_t)((n ? SA_STATUS_TOO_MANY_RECORDS :
						       SA_STATUS_NO_RECORDS) << 8);
	}
	sa_hdr_encode(mad, &h);
	for (i = 0, n = 0; i < F.nrecs && n * SR_SIZE < data; i++) {
		sr_encode(rec, &F.recs[i]);
		if (!sr_match(rec, q, h.comp_mask))
			continue;
		memcpy(mad + SA_OFF_DATA + n * SR_SIZE, rec, SR_SIZE);
		n++;
	}
	/* The next record's first bytes: the cut a MAD without RMPP shows. */
	if (table && total > cap)
		memset(mad + SA_OFF_DATA + data, 0xa5, MAD_SIZE - SA_OFF_DATA - data);
	return mad;
}

static struct fake_req *req_find(uint32_t tid)
{
	unsigned i;

	for (i = 0; i < F.nreqs; i++)
		if (F.reqs[i].tid == tid)
			return &F.reqs[i];
	return NULL;
}

/* The request mad is a send of: one with its TID, or a resend of one
 * that timed out unanswered (the same request with a fresh TID); else a
 * new one. */
static struct fake_req *req_of(const uint8_t *mad, unsigned *nth)
{
	uint32_t tid = (uint32_t)wire_get64(mad + MAD_OFF_TID);
	uint8_t body[MAD_SIZE];
	int64_t now = mono_ms();
	unsigned i;

	memcpy(body, mad, MAD_SIZE);
	wire_put64(body + MAD_OFF_TID, 0);
	for (i = 0; i < F.nreqs; i++)
		if (F.reqs[i].tid == tid ||
		    (!F.reqs[i].answered && F.reqs[i].expires <= now &&
		     !memcmp(F.reqs[i].body, body, MAD_SIZE)))
			break;
	if (i == F.nreqs) {
		if (F.nreqs == FAKE_MAX_REQS)
			return NULL;
		memcpy(F.reqs[F.nreqs].body, body, MAD_SIZE);
		F.reqs[F.nreqs++].tid = tid;
	}
	*nth = i;
	return &F.reqs[i];
}

static void count_outstanding(void)
{
	int64_t now = mono_ms();
	unsigned i, out = 0;

	for (i = 0; i < F.nreqs; i++)
		out += !F.reqs[i].answered && F.reqs[i].expires > now;
	if (out > F.max_out)
		F.max_out = out;
}

int mport_query(struct mport *p, struct mport_info *info)
{
	(void)p;
	memset(info, 0, sizeof(*info));
	info->lid = 2;
	info->sm_lid = 1;
	info->state = F.knob[FAKE_PORT_STATE];
	info->gid[0] = 0xfe;
	info->gid[1] = 0x80;
	info->gid[15] = 2;
	info->port_guid = 2;
	return 0;
}

int mport_register(struct mport *p, uint8_t mgmt_class, uint8_t class_version,
		   uint8_t rmpp_version)
{
	(void)p;
	(void)mgmt_class;
	(void)class_version;
	(void)rmpp_version;
	return 0;
}

int mport_keep_strays(struct mport *p, unsigned n)
{
	(void)p;
	return n ? 0 : -EINVAL;
}

uint32_t mport_new_tids(struct mport *p, unsigned n)
{
	uint32_t first = F.next_tid;

	(void)p;
	F.next_tid += n;
	return first;
}

int mport_send_req(struct mport *p, int agent, const struct mport_dest *dst,
		   const uint8_t *mad, size_t len, unsigned timeout_ms)
{
	uint32_t tid = (uint32_t)wire_get64(mad + MAD_OFF_TID);
	struct fake_req *r;
	unsigned nth;
	uint8_t *ans;
	size_t alen;
	int64_t now = mono_ms();

	(void)p;
	(void)agent;
	(void)len;
	if (dst->lid != 1 || !(r = req_of(mad, &nth)))
		return -EIO;
	/* user_mad.c is_duplicate: its TID still waiting, EINVAL. */
	if (r->tid == tid && r->sends && !r->answered && r->expires > now)
		return -EINVAL;
	r->tid = tid;
	r->sends++;
	r->expires = now + (timeout_ms ? timeout_ms : 1);
	r->answered = 0;
	count_outstanding();
	if ((int)nth == F.knob[FAKE_NEVER] || ((int)nth == F.knob[FAKE_DROP_FIRST] && r->sends == 1))
		return 0;
	ans = sa_answer(mad, &alen);
	if (!ans)
		return -ENOMEM;
	if ((int)nth == F.knob[FAKE_WRONG_METHOD])
		ans[MAD_OFF_METHOD] = mad[MAD_OFF_METHOD] == SA_METHOD_GET ?
				      SA_METHOD_GET_TABLE_RESP : SA_METHOD_GET_RESP;
	if ((int)nth == F.knob[FAKE_WRONG_ATTR])
		wire_put16(ans + MAD_OFF_ATTR_ID, SA_ATTR_NODE_RECORD);
	pend(ans, alen, now + F.knob[FAKE_DELAY_MS]);
	if (F.knob[FAKE_TWICE])
		pend(ans, alen, now + F.knob[FAKE_DELAY_MS]);
	free(ans);
	return 0;
}

/* The answer to deliver now: the oldest that has come, or the newest. */
static int ready_one(int64_t now, int64_t *next)
{
	int pick = -1;
	unsigned i;

	*next = -1;
	for (i = 0; i < F.npending; i++) {
		if (F.pending[i].ready > now) {
			if (*next < 0 || F.pending[i].ready < *next)
				*next = F.pending[i].ready;
			continue;
		}
		if (pick < 0 || F.knob[FAKE_LIFO])
			pick = (int)i;
	}
	return pick;
}

static void sleep_ms(int64_t ms)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000 };

	if (ms > 0)
		nanosleep(&ts, NULL);
}

/* Every answer comes from the fake SA's LID (1), where requests go. */
uint16_t mport_last_slid(const struct mport *p)
{
	(void)p;
	return 1;
}

int mport_wait(struct mport *p, int timeout_ms, mport_match_fn match, void *ctx,
	       uint8_t **mad, size_t *mad_len)
{
	int64_t deadline = mono_ms() + (timeout_ms > 0 ? timeout_ms : 0);

	(void)p;
	for (;;) {
		int64_t now = mono_ms(), next;
		int i = ready_one(now, &next);

		if (i >= 0) {
			struct fake_answer a = F.pending[i];
			struct fake_req *r;

			memmove(&F.pending[i], &F.pending[i + 1],
				(F.npending - (unsigned)i - 1) * sizeof(*F.pending));
			F.npending--;
			if (!match(a.mad, a.len, ctx)) {
				free(a.mad);
				continue;
			}
			r = req_find((uint32_t)wire_get64(a.mad + MAD_OFF_TID));
			if (r)
				r->answered = 1;
			*mad = a.mad;
			*mad_len = a.len;
			return 0;
		}
		if (now >= deadline)
			return -ETIMEDOUT;
		sleep_ms((next >= 0 && next < deadline ? next : deadline) - now);
	}
}

/* The synchronous exchange answers at once (its faults are the window's
 * concern here). */
int mport_rpc(struct mport *p, int agent, const struct mport_dest *dst, uint8_t *req,
	      size_t req_len, const struct mport_rpc_opts *o, uint8_t **resp, size_t *resp_len)
{
	(void)p;
	(void)agent;
	(void)o;
	if (req_len < MAD_SIZE || dst->lid != 1)
		return -EINVAL;
	wire_put64(req + MAD_OFF_TID, F.next_tid++);
	F.rpcs++;
	*resp = sa_answer(req, resp_len);
	return *resp ? 0 : -ENOMEM;
}
