/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/core/mport.c's strays: responses mport_rpc reads for other TIDs
 * are kept for mport_wait, oldest first, bounded in count and bytes
 * (STRAY_BYTES_MAX), and mport_wait with 0 looks at the port once. The
 * port is a queue in this file: the libibumad calls mport.c makes on
 * the device (umad_open_port, umad_send, umad_recv ...) are defined
 * here and win over the library's; its buffer helpers are the real
 * ones. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <infiniband/umad.h>

#include "core/mad.h"
#include "core/mport.h"
#include "core/sa.h"
#include "core/wire.h"
#include "fixture.h"

#define QMAX 64

static struct {
	struct {
		uint8_t *mad;
		size_t len;
		uint16_t lid; /* its source: the SA's (1) unless forged */
	} q[QMAX];
	unsigned n;
	int answer; /* a request sent is answered (after what is queued) */
	uint16_t forger; /* a LID that answers first, with the request's TID */
} U;

int umad_init(void)
{
	return 0;
}

int umad_get_port(const char *ca_name, int portnum, umad_port_t *port)
{
	(void)ca_name;
	memset(port, 0, sizeof(*port));
	strcpy(port->ca_name, "fake0");
	port->portnum = portnum ? portnum : 1;
	port->state = 4;
	port->sm_lid = 1;
	port->base_lid = 2;
	return 0;
}

int umad_release_port(umad_port_t *port)
{
	(void)port;
	return 0;
}

int umad_open_port(const char *ca_name, int portnum)
{
	(void)ca_name;
	(void)portnum;
	return 1000;
}

int umad_close_port(int portid)
{
	(void)portid;
	return 0;
}

static void push(const uint8_t *mad, size_t len)
{
	assert_true(U.n < QMAX);
	U.q[U.n].mad = malloc(len);
	assert_non_null(U.q[U.n].mad);
	memcpy(U.q[U.n].mad, mad, len);
	U.q[U.n].len = len;
	U.q[U.n].lid = 1;
	U.n++;
}

/* An SA response of len bytes (at least a MAD) to tid. */
static void push_resp(uint32_t tid, size_t len)
{
	uint8_t *mad = calloc(1, len);

	assert_non_null(mad);
	mad[MAD_OFF_BASE_VERSION] = MAD_BASE_VERSION;
	mad[MAD_OFF_MGMT_CLASS] = SA_CLASS;
	mad[MAD_OFF_CLASS_VERSION] = SA_CLASS_VERSION;
	mad[MAD_OFF_METHOD] = SA_METHOD_GET_RESP;
	wire_put64(mad + MAD_OFF_TID, tid);
	push(mad, len);
	free(mad);
}

int umad_send(int portid, int agentid, void *umad, int length, int timeout_ms, int retries)
{
	(void)portid;
	(void)agentid;
	(void)timeout_ms;
	(void)retries;
	if (U.forger)
		push_resp((uint32_t)wire_get64((uint8_t *)umad_get_mad(umad) + MAD_OFF_TID),
			  (size_t)length);
	if (U.forger)
		U.q[U.n - 1].lid = U.forger;
	if (U.answer)
		push_resp((uint32_t)wire_get64((uint8_t *)umad_get_mad(umad) + MAD_OFF_TID),
			  (size_t)length);
	return 0;
}

int umad_recv(int portid, void *umad, int *length, int timeout_ms)
{
	struct ib_user_mad *u = umad;

	(void)portid;
	(void)timeout_ms;
	if (!U.n) {
		errno = ETIMEDOUT;
		return -ETIMEDOUT;
	}
	if (U.q[0].len > (size_t)*length) {
		*length = (int)U.q[0].len;
		errno = ENOSPC;
		return -ENOSPC;
	}
	memset(u, 0, sizeof(*u));
	u->addr.lid = htons(U.q[0].lid);
	memcpy(umad_get_mad(umad), U.q[0].mad, U.q[0].len);
	*length = (int)U.q[0].len;
	free(U.q[0].mad);
	memmove(&U.q[0], &U.q[1], --U.n * sizeof(U.q[0]));
	return 0;
}

static int any_resp(const uint8_t *mad, size_t len, void *ctx)
{
	(void)ctx;
	return len >= MAD_HDR_SIZE && (mad[MAD_OFF_METHOD] & MAD_METHOD_RESP_BIT);
}

/* The TIDs mport_wait hands out, in order, up to max; how many. */
static unsigned drain(struct mport *p, uint32_t *tids, unsigned max)
{
	uint8_t *mad;
	size_t len;
	unsigned n = 0;

	while (n < max && !mport_wait(p, 0, any_resp, NULL, &mad, &len)) {
		tids[n++] = (uint32_t)wire_get64(mad + MAD_OFF_TID);
		free(mad);
	}
	return n;
}

/* One exchange with what is queued before its answer. */
static void rpc(struct mport *p)
{
	struct mport_rpc_opts o = { 5000, 0, 0, 0 }; /* the queue never blocks */
	struct mport_dest d = { 1, SA_QP, SA_QKEY, 0 };
	uint8_t req[MAD_SIZE] = { 0 }, *resp = NULL;
	size_t len;

	req[MAD_OFF_MGMT_CLASS] = SA_CLASS;
	req[MAD_OFF_METHOD] = SA_METHOD_GET;
	U.answer = 1;
	assert_int_equal(mport_rpc(p, 0, &d, req, sizeof(req), &o, &resp, &len), 0);
	U.answer = 0;
	assert_int_equal(wire_get64(resp + MAD_OFF_TID), wire_get64(req + MAD_OFF_TID));
	free(resp);
}

static struct mport *open_port(unsigned keep)
{
	struct mport *p = NULL;

	memset(&U, 0, sizeof(U));
	assert_int_equal(mport_open(&p, NULL, 0), 0);
	if (keep)
		assert_int_equal(mport_keep_strays(p, keep), 0);
	return p;
}

/* An answer with our TID from a LID we did not ask is dropped (the
 * kernel matches by TID and class only): the SA's answer behind it is
 * taken; alone, the exchange times out. */
static void test_forged_source(void **state)
{
	struct mport *p = open_port(0);
	struct mport_rpc_opts o = { 20, 0, 0, 0 };
	struct mport_dest d = { 1, SA_QP, SA_QKEY, 0 };
	uint8_t req[MAD_SIZE] = { 0 }, *resp = NULL;
	size_t len;

	(void)state;
	req[MAD_OFF_MGMT_CLASS] = SA_CLASS;
	req[MAD_OFF_METHOD] = SA_METHOD_GET;
	U.forger = 7;
	U.answer = 1;
	assert_int_equal(mport_rpc(p, 0, &d, req, sizeof(req), &o, &resp, &len), 0);
	assert_int_equal(mport_last_slid(p), 1);
	free(resp);
	U.answer = 0;
	assert_int_equal(mport_rpc(p, 0, &d, req, sizeof(req), &o, &resp, &len), -ETIMEDOUT);
	mport_close(p);
}

/* Kept in arrival order, the oldest giving way past the count; without
 * mport_keep_strays, dropped. */
static void test_count(void **state)
{
	struct mport *p = open_port(3);
	uint32_t t[8];
	unsigned i;

	(void)state;
	for (i = 0; i < 5; i++)
		push_resp(0x5000 + i, MAD_SIZE);
	rpc(p);
	assert_int_equal(drain(p, t, 8), 3);
	for (i = 0; i < 3; i++)
		assert_int_equal(t[i], 0x5002 + i);
	mport_close(p);

	p = open_port(0);
	push_resp(0x5000, MAD_SIZE);
	rpc(p);
	assert_int_equal(drain(p, t, 8), 0);
	mport_close(p);
}

/* Taken from the middle of the ring: the rest keep their order, and the
 * ring takes more after. */
static int tid_is(const uint8_t *mad, size_t len, void *ctx)
{
	return len >= MAD_HDR_SIZE && (uint32_t)wire_get64(mad + MAD_OFF_TID) == *(uint32_t *)ctx;
}

static void test_take_middle(void **state)
{
	struct mport *p = open_port(4);
	uint32_t t[8], want = 0x6002;
	uint8_t *mad;
	size_t len;
	unsigned i;

	(void)state;
	for (i = 0; i < 4; i++)
		push_resp(0x6000 + i, MAD_SIZE);
	rpc(p);
	assert_int_equal(mport_wait(p, 0, tid_is, &want, &mad, &len), 0);
	assert_int_equal(wire_get64(mad + MAD_OFF_TID), want);
	free(mad);
	push_resp(0x6010, MAD_SIZE);
	push_resp(0x6011, MAD_SIZE);
	rpc(p);
	assert_int_equal(drain(p, t, 8), 4);
	assert_int_equal(t[0], 0x6001); /* 0x6000 gave way */
	assert_int_equal(t[1], 0x6003);
	assert_int_equal(t[2], 0x6010);
	assert_int_equal(t[3], 0x6011);
	mport_close(p);
}

/* 4 MiB in all: a larger one is not kept, older ones give way to a
 * newer that would pass it; what is left is freed with the port. */
static void test_bytes(void **state)
{
	struct mport *p = open_port(8);
	const size_t mib = 1u << 20;
	uint32_t t[8];

	(void)state;
	push_resp(0x7000, 5 * mib);
	push_resp(0x7001, 3 * mib / 2);
	push_resp(0x7002, 3 * mib / 2);
	push_resp(0x7003, 3 * mib / 2);
	rpc(p);
	assert_int_equal(drain(p, t, 8), 2);
	assert_int_equal(t[0], 0x7002);
	assert_int_equal(t[1], 0x7003);
	push_resp(0x7004, 2 * mib);
	push_resp(0x7005, MAD_SIZE);
	rpc(p);
	mport_close(p);
}

/* A wait of 0 takes what has arrived (one look), and only times out on
 * an empty port. */
static void test_wait_zero(void **state)
{
	struct mport *p = open_port(0);
	uint8_t *mad;
	size_t len;

	(void)state;
	push_resp(0x8000, MAD_SIZE);
	assert_int_equal(mport_wait(p, 0, any_resp, NULL, &mad, &len), 0);
	free(mad);
	assert_int_equal(mport_wait(p, 0, any_resp, NULL, &mad, &len), -ETIMEDOUT);
	mport_close(p);
}

/* Our requests' P_Key index: the default P_Key's, as ib_find_pkey finds
 * it for the kernel's SA client. */
static void test_default_pkey_index(void **state)
{
	const uint16_t full[] = { 0xffff, 0 }, limited[] = { 0x7fff, 0x8001 },
		       indx0[] = { 0x8001, 0x7fff, 0 }, both[] = { 0x7fff, 0x8001, 0xffff },
		       none[] = { 0x8001 };

	(void)state;
	assert_int_equal(mport_default_pkey_index(full, 2), 0);
	assert_int_equal(mport_default_pkey_index(limited, 2), 0);
	assert_int_equal(mport_default_pkey_index(indx0, 3), 1);
	assert_int_equal(mport_default_pkey_index(both, 3), 2);
	assert_int_equal(mport_default_pkey_index(none, 1), 0);
	assert_int_equal(mport_default_pkey_index(NULL, 0), 0);
}

TEST_MAIN(
	cmocka_unit_test(test_forged_source),
	cmocka_unit_test(test_count),
	cmocka_unit_test(test_take_middle),
	cmocka_unit_test(test_bytes),
	cmocka_unit_test(test_wait_zero),
	cmocka_unit_test(test_default_pkey_index))
