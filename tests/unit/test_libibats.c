/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* libibats: the service ID layout, AF_IB address filling, the Annex A11
 * header (golden bytes, hostile input), the anti-spoof decision, the
 * error mapping, and the atsd path against a scripted agent on a Unix
 * socket (persistent connection, reconnect without SIGPIPE, threads
 * sharing a handle, no SA fallback on "not found", who answered). */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "fake_sock.h"

#include "libibats/priv.h"
#include "fixture.h"

static const uint8_t gid_a[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
				   0, 0x02, 0xc9, 0x03, 0, 0x0a, 0xb1, 0xc2 };
static const uint8_t gid_b[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
				   0, 0x02, 0xc9, 0x03, 0, 0x0a, 0xb1, 0xc3 };
#define GID_A "fe80::2:c903:a:b1c2"
#define GID_B "fe80::2:c903:a:b1c3"

static struct sockaddr_storage ss_ip(const char *text, uint16_t port)
{
	struct sockaddr_storage ss;
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6, .sin6_port = htons(port) };
	struct sockaddr_in s4 = { .sin_family = AF_INET, .sin_port = htons(port) };

	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, text, &s4.sin_addr) == 1) {
		memcpy(&ss, &s4, sizeof(s4));
	} else {
		assert_int_equal(inet_pton(AF_INET6, text, &s6.sin6_addr), 1);
		memcpy(&ss, &s6, sizeof(s6));
	}
	return ss;
}

#define SA(ss) ((const struct sockaddr *)&(ss))

static void ss_text(const struct sockaddr_storage *ss, char *buf, size_t len, uint16_t *port)
{
	struct sockaddr_in s4;
	struct sockaddr_in6 s6;

	if (ss->ss_family == AF_INET) {
		memcpy(&s4, ss, sizeof(s4));
		inet_ntop(AF_INET, &s4.sin_addr, buf, (socklen_t)len);
		*port = ntohs(s4.sin_port);
	} else {
		assert_int_equal(ss->ss_family, AF_INET6);
		memcpy(&s6, ss, sizeof(s6));
		inet_ntop(AF_INET6, &s6.sin6_addr, buf, (socklen_t)len);
		*port = ntohs(s6.sin6_port);
	}
}

/* Annex A11 / rdma_cm: 0x0000000001PPpppp. */
static void test_sid_layout(void **state)
{
	(void)state;
	assert_true(ibats_ip_cm_sid(IBATS_PS_TCP, 5001) == 0x0000000001061389ull);
	assert_true(ibats_ip_cm_sid(IBATS_PS_UDP, 0x1234) == 0x0000000001111234ull);
	assert_true(ibats_ip_cm_sid(IBATS_PS_IB, 0) == 0x00000000013F0000ull);
	assert_true(ibats_ip_cm_sid(IBATS_PS_TCP, 0xffff) == 0x000000000106FFFFull);
}

/* flags took the first reserved word of libibats 1.1's struct ibats_info:
 * its size and the offsets of 1.1's fields stay (x86_64 and other LP64). */
static void test_info_layout(void **state)
{
	(void)state;
	if (sizeof(long) != 8)
		skip();
	assert_int_equal(sizeof(struct ibats_info), 192);
	assert_int_equal(offsetof(struct ibats_info, partial), 152);
	assert_int_equal(offsetof(struct ibats_info, flags), 160);
	assert_int_equal(offsetof(struct ibats_info, reserved), 168);
}

static void test_sockaddr_ib_fill(void **state)
{
	struct ibats_record r = { .sid = IBATS_SID_PRIMARY, .pkey = 0x8001, .primary = 1 };
	static const uint8_t want_pkey[2] = { 0x80, 0x01 };
	static const uint8_t want_sid[8] = { 0, 0, 0, 0, 0x01, 0x06, 0x13, 0x89 };
	static const uint8_t ones[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t zero[8];
	struct sockaddr_ib sib;

	(void)state;
	memcpy(r.gid, gid_a, 16);
	memset(&sib, 0xa5, sizeof(sib));
	assert_int_equal(ibats_sockaddr_ib_fill(&r, ibats_ip_cm_sid(IBATS_PS_TCP, 5001), &sib), 0);
	assert_int_equal(sizeof(sib), 48); /* the kernel's rdma_cm ABI */
	assert_int_equal(sib.sib_family, AF_IB);
	assert_memory_equal(&sib.sib_pkey, want_pkey, 2); /* network order */
	assert_memory_equal(&sib.sib_sid, want_sid, 8);
	assert_memory_equal(&sib.sib_sid_mask, ones, 8);
	assert_memory_equal(sib.sib_addr.sib_raw, gid_a, 16);
	assert_int_equal(sib.sib_flowinfo, 0);
	assert_memory_equal(&sib.sib_scope_id, zero, 8);
	assert_int_equal(ibats_sockaddr_ib_fill(NULL, 1, &sib), -EINVAL);
	assert_int_equal(ibats_sockaddr_ib_fill(&r, 1, NULL), -EINVAL);
}

/* Annex A11 Table 1 (rdma_cm's struct cma_hdr): version, IP version in
 * the upper nibble, source port, source IP, destination IP; IPv4 in the
 * last four octets of each address. */
static const uint8_t a11_v4[IBATS_A11_LEN] = {
	0x00, 0x40, 0x13, 0x89,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10, 0, 0, 1,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10, 0, 0, 2,
};
static const uint8_t a11_v6[IBATS_A11_LEN] = {
	0x00, 0x60, 0x01, 0x02,
	0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
	0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2,
};

static void test_a11_encode(void **state)
{
	struct sockaddr_storage s = ss_ip("10.0.0.1", 5001), d = ss_ip("10.0.0.2", 7);
	struct sockaddr_storage m = ss_ip("::ffff:10.0.0.1", 5001);
	struct sockaddr_storage s6 = ss_ip("fd00::1", 0x0102), d6 = ss_ip("fd00::2", 0);
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	uint8_t buf[64];

	(void)state;
	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(ibats_a11_encode(SA(s), SA(d), buf, sizeof(buf)), IBATS_A11_LEN);
	assert_memory_equal(buf, a11_v4, IBATS_A11_LEN);
	assert_int_equal(buf[IBATS_A11_LEN], 0xee); /* nothing beyond */
	/* An IPv4-mapped source is the IPv4 host. */
	assert_int_equal(ibats_a11_encode(SA(m), SA(d), buf, IBATS_A11_LEN), IBATS_A11_LEN);
	assert_memory_equal(buf, a11_v4, IBATS_A11_LEN);
	assert_int_equal(ibats_a11_encode(SA(s6), SA(d6), buf, sizeof(buf)), IBATS_A11_LEN);
	assert_memory_equal(buf, a11_v6, IBATS_A11_LEN);
	/* One IP version for both addresses. */
	assert_int_equal(ibats_a11_encode(SA(s), SA(d6), buf, sizeof(buf)), -EINVAL);
	assert_int_equal(ibats_a11_encode(SA(s), SA(d), buf, IBATS_A11_LEN - 1), -ENOSPC);
	assert_int_equal(ibats_a11_encode((struct sockaddr *)&un, SA(d), buf, sizeof(buf)),
			 -EAFNOSUPPORT);
	assert_int_equal(ibats_a11_encode(NULL, SA(d), buf, sizeof(buf)), -EINVAL);
}

static void test_a11_decode(void **state)
{
	struct sockaddr_storage s, d;
	uint8_t buf[IBATS_A11_LEN];
	char t[64];
	uint16_t port;
	size_t len;

	(void)state;
	assert_int_equal(ibats_a11_decode(a11_v4, sizeof(a11_v4), &s, &d), 0);
	ss_text(&s, t, sizeof(t), &port);
	assert_string_equal(t, "10.0.0.1");
	assert_int_equal(port, 5001);
	ss_text(&d, t, sizeof(t), &port);
	assert_string_equal(t, "10.0.0.2");
	assert_int_equal(port, 0);
	assert_int_equal(ibats_a11_decode(a11_v6, sizeof(a11_v6), &s, &d), 0);
	ss_text(&s, t, sizeof(t), &port);
	assert_string_equal(t, "fd00::1");
	assert_int_equal(port, 0x0102);
	/* Truncated at every length. */
	for (len = 0; len < IBATS_A11_LEN; len++)
		assert_int_equal(ibats_a11_decode(a11_v4, len, &s, &d), -EMSGSIZE);
	/* IP versions other than 4 and 6. */
	memcpy(buf, a11_v4, sizeof(buf));
	buf[1] = 0x50;
	assert_int_equal(ibats_a11_decode(buf, sizeof(buf), &s, &d), -EINVAL);
	/* IP version 0: the AF_IB form (40 bytes, "IBAT" at 36), so 36
	 * bytes are short and 40 without the tag are not it. */
	buf[1] = 0x00;
	assert_int_equal(ibats_a11_decode(buf, IBATS_A11_LEN, &s, &d), -EMSGSIZE);
	{
		uint8_t ib[40] = { 0 };

		memcpy(ib, a11_v4, IBATS_A11_LEN);
		ib[1] = 0x00;
		assert_int_equal(ibats_a11_decode(ib, sizeof(ib), &s, &d), -EINVAL);
	}
	/* A major version this code does not know; a minor one it ignores. */
	memcpy(buf, a11_v4, sizeof(buf));
	buf[0] = 0x10;
	assert_int_equal(ibats_a11_decode(buf, sizeof(buf), &s, &d), -EPROTONOSUPPORT);
	buf[0] = 0x01;
	assert_int_equal(ibats_a11_decode(buf, sizeof(buf), &s, &d), 0);
	/* Reserved bits and the octets before an IPv4 address are ignored. */
	memcpy(buf, a11_v4, sizeof(buf));
	buf[1] = 0x4f;
	memset(buf + 4, 0xff, 12);
	assert_int_equal(ibats_a11_decode(buf, sizeof(buf), &s, &d), 0);
	ss_text(&s, t, sizeof(t), &port);
	assert_string_equal(t, "10.0.0.1");
	assert_int_equal(ibats_a11_decode(NULL, 36, &s, &d), -EINVAL);
}

static struct ibats_record rec_of(const uint8_t *gid, uint64_t sid, const char *ip)
{
	struct ibats_record r = { .sid = sid, .pkey = 0xffff, .lease = IBATS_LEASE_INFINITE };

	memcpy(r.gid, gid, 16);
	r.primary = sid == IBATS_SID_PRIMARY;
	r.addr = ss_ip(ip, 0);
	return r;
}

static void test_peer_decide(void **state)
{
	struct ibats_record p = rec_of(gid_a, IBATS_SID_PRIMARY, "10.0.0.1");
	struct ibats_record none = p;
	struct sockaddr_storage ok = ss_ip("10.0.0.1", 4000), bad = ss_ip("10.0.0.9", 4000);
	struct sockaddr_storage mapped = ss_ip("::ffff:10.0.0.1", 1);
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	char why[160], tiny[8];

	(void)state;
	assert_int_equal(ibl_peer_decide(0, &p, SA(ok), why, sizeof(why)), 0);
	assert_non_null(strstr(why, "10.0.0.1"));
	assert_int_equal(ibl_peer_decide(0, &p, SA(mapped), why, sizeof(why)), 0);
	assert_int_equal(ibl_peer_decide(0, &p, SA(bad), why, sizeof(why)), -EACCES);
	assert_string_equal(why, "A11 source 10.0.0.9 is not the requester's ATS primary 10.0.0.1");
	assert_int_equal(ibl_peer_decide(-ENOENT, NULL, SA(bad), why, sizeof(why)), -ENOENT);
	assert_string_equal(why, "requester GID has no ATS primary address (claims 10.0.0.9)");
	assert_int_equal(ibl_peer_decide(-ETIMEDOUT, NULL, SA(ok), why, sizeof(why)), -ETIMEDOUT);
	assert_non_null(strstr(why, "the SA did not answer"));
	none.addr.ss_family = AF_UNSPEC;
	assert_int_equal(ibl_peer_decide(0, &none, SA(ok), why, sizeof(why)), -EACCES);
	assert_int_equal(ibl_peer_decide(0, &p, (struct sockaddr *)&un, why, sizeof(why)), -EINVAL);
	assert_int_equal(ibl_peer_decide(0, &p, NULL, why, sizeof(why)), -EINVAL);
	/* The reason is optional and never overflows. */
	assert_int_equal(ibl_peer_decide(0, &p, SA(bad), NULL, 0), -EACCES);
	assert_int_equal(ibl_peer_decide(0, &p, SA(bad), tiny, sizeof(tiny)), -EACCES);
	assert_int_equal(strlen(tiny), sizeof(tiny) - 1);
}

static void test_exit_code(void **state)
{
	(void)state;
	assert_int_equal(ibats_exit_code(0), 0);
	assert_int_equal(ibats_exit_code(36), 0);
	assert_int_equal(ibats_exit_code(-ENOENT), 1);
	assert_int_equal(ibats_exit_code(-EINVAL), 2);
	assert_int_equal(ibats_exit_code(-EAFNOSUPPORT), 2);
	assert_int_equal(ibats_exit_code(-ETIMEDOUT), 3);
	assert_int_equal(ibats_exit_code(-EIO), 3);
	assert_int_equal(ibats_exit_code(-ECONNREFUSED), 3);
	assert_int_equal(ibats_exit_code(-EACCES), 3);
}

static void test_record_from_sr(void **state)
{
	struct ats_ip ip;
	struct sr_record r;
	struct ibats_record out;
	char t[64];
	uint16_t port;

	(void)state;
	assert_int_equal(ats_ip_parse("10.1.2.3", &ip), 0);
	ats_record_init(&r, ATS_SID_PRIMARY + 1, gid_b, 0x8002, 600, &ip);
	ibl_record_from_sr(&r, &out);
	assert_true(out.sid == ATS_SID_PRIMARY + 1);
	assert_false(out.primary);
	assert_memory_equal(out.gid, gid_b, 16);
	assert_int_equal(out.pkey, 0x8002);
	assert_int_equal(out.lease, 600);
	ss_text(&out.addr, t, sizeof(t), &port);
	assert_string_equal(t, "10.1.2.3");
	/* ::ffff:a.b.c.d in ServiceData8 (ATS 3.1) is the same IPv4 host. */
	memset(r.data8, 0, 16);
	r.data8[10] = r.data8[11] = 0xff;
	r.data8[12] = 10;
	r.data8[15] = 7;
	r.id = ATS_SID_PRIMARY;
	ibl_record_from_sr(&r, &out);
	assert_true(out.primary);
	ss_text(&out.addr, t, sizeof(t), &port);
	assert_string_equal(t, "10.0.0.7");
	memset(r.data8, 0, 16);
	ibl_record_from_sr(&r, &out);
	assert_int_equal(out.addr.ss_family, AF_UNSPEC);
}

static void test_records_from_reply(void **state)
{
	char l0[] = "0x10000ce100415453 " GID_A " 0xffff 4294967295 10.0.0.1";
	char l1[] = "0x10000ce100415454 " GID_B " 0x8001 60 fd00::1";
	char bad[] = "0x10000ce100415453 nonsense";
	char *lines[2] = { l0, l1 };
	struct atsd_client_reply rep = { .ok = 1, .lines = lines, .nlines = 2 };
	struct ibats_record *r;
	char why[64];
	size_t n;

	(void)state;
	assert_int_equal(ibl_records_from_reply(&rep, &r, &n, why, sizeof(why)), 0);
	assert_string_equal(why, "");
	assert_int_equal(n, 2);
	assert_true(r[0].primary && r[0].sid == IBATS_SID_PRIMARY);
	assert_memory_equal(r[0].gid, gid_a, 16);
	assert_int_equal(r[1].pkey, 0x8001);
	assert_int_equal(r[1].lease, 60);
	assert_int_equal(r[1].addr.ss_family, AF_INET6);
	ibats_records_free(r);
	assert_int_equal(ibl_reply_local(&rep), 0);
	rep.nlines = 0;
	assert_int_equal(ibl_records_from_reply(&rep, &r, &n, why, sizeof(why)), -ENOENT);
	lines[1] = bad;
	rep.nlines = 2;
	assert_int_equal(ibl_records_from_reply(&rep, &r, &n, why, sizeof(why)), -EPROTO);
	assert_null(r);
	/* The garbled line, for the caller's message. */
	assert_string_equal(why, bad);
	rep.ok = 0;
	strcpy(rep.code, "ENOENT");
	strcpy(rep.message, "no ATS record");
	assert_int_equal(ibl_records_from_reply(&rep, &r, &n, why, sizeof(why)), -ENOENT);
	assert_string_equal(why, "no ATS record");
	strcpy(rep.code, "EBUSY");
	assert_int_equal(ibl_records_from_reply(&rep, &r, &n, why, sizeof(why)), -EBUSY);
	strcpy(rep.code, "ETIMEDOUT");
	assert_int_equal(ibl_records_from_reply(&rep, &r, &n, why, sizeof(why)), -ETIMEDOUT);
	strcpy(rep.code, "EWHATEVER");
	assert_int_equal(ibl_records_from_reply(&rep, &r, &n, why, sizeof(why)), -EIO);
}

static void test_open_opts(void **state)
{
	struct ibats_opts o = { 0 };
	struct ibats *h;
	char longpath[200];

	(void)state;
	assert_int_equal(ibats_open(&h, NULL), 0);
	ibats_close(h);
	ibats_close(NULL);
	o.reserved[1] = 1;
	assert_int_equal(ibats_open(&h, &o), -EINVAL);
	assert_null(h);
	o.reserved[1] = 0;
	o.flags = IBATS_NO_AGENT | IBATS_NO_SA;
	assert_int_equal(ibats_open(&h, &o), -EINVAL);
	o.flags = 0x80;
	assert_int_equal(ibats_open(&h, &o), -EINVAL);
	o.flags = IBATS_RMPP_ON | IBATS_RMPP_OFF;
	assert_int_equal(ibats_open(&h, &o), -EINVAL);
	/* IBATS_1.1: an SM_Key and an RMPP mode are options like the rest. */
	o.flags = IBATS_RMPP_OFF;
	o.sm_key = 0x5a5a;
	assert_int_equal(ibats_open(&h, &o), 0);
	assert_int_equal(ibats_lookup_info(h, NULL), -EINVAL);
	assert_int_equal(ibats_port_gid(h, NULL), -EINVAL);
	ibats_close(h);
	assert_int_equal(ibats_set_log(NULL, IBATS_LOG_INFO), -EINVAL);
	assert_int_equal(ibats_set_log("t", IBATS_LOG_DEBUG + 1), -EINVAL);
	assert_int_equal(ibats_set_log("ibats", IBATS_LOG_ERR), 0);
	o.flags = 0;
	memset(longpath, 'x', sizeof(longpath) - 1);
	longpath[sizeof(longpath) - 1] = '\0';
	o.socket_path = longpath;
	assert_int_equal(ibats_open(&h, &o), -ENAMETOOLONG);
	assert_int_equal(ibats_open(NULL, &o), -EINVAL);
}

/* A scripted atsd: answers the protocol's lookup lines from a table. */
enum agent_mode { AG_NORMAL, AG_CLOSE_AFTER_ANSWER, AG_HANG, AG_BUSY };

struct fake_agent {
	struct fake_sock_srv srv; /* first: fake_sock_teardown */
	enum agent_mode mode; /* atomic: the test sets it, the agent thread reads it */
	int accepts;
	int requests;
	char last[ATSD_PROTO_LINE_MAX];
	pthread_mutex_t lock;
};

static enum agent_mode fa_mode(struct fake_agent *fa)
{
	return __atomic_load_n(&fa->mode, __ATOMIC_RELAXED);
}

static void fa_set_mode(struct fake_agent *fa, enum agent_mode m)
{
	__atomic_store_n(&fa->mode, m, __ATOMIC_RELAXED);
}

static void fa_answer(struct fake_agent *fa, int fd, const char *req)
{
	char verb[16], arg[64], out[1024];
	unsigned pkey = 0;

	out[0] = '\0';
	if (sscanf(req, "%15s %63s %x", verb, arg, &pkey) != 3 || pkey != 0xffff) {
		snprintf(out, sizeof(out), "ERR EINVAL bad request\n");
	} else if (fa_mode(fa) == AG_BUSY) {
		snprintf(out, sizeof(out), "ERR EBUSY too many clients\n");
	} else if (!strcmp(verb, "resolve")) {
		if (!strcmp(arg, "10.9.9.9"))
			snprintf(out, sizeof(out), "ERR ENOENT no ATS record\n");
		else if (!strcmp(arg, "10.7.7.7")) /* the SA silent: atsd's own */
			snprintf(out, sizeof(out), "OK 1\n0x10000ce100415453 " GID_A
				 " 0xffff 4294967295 %s " ATSD_PROTO_REC_LOCAL "\n", arg);
		else
			snprintf(out, sizeof(out),
				 "OK 2\n0x10000ce100415453 " GID_A " 0xffff 4294967295 %s\n"
				 "0x10000ce100415454 " GID_B " 0xffff 60 %s\n", arg, arg);
	} else if (!strcmp(verb, "reverse") && !strcmp(arg, GID_A)) {
		snprintf(out, sizeof(out),
			 "OK 2\n0x10000ce100415453 " GID_A " 0xffff 4294967295 10.0.0.1\n"
			 "0x10000ce100415454 " GID_A " 0xffff 4294967295 fd00::1\n");
	} else if (!strcmp(verb, "primary") && !strcmp(arg, GID_A)) {
		snprintf(out, sizeof(out),
			 "OK 1\n0x10000ce100415453 " GID_A " 0xffff 4294967295 10.0.0.1\n");
	} else {
		snprintf(out, sizeof(out), "ERR ENOENT no ATS record\n");
	}
	if (write(fd, out, strlen(out)) < 0)
		return;
}

static void *fa_main(void *arg)
{
	struct fake_agent *fa = arg;
	int fd;

	while ((fd = accept(fa->srv.lfd, NULL, NULL)) >= 0) {
		char buf[ATSD_PROTO_LINE_MAX];
		size_t have = 0;
		ssize_t n;

		pthread_mutex_lock(&fa->lock);
		fa->accepts++;
		pthread_mutex_unlock(&fa->lock);
		while ((n = read(fd, buf + have, sizeof(buf) - 1 - have)) > 0) {
			char *nl;

			have += (size_t)n;
			buf[have] = '\0';
			while ((nl = strchr(buf, '\n'))) {
				*nl = '\0';
				pthread_mutex_lock(&fa->lock);
				fa->requests++;
				snprintf(fa->last, sizeof(fa->last), "%s", buf);
				pthread_mutex_unlock(&fa->lock);
				if (fa_mode(fa) != AG_HANG)
					fa_answer(fa, fd, buf);
				have -= (size_t)(nl + 1 - buf);
				memmove(buf, nl + 1, have + 1);
			}
			if (fa_mode(fa) == AG_CLOSE_AFTER_ANSWER)
				break;
		}
		close(fd);
	}
	return NULL;
}

static int fa_setup(void **state)
{
	struct fake_agent *fa = calloc(1, sizeof(*fa));

	assert_non_null(fa);
	pthread_mutex_init(&fa->lock, NULL);
	fake_sock_start(&fa->srv, fa_main, fa);
	*state = fa;
	return 0;
}

static struct ibats *fa_open(struct fake_agent *fa, unsigned flags, unsigned timeout_ms)
{
	struct ibats_opts o = { .socket_path = fa->srv.path, .flags = flags,
				.agent_timeout_ms = timeout_ms };
	struct ibats *h;

	assert_int_equal(ibats_open(&h, &o), 0);
	return h;
}

static int fa_count(struct fake_agent *fa, int *what)
{
	int v;

	pthread_mutex_lock(&fa->lock);
	v = *what;
	pthread_mutex_unlock(&fa->lock);
	return v;
}

static void test_agent_lookups(void **state)
{
	struct fake_agent *fa = *state;
	struct ibats *h = fa_open(fa, IBATS_NO_SA, 0);
	struct sockaddr_storage ip = ss_ip("::ffff:10.0.0.5", 0);
	struct ibats_record *r, p;
	struct sockaddr_ib sib;
	char t[64];
	uint16_t port;
	size_t n;

	assert_int_equal(ibats_resolve(h, "10.0.0.5", 0, &r, &n), 0);
	assert_string_equal(fa->last, "resolve 10.0.0.5 0xffff");
	assert_int_equal(n, 2);
	assert_true(r[0].primary);
	assert_memory_equal(r[0].gid, gid_a, 16);
	ss_text(&r[1].addr, t, sizeof(t), &port);
	assert_string_equal(t, "10.0.0.5");
	ibats_records_free(r);
	/* A sockaddr, IPv4-mapped: asked as the IPv4 address. */
	assert_int_equal(ibats_resolve_addr(h, SA(ip), 0, &r, &n), 0);
	assert_string_equal(fa->last, "resolve 10.0.0.5 0xffff");
	ibats_records_free(r);
	assert_int_equal(ibats_reverse(h, gid_a, 0, &r, &n), 0);
	assert_string_equal(fa->last, "reverse " GID_A " 0xffff");
	assert_int_equal(n, 2);
	ibats_records_free(r);
	assert_int_equal(ibats_primary(h, gid_a, 0xffff, &p), 0);
	assert_string_equal(fa->last, "primary " GID_A " 0xffff");
	ss_text(&p.addr, t, sizeof(t), &port);
	assert_string_equal(t, "10.0.0.1");
	assert_int_equal(ibats_primary(h, gid_b, 0, &p), -ENOENT);
	assert_int_equal(ibats_resolve(h, "10.9.9.9", 0, &r, &n), -ENOENT);
	assert_null(r);
	assert_int_equal(n, 0);
	assert_int_equal(ibats_resolve(h, "not-an-ip", 0, &r, &n), -EINVAL);
	/* The AF_IB address of the first (primary) holder. */
	assert_int_equal(ibats_sockaddr_ib(h, SA(ip), 5001, 0, &sib), 0);
	assert_memory_equal(sib.sib_addr.sib_raw, gid_a, 16);
	assert_true(be64toh(sib.sib_sid) == 0x0000000001061389ull);
	/* One connection for all of it. */
	assert_int_equal(fa_count(fa, &fa->accepts), 1);
	ibats_close(h);
}

static void test_agent_check_peer(void **state)
{
	struct fake_agent *fa = *state;
	struct ibats *h = fa_open(fa, IBATS_NO_SA, 0);
	struct sockaddr_storage ok = ss_ip("10.0.0.1", 9), bad = ss_ip("10.0.0.2", 9);
	char why[128];

	assert_int_equal(ibats_check_peer(h, gid_a, SA(ok), why, sizeof(why)), 0);
	assert_int_equal(ibats_check_peer(h, gid_a, SA(bad), why, sizeof(why)), -EACCES);
	assert_string_equal(why, "A11 source 10.0.0.2 is not the requester's ATS primary 10.0.0.1");
	assert_int_equal(ibats_check_peer(h, gid_b, SA(ok), why, sizeof(why)), -ENOENT);
	ibats_close(h);
}

/* atsd closed the connection (restart): the next request reconnects, and
 * the write to the dead socket raises no SIGPIPE (default action: the
 * test would die). */
static void test_agent_reconnect(void **state)
{
	struct fake_agent *fa = *state;
	struct ibats *h = fa_open(fa, IBATS_NO_SA, 0);
	struct ibats_record *r;
	size_t n;
	int i;

	signal(SIGPIPE, SIG_DFL);
	fa_set_mode(fa, AG_CLOSE_AFTER_ANSWER);
	for (i = 0; i < 3; i++) {
		assert_int_equal(ibats_resolve(h, "10.0.0.5", 0, &r, &n), 0);
		ibats_records_free(r);
		usleep(20000); /* let the agent close */
	}
	assert_int_equal(fa_count(fa, &fa->accepts), 3);
	fa_set_mode(fa, AG_NORMAL);
	ibats_close(h);
}

static void test_agent_failures(void **state)
{
	struct fake_agent *fa = *state;
	struct ibats_opts o = { .socket_path = "/nonexistent/atsd.sock", .flags = IBATS_NO_SA };
	struct ibats_info in;
	struct ibats *h;
	struct ibats_record *r;
	size_t n;

	/* No agent and no SA: a transport error, exit status 3. */
	assert_int_equal(ibats_open(&h, &o), 0);
	assert_int_equal(ibats_resolve(h, "10.0.0.5", 0, &r, &n), -ECONNREFUSED);
	assert_int_equal(ibats_exit_code(-ECONNREFUSED), 3);
	assert_int_equal(ibats_lookup_info(h, &in), 0);
	assert_int_equal(in.source, 0);
	assert_int_equal(in.agent_err, -ENOENT);
	ibats_close(h);
	/* An agent that never answers. */
	h = fa_open(fa, IBATS_NO_SA, 200);
	fa_set_mode(fa, AG_HANG);
	assert_int_equal(ibats_resolve(h, "10.0.0.5", 0, &r, &n), -ETIMEDOUT);
	fa_set_mode(fa, AG_BUSY);
	assert_int_equal(ibats_resolve(h, "10.0.0.5", 0, &r, &n), -EBUSY);
	fa_set_mode(fa, AG_NORMAL);
	assert_int_equal(ibats_resolve(h, "10.0.0.5", 0, &r, &n), 0);
	ibats_records_free(r);
	ibats_close(h);
	/* "Not found" from atsd is the answer: the SA is not asked (it
	 * would fail differently here, with no umad port). */
	h = fa_open(fa, 0, 0);
	assert_int_equal(ibats_resolve(h, "10.9.9.9", 0, &r, &n), -ENOENT);
	ibats_close(h);
}

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A hung atsd costs one timeout: the SA answers the next lookups without
 * atsd being asked (here the SA path fails fast: no umad port). */
static void test_agent_hung_backoff(void **state)
{
	struct fake_agent *fa = *state;
	struct ibats *h = fa_open(fa, 0, 300);
	struct ibats_record *r;
	int64_t t0;
	size_t n;
	int asked;

	fa_set_mode(fa, AG_HANG);
	t0 = mono_ms();
	assert_int_not_equal(ibats_resolve(h, "10.0.0.5", 0, &r, &n), 0);
	assert_true(mono_ms() - t0 >= 300);
	asked = fa_count(fa, &fa->requests);
	assert_int_equal(asked, 1);
	t0 = mono_ms();
	assert_int_not_equal(ibats_resolve(h, "10.0.0.5", 0, &r, &n), 0);
	assert_true(mono_ms() - t0 < 250);
	assert_int_equal(fa_count(fa, &fa->requests), asked);
	fa_set_mode(fa, AG_NORMAL);
	ibats_close(h);
}

static void *info_thr(void *p)
{
	struct ibats_record *r;
	size_t n;

	if (!ibats_resolve(p, "10.0.0.5", 0, &r, &n))
		ibats_records_free(r);
	return NULL;
}

/* ibats_lookup_info: who answered the calling thread's last lookup, and
 * atsd's words; a busy or absent atsd leaves the SA to answer (it fails
 * here: no umad port) and says why. */
static void test_lookup_info(void **state)
{
	struct fake_agent *fa = *state;
	struct ibats_opts o = { .socket_path = "/nonexistent/atsd.sock" };
	struct ibats *h = fa_open(fa, 0, 0), *h2;
	struct ibats_record *r;
	struct ibats_info in;
	pthread_t t;
	size_t n;

	assert_int_equal(ibats_lookup_info(h, &in), -ENOENT);
	assert_int_equal(ibats_resolve(h, "10.0.0.5", 0, &r, &n), 0);
	ibats_records_free(r);
	assert_int_equal(ibats_lookup_info(h, &in), 0);
	assert_int_equal(in.source, IBATS_BY_AGENT);
	assert_int_equal(in.agent_err, 0);
	assert_string_equal(in.agent_msg, "");
	assert_int_equal(in.flags, 0);
	/* A local answer (ATS 5.1): the records, flagged. */
	assert_int_equal(ibats_resolve(h, "10.7.7.7", 0, &r, &n), 0);
	assert_int_equal(n, 1);
	assert_true(r[0].primary);
	ibats_records_free(r);
	assert_int_equal(ibats_lookup_info(h, &in), 0);
	assert_int_equal(in.source, IBATS_BY_AGENT);
	assert_int_equal(in.flags, IBATS_INFO_LOCAL);
	assert_int_equal(ibats_resolve(h, "10.9.9.9", 0, &r, &n), -ENOENT);
	/* Another thread's lookup on the same handle is its own. */
	assert_int_equal(pthread_create(&t, NULL, info_thr, h), 0);
	pthread_join(t, NULL);
	assert_int_equal(ibats_lookup_info(h, &in), 0);
	assert_int_equal(in.source, IBATS_BY_AGENT);
	assert_string_equal(in.agent_msg, "no ATS record");
	fa_set_mode(fa, AG_BUSY);
	assert_int_not_equal(ibats_resolve(h, "10.0.0.5", 0, &r, &n), 0);
	assert_int_equal(ibats_lookup_info(h, &in), 0);
	assert_int_equal(in.source, IBATS_BY_SA);
	assert_int_equal(in.agent_err, -EBUSY);
	assert_string_equal(in.agent_msg, "too many clients");
	assert_int_equal(in.sa_failed, IBATS_SA_PORT);
	fa_set_mode(fa, AG_NORMAL);
	/* The last lookup was on h, not h2. */
	assert_int_equal(ibats_open(&h2, &o), 0);
	assert_int_equal(ibats_lookup_info(h2, &in), -ENOENT);
	assert_int_not_equal(ibats_resolve(h2, "10.0.0.5", 0, &r, &n), 0);
	assert_int_equal(ibats_lookup_info(h2, &in), 0);
	assert_int_equal(in.source, IBATS_BY_SA);
	assert_int_equal(in.agent_err, -ENOENT); /* no socket */
	assert_int_equal(ibats_lookup_info(h, &in), -ENOENT);
	ibats_close(h2);
	ibats_close(h);
}

struct thr_arg {
	struct ibats *h;
	int id;
	int bad;
};

static void *thr_main(void *p)
{
	struct thr_arg *a = p;
	char ip[32], t[64];
	uint16_t port;
	int i;

	for (i = 0; i < 100; i++) {
		struct ibats_record *r;
		size_t n;

		snprintf(ip, sizeof(ip), "10.%d.%d.1", a->id, i);
		if (ibats_resolve(a->h, ip, 0, &r, &n) || n != 2) {
			a->bad++;
			continue;
		}
		ss_text(&r[0].addr, t, sizeof(t), &port);
		if (strcmp(t, ip))
			a->bad++; /* someone else's answer */
		ibats_records_free(r);
	}
	return NULL;
}

static void test_agent_threads(void **state)
{
	struct fake_agent *fa = *state;
	struct ibats *h = fa_open(fa, IBATS_NO_SA, 0);
	struct thr_arg a[6];
	pthread_t t[6];
	int i;

	for (i = 0; i < 6; i++) {
		a[i] = (struct thr_arg){ .h = h, .id = i + 1 };
		assert_int_equal(pthread_create(&t[i], NULL, thr_main, &a[i]), 0);
	}
	for (i = 0; i < 6; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(a[i].bad, 0);
	}
	ibats_close(h);
}

/* A case against the fake agent: fa_setup() before it, fake_sock_teardown() after. */
#define AGENT_TEST(f) cmocka_unit_test_setup_teardown(f, fa_setup, fake_sock_teardown)

TEST_MAIN(
	cmocka_unit_test(test_sid_layout),
	cmocka_unit_test(test_info_layout),
	cmocka_unit_test(test_sockaddr_ib_fill),
	cmocka_unit_test(test_a11_encode),
	cmocka_unit_test(test_a11_decode),
	cmocka_unit_test(test_peer_decide),
	cmocka_unit_test(test_exit_code),
	cmocka_unit_test(test_record_from_sr),
	cmocka_unit_test(test_records_from_reply),
	cmocka_unit_test(test_open_opts),
	AGENT_TEST(test_agent_lookups),
	AGENT_TEST(test_agent_check_peer),
	AGENT_TEST(test_agent_reconnect),
	AGENT_TEST(test_agent_failures),
	AGENT_TEST(test_lookup_info),
	AGENT_TEST(test_agent_hung_backoff),
	AGENT_TEST(test_agent_threads))
