#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "golden.h"
#include "policy.h"
#include "sa.h"

static void make_set(uint8_t *mad)
{
	memset(mad, 0, MAD_SIZE);
	memcpy(mad, golden_sa_set_hdr, sizeof(golden_sa_set_hdr));
	memcpy(mad + SA_OFF_DATA, golden_sr_v4, sizeof(golden_sr_v4));
}

static void test_valid_passes(void **state)
{
	uint8_t mad[MAD_SIZE];
	struct pol_decision d;

	(void)state;
	make_set(mad);
	pol_check_set(mad, sizeof(mad), &d);
	assert_int_equal(d.rule, POL_PASS);
	assert_true(d.is_ats);
}

static void test_sid_outside_block(void **state)
{
	uint8_t mad[MAD_SIZE];
	struct pol_decision d;

	(void)state;
	make_set(mad);
	mad[SA_OFF_DATA + SR_OFF_ID + 6] = 0x55; /* ...4153 -> ...5553 */
	pol_check_set(mad, sizeof(mad), &d);
	assert_int_equal(d.rule, POL_SID_BLOCK);
	assert_string_equal(pol_rule_code(d.rule), "7A01");
	assert_string_equal(pol_rule_name(d.rule), "sid-block");
}

static void test_wrong_name(void **state)
{
	uint8_t mad[MAD_SIZE];
	struct pol_decision d;

	(void)state;
	make_set(mad);
	memcpy(mad + SA_OFF_DATA + SR_OFF_NAME, "My Service", 11);
	pol_check_set(mad, sizeof(mad), &d);
	assert_int_equal(d.rule, POL_NAME);
	make_set(mad);
	mad[SA_OFF_DATA + SR_OFF_NAME + 63] = 'x';
	pol_check_set(mad, sizeof(mad), &d);
	assert_int_equal(d.rule, POL_NAME);
	assert_string_equal(d.why, "ServiceName is not zero-padded");
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
	};
	uint8_t mad[MAD_SIZE];
	struct pol_decision d;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		make_set(mad);
		memcpy(mad + SA_OFF_DATA + SR_OFF_DATA8, bad[i], 16);
		pol_check_set(mad, sizeof(mad), &d);
		assert_int_equal(d.rule, POL_ADDR);
		assert_non_null(d.why);
	}
}

static void test_other_services_untouched(void **state)
{
	uint8_t mad[MAD_SIZE];
	struct pol_decision d;

	(void)state;
	make_set(mad);
	mad[SA_OFF_DATA] = 0x20; /* other SID */
	memcpy(mad + SA_OFF_DATA + SR_OFF_NAME, "other", 6);
	memset(mad + SA_OFF_DATA + SR_OFF_DATA8, 0, 16);
	pol_check_set(mad, sizeof(mad), &d);
	assert_int_equal(d.rule, POL_PASS);
	assert_false(d.is_ats);
}

static void test_short_mad_passes(void **state)
{
	uint8_t mad[MAD_SIZE];
	struct pol_decision d;
	size_t len;

	(void)state;
	make_set(mad);
	mad[SA_OFF_DATA] = 0; /* would be rule 1 if decoded */
	for (len = 0; len < SA_OFF_DATA + SR_SIZE; len++) {
		pol_check_set(mad, len, &d);
		assert_int_equal(d.rule, POL_PASS);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_passes),
		cmocka_unit_test(test_sid_outside_block),
		cmocka_unit_test(test_wrong_name),
		cmocka_unit_test(test_bad_address),
		cmocka_unit_test(test_other_services_untouched),
		cmocka_unit_test(test_short_mad_passes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
