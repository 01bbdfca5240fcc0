/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <arpa/inet.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "host/ifev.h"
#include "hostagent/atsctl/cmd_verify.h"
#include "fixture.h"

/* RTM_NEWNEIGH as the kernel sends it for an IPoIB neighbour (ndmsg,
 * NDA_DST, NDA_LLADDR of 20 bytes), built with libmnl. */
static size_t neigh_msg(uint8_t *buf, const char *ip, const uint8_t *ll,
			size_t lllen, uint16_t state)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ndmsg *nd;
	uint8_t a[4];

	nlh->nlmsg_type = RTM_NEWNEIGH;
	nd = mnl_nlmsg_put_extra_header(nlh, sizeof(*nd));
	nd->ndm_family = AF_INET;
	nd->ndm_ifindex = 4;
	nd->ndm_state = state;
	inet_pton(AF_INET, ip, a);
	mnl_attr_put(nlh, NDA_DST, 4, a);
	if (ll)
		mnl_attr_put(nlh, NDA_LLADDR, lllen, ll);
	return nlh->nlmsg_len;
}

struct got {
	struct ifev_neigh n[4];
	int k;
};

static void cb(const struct ifev_event *ev, void *arg)
{
	struct got *g = arg;

	if (ev->type == IFEV_EV_NEWNEIGH && g->k < 4)
		g->n[g->k++] = ev->neigh;
}

static void test_neighbours(void **state)
{
	static const uint8_t ipoib[20] = {
		0x80, 0x00, 0x04, 0x04, 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
		0x00, 0x02, 0xc9, 0x03, 0x00, 0x0a, 0x0b, 0x0c,
	};
	static const uint8_t eth[6] = { 0, 0x11, 0x22, 0x33, 0x44, 0x55 };
	uint8_t buf[1024], gid[16];
	struct got g = { .k = 0 };
	struct ats_ip ip;
	char s[ATS_IP_STRLEN];
	size_t len = 0;

	(void)state;
	len += neigh_msg(buf + len, "10.0.0.5", ipoib, sizeof(ipoib), NUD_REACHABLE);
	len += neigh_msg(buf + len, "10.0.0.6", eth, sizeof(eth), NUD_REACHABLE);
	len += neigh_msg(buf + len, "10.0.0.7", NULL, 0, NUD_INCOMPLETE);
	len += neigh_msg(buf + len, "10.0.0.8", ipoib, sizeof(ipoib), NUD_FAILED);
	assert_int_equal(ifev_parse(buf, len, cb, &g), 0);
	assert_int_equal(g.k, 4);
	assert_true(cmd_verify_ipoib_neigh(&g.n[0], &ip, gid));
	assert_string_equal(ats_ip_format(&ip, s, sizeof(s)), "10.0.0.5");
	assert_string_equal(ats_gid_format(gid, s, sizeof(s)), "fe80::2:c903:a:b0c");
	assert_false(cmd_verify_ipoib_neigh(&g.n[1], &ip, gid)); /* Ethernet */
	assert_false(cmd_verify_ipoib_neigh(&g.n[2], &ip, gid)); /* unresolved */
	assert_false(cmd_verify_ipoib_neigh(&g.n[3], &ip, gid)); /* failed */
}

static void test_hostile(void **state)
{
	uint8_t buf[256];
	struct got g = { .k = 0 };
	size_t len, cut;

	(void)state;
	len = neigh_msg(buf, "10.0.0.5", (const uint8_t *)"0123456789abcdefghij", 20,
			NUD_REACHABLE);
	for (cut = 0; cut < len; cut++) {
		g.k = 0;
		ifev_parse(buf, cut, cb, &g);
		assert_int_equal(g.k, 0);
	}
	/* A link-layer address longer than any link layer: refused whole. */
	{
		uint8_t ll[IFEV_HWADDR_MAX + 1] = { 0 };

		g.k = 0;
		len = neigh_msg(buf, "10.0.0.5", ll, sizeof(ll), NUD_REACHABLE);
		assert_true(ifev_parse(buf, len, cb, &g) < 0);
		assert_int_equal(g.k, 0);
	}
}

TEST_MAIN(
	cmocka_unit_test(test_neighbours),
	cmocka_unit_test(test_hostile))
