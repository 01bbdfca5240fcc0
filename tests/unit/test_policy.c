/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "golden.h"
#include "plugin/policy.h"
#include "core/sa.h"
#include "fixture.h"

#define SYS_A 0x1000ull
#define SYS_B 0x2000ull

static struct rule_config cfg;

static int setup(void **state)
{
	(void)state;
	rule_config_default(&cfg);
	return 0;
}

/* A Set of the golden record (primary 192.168.1.10 on GID ...b1c2) from
 * the port that owns the GID. */
static void make_set(uint8_t *mad)
{
	memset(mad, 0, MAD_SIZE);
	memcpy(mad, golden_sa_set_hdr, sizeof(golden_sa_set_hdr));
	memcpy(mad + SA_OFF_DATA, golden_sr_v4, sizeof(golden_sr_v4));
}

static void make_req(struct policy_request *req, uint8_t method, uint64_t sid,
		     const char *ip)
{
	uint8_t mad[MAD_SIZE];
	struct ats_ip a;

	make_set(mad);
	mad[MAD_OFF_METHOD] = method;
	assert_int_equal(policy_request_decode(mad, sizeof(mad), req), 0);
	req->rec.id = sid;
	assert_int_equal(ats_ip_parse(ip, &a), 0);
	ats_ip_encode(&a, req->rec.data8);
	req->owns_gid = req->req_has_pkey = req->gid_has_pkey = 1;
	req->sys_guid = SYS_A;
}

static void make_peer(struct policy_peer *p, const struct policy_request *like,
		      uint64_t sid, const char *ip, uint8_t gid_last, uint64_t sys)
{
	struct ats_ip a;

	p->rec = like->rec;
	p->rec.id = sid;
	p->rec.gid[15] = gid_last;
	assert_int_equal(ats_ip_parse(ip, &a), 0);
	ats_ip_encode(&a, p->rec.data8);
	p->sys_guid = sys;
}

#define OWN 0xc2 /* last GID byte of the golden record */

static enum rule decide(const struct policy_request *req,
			    const struct policy_peer *peers, size_t n,
			    struct policy_decision *d)
{
	policy_decide(&cfg, req, peers, n, d);
	return d->rule;
}

static void test_valid_primary_passes(void **state)
{
	struct policy_request req;
	struct policy_decision d;

	(void)state;
	make_req(&req, SA_METHOD_SET, ATS_SID_PRIMARY, "192.168.1.10");
	assert_int_equal(decide(&req, NULL, 0, &d), RULE_PASS);
	assert_true(d.is_ats);
	assert_false(d.warn);
	assert_false(d.clamp);
}

static void test_record_rules(void **state)
{
	uint8_t mad[MAD_SIZE];
	struct policy_request req;
	struct policy_decision d;

	(void)state;
	make_set(mad);
	mad[SA_OFF_DATA + SR_OFF_ID + 6] = 0x55; /* ...4153 -> ...5553 */
	policy_request_decode(mad, sizeof(mad), &req);
	req.owns_gid = req.req_has_pkey = req.gid_has_pkey = 1;
	assert_int_equal(decide(&req, NULL, 0, &d), RULE_SID_BLOCK);
	assert_string_equal(rule_code(d.rule), "7A01");
	cfg.enabled[RULE_SID_BLOCK] = 0;
	assert_int_equal(decide(&req, NULL, 0, &d), RULE_PASS);

	make_set(mad);
	memcpy(mad + SA_OFF_DATA + SR_OFF_NAME, "My Service", 11);
	policy_request_decode(mad, sizeof(mad), &req);
	req.owns_gid = req.req_has_pkey = req.gid_has_pkey = 1;
	assert_int_equal(decide(&req, NULL, 0, &d), RULE_NAME);

	make_set(mad);
	mad[SA_OFF_DATA + SR_OFF_NAME + 63] = 'x';
	policy_request_decode(mad, sizeof(mad), &req);
	req.owns_gid = req.req_has_pkey = req.gid_has_pkey = 1;
	assert_int_equal(decide(&req, NULL, 0, &d), RULE_NAME);
	assert_string_equal(d.why, "ServiceName is not zero-padded");

	make_set(mad);
	mad[SA_OFF_DATA + SR_OFF_KEY + 15] = 1;
	policy_request_decode(mad, sizeof(mad), &req);
	req.owns_gid = req.req_has_pkey = req.gid_has_pkey = 1;
	assert_int_equal(decide(&req, NULL, 0, &d), RULE_KEY);
	cfg.enabled[RULE_KEY] = 0;
	assert_int_equal(decide(&req, NULL, 0, &d), RULE_PASS);
}

static void test_bad_address(void **state)
{
	static const uint8_t bad[][16] = {
		{ 0 },
		{ [12] = 127, [15] = 1 },
		{ [12] = 224, [15] = 5 },
		{ [12] = 255, [13] = 255, [14] = 255, [15] = 255 },
		{ [12] = 0, [15] = 9 },
		{ 0xff, 0x02, [15] = 1 },
		{ [15] = 1 },
		{ [10] = 0xff, [11] = 0xff, [12] = 127, [15] = 1 },
	};
	struct policy_request req;
	struct policy_decision d;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		make_req(&req, SA_METHOD_SET, ATS_SID_PRIMARY, "10.0.0.1");
		memcpy(req.rec.data8, bad[i], 16);
		assert_int_equal(decide(&req, NULL, 0, &d), RULE_ADDR);
		assert_true(strlen(d.why) > 0);
	}
	cfg.enabled[RULE_ADDR] = 0;
	assert_int_equal(decide(&req, NULL, 0, &d), RULE_PASS);
}

static void test_other_services_untouched(void **state)
{
	struct policy_request req;
	struct policy_decision d;

	(void)state;
	make_req(&req, SA_METHOD_SET, 0x1234, "10.0.0.1");
	memcpy(req.rec.name, "other", 6);
	req.owns_gid = 0;
	assert_int_equal(decide(&req, NULL, 0, &d), RULE_PASS);
	assert_false(d.is_ats);
	req.method = SA_METHOD_DELETE;
	assert_int_equal(decide(&req, NULL, 0, &d), RULE_PASS);
}

static void test_ownership(void **state)
{
	struct policy_request req;
	struct policy_decision d;

	(void)state;
	make_req(&req, SA_METHOD_SET, ATS_SID_PRIMARY, "10.0.0.1");
	req.owns_gid = 0;
	assert_int_equal(decide(&req, NULL, 0, &d), RULE_OWNER);
	assert_string_equal(rule_code(RULE_OWNER), "7A05");
	req.trusted = 1;
	assert_int_equal(decide(&req, NULL, 0, &d), RULE_PASS);
	req.trusted = 0;
	req.method = SA_METHOD_DELETE;
	assert_int_equal(decide(&req, NULL, 0, &d), RULE_OWNER);
	req.trusted = 1;
	assert_int_equal(decide(&req, NULL, 0, &d), RULE_PASS);
	cfg.enabled[RULE_OWNER] = 0;
	req.trusted = 0;
	assert_int_equal(decide(&req, NULL, 0, &d), RULE_PASS);
}

static void test_primary_first(void **state)
{
	struct policy_request req;
	struct policy_peer peers[2];
	struct policy_decision d;

	(void)state;
	make_req(&req, SA_METHOD_SET, ATS_SID_PRIMARY + 1, "10.0.1.1");
	assert_int_equal(decide(&req, NULL, 0, &d), RULE_PRIMARY_FIRST);
	/* Another GID's primary does not count. */
	make_peer(&peers[0], &req, ATS_SID_PRIMARY, "10.0.0.9", 0x01, SYS_B);
	assert_int_equal(decide(&req, peers, 1, &d), RULE_PRIMARY_FIRST);
	make_peer(&peers[1], &req, ATS_SID_PRIMARY, "10.0.0.1", OWN, SYS_A);
	assert_int_equal(decide(&req, peers, 2, &d), RULE_PASS);

	/* Deleting the primary while a secondary exists. */
	make_req(&req, SA_METHOD_DELETE, ATS_SID_PRIMARY, "10.0.0.1");
	make_peer(&peers[0], &req, ATS_SID_PRIMARY + 1, "10.0.1.1", OWN, SYS_A);
	assert_int_equal(decide(&req, peers, 2, &d), RULE_PRIMARY_FIRST);
	assert_non_null(strstr(d.why, "1 other record"));
	assert_int_equal(decide(&req, &peers[1], 1, &d), RULE_PASS);
	/* Deleting the secondary is fine. */
	make_req(&req, SA_METHOD_DELETE, ATS_SID_PRIMARY + 1, "10.0.1.1");
	assert_int_equal(decide(&req, peers, 2, &d), RULE_PASS);
	cfg.enabled[RULE_PRIMARY_FIRST] = 0;
	make_req(&req, SA_METHOD_DELETE, ATS_SID_PRIMARY, "10.0.0.1");
	assert_int_equal(decide(&req, peers, 2, &d), RULE_PASS);
}

static void test_port_duplicate(void **state)
{
	struct policy_request req;
	struct policy_peer peers[2];
	struct policy_decision d;

	(void)state;
	make_req(&req, SA_METHOD_SET, ATS_SID_PRIMARY + 2, "10.0.1.1");
	make_peer(&peers[0], &req, ATS_SID_PRIMARY, "10.0.0.1", OWN, SYS_A);
	make_peer(&peers[1], &req, ATS_SID_PRIMARY + 1, "10.0.1.1", OWN, SYS_A);
	assert_int_equal(decide(&req, peers, 2, &d), RULE_PORT_DUP);
	/* The same record again (refresh) is fine. */
	req.rec.id = ATS_SID_PRIMARY + 1;
	assert_int_equal(decide(&req, peers, 2, &d), RULE_PASS);
	/* The mapped form is the same address. */
	req.rec.id = ATS_SID_PRIMARY + 2;
	memset(req.rec.data8, 0, 10);
	req.rec.data8[10] = req.rec.data8[11] = 0xff;
	assert_int_equal(decide(&req, peers, 2, &d), RULE_PORT_DUP);
	cfg.enabled[RULE_PORT_DUP] = 0;
	assert_int_equal(decide(&req, peers, 2, &d), RULE_PASS);
}

static void test_duplicate_address(void **state)
{
	struct policy_request req;
	struct policy_peer peers[1];
	struct policy_decision d;

	(void)state;
	make_req(&req, SA_METHOD_SET, ATS_SID_PRIMARY, "10.0.0.7");
	make_peer(&peers[0], &req, ATS_SID_PRIMARY, "10.0.0.7", 0x07, SYS_B);
	assert_int_equal(decide(&req, peers, 1, &d), RULE_DUP_ADDR);
	assert_non_null(strstr(d.why, "10.0.0.7 is the primary address of"));
	/* Another port of the same system: a failover pair. */
	peers[0].sys_guid = SYS_A;
	assert_int_equal(decide(&req, peers, 1, &d), RULE_PASS);
	/* A port not on the fabric is another system. */
	peers[0].sys_guid = 0;
	req.sys_guid = 0;
	assert_int_equal(decide(&req, peers, 1, &d), RULE_DUP_ADDR);
	peers[0].sys_guid = SYS_B;
	req.sys_guid = SYS_A;
	cfg.dup_mode = RULE_DUP_WARN;
	assert_int_equal(decide(&req, peers, 1, &d), RULE_PASS);
	assert_true(d.warn);
	assert_int_equal(d.warn_rule, RULE_DUP_ADDR);
	cfg.dup_mode = RULE_DUP_ALLOW;
	assert_int_equal(decide(&req, peers, 1, &d), RULE_PASS);
	assert_false(d.warn);
	/* A secondary of the other system does not make it a duplicate. */
	cfg.dup_mode = RULE_DUP_REJECT;
	peers[0].rec.id = ATS_SID_PRIMARY + 1;
	assert_int_equal(decide(&req, peers, 1, &d), RULE_PASS);
}

static void test_lease(void **state)
{
	struct policy_request req;
	struct policy_decision d;

	(void)state;
	make_req(&req, SA_METHOD_SET, ATS_SID_PRIMARY, "10.0.0.1");
	/* Without the lease bit OpenSM makes it infinite. */
	req.rec.lease = 5;
	assert_true(policy_effective_lease(&req) == SR_LEASE_INFINITE);
	cfg.lease_max = 3600;
	assert_int_equal(decide(&req, NULL, 0, &d), RULE_LEASE);
	assert_string_equal(d.why, "lease 4294967295 s outside 0..3600");
	req.comp_mask |= sr_comp_mask(SR_F_LEASE);
	assert_int_equal(decide(&req, NULL, 0, &d), RULE_PASS);
	cfg.lease_min = 60;
	assert_int_equal(decide(&req, NULL, 0, &d), RULE_LEASE);
	cfg.lease_clamp = 1;
	assert_int_equal(decide(&req, NULL, 0, &d), RULE_PASS);
	assert_true(d.clamp);
	assert_int_equal(d.lease, 60);
	req.rec.lease = 7200;
	assert_int_equal(decide(&req, NULL, 0, &d), RULE_PASS);
	assert_int_equal(d.lease, 3600);
}

static void test_relevance(void **state)
{
	struct policy_request req;
	struct policy_peer p;

	(void)state;
	make_req(&req, SA_METHOD_SET, ATS_SID_PRIMARY, "10.0.0.1");
	make_peer(&p, &req, ATS_SID_PRIMARY + 1, "10.0.9.9", OWN, SYS_A);
	assert_true(policy_peer_relevant(&req, &p.rec));   /* same GID */
	make_peer(&p, &req, ATS_SID_PRIMARY, "10.0.0.1", 0x01, SYS_B);
	assert_true(policy_peer_relevant(&req, &p.rec));   /* same IP */
	make_peer(&p, &req, ATS_SID_PRIMARY, "10.0.0.2", 0x01, SYS_B);
	assert_false(policy_peer_relevant(&req, &p.rec));
	make_peer(&p, &req, ATS_SID_PRIMARY, "10.0.0.1", 0x01, SYS_B);
	p.rec.pkey = 0x8001;
	assert_false(policy_peer_relevant(&req, &p.rec));  /* other partition */
	make_peer(&p, &req, 0x1234, "10.0.0.1", OWN, SYS_A);
	assert_false(policy_peer_relevant(&req, &p.rec));  /* not ATS */
}

/* Item 1: every ATS Set is held to the partition, whatever the mask. */
static void test_partition(void **state)
{
	static const uint16_t invalid[] = { 0x0000, 0x8000 };
	struct policy_request req;
	struct policy_decision d;
	size_t i;

	(void)state;
	make_req(&req, SA_METHOD_SET, ATS_SID_PRIMARY, "10.0.0.1");
	req.comp_mask &= ~sr_comp_mask(SR_F_PKEY); /* the mask says nothing */
	req.rec.pkey = 0x8001;
	req.req_has_pkey = 0;
	assert_int_equal(decide(&req, NULL, 0, &d), RULE_PKEY);
	assert_string_equal(rule_code(d.rule), "7A0A");
	assert_string_equal(rule_name(d.rule), "partition");
	req.trusted = 1; /* trust is about ownership, not partitions */
	assert_int_equal(decide(&req, NULL, 0, &d), RULE_PKEY);
	req.req_has_pkey = 1;
	req.gid_has_pkey = 0;
	assert_int_equal(decide(&req, NULL, 0, &d), RULE_PKEY);
	assert_non_null(strstr(d.why, "ServiceGID's port"));
	req.gid_has_pkey = 1;
	assert_int_equal(decide(&req, NULL, 0, &d), RULE_PASS);
	for (i = 0; i < 2; i++) {
		req.rec.pkey = invalid[i];
		assert_int_equal(decide(&req, NULL, 0, &d), RULE_PKEY);
		assert_non_null(strstr(d.why, "invalid"));
	}
	/* Only an explicit setting turns it off. */
	cfg.enabled[RULE_PKEY] = 0;
	assert_int_equal(decide(&req, NULL, 0, &d), RULE_PASS);
	cfg.enabled[RULE_PKEY] = 1;
	/* A Delete is cleanup: not held to the partition. */
	make_req(&req, SA_METHOD_DELETE, ATS_SID_PRIMARY, "10.0.0.1");
	req.rec.pkey = 0;
	req.req_has_pkey = req.gid_has_pkey = 0;
	assert_int_equal(decide(&req, NULL, 0, &d), RULE_PASS);
}

/* Item 2: 0x7FFF and 0xFFFF are one partition for every rule. */
static void test_membership_bit(void **state)
{
	struct policy_request req;
	struct policy_decision d;
	struct policy_peer p[2];

	(void)state;
	assert_true(pol_same_partition(0x7fff, 0xffff));
	assert_false(pol_same_partition(0x8001, 0xffff));
	/* Another system's primary, claimed under the limited form. */
	make_req(&req, SA_METHOD_SET, ATS_SID_PRIMARY, "10.0.0.1");
	req.rec.pkey = 0x7fff;
	make_peer(&p[0], &req, ATS_SID_PRIMARY, "10.0.0.1", 0x01, SYS_B);
	p[0].rec.pkey = 0xffff;
	assert_true(policy_peer_relevant(&req, &p[0].rec));
	assert_int_equal(decide(&req, p, 1, &d), RULE_DUP_ADDR);
	/* A secondary finds its primary under the other form. */
	make_req(&req, SA_METHOD_SET, ATS_SID_PRIMARY + 1, "10.0.0.2");
	req.rec.pkey = 0xffff;
	make_peer(&p[0], &req, ATS_SID_PRIMARY, "10.0.0.1", OWN, SYS_A);
	p[0].rec.pkey = 0x7fff;
	assert_int_equal(decide(&req, p, 1, &d), RULE_PASS);
	/* The same (GID, SID, partition) twice: refused, any address. */
	make_req(&req, SA_METHOD_SET, ATS_SID_PRIMARY, "10.0.0.9");
	req.rec.pkey = 0x7fff;
	make_peer(&p[0], &req, ATS_SID_PRIMARY, "10.0.0.1", OWN, SYS_A);
	p[0].rec.pkey = 0xffff;
	assert_int_equal(decide(&req, p, 1, &d), RULE_PORT_DUP);
	assert_non_null(strstr(d.why, "0xffff"));
	req.rec.data8[15] = 1; /* 10.0.0.1, same address */
	assert_int_equal(decide(&req, p, 1, &d), RULE_PORT_DUP);
	/* The same RID is a refresh, not a second record. */
	req.rec.pkey = 0xffff;
	assert_int_equal(decide(&req, p, 1, &d), RULE_PASS);
	/* Deleting the primary under one form while a secondary sits under
	 * the other is still primary-first. */
	make_req(&req, SA_METHOD_DELETE, ATS_SID_PRIMARY, "10.0.0.1");
	req.rec.pkey = 0xffff;
	make_peer(&p[1], &req, ATS_SID_PRIMARY + 1, "10.0.0.2", OWN, SYS_A);
	p[1].rec.pkey = 0x7fff;
	assert_true(policy_peer_relevant(&req, &p[1].rec));
	assert_int_equal(decide(&req, &p[1], 1, &d), RULE_PRIMARY_FIRST);
}

/* Item 3: OpenSM's default SA key (and none) earns no trust. */
static void test_key_trust(void **state)
{
	(void)state;
	assert_false(policy_key_trusted(1, 1));
	assert_false(policy_key_trusted(0, 0));
	assert_false(policy_key_trusted(0x1234, 1));
	assert_false(policy_key_trusted(0x1234, 0));
	assert_true(policy_key_trusted(0x1234, 0x1234));
}

/* Item 5: the per-port cap counts new records only. */
static void test_record_cap(void **state)
{
	struct policy_request req;
	struct policy_decision d;

	(void)state;
	make_req(&req, SA_METHOD_SET, 0x1234, "10.0.0.1"); /* any service */
	req.trusted = 1;
	req.is_new = 1;
	req.charged = RULE_MAX_RECORDS_DEFAULT - 1;
	policy_decide_cap(&cfg, &req, &d);
	assert_int_equal(d.rule, RULE_PASS);
	req.charged = RULE_MAX_RECORDS_DEFAULT;
	policy_decide_cap(&cfg, &req, &d);
	assert_int_equal(d.rule, RULE_CAP);
	assert_string_equal(rule_code(d.rule), "7A0B");
	req.is_new = 0; /* an update of a held RID */
	policy_decide_cap(&cfg, &req, &d);
	assert_int_equal(d.rule, RULE_PASS);
	req.is_new = 1;
	req.method = SA_METHOD_DELETE;
	policy_decide_cap(&cfg, &req, &d);
	assert_int_equal(d.rule, RULE_PASS);
	req.method = SA_METHOD_SET;
	cfg.max_records_per_port = 0; /* explicitly no cap */
	policy_decide_cap(&cfg, &req, &d);
	assert_int_equal(d.rule, RULE_PASS);
	cfg.max_records_per_port = 2;
	req.charged = 2;
	policy_decide_cap(&cfg, &req, &d);
	assert_int_equal(d.rule, RULE_CAP);
}

static void test_short_mad(void **state)
{
	uint8_t mad[MAD_SIZE];
	struct policy_request req;
	size_t len;

	(void)state;
	make_set(mad);
	for (len = 0; len < SA_OFF_DATA + SR_SIZE; len++)
		assert_int_equal(policy_request_decode(mad, len, &req), -EMSGSIZE);
	assert_int_equal(policy_request_decode(mad, sizeof(mad), &req), 0);
	assert_int_equal(req.method, SA_METHOD_SET);
	assert_true(req.comp_mask == 0x7fffc7ull);
}

TEST_MAIN(
	cmocka_unit_test_setup(test_valid_primary_passes, setup),
	cmocka_unit_test_setup(test_record_rules, setup),
	cmocka_unit_test_setup(test_bad_address, setup),
	cmocka_unit_test_setup(test_other_services_untouched, setup),
	cmocka_unit_test_setup(test_ownership, setup),
	cmocka_unit_test_setup(test_primary_first, setup),
	cmocka_unit_test_setup(test_port_duplicate, setup),
	cmocka_unit_test_setup(test_duplicate_address, setup),
	cmocka_unit_test_setup(test_lease, setup),
	cmocka_unit_test_setup(test_relevance, setup),
	cmocka_unit_test_setup(test_short_mad, setup),
	cmocka_unit_test_setup(test_partition, setup),
	cmocka_unit_test_setup(test_membership_bit, setup),
	cmocka_unit_test_setup(test_key_trust, setup),
	cmocka_unit_test_setup(test_record_cap, setup))
