/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The simulated node's rdma_ucm commands (simhost/kernel/kucma.c): the
 * bytes librdmacm 44 writes, built here from the ABI's own structs
 * (<rdma/rdma_user_cm.h>, <infiniband/ib.h>), and the answers read back
 * through them -- so kucma's offsets are checked against the ABI, not
 * against themselves. The order is librdmacm's AF_IB probe
 * (cma.c ucma_set_af_ib_support), then ucma_write's refusals. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <endian.h>
#include <netinet/in.h>

#include <cmocka.h>
#include <infiniband/ib.h>
#include <rdma/rdma_user_cm.h>

#include "simhost/wire/cmwire.h"
#include "simhost/kernel/kinet.h"
#include "simhost/kernel/kucma.h"
#include "core/mad.h"
#include "core/wire.h"

/* enum rdma_cm_event_type: <rdma/rdma_cma.h> cannot be included with
 * <rdma/rdma_user_cm.h> (both declare the port spaces). */
#define EV_ADDR_RESOLVED 0
#define EV_ROUTE_RESOLVED 2
#define EV_ROUTE_ERROR 3

#define GUID 0x0002c90300001234ull
static const uint8_t GID[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x02, 0xc9, 0x03, 0, 0, 0x12, 0x35 };

static struct kucma U;

static int setup(void **state)
{
	struct kcma_port p = { .node_guid = GUID, .pkey = 0xffff, .pkeys = { 0xffff, 0x8001 } };

	(void)state;
	memcpy(p.gid, GID, 16);
	kucma_init(&U, &p, KCM_MAX_RETRIES, KCM_RESPONSE_TIMEOUT);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	kucma_fini(&U);
	return 0;
}

/* One write(): hdr then cmd, as librdmacm's CMA_INIT_CMD does. */
static int wr(uint32_t tok, uint32_t flags, uint32_t cmd, const void *body, uint16_t in,
	      uint16_t out, uint8_t *resp, size_t *rlen)
{
	uint8_t buf[512];
	struct rdma_ucm_cmd_hdr h = { .cmd = cmd, .in = in, .out = out };

	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), body, in);
	return kucma_write(&U, tok, flags, buf, sizeof(h) + in, resp, rlen, 0);
}

static uint32_t create(uint32_t tok, uint64_t uid, uint16_t ps, uint8_t qpt)
{
	struct rdma_ucm_create_id c = { .uid = uid, .ps = ps, .qp_type = qpt };
	struct rdma_ucm_create_id_resp r;
	uint8_t resp[KUCMA_RESP_MAX];
	size_t n;

	assert_int_equal(wr(tok, 0, RDMA_USER_CM_CMD_CREATE_ID, &c, sizeof(c), sizeof(r), resp, &n),
			 8 + sizeof(c));
	assert_int_equal(n, sizeof(r));
	memcpy(&r, resp, sizeof(r));
	return r.id;
}

static int bind_ib(uint32_t tok, uint32_t id, const uint8_t gid[16], uint64_t sid, uint64_t mask)
{
	struct rdma_ucm_bind b;
	struct sockaddr_ib sib;
	uint8_t resp[KUCMA_RESP_MAX];
	size_t n;

	memset(&b, 0, sizeof(b));
	memset(&sib, 0, sizeof(sib));
	sib.sib_family = AF_IB;
	sib.sib_pkey = htobe16(0xffff);
	memcpy(&sib.sib_addr, gid, 16);
	sib.sib_sid = htobe64(sid);
	sib.sib_sid_mask = htobe64(mask);
	b.id = id;
	b.addr_size = sizeof(sib);
	memcpy(&b.addr, &sib, sizeof(sib));
	return wr(tok, 0, RDMA_USER_CM_CMD_BIND, &b, sizeof(b), 0, resp, &n);
}

static int query(uint32_t tok, uint32_t id, uint32_t opt, struct rdma_ucm_query_addr_resp *r)
{
	struct rdma_ucm_query q = { .id = id, .option = opt };
	uint8_t resp[KUCMA_RESP_MAX];
	size_t n;
	int ret = wr(tok, 0, RDMA_USER_CM_CMD_QUERY, &q, sizeof(q), sizeof(*r), resp, &n);

	if (ret >= 0) {
		assert_int_equal(n, sizeof(*r));
		memcpy(r, resp, sizeof(*r));
	}
	return ret;
}

static int destroy(uint32_t tok, uint32_t id, uint32_t *reported)
{
	struct rdma_ucm_destroy_id d = { .id = id };
	struct rdma_ucm_destroy_id_resp r;
	uint8_t resp[KUCMA_RESP_MAX];
	size_t n;
	int ret = wr(tok, 0, RDMA_USER_CM_CMD_DESTROY_ID, &d, sizeof(d), sizeof(r), resp, &n);

	if (ret >= 0) {
		memcpy(&r, resp, sizeof(r));
		*reported = r.events_reported;
	}
	return ret;
}

/* ucma_set_af_ib_support: CREATE_ID(PS_IB), BIND(AF_IB, ::, TCP sid
 * port 0), QUERY(ADDR), QUERY(GID), DESTROY_ID. */
static void test_af_ib_probe(void **state)
{
	static const uint8_t any[16];
	struct rdma_ucm_query_addr_resp r;
	struct sockaddr_ib sib;
	uint32_t tok, id, rep = 99;

	(void)state;
	tok = (uint32_t)kucma_open(&U, 1);
	id = create(tok, 0x1122334455667788ull, RDMA_PS_IB, 2);
	assert_int_equal(id, 0); /* handles from 0, as the kernel's xarray */
	assert_int_equal(bind_ib(tok, id, any, 0x0000000001060000ull, 0xffffffffffff0000ull),
			 8 + sizeof(struct rdma_ucm_bind));
	assert_int_equal(query(tok, id, RDMA_USER_CM_QUERY_ADDR, &r), 8 + sizeof(struct rdma_ucm_query));
	assert_int_equal(r.node_guid, 0); /* no device: bound to :: */
	assert_int_equal(r.port_num, 0);
	assert_int_equal(r.src_size, sizeof(sib));
	assert_int_equal(r.dst_size, sizeof(sib));
	memcpy(&sib, &r.src_addr, sizeof(sib));
	assert_int_equal(sib.sib_family, AF_IB);
	/* an ephemeral port in the TCP space (cma_alloc_any_port) */
	assert_int_equal(be64toh(sib.sib_sid) & 0xffffffffffff0000ull, 0x0000000001060000ull);
	assert_true((be64toh(sib.sib_sid) & 0xffff) >= 32768);
	assert_int_equal(be64toh(sib.sib_sid_mask), 0xffffffffffff0000ull);
	memcpy(&sib, &r.dst_addr, sizeof(sib));
	assert_int_equal(sib.sib_family, AF_IB);
	assert_int_equal(query(tok, id, RDMA_USER_CM_QUERY_GID, &r), 8 + sizeof(struct rdma_ucm_query));
	assert_int_equal(r.src_size, sizeof(sib));
	assert_int_equal(destroy(tok, id, &rep), 8 + sizeof(struct rdma_ucm_destroy_id));
	assert_int_equal(rep, 0);
	assert_int_equal(query(tok, id, RDMA_USER_CM_QUERY_ADDR, &r), -ENOENT);
	kucma_close(&U, tok);
}

/* rdma_bind_addr with the port's GID: the device's fields, in the
 * kernel's byte order (node_guid and pkey as on the wire). */
static void test_bind_gid(void **state)
{
	static const uint8_t other[16] = { 0xfe, 0x80, [15] = 9 };
	struct rdma_ucm_query_addr_resp r;
	struct sockaddr_ib sib;
	uint32_t tok, id, id2;

	(void)state;
	tok = (uint32_t)kucma_open(&U, 1);
	id = create(tok, 1, RDMA_PS_TCP, 0);
	id2 = create(tok, 2, RDMA_PS_TCP, 0);
	assert_int_equal(bind_ib(tok, id, other, 0x1061d2f, ~0ull), -ENODEV);
	assert_true(bind_ib(tok, id, GID, 0x1061d2f, ~0ull) > 0);
	assert_int_equal(bind_ib(tok, id, GID, 0x1061d2f, ~0ull), -EINVAL); /* not IDLE */
	assert_int_equal(bind_ib(tok, id2, GID, 0x1061d2f, ~0ull), -EADDRINUSE);
	assert_int_equal(bind_ib(tok, id2, GID, 0x1111d2f, ~0ull), -EPROTONOSUPPORT);
	assert_true(query(tok, id, RDMA_USER_CM_QUERY_ADDR, &r) > 0);
	assert_int_equal(be64toh(r.node_guid), GUID);
	assert_int_equal(r.port_num, 1);
	assert_int_equal(be16toh(r.pkey), 0xffff);
	assert_int_equal(r.ibdev_index, 0);
	memcpy(&sib, &r.src_addr, sizeof(sib));
	assert_memory_equal(sib.sib_addr.sib_raw, GID, 16);
	kucma_close(&U, tok);
}

/* ucma_write's refusals, in its order, then the handlers'. */
static void test_refusals(void **state)
{
	struct rdma_ucm_create_id c = { .ps = RDMA_PS_TCP };
	struct rdma_ucm_query_addr_resp r;
	uint8_t resp[KUCMA_RESP_MAX], buf[64] = { 0 };
	uint32_t tok, tok2, id;
	size_t n;

	(void)state;
	tok = (uint32_t)kucma_open(&U, 1);
	tok2 = (uint32_t)kucma_open(&U, 1);
	assert_int_equal(kucma_write(&U, tok, 0, buf, 7, resp, &n, 0), -EINVAL);
	assert_int_equal(wr(tok, 0, RDMA_USER_CM_CMD_JOIN_MCAST + 1, &c, sizeof(c), 4, resp, &n), -EINVAL);
	memcpy(buf, &(struct rdma_ucm_cmd_hdr){ .cmd = RDMA_USER_CM_CMD_CREATE_ID, .in = 24, .out = 4 }, 8);
	assert_int_equal(kucma_write(&U, tok, 0, buf, 8 + 16, resp, &n, 0), -EINVAL); /* in > len */
	assert_int_equal(wr(tok, 0, RDMA_USER_CM_CMD_GET_OPTION, &c, sizeof(c), 4, resp, &n), -ENOSYS);
	assert_int_equal(wr(tok, 0, RDMA_USER_CM_CMD_CREATE_ID, &c, sizeof(c), 3, resp, &n), -ENOSPC);
	assert_int_equal(n, 0);
	c.ps = 0x0999;
	assert_int_equal(wr(tok, 0, RDMA_USER_CM_CMD_CREATE_ID, &c, sizeof(c), 4, resp, &n), -EINVAL);
	id = create(tok, 5, RDMA_PS_UDP, 0);
	assert_int_equal(query(tok2, id, RDMA_USER_CM_QUERY_ADDR, &r), -EINVAL); /* another file's */
	assert_int_equal(query(tok, id, 3 /* no such option */, &r), -ENOSYS);
	{
		struct rdma_ucm_query q = { .id = id };

		assert_int_equal(wr(tok, 0, RDMA_USER_CM_CMD_QUERY, &q, sizeof(q), 279, resp, &n), -ENOSPC);
	}
	{
		struct rdma_ucm_bind b = { .id = id, .addr_size = 16 };

		b.addr.ss_family = AF_IB;
		assert_int_equal(wr(tok, 0, RDMA_USER_CM_CMD_BIND, &b, sizeof(b), 0, resp, &n), -EINVAL);
	}
	kucma_close(&U, tok);
	assert_int_equal(wr(tok, 0, RDMA_USER_CM_CMD_CREATE_ID, &c, sizeof(c), 4, resp, &n), -EBADF);
	kucma_close(&U, tok2);
}

/* GET_EVENT: -EAGAIN on O_NONBLOCK, parked when blocking, the event's
 * uid/id/event/status at the ABI's offsets; DESTROY_ID drops the id's
 * queued events and says how many it reported. */
static void test_get_event(void **state)
{
	struct rdma_ucm_get_event g = { 0 };
	struct rdma_ucm_event_resp ev;
	uint8_t resp[KUCMA_RESP_MAX];
	uint32_t tok, id, id2, rep;
	size_t n;

	(void)state;
	assert_int_equal(sizeof(ev), KUCMA_EVENT_LEN);
	tok = (uint32_t)kucma_open(&U, 1);
	id = create(tok, 0xabcdef0012345678ull, RDMA_PS_TCP, 0);
	id2 = create(tok, 7, RDMA_PS_TCP, 0);
	assert_int_equal(wr(tok, KUCMA_NONBLOCK, RDMA_USER_CM_CMD_GET_EVENT, &g, sizeof(g), sizeof(ev),
			    resp, &n), -EAGAIN);
	assert_int_equal(wr(tok, 0, RDMA_USER_CM_CMD_GET_EVENT, &g, sizeof(g), sizeof(ev), resp, &n),
			 KUCMA_PARK);
	assert_false(kucma_ready(&U, tok));
	assert_int_equal(kucma_queue(&U, id, 1 /* ADDR_ERROR */, -EADDRNOTAVAIL), 1);
	assert_int_equal(kucma_queue(&U, id2, 0, 0), 0);
	assert_int_equal(kucma_queue(&U, id2, 2, 0), 0);
	assert_true(kucma_ready(&U, tok));
	assert_int_equal(wr(tok, 0, RDMA_USER_CM_CMD_GET_EVENT, &g, sizeof(g), sizeof(ev) - 1, resp, &n),
			 -ENOSPC);
	assert_int_equal(wr(tok, 0, RDMA_USER_CM_CMD_GET_EVENT, &g, sizeof(g), sizeof(ev), resp, &n),
			 8 + sizeof(g));
	assert_int_equal(n, sizeof(ev));
	memcpy(&ev, resp, sizeof(ev));
	assert_int_equal(ev.uid, 0xabcdef0012345678ull);
	assert_int_equal(ev.id, id);
	assert_int_equal(ev.event, 1);
	assert_int_equal((int32_t)ev.status, -EADDRNOTAVAIL);
	assert_true(destroy(tok, id, &rep) > 0);
	assert_int_equal(rep, 1);
	assert_true(wr(tok, KUCMA_NONBLOCK, RDMA_USER_CM_CMD_GET_EVENT, &g, sizeof(g), sizeof(ev), resp,
		       &n) > 0);
	memcpy(&ev, resp, sizeof(ev));
	assert_int_equal(ev.id, id2);
	assert_true(destroy(tok, id2, &rep) > 0);
	assert_int_equal(rep, 1); /* its second event dropped, never reported */
	assert_false(kucma_ready(&U, tok));
	kucma_close(&U, tok);
}

/* No ib_cm, no rdma_ucm: the device is not there (open: ENOENT). */
static int resolve(uint32_t tok, uint32_t id, const uint8_t gid[16], uint16_t pkey)
{
	struct rdma_ucm_resolve_addr r;
	struct sockaddr_ib dst;
	uint8_t resp[KUCMA_RESP_MAX];
	size_t n;

	memset(&r, 0, sizeof(r));
	memset(&dst, 0, sizeof(dst));
	dst.sib_family = AF_IB;
	dst.sib_pkey = htobe16(pkey);
	memcpy(&dst.sib_addr, gid, 16);
	dst.sib_sid = htobe64(0x0000000001060000ull | 7471);
	dst.sib_sid_mask = htobe64(~0ull);
	r.id = id;
	r.timeout_ms = 2000;
	r.dst_size = sizeof(dst);
	memcpy(&r.dst_addr, &dst, sizeof(dst));
	return wr(tok, 0, RDMA_USER_CM_CMD_RESOLVE_ADDR, &r, sizeof(r), 0, resp, &n);
}

/* rdma_resolve_addr(NULL src, a GID of the subnet) on an IDLE id
 * (cma.c resolve_prepare_src, cma_resolve_ib_addr): bound on the way
 * with an ephemeral sid, the source the port's GID, ADDR_RESOLVED left
 * for the caller to queue; QUERY(ADDR) carries the destination. */
static void test_resolve_addr(void **state)
{
	static const uint8_t peer[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 2, 0xc9, 3, 0, 0, 0x56, 0x79 };
	static const uint8_t other[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 1, 0, 2, 0xc9, 3, 0, 0, 0x56, 0x79 };
	struct rdma_ucm_query_addr_resp q;
	struct sockaddr_ib sib;
	struct kcma_work w;
	int tok = kucma_open(&U, 1);
	uint32_t a, b;

	(void)state;
	a = create((uint32_t)tok, 7, RDMA_PS_TCP, 0);
	b = create((uint32_t)tok, 8, RDMA_PS_TCP, 0);
	assert_int_equal(resolve((uint32_t)tok, a, peer, 0xffff), 8 + sizeof(struct rdma_ucm_resolve_addr));
	assert_int_equal(kcma_work(&U.cma, &w), 1);
	assert_int_equal(w.id, a);
	assert_int_equal(w.event, EV_ADDR_RESOLVED);
	assert_int_equal(w.status, 0);
	assert_int_equal(kcma_work(&U.cma, &w), 0);
	/* Another subnet, a P_Key the port lacks (its table: 0xffff, 0x8001): no
	 * device, no event. */
	assert_int_equal(resolve((uint32_t)tok, b, other, 0xffff), -ENODEV);
	assert_int_equal(resolve((uint32_t)tok, b, peer, 0x8002), -ENODEV);
	assert_int_equal(query((uint32_t)tok, a, RDMA_USER_CM_QUERY_ADDR, &q), 8 + sizeof(struct rdma_ucm_query));
	assert_int_equal(kcma_work(&U.cma, &w), 0);
	assert_true(q.node_guid == htobe64(GUID));
	assert_int_equal(q.port_num, 1);
	memcpy(&sib, &q.src_addr, sizeof(sib));
	assert_int_equal(sib.sib_family, AF_IB);
	assert_memory_equal(&sib.sib_addr, GID, 16);
	assert_true(sib.sib_sid == htobe64(0x0000000001060000ull | 32768));
	memcpy(&sib, &q.dst_addr, sizeof(sib));
	assert_int_equal(q.dst_size, sizeof(sib));
	assert_memory_equal(&sib.sib_addr, peer, 16);
	/* Resolved once: rdma_resolve_addr needs ADDR_BOUND. */
	assert_int_equal(resolve((uint32_t)tok, a, peer, 0xffff), -EINVAL);
	/* The caller queues it: the file's first event. */
	assert_int_equal(kucma_queue(&U, a, EV_ADDR_RESOLVED, 0), 1);
	assert_int_equal(kucma_ready(&U, (uint32_t)tok), 1);
}

static int resolve_route(uint32_t tok, uint32_t id, uint32_t ms)
{
	struct rdma_ucm_resolve_route r = { .id = id, .timeout_ms = ms };
	uint8_t resp[KUCMA_RESP_MAX];
	size_t n;

	return wr(tok, 0, RDMA_USER_CM_CMD_RESOLVE_ROUTE, &r, sizeof(r), 0, resp, &n);
}

/* RESOLVE_ROUTE after ADDR_RESOLVED (cma.c cma_query_ib_route): one
 * SubnAdmGet(PathRecord) whose bytes are checked against IBTA Vol 1
 * 15.2.5.16 (PathRecord: ServiceID 0, DGID 8, SGID 24, TClass 48,
 * Reversible|NumbPath 49, P_Key 50) behind the SA header (Table 184;
 * component mask ServiceID|DGID|SGID|TClass|Reversible|NumbPath|P_Key
 * = 0x3c0f); the GetResp's record comes back through QUERY(PATH) as
 * struct ib_path_rec_data; a second query's timeout is ROUTE_ERROR
 * -ETIMEDOUT, an SA status -EINVAL. */
static void test_resolve_route(void **state)
{
	static const uint8_t peer[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 2, 0xc9, 3, 0, 0, 0x56, 0x79 };
	static const uint8_t golden[256] = {
		/* MAD header: base 1, class SA, version 2, Get; TID; PathRecord */
		0x01, 0x03, 0x02, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0, 0, 0,
		0x00, 0x35, 0, 0, 0, 0, 0, 0,
		/* RMPP header, SM_Key, AttributeOffset, reserved */
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		/* ComponentMask */
		0, 0, 0, 0, 0, 0, 0x3c, 0x0f,
		/* ServiceID: the destination's (TCP port space, 7471) */
		0, 0, 0, 0, 0x01, 0x06, 0x1d, 0x2f,
		/* DGID */
		0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 2, 0xc9, 3, 0, 0, 0x56, 0x79,
		/* SGID */
		0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x02, 0xc9, 0x03, 0, 0, 0x12, 0x35,
		/* DLID, SLID, RawTraffic/FlowLabel/HopLimit */
		0, 0, 0, 0, 0, 0, 0, 0,
		/* TClass 0, Reversible 1 NumbPath 1, P_Key */
		0, 0x81, 0xff, 0xff,
	};
	struct rdma_ucm_query q = { .option = RDMA_USER_CM_QUERY_PATH };
	struct rdma_ucm_query_path_resp *pr;
	struct ib_path_rec_data pd;
	uint8_t resp[KUCMA_RESP_MAX], answer[256];
	struct kcma_send snd;
	struct kcma_work w;
	int tok = kucma_open(&U, 1);
	uint32_t a;
	size_t n;

	(void)state;
	a = create((uint32_t)tok, 7, RDMA_PS_TCP, 0);
	/* Not resolved yet: no query. */
	assert_int_equal(resolve_route((uint32_t)tok, a, 2000), -EINVAL);
	assert_int_equal(resolve((uint32_t)tok, a, peer, 0xffff), 8 + sizeof(struct rdma_ucm_resolve_addr));
	assert_int_equal(kcma_work(&U.cma, &w), 1);
	assert_int_equal(resolve_route((uint32_t)tok, a, 0), -EINVAL);
	assert_int_equal(resolve_route((uint32_t)tok, a, 2000), 8 + sizeof(struct rdma_ucm_resolve_route));
	assert_int_equal(kcma_send(&U.cma, &snd), 1);
	assert_int_equal(snd.timeout_ms, 2000);
	assert_int_equal(kcma_send(&U.cma, &snd), 0); /* one send, no retries */
	assert_memory_equal(snd.mad, golden, sizeof(golden));
	assert_int_equal(kcma_work(&U.cma, &w), 0);
	/* One query at a time (ROUTE_QUERY). */
	assert_int_equal(resolve_route((uint32_t)tok, a, 2000), -EINVAL);
	/* The SM's GetResp: DLID 0x0002 in the record. */
	memcpy(answer, snd.mad, sizeof(answer));
	answer[3] = 0x81;
	answer[56 + 40] = 0x00;
	answer[56 + 41] = 0x02;
	answer[12] = 0x7f; /* another TID: not this query's */
	assert_int_equal(kcma_sa_answer(&U.cma, answer, sizeof(answer), 0), 0);
	answer[12] = 0x80;
	assert_int_equal(kcma_sa_answer(&U.cma, answer, sizeof(answer), 0), 1);
	assert_int_equal(kcma_work(&U.cma, &w), 1);
	assert_int_equal(w.id, a);
	assert_int_equal(w.event, EV_ROUTE_RESOLVED);
	assert_int_equal(w.status, 0);
	q.id = a;
	assert_int_equal(wr((uint32_t)tok, 0, RDMA_USER_CM_CMD_QUERY, &q, sizeof(q),
			    sizeof(*pr) + 6 * sizeof(pd), resp, &n), 8 + sizeof(q));
	assert_int_equal(n, sizeof(*pr) + sizeof(pd));
	pr = (struct rdma_ucm_query_path_resp *)resp;
	assert_int_equal(pr->num_paths, 1);
	memcpy(&pd, resp + sizeof(*pr), sizeof(pd));
	assert_int_equal(pd.flags, IB_PATH_GMP | IB_PATH_PRIMARY | IB_PATH_BIDIRECTIONAL);
	assert_memory_equal(pd.path_rec, answer + 56, 64);
	assert_int_equal(wr((uint32_t)tok, 0, RDMA_USER_CM_CMD_QUERY, &q, sizeof(q), 7, resp, &n), -ENOSPC);
	/* Routed: no second query (cma_comp_exch fails). */
	assert_int_equal(resolve_route((uint32_t)tok, a, 2000), -EINVAL);

	/* Another id: no answer -ETIMEDOUT, an SA status -EINVAL. */
	a = create((uint32_t)tok, 8, RDMA_PS_TCP, 0);
	assert_true(resolve((uint32_t)tok, a, peer, 0xffff) > 0);
	assert_int_equal(kcma_work(&U.cma, &w), 1);
	assert_true(resolve_route((uint32_t)tok, a, 100) > 0);
	assert_int_equal(kcma_send(&U.cma, &snd), 1);
	/* A timeout hands over the MAD header only (kwait_due, as
	 * user_mad.c's send_handler): the TID is enough. */
	assert_int_equal(kcma_sa_answer(&U.cma, snd.mad, 24, 1), 1);
	assert_int_equal(kcma_work(&U.cma, &w), 1);
	assert_int_equal(w.event, EV_ROUTE_ERROR);
	assert_int_equal(w.status, -ETIMEDOUT);
	assert_true(resolve_route((uint32_t)tok, a, 100) > 0); /* back to ADDR_RESOLVED */
	assert_int_equal(kcma_send(&U.cma, &snd), 1);
	snd.mad[3] = 0x81;
	snd.mad[4] = 0x03; /* MAD status: SA ERR_NO_RECORDS in bits 8-15 */
	assert_int_equal(kcma_sa_answer(&U.cma, snd.mad, sizeof(snd.mad), 0), 1);
	assert_int_equal(kcma_work(&U.cma, &w), 1);
	assert_int_equal(w.event, EV_ROUTE_ERROR);
	assert_int_equal(w.status, -EINVAL);
	kucma_close(&U, (uint32_t)tok);
}

static int listen_(uint32_t tok, uint32_t id, int backlog)
{
	struct rdma_ucm_listen l = { .id = id, .backlog = backlog };
	uint8_t resp[KUCMA_RESP_MAX];
	size_t n;

	return wr(tok, 0, RDMA_USER_CM_CMD_LISTEN, &l, sizeof(l), 0, resp, &n);
}

/* LISTEN (ucma_listen, cma.c rdma_listen): backlog clamped to
 * max_backlog; from ADDR_BOUND only (an IDLE id would bind IPv4 any:
 * -EADDRNOTAVAIL here); the service ID stays the id's (EADDRINUSE to
 * another bind); a listening id resolves nothing. */
static void test_listen(void **state)
{
	static const uint8_t peer[16] = { 0xfe, 0x80, [15] = 2 };
	struct kcma_work w;
	uint32_t tok, id, id2, id3;

	(void)state;
	tok = (uint32_t)kucma_open(&U, 1);
	id = create(tok, 1, RDMA_PS_TCP, 0);
	id2 = create(tok, 2, RDMA_PS_TCP, 0);
	id3 = create(tok, 3, RDMA_PS_TCP, 0);
	assert_int_equal(listen_(tok, id, 0), -EADDRNOTAVAIL);
	assert_true(bind_ib(tok, id, GID, 0x1061d2f, ~0ull) > 0);
	assert_true(listen_(tok, id, -1) > 0);
	assert_int_equal(U.cma.ids[id].backlog, 1024);
	assert_int_equal(listen_(tok, id, 5), -EINVAL); /* LISTEN, not ADDR_BOUND */
	assert_int_equal(bind_ib(tok, id2, GID, 0x1061d2f, ~0ull), -EADDRINUSE);
	assert_true(bind_ib(tok, id2, GID, 0x1061d30, ~0ull) > 0);
	assert_true(listen_(tok, id2, 5) > 0);
	assert_int_equal(U.cma.ids[id2].backlog, 5);
	assert_true(resolve(tok, id3, peer, 0xffff) > 0);
	assert_int_equal(kcma_work(&U.cma, &w), 1);
	assert_int_equal(listen_(tok, id3, 5), -EINVAL); /* ADDR_RESOLVED */
	assert_int_equal(listen_(tok, 99, 5), -ENOENT);
	kucma_close(&U, tok);
}

/* A peer's REQ flood at a listener whose process fetches nothing.
 * ucma.c keeps every CONNECT_REQUEST the backlog lets in; here a
 * file's list holds KUCMA_EVENTS: past that room the new id is
 * refused as past the backlog (cma_ib_req_handler fails, cm_req_handler
 * destroys the cm_id: REJ consumer defined) and its rdma_cm id freed,
 * so the node's ids stay for its other processes. */
static void test_req_flood(void **state)
{
	static const uint8_t pgid[16] = { 0xfe, 0x80, [15] = 9 };
	struct kcm_port pp = { .ca_guid = 9, .lid = 9, .hi_tid = 3 };
	struct kcm_param prm = { .qp_num = 0x42, .retry_count = 7 };
	struct kcm *peer = calloc(1, sizeof(*peer));
	uint8_t path[KCM_PATH_LEN];
	struct kcma_work w;
	struct kcm_send s;
	uint32_t tok, tok2, id, i, rej = 0, used = 0;

	(void)state;
	assert_non_null(peer);
	memcpy(pp.gid, pgid, 16);
	kcm_init(peer, &pp, KCM_MAX_RETRIES, KCM_RESPONSE_TIMEOUT, 5);
	memset(path, 0, sizeof(path));
	memcpy(path + 8, GID, 16);
	memcpy(path + 24, pgid, 16);
	wire_put16(path + 40, 1);
	wire_put16(path + 42, 9);
	wire_put16(path + 50, 0xffff);
	path[54] = 0x80 | 4;
	path[56] = 0x80 | 18;
	tok = (uint32_t)kucma_open(&U, 1);
	id = create(tok, 1, RDMA_PS_TCP, 0);
	assert_true(bind_ib(tok, id, GID, 0x1061d2f, ~0ull) > 0);
	assert_true(listen_(tok, id, 0) > 0);
	for (i = 0; i < 200; i++) {
		assert_true(kcm_req(peer, i, path, 0x1061d2f, &prm, 0) >= 0);
		assert_true(kcm_send(peer, &s));
		kcma_cm_recv(&U.cma, s.mad, KCM_MAD, 9, 0);
		while (kcma_work(&U.cma, &w))
			(void)kucma_queue_work(&U, &w);
		while (kcma_cm_send(&U.cma, &s))
			rej += wire_get16(s.mad + MAD_OFF_ATTR_ID) == CMWIRE_ATTR_REJ;
	}
	for (i = 0; i < KCMA_IDS; i++)
		used += U.cma.ids[i].used != 0;
	assert_int_equal(used, 1 + KUCMA_EVENTS);
	assert_int_equal(rej, 200 - KUCMA_EVENTS);
	assert_int_equal(U.cma.ids[id].backlog, 1024 - KUCMA_EVENTS);
	tok2 = (uint32_t)kucma_open(&U, 1);
	(void)create(tok2, 2, RDMA_PS_TCP, 0);
	kucma_close(&U, tok);
	for (i = 0, used = 0; i < KCMA_IDS; i++)
		used += U.cma.ids[i].used != 0;
	assert_int_equal(used, 1);
	kucma_close(&U, tok2);
	kcm_fini(peer);
	free(peer);
}

/* cma.c cma_ib_id_from_event before any listener: a REQ whose private
 * data reads as cma_hdr version 0, IP version 4 or 6, needs an up
 * IPoIB interface at the path's P_Key that the destination is routed
 * to (cma_get_net_dev -> ipoib_get_net_dev_by_params, IFF_UP,
 * validate_net_dev); IP version 0 is AF_IB, taken by an AF_IB listener;
 * another cma_version is refused. A refusal is ib_cm's REJ 28 with no
 * private data (cm.c cm_destroy_id) and no CONNECT_REQUEST. */
static struct kcm *ip_peer;
static uint32_t ip_n;

/* One REQ to 0x1061d2f with pdata at pkey: 1 CONNECT_REQUEST, 0 REJ. */
static int ip_req(const uint8_t *pdata, size_t len, uint16_t pkey)
{
	static const uint8_t pgid[16] = { 0xfe, 0x80, [15] = 9 };
	struct kcm_param prm = { .qp_num = 0x42, .retry_count = 7 };
	uint8_t path[KCM_PATH_LEN];
	struct cmwire_rej rej;
	struct kcma_work w;
	struct kcm_send s;
	int got = -1;
	size_t i;

	memset(path, 0, sizeof(path));
	memcpy(path + 8, GID, 16);
	memcpy(path + 24, pgid, 16);
	wire_put16(path + 40, 1);
	wire_put16(path + 42, 9);
	wire_put16(path + 50, pkey);
	path[54] = 0x80 | 4;
	path[56] = 0x80 | 18;
	memcpy(prm.pdata, pdata, len);
	prm.pdata_len = (uint8_t)len;
	assert_true(kcm_req(ip_peer, ip_n++, path, 0x1061d2f, &prm, 0) >= 0);
	assert_true(kcm_send(ip_peer, &s));
	kcma_cm_recv(&U.cma, s.mad, KCM_MAD, 9, 0);
	while (kcma_work(&U.cma, &w))
		if (w.event == KCMA_EV_CONNECT_REQUEST) {
			got = 1;
			kcma_fetched(&U.cma, w.id, w.child);
			kcma_destroy(&U.cma, w.child);
		}
	while (kcma_cm_send(&U.cma, &s))
		if (wire_get16(s.mad + MAD_OFF_ATTR_ID) == CMWIRE_ATTR_REJ && got < 0) {
			assert_int_equal(cmwire_rej_decode(s.mad + CMWIRE_DATA_OFF, KCM_MAD -
							   CMWIRE_DATA_OFF, &rej), 0);
			if (rej.reason != 28)
				continue;
			for (i = 0; i < CMWIRE_REJ_PDATA; i++)
				assert_int_equal(rej.private_data[i], 0);
			got = 0;
		}
	assert_true(got >= 0);
	return got;
}

static void hdr(uint8_t *pd, uint8_t ver, uint8_t ipver, const char *src, const char *dst)
{
	struct kinet_addr a;

	memset(pd, 0, 40);
	pd[0] = ver;
	pd[1] = ipver;
	assert_int_equal(kinet_addr_parse(src, &a), 0);
	memcpy(pd + (a.family == AF_INET ? 16 : 4), a.addr, a.family == AF_INET ? 4 : 16);
	assert_int_equal(kinet_addr_parse(dst, &a), 0);
	memcpy(pd + (a.family == AF_INET ? 32 : 20), a.addr, a.family == AF_INET ? 4 : 16);
}

static void test_ip_check(void **state)
{
	static const uint8_t pgid[16] = { 0xfe, 0x80, [15] = 9 };
	struct kcm_port pp = { .ca_guid = 9, .lid = 9, .hi_tid = 3 };
	struct kinet *net = calloc(1, sizeof(*net));
	struct kinet_addr a;
	uint8_t pd[40];
	uint32_t tok, id;

	(void)state;
	ip_peer = calloc(1, sizeof(*ip_peer));
	assert_non_null(ip_peer);
	assert_non_null(net);
	memcpy(pp.gid, pgid, 16);
	kcm_init(ip_peer, &pp, KCM_MAX_RETRIES, KCM_RESPONSE_TIMEOUT, 5);
	tok = (uint32_t)kucma_open(&U, 1);
	id = create(tok, 1, RDMA_PS_TCP, 0);
	assert_true(bind_ib(tok, id, GID, 0x1061d2f, ~0ull) > 0);
	assert_true(listen_(tok, id, 0) > 0);

	hdr(pd, 0, 0x40, "10.0.0.1", "10.0.0.2");
	/* no ib_ipoib at all: no net device */
	assert_int_equal(ip_req(pd, sizeof(pd), 0xffff), 0);
	U.cma.net = net;
	kinet_init(net);
	assert_int_equal(ip_req(pd, sizeof(pd), 0xffff), 0); /* no interface */
	assert_int_equal(kinet_if_add(net, "ib0", 0xffff), 0);
	/* one interface at the P_Key: the net device whatever it holds;
	 * validate_net_dev then finds no route to 10.0.0.2 */
	assert_int_equal(ip_req(pd, sizeof(pd), 0xffff), 0);
	assert_int_equal(kinet_addr_parse("10.0.0.2/24", &a), 0);
	assert_int_equal(kinet_addr(net, "ib0", &a, 1), 0);
	assert_int_equal(ip_req(pd, sizeof(pd), 0xffff), 1);
	/* the full member form or the limited one: the same table entry */
	assert_int_equal(ip_req(pd, sizeof(pd), 0x7fff), 1);
	/* a destination routed elsewhere (no route: a static or service
	 * address, Ethernet), bad sources */
	hdr(pd, 0, 0x40, "10.0.0.1", "192.168.7.7");
	assert_int_equal(ip_req(pd, sizeof(pd), 0xffff), 0);
	hdr(pd, 0, 0x40, "127.0.0.1", "10.0.0.2");
	assert_int_equal(ip_req(pd, sizeof(pd), 0xffff), 0);
	hdr(pd, 0, 0x40, "224.0.0.1", "10.0.0.2");
	assert_int_equal(ip_req(pd, sizeof(pd), 0xffff), 0);
	/* another partition: no interface at 0x8001 (one not in the table
	 * at all neither) */
	hdr(pd, 0, 0x40, "10.0.0.1", "10.0.0.2");
	assert_int_equal(ip_req(pd, sizeof(pd), 0x8001), 0);
	assert_int_equal(ip_req(pd, sizeof(pd), 0x8002), 0);
	/* a P_Key child holding 10.1.0.2: reached at its P_Key only */
	assert_int_equal(kinet_if_add(net, "ib0.8001", 0x8001), 0);
	assert_int_equal(kinet_addr_parse("10.1.0.2/16", &a), 0);
	assert_int_equal(kinet_addr(net, "ib0.8001", &a, 1), 0);
	hdr(pd, 0, 0x40, "10.1.0.1", "10.1.0.2");
	assert_int_equal(ip_req(pd, sizeof(pd), 0x8001), 1);
	assert_int_equal(ip_req(pd, sizeof(pd), 0xffff), 0);
	/* downed: IFF_UP first */
	assert_int_equal(kinet_link(net, "ib0.8001", 0), 0);
	assert_int_equal(ip_req(pd, sizeof(pd), 0x8001), 0);
	/* IPv6 on ib0 */
	assert_int_equal(kinet_addr_parse("fd00::2/64", &a), 0);
	assert_int_equal(kinet_addr(net, "ib0", &a, 1), 0);
	hdr(pd, 0, 0x60, "fd00::1", "fd00::2");
	assert_int_equal(ip_req(pd, sizeof(pd), 0xffff), 1);
	hdr(pd, 0, 0x60, "fd00::1", "fd01::2");
	assert_int_equal(ip_req(pd, sizeof(pd), 0xffff), 0);
	/* AF_IB (IP version 0: -EAFNOSUPPORT) reaches the AF_IB listener
	 * whatever the addresses; a cma_version other than 0 never does */
	hdr(pd, 0, 0x04, "10.0.0.1", "192.168.7.7");
	assert_int_equal(ip_req(pd, sizeof(pd), 0xffff), 1);
	memset(pd, 0, sizeof(pd));
	assert_int_equal(ip_req(pd, sizeof(pd), 0xffff), 1);
	hdr(pd, 1, 0x40, "10.0.0.1", "10.0.0.2");
	assert_int_equal(ip_req(pd, sizeof(pd), 0xffff), 0);
	pd[1] = 0;
	assert_int_equal(ip_req(pd, sizeof(pd), 0xffff), 0);
	assert_int_equal(U.cma.ip_refused, 13);
	/* addresses go as they came */
	assert_int_equal(kinet_addr_parse("10.0.0.2/24", &a), 0);
	assert_int_equal(kinet_addr(net, "ib0", &a, 0), 0);
	assert_int_equal(kinet_addr(net, "ib0", &a, 0), -EADDRNOTAVAIL);
	assert_int_equal(kinet_addr(net, "ib9", &a, 1), -ENODEV);
	hdr(pd, 0, 0x40, "10.0.0.1", "10.0.0.2");
	assert_int_equal(ip_req(pd, sizeof(pd), 0xffff), 0);
	U.cma.net = NULL;
	kucma_close(&U, tok);
	kcm_fini(ip_peer);
	free(ip_peer);
	free(net);
}

/* ipoib_get_net_dev_by_params: one interface by L2 is the answer; two at
 * one P_Key are told apart by who holds the destination. */
static void test_ip_l3(void **state)
{
	static const uint16_t pk[KINET_PKEYS] = { 0xffff };
	struct kinet net;
	struct kinet_addr a;
	uint8_t pd[40];
	size_t ifidx;

	(void)state;
	kinet_init(&net);
	assert_int_equal(kinet_if_add(&net, "ib0", 0xffff), 0);
	assert_int_equal(kinet_if_add(&net, "ib1", 0xffff), 0);
	assert_int_equal(kinet_if_add(&net, "ib1", 0xffff), -EEXIST);
	assert_int_equal(kinet_addr_parse("10.0.0.2/24", &a), 0);
	assert_int_equal(kinet_addr(&net, "ib0", &a, 1), 0);
	assert_int_equal(kinet_addr_parse("10.2.0.2/24", &a), 0);
	assert_int_equal(kinet_addr(&net, "ib1", &a, 1), 0);
	hdr(pd, 0, 0x40, "10.2.0.1", "10.2.0.2");
	assert_int_equal(kinet_cma_req(&net, pd, sizeof(pd), pk, 0xffff, &ifidx), KINET_REQ_IP);
	assert_int_equal(ifidx, 1);
	hdr(pd, 0, 0x40, "10.2.0.1", "10.2.0.9"); /* held by neither */
	assert_int_equal(kinet_cma_req(&net, pd, sizeof(pd), pk, 0xffff, &ifidx), -ENODEV);
	hdr(pd, 0, 0x40, "10.2.0.1", "0.0.0.0");
	assert_int_equal(kinet_addr_parse("0.0.0.0", &a), 0);
	assert_int_equal(kinet_addr_parse("10.0.0.1/33", &a), -EINVAL);
	assert_int_equal(kinet_addr_parse("nope/8", &a), -EINVAL);
	assert_int_equal(kinet_if_del(&net, "ib1"), 0);
	hdr(pd, 0, 0x40, "10.2.0.1", "10.2.0.2"); /* ib0 alone: no route */
	assert_int_equal(kinet_cma_req(&net, pd, sizeof(pd), pk, 0xffff, &ifidx), -EHOSTUNREACH);
}

static void test_open_without_cm(void **state)
{
	(void)state;
	assert_int_equal(kucma_open(&U, 0), -ENOENT);
	assert_true(kucma_open(&U, 1) > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_af_ib_probe, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bind_gid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_get_event, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resolve_addr, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resolve_route, setup, teardown),
		cmocka_unit_test_setup_teardown(test_listen, setup, teardown),
		cmocka_unit_test_setup_teardown(test_req_flood, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ip_check, setup, teardown),
		cmocka_unit_test(test_ip_l3),
		cmocka_unit_test_setup_teardown(test_open_without_cm, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
