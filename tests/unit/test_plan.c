/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "model/plan.h"
#include "fixture.h"

#define P ATS_SID_PRIMARY
#define SID(n) ats_sid_at(n)

static struct ats_ip ip(const char *s)
{
	struct ats_ip a;

	assert_int_equal(ats_ip_parse(s, &a), 0);
	return a;
}

static struct plan_want_addr W(const char *s, uint16_t pkey, int primary)
{
	struct plan_want_addr w = { ip(s), pkey, primary };

	return w;
}

static struct plan_held_rec H(uint64_t sid, const char *s, uint16_t pkey)
{
	struct plan_held_rec h = { sid, pkey, ip(s) };

	return h;
}

/* Render actions as "D54 S53=10.0.0.1 ..." for compact assertions. */
static void render(const struct plan_action *a, size_t n, char *buf, size_t len)
{
	size_t i, used = 0;
	char s[ATS_IP_STRLEN];

	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		if (a[i].op == PLAN_DELETE)
			used += (size_t)snprintf(buf + used, len - used, "%sD%02x",
						 i ? " " : "", (unsigned)(a[i].sid & 0xff));
		else
			used += (size_t)snprintf(buf + used, len - used, "%sS%02x=%s",
						 i ? " " : "", (unsigned)(a[i].sid & 0xff),
						 ats_ip_format(&a[i].ip, s, sizeof(s)));
		if (a[i].pkey != 0xffff)
			used += (size_t)snprintf(buf + used, len - used, "/%04x", a[i].pkey);
	}
}

static void expect(const struct plan_want_addr *w, size_t nw, const struct plan_held_rec *h,
		   size_t nh, const char *want)
{
	struct plan_action *a;
	size_t n;
	char buf[1024];

	assert_int_equal(plan_build(w, nw, h, nh, &a, &n), 0);
	render(a, n, buf, sizeof(buf));
	assert_string_equal(buf, want);
	free(a);
}

static void test_fresh_registration(void **state)
{
	struct plan_want_addr w[] = { W("10.0.0.1", 0xffff, 1), W("10.0.1.1", 0xffff, 0),
				 W("fd00::1", 0xffff, 0) };

	(void)state;
	expect(w, 3, NULL, 0, "S53=10.0.0.1 S54=10.0.1.1 S55=fd00::1");
}

static void test_in_sync_does_nothing(void **state)
{
	struct plan_want_addr w[] = { W("10.0.0.1", 0xffff, 1), W("10.0.1.1", 0xffff, 0) };
	struct plan_held_rec h[] = { H(SID(1), "10.0.1.1", 0xffff), H(P, "10.0.0.1", 0xffff) };

	(void)state;
	expect(w, 2, h, 2, "");
}

static void test_primary_swap(void **state)
{
	/* Y becomes primary, X stays as a secondary (ATS 2.1). The secondary
	 * holding Y goes first so the SM never sees Y twice on one port. */
	struct plan_want_addr w[] = { W("10.0.0.2", 0xffff, 1), W("10.0.0.1", 0xffff, 0) };
	struct plan_held_rec h[] = { H(P, "10.0.0.1", 0xffff), H(SID(1), "10.0.0.2", 0xffff) };

	(void)state;
	expect(w, 2, h, 2, "D54 S53=10.0.0.2 S54=10.0.0.1");
}

static void test_primary_replaced(void **state)
{
	struct plan_want_addr w[] = { W("10.0.0.9", 0xffff, 1), W("10.0.1.1", 0xffff, 0) };
	struct plan_held_rec h[] = { H(P, "10.0.0.1", 0xffff), H(SID(1), "10.0.1.1", 0xffff) };

	(void)state;
	expect(w, 2, h, 2, "S53=10.0.0.9");
}

static void test_address_removed(void **state)
{
	struct plan_want_addr w[] = { W("10.0.0.1", 0xffff, 1), W("fd00::3", 0xffff, 0) };
	struct plan_held_rec h[] = { H(P, "10.0.0.1", 0xffff), H(SID(1), "10.0.1.1", 0xffff),
				H(SID(2), "fd00::3", 0xffff) };

	(void)state;
	expect(w, 2, h, 3, "D54");
}

static void test_all_removed_primary_last(void **state)
{
	struct plan_held_rec h[] = { H(P, "10.0.0.1", 0xffff), H(SID(1), "10.0.1.1", 0xffff),
				H(SID(2), "fd00::3", 0xffff) };

	(void)state;
	expect(NULL, 0, h, 3, "D54 D55 D53");
}

static void test_sid_not_reused_while_held(void **state)
{
	/* ...54 and ...56 are held; the new address takes ...55. */
	struct plan_want_addr w[] = { W("10.0.0.1", 0xffff, 1), W("10.0.1.1", 0xffff, 0),
				 W("10.0.3.1", 0xffff, 0), W("10.0.2.1", 0xffff, 0) };
	struct plan_held_rec h[] = { H(P, "10.0.0.1", 0xffff), H(SID(1), "10.0.1.1", 0xffff),
				H(SID(3), "10.0.3.1", 0xffff) };

	(void)state;
	expect(w, 4, h, 3, "S55=10.0.2.1");
}

static void test_wraparound(void **state)
{
	/* Held: primary and ...54..FF (172 records); the next SID is ...00. */
	struct plan_held_rec h[1 + 172];
	struct plan_want_addr w[1 + 173];
	struct plan_action *a;
	size_t n, i;
	char s[32];

	(void)state;
	h[0] = H(P, "10.0.0.1", 0xffff);
	w[0] = W("10.0.0.1", 0xffff, 1);
	for (i = 0; i < 172; i++) {
		snprintf(s, sizeof(s), "10.1.%zu.%zu", i / 200, i % 200 + 1);
		h[1 + i] = H(SID(1 + i), s, 0xffff);
		w[1 + i] = W(s, 0xffff, 0);
	}
	assert_true(SID(172) == 0x10000CE1004154FFull);
	w[173] = W("10.2.0.1", 0xffff, 0);
	assert_int_equal(plan_build(w, 174, h, 173, &a, &n), 0);
	assert_int_equal(n, 1);
	assert_true(a[0].sid == 0x10000CE100415400ull);
	free(a);
}

static void test_full_block(void **state)
{
	struct plan_want_addr w[257];
	struct plan_action *a;
	size_t n, i;
	char s[32];

	(void)state;
	for (i = 0; i < 257; i++) {
		snprintf(s, sizeof(s), "10.3.%zu.%zu", i / 200, i % 200 + 1);
		w[i] = W(s, 0xffff, i == 0);
	}
	assert_int_equal(plan_build(w, 256, NULL, 0, &a, &n), 0);
	assert_int_equal(n, 256);
	free(a);
	assert_int_equal(plan_build(w, 257, NULL, 0, &a, &n), -ENOSPC);
}

static void test_duplicate_held(void **state)
{
	/* An address held twice (a crashed earlier agent): keep the first. */
	struct plan_want_addr w[] = { W("10.0.0.1", 0xffff, 1), W("10.0.1.1", 0xffff, 0) };
	struct plan_held_rec h[] = { H(P, "10.0.0.1", 0xffff), H(SID(2), "10.0.1.1", 0xffff),
				H(SID(1), "10.0.1.1", 0xffff) };

	(void)state;
	expect(w, 2, h, 3, "D55");
}

static void test_pkeys_independent(void **state)
{
	struct plan_want_addr w[] = { W("10.0.0.1", 0xffff, 1), W("10.8.0.1", 0x8001, 1),
				 W("10.8.1.1", 0x8001, 0) };
	struct plan_held_rec h[] = { H(P, "10.0.0.1", 0xffff), H(P, "10.9.0.1", 0x8002) };

	(void)state;
	expect(w, 3, h, 2, "S53=10.8.0.1/8001 S54=10.8.1.1/8001 D53/8002");
}

static void test_want_build(void **state)
{
	struct plan_want_cand c[] = {
		{ ip("fd00::1"), 0xffff, PLAN_WANT_OTHER },
		{ ip("10.0.0.2"), 0xffff, PLAN_WANT_OTHER },
		{ ip("10.0.0.1"), 0xffff, PLAN_WANT_IF_PRIMARY },
		{ ip("10.0.0.2"), 0xffff, PLAN_WANT_OTHER },
		{ ip("10.8.0.5"), 0x8001, PLAN_WANT_OTHER },
		{ ip("10.8.0.6"), 0x8001, PLAN_WANT_OTHER },
	};
	struct plan_want_addr *w;
	size_t n;

	(void)state;
	assert_int_equal(plan_want_build(c, 6, &w, &n), 0);
	assert_int_equal(n, 5);
	assert_false(w[0].primary);
	assert_false(w[1].primary);
	assert_true(w[2].primary);   /* interface primary beats order */
	assert_true(w[3].primary);   /* first of its PKey */
	assert_false(w[4].primary);
	free(w);
	/* A forced primary wins over the interface's. */
	c[1].prio = PLAN_WANT_FORCED;
	assert_int_equal(plan_want_build(c, 6, &w, &n), 0);
	assert_true(w[1].primary);
	assert_false(w[2].primary);
	free(w);
	assert_int_equal(plan_want_build(c, 0, &w, &n), 0);
	assert_int_equal(n, 0);
	assert_null(w);
}

static void expect_foreign(const struct plan_want_addr *w, size_t nw, const struct plan_held_rec *h,
			   size_t nh, const struct plan_held_rec *f, size_t nf, const char *want)
{
	struct plan_action *a;
	size_t n;
	char buf[1024];

	assert_int_equal(plan_build_foreign(w, nw, h, nh, f, nf, &a, &n), 0);
	render(a, n, buf, sizeof(buf));
	assert_string_equal(buf, want);
	free(a);
}

/* An admin's record on our GID: never deleted, its SID never reused. */
static void test_foreign_left_alone(void **state)
{
	struct plan_want_addr w[] = { W("10.0.0.1", 0xffff, 1), W("10.0.1.1", 0xffff, 0) };
	struct plan_held_rec h[] = { H(P, "10.0.0.1", 0xffff), H(SID(1), "10.0.5.5", 0xffff) };
	struct plan_held_rec f[] = { H(SID(2), "10.0.7.7", 0xffff) };

	(void)state;
	/* Ours on ...54 is stale: deleted; the admin's ...55 stays. */
	expect_foreign(w, 1, h, 2, f, 1, "D54");
	/* A new address skips the admin's SID. */
	expect_foreign(w, 2, h, 1, f, 1, "S54=10.0.1.1");
	{
		struct plan_held_rec f2[] = { H(SID(1), "10.0.7.7", 0xffff) };

		expect_foreign(w, 2, h, 1, f2, 1, "S55=10.0.1.1");
	}
	/* Nothing wanted: only ours go. */
	expect_foreign(NULL, 0, h, 2, f, 1, "D54 D53");
}

static void test_foreign_carries_wanted(void **state)
{
	struct plan_want_addr w[] = { W("10.0.0.1", 0xffff, 1), W("10.0.1.1", 0xffff, 0) };
	struct plan_held_rec f[] = { H(SID(3), "10.0.1.1", 0xffff) };
	struct plan_held_rec fp[] = { H(P, "10.0.9.9", 0xffff) };

	(void)state;
	/* The admin registered 10.0.1.1 already: no duplicate of ours. */
	expect_foreign(w, 2, NULL, 0, f, 1, "S53=10.0.0.1");
	/* The admin holds the primary SID: our primary goes to a secondary. */
	expect_foreign(w, 2, NULL, 0, fp, 1, "S54=10.0.0.1 S55=10.0.1.1");
}

static void test_refusal_words(void **state)
{
	(void)state;
	assert_false(plan_is_refusal(0));          /* no answer */
	assert_false(plan_is_refusal(0x0001));     /* BUSY */
	assert_false(plan_is_refusal(0x0100));     /* ERR_NO_RESOURCES */
	assert_true(plan_is_refusal(0x0200));      /* ERR_REQ_INVALID */
	assert_true(plan_is_refusal(0x0700));      /* ERR_REQ_DENIED */
}

/* One refused address leaves the others, and the primary moves on. */
static void test_want_drop_refused(void **state)
{
	struct plan_want_addr w[] = { W("10.0.0.1", 0xffff, 1), W("10.0.0.2", 0xffff, 0),
				 W("10.0.0.3", 0xffff, 0) };
	struct plan_refused r[2];
	size_t n = 3;

	(void)state;
	memset(r, 0, sizeof(r));
	r[0].ip = ip("10.0.0.2");
	r[0].pkey = 0xffff;
	r[0].retry_at = 1000;
	plan_want_drop_refused(w, &n, r, 1, 999);
	assert_int_equal(n, 2);
	assert_true(w[0].primary);
	assert_true(ats_ip_equal(&w[1].ip, &r[0].ip) == 0);
	expect(w, n, NULL, 0, "S53=10.0.0.1 S54=10.0.0.3");
	/* Due for a retry: kept. */
	{
		struct plan_want_addr w2[] = { W("10.0.0.1", 0xffff, 1), W("10.0.0.2", 0xffff, 0) };

		n = 2;
		plan_want_drop_refused(w2, &n, r, 1, 1000);
		assert_int_equal(n, 2);
	}
	/* The primary refused: the next address takes the primary SID. */
	{
		struct plan_want_addr w3[] = { W("10.0.0.1", 0xffff, 1), W("10.0.0.2", 0xffff, 0),
					  W("10.0.0.3", 0x8001, 1) };

		r[0].ip = ip("10.0.0.1");
		n = 3;
		plan_want_drop_refused(w3, &n, r, 1, 0);
		assert_int_equal(n, 2);
		assert_true(w3[0].primary);
		assert_true(w3[1].primary);
		expect(w3, n, NULL, 0, "S53=10.0.0.2 S53=10.0.0.3/8001");
	}
}

TEST_MAIN(
	cmocka_unit_test(test_fresh_registration),
	cmocka_unit_test(test_in_sync_does_nothing),
	cmocka_unit_test(test_primary_swap),
	cmocka_unit_test(test_primary_replaced),
	cmocka_unit_test(test_address_removed),
	cmocka_unit_test(test_all_removed_primary_last),
	cmocka_unit_test(test_sid_not_reused_while_held),
	cmocka_unit_test(test_wraparound),
	cmocka_unit_test(test_full_block),
	cmocka_unit_test(test_duplicate_held),
	cmocka_unit_test(test_pkeys_independent),
	cmocka_unit_test(test_want_build),
	cmocka_unit_test(test_foreign_left_alone),
	cmocka_unit_test(test_foreign_carries_wanted),
	cmocka_unit_test(test_refusal_words),
	cmocka_unit_test(test_want_drop_refused))
