/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The refusal history (plugin/refhist.h): a port sees its own refusals,
 * newest first, at most REFHIST_PER_PORT; at most REFHIST_PORTS ports, the
 * one refused longest ago evicted; the owner only to a member of the
 * partition; never the ServiceKey. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "plugin/refhist.h"
#include "core/sa.h"
#include "fixture.h"

static void refuse(uint64_t guid, uint8_t last_octet, int member)
{
	struct policy_request req;
	struct policy_decision d;

	memset(&req, 0, sizeof(req));
	memset(&d, 0, sizeof(d));
	req.method = SA_METHOD_SET;
	req.rec.id = 0x10000CE100415453ull;
	req.rec.pkey = 0x8001;
	req.rec.gid[0] = 0xfe;
	req.rec.gid[15] = (uint8_t)guid;
	req.rec.data8[12] = 10;
	req.rec.data8[15] = last_octet;
	memset(req.rec.key, 0x5a, sizeof(req.rec.key)); /* a ServiceKey: never kept */
	req.req_has_pkey = member;
	d.rule = RULE_DUP_ADDR;
	d.other_gid[0] = 0xfe;
	d.other_gid[15] = 0x99;
	refhist_add(guid, &req, &d, 0x0200);
}

static void test_own_newest_first(void **state)
{
	struct smq_refusal r[REFHIST_PER_PORT];
	uint32_t gen;
	size_t n;
	unsigned i;

	(void)state;
	assert_int_equal(refhist_init(), 0);
	for (i = 1; i <= REFHIST_PER_PORT + 3; i++)
		refuse(0x11, (uint8_t)i, 1);
	refuse(0x22, 200, 0);
	n = refhist_get(0x11, r, REFHIST_PER_PORT, &gen);
	assert_int_equal(n, REFHIST_PER_PORT);
	assert_int_equal(gen, REFHIST_PER_PORT + 3);
	assert_int_equal(r[0].data8[15], REFHIST_PER_PORT + 3); /* newest first */
	assert_int_equal(r[REFHIST_PER_PORT - 1].data8[15], 4);
	assert_int_equal(r[0].code, 0x7A08);
	assert_string_equal(r[0].name, "duplicate-address");
	assert_int_equal(r[0].status, 0x0200);
	assert_int_equal(r[0].flags, SMQ_OWNER_SHOWN);
	assert_int_equal(r[0].owner[15], 0x99);
	/* Another port's: its own only, the owner withheld from a non-member. */
	n = refhist_get(0x22, r, REFHIST_PER_PORT, &gen);
	assert_int_equal(n, 1);
	assert_int_equal(r[0].data8[15], 200);
	assert_int_equal(r[0].flags, SMQ_OWNER_WITHHELD);
	assert_int_equal(r[0].owner[15], 0);
	assert_int_equal(refhist_get(0x33, r, REFHIST_PER_PORT, &gen), 0);
	assert_int_equal(gen, 0);
	assert_int_equal(refhist_get(0x11, r, 2, &gen), 2);
	refhist_fini();
}

static void test_ports_bounded(void **state)
{
	struct smq_refusal r[REFHIST_PER_PORT];
	uint32_t gen;
	uint64_t g;

	(void)state;
	assert_int_equal(refhist_init(), 0);
	for (g = 1; g <= REFHIST_PORTS; g++)
		refuse(g, 1, 1);
	refuse(1, 2, 1); /* port 1 refused again: now the newest */
	refuse(REFHIST_PORTS + 1, 1, 1); /* evicts port 2, refused longest ago */
	assert_int_equal(refhist_get(2, r, REFHIST_PER_PORT, &gen), 0);
	assert_int_equal(refhist_get(1, r, REFHIST_PER_PORT, &gen), 2);
	assert_int_equal(refhist_get(REFHIST_PORTS + 1, r, REFHIST_PER_PORT, &gen), 1);
	assert_int_equal(refhist_get(3, r, REFHIST_PER_PORT, &gen), 1);
	refuse(0, 1, 1); /* no port: nothing kept */
	assert_int_equal(refhist_get(0, r, REFHIST_PER_PORT, &gen), 0);
	refhist_fini();
}

TEST_MAIN(
	cmocka_unit_test(test_own_newest_first),
	cmocka_unit_test(test_ports_bounded))
