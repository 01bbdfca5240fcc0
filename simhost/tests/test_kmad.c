/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* simhostd's MAD layer (simhost/kernel/kmad.c) against the kernel's rules
 * (drivers/infiniband/core/mad.c, user_mad.c): overlapping registrations
 * refused, requests to the agent registered for them in whatever file,
 * responses routed by hi_tid and dropped when no send waits for them,
 * the answer to an unmatched Get or Set, and what is never delivered. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <infiniband/umad.h>

#include "simhost/kernel/kmad.h"
#include "core/mad.h"
#include "core/wire.h"

#define SA 0x03
#define PERF 0x04
#define VENDOR 0x30

static struct kmad *k;

static int setup(void **state)
{
	(void)state;
	k = calloc(1, sizeof(*k));
	kmad_init(k);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	kmad_fini(k);
	free(k);
	return 0;
}

static struct kmad_reg reg(uint8_t cls, uint8_t ver, unsigned method)
{
	struct kmad_reg r;

	memset(&r, 0, sizeof(r));
	r.qpn = 1;
	r.mgmt_class = cls;
	r.class_version = ver;
	if (method)
		r.method_mask[method / 64] |= 1ull << (method % 64);
	return r;
}

static void mad(uint8_t *m, uint8_t cls, uint8_t ver, uint8_t method, uint64_t tid)
{
	memset(m, 0, 256);
	m[MAD_OFF_BASE_VERSION] = 1;
	m[MAD_OFF_MGMT_CLASS] = cls;
	m[MAD_OFF_CLASS_VERSION] = ver;
	m[MAD_OFF_METHOD] = method;
	wire_put64(m + MAD_OFF_TID, tid);
	wire_put16(m + MAD_OFF_ATTR_ID, 0x0010);
}

/* A umad write of m by agent a with a timeout, TID stamped as
 * simhostd does before it sends. */
static void send_timed(struct kmad_agent *a, uint8_t *m)
{
	uint8_t buf[sizeof(struct ib_user_mad) + 256];
	struct ib_user_mad u;

	memset(&u, 0, sizeof(u));
	u.agent_id = a->id;
	u.timeout_ms = 100;
	kmad_stamp_tid(a, m);
	memcpy(buf, &u, sizeof(u));
	memcpy(buf + sizeof(u), m, 256);
	assert_int_equal(kmad_send_wait(a, buf, sizeof(buf), 0), 1);
}

static void overlap_refused(void **state)
{
	struct kmad_reg r = reg(PERF, 1, MAD_METHOD_GET), r2;
	uint32_t id;

	(void)state;
	assert_int_equal(kmad_register(k, 7, &r, &id), 0);
	assert_int_equal(id, 0);
	/* Another file, the same method: mad.c method_in_use. */
	assert_int_equal(kmad_register(k, 8, &r, &id), -EINVAL);
	/* Another method, another class version: both fine. */
	r2 = reg(PERF, 1, MAD_METHOD_SET);
	assert_int_equal(kmad_register(k, 8, &r2, &id), 0);
	r2 = reg(PERF, 2, MAD_METHOD_GET);
	assert_int_equal(kmad_register(k, 8, &r2, &id), 0);
	assert_int_equal(id, 1); /* ids count per file */
	/* Unregistered, the method is free again. */
	assert_int_equal(kmad_unregister(k, 7, 0), 0);
	assert_int_equal(kmad_unregister(k, 7, 0), -EINVAL);
	assert_int_equal(kmad_register(k, 9, &r, &id), 0);
}

static void registration_checks(void **state)
{
	struct kmad_reg r;
	uint32_t id;
	int i;

	(void)state;
	/* Vendor range 2 needs an OUI; two OUIs do not overlap. */
	r = reg(VENDOR, 1, MAD_METHOD_GET);
	assert_int_equal(kmad_register(k, 1, &r, &id), -EINVAL);
	r.oui = 0x001405;
	assert_int_equal(kmad_register(k, 1, &r, &id), 0);
	r.oui = 0x001406;
	assert_int_equal(kmad_register(k, 1, &r, &id), 0);
	/* An SMP class on QP1, RMPP on a class without it, a bad QPN. */
	r = reg(0x01, 1, MAD_METHOD_GET);
	assert_int_equal(kmad_register(k, 1, &r, &id), -EINVAL);
	r = reg(PERF, 1, MAD_METHOD_GET);
	r.rmpp_version = 1;
	assert_int_equal(kmad_register(k, 1, &r, &id), -EINVAL);
	r = reg(PERF, 1, MAD_METHOD_GET);
	r.qpn = 2;
	assert_int_equal(kmad_register(k, 1, &r, &id), -EINVAL);
	/* 32 agents a file (IB_UMAD_MAX_AGENTS). */
	for (i = 2; i < KMAD_FILE_AGENTS; i++) {
		r = reg(0, 0, 0);
		assert_int_equal(kmad_register(k, 1, &r, &id), 0);
	}
	assert_int_equal(kmad_register(k, 1, &r, &id), -ENOMEM);
	kmad_drop_file(k, 1);
	assert_null(kmad_agent(k, 1, 0));
	assert_int_equal(kmad_register(k, 1, &r, &id), 0);
}

/* ib_cm holds Send of the CM class: a process's registration fails. */
static void kernel_cm_holds_class(void **state)
{
	struct kmad_reg cm = reg(0x07, 2, 0x03);
	uint32_t id;

	(void)state;
	assert_int_equal(kmad_register(k, KMAD_KERNEL, &cm, &id), 0);
	assert_int_equal(kmad_register(k, 5, &cm, &id), -EINVAL);
}

static void requests_by_registration(void **state)
{
	struct kmad_reg r1 = reg(PERF, 1, MAD_METHOD_GET), r2 = reg(PERF, 1, MAD_METHOD_SET);
	struct kmad_agent *a;
	uint8_t m[256];
	uint32_t id1, id2;

	(void)state;
	assert_int_equal(kmad_register(k, 3, &r1, &id1), 0);
	assert_int_equal(kmad_register(k, 4, &r2, &id2), 0);
	mad(m, PERF, 1, MAD_METHOD_SET, 0xabcd000000000042ULL);
	assert_int_equal(kmad_route(k, m, 256, 1, &a), KMAD_DELIVER);
	assert_int_equal(a->file, 4);
	/* A request's TID is the requester's: untouched. */
	assert_int_equal(wire_get64(m + MAD_OFF_TID), 0xabcd000000000042ULL);
	assert_int_equal(kmad_complete(a, m, 256, NULL), 1);
	mad(m, PERF, 1, MAD_METHOD_GET, 1);
	assert_int_equal(kmad_route(k, m, 256, 1, &a), KMAD_DELIVER);
	assert_int_equal(a->file, 3);
	/* Class version 2 nobody registered: a Get is answered... */
	mad(m, PERF, 2, MAD_METHOD_GET, 1);
	assert_int_equal(kmad_route(k, m, 256, 1, &a), KMAD_UNMATCHED);
	/* ...a Send or a Trap is dropped. */
	mad(m, PERF, 2, 0x03, 1);
	assert_int_equal(kmad_route(k, m, 256, 1, &a), KMAD_DROP);
	mad(m, 0x09, 1, 0x05, 1);
	assert_int_equal(kmad_route(k, m, 256, 1, &a), KMAD_DROP);
	/* validate_mad: GSI on QP0, a bad base version. */
	mad(m, PERF, 1, MAD_METHOD_GET, 1);
	assert_int_equal(kmad_route(k, m, 256, 0, &a), KMAD_DROP);
	m[MAD_OFF_BASE_VERSION] = 2;
	assert_int_equal(kmad_route(k, m, 256, 1, &a), KMAD_DROP);
}

static void vendor_by_oui(void **state)
{
	struct kmad_reg r = reg(VENDOR, 1, MAD_METHOD_GET);
	struct kmad_agent *a;
	uint8_t m[256];
	uint32_t id;

	(void)state;
	r.oui = 0x00beef;
	assert_int_equal(kmad_register(k, 2, &r, &id), 0);
	mad(m, VENDOR, 1, MAD_METHOD_GET, 1);
	m[37] = 0x00;
	m[38] = 0xbe;
	m[39] = 0xef;
	assert_int_equal(kmad_route(k, m, 256, 1, &a), KMAD_DELIVER);
	m[39] = 0xee;
	assert_int_equal(kmad_route(k, m, 256, 1, &a), KMAD_UNMATCHED);
}

static void responses_by_hi_tid(void **state)
{
	struct kmad_reg r = reg(SA, 2, 0);
	struct kmad_agent *a1, *a2, *to;
	uint8_t m[256], resp[256];
	uint32_t id1, id2;

	(void)state;
	assert_int_equal(kmad_register(k, 10, &r, &id1), 0);
	assert_int_equal(kmad_register(k, 11, &r, &id2), 0);
	a1 = kmad_agent(k, 10, id1);
	a2 = kmad_agent(k, 11, id2);
	assert_int_not_equal(a1->hi_tid, a2->hi_tid);
	mad(m, SA, 2, MAD_METHOD_GET, 0xffffffff00000077ULL);
	send_timed(a2, m);
	/* The kernel's stamp: the upper 32 bits are the agent's hi_tid. */
	assert_int_equal(wire_get64(m + MAD_OFF_TID), (uint64_t)a2->hi_tid << 32 | 0x77);
	/* The answer as ibsim delivers it: its client id over bits 48..63. */
	memcpy(resp, m, 256);
	resp[MAD_OFF_METHOD] = 0x81;
	wire_put64(resp + MAD_OFF_TID, 0x0003000000000077ULL | (uint64_t)a2->hi_tid << 32);
	assert_int_equal(kmad_route(k, resp, 256, 1, &to), KMAD_DELIVER);
	assert_ptr_equal(to, a2);
	assert_int_equal(wire_get64(resp + MAD_OFF_TID), (uint64_t)a2->hi_tid << 32 | 0x77);
	assert_int_equal(kmad_complete(to, resp, 256, NULL), 1);
	/* The same answer again: no send waits for it any more. */
	assert_int_equal(kmad_complete(to, resp, 256, NULL), 0);
	/* An answer to an agent that never asked, and to no agent. */
	assert_int_equal(kmad_route(k, resp, 256, 1, &to), KMAD_DELIVER);
	wire_put64(resp + MAD_OFF_TID, (uint64_t)a1->hi_tid << 32 | 0x77);
	assert_int_equal(kmad_route(k, resp, 256, 1, &to), KMAD_DELIVER);
	assert_ptr_equal(to, a1);
	assert_int_equal(kmad_complete(to, resp, 256, NULL), 0);
	wire_put64(resp + MAD_OFF_TID, 0xfffeULL << 32 | 0x77);
	assert_int_equal(kmad_route(k, resp, 256, 1, &to), KMAD_DROP);
}

/* Active RMPP for an agent that runs RMPP itself goes up unasked
 * (user_mad.c's user-RMPP exception). */
static void user_rmpp_response_kept(void **state)
{
	struct kmad_reg r = reg(SA, 2, 0);
	struct kmad_agent *a;
	uint8_t resp[256];
	uint32_t id;

	(void)state;
	r.rmpp_version = 1;
	r.flags = KMAD_USER_RMPP;
	assert_int_equal(kmad_register(k, 12, &r, &id), 0);
	a = kmad_agent(k, 12, id);
	mad(resp, SA, 2, 0x92, (uint64_t)a->hi_tid << 32 | 5);
	resp[MAD_RMPP_OFF_VERSION] = 1;
	resp[MAD_RMPP_OFF_TYPE] = MAD_RMPP_TYPE_DATA;
	resp[MAD_RMPP_OFF_FLAGS] = MAD_RMPP_FLAG_ACTIVE | MAD_RMPP_FLAG_FIRST;
	assert_int_equal(kmad_complete(a, resp, 256, NULL), 1);
	a->reg.flags = 0; /* kernel RMPP: the message must match a send */
	assert_int_equal(kmad_complete(a, resp, 256, NULL), 0);
}

static void unmatched_answer(void **state)
{
	uint8_t m[256], out[256];

	(void)state;
	mad(m, PERF, 1, MAD_METHOD_SET, 0x1122334455667788ULL);
	m[100] = 0x5a;
	assert_int_equal(kmad_unmatched(m, 256, out), 256);
	assert_int_equal(out[MAD_OFF_METHOD], 0x81);
	assert_int_equal(wire_get16(out + MAD_OFF_STATUS), 0x000c);
	assert_int_equal(wire_get64(out + MAD_OFF_TID), 0x1122334455667788ULL);
	assert_int_equal(out[100], 0x5a);
	/* A directed-route SMP: the D bit in its status. */
	mad(m, 0x81, 1, MAD_METHOD_GET, 1);
	kmad_unmatched(m, 256, out);
	assert_int_equal(wire_get16(out + MAD_OFF_STATUS), 0x800c);
}

struct seen {
	int resends, expires;
	uint64_t tid;
	uint32_t status;
};

static void on_resend(void *ctx, struct kmad_agent *a, const uint8_t *buf, size_t len)
{
	struct seen *s = ctx;

	(void)a;
	(void)buf;
	(void)len;
	s->resends++;
}

static void on_expire(void *ctx, struct kmad_agent *a, const void *hdr, const uint8_t *m,
		      size_t len)
{
	struct seen *s = ctx;
	struct ib_user_mad u;

	(void)a;
	assert_int_equal(len, MAD_HDR_SIZE);
	memcpy(&u, hdr, sizeof(u));
	s->status = u.status;
	s->tid = wire_get64(m + MAD_OFF_TID);
	s->expires++;
}

/* A send that gets no answer comes back ETIMEDOUT with the TID it went
 * out with, hi_tid and all (user_mad.c send_handler). */
static void timeout_keeps_stamped_tid(void **state)
{
	struct kmad_reg r = reg(SA, 2, 0);
	struct seen s = { 0 };
	struct kmad_agent *a;
	uint8_t m[256];
	uint32_t id;

	(void)state;
	assert_int_equal(kmad_register(k, 13, &r, &id), 0);
	a = kmad_agent(k, 13, id);
	mad(m, SA, 2, MAD_METHOD_GET, 9);
	send_timed(a, m);
	assert_int_equal(kmad_deadline(k), 100);
	kmad_due(k, 100, on_resend, on_expire, &s);
	assert_int_equal(s.expires, 1);
	assert_int_equal(s.status, ETIMEDOUT);
	assert_int_equal(s.tid, (uint64_t)a->hi_tid << 32 | 9);
	assert_int_equal(kmad_deadline(k), INT64_MAX);
}

/* A request bigger than a MAD (kernel RMPP, vendor range 2) waits for
 * its response like any other: the whole reassembled answer ends the
 * wait; unanswered, it times out without a resend (mad_rmpp.c
 * ib_retry_rmpp: an ACKed transfer is not sent again). */
static void rmpp_send_waits(void **state)
{
	struct kmad_reg r = reg(VENDOR, 1, 0);
	uint8_t buf[sizeof(struct ib_user_mad) + 1048], resp[1048];
	uint8_t *m = buf + sizeof(struct ib_user_mad);
	struct seen s = { 0 };
	struct ib_user_mad u;
	struct kmad_agent *a;
	uint32_t id;

	(void)state;
	r.oui = 0x001405;
	r.rmpp_version = 1;
	assert_int_equal(kmad_register(k, 14, &r, &id), 0);
	a = kmad_agent(k, 14, id);
	memset(&u, 0, sizeof(u));
	u.agent_id = a->id;
	u.timeout_ms = 100;
	u.retries = 3;
	memcpy(buf, &u, sizeof(u));
	memset(m, 0, 1048);
	mad(m, VENDOR, 1, MAD_METHOD_GET, 11);
	m[MAD_RMPP_OFF_VERSION] = 1;
	m[MAD_RMPP_OFF_TYPE] = MAD_RMPP_TYPE_DATA;
	m[MAD_RMPP_OFF_FLAGS] = MAD_RMPP_FLAG_ACTIVE;
	kmad_stamp_tid(a, m);
	assert_int_equal(kmad_send_wait(a, buf, sizeof(buf), 0), 1);
	memcpy(resp, m, sizeof(resp));
	resp[MAD_OFF_METHOD] = 0x81;
	assert_int_equal(kmad_complete(a, resp, sizeof(resp), NULL), 1);
	assert_int_equal(kmad_deadline(k), INT64_MAX);
	/* Again, unanswered: ETIMEDOUT after timeout_ms, no resend. */
	assert_int_equal(kmad_send_wait(a, buf, sizeof(buf), 0), 1);
	kmad_due(k, 100, on_resend, on_expire, &s);
	assert_int_equal(s.resends, 0);
	assert_int_equal(s.expires, 1);
	assert_int_equal(s.status, ETIMEDOUT);
	assert_int_equal(s.tid, (uint64_t)a->hi_tid << 32 | 11);
}

/* user_mad.c is_duplicate: a second request with the TID and class of
 * one still waiting is refused, until the first is answered; a response
 * with them is none, nor is a request of another agent (its hi_tid
 * makes another TID), and an agent doing its own RMPP is not checked
 * for its active RMPP MADs. */
static void duplicate_requests(void **state)
{
	struct kmad_reg r = reg(SA, 2, MAD_METHOD_GET);
	uint8_t buf[sizeof(struct ib_user_mad) + 256], resp[256];
	uint8_t *m = buf + sizeof(struct ib_user_mad);
	struct kmad_agent *a, *b;
	struct ib_user_mad u;
	uint32_t ia, ib;

	(void)state;
	r.rmpp_version = 1;
	assert_int_equal(kmad_register(k, 20, &r, &ia), 0);
	r.method_mask[0] = 0;
	r.mgmt_class = 0;
	assert_int_equal(kmad_register(k, 20, &r, &ib), 0);
	a = kmad_agent(k, 20, ia);
	b = kmad_agent(k, 20, ib);
	memset(&u, 0, sizeof(u));
	u.agent_id = ia;
	u.timeout_ms = 500;
	memcpy(buf, &u, sizeof(u));
	mad(m, SA, 2, MAD_METHOD_GET, 42);
	kmad_stamp_tid(a, m);
	assert_int_equal(kmad_duplicate(a, buf, sizeof(buf)), 0);
	assert_int_equal(kmad_send_wait(a, buf, sizeof(buf), 0), 1);
	assert_int_equal(kmad_duplicate(a, buf, sizeof(buf)), 1);
	/* Without a timeout the same: it is on the send list all the same. */
	u.timeout_ms = 0;
	memcpy(buf, &u, sizeof(u));
	assert_int_equal(kmad_duplicate(a, buf, sizeof(buf)), 1);
	assert_int_equal(kmad_duplicate(b, buf, sizeof(buf)), 0);
	memcpy(resp, m, sizeof(resp));
	resp[MAD_OFF_METHOD] |= MAD_METHOD_RESP_BIT;
	memcpy(m, resp, sizeof(resp));
	assert_int_equal(kmad_duplicate(a, buf, sizeof(buf)), 0);
	/* Answered: the TID is free again. */
	assert_int_equal(kmad_complete(a, resp, sizeof(resp), NULL), 1);
	m[MAD_OFF_METHOD] = MAD_METHOD_GET;
	assert_int_equal(kmad_duplicate(a, buf, sizeof(buf)), 0);
	/* User RMPP: its active RMPP MADs go unchecked. */
	u.timeout_ms = 500;
	memcpy(buf, &u, sizeof(u));
	assert_int_equal(kmad_send_wait(a, buf, sizeof(buf), 0), 1);
	m[MAD_RMPP_OFF_VERSION] = 1;
	m[MAD_RMPP_OFF_FLAGS] = MAD_RMPP_FLAG_ACTIVE;
	assert_int_equal(kmad_duplicate(a, buf, sizeof(buf)), 1);
	a->reg.flags |= KMAD_USER_RMPP;
	assert_int_equal(kmad_duplicate(a, buf, sizeof(buf)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(overlap_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(registration_checks, setup, teardown),
		cmocka_unit_test_setup_teardown(kernel_cm_holds_class, setup, teardown),
		cmocka_unit_test_setup_teardown(requests_by_registration, setup, teardown),
		cmocka_unit_test_setup_teardown(vendor_by_oui, setup, teardown),
		cmocka_unit_test_setup_teardown(responses_by_hi_tid, setup, teardown),
		cmocka_unit_test_setup_teardown(user_rmpp_response_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(unmatched_answer, setup, teardown),
		cmocka_unit_test_setup_teardown(timeout_keeps_stamped_tid, setup, teardown),
		cmocka_unit_test_setup_teardown(rmpp_send_waits, setup, teardown),
		cmocka_unit_test_setup_teardown(duplicate_requests, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
