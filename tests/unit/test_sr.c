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

#include "core/ats.h"
#include "golden.h"
#include "core/sr.h"
#include "fixture.h"

static void golden_record(struct sr_record *r)
{
	struct ats_ip ip;
	uint8_t gid[16];

	assert_int_equal(ats_ip_parse("192.168.1.10", &ip), 0);
	assert_int_equal(ats_gid_parse("fe80::2:c903:a:b1c2", gid), 0);
	ats_record_init(r, ATS_SID_PRIMARY, gid, 0xffff, SR_LEASE_INFINITE, &ip);
}

static void test_encode_golden(void **state)
{
	struct sr_record r;
	uint8_t buf[SR_SIZE];

	(void)state;
	golden_record(&r);
	sr_encode(buf, &r);
	assert_memory_equal(buf, golden_sr_v4, SR_SIZE);
}

static void test_decode_golden(void **state)
{
	struct sr_record r, want;

	(void)state;
	golden_record(&want);
	assert_int_equal(sr_decode(golden_sr_v4, SR_SIZE, &r), 0);
	assert_memory_equal(&r, &want, sizeof(r));
}

static void test_roundtrip_all_fields(void **state)
{
	struct sr_record r, d;
	uint8_t buf[SR_SIZE];
	unsigned i;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.id = 0x0123456789abcdefull;
	for (i = 0; i < 16; i++) {
		r.gid[i] = (uint8_t)(0xa0 + i);
		r.key[i] = (uint8_t)i;
		r.data8[i] = (uint8_t)(0xf0 - i);
	}
	r.pkey = 0x8001;
	r.resv = 0x5a5a;
	r.lease = 3600;
	for (i = 0; i < SR_NAME_LEN; i++)
		r.name[i] = (uint8_t)(i + 1);
	for (i = 0; i < 8; i++)
		r.data16[i] = (uint16_t)(0x1100 * (i + 1));
	for (i = 0; i < 4; i++)
		r.data32[i] = 0x10203040u * (i + 1);
	r.data64[0] = 0x1122334455667788ull;
	r.data64[1] = 0x99aabbccddeeff00ull;
	sr_encode(buf, &r);
	/* Spot-check offsets of Table 207. */
	assert_int_equal(buf[SR_OFF_PKEY], 0x80);
	assert_int_equal(buf[SR_OFF_RESV], 0x5a);
	assert_int_equal(buf[SR_OFF_LEASE + 3], 0x10);
	assert_int_equal(buf[SR_OFF_DATA16], 0x11);
	assert_int_equal(buf[SR_OFF_DATA32 + 3], 0x40);
	assert_int_equal(buf[SR_OFF_DATA64 + 15], 0x00);
	assert_int_equal(buf[SR_OFF_DATA64 + 8], 0x99);
	assert_int_equal(sr_decode(buf, sizeof(buf), &d), 0);
	assert_memory_equal(&r, &d, sizeof(r));
}

static void test_decode_truncated(void **state)
{
	struct sr_record r;
	size_t len;

	(void)state;
	for (len = 0; len < SR_SIZE; len++)
		assert_int_equal(sr_decode(golden_sr_v4, len, &r), -EMSGSIZE);
}

static void test_comp_mask_table(void **state)
{
	(void)state;
	assert_true(sr_comp_mask(SR_F_ID) == 0x1);
	assert_true(sr_comp_mask(SR_F_GID) == 0x2);
	assert_true(sr_comp_mask(SR_F_PKEY) == 0x4);
	assert_true(sr_comp_mask(SR_F_LEASE) == 0x10);
	assert_true(sr_comp_mask(SR_F_KEY) == 0x20);
	assert_true(sr_comp_mask(SR_F_NAME) == 0x40);
	assert_true(sr_comp_mask(SR_F_DATA8) == 0x7fff80ull);
	assert_true(sr_comp_mask(SR_F_DATA16) == 0x7f800000ull);
	assert_true(sr_comp_mask(SR_F_DATA32) == 0x780000000ull);
	assert_true(sr_comp_mask(SR_F_DATA64) == 0x1800000000ull);
	/* ATS forward query, Table 2: PKey, Name, Data8. */
	assert_true(sr_comp_mask(SR_F_PKEY | SR_F_NAME | SR_F_DATA8) ==
		    0x7fffc4ull);
}

static void test_match(void **state)
{
	uint8_t q[SR_SIZE];
	uint64_t mask = sr_comp_mask(SR_F_ID | SR_F_GID | SR_F_NAME | SR_F_DATA8);

	(void)state;
	memcpy(q, golden_sr_v4, SR_SIZE);
	assert_true(sr_match(golden_sr_v4, q, mask));
	q[SR_OFF_LEASE] = 0; /* lease not in the mask */
	assert_true(sr_match(golden_sr_v4, q, mask));
	q[SR_OFF_DATA8 + 15] ^= 1; /* Data8[15]: bit 22 */
	assert_false(sr_match(golden_sr_v4, q, mask));
	assert_true(sr_match(golden_sr_v4, q, mask & ~(1ull << 22)));
	q[SR_OFF_NAME + 63] = 1;
	assert_false(sr_match(golden_sr_v4, q, sr_comp_mask(SR_F_NAME)));
	assert_true(sr_match(golden_sr_v4, q, 0));
}

/* An answer keeps what OpenSM compares; the lease and reserved field
 * it ignores and the ServiceKey it zeroes do not make a record foreign. */
static void test_answers(void **state)
{
	uint64_t all = sr_comp_mask(SR_F_ID | SR_F_GID | SR_F_PKEY | SR_F_LEASE | SR_F_KEY |
				    SR_F_NAME | SR_F_DATA8 | SR_F_DATA64) | 1ull << SR_CM_RESV;
	uint8_t q[SR_SIZE], ans[3 * 184];
	struct sr_record *v;

	(void)state;
	memcpy(q, golden_sr_v4, SR_SIZE);
	q[SR_OFF_LEASE + 3] ^= 1;
	q[SR_OFF_RESV] ^= 1;
	q[SR_OFF_KEY] ^= 1;
	assert_true(sr_answers(golden_sr_v4, q, all));
	q[SR_OFF_GID + 15] ^= 1; /* another port's record */
	assert_false(sr_answers(golden_sr_v4, q, all));
	assert_true(sr_answers(golden_sr_v4, q, all & ~sr_comp_mask(SR_F_GID)));

	/* A table at a longer stride (AttributeOffset 23): 3 records. */
	memset(ans, 0xee, sizeof(ans));
	memcpy(ans, golden_sr_v4, SR_SIZE);
	memcpy(ans + 184, golden_sr_v4, SR_SIZE);
	memcpy(ans + 368, golden_sr_v4, SR_SIZE);
	memcpy(q, golden_sr_v4, SR_SIZE);
	assert_int_equal(sr_table_decode(ans, 3, 184, q, all, &v), 0);
	assert_memory_equal(v[2].gid, golden_sr_v4 + SR_OFF_GID, 16);
	free(v);
	/* One more record than the query selects: no answer at all. */
	ans[368 + SR_OFF_GID + 15] ^= 1;
	v = (struct sr_record *)ans;
	assert_int_equal(sr_table_decode(ans, 3, 184, q, all, &v), -EPROTO);
	assert_null(v);
	assert_int_equal(sr_table_decode(ans, 2, 184, q, all, &v), 0);
	free(v);
	/* A stride short of a record, or none. */
	assert_int_equal(sr_table_decode(ans, 2, SR_SIZE - 8, q, 0, &v), -EPROTO);
	assert_int_equal(sr_table_decode(ans, 0, 0, q, all, &v), 0);
	assert_null(v);
}

static void test_field_names(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(sr_cm_field_name(0, b, sizeof(b)), "ServiceID");
	assert_string_equal(sr_cm_field_name(22, b, sizeof(b)), "ServiceData8[15]");
	assert_string_equal(sr_cm_field_name(23, b, sizeof(b)), "ServiceData16[0]");
	assert_string_equal(sr_cm_field_name(36, b, sizeof(b)), "ServiceData64[1]");
	assert_string_equal(sr_cm_field_name(40, b, sizeof(b)), "reserved bit 40");
}

static void test_decode_random_bytes(void **state)
{
	uint8_t buf[SR_SIZE];
	struct sr_record r;
	const char *why;
	unsigned i, j;

	(void)state;
	srand(1);
	for (i = 0; i < 2000; i++) {
		for (j = 0; j < SR_SIZE; j++)
			buf[j] = (uint8_t)rand();
		assert_int_equal(sr_decode(buf, sizeof(buf), &r), 0);
		(void)ats_record_check(&r, &why);
	}
}

/* The same record as stock saquery -S -K printed it (captured under ibsim
 * from a record atsctl registered): every field must agree with our
 * encoding. */
static void test_matches_saquery_capture(void **state)
{
	char path[512], line[256], name[64], val[128];
	struct sr_record r;
	struct ats_ip ip;
	uint8_t gid[16], buf[SR_SIZE];
	unsigned fields = 0;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/tests/unit/saquery-S-v4.txt", TEST_SRCDIR);
	f = fopen(path, "r");
	assert_non_null(f);
	ats_gid_parse("fe80::10:3", gid);
	ats_ip_parse("192.168.1.10", &ip);
	ats_record_init(&r, ATS_SID_PRIMARY, gid, 0xffff, SR_LEASE_INFINITE, &ip);
	sr_encode(buf, &r);
	while (fgets(line, sizeof(line), f)) {
		char *dots = strstr(line, "..");
		unsigned long long v;
		unsigned idx;

		if (!dots)
			continue;
		memset(name, 0, sizeof(name));
		memcpy(name, line, (size_t)(dots - line) < sizeof(name) - 1 ?
		       (size_t)(dots - line) : sizeof(name) - 1);
		memmove(name, name + strspn(name, "\t "), strlen(name) + 1);
		snprintf(val, sizeof(val), "%s", dots + strspn(dots, "."));
		val[strcspn(val, "\n")] = '\0';
		v = strtoull(val, NULL, 0);
		fields++;
		if (!strcmp(name, "ServiceID")) {
			assert_true(v == r.id);
		} else if (!strcmp(name, "ServiceGID")) {
			char g[ATS_IP_STRLEN];

			assert_string_equal(val, ats_gid_format(r.gid, g, sizeof(g)));
		} else if (!strcmp(name, "ServiceP_Key")) {
			assert_true(v == r.pkey);
		} else if (!strcmp(name, "ServiceLease")) {
			assert_true(v == r.lease);
		} else if (!strcmp(name, "ServiceKey")) {
			assert_string_equal(val, "0x00000000000000000000000000000000");
		} else if (!strcmp(name, "ServiceName")) {
			assert_memory_equal(val, buf + SR_OFF_NAME, strlen(val) + 1);
		} else if (sscanf(name, "ServiceData8.%u", &idx) == 1) {
			assert_true(idx >= 1 && idx <= 16);
			assert_true(v == buf[SR_OFF_DATA8 + idx - 1]);
		} else if (sscanf(name, "ServiceData16.%u", &idx) == 1) {
			assert_true(v == r.data16[idx - 1]);
		} else if (sscanf(name, "ServiceData32.%u", &idx) == 1) {
			assert_true(v == r.data32[idx - 1]);
		} else if (sscanf(name, "ServiceData64.%u", &idx) == 1) {
			assert_true(v == r.data64[idx - 1]);
		} else {
			fail_msg("unexpected saquery field %s", name);
		}
	}
	fclose(f);
	assert_int_equal(fields, 6 + 16 + 8 + 4 + 2);
}

TEST_MAIN(
	cmocka_unit_test(test_encode_golden),
	cmocka_unit_test(test_decode_golden),
	cmocka_unit_test(test_roundtrip_all_fields),
	cmocka_unit_test(test_decode_truncated),
	cmocka_unit_test(test_comp_mask_table),
	cmocka_unit_test(test_match),
	cmocka_unit_test(test_answers),
	cmocka_unit_test(test_field_names),
	cmocka_unit_test(test_decode_random_bytes),
	cmocka_unit_test(test_matches_saquery_capture))
