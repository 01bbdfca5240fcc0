/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* ats_window (lib/host/ats_window.c) over the real SA client and query
 * steps, against an in-memory SA (fake_mport.c): at most depth requests
 * outstanding, each answer what ats_query_lookup gives one request at a
 * time, and the SA's faults (lost, late, reordered, wrong, cut answers,
 * too many records, the port down) handled per request. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <cmocka.h>

#include "core/mono.h"
#include "core/sa.h"
#include "core/wire.h"
#include "fake_mport.h"
#include "host/ats_window.h"
#include "fixture.h"

#define TIMEOUT_MS 40
#define RETRIES 2
#define NHOSTS 24

static void gid_of(unsigned host, uint8_t *gid)
{
	memset(gid, 0, 16);
	gid[0] = 0xfe;
	gid[1] = 0x80;
	gid[8] = 0x00;
	gid[9] = 0x02;
	gid[10] = 0xc9;
	gid[14] = (uint8_t)(host >> 8);
	gid[15] = (uint8_t)host;
}

static struct ats_ip ip4(unsigned a, unsigned b)
{
	struct ats_ip ip;

	memset(&ip, 0, sizeof(ip));
	ip.family = AF_INET;
	ip.addr[0] = 10;
	ip.addr[2] = (uint8_t)a;
	ip.addr[3] = (uint8_t)b;
	return ip;
}

static void put(unsigned host, unsigned sid_order, uint16_t pkey, struct ats_ip ip)
{
	struct sr_record r;
	uint8_t gid[16];

	gid_of(host, gid);
	ats_record_init(&r, ats_sid_at(sid_order), gid, pkey, SR_LEASE_INFINITE, &ip);
	assert_int_equal(fake_mport_add(&r), 0);
}

/* Host h holds 10.0.0.h as its primary; 10.0.1.k is held by hosts k and
 * k+1 (secondaries: a forward lookup of several records); host 5 has a
 * primary in a second partition too (a Get of its primary is too many);
 * host 3's address is also in another partition (not ours to name). */
static void table(void)
{
	unsigned h;

	for (h = 1; h <= NHOSTS; h++)
		put(h, 0, 0xffff, ip4(0, h));
	for (h = 1; h <= NHOSTS; h += 4) {
		put(h, 1, 0xffff, ip4(1, h));
		put(h + 1, 2, 0xffff, ip4(1, h));
	}
	put(5, 0, 0x8001, ip4(2, 5));
	put(3, 3, 0x8002, ip4(0, 3));
}

struct fx {
	struct sa_client *sa, *sync;
	struct ats_window *w;
};

static struct fx fx_open(unsigned depth, unsigned retries)
{
	struct sa_client_opts o = { TIMEOUT_MS, retries, 0, SA_CLIENT_RMPP_AUTO };
	struct fx f;

	fake_mport_reset();
	table();
	assert_int_equal(sa_client_init(&f.sa, fake_mport_port(), &o), 0);
	assert_int_equal(sa_client_init(&f.sync, fake_mport_port(), &o), 0);
	assert_int_equal(ats_window_init(&f.w, f.sa, depth), 0);
	return f;
}

static void fx_close(struct fx *f)
{
	ats_window_fini(f->w);
	sa_client_fini(f->sa);
	sa_client_fini(f->sync);
	fake_mport_reset();
}

static void forward(struct ats_window_req *r, struct ats_ip ip)
{
	memset(r, 0, sizeof(*r));
	r->l.kind = ATS_QUERY_FORWARD;
	r->l.ip = ip;
	r->l.pkey = 0xffff;
}

static void by_gid(struct ats_window_req *r, enum ats_query_kind kind, unsigned host)
{
	memset(r, 0, sizeof(*r));
	r->l.kind = kind;
	gid_of(host, r->l.gid);
	r->l.pkey = 0xffff;
}

/* A mix of the three kinds: forward ones of one and of two records, of
 * none, reverse and primary ones. */
static void mix(struct ats_window_req *r, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		if (i % 5 == 3)
			forward(&r[i], ip4(1, 1 + 4 * (i % 6)));
		else if (i % 7 == 6)
			by_gid(&r[i], ATS_QUERY_REVERSE, 1 + i % NHOSTS);
		else if (i % 9 == 8)
			by_gid(&r[i], ATS_QUERY_PRIMARY, 2 + i % NHOSTS);
		else
			forward(&r[i], ip4(0, i == 7 ? 200 : 1 + i % NHOSTS));
	}
}

static void submit(struct fx *f, struct ats_window_req *r, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		r[i].ctx = &r[i];
		ats_window_submit(f->w, &r[i]);
	}
}

/* Run until the n submitted are back (their order in *order). */
static void collect(struct fx *f, struct ats_window_req *r, unsigned n, unsigned *order)
{
	int64_t end = mono_ms() + 10000;
	unsigned got = 0;

	while (got < n) {
		struct ats_window_req *d;

		assert_true(mono_ms() < end);
		assert_int_equal(ats_window_run(f->w, 100), 0);
		while ((d = ats_window_done(f->w))) {
			assert_ptr_equal(d->ctx, d);
			order[got++] = (unsigned)(d - r);
		}
	}
	assert_int_equal(ats_window_busy(f->w), 0);
	assert_int_equal(ats_window_inflight(f->w), 0);
}

static void run_all(struct fx *f, struct ats_window_req *r, unsigned n, unsigned *order)
{
	submit(f, r, n);
	collect(f, r, n, order);
}

/* r's outcome is what ats_query_lookup makes of its lookup (whether
 * either walked depends on what its client knew of RMPP then). */
static void assert_as_sync(struct fx *f, struct ats_window_req *r)
{
	struct ats_query_set s;
	int ret = ats_query_lookup(f->sync, &r->l, &s);
	size_t i;

	assert_int_equal(r->err, ret);
	if (ret)
		return;
	assert_int_equal(r->set.n, s.n);
	/* A primary's count has no RMPP state in it: the same requests,
	 * the split by P_Key not asking the first Get twice. */
	if (r->l.kind == ATS_QUERY_PRIMARY)
		assert_int_equal(r->set.queries, s.queries);
	for (i = 0; i < s.n; i++)
		assert_memory_equal(&r->set.recs[i], &s.recs[i], sizeof(s.recs[i]));
	ats_query_set_free(&s);
}

static void free_sets(struct ats_window_req *r, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		ats_query_set_free(&r[i].set);
}

/* Each of r[0..n) answered as the synchronous lookup answers it, but
 * r[skip] (-1: none); then the sets freed and the window closed. */
static void close_as_sync(struct fx *f, struct ats_window_req *r, unsigned n, int skip)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if ((int)i != skip)
			assert_as_sync(f, &r[i]);
	free_sets(r, n);
	fx_close(f);
}

/* (a) depth 4, 20 lookups answered late and newest first. */
static void test_depth_order(void **state)
{
	struct fx f = fx_open(4, RETRIES);
	struct ats_window_req r[20];
	unsigned order[20], i, late = 0;
	struct ats_window_stats st;

	(void)state;
	fake_mport_set(FAKE_DELAY_MS, 5);
	fake_mport_set(FAKE_LIFO, 1);
	mix(r, 20);
	run_all(&f, r, 20, order);
	assert_int_equal(fake_mport_max_outstanding(), 4);
	for (i = 1; i < 20; i++)
		late += order[i] < order[i - 1];
	assert_true(late > 0);
	ats_window_stats(f.w, &st);
	assert_int_equal(st.sent, 20);
	assert_int_equal(st.resent, 0);
	assert_int_equal(st.inflight_max, 4);
	assert_int_equal(r[3].set.n, 2); /* 10.0.1.1: hosts 1 and 2 */
	assert_int_equal(r[7].set.n, 0);
	close_as_sync(&f, r, 20, -1);
}

/* (b) a lost first send: sent again, with a fresh TID (the kernel
 * refuses one still waiting), once its time is up. */
static void test_resend(void **state)
{
	struct fx f = fx_open(4, RETRIES);
	struct ats_window_req r[5];
	unsigned order[5];
	struct ats_window_stats st;

	(void)state;
	fake_mport_set(FAKE_DROP_FIRST, 2);
	mix(r, 5);
	run_all(&f, r, 5, order);
	assert_int_equal(fake_mport_requests(), 5); /* the same request */
	assert_true(fake_mport_tid(2) != 0x100 + 2); /* a fresh TID */
	assert_int_equal(fake_mport_sends(2), 2);
	assert_int_equal(fake_mport_sends(1), 1);
	assert_int_equal(order[4], 2);
	ats_window_stats(f.w, &st);
	assert_int_equal(st.resent, 1);
	assert_int_equal(st.timeouts, 0);
	close_as_sync(&f, r, 5, -1);
}

/* (c) never answered: -ETIMEDOUT after every attempt, the rest answered. */
static void test_timeout(void **state)
{
	struct fx f = fx_open(4, RETRIES);
	struct ats_window_req r[6];
	unsigned order[6];
	struct ats_window_stats st;

	(void)state;
	fake_mport_set(FAKE_NEVER, 1);
	mix(r, 6);
	run_all(&f, r, 6, order);
	assert_int_equal(r[1].err, -ETIMEDOUT);
	assert_int_equal(fake_mport_sends(1), RETRIES + 1);
	assert_int_equal(order[5], 1);
	ats_window_stats(f.w, &st);
	assert_int_equal(st.timeouts, 1);
	assert_int_equal(st.resent, RETRIES);
	close_as_sync(&f, r, 6, 1);
}

/* (d) a GetTable answer cut (no RMPP): that lookup, and the ones after,
 * are walks run alone once nothing is in flight. */
static void test_cut(void **state)
{
	struct fx f = fx_open(4, RETRIES);
	struct ats_window_req r[8];
	unsigned order[8], i;
	struct ats_window_stats st;

	(void)state;
	fake_mport_set(FAKE_NO_RMPP, 1);
	forward(&r[0], ip4(0, 1));
	forward(&r[1], ip4(1, 5)); /* two records: cut */
	for (i = 2; i < 8; i++)
		forward(&r[i], ip4(i & 1, 1 + 4 * i));
	run_all(&f, r, 8, order);
	ats_window_stats(f.w, &st);
	assert_true(st.whole >= 1);
	assert_int_equal(sa_client_rmpp_state(f.sa), 0);
	assert_int_equal(r[1].set.n, 2);
	assert_true(r[1].set.walked);
	assert_int_equal(fake_mport_max_outstanding(), 4);
	close_as_sync(&f, r, 8, -1);
}

/* (d) a primary in two partitions is too many for a Get: split by P_Key. */
static void test_primary_split(void **state)
{
	struct fx f = fx_open(4, RETRIES);
	struct ats_window_req r[3];
	unsigned order[3];
	struct ats_window_stats st;

	(void)state;
	by_gid(&r[0], ATS_QUERY_PRIMARY, 5);
	by_gid(&r[1], ATS_QUERY_PRIMARY, 6);
	by_gid(&r[2], ATS_QUERY_PRIMARY, NHOSTS + 9); /* none */
	run_all(&f, r, 3, order);
	ats_window_stats(f.w, &st);
	assert_int_equal(st.whole, 1);
	assert_int_equal(r[0].err, 0);
	assert_int_equal(r[0].set.n, 1);
	assert_int_equal(r[0].set.recs[0].pkey, 0xffff);
	assert_int_equal(r[2].err, -ENOENT);
	close_as_sync(&f, r, 3, -1);
}

/* (e) the port down: every queued lookup fails at once, nothing sent. */
static void test_port_down(void **state)
{
	struct fx f = fx_open(4, RETRIES);
	struct ats_window_req r[6];
	unsigned order[6], i;

	(void)state;
	fake_mport_set(FAKE_PORT_STATE, 1);
	mix(r, 6);
	run_all(&f, r, 6, order);
	for (i = 0; i < 6; i++)
		assert_int_equal(r[i].err, -ENETDOWN);
	assert_int_equal(fake_mport_requests(), 0);
	fx_close(&f);
}

/* An SA response as the fabric would carry it, to a TID of our choice. */
static void inject(uint32_t tid, uint8_t mgmt_class, uint8_t method)
{
	uint8_t mad[MAD_SIZE] = { 0 };
	struct sa_hdr h = { 0 };

	h.mad.base_version = MAD_BASE_VERSION;
	h.mad.mgmt_class = mgmt_class;
	h.mad.class_version = SA_CLASS_VERSION;
	h.mad.method = method;
	h.mad.tid = tid;
	h.mad.attr_id = SA_ATTR_SERVICE_RECORD;
	sa_hdr_encode(mad, &h);
	fake_mport_inject(mad, sizeof(mad));
}

/* (f) answers to no request of ours are dropped. */
static void test_stale(void **state)
{
	struct fx f = fx_open(4, RETRIES);
	struct ats_window_req r[6];
	unsigned order[6];
	struct ats_window_stats st;

	(void)state;
	fake_mport_set(FAKE_DELAY_MS, 10);
	inject(0xdead, SA_CLASS, SA_METHOD_GET_TABLE_RESP);
	inject(0x10100, SA_CLASS, SA_METHOD_GET_RESP); /* a TID not sent */
	inject(0x101, 0x04, SA_METHOD_GET_RESP);     /* another class */
	mix(r, 6);
	run_all(&f, r, 6, order);
	ats_window_stats(f.w, &st);
	assert_int_equal(st.resent, 0);
	close_as_sync(&f, r, 6, -1);
}

/* (g) cancel hands back every request, flying, queued or whole. */
static void test_cancel(void **state)
{
	struct fx f = fx_open(4, RETRIES);
	struct ats_window_req r[7], *d;
	unsigned n = 0, i;

	(void)state;
	fake_mport_set(FAKE_DELAY_MS, 1000);
	mix(r, 7);
	for (i = 0; i < 7; i++)
		ats_window_submit(f.w, &r[i]);
	assert_true(ats_window_pump(f.w) > 0);
	assert_int_equal(ats_window_inflight(f.w), 4);
	assert_int_equal(ats_window_busy(f.w), 7);
	ats_window_cancel(f.w);
	while ((d = ats_window_done(f.w))) {
		assert_int_equal(d->err, -ECANCELED);
		n++;
	}
	assert_int_equal(n, 7);
	assert_int_equal(ats_window_busy(f.w), 0);
	assert_int_equal(ats_window_pump(f.w), -1);
	fx_close(&f);
}

/* Answers that came while the caller was busy elsewhere (a sync job, the
 * CM's check: atsd's SA thread) are taken before a request is judged
 * lost: with no retry left, one would fail with its answer waiting. */
static void test_away(void **state)
{
	struct fx f = fx_open(4, 0);
	struct ats_window_req r[4];
	unsigned order[4], i;
	struct ats_window_stats st;
	struct timespec away = { 0, (TIMEOUT_MS + 20) * 1000000L };

	(void)state;
	mix(r, 4);
	submit(&f, r, 4);
	assert_true(ats_window_pump(f.w) > 0);
	assert_int_equal(ats_window_inflight(f.w), 4);
	nanosleep(&away, NULL);
	collect(&f, r, 4, order);
	for (i = 0; i < 4; i++)
		assert_as_sync(&f, &r[i]);
	ats_window_stats(f.w, &st);
	assert_int_equal(st.timeouts, 0);
	assert_int_equal(st.resent, 0);
	free_sets(r, 4);
	fx_close(&f);
}

/* A hostile or broken SA: an answer of the wrong method or attribute
 * fails its request as sa_client_request's would (-EPROTO), the rest
 * are unharmed; every answer twice, the second is dropped; a GetTable
 * answer of thousands of records is taken whole. */
static void test_hostile(void **state)
{
	struct fx f = fx_open(4, RETRIES);
	struct ats_window_req r[8], big;
	unsigned order[8], i, h;
	struct ats_window_stats st;

	(void)state;
	fake_mport_set(FAKE_WRONG_METHOD, 1);
	fake_mport_set(FAKE_WRONG_ATTR, 4);
	fake_mport_set(FAKE_TWICE, 1);
	fake_mport_set(FAKE_LIFO, 1);
	mix(r, 8);
	run_all(&f, r, 8, order);
	assert_int_equal(r[1].err, -EPROTO);
	assert_int_equal(r[4].err, -EPROTO);
	for (i = 0; i < 8; i++)
		if (i != 1 && i != 4)
			assert_as_sync(&f, &r[i]);
	ats_window_stats(f.w, &st);
	assert_int_equal(st.resent, 0);
	free_sets(r, 8);

	fake_mport_set(FAKE_TWICE, 0);
	for (h = 100; h < 3100; h++)
		put(h, 1, 0xffff, ip4(9, 9));
	forward(&big, ip4(9, 9));
	run_all(&f, &big, 1, order);
	assert_int_equal(big.err, 0);
	assert_int_equal(big.set.n, 3000);
	assert_as_sync(&f, &big);
	free_sets(&big, 1);
	fx_close(&f);
}

/* (h) a depth of none, or past the largest, is refused. */
static void test_depth_bounds(void **state)
{
	struct fx f = fx_open(1, RETRIES);
	struct ats_window *w = NULL;

	(void)state;
	assert_int_equal(ats_window_init(&w, f.sa, 0), -EINVAL);
	assert_int_equal(ats_window_init(&w, f.sa, ATS_WINDOW_DEPTH_MAX + 1), -EINVAL);
	assert_int_equal(ats_window_init(&w, f.sa, ATS_WINDOW_DEPTH_MAX), 0);
	assert_int_equal(ats_window_depth(w), ATS_WINDOW_DEPTH_MAX);
	ats_window_fini(w);
	fx_close(&f);
}

TEST_MAIN(
	cmocka_unit_test(test_depth_order),
	cmocka_unit_test(test_resend),
	cmocka_unit_test(test_timeout),
	cmocka_unit_test(test_cut),
	cmocka_unit_test(test_primary_split),
	cmocka_unit_test(test_port_down),
	cmocka_unit_test(test_stale),
	cmocka_unit_test(test_cancel),
	cmocka_unit_test(test_away),
	cmocka_unit_test(test_hostile),
	cmocka_unit_test(test_depth_bounds))
