/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Local answers while the SA does not answer (DAT ATS 5.1): when they
 * stand in, what the host knows (its addresses on its GID, a peer's
 * default GID written as IPv6), and nothing else. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <cmocka.h>

#include "core/ats.h"
#include "model/nosa.h"
#include "fixture.h"

#define OUR_GID "fe80::2:c903:0:1"
#define PEER_GID "fe80::2:c903:0:9"

static struct plan_held_rec recs[3];
static uint8_t gid[16];
static struct nosa_self self;

static int setup(void **state)
{
	(void)state;
	memset(recs, 0, sizeof(recs));
	assert_int_equal(ats_gid_parse(OUR_GID, gid), 0);
	assert_int_equal(ats_ip_parse("10.0.0.1", &recs[0].ip), 0);
	recs[0].sid = ATS_SID_PRIMARY;
	recs[0].pkey = 0xffff;
	assert_int_equal(ats_ip_parse("10.0.0.2", &recs[1].ip), 0);
	recs[1].sid = ATS_SID_PRIMARY + 1;
	recs[1].pkey = 0xffff;
	assert_int_equal(ats_ip_parse("10.1.0.1", &recs[2].ip), 0);
	recs[2].sid = ATS_SID_PRIMARY;
	recs[2].pkey = 0x8001;
	self.gid = gid;
	self.recs = recs;
	self.nrecs = 3;
	return 0;
}

/* The SA silent (timed out after its retries, port down or no SM) is
 * the only case; an SA that answers, even "no record", is authoritative. */
static void test_applies(void **state)
{
	(void)state;
	assert_true(nosa_applies(-ETIMEDOUT));
	assert_true(nosa_applies(-ENETDOWN));
	/* The SM port's kernel has no SA agent: "unsupported". */
	assert_true(nosa_applies(-EOPNOTSUPP));
	/* An SA status of the SA class is an answer. */
	assert_false(nosa_applies(-EACCES));
	assert_false(nosa_applies(0));
	assert_false(nosa_applies(-ENOENT));
	assert_false(nosa_applies(-EIO));
	assert_false(nosa_applies(-ENOMEM));
}

static void test_forward_own(void **state)
{
	struct ats_query_lookup q = { .kind = ATS_QUERY_FORWARD, .pkey = 0xffff };
	struct sr_record *r;
	char ip[ATS_IP_STRLEN];
	size_t n;

	(void)state;
	assert_int_equal(ats_ip_parse("10.0.0.2", &q.ip), 0);
	assert_int_equal(nosa_answer(&q, &self, &r, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(r[0].id, ATS_SID_PRIMARY + 1);
	assert_memory_equal(r[0].gid, gid, 16);
	assert_int_equal(r[0].pkey, 0xffff);
	assert_string_equal(ats_data8_str(r[0].data8, ip, sizeof(ip)), "10.0.0.2");
	assert_true(ats_name_is_ats(r[0].name));
	free(r);
	/* The limited member form of the partition matches too. */
	q.pkey = 0x7fff;
	assert_int_equal(nosa_answer(&q, &self, &r, &n), 0);
	free(r);
	/* Another partition's address is not ours there. */
	q.pkey = 0x8002;
	assert_int_equal(nosa_answer(&q, &self, &r, &n), -ENOENT);
}

static void test_forward_default_gid(void **state)
{
	struct ats_query_lookup q = { .kind = ATS_QUERY_FORWARD, .pkey = 0xffff };
	struct sr_record *r;
	uint8_t peer[16];
	size_t n;

	(void)state;
	assert_int_equal(ats_gid_parse(PEER_GID, peer), 0);
	assert_int_equal(ats_ip_parse(PEER_GID, &q.ip), 0);
	assert_int_equal(nosa_answer(&q, &self, &r, &n), 0);
	assert_int_equal(n, 1);
	assert_memory_equal(r[0].gid, peer, 16);
	assert_int_equal(r[0].id, ATS_SID_PRIMARY);
	free(r);
	/* Another subnet prefix, an IPv4 address, an unknown one: nothing. */
	assert_int_equal(ats_ip_parse("fec0::2:c903:0:9", &q.ip), 0);
	assert_int_equal(nosa_answer(&q, &self, &r, &n), -ENOENT);
	assert_int_equal(ats_ip_parse("10.9.9.9", &q.ip), 0);
	assert_int_equal(nosa_answer(&q, &self, &r, &n), -ENOENT);
	/* Our own GID as an address is not an address of ours. */
	assert_int_equal(ats_ip_parse(OUR_GID, &q.ip), 0);
	assert_int_equal(nosa_answer(&q, &self, &r, &n), -ENOENT);
}

static void test_reverse_primary(void **state)
{
	struct ats_query_lookup q = { .kind = ATS_QUERY_REVERSE, .pkey = 0xffff };
	struct sr_record *r;
	char ip[ATS_IP_STRLEN];
	size_t n;

	(void)state;
	memcpy(q.gid, gid, 16);
	assert_int_equal(nosa_answer(&q, &self, &r, &n), 0);
	assert_int_equal(n, 2);
	free(r);
	q.kind = ATS_QUERY_PRIMARY;
	assert_int_equal(nosa_answer(&q, &self, &r, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(ats_data8_str(r[0].data8, ip, sizeof(ip)), "10.0.0.1");
	free(r);
	/* A peer's default GID: its IPv6 form. */
	assert_int_equal(ats_gid_parse(PEER_GID, q.gid), 0);
	assert_int_equal(nosa_answer(&q, &self, &r, &n), 0);
	assert_string_equal(ats_data8_str(r[0].data8, ip, sizeof(ip)), PEER_GID);
	free(r);
	/* Our GID without addresses: nothing. */
	memcpy(q.gid, gid, 16);
	self.nrecs = 0;
	q.kind = ATS_QUERY_REVERSE;
	assert_int_equal(nosa_answer(&q, &self, &r, &n), -ENOENT);
}

/* What an exchange says of the SA: silence is a timeout, the port down,
 * or the SM's port answering "unsupported" (mad.c generate_unmatched_resp,
 * status 0x000C); an answer is any SA status of its own, busy included;
 * atsd's own "not supported" (no RMPP, no CM) is no evidence. */
static void test_evidence(void **state)
{
	(void)state;
	assert_int_equal(nosa_evidence(-ETIMEDOUT, 0), NOSA_EV_SILENT);
	assert_int_equal(nosa_evidence(-ENETDOWN, 0), NOSA_EV_SILENT);
	assert_int_equal(nosa_evidence(-EOPNOTSUPP, 0x000c), NOSA_EV_SILENT);
	assert_int_equal(nosa_evidence(-EOPNOTSUPP, 0), NOSA_EV_NONE);
	assert_int_equal(nosa_evidence(0, 0), NOSA_EV_ANSWERED);
	assert_int_equal(nosa_evidence(-ENOENT, 0x0300), NOSA_EV_ANSWERED);
	assert_int_equal(nosa_evidence(-EACCES, 0x0700), NOSA_EV_ANSWERED);
	assert_int_equal(nosa_evidence(-EBUSY, 0x0001), NOSA_EV_ANSWERED);
	assert_int_equal(nosa_evidence(-EIO, 0), NOSA_EV_NONE);
	assert_int_equal(nosa_evidence(-ENOMEM, 0), NOSA_EV_NONE);
	assert_int_equal(nosa_evidence(-EPROTO, 0), NOSA_EV_NONE);
}

/* While the SA is down, what the host knows is answered at once, with
 * one SA lookup at a time in the background; the rest, and everything
 * while the SA answers, goes to the SA. */
static void test_route(void **state)
{
	(void)state;
	assert_int_equal(nosa_route(0, 1, 0), NOSA_ASK);
	assert_int_equal(nosa_route(0, 0, 1), NOSA_ASK);
	assert_int_equal(nosa_route(1, 0, 0), NOSA_ASK);
	assert_int_equal(nosa_route(1, 0, 1), NOSA_ASK);
	assert_int_equal(nosa_route(1, 1, 0), NOSA_LOCAL_PROBE);
	assert_int_equal(nosa_route(1, 1, 1), NOSA_LOCAL);
}

TEST_MAIN(
	cmocka_unit_test(test_applies),
	cmocka_unit_test(test_evidence),
	cmocka_unit_test(test_route),
	cmocka_unit_test_setup(test_forward_own, setup),
	cmocka_unit_test_setup(test_forward_default_gid, setup),
	cmocka_unit_test_setup(test_reverse_primary, setup))
