/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The SM query MADs (lib/core/smq.h): golden bytes laid out by hand from
 * the offsets in doc/design.md, round trips, paging, short and foreign
 * MADs, the standbys' list to trusted requesters only, and the reasons
 * in words. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "core/ats.h"
#include "core/sa.h"
#include "core/smq.h"
#include "fixture.h"

#define TID_BYTES 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08

/* Get of SMINFO page 2 with a key. Vendor range 2 (IBTA Vol 1 13.4.2,
 * Table 149): RMPP header 24..35 zero, OUI at 37, class data from 40. */
static const uint8_t info_req_golden[MAD_SIZE] = {
	[0] = 0x01, 0x36, 0x01, 0x01,                     /* v1, class 0x36 v1, Get */
	[16] = 0xff, 0x21, 0x00, 0x00,                    /* attribute SMINFO */
	[20] = 0x00, 0x00, 0x00, 0x02,                    /* page 2 */
	[37] = 0x00, 0x14, 0x05,                          /* OpenIB OUI */
	[40] = 0x00, 0x00, 0x00, 0x00, 0x00, 0x5e, 0xc1, 0x2e, /* key */
};

/* The answer to a REFUSALS Get of page 0: one duplicate-address refusal
 * of 10.0.0.5 (ATS's IPv4 form in ServiceData8) by fe80::2, owner fe80::1. */
static const uint8_t refusals_golden[MAD_SIZE] = {
	[0] = 0x01, 0x36, 0x01, 0x81,                     /* GetResp */
	[8] = TID_BYTES,
	[16] = 0xff, 0x20, 0x00, 0x00,
	[37] = 0x00, 0x14, 0x05,
	[40] = 0x03, 0x01, 0x00, 0x00,                    /* 3 held, 1 here */
	[44] = 0x00, 0x00, 0x00, 0x09,                    /* gen 9 */
	[48] = 0x00, 0x00, 0x00, 0x0c,                    /* 12 s ago */
	[52] = 0x7a, 0x08, 0x02, 0x01,                    /* 7A08, Set, owner shown */
	[56] = 0x7f, 0xff, 0x02, 0x00,                    /* P_Key, REQ_INVALID */
	[60] = 0xff, 0xff, 0xff, 0xff,                    /* lease */
	[64] = 0x10, 0x00, 0x0c, 0xe1, 0x00, 0x41, 0x54, 0x53, /* SID */
	[72] = 0xfe, 0x80, [87] = 0x02,                   /* GID fe80::2 */
	[88 + 12] = 10, 0, 0, 5,                          /* IPv4 in octets 12..15 */
	[104] = 0xfe, 0x80, [119] = 0x01,                 /* owner fe80::1 */
	[120] = 0, 0, 0, 0, 0, 0, 0, 0,                   /* detail */
	[128] = 'd', 'u', 'p', 'l', 'i', 'c', 'a', 't', 'e', '-',
		'a', 'd', 'd', 'r', 'e', 's', 's',
};

/* The answer to a STANDBYS Get of page 0, trusted: a master at epoch
 * 0x1122334455667788, head 42, with one standby in sync and one 12
 * changes behind. */
static const uint8_t standbys_golden[MAD_SIZE] = {
	[0] = 0x01, 0x36, 0x01, 0x81,                     /* GetResp */
	[8] = TID_BYTES,
	[16] = 0xff, 0x22, 0x00, 0x00,                    /* attribute STANDBYS, page 0 */
	[37] = 0x00, 0x14, 0x05,
	[40] = 0x02, 0x02, 0x01, 0x00,                    /* 2 held, 2 here, trusted */
	[48] = 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, /* epoch */
	[56] = 0, 0, 0, 0, 0, 0, 0, 42,                   /* head */
	[64] = 0x00, 0x02, 0xc9, 0x03, 0x00, 0x00, 0x00, 0x03, /* GUID */
	[72] = 0, 0, 0, 0, 0, 0, 0, 42,                   /* acked */
	[80] = 0x00, 0x00, 0x00, 0x78,                    /* seen 120 ms ago */
	[84] = 0x01,                                      /* in sync */
	[88] = 0x00, 0x02, 0xc9, 0x03, 0x00, 0x00, 0x00, 0x04,
	[96] = 0, 0, 0, 0, 0, 0, 0, 30,
	[104] = 0x00, 0x01, 0x86, 0xa0,                   /* 100000 ms */
	[108] = 0x00,
};

static void sample(struct smq_refusal *r)
{
	memset(r, 0, sizeof(*r));
	r->age_s = 12;
	r->code = 0x7A08;
	r->method = SA_METHOD_SET;
	r->flags = SMQ_OWNER_SHOWN;
	r->pkey = 0x7fff;
	r->status = 0x0200;
	r->lease = 0xffffffffu;
	r->sid = 0x10000CE100415453ull;
	r->gid[0] = 0xfe, r->gid[1] = 0x80, r->gid[15] = 0x02;
	r->data8[12] = 10, r->data8[15] = 5;
	r->owner[0] = 0xfe, r->owner[1] = 0x80, r->owner[15] = 0x01;
	strcpy(r->name, "duplicate-address");
}

static void test_request_golden(void **state)
{
	uint8_t mad[MAD_SIZE];
	uint16_t attr;
	uint32_t page;
	uint64_t key;

	(void)state;
	smq_request_encode(mad, SMQ_ATTR_SMINFO, 2, 0x5ec12eull);
	assert_memory_equal(mad, info_req_golden, MAD_SIZE);
	assert_int_equal(smq_request_decode(mad, MAD_SIZE, &attr, &page, &key), 0);
	assert_int_equal(attr, SMQ_ATTR_SMINFO);
	assert_int_equal(page, 2);
	assert_int_equal(key, 0x5ec12eull);
	assert_int_equal(smq_request_decode(mad, MAD_SIZE - 1, &attr, &page, &key), -EMSGSIZE);
	mad[1] = 0x35; /* replication's class */
	assert_int_equal(smq_request_decode(mad, MAD_SIZE, &attr, &page, &key), -EPROTO);
	mad[1] = 0x36;
	mad[39] = 0x06; /* another OUI */
	assert_int_equal(smq_request_decode(mad, MAD_SIZE, &attr, &page, &key), -EPROTO);
	mad[39] = 0x05;
	mad[3] = 0x81; /* an answer is no request */
	assert_int_equal(smq_request_decode(mad, MAD_SIZE, &attr, &page, &key), -EPROTO);
}

static void test_refusals_golden(void **state)
{
	uint8_t req[MAD_SIZE], resp[MAD_SIZE];
	struct smq_refusal r, out[SMQ_REFUSALS_PER_MAD];
	unsigned total;
	uint32_t gen;
	uint16_t st;
	size_t n;

	(void)state;
	sample(&r);
	smq_request_encode(req, SMQ_ATTR_REFUSALS, 0, 0);
	memcpy(req + 8, (const uint8_t[]){ TID_BYTES }, 8);
	memset(req + 40, 0xaa, MAD_SIZE - 40); /* a request's data never echoes */
	smq_answer_init(resp, req, 0);
	smq_refusals_put(resp, 3, 9, &r, 1);
	assert_memory_equal(resp, refusals_golden, MAD_SIZE);
	assert_int_equal(smq_refusals_get(resp, MAD_SIZE, &st, &total, &gen, out, &n), 0);
	assert_int_equal(st, 0);
	assert_int_equal(total, 3);
	assert_int_equal(gen, 9);
	assert_int_equal(n, 1);
	assert_memory_equal(&out[0], &r, sizeof(r));
	/* A name with control bytes reaches no terminal as such. */
	strcpy(r.name, "new\x1b[rule");
	smq_refusals_put(resp, 3, 9, &r, 1);
	assert_int_equal(smq_refusals_get(resp, MAD_SIZE, &st, &total, &gen, out, &n), 0);
	assert_string_equal(out[0].name, "new?[rule");
	/* More entries than a MAD holds: refused. */
	resp[41] = 3;
	assert_int_equal(smq_refusals_get(resp, MAD_SIZE, &st, &total, &gen, out, &n), -EBADMSG);
	/* BUSY: the status, no entries. */
	smq_answer_init(resp, req, MAD_STATUS_BUSY);
	assert_int_equal(smq_refusals_get(resp, MAD_SIZE, &st, &total, &gen, out, &n), 0);
	assert_int_equal(st, MAD_STATUS_BUSY);
	assert_int_equal(n, 0);
	assert_int_equal(smq_refusals_get(resp, 100, &st, &total, &gen, out, &n), -EMSGSIZE);
}

static void test_info_pages(void **state)
{
	uint8_t req[MAD_SIZE], resp[MAD_SIZE];
	struct smq_info in, out;
	unsigned pages, p;
	uint16_t st;
	size_t i;

	(void)state;
	memset(&in, 0, sizeof(in));
	in.flags = SMQ_INFO_TRUSTED;
	in.role = SMQ_ROLE_STANDBY;
	in.sm_state = 2;
	in.in_sync = 1;
	in.ats = 100000;
	in.other = 7;
	in.absent = 3;
	in.head = 42;
	in.applied = 41;
	in.lag_ms = 250;
	in.epoch = 0x1122334455667788ull;
	in.accepted = 9;
	in.flushed = 2;
	in.copy = 99999;
	strcpy(in.version, "1.2.3");
	strcpy(in.opensm, "OpenSM 3.3.23");
	for (i = 0; i < 11; i++) {
		snprintf(in.rules[i].name, sizeof(in.rules[i].name), "rule-%zu", i);
		in.rules[i].code = (uint16_t)(0x7A01 + i);
		in.rules[i].rejected = i * 1000;
		in.rules[i].warned = i;
	}
	in.nrules = 11;
	assert_int_equal(smq_info_pages(&in), 4); /* page 0, then 4 + 4 + 3 rules */
	for (p = 0; p < 4; p++) {
		smq_request_encode(req, SMQ_ATTR_SMINFO, p, 0);
		smq_answer_init(resp, req, 0);
		smq_info_put(resp, p, &in);
		if (p == 0) {
			/* Offsets by hand: role 48, ATS count 56, version 72. */
			assert_int_equal(resp[48], SMQ_ROLE_STANDBY);
			assert_int_equal(resp[62], 0x86);
			assert_int_equal(resp[63], 0xa0);
			assert_memory_equal(resp + 72, "1.2.3", 6);
			assert_int_equal(resp[136], 1);
			/* a standby's copy at 208 (99999 = 0x01869f) */
			assert_int_equal(resp[213], 0x01);
			assert_int_equal(resp[214], 0x86);
			assert_int_equal(resp[215], 0x9f);
		} else
			assert_int_equal(resp[41], p < 3 ? 4 : 3);
		assert_int_equal(smq_info_get(resp, MAD_SIZE, p, &st, &pages, &out), 0);
		assert_int_equal(pages, 4);
	}
	assert_memory_equal(&out, &in, sizeof(in));
	/* Untrusted: one page, the public part only. */
	in.flags = 0;
	smq_request_encode(req, SMQ_ATTR_SMINFO, 0, 0);
	smq_answer_init(resp, req, 0);
	smq_info_put(resp, 0, &in);
	assert_int_equal(smq_info_get(resp, MAD_SIZE, 0, &st, &pages, &out), 0);
	assert_int_equal(pages, 1);
	assert_int_equal(out.ats, 100000);
	assert_int_equal(out.head, 0);
	assert_int_equal(out.absent, 0);
	assert_int_equal(out.copy, 0);
	assert_int_equal(out.nrules, 0);
	/* An answer to another page than asked: refused. */
	assert_int_equal(smq_info_get(resp, MAD_SIZE, 1, &st, &pages, &out), -EPROTO);
}

static void test_standbys_golden(void **state)
{
	uint8_t req[MAD_SIZE], resp[MAD_SIZE];
	struct smq_standbys in, out;
	uint16_t st;
	size_t i;

	(void)state;
	memset(&in, 0, sizeof(in));
	in.flags = SMQ_INFO_TRUSTED;
	in.epoch = 0x1122334455667788ull;
	in.head = 42;
	in.s[0] = (struct smq_standby){ 0x0002c90300000003ull, 42, 0, 120, 1 };
	in.s[1] = (struct smq_standby){ 0x0002c90300000004ull, 30, 12, 100000, 0 };
	in.n = 2;
	smq_request_encode(req, SMQ_ATTR_STANDBYS, 0, 0x5ec12eull);
	memcpy(req + 8, (const uint8_t[]){ TID_BYTES }, 8);
	smq_answer_init(resp, req, 0);
	smq_standbys_put(resp, 0, &in);
	assert_memory_equal(resp, standbys_golden, MAD_SIZE);
	assert_int_equal(smq_standbys_get(resp, MAD_SIZE, 0, &st, &out), 0);
	assert_int_equal(st, 0);
	assert_int_equal(out.total, 2);
	assert_int_equal(out.flags, SMQ_INFO_TRUSTED);
	assert_int_equal(out.epoch, in.epoch);
	assert_int_equal(out.head, 42);
	assert_int_equal(out.n, 2);
	for (i = 0; i < 2; i++) {
		/* behind is not sent: the page's head minus the ack. */
		assert_int_equal(out.s[i].guid, in.s[i].guid);
		assert_int_equal(out.s[i].acked, in.s[i].acked);
		assert_int_equal(out.s[i].behind, in.s[i].behind);
		assert_int_equal(out.s[i].seen_ms, in.s[i].seen_ms);
		assert_int_equal(out.s[i].in_sync, in.s[i].in_sync);
	}
	/* An acked past the head (a hostile SM) is no negative lag. */
	resp[72 + 6] = 0x01;
	assert_int_equal(smq_standbys_get(resp, MAD_SIZE, 0, &st, &out), 0);
	assert_int_equal(out.s[0].behind, 0);
	/* More entries than a page, or than a host keeps: refused. */
	resp[41] = SMQ_STANDBYS_PER_MAD + 1;
	assert_int_equal(smq_standbys_get(resp, MAD_SIZE, 0, &st, &out), -EBADMSG);
	smq_request_encode(req, SMQ_ATTR_STANDBYS, 1, 0);
	smq_answer_init(resp, req, 0);
	resp[40] = 9, resp[41] = 1, resp[42] = SMQ_INFO_TRUSTED;
	assert_int_equal(smq_standbys_get(resp, MAD_SIZE, 1, &st, &out), -EBADMSG);
	/* An answer to another page, or of another attribute: refused. */
	assert_int_equal(smq_standbys_get(resp, MAD_SIZE, 0, &st, &out), -EPROTO);
	assert_int_equal(smq_standbys_get(standbys_golden, MAD_SIZE, 0, &st, &out), 0);
	smq_request_encode(req, SMQ_ATTR_SMINFO, 0, 0);
	smq_answer_init(resp, req, 0);
	assert_int_equal(smq_standbys_get(resp, MAD_SIZE, 0, &st, &out), -EPROTO);
	/* BUSY: the status, no entries. */
	smq_request_encode(req, SMQ_ATTR_STANDBYS, 0, 0);
	smq_answer_init(resp, req, MAD_STATUS_BUSY);
	assert_int_equal(smq_standbys_get(resp, MAD_SIZE, 0, &st, &out), 0);
	assert_int_equal(st, MAD_STATUS_BUSY);
	assert_int_equal(out.n, 0);
}

/* Untrusted: the count and flags zero, nothing else, whatever the
 * master holds. */
static void test_standbys_untrusted(void **state)
{
	uint8_t req[MAD_SIZE], resp[MAD_SIZE], zero[MAD_SIZE - 40];
	struct smq_standbys in, out;
	uint16_t st;

	(void)state;
	memset(&in, 0, sizeof(in));
	memset(zero, 0, sizeof(zero));
	in.head = 42;
	in.epoch = 7;
	smq_request_encode(req, SMQ_ATTR_STANDBYS, 0, 0);
	smq_answer_init(resp, req, 0);
	smq_standbys_put(resp, 0, &in);
	assert_memory_equal(resp + 40, zero, sizeof(zero));
	assert_int_equal(smq_standbys_get(resp, MAD_SIZE, 0, &st, &out), 0);
	assert_int_equal(out.flags, 0);
	assert_int_equal(out.n, 0);
	assert_int_equal(out.head, 0);
}

static void test_reason_words(void **state)
{
	struct smq_refusal r;
	char buf[320];

	(void)state;
	sample(&r);
	assert_string_equal(smq_refusal_str(&r, buf, sizeof(buf)),
			    "rule duplicate-address (7A08): 10.0.0.5 is the primary address of "
			    "fe80::1 in P_Key 0x7fff");
	r.flags = SMQ_OWNER_WITHHELD;
	memset(r.owner, 0, sizeof(r.owner));
	smq_refusal_str(&r, buf, sizeof(buf));
	assert_non_null(strstr(buf, "another port (not shown"));
	assert_null(strstr(buf, "fe80::1"));
	r.code = 0x7A09;
	strcpy(r.name, "lease");
	r.lease = 5;
	r.detail = (uint64_t)60 << 32 | 3600;
	assert_string_equal(smq_refusal_str(&r, buf, sizeof(buf)),
			    "rule lease (7A09): lease 5 s outside 60..3600");
	r.code = 0x7A06;
	r.method = SA_METHOD_DELETE;
	r.detail = 2;
	strcpy(r.name, "primary-first");
	assert_string_equal(smq_refusal_str(&r, buf, sizeof(buf)),
			    "rule primary-first (7A06): GID fe80::2 holds 2 other record(s) in "
			    "P_Key 0x7fff; delete those first");
	r.code = 0x7AEE; /* a rule of a newer plugin: its name and code */
	strcpy(r.name, "future-rule");
	assert_string_equal(smq_refusal_str(&r, buf, sizeof(buf)), "rule future-rule (7AEE)");
}

TEST_MAIN(
	cmocka_unit_test(test_request_golden),
	cmocka_unit_test(test_refusals_golden),
	cmocka_unit_test(test_info_pages),
	cmocka_unit_test(test_standbys_golden),
	cmocka_unit_test(test_standbys_untrusted),
	cmocka_unit_test(test_reason_words))
