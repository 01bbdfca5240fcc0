/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* libibats' check that a requester is the port it claims
 * (ibats_check_peer_lid): the claim's subnet prefix and LID, the
 * decision on the LID's owner, atsd's "lid" answer read (golden, garbled,
 * errors), and the question put to a scripted atsd on a Unix socket,
 * with its fallbacks. */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fake_sock.h"

#include "libibats/priv.h"
#include "fixture.h"

/* host1 claims gid_a; gid_b is host3's; gid_far is gid_a's GUID under
 * another subnet prefix. */
static const uint8_t local_gid[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
				       0, 0x02, 0xc9, 0x03, 0, 0x0a, 0xb1, 0xc1 };
static const uint8_t gid_a[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
				   0, 0x02, 0xc9, 0x03, 0, 0x0a, 0xb1, 0xc2 };
static const uint8_t gid_far[16] = { 0xfe, 0xc0, 0, 0, 0, 0, 0, 1,
				     0, 0x02, 0xc9, 0x03, 0, 0x0a, 0xb1, 0xc2 };
#define GUID_A 0x0002c903000ab1c2ull
#define GUID_B 0x0002c903000ab1c3ull

static void test_claim_check(void **state)
{
	char why[160];

	(void)state;
	assert_int_equal(ibl_peer_claim_check(local_gid, gid_a, 0x0012, why, sizeof(why)), 0);
	assert_int_equal(ibl_peer_claim_check(local_gid, gid_a, 1, why, sizeof(why)), 0);
	assert_int_equal(ibl_peer_claim_check(local_gid, gid_a, 0xbfff, why, sizeof(why)), 0);
	/* A routed REQ: the LID is the router's. */
	assert_int_equal(ibl_peer_claim_check(local_gid, gid_far, 0x0012, why, sizeof(why)),
			 -EACCES);
	assert_string_equal(why, "requester GID fec0::1:2:c903:a:b1c2 is off this subnet: "
			    "the claim cannot be verified");
	/* No port holds LID 0, a multicast LID or the permissive one. */
	assert_int_equal(ibl_peer_claim_check(local_gid, gid_a, 0, why, sizeof(why)), -EACCES);
	assert_string_equal(why, "requester LID 0x0000 is not a unicast LID: no port holds it "
			    "(claims GID fe80::2:c903:a:b1c2)");
	assert_int_equal(ibl_peer_claim_check(local_gid, gid_a, 0xc000, why, sizeof(why)),
			 -EACCES);
	assert_int_equal(ibl_peer_claim_check(local_gid, gid_a, 0xc001, why, sizeof(why)),
			 -EACCES);
	assert_int_equal(ibl_peer_claim_check(local_gid, gid_a, 0xffff, why, sizeof(why)),
			 -EACCES);
	assert_non_null(strstr(why, "LID 0xffff is not a unicast LID"));
}

static void test_lid_decide(void **state)
{
	char why[200], tiny[8];

	(void)state;
	assert_int_equal(ibl_peer_lid_decide(gid_a, 0x0012, 0, GUID_A, 0x0012, why, sizeof(why)), 0);
	assert_string_equal(why, "requester LID 0x0012 is claimed GID fe80::2:c903:a:b1c2's port");
	/* LMC: a LID of the range names the port by its base LID. */
	assert_int_equal(ibl_peer_lid_decide(gid_a, 0x0013, 0, GUID_A, 0x0012, why, sizeof(why)), 0);
	/* The red team's REQ: host1's GID, host3's LID. */
	assert_int_equal(ibl_peer_lid_decide(gid_a, 0x0004, 0, GUID_B, 0x0004, why, sizeof(why)),
			 -EACCES);
	assert_string_equal(why, "requester LID 0x0004 is port 0x0002c903000ab1c3's (base LID "
			    "0x0004), not claimed GID fe80::2:c903:a:b1c2's port 0x0002c903000ab1c2");
	assert_int_equal(ibl_peer_lid_decide(gid_a, 0x0099, -ENOENT, 0, 0, why, sizeof(why)),
			 -EACCES);
	assert_string_equal(why, "no port holds requester LID 0x0099 (claims GID fe80::2:c903:a:b1c2)");
	/* A failed lookup is its error: the caller refuses. */
	assert_int_equal(ibl_peer_lid_decide(gid_a, 0x0004, -ETIMEDOUT, 0, 0, why, sizeof(why)),
			 -ETIMEDOUT);
	assert_string_equal(why, "cannot read which port holds LID 0x0004: the SA did not answer "
			    "(errno 110)");
	assert_int_equal(ibl_peer_lid_decide(gid_a, 0x0004, -EPROTO, 0, 0, why, sizeof(why)),
			 -EPROTO);
	assert_non_null(strstr(why, "garbled"));
	assert_int_equal(ibl_peer_lid_decide(gid_a, 0x0004, -ECONNREFUSED, 0, 0, why, sizeof(why)),
			 -ECONNREFUSED);
	/* An answer of GUID 0 is compared like any other. */
	assert_int_equal(ibl_peer_lid_decide(gid_a, 0x0004, 0, 0, 0, why, sizeof(why)), -EACCES);
	/* why is cut, never overrun. */
	assert_int_equal(ibl_peer_lid_decide(gid_a, 0x0004, 0, GUID_B, 4, tiny, sizeof(tiny)),
			 -EACCES);
	assert_int_equal(strlen(tiny), sizeof(tiny) - 1);
}

static void reply(struct atsd_client_reply *r, int ok, const char *code, const char *msg,
		  char **lines, size_t n)
{
	memset(r, 0, sizeof(*r));
	r->ok = ok;
	snprintf(r->code, sizeof(r->code), "%s", code);
	snprintf(r->message, sizeof(r->message), "%s", msg);
	r->lines = lines;
	r->nlines = n;
}

static void test_lid_from_reply(void **state)
{
	char good[] = "0x0002c903000ab1c2 0x0012", bad[] = "0x0002c903000ab1c2 0xc000",
	     junk[] = "0x0002c903000ab1c2 0x0012 extra";
	char *one[] = { good }, *two[] = { good, good }, *b[] = { bad }, *j[] = { junk };
	/* atsd's reply, what is made of it and why (NULL: not looked at). */
	const struct {
		int ok;
		const char *code, *msg;
		char **lines;
		size_t n;
		int want;
		const char *why;
	} cases[] = {
		{ 1, "", "", one, 1, 0, NULL },
		{ 1, "", "", two, 2, -EPROTO, NULL },
		{ 1, "", "", NULL, 0, -EPROTO, "no answer line" },
		{ 1, "", "", b, 1, -EPROTO, bad },
		{ 1, "", "", j, 1, -EPROTO, NULL },
		{ 0, "ENOENT", "no port holds LID 0x0099", NULL, 0, -ENOENT,
		  "no port holds LID 0x0099" },
		{ 0, "ETIMEDOUT", "the SA did not answer", NULL, 0, -ETIMEDOUT, NULL },
		{ 0, "EWHATEVER", "", NULL, 0, -EIO, NULL },
	};
	struct atsd_client_reply r;
	uint64_t guid = 0;
	uint16_t base = 0;
	char why[128];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		reply(&r, cases[i].ok, cases[i].code, cases[i].msg, cases[i].lines, cases[i].n);
		assert_int_equal(ibl_lid_from_reply(&r, &guid, &base, why, sizeof(why)),
				 cases[i].want);
		if (cases[i].why)
			assert_string_equal(why, cases[i].why);
		if (i == 0) {
			assert_true(guid == GUID_A);
			assert_int_equal(base, 0x12);
		}
	}
}

/* A scripted atsd: every request line is answered with answer. */
struct fake_atsd {
	struct fake_sock_srv srv; /* first: fake_sock_teardown */
	pthread_mutex_t lock;
	char last[ATSD_PROTO_LINE_MAX];
	char answer[256];
	int requests;
};

static void *fake_main(void *arg)
{
	struct fake_atsd *fa = arg;
	int fd;

	while ((fd = accept(fa->srv.lfd, NULL, NULL)) >= 0) {
		char buf[ATSD_PROTO_LINE_MAX], out[256];
		ssize_t n;

		while ((n = read(fd, buf, sizeof(buf) - 1)) > 0) {
			char *nl;

			buf[n] = '\0';
			nl = strchr(buf, '\n');
			if (nl)
				*nl = '\0';
			pthread_mutex_lock(&fa->lock);
			fa->requests++;
			snprintf(fa->last, sizeof(fa->last), "%s", buf);
			snprintf(out, sizeof(out), "%s", fa->answer);
			pthread_mutex_unlock(&fa->lock);
			if (write(fd, out, strlen(out)) < 0)
				break;
		}
		close(fd);
	}
	return NULL;
}

static int fake_setup(void **state)
{
	struct fake_atsd *fa = calloc(1, sizeof(*fa));

	assert_non_null(fa);
	pthread_mutex_init(&fa->lock, NULL);
	fake_sock_start(&fa->srv, fake_main, fa);
	*state = fa;
	return 0;
}

static void fake_says(struct fake_atsd *fa, const char *answer)
{
	pthread_mutex_lock(&fa->lock);
	snprintf(fa->answer, sizeof(fa->answer), "%s", answer);
	pthread_mutex_unlock(&fa->lock);
}

static void test_lid_owner_agent(void **state)
{
	struct fake_atsd *fa = *state;
	struct ibats_opts o = { .socket_path = fa->srv.path, .flags = IBATS_NO_SA,
				.agent_timeout_ms = 2000 };
	struct ibats_info info;
	struct ibats *h;
	uint64_t guid = 0;
	uint16_t base = 0;

	assert_int_equal(ibats_open(&h, &o), 0);
	fake_says(fa, "OK 1\n0x0002c903000ab1c3 0x0004\n");
	assert_int_equal(ibl_lid_owner(h, 0x0004, &guid, &base), 0);
	assert_string_equal(fa->last, "lid 0x0004");
	assert_true(guid == GUID_B);
	assert_int_equal(base, 4);
	assert_int_equal(ibats_lookup_info(h, &info), 0);
	assert_int_equal(info.source, IBATS_BY_AGENT);
	fake_says(fa, "ERR ENOENT no port holds LID 0x0099\n");
	assert_int_equal(ibl_lid_owner(h, 0x0099, &guid, &base), -ENOENT);
	assert_int_equal(ibats_lookup_info(h, &info), 0);
	assert_string_equal(info.agent_msg, "no port holds LID 0x0099");
	/* Garbage: refused, never taken for an owner. */
	fake_says(fa, "OK 1\nport 7 of the fabric\n");
	assert_int_equal(ibl_lid_owner(h, 0x0004, &guid, &base), -EPROTO);
	assert_int_equal(ibats_lookup_info(h, &info), 0);
	assert_string_equal(info.agent_msg, "port 7 of the fabric");
	fake_says(fa, "OK 2\n0x0002c903000ab1c3 0x0004\n0x0002c903000ab1c2 0x0004\n");
	assert_int_equal(ibl_lid_owner(h, 0x0004, &guid, &base), -EPROTO);
	fake_says(fa, "OK 1\n0x0002c903000ab1c3 0x0000\n");
	assert_int_equal(ibl_lid_owner(h, 0x0004, &guid, &base), -EPROTO);
	/* An atsd from before the verb, without the SA to ask instead: its
	 * EINVAL. */
	fake_says(fa, "ERR EINVAL unknown request 'lid' or wrong arguments\n");
	assert_int_equal(ibl_lid_owner(h, 0x0004, &guid, &base), -EINVAL);
	ibats_close(h);
}

/* atsd unreachable: without the SA that is -ECONNREFUSED; with it, the
 * question goes to the SA (here: no port on the test host, an error, never
 * an owner). */
static void test_lid_owner_no_agent(void **state)
{
	struct ibats_opts o = { .socket_path = "/nonexistent/atsd.sock", .flags = IBATS_NO_SA };
	struct ibats_opts o2 = { .flags = IBATS_NO_AGENT, .ca = "no_such_ca0" };
	struct ibats *h;
	uint64_t guid = 1;
	uint16_t base = 1;

	(void)state;
	assert_int_equal(ibats_open(&h, &o), 0);
	assert_int_equal(ibl_lid_owner(h, 0x0004, &guid, &base), -ECONNREFUSED);
	ibats_close(h);
	assert_int_equal(ibats_open(&h, &o2), 0);
	assert_true(ibl_lid_owner(h, 0x0004, &guid, &base) < 0);
	assert_true(guid == 1 && base == 1);
	ibats_close(h);
}

static void test_check_peer_lid_args(void **state)
{
	struct ibats_opts o = { .flags = IBATS_NO_AGENT, .ca = "no_such_ca0" };
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	struct sockaddr_in s4 = { .sin_family = AF_INET };
	struct ibats *h;
	char why[128];

	(void)state;
	assert_int_equal(ibats_check_peer_lid(NULL, gid_a, 4, (struct sockaddr *)&s4, why,
					      sizeof(why)), -EINVAL);
	assert_int_equal(ibats_open(&h, &o), 0);
	assert_int_equal(ibats_check_peer_lid(h, NULL, 4, (struct sockaddr *)&s4, why,
					      sizeof(why)), -EINVAL);
	assert_int_equal(ibats_check_peer_lid(h, gid_a, 4, (struct sockaddr *)&un, why,
					      sizeof(why)), -EINVAL);
	assert_string_equal(why, "the A11 source is not an IP address");
	assert_int_equal(ibats_check_peer_lid(h, gid_a, 4, NULL, NULL, 0), -EINVAL);
	/* No port to read the prefix of: refused with that error, not
	 * accepted. */
	assert_true(ibats_check_peer_lid(h, gid_a, 4, (struct sockaddr *)&s4, why,
					 sizeof(why)) < 0);
	ibats_close(h);
}

TEST_MAIN(
	cmocka_unit_test(test_claim_check),
	cmocka_unit_test(test_lid_decide),
	cmocka_unit_test(test_lid_from_reply),
	cmocka_unit_test_setup_teardown(test_lid_owner_agent, fake_setup, fake_sock_teardown),
	cmocka_unit_test(test_lid_owner_no_agent),
	cmocka_unit_test(test_check_peer_lid_args))
