/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "core/ats.h"
#include "host/ats_audit.h"
#include "fixture.h"

static struct ats_audit_port ports[2];

static int setup(void **state)
{
	(void)state;
	memset(ports, 0, sizeof(ports));
	ats_gid_parse("fe80::1", ports[0].gid);
	ats_gid_parse("fe80::2", ports[1].gid);
	ports[0].sys_guid = 0x100;
	ports[1].sys_guid = 0x200;
	ports[0].pkeys[0] = ports[1].pkeys[0] = 0xffff;
	ports[0].npkeys = ports[1].npkeys = 1;
	ports[0].pkeys_known = ports[1].pkeys_known = 1;
	return 0;
}

static struct sr_record rec(uint64_t sid, const char *gid, const char *ip)
{
	struct sr_record r;
	struct ats_ip a;
	uint8_t g[16];

	ats_gid_parse(gid, g);
	ats_ip_parse(ip, &a);
	ats_record_init(&r, sid, g, 0xffff, SR_LEASE_INFINITE, &a);
	return r;
}

static size_t count(const struct ats_audit_result *res, enum ats_audit_kind k)
{
	size_t i, n = 0;

	for (i = 0; i < res->n; i++)
		n += res->f[i].kind == k;
	return n;
}

static void test_clean(void **state)
{
	struct sr_record r[] = {
		rec(ATS_SID_PRIMARY, "fe80::1", "10.0.0.1"),
		rec(ATS_SID_PRIMARY + 1, "fe80::1", "fd00::1"),
		rec(ATS_SID_PRIMARY, "fe80::2", "10.0.0.2"),
	};
	struct ats_audit_result res;

	(void)state;
	assert_int_equal(ats_audit_check(r, 3, ports, 2, &res), 0);
	assert_int_equal(res.n, 0);
	ats_audit_free(&res);
}

static void test_each_kind_once(void **state)
{
	struct sr_record r[11];
	struct ats_audit_result res;
	enum ats_audit_kind k;

	(void)state;
	r[0] = rec(ATS_SID_PRIMARY, "fe80::1", "10.0.0.1");
	r[1] = rec(0x10000CE100415553ull, "fe80::1", "10.0.5.5");   /* sid-block */
	r[2] = rec(ATS_SID_PRIMARY + 7, "fe80::1", "10.0.7.7");
	memcpy(r[2].name, "Other", 6);                              /* service-name */
	r[3] = rec(ATS_SID_PRIMARY + 1, "fe80::1", "10.0.1.1");
	r[4] = rec(ATS_SID_PRIMARY + 2, "fe80::1", "10.0.1.1");    /* duplicate-on-port */
	r[5] = rec(ATS_SID_PRIMARY, "fe80::2", "10.0.0.1");        /* duplicate-primary */
	r[6] = rec(ATS_SID_PRIMARY + 1, "fe80::2", "10.0.2.2");
	r[6].data8[10] = r[6].data8[11] = 0xff;                     /* ipv4-form */
	r[7] = rec(ATS_SID_PRIMARY + 2, "fe80::2", "10.0.2.3");
	r[7].key[0] = 1;                                            /* unused-fields */
	r[8] = rec(ATS_SID_PRIMARY + 3, "fe80::2", "10.0.2.4");
	r[8].lease = 60;                                            /* finite-lease */
	r[9] = rec(ATS_SID_PRIMARY + 1, "fe80::9", "10.0.9.9");    /* gid-absent, no-primary */
	r[10] = rec(ATS_SID_PRIMARY + 4, "fe80::2", "10.0.2.5");
	r[10].pkey = 0x8001;                                        /* pkey-not-held, no-primary */
	assert_int_equal(ats_audit_check(r, 11, ports, 2, &res), 0);
	for (k = 0; k < ATS_AUDIT_NKINDS; k++) {
		size_t want = k == ATS_AUDIT_NO_PRIMARY ? 2 : k == ATS_AUDIT_BAD_ADDR ? 0 : 1;

		if (count(&res, k) != want)
			fail_msg("%s: %zu findings, expected %zu", ats_audit_kind_name(k),
				 count(&res, k), want);
	}
	ats_audit_free(&res);
}

static void test_failover_pair_ok(void **state)
{
	struct sr_record r[] = {
		rec(ATS_SID_PRIMARY, "fe80::1", "10.0.0.1"),
		rec(ATS_SID_PRIMARY, "fe80::2", "10.0.0.1"),
	};
	struct ats_audit_result res;

	(void)state;
	ports[1].sys_guid = ports[0].sys_guid;
	assert_int_equal(ats_audit_check(r, 2, ports, 2, &res), 0);
	assert_int_equal(count(&res, ATS_AUDIT_DUP_PRIMARY), 0);
	ats_audit_free(&res);
}

static void test_unknown_pkeys_not_judged(void **state)
{
	struct sr_record r[] = { rec(ATS_SID_PRIMARY, "fe80::1", "10.0.0.1") };
	struct ats_audit_result res;

	(void)state;
	r[0].pkey = 0x8001;
	ports[0].pkeys_known = 0;
	assert_int_equal(ats_audit_check(r, 1, ports, 2, &res), 0);
	assert_int_equal(count(&res, ATS_AUDIT_PKEY_NOT_HELD), 0);
	ats_audit_free(&res);
	assert_string_equal(ats_audit_severity_name(ATS_AUDIT_ERROR), "error");
}

TEST_MAIN(
	cmocka_unit_test_setup(test_clean, setup),
	cmocka_unit_test_setup(test_each_kind_once, setup),
	cmocka_unit_test_setup(test_failover_pair_ok, setup),
	cmocka_unit_test_setup(test_unknown_pkeys_not_judged, setup))
