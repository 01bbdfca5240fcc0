/* The replication MADs (lib/core/repl.h): golden bytes of a pull laid out
 * by hand, round trips of every answer kind, short and foreign MADs. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "ats.h"
#include "mad.h"
#include "repl.h"

static void test_pull_golden(void **state)
{
	static const uint8_t head[24] = {
		0x01, 0x35, 0x01, 0x01, 0, 0, 0, 0,              /* Get, class 0x35 v1 */
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,  /* TID */
		0xff, 0x10, 0, 0, 0, 0, 0, 0,                    /* attr 0xFF10, mod 0 */
	};
	struct repl_pull p = { .epoch = 0x1122334455667788ull, .next = 42,
			       .sm_key = 0x5a5a, .flags = REPL_FLAG_SNAPSHOT }, q;
	uint8_t mad[MAD_SIZE];

	(void)state;
	repl_pull_encode(mad, 0x0102030405060708ull, &p);
	assert_memory_equal(mad, head, sizeof(head));
	assert_int_equal(mad[37], 0x00); /* OpenIB OUI 0x001405 at 37..39 */
	assert_int_equal(mad[38], 0x14);
	assert_int_equal(mad[39], 0x05);
	assert_int_equal(mad[40], 0x11);
	assert_int_equal(mad[47], 0x88);
	assert_int_equal(mad[55], 42);
	assert_int_equal(mad[62], 0x5a);
	assert_int_equal(mad[63], 0x5a);
	assert_int_equal(mad[64], REPL_FLAG_SNAPSHOT);
	assert_int_equal(repl_pull_decode(mad, sizeof(mad), &q), 0);
	assert_true(q.epoch == p.epoch && q.next == p.next && q.sm_key == p.sm_key);
	assert_int_equal(q.flags, p.flags);
}

static void test_answer_round_trip(void **state)
{
	struct repl_answer a = { .epoch = 7, .head = 900, .seq = 12, .kind = REPL_DELETE,
				 .lease_left = 30, .pos = 0, .total = 0 }, b;
	struct ats_ip ip;
	uint8_t mad[MAD_SIZE], gid[16] = { 0xfe, 0x80, [15] = 3 };
	int k;

	(void)state;
	ats_ip_parse("10.0.0.1", &ip);
	ats_record_init(&a.rec, ATS_SID_PRIMARY, gid, 0xffff, 30, &ip);
	for (k = 0; k < REPL_KINDS; k++) {
		a.kind = (enum repl_kind)k;
		repl_answer_encode(mad, 99, &a);
		assert_int_equal(mad[3], 0x81); /* GetResp */
		assert_int_equal(repl_answer_decode(mad, sizeof(mad), &b), 0);
		assert_int_equal(b.kind, k);
		assert_true(b.epoch == 7 && b.head == 900 && b.seq == 12 && b.lease_left == 30);
		if (k == REPL_SET || k == REPL_DELETE || k == REPL_SNAP_RECORD)
			assert_memory_equal(&b.rec, &a.rec, sizeof(a.rec));
	}
}

static void test_hostile(void **state)
{
	struct repl_answer a = { .kind = REPL_NONE }, b;
	struct repl_pull p = { 0 }, q;
	uint8_t mad[MAD_SIZE];

	(void)state;
	repl_answer_encode(mad, 1, &a);
	assert_int_equal(repl_answer_decode(mad, MAD_SIZE - 1, &b), -EMSGSIZE);
	assert_int_equal(repl_pull_decode(mad, sizeof(mad), &q), -EPROTO); /* a GetResp */
	mad[64] = REPL_KINDS;
	assert_int_equal(repl_answer_decode(mad, sizeof(mad), &b), -EPROTO);
	repl_pull_encode(mad, 1, &p);
	mad[1] = 0x34; /* liveness, not ours */
	assert_int_equal(repl_pull_decode(mad, sizeof(mad), &q), -EPROTO);
	repl_pull_encode(mad, 1, &p);
	mad[39] = 0x06; /* another OUI */
	assert_int_equal(repl_pull_decode(mad, sizeof(mad), &q), -EPROTO);
	repl_pull_encode(mad, 1, &p);
	mad[17] = 0x11; /* another attribute */
	assert_int_equal(repl_pull_decode(mad, sizeof(mad), &q), -EPROTO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pull_golden),
		cmocka_unit_test(test_answer_round_trip),
		cmocka_unit_test(test_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
