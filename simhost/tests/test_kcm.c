/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* simhostd's ib_cm (simhost/kernel/kcm.c) against Linux 6.1 cm.c: two
 * nodes' kcm piped into each other (A active, B passive), the REQ's bytes
 * against the IBTA offsets of include/rdma/ibta_vol1_c12.h, the retry and
 * MRA bounds of RDMACM.md 5, duplicates, disconnects, destroy, the
 * INIT_QP_ATTR answers read through <rdma/ib_user_verbs.h>, and bytes no
 * peer should send. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

#include "simhost/wire/cmwire.h"
#include "simhost/kernel/kcm.h"
#include "simhost/kernel/kcm_recv.h"
#include "simhost/kernel/kcm_qp.h"
#include "core/mad.h"
#include "core/wire.h"

#define GA 0x0002c90300000a01ull
#define GB 0x0002c90300000b01ull
#define SID 0x0000000001061d2full /* TCP port 7471 (ucmatose) */
#define HI_A 0x00000007u
#define PLT 18 /* OpenSM's default packet life: ms 1024 */
#define T_REQ (2 * 1024 + 4096) /* 2 ms(PLT) + ms(20) */

static struct kcm *A, *B;
static uint8_t PATH[KCM_PATH_LEN];

static void gid(uint8_t *g, uint64_t guid)
{
	memset(g, 0, 16);
	g[0] = 0xfe;
	g[1] = 0x80;
	wire_put64(g + 8, guid);
}

static int setup(void **state)
{
	struct kcm_port pa = { .ca_guid = GA, .lid = 1, .hi_tid = HI_A };
	struct kcm_port pb = { .ca_guid = GB, .lid = 2, .hi_tid = 9 };

	(void)state;
	A = calloc(1, sizeof(*A));
	B = calloc(1, sizeof(*B));
	gid(pa.gid, GA);
	gid(pb.gid, GB);
	kcm_init(A, &pa, KCM_MAX_RETRIES, KCM_RESPONSE_TIMEOUT, 1);
	kcm_init(B, &pb, KCM_MAX_RETRIES, KCM_RESPONSE_TIMEOUT, 2);
	/* A's route to B as OpenSM answers it (IBTA 15.2.5.16) */
	memset(PATH, 0, sizeof(PATH));
	wire_put64(PATH + 0, SID);
	gid(PATH + 8, GB);
	gid(PATH + 24, GA);
	wire_put16(PATH + 40, 2);
	wire_put16(PATH + 42, 1);
	PATH[49] = 0x81;
	wire_put16(PATH + 50, 0xffff);
	PATH[53] = 0;
	PATH[54] = 0x80 | 4; /* MTU 2048 */
	PATH[55] = 0x80 | 6; /* 10 Gb/s */
	PATH[56] = 0x80 | PLT;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	kcm_fini(A);
	kcm_fini(B);
	free(A);
	free(B);
	return 0;
}

static struct kcm_param param(uint32_t qpn, const char *pd)
{
	struct kcm_param p = { .responder_resources = 4, .initiator_depth = 2, .retry_count = 7,
			       .rnr_retry_count = 6, .qp_num = qpn };

	p.pdata_len = (uint8_t)strlen(pd);
	memcpy(p.pdata, pd, p.pdata_len);
	return p;
}

/* Every MAD `from` queued, into `to` as from its LID; the count. */
static int pipe_to(struct kcm *from, struct kcm *to, int64_t now)
{
	struct kcm_send s;
	int n = 0;

	while (kcm_send(from, &s)) {
		kcm_recv(to, s.mad, KCM_MAD, from->port.lid, now);
		n++;
	}
	return n;
}

static struct kcm_send one_send(struct kcm *m, uint16_t attr)
{
	struct kcm_send s;

	assert_true(kcm_send(m, &s));
	assert_int_equal(wire_get16(s.mad + MAD_OFF_ATTR_ID), attr);
	return s;
}

static struct kcm_event one_event(struct kcm *m, enum kcm_ev type)
{
	struct kcm_event e;

	assert_true(kcm_event(m, &e));
	assert_int_equal(e.type, type);
	return e;
}

/* A's REQ into B, B's REQ_RCVD owned by 77: B's connection. */
static uint32_t connect_req(int *a)
{
	struct kcm_param p = param(0x123, "hello");
	struct kcm_event e;

	assert_true(kcm_listen(B, SID, 50) == 0 || kcm_listen(B, SID, 50) == -EBUSY);
	*a = kcm_req(A, 10, PATH, SID, &p, 0);
	assert_true(*a >= 0);
	assert_int_equal(pipe_to(A, B, 0), 1);
	e = one_event(B, KCM_EV_REQ_RCVD);
	assert_int_equal(e.owner, 50);
	kcm_set_owner(B, e.conn, 77);
	return e.conn;
}

/* Both ends established; B's conn returned. */
static uint32_t establish(int *a)
{
	struct kcm_param p = param(0x456, "world");
	uint32_t b = connect_req(a);

	assert_int_equal(kcm_rep(B, b, &p, 1), 0);
	pipe_to(B, A, 1);
	one_event(A, KCM_EV_REP_RCVD);
	assert_int_equal(kcm_rtu(A, (uint32_t)*a, 2), 0);
	pipe_to(A, B, 2);
	one_event(B, KCM_EV_RTU_RCVD);
	return b;
}

/* The REQ's fields at ibta_vol1_c12.h's offsets (CM_REQ_*: bytes after
 * the 24-byte MAD header, bits from the most significant). */
static void test_golden_req(void **state)
{
	struct kcm_param p = param(0xabcdef, "ATS");
	struct kcm_send s;
	const uint8_t *d;
	int a;

	(void)state;
	p.flow_control = 1;
	a = kcm_req(A, 10, PATH, SID, &p, 0);
	assert_int_equal(a, 0);
	s = one_send(A, 0x0010);
	assert_int_equal(s.dlid, 2);
	assert_int_equal(s.sl, 0);
	/* MAD header: base 1, class 0x07, class version 2, Send, TID */
	assert_int_equal(s.mad[0], 1);
	assert_int_equal(s.mad[1], 0x07);
	assert_int_equal(s.mad[2], 2);
	assert_int_equal(s.mad[3], 0x03);
	assert_int_equal(wire_get32(s.mad + 20), 0);
	d = s.mad + 24;
	/* CM_REQ_LOCAL_COMM_ID (0, 32): the TID's low half (cm_form_tid) */
	assert_int_not_equal(wire_get32(d + 0), 0);
	assert_int_equal(wire_get64(s.mad + 8), (uint64_t)HI_A << 32 | wire_get32(d + 0));
	assert_int_equal(wire_get64(d + 8), SID);                     /* SERVICE_ID */
	assert_int_equal(wire_get64(d + 16), GA);                     /* LOCAL_CA_GUID */
	assert_int_equal(wire_get32(d + 28), 0);                      /* LOCAL_QKEY */
	assert_int_equal(wire_get32(d + 32) >> 8, 0xabcdef);          /* LOCAL_QPN */
	assert_int_equal(d[35], 4);                                   /* RESPONDED_RESOURCES */
	assert_int_equal(d[39], 2);                                   /* INITIATOR_DEPTH */
	/* REMOTE_CM_RESPONSE_TIMEOUT (43, 0, 5) 20, TRANSPORT RC 0, EE flow 1 */
	assert_int_equal(d[43], 20 << 3 | 0 << 1 | 1);
	assert_int_equal(d[47], 20 << 3 | 7);       /* LOCAL_CM_RESPONSE_TIMEOUT, RETRY_COUNT */
	assert_int_equal(wire_get16(d + 48), 0xffff); /* PARTITION_KEY */
	assert_int_equal(d[50], 4 << 4 | 0 << 3 | 6); /* MTU, RDC_EXISTS, RNR_RETRY_COUNT */
	assert_int_equal(d[51], 15 << 4);             /* MAX_CM_RETRIES, SRQ 0, ext 0 */
	assert_int_equal(wire_get16(d + 52), 1);      /* PRIMARY_LOCAL_PORT_LID */
	assert_int_equal(wire_get16(d + 54), 2);      /* PRIMARY_REMOTE_PORT_LID */
	assert_int_equal(wire_get64(d + 64), GA);     /* PRIMARY_LOCAL_PORT_GID (56) */
	assert_int_equal(wire_get64(d + 80), GB);     /* PRIMARY_REMOTE_PORT_GID (72) */
	assert_int_equal(d[91] & 0x3f, 6);            /* PRIMARY_PACKET_RATE */
	assert_int_equal(d[93], 0);                   /* PRIMARY_HOP_LIMIT */
	assert_int_equal(d[94], 0 << 4 | 1 << 3);     /* PRIMARY_SL, PRIMARY_SUBNET_LOCAL */
	assert_int_equal(d[95], (PLT + 1) << 3);      /* PRIMARY_LOCAL_ACK_TIMEOUT */
	assert_int_equal(wire_get16(d + 96), 0);      /* no ALTERNATE_LOCAL_PORT_LID */
	assert_memory_equal(d + 140, "ATS", 3);       /* PRIVATE_DATA */
	assert_int_equal(d[143], 0);
	assert_int_equal(kcm_conn(A, 0)->state, KCM_REQ_SENT);
	assert_int_equal(kcm_conn(A, 0)->local_psn >> 24, 0);
}

/* REQ, REP, RTU, DREQ, DREP, timewait between A and B. */
static void test_exchange(void **state)
{
	struct kcm_param p = param(0x456, "world");
	struct kcm_event e;
	struct kcm_send s, req;
	uint64_t req_tid;
	uint32_t b;
	int a;

	(void)state;
	assert_int_equal(kcm_listens(B), 0);
	assert_int_equal(kcm_listen(B, SID, 50), 0);
	assert_int_equal(kcm_listen(B, SID, 51), -EBUSY);
	assert_int_equal(kcm_listens(B), 1);
	a = kcm_req(A, 10, PATH, SID, &(struct kcm_param){ .qp_num = 0x123, .responder_resources = 4,
							  .initiator_depth = 2, .pdata_len = 2,
							  .pdata = "hi" }, 0);
	s = req = one_send(A, 0x0010);
	req_tid = wire_get64(s.mad + MAD_OFF_TID);
	kcm_recv(B, s.mad, KCM_MAD, 1, 0);
	e = one_event(B, KCM_EV_REQ_RCVD);
	b = e.conn;
	assert_int_equal(e.owner, 50);
	assert_int_equal(kcm_conn(B, b)->owner, KCM_NONE);
	assert_int_equal(e.param.pdata_len, 92);
	assert_memory_equal(e.param.pdata, "hi", 2);
	assert_int_equal(e.param.qp_num, 0x123);
	assert_int_equal(e.param.responder_resources, 4); /* as sent */
	assert_int_equal(e.param.initiator_depth, 2);
	assert_int_equal(e.service_id, SID);
	/* the path from B's side: SGID B, DGID A, DLID A's, PLT back */
	assert_int_equal(wire_get64(e.path + 16), GA);
	assert_int_equal(wire_get64(e.path + 32), GB);
	assert_int_equal(wire_get16(e.path + 40), 1);
	assert_int_equal(wire_get16(e.path + 42), 2);
	assert_int_equal(wire_get16(e.path + 50), 0xffff);
	assert_int_equal(e.path[54] & 0x3f, 4);
	assert_int_equal(e.path[56] & 0x3f, PLT);
	kcm_set_owner(B, b, 77);

	assert_int_equal(kcm_rep(B, b, &p, 1), 0);
	s = one_send(B, 0x0013);
	assert_int_equal(s.dlid, 1);
	assert_int_equal(wire_get64(s.mad + MAD_OFF_TID), req_tid); /* the REQ's */
	/* ibta_vol1_c12.h CM_REP_*: comm IDs 0/4, QPN 12, PSN 20, resources
	 * 24/25, CA GUID 28, private data 36 */
	assert_int_equal(wire_get32(s.mad + 24), kcm_conn(B, b)->local_id);
	assert_int_equal(wire_get32(s.mad + 28), kcm_conn(A, a)->local_id);
	assert_int_equal(wire_get32(s.mad + 24 + 12) >> 8, 0x456);
	assert_int_equal(wire_get32(s.mad + 24 + 20) >> 8, kcm_conn(B, b)->local_psn);
	assert_int_equal(s.mad[24 + 24], 4);
	assert_int_equal(s.mad[24 + 25], 2);
	assert_int_equal(wire_get64(s.mad + 24 + 28), GB);
	assert_memory_equal(s.mad + 24 + 36, "world", 5);
	kcm_recv(A, s.mad, KCM_MAD, 2, 1);
	e = one_event(A, KCM_EV_REP_RCVD);
	assert_int_equal(e.conn, (uint32_t)a);
	assert_int_equal(e.owner, 10);
	assert_int_equal(e.param.qp_num, 0x456);
	assert_int_equal(e.param.pdata_len, 196);
	assert_memory_equal(e.param.pdata, "world", 5);
	assert_int_equal(kcm_conn(A, a)->remote_psn, kcm_conn(B, b)->local_psn);
	assert_int_equal(kcm_rtu(A, (uint32_t)a, 2), 0);
	assert_int_equal(kcm_rtu(A, (uint32_t)a, 2), -EINVAL);
	s = one_send(A, 0x0014);
	assert_int_equal(wire_get64(s.mad + MAD_OFF_TID), req_tid);
	kcm_recv(B, s.mad, KCM_MAD, 1, 2);
	e = one_event(B, KCM_EV_RTU_RCVD);
	assert_int_equal(e.owner, 77);
	assert_int_equal(kcm_conn(A, a)->state, KCM_ESTABLISHED);
	assert_int_equal(kcm_conn(B, b)->state, KCM_ESTABLISHED);
	assert_int_equal(kcm_deadline(B), INT64_MAX); /* nothing outstanding */

	assert_int_equal(kcm_dreq(B, b, 10), 0);
	s = one_send(B, 0x0015);
	assert_int_equal(wire_get64(s.mad + MAD_OFF_TID) >> 32, 9); /* B's hi_tid */
	/* CM_DREQ_*: comm IDs 0/4, remote QPN 8 (24 bits) */
	assert_int_equal(wire_get32(s.mad + 24), kcm_conn(B, b)->local_id);
	assert_int_equal(wire_get32(s.mad + 28), kcm_conn(A, a)->local_id);
	assert_int_equal(wire_get32(s.mad + 24 + 8) >> 8, 0x123);
	kcm_recv(A, s.mad, KCM_MAD, 2, 10);
	one_event(A, KCM_EV_DREQ_RCVD);
	assert_int_equal(kcm_drep(A, (uint32_t)a, 11), 0);
	s = one_send(A, 0x0016);
	assert_int_equal(wire_get64(s.mad + MAD_OFF_TID) >> 32, 9); /* the DREQ's */
	kcm_recv(B, s.mad, KCM_MAD, 1, 11);
	one_event(B, KCM_EV_DREP_RCVD);
	assert_int_equal(kcm_conn(A, a)->state, KCM_TIMEWAIT);
	assert_int_equal(kcm_conn(B, b)->state, KCM_TIMEWAIT);
	/* the old REQ again in timewait: REJ stale connection (10) */
	kcm_recv(B, req.mad, KCM_MAD, 1, 11);
	s = one_send(B, 0x0012);
	assert_int_equal(wire_get16(s.mad + 24 + 10), 10);
	/* timewait: ms(ACK timeout 19) = 2048 ms */
	assert_int_equal(kcm_deadline(A), 11 + 2048);
	kcm_due(A, 11 + 2047);
	assert_false(kcm_event(A, &e));
	kcm_due(A, 11 + 2048);
	one_event(A, KCM_EV_TIMEWAIT_EXIT);
	assert_int_equal(kcm_conn(A, a)->state, KCM_IDLE);
	kcm_unlisten(B, 50);
	assert_int_equal(kcm_listens(B), 0);
}

static void test_rej_invalid_sid(void **state)
{
	struct kcm_param p = param(1, "");
	struct kcm_event e;
	struct kcm_send s;
	int a;

	(void)state;
	a = kcm_req(A, 10, PATH, SID, &p, 0);
	assert_int_equal(pipe_to(A, B, 0), 1);
	assert_false(kcm_event(B, &e));
	s = one_send(B, 0x0012);
	assert_int_equal(s.dlid, 1);
	assert_int_equal(wire_get64(s.mad + MAD_OFF_TID), (uint64_t)HI_A << 32 | kcm_conn(A, a)->local_id);
	/* CM_REJ_*: local comm ID 0 (none), remote 4, message rejected 8
	 * (2 bits: REQ), reason 10 */
	assert_int_equal(wire_get32(s.mad + 24), 0);
	assert_int_equal(wire_get32(s.mad + 28), kcm_conn(A, a)->local_id);
	assert_int_equal(s.mad[24 + 8] >> 6, 0);
	assert_int_equal(wire_get16(s.mad + 24 + 10), CMWIRE_REJ_INVALID_SERVICE_ID);
	kcm_recv(A, s.mad, KCM_MAD, 2, 1);
	e = one_event(A, KCM_EV_REJ_RCVD);
	assert_int_equal(e.status, 8);
	assert_int_equal(e.param.pdata_len, 148);
	assert_int_equal(kcm_conn(A, a)->state, KCM_IDLE);
	assert_int_equal(kcm_deadline(A), INT64_MAX);
}

static void test_rej_consumer(void **state)
{
	struct kcm_event e;
	uint32_t b;
	int a;

	(void)state;
	b = connect_req(&a);
	assert_int_equal(kcm_rej(B, b, CMWIRE_REJ_CONSUMER, (const uint8_t *)"busy", 4, 1), 0);
	assert_int_equal(kcm_conn(B, b)->state, KCM_IDLE);
	assert_int_equal(pipe_to(B, A, 1), 1);
	e = one_event(A, KCM_EV_REJ_RCVD);
	assert_int_equal(e.status, 28);
	assert_int_equal(e.param.pdata_len, 148);
	assert_memory_equal(e.param.pdata, "busy", 4);
	assert_int_equal(kcm_rej(B, b, 28, NULL, 149, 1), -EINVAL);
}

/* No answer: exactly 1 + retries sends, then REQ_ERROR -ETIMEDOUT. */
static void test_req_timeout(void **state)
{
	struct kcm_param p = param(1, "");
	struct kcm_event e;
	struct kcm_send s;
	int64_t t;
	int a, n = 0;

	(void)state;
	A->retries = 3;
	a = kcm_req(A, 10, PATH, SID, &p, 0);
	for (t = 0; t <= 10 * T_REQ && !kcm_event(A, &e); t += 256) {
		kcm_due(A, t);
		while (kcm_send(A, &s))
			n++;
	}
	assert_int_equal(n, 4);
	assert_int_equal(e.type, KCM_EV_REQ_ERROR);
	assert_int_equal(e.status, -ETIMEDOUT);
	assert_int_equal(e.conn, (uint32_t)a);
	assert_int_equal(t - 256, 4 * T_REQ);
	assert_int_equal(kcm_conn(A, a)->state, KCM_IDLE);
}

/* RDMACM.md 5: an MRA every 10 ms still ends in REQ_ERROR within
 * (1 + retries) * max(timeout, MRA timeout), after 1 + retries REQs. */
static void test_mra_storm(void **state)
{
	struct kcm_param p = param(1, "");
	struct cmwire_mra mra = { .message_mraed = 0, .service_timeout = 14 };
	uint8_t mad[KCM_MAD];
	struct kcm_event e;
	struct kcm_send s;
	int64_t t, bound;
	int a, n = 0;

	(void)state;
	A->retries = 3;
	A->cm_timeout = 12;     /* ms 16 */
	PATH[56] = 0x80 | 10;   /* ms 4: timeout 2 * 4 + 16 = 24 */
	a = kcm_req(A, 10, PATH, SID, &p, 0);
	/* MRA timeout: ms(14) + ms(ACK timeout 11) = 64 + 8 */
	bound = 4 * 72;
	mra.remote_comm_id = kcm_conn(A, a)->local_id;
	mra.local_comm_id = 0x5555;
	memset(mad, 0, sizeof(mad));
	mad[0] = 1;
	mad[1] = 0x07;
	mad[2] = 2;
	mad[3] = 0x03;
	wire_put16(mad + MAD_OFF_ATTR_ID, 0x0011);
	cmwire_mra_encode(mad + 24, &mra);
	for (t = 0; t < 100 * bound; t++) {
		if (t % 10 == 5)
			kcm_recv(A, mad, sizeof(mad), 2, t);
		kcm_due(A, t);
		while (kcm_send(A, &s)) {
			assert_int_equal(wire_get16(s.mad + MAD_OFF_ATTR_ID), 0x0010);
			n++;
		}
		if (kcm_event(A, &e))
			break;
	}
	/* the first MRA (t 5) gave the REQ 72 ms per try from then on: the
	 * wait before it (at most one REQ timeout, 24) comes on top */
	assert_int_equal(e.type, KCM_EV_REQ_ERROR);
	assert_int_equal(t, 5 + bound);
	assert_true(t <= 24 + bound);
	assert_int_equal(n, 4);
}

/* A duplicate REQ before the consumer answers: MRA (24), again each
 * time; after the REP nothing: the REP's own timer resends it.
 * (Linux 6.1 cm_dup_req_handler.) */
static void test_dup_req(void **state)
{
	struct kcm_param p = param(0x456, "x");
	struct kcm_send req, s, rep;
	struct kcm_event e;
	uint32_t b;
	int a, i;

	(void)state;
	assert_int_equal(kcm_listen(B, SID, 50), 0);
	a = kcm_req(A, 10, PATH, SID, &p, 0);
	req = one_send(A, 0x0010);
	kcm_recv(B, req.mad, KCM_MAD, 1, 0);
	b = one_event(B, KCM_EV_REQ_RCVD).conn;
	for (i = 0; i < 2; i++) {
		kcm_recv(B, req.mad, KCM_MAD, 1, 1);
		assert_false(kcm_event(B, &e));
		s = one_send(B, 0x0011);
		assert_int_equal(s.mad[24 + 8] >> 6, 0);     /* MRAed: REQ */
		assert_int_equal(s.mad[24 + 9] >> 3, 24);    /* service timeout */
		assert_int_equal(kcm_conn(B, b)->state, KCM_MRA_REQ_SENT);
	}
	/* the MRA at A: state only, nothing sent */
	kcm_recv(A, s.mad, KCM_MAD, 2, 2);
	assert_int_equal(kcm_conn(A, a)->state, KCM_MRA_REQ_RCVD);
	assert_false(kcm_send(A, &s));
	/* after the REP a duplicate goes unanswered (cm_dup_req_handler):
	 * the REP's own timer resends it, the same bytes */
	assert_int_equal(kcm_rep(B, b, &p, 3), 0);
	rep = one_send(B, 0x0013);
	kcm_recv(B, req.mad, KCM_MAD, 1, 4);
	assert_false(kcm_send(B, &s));
	kcm_due(B, kcm_deadline(B));
	s = one_send(B, 0x0013);
	assert_memory_equal(s.mad, rep.mad, KCM_MAD);
}

/* The RTU lost: B's REP timer resends the REP, A answers the duplicate
 * with the RTU again. */
static void test_lost_rtu(void **state)
{
	struct kcm_param p = param(0x456, "x");
	struct kcm_send s;
	uint32_t b;
	int a;

	(void)state;
	b = connect_req(&a);
	assert_int_equal(kcm_rep(B, b, &p, 0), 0);
	pipe_to(B, A, 0);
	one_event(A, KCM_EV_REP_RCVD);
	kcm_rtu(A, (uint32_t)a, 1);
	one_send(A, 0x0014); /* lost */
	/* B's REP timeout: ms(the REQ's local CM response timeout 20) */
	assert_int_equal(kcm_deadline(B), 4096);
	kcm_due(B, 4096);
	assert_int_equal(pipe_to(B, A, 4096), 1);
	s = one_send(A, 0x0014);
	kcm_recv(B, s.mad, KCM_MAD, 1, 4097);
	one_event(B, KCM_EV_RTU_RCVD);
	assert_int_equal(kcm_conn(B, b)->state, KCM_ESTABLISHED);
}

/* A DREQ nobody knows: a DREP, ids swapped, the DREQ's TID. */
static void test_dreq_unknown(void **state)
{
	struct cmwire_dreq d = { .local_comm_id = 0x1111, .remote_comm_id = 0x2222 };
	uint8_t mad[KCM_MAD] = { 1, 0x07, 2, 0x03 };
	struct kcm_send s;

	(void)state;
	wire_put64(mad + MAD_OFF_TID, 0x0000000500001111ull);
	wire_put16(mad + MAD_OFF_ATTR_ID, 0x0015);
	cmwire_dreq_encode(mad + 24, &d);
	kcm_recv(B, mad, sizeof(mad), 7, 0);
	s = one_send(B, 0x0016);
	assert_int_equal(s.dlid, 7);
	assert_int_equal(wire_get64(s.mad + MAD_OFF_TID), 0x0000000500001111ull);
	assert_int_equal(wire_get32(s.mad + 24), 0x2222);
	assert_int_equal(wire_get32(s.mad + 28), 0x1111);
}

static void test_dreq_timeout(void **state)
{
	struct kcm_event e;
	struct kcm_send s;
	int64_t t;
	int a, n = 0;

	(void)state;
	establish(&a);
	assert_int_equal(kcm_dreq(A, (uint32_t)a, 100), 0);
	assert_int_equal(kcm_dreq(A, (uint32_t)a, 100), -EINVAL);
	for (t = 100; !kcm_event(A, &e); t += 512) {
		kcm_due(A, t);
		while (kcm_send(A, &s))
			n++;
	}
	assert_int_equal(n, 16);
	assert_int_equal(e.type, KCM_EV_DREQ_ERROR);
	assert_int_equal(e.status, -ETIMEDOUT);
	assert_int_equal(kcm_conn(A, a)->state, KCM_TIMEWAIT);
}

/* cm_destroy_id: what each state sends, no events after, slot reused. */
static void test_destroy(void **state)
{
	struct kcm_event e;
	struct kcm_send s;
	uint32_t b;
	int a;

	(void)state;
	/* REQ_SENT: REJ timeout with A's GUID; B's REQ_RCVD conn learns */
	b = connect_req(&a);
	kcm_destroy(A, (uint32_t)a, 1);
	assert_null(kcm_conn(A, a));
	s = one_send(A, 0x0012);
	assert_int_equal(wire_get16(s.mad + 24 + 10), CMWIRE_REJ_TIMEOUT);
	assert_int_equal(wire_get64(s.mad + 24 + 12), GA);
	kcm_recv(B, s.mad, KCM_MAD, 1, 1);
	e = one_event(B, KCM_EV_REJ_RCVD);
	assert_int_equal(e.conn, b);
	assert_int_equal(e.status, CMWIRE_REJ_TIMEOUT);
	/* REQ_RCVD (a fresh pair): REJ consumer defined */
	kcm_destroy(B, b, 1);
	b = connect_req(&a);
	kcm_destroy(B, b, 2);
	s = one_send(B, 0x0012);
	assert_int_equal(wire_get16(s.mad + 24 + 10), CMWIRE_REJ_CONSUMER);
	kcm_recv(A, s.mad, KCM_MAD, 2, 2);
	one_event(A, KCM_EV_REJ_RCVD);
	kcm_destroy(A, (uint32_t)a, 2);
	assert_false(kcm_send(A, &s));
	/* ESTABLISHED: one DREQ, never resent; timewait keeps the slot */
	b = establish(&a);
	kcm_destroy(A, (uint32_t)a, 10);
	one_send(A, 0x0015);
	kcm_due(A, 10 + 100000);
	assert_false(kcm_send(A, &s));
	assert_false(kcm_event(A, &e));
	assert_int_equal(A->conns[a].used, 0);
	/* queued events go with the conn */
	b = connect_req(&a);
	kcm_rej(B, b, 28, NULL, 0, 11);
	pipe_to(B, A, 11);
	kcm_destroy(A, (uint32_t)a, 12);
	assert_false(kcm_event(A, &e));
	/* DREQ_RCVD: the DREP */
	b = establish(&a);
	kcm_dreq(A, (uint32_t)a, 20);
	pipe_to(A, B, 20);
	one_event(B, KCM_EV_DREQ_RCVD);
	kcm_destroy(B, b, 21);
	one_send(B, 0x0016);
}

static void qp_attr(struct kcm *m, uint32_t conn, uint32_t st, struct ib_uverbs_qp_attr *a)
{
	uint8_t resp[KCM_QP_ATTR_LEN];

	assert_int_equal(kcm_qp_init_attr(m, conn, st, resp), 0);
	memcpy(a, resp, sizeof(*a));
}

static void test_init_qp_attr(void **state)
{
	struct kcm_param p = param(0x456, "");
	struct ib_uverbs_qp_attr q;
	uint8_t resp[KCM_QP_ATTR_LEN];
	uint32_t b;
	int a;

	(void)state;
	b = connect_req(&a);
	qp_attr(A, (uint32_t)a, IBV_QPS_INIT, &q);
	assert_int_equal(q.qp_attr_mask, IBV_QP_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX |
						 IBV_QP_PORT);
	assert_int_equal(q.qp_access_flags, IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
						    IBV_ACCESS_REMOTE_ATOMIC);
	assert_int_equal(q.port_num, 1);
	assert_int_equal(q.pkey_index, 0);
	/* no peer QPN yet */
	assert_int_equal(kcm_qp_init_attr(A, (uint32_t)a, IBV_QPS_RTR, resp), -EINVAL);
	assert_int_equal(kcm_qp_init_attr(A, 999, IBV_QPS_INIT, resp), -EINVAL);
	p.responder_resources = 3;
	p.initiator_depth = 1;
	kcm_rep(B, b, &p, 1);
	pipe_to(B, A, 1);
	qp_attr(A, (uint32_t)a, IBV_QPS_RTR, &q);
	assert_int_equal(q.qp_attr_mask, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
						 IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
						 IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	assert_int_equal(q.ah_attr.dlid, 2);
	assert_int_equal(q.ah_attr.static_rate, 6);
	assert_int_equal(q.ah_attr.is_global, 0);
	assert_int_equal(q.path_mtu, IBV_MTU_2048);
	assert_int_equal(q.dest_qp_num, 0x456);
	assert_int_equal(q.rq_psn, kcm_conn(B, b)->local_psn);
	assert_int_equal(q.max_dest_rd_atomic, 1); /* B's initiator depth */
	assert_int_equal(q.min_rnr_timer, 0);
	qp_attr(A, (uint32_t)a, IBV_QPS_RTS, &q);
	assert_int_equal(q.qp_attr_mask, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
						 IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
						 IBV_QP_MAX_QP_RD_ATOMIC);
	assert_int_equal(q.timeout, PLT + 1);
	assert_int_equal(q.retry_cnt, 7);
	assert_int_equal(q.rnr_retry, 6);
	assert_int_equal(q.sq_psn, kcm_conn(A, a)->local_psn);
	assert_int_equal(q.max_rd_atomic, 3); /* B's responder resources */
	/* the passive side: its own REP's values, A's QPN and PSN */
	qp_attr(B, b, IBV_QPS_RTR, &q);
	assert_int_equal(q.ah_attr.dlid, 1);
	assert_int_equal(q.dest_qp_num, 0x123);
	assert_int_equal(q.rq_psn, kcm_conn(A, a)->local_psn);
	assert_int_equal(q.max_dest_rd_atomic, 3);
	qp_attr(B, b, IBV_QPS_RTS, &q);
	assert_int_equal(q.timeout, PLT + 1);
	assert_int_equal(q.sq_psn, kcm_conn(B, b)->local_psn);
	assert_int_equal(q.max_rd_atomic, 1);
}

/* Truncated, foreign and random MADs: dropped, no crash; a flood of
 * REQs nobody listens to fills the send queue and is counted. */
static void test_hostile(void **state)
{
	uint8_t mad[KCM_MAD];
	struct kcm_event e;
	uint32_t x = 12345;
	size_t len, i;
	int k, a;

	(void)state;
	establish(&a);
	kcm_listen(B, SID, 50);
	for (k = 0; k < 20000; k++) {
		for (i = 0; i < KCM_MAD; i++) {
			x = x * 1103515245 + 12345;
			mad[i] = (uint8_t)(x >> 16);
		}
		mad[0] = 1;
		mad[1] = 0x07;
		mad[2] = 2;
		mad[3] = k % 7 ? 0x03 : mad[3];
		wire_put16(mad + MAD_OFF_ATTR_ID, (uint16_t)(0x0010 + k % 9));
		/* sometimes the established pair's comm IDs */
		if (k % 3 == 0) {
			wire_put32(mad + 24, kcm_conn(A, a)->remote_id);
			wire_put32(mad + 28, kcm_conn(A, a)->local_id);
		}
		len = k % 5 ? KCM_MAD : (size_t)(x % KCM_MAD);
		kcm_recv(A, mad, len, 2, k);
		kcm_recv(B, mad, len, 1, k);
		kcm_due(A, k);
		kcm_due(B, k);
	}
	while (kcm_event(A, &e) || kcm_event(B, &e))
		;
	assert_true(A->sn <= KCM_SENDS && B->sn <= KCM_SENDS);
	assert_true(B->send_drops > 0 || B->req_drops > 0 || B->event_drops > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_golden_req, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exchange, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rej_invalid_sid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rej_consumer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_req_timeout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mra_storm, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dup_req, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lost_rtu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dreq_unknown, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dreq_timeout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_destroy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_init_qp_attr, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
