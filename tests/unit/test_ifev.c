/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <arpa/inet.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "host/ifev.h"
#include "fixture.h"

struct seen {
	struct ifev_event ev[8];
	int n;
};

static void collect(const struct ifev_event *ev, void *arg)
{
	struct seen *s = arg;

	if (s->n < 8)
		s->ev[s->n++] = *ev;
}

/* RTM_NEWADDR for 10.0.0.11/24 on ifindex 3, secondary, as the kernel
 * sends it (struct nlmsghdr, struct ifaddrmsg, IFA_ADDRESS, IFA_LOCAL,
 * IFA_LABEL, IFA_FLAGS), laid out by hand in host byte order. */
static const uint8_t newaddr_v4[] = {
	/* nlmsghdr: len 64, type 20 RTM_NEWADDR, flags 0, seq 0, pid 0 */
	0x40, 0, 0, 0, 0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	/* ifaddrmsg: AF_INET, /24, flags 0x01 (secondary), scope 0, index 3 */
	0x02, 0x18, 0x01, 0x00, 0x03, 0, 0, 0,
	/* IFA_ADDRESS (1): 10.0.0.11 */
	0x08, 0, 0x01, 0, 10, 0, 0, 11,
	/* IFA_LOCAL (2): 10.0.0.11 */
	0x08, 0, 0x02, 0, 10, 0, 0, 11,
	/* IFA_LABEL (3): "v0" */
	0x07, 0, 0x03, 0, 'v', '0', 0, 0,
	/* IFA_FLAGS (8): 0x81 = secondary | permanent */
	0x08, 0, 0x08, 0, 0x81, 0, 0, 0,
	/* padding to 64 */
	0, 0, 0, 0, 0, 0, 0, 0,
};

static void test_newaddr_golden(void **state)
{
	struct seen s = { .n = 0 };
	uint8_t buf[sizeof(newaddr_v4)];

	(void)state;
	memcpy(buf, newaddr_v4, sizeof(buf));
	/* Drop the padding the header's length does not cover. */
	((struct nlmsghdr *)buf)->nlmsg_len = 56;
	assert_int_equal(ifev_parse(buf, 56, collect, &s), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.ev[0].type, IFEV_EV_NEWADDR);
	assert_int_equal(s.ev[0].addr.ifindex, 3);
	assert_int_equal(s.ev[0].addr.family, AF_INET);
	assert_int_equal(s.ev[0].addr.prefixlen, 24);
	assert_memory_equal(s.ev[0].addr.addr, "\x0a\x00\x00\x0b", 4);
	assert_int_equal(s.ev[0].addr.flags, IFA_F_SECONDARY | IFA_F_PERMANENT);
}

static size_t build_v6(uint8_t *buf, uint16_t type, uint32_t flags, uint8_t scope)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifaddrmsg *ifa;
	uint8_t a[16];

	nlh->nlmsg_type = type;
	ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	ifa->ifa_family = AF_INET6;
	ifa->ifa_prefixlen = 64;
	ifa->ifa_scope = scope;
	ifa->ifa_index = 5;
	inet_pton(AF_INET6, "fd00::1", a);
	mnl_attr_put(nlh, IFA_ADDRESS, 16, a);
	mnl_attr_put_u32(nlh, IFA_FLAGS, flags);
	return nlh->nlmsg_len;
}

static void test_v6_and_deladdr(void **state)
{
	uint8_t buf[512];
	struct seen s = { .n = 0 };
	size_t len;

	(void)state;
	len = build_v6(buf, RTM_NEWADDR, IFA_F_NODAD | IFA_F_TENTATIVE, RT_SCOPE_UNIVERSE);
	len += build_v6(buf + len, RTM_DELADDR, 0, RT_SCOPE_UNIVERSE);
	assert_int_equal(ifev_parse(buf, len, collect, &s), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.ev[0].type, IFEV_EV_NEWADDR);
	assert_int_equal(s.ev[0].addr.family, AF_INET6);
	assert_true(s.ev[0].addr.flags & IFA_F_TENTATIVE);
	assert_int_equal(s.ev[0].addr.addr[0], 0xfd);
	assert_int_equal(s.ev[1].type, IFEV_EV_DELADDR);
}

static void test_link(void **state)
{
	uint8_t buf[512], hw[20];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifi;
	struct seen s = { .n = 0 };

	(void)state;
	nlh->nlmsg_type = RTM_NEWLINK;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_index = 7;
	ifi->ifi_type = 32; /* ARPHRD_INFINIBAND */
	ifi->ifi_flags = IFF_UP | IFF_RUNNING;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, "ib0");
	memset(hw, 0xab, sizeof(hw));
	mnl_attr_put(nlh, IFLA_ADDRESS, sizeof(hw), hw);
	assert_int_equal(ifev_parse(buf, nlh->nlmsg_len, collect, &s), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.ev[0].type, IFEV_EV_NEWLINK);
	assert_string_equal(s.ev[0].link.name, "ib0");
	assert_int_equal(s.ev[0].link.ifindex, 7);
	assert_int_equal(s.ev[0].link.type, 32);
	assert_int_equal(s.ev[0].link.hwlen, 20);
	assert_true(s.ev[0].link.flags & IFF_RUNNING);
}

static void test_done_and_other_types(void **state)
{
	uint8_t buf[256];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nlmsghdr *done;
	struct seen s = { .n = 0 };
	size_t len;

	(void)state;
	nlh->nlmsg_type = RTM_NEWROUTE; /* skipped */
	mnl_nlmsg_put_extra_header(nlh, sizeof(struct rtmsg));
	len = nlh->nlmsg_len;
	done = mnl_nlmsg_put_header(buf + len);
	done->nlmsg_type = NLMSG_DONE;
	mnl_nlmsg_put_extra_header(done, sizeof(int));
	len += done->nlmsg_len;
	assert_int_equal(ifev_parse(buf, len, collect, &s), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.ev[0].type, IFEV_EV_DONE);
}

static void test_truncated_and_hostile(void **state)
{
	uint8_t buf[sizeof(newaddr_v4)];
	struct seen s = { .n = 0 };
	size_t len;

	(void)state;
	/* Every truncation: no crash, no event from a partial message. */
	for (len = 0; len < 56; len++) {
		memcpy(buf, newaddr_v4, sizeof(buf));
		((struct nlmsghdr *)buf)->nlmsg_len = 56;
		s.n = 0;
		ifev_parse(buf, len, collect, &s);
		assert_int_equal(s.n, 0);
	}
	/* An IPv4 address attribute of the wrong size. */
	memcpy(buf, newaddr_v4, sizeof(buf));
	((struct nlmsghdr *)buf)->nlmsg_len = 56;
	buf[24] = 0x07;
	buf[32] = 0x07;
	s.n = 0;
	assert_int_equal(ifev_parse(buf, 56, collect, &s), -EBADMSG);
	assert_int_equal(s.n, 0);
	/* A header claiming more than the buffer. */
	memcpy(buf, newaddr_v4, sizeof(buf));
	((struct nlmsghdr *)buf)->nlmsg_len = 4000;
	s.n = 0;
	ifev_parse(buf, 56, collect, &s);
	assert_int_equal(s.n, 0);
}

/* Found by fuzz_nl: a message whose length is not a multiple of 4 at
 * the end of the buffer; libmnl reads its attributes up to the aligned
 * end, past the buffer. It must be refused, not parsed. */
static const uint8_t fuzz_unaligned_tail[] = { 0x30, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x3a, 0x05, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x10, 0x10, 0x00, 0x01, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x00, 0x10, 0x31, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x3a, 0x05, 0x00, 0x14, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x00, 0x10, 0x00, 0x01, 0x00, 0x00, 0x04 };

static void test_unaligned_tail(void **state)
{
	struct seen s = { .n = 0 };
	uint8_t *buf = malloc(sizeof(fuzz_unaligned_tail));

	(void)state;
	assert_non_null(buf);
	memcpy(buf, fuzz_unaligned_tail, sizeof(fuzz_unaligned_tail));
	ifev_parse(buf, sizeof(fuzz_unaligned_tail), collect, &s);
	free(buf);
}

/* Found by fuzz_nl: nlmsg_len 0xfffffffd aligns to 0 in 32 bits, and the
 * header walk made no progress. */
static void test_huge_len(void **state)
{
	uint8_t buf[64] = { 0 };
	struct seen s = { .n = 0 };
	uint32_t n = 0xfffffffdu;

	(void)state;
	memcpy(buf, &n, 4);
	assert_int_equal(ifev_parse(buf, sizeof(buf), collect, &s), -EBADMSG);
	assert_int_equal(s.n, 0);
}

TEST_MAIN(
	cmocka_unit_test(test_newaddr_golden),
	cmocka_unit_test(test_v6_and_deladdr),
	cmocka_unit_test(test_link),
	cmocka_unit_test(test_done_and_other_types),
	cmocka_unit_test(test_truncated_and_hostile),
	cmocka_unit_test(test_unaligned_tail),
	cmocka_unit_test(test_huge_len))
