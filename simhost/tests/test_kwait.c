/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The simulated kernel's sends waiting for a response
 * (simhost/kernel/kwait.c): what waits, what ends a wait, resends and the
 * ETIMEDOUT the kernel's MAD layer hands a sender (mad.c timeout_sends,
 * user_mad.c send_handler). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <infiniband/umad.h>

#include "core/mad.h"
#include "simhost/kernel/kwait.h"
#include "core/wire.h"

/* As a send leaves the kernel: the agent's hi_tid (7) in the top half. */
#define TID 0x0000000712345678ULL

/* A umad write of one SA MAD: agent 3, method, timeout, retries. */
static size_t request(uint8_t *buf, uint8_t method, uint32_t timeout_ms, uint32_t retries)
{
	struct ib_user_mad u;

	memset(buf, 0, sizeof(u) + MAD_SIZE);
	memset(&u, 0, sizeof(u));
	u.agent_id = 3;
	u.timeout_ms = timeout_ms;
	u.retries = retries;
	memcpy(buf, &u, sizeof(u));
	buf[sizeof(u) + MAD_OFF_BASE_VERSION] = 1;
	buf[sizeof(u) + MAD_OFF_MGMT_CLASS] = 0x03;
	buf[sizeof(u) + MAD_OFF_METHOD] = method;
	wire_put64(buf + sizeof(u) + MAD_OFF_TID, TID);
	return sizeof(u) + MAD_SIZE;
}

struct seen {
	int resends, expires;
	struct ib_user_mad hdr;
	uint8_t mad[MAD_HDR_SIZE];
	size_t len;
};

static void on_resend(void *ctx, const uint8_t *buf, size_t len)
{
	struct seen *s = ctx;

	(void)buf;
	assert_int_equal(len, sizeof(struct ib_user_mad) + MAD_SIZE);
	s->resends++;
}

static void on_expire(void *ctx, const void *hdr, const uint8_t *mad, size_t len)
{
	struct seen *s = ctx;

	memcpy(&s->hdr, hdr, sizeof(s->hdr));
	assert_int_equal(len, MAD_HDR_SIZE);
	memcpy(s->mad, mad, len);
	s->len = len;
	s->expires++;
}

static void test_what_waits(void **state)
{
	struct kwait_set ws;
	uint8_t buf[sizeof(struct ib_user_mad) + MAD_SIZE];
	size_t n;

	(void)state;
	kwait_init(&ws);
	n = request(buf, MAD_METHOD_GET, 0, 0);
	assert_int_equal(kwait_add(&ws, buf, n, 0), 0); /* no timeout */
	n = request(buf, MAD_METHOD_GET | MAD_METHOD_RESP_BIT, 100, 0);
	assert_int_equal(kwait_add(&ws, buf, n, 0), 0); /* a response */
	n = request(buf, 0x07, 100, 0);
	assert_int_equal(kwait_add(&ws, buf, n, 0), 0); /* TrapRepress */
	n = request(buf, MAD_METHOD_GET, 100, 0);
	assert_int_equal(kwait_add(&ws, buf, sizeof(struct ib_user_mad) + 10, 0), 0);
	assert_int_equal(kwait_add(&ws, buf, n, 0), 1);
	assert_int_equal(ws.n, 1);
	assert_int_equal(kwait_deadline(&ws), 100);
	kwait_fini(&ws);
	assert_int_equal(kwait_deadline(&ws), INT64_MAX);
}

/* A response of the same class ends the wait on the TID's low half (the
 * top is the agent's hi_tid, which routed it here); another class's, a
 * short one, or the request itself coming back (a loopback) does not. */
static void test_answered(void **state)
{
	struct kwait_set ws;
	uint8_t buf[sizeof(struct ib_user_mad) + MAD_SIZE], resp[MAD_SIZE];
	size_t n = request(buf, MAD_METHOD_GET, 100, 0);

	(void)state;
	kwait_init(&ws);
	assert_int_equal(kwait_add(&ws, buf, n, 0), 1);
	memcpy(resp, buf + sizeof(struct ib_user_mad), MAD_SIZE);
	resp[MAD_OFF_METHOD] |= MAD_METHOD_RESP_BIT;
	wire_put64(resp + MAD_OFF_TID, TID);
	resp[MAD_OFF_MGMT_CLASS] = 0x04;
	assert_int_equal(kwait_answered(&ws, resp, MAD_SIZE, NULL), 0);
	resp[MAD_OFF_MGMT_CLASS] = 0x03;
	assert_int_equal(kwait_answered(&ws, resp, MAD_HDR_SIZE - 1, NULL), 0);
	assert_int_equal(kwait_answered(&ws, buf + sizeof(struct ib_user_mad), MAD_SIZE, NULL), 0);
	assert_int_equal(ws.n, 1);
	assert_int_equal(kwait_answered(&ws, resp, MAD_SIZE, NULL), 1);
	assert_int_equal(kwait_answered(&ws, resp, MAD_SIZE, NULL), 0);
	assert_int_equal(ws.n, 0);
	kwait_fini(&ws);
}

/* retries resends, each after timeout_ms, then the sender gets its MAD
 * header back with ETIMEDOUT and the TID as sent. */
static void test_resend_then_timeout(void **state)
{
	struct kwait_set ws;
	uint8_t buf[sizeof(struct ib_user_mad) + MAD_SIZE];
	size_t n = request(buf, MAD_METHOD_GET, 100, 2);
	struct seen s = { 0 };

	(void)state;
	kwait_init(&ws);
	assert_int_equal(kwait_add(&ws, buf, n, 1000), 1);
	kwait_due(&ws, 1099, on_resend, on_expire, &s);
	assert_int_equal(s.resends, 0);
	kwait_due(&ws, 1100, on_resend, on_expire, &s);
	assert_int_equal(s.resends, 1);
	assert_int_equal(kwait_deadline(&ws), 1200);
	kwait_due(&ws, 1200, on_resend, on_expire, &s);
	assert_int_equal(s.resends, 2);
	kwait_due(&ws, 1299, on_resend, on_expire, &s);
	assert_int_equal(s.expires, 0);
	kwait_due(&ws, 1300, on_resend, on_expire, &s);
	assert_int_equal(s.expires, 1);
	assert_int_equal(s.resends, 2);
	assert_int_equal(ws.n, 0);
	assert_int_equal(s.hdr.status, ETIMEDOUT);
	assert_int_equal(s.hdr.agent_id, 3);
	assert_int_equal(s.hdr.length, sizeof(struct ib_user_mad) + MAD_HDR_SIZE);
	assert_int_equal(wire_get64(s.mad + MAD_OFF_TID), TID);
	assert_int_equal(s.mad[MAD_OFF_METHOD], MAD_METHOD_GET);
	kwait_fini(&ws);
}

/* Many outstanding: each ends on its own; past the cap none waits. */
static void test_many(void **state)
{
	struct kwait_set ws;
	uint8_t buf[sizeof(struct ib_user_mad) + MAD_SIZE], resp[MAD_SIZE];
	size_t n = request(buf, MAD_METHOD_GET, 100, 0), i;
	struct seen s = { 0 };

	(void)state;
	kwait_init(&ws);
	for (i = 0; i < KWAIT_MAX; i++) {
		wire_put64(buf + sizeof(struct ib_user_mad) + MAD_OFF_TID, TID + i);
		assert_int_equal(kwait_add(&ws, buf, n, (int64_t)i), 1);
	}
	assert_int_equal(kwait_add(&ws, buf, n, 0), -ENOSPC);
	memcpy(resp, buf + sizeof(struct ib_user_mad), MAD_SIZE);
	resp[MAD_OFF_METHOD] |= MAD_METHOD_RESP_BIT;
	for (i = 0; i < KWAIT_MAX; i += 2) {
		wire_put64(resp + MAD_OFF_TID, TID + i);
		assert_int_equal(kwait_answered(&ws, resp, MAD_SIZE, NULL), 1);
	}
	kwait_due(&ws, 100 + KWAIT_MAX, on_resend, on_expire, &s);
	assert_int_equal(s.expires, KWAIT_MAX / 2);
	assert_int_equal(ws.n, 0);
	kwait_fini(&ws);
}

/* user_mad.c is_duplicate: a request with the TID and class waits
 * until its response or its timeout, then the TID is free again. */
static void test_pending(void **state)
{
	struct kwait_set ws;
	uint8_t buf[sizeof(struct ib_user_mad) + MAD_SIZE], resp[MAD_SIZE];
	size_t n = request(buf, MAD_METHOD_GET, 100, 1);
	struct seen s = { 0 };

	(void)state;
	kwait_init(&ws);
	assert_int_equal(kwait_pending(&ws, (uint32_t)TID, 0x03), 0);
	assert_int_equal(kwait_add(&ws, buf, n, 0), 1);
	assert_int_equal(kwait_pending(&ws, (uint32_t)TID, 0x03), 1);
	assert_int_equal(kwait_pending(&ws, (uint32_t)TID, 0x04), 0);
	assert_int_equal(kwait_pending(&ws, (uint32_t)TID + 1, 0x03), 0);
	/* A resend keeps it; only the end frees the TID. */
	kwait_due(&ws, 100, on_resend, on_expire, &s);
	assert_int_equal(kwait_pending(&ws, (uint32_t)TID, 0x03), 1);
	kwait_due(&ws, 200, on_resend, on_expire, &s);
	assert_int_equal(s.expires, 1);
	assert_int_equal(kwait_pending(&ws, (uint32_t)TID, 0x03), 0);
	assert_int_equal(kwait_add(&ws, buf, n, 300), 1);
	memcpy(resp, buf + sizeof(struct ib_user_mad), MAD_SIZE);
	resp[MAD_OFF_METHOD] |= MAD_METHOD_RESP_BIT;
	assert_int_equal(kwait_answered(&ws, resp, MAD_SIZE, NULL), 1);
	assert_int_equal(kwait_pending(&ws, (uint32_t)TID, 0x03), 0);
	kwait_fini(&ws);
}

/* mad.c rcv_has_same_gid for a request and its response: not the source
 * LID (the response of any port ends the wait), but a GRH on both or
 * neither, and the path bits under the LMC. */
static void test_same_way(void **state)
{
	struct kwait_set ws;
	uint8_t buf[sizeof(struct ib_user_mad) + MAD_SIZE], resp[MAD_SIZE];
	size_t n = request(buf, MAD_METHOD_GET, 100, 0);
	struct ib_user_mad u;
	struct kwait_src grh = { 1, 0, 0 }, bits0 = { 0, 0, 2 }, bits1 = { 0, 1, 2 };
	struct kwait_src bits4 = { 0, 4, 2 };

	(void)state;
	kwait_init(&ws);
	memcpy(resp, buf + sizeof(struct ib_user_mad), MAD_SIZE);
	resp[MAD_OFF_METHOD] |= MAD_METHOD_RESP_BIT;
	assert_int_equal(kwait_add(&ws, buf, n, 0), 1);
	assert_int_equal(kwait_answered(&ws, resp, MAD_SIZE, &grh), 0);
	assert_int_equal(kwait_answered(&ws, resp, MAD_SIZE, &bits1), 0);
	/* Bits above the LMC (2: bits 0..1) do not count. */
	assert_int_equal(kwait_answered(&ws, resp, MAD_SIZE, &bits4), 1);
	/* Sent with path bits 1: the response to LID base+1 ends it. */
	memcpy(&u, buf, sizeof(u));
	u.addr.path_bits = 1;
	memcpy(buf, &u, sizeof(u));
	assert_int_equal(kwait_add(&ws, buf, n, 0), 1);
	assert_int_equal(kwait_answered(&ws, resp, MAD_SIZE, &bits0) +
				 kwait_answered(&ws, resp, MAD_SIZE, &bits4),
			 0);
	assert_int_equal(kwait_answered(&ws, resp, MAD_SIZE, &bits1), 1);
	/* Sent with a GRH: only a response with one. */
	u.addr.path_bits = 0;
	u.addr.grh_present = 1;
	memcpy(buf, &u, sizeof(u));
	assert_int_equal(kwait_add(&ws, buf, n, 0), 1);
	assert_int_equal(kwait_answered(&ws, resp, MAD_SIZE, NULL), 0);
	assert_int_equal(kwait_answered(&ws, resp, MAD_SIZE, &grh), 1);
	/* A directed-route SMP's response is not checked (permissive LIDs). */
	buf[sizeof(u) + MAD_OFF_MGMT_CLASS] = 0x81;
	resp[MAD_OFF_MGMT_CLASS] = 0x81;
	assert_int_equal(kwait_add(&ws, buf, n, 0), 1);
	assert_int_equal(kwait_answered(&ws, resp, MAD_SIZE, NULL), 1);
	kwait_fini(&ws);
}

/* An RMPP request's wait starts over at its last ACK. */
static void test_restart(void **state)
{
	struct kwait_set ws;
	uint8_t buf[sizeof(struct ib_user_mad) + MAD_SIZE];
	size_t n = request(buf, MAD_METHOD_GET, 100, 0);

	(void)state;
	kwait_init(&ws);
	assert_int_equal(kwait_add(&ws, buf, n, 0), 1);
	assert_int_equal(kwait_deadline(&ws), 100);
	kwait_restart(&ws, (uint32_t)TID, 0x03, 2000);
	assert_int_equal(kwait_deadline(&ws), 2100);
	kwait_fini(&ws);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_what_waits),
		cmocka_unit_test(test_answered),
		cmocka_unit_test(test_resend_then_timeout),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_pending),
		cmocka_unit_test(test_same_way),
		cmocka_unit_test(test_restart),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
