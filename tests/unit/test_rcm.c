/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* atsd's connections by IP (rcm_peer.h): the listener's decision on who
 * is calling, on a request's Annex A11 source IP, and on its room. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "core/wire.h"
#include "sa/rcm_peer.h"
#include "fixture.h"

static void test_judge(void **state)
{
	struct rcm_conf c;
	struct ats_ip src, prim, other;
	char why[200];

	(void)state;
	memset(&c, 0, sizeof(c));
	ats_ip_parse("10.0.0.1", &src);
	ats_ip_parse("10.0.0.1", &prim);
	ats_ip_parse("10.0.0.9", &other);
	c.policy = RCM_CONF_ACCEPT_ANY;
	assert_int_equal(rcm_peer_judge(&c, &src, NULL, why, sizeof(why)), 0);
	c.policy = RCM_CONF_ACCEPT_AGREE;
	assert_int_equal(rcm_peer_judge(&c, &src, &prim, why, sizeof(why)), 0);
	assert_int_equal(rcm_peer_judge(&c, &src, &other, why, sizeof(why)), -EACCES);
	assert_string_equal(why, "ibats: spoofed source: IP 10.0.0.1 is not the requester's ATS primary 10.0.0.9");
	assert_int_equal(rcm_peer_judge(&c, &src, NULL, why, sizeof(why)), -EACCES);
	assert_string_equal(why, "ibats: the requester's GID has no ATS primary IP");
	c.policy = RCM_CONF_ACCEPT_LIST;
	assert_int_equal(rcm_peer_judge(&c, &src, &prim, why, sizeof(why)), -EACCES);
	c.accept[c.naccept++] = src;
	assert_int_equal(rcm_peer_judge(&c, &src, NULL, why, sizeof(why)), 0);
}

/* The claimed GID against the port the SA says owns the REQ's LID. */
static void test_decide(void **state)
{
	uint8_t ours[16], gid[16], far[16];
	struct rcm_peer peer;
	struct rcm_conf c;
	char why[148];

	(void)state;
	memset(&c, 0, sizeof(c));
	c.policy = RCM_CONF_ACCEPT_AGREE;
	wire_put64(ours, 0xfe80000000000000ull);
	wire_put64(ours + 8, 0x0002c90300000001ull);
	memcpy(gid, ours, 8);
	wire_put64(gid + 8, 0x0002c90300000003ull);
	/* The claimed port owns the LID: believed, keyed on that port. */
	assert_int_equal(rcm_peer_decide(&c, ours, gid, 7, 0, 0x0002c90300000003ull, &peer,
					 why, sizeof(why)), 0);
	assert_true(peer.port_guid == 0x0002c90300000003ull);
	assert_int_equal(peer.off_subnet, 0);
	/* Another port's GID with the sender's own LID: refused in every
	 * policy, naming both ports. */
	for (c.policy = RCM_CONF_ACCEPT_ANY; c.policy <= RCM_CONF_ACCEPT_LIST; c.policy++) {
		assert_int_equal(rcm_peer_decide(&c, ours, gid, 9, 0, 0x0002c90300000009ull,
						 &peer, why, sizeof(why)), -EACCES);
		assert_string_equal(why, "ibats: spoofed requester: LID 0x0009 is port "
				    "0x0002c90300000009, not the claimed GID's 0x0002c90300000003");
	}
	c.policy = RCM_CONF_ACCEPT_AGREE;
	/* No port at the LID, or the SA does not answer: refused. */
	assert_int_equal(rcm_peer_decide(&c, ours, gid, 9, -ENOENT, 0, &peer, why, sizeof(why)),
			 -EACCES);
	assert_string_equal(why, "ibats: no port holds the requester's LID 0x0009");
	assert_int_equal(rcm_peer_decide(&c, ours, gid, 9, -ETIMEDOUT, 0, &peer, why,
					 sizeof(why)), -ETIMEDOUT);
	assert_string_equal(why, "ibats: the requester's LID 0x0009 could not be verified "
			    "(Connection timed out)");
	/* Off this subnet: the LID is a router's; agree cannot verify the
	 * GID, the other policies take the router's port as the requester. */
	memcpy(far, gid, 16);
	wire_put64(far, 0xfec0000000000001ull);
	assert_int_equal(rcm_peer_decide(&c, ours, far, 4, 0, 0x0002c903000000aaull, &peer, why,
					 sizeof(why)), -EACCES);
	assert_string_equal(why, "ibats: the requester's GID is off this subnet: "
			    "its claim cannot be verified");
	c.policy = RCM_CONF_ACCEPT_LIST;
	assert_int_equal(rcm_peer_decide(&c, ours, far, 4, 0, 0x0002c903000000aaull, &peer, why,
					 sizeof(why)), 0);
	assert_true(peer.port_guid == 0x0002c903000000aaull);
	assert_int_equal(peer.off_subnet, 1);
}

/* One port's share of the established connections, and the room kept
 * for atsd's own connects. */
static void test_admit(void **state)
{
	char why[148];

	(void)state;
	assert_int_equal(rcm_peer_admit(0, 0, why, sizeof(why)), 0);
	assert_int_equal(rcm_peer_admit(RCM_PEER_MAX_ESTABLISHED - 1, RCM_PEER_MAX_PER_PEER - 1, why,
					sizeof(why)), 0);
	assert_int_equal(rcm_peer_admit(3, RCM_PEER_MAX_PER_PEER, why, sizeof(why)), -EDQUOT);
	assert_string_equal(why, "ibats: too many connections from this requester's port (8)");
	assert_int_equal(rcm_peer_admit(RCM_PEER_MAX_ESTABLISHED, 0, why, sizeof(why)), -ENOSPC);
	assert_string_equal(why, "ibats: too many connections to this listener (40)");
}

TEST_MAIN(
	cmocka_unit_test(test_judge),
	cmocka_unit_test(test_decide),
	cmocka_unit_test(test_admit))
