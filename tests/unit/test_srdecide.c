/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* srdecide.c: the ServiceRecord Set/Delete decision and the Get's
 * filter, the cases t_plugin_policy.sh, t_plugin_partition.sh (P_Keys,
 * the per-port cap) and t_sr_diff.sh drive through OpenSM. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "golden.h"
#include "plugin/refusal.h"
#include "core/sa.h"
#include "core/sr.h"
#include "plugin/srdecide.h"
#include "fixture.h"

static struct rule_config cfg;
static struct policy_request req;
static struct srdecide_in in;
static struct srdecide_out out;

/* The golden ATS primary (192.168.1.10 on its GID), Set by the port that
 * owns the GID, both ports in the partition, SID, GID and P_Key in the
 * mask, a new record on a port with none. */
static int setup(void **state)
{
	uint8_t mad[MAD_SIZE];

	(void)state;
	rule_config_default(&cfg);
	memset(mad, 0, sizeof(mad));
	memcpy(mad, golden_sa_set_hdr, sizeof(golden_sa_set_hdr));
	memcpy(mad + SA_OFF_DATA, golden_sr_v4, sizeof(golden_sr_v4));
	assert_int_equal(policy_request_decode(mad, sizeof(mad), &req), 0);
	req.rec.id = ATS_SID_PRIMARY;
	req.comp_mask = sr_comp_mask(SR_F_ID | SR_F_GID | SR_F_PKEY);
	req.owns_gid = req.req_has_pkey = req.gid_has_pkey = 1;
	req.sys_guid = 0x1000;
	req.is_new = 1;
	memset(&in, 0, sizeof(in));
	in.req = &req;
	in.pol = &cfg;
	in.req_holds_pkey = in.gid_holds_pkey = 1;
	in.gid_port = 0x2c9000100d051ull;
	return 0;
}

static void decide(void)
{
	srdecide_change(&in, &out);
}

static void test_set_accepted(void **state)
{
	(void)state;
	decide();
	assert_int_equal(out.act, SRDECIDE_SET);
	assert_int_equal(out.status, SA_STATUS_SUCCESS);
	assert_true(out.ats);
	assert_int_equal(out.rules.rule, RULE_PASS);
	/* No lease in the mask: stored without one. */
	assert_true(out.lease_infinite);
	assert_false(out.default_pkey);
}

static void test_set_other_service(void **state)
{
	(void)state;
	req.rec.id = 0x1234;
	memset(req.rec.name, 0, sizeof(req.rec.name));
	decide();
	assert_int_equal(out.act, SRDECIDE_SET);
	assert_false(out.ats);
}

/* Each ATS rule refuses with REQ_INVALID. */
static void test_rules_refuse(void **state)
{
	(void)state;
	req.owns_gid = 0;
	decide();
	assert_int_equal(out.act, SRDECIDE_REFUSE);
	assert_int_equal(out.status, SA_STATUS_REQ_INVALID);
	assert_int_equal(out.by, SRDECIDE_BY_RULES);
	assert_int_equal(out.rules.rule, RULE_OWNER);

	setup(NULL);
	req.rec.key[0] = 1;
	decide();
	assert_int_equal(out.status, SA_STATUS_REQ_INVALID);
	assert_int_equal(out.rules.rule, RULE_KEY);

	setup(NULL);
	memset(req.rec.data8, 0, sizeof(req.rec.data8));
	decide();
	assert_int_equal(out.status, SA_STATUS_REQ_INVALID);
	assert_int_equal(out.rules.rule, RULE_ADDR);
}

/* validate_sr(): the requester's port lacks the P_Key. */
static void test_partition_refuses(void **state)
{
	(void)state;
	req.rec.id = 0x1234;
	memset(req.rec.name, 0, sizeof(req.rec.name));
	in.req_holds_pkey = 0;
	decide();
	assert_int_equal(out.act, SRDECIDE_REFUSE);
	assert_int_equal(out.status, SA_STATUS_REQ_INVALID);
	assert_int_equal(out.by, SRDECIDE_BY_SA);
	assert_int_equal(out.kind, REFUSAL_SA_PKEY);
	assert_string_equal(out.code, "7A56");

	/* The GID's port lacks it, or there is none. */
	in.req_holds_pkey = 1;
	in.gid_holds_pkey = 0;
	decide();
	assert_string_equal(out.why, "the ServiceGID's port is not a member of the P_Key's partition");
	in.gid_port = 0;
	decide();
	assert_non_null(strstr(out.why, "no port on the fabric"));

	/* No P_Key in the mask: not asked, the answer's P_Key the default. */
	req.comp_mask &= ~sr_comp_mask(SR_F_PKEY);
	decide();
	assert_int_equal(out.act, SRDECIDE_SET);
	assert_true(out.default_pkey);
}

static void test_cap_refuses(void **state)
{
	(void)state;
	req.charged = cfg.max_records_per_port;
	decide();
	assert_int_equal(out.act, SRDECIDE_REFUSE);
	assert_int_equal(out.status, SA_STATUS_NO_RESOURCES);
	assert_int_equal(out.by, SRDECIDE_BY_CAP);
	assert_int_equal(out.cap.rule, RULE_CAP);
	/* A record already held is replaced, not added. */
	req.is_new = 0;
	decide();
	assert_int_equal(out.act, SRDECIDE_SET);
}

static void test_set_needs_sid_and_gid(void **state)
{
	(void)state;
	req.rec.id = 0x1234;
	memset(req.rec.name, 0, sizeof(req.rec.name));
	req.comp_mask = sr_comp_mask(SR_F_ID);
	decide();
	assert_int_equal(out.act, SRDECIDE_REFUSE);
	assert_int_equal(out.status, SA_STATUS_REQ_INVALID);
	assert_int_equal(out.kind, REFUSAL_SA_REQUEST);
	assert_string_equal(out.code, "7A57");
}

static void test_lease_clamped_kept(void **state)
{
	(void)state;
	cfg.lease_max = 60;
	cfg.lease_clamp = 1;
	decide();
	assert_int_equal(out.act, SRDECIDE_SET);
	assert_true(out.rules.clamp);
	assert_int_equal(out.rules.lease, 60);
	/* The clamped lease goes in with its mask bit: not infinite. */
	assert_false(out.lease_infinite);
}

static void test_delete(void **state)
{
	(void)state;
	req.method = SA_METHOD_DELETE;
	decide();
	assert_int_equal(out.act, SRDECIDE_DELETE);
	/* An ATS Delete asks the requester's partition even without the
	 * P_Key in the mask (the partition rule on). */
	req.comp_mask = sr_comp_mask(SR_F_ID | SR_F_GID);
	in.req_holds_pkey = 0;
	decide();
	assert_int_equal(out.act, SRDECIDE_REFUSE);
	assert_int_equal(out.kind, REFUSAL_SA_PKEY);
	/* The cap does not count Deletes. */
	setup(NULL);
	req.method = SA_METHOD_DELETE;
	req.charged = cfg.max_records_per_port;
	decide();
	assert_int_equal(out.act, SRDECIDE_DELETE);
}

static void test_get(void **state)
{
	(void)state;
	assert_true(srdecide_visible(0xffff, 1));
	assert_false(srdecide_visible(0x8001, 0));
	/* An invalid P_Key hides the record from no one. */
	assert_true(srdecide_visible(0x8000, 0));
	assert_int_equal(srdecide_get_status(0, 0), SA_STATUS_NO_RECORDS);
	assert_int_equal(srdecide_get_status(0, 1), SA_STATUS_SUCCESS);
	assert_int_equal(srdecide_get_status(1, 0), SA_STATUS_SUCCESS);
}

TEST_MAIN(
	cmocka_unit_test_setup(test_set_accepted, setup),
	cmocka_unit_test_setup(test_set_other_service, setup),
	cmocka_unit_test_setup(test_rules_refuse, setup),
	cmocka_unit_test_setup(test_partition_refuses, setup),
	cmocka_unit_test_setup(test_cap_refuses, setup),
	cmocka_unit_test_setup(test_set_needs_sid_and_gid, setup),
	cmocka_unit_test_setup(test_lease_clamped_kept, setup),
	cmocka_unit_test_setup(test_delete, setup),
	cmocka_unit_test_setup(test_get, setup))
