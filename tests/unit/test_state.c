#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "ats.h"
#include "state.h"

static void test_write_and_read_back(void **state)
{
	char dir[] = "/tmp/osmats-state-XXXXXX", path[128], tmp[140], buf[4096];
	struct state_counters cnt = { 0 };
	struct state_index idx = { 2, 1024, 1, 5, 0, 20000, 3, 9000 };
	struct state_info info = { "master", "OpenSM 3.3.23", 1700000000 };
	struct state_rec recs[2];
	struct state_summary sum;
	struct sr_record r;
	struct ats_ip ip;
	uint8_t gid[16];
	FILE *f;
	size_t n;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/state.json", dir);
	memset(recs, 0, sizeof(recs));
	ats_gid_parse("fe80::10:3", gid);
	ats_ip_parse("10.0.0.1", &ip);
	ats_record_init(&r, ATS_SID_PRIMARY, gid, 0xffff, SR_LEASE_INFINITE, &ip);
	memset(&sum, 0, sizeof(sum));
	state_summary_add(&sum, &r, 1);
	r.pkey = 0x7fff;
	state_summary_add(&sum, &r, 1);
	state_summary_add(&sum, &r, 0);
	r.pkey = 0xffff;
	state_rec_from(&recs[0], &r);
	recs[0].port_present = 1;
	ats_ip_parse("fd00::1", &ip);
	ats_record_init(&r, ATS_SID_PRIMARY + 1, gid, 0x8001, 60, &ip);
	state_rec_from(&recs[1], &r);
	recs[1].missing_sweeps = 2;
	sum.absent = 7;
	sum.scanned = 1700000000;
	cnt.accepted = 7;
	cnt.rejected[POL_OWNER] = 3;
	cnt.warned[POL_DUP_ADDR] = 1;
	cnt.flushed = 4;
	assert_int_equal(state_write(path, &info, &sum, recs, 2, &cnt, &idx), 0);

	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	assert_non_null(strstr(buf, "\"sm_state\": \"master\""));
	assert_non_null(strstr(buf, "\"accepted\": 7"));
	assert_non_null(strstr(buf, "\"ownership\": 3"));
	assert_non_null(strstr(buf, "\"flushed\": 4"));
	assert_non_null(strstr(buf, "\"index\": {\"records\": 2, \"bytes\": 1024, \"rebuilds\": 1, "
				    "\"gets_indexed\": 5, \"gets_fallback\": 0, \"get_avg_ns\": 4000, "
				    "\"sets\": 3, \"set_avg_ns\": 3000}"));
	assert_non_null(strstr(buf, "{\"sid\": \"0x10000ce100415453\", \"gid\": \"fe80::10:3\", "
				    "\"pkey\": \"0xffff\", \"lease\": 4294967295, \"ip\": \"10.0.0.1\", "
				    "\"port_present\": true, \"missing_sweeps\": 0}"));
	assert_non_null(strstr(buf, "\"ip\": \"fd00::1\", \"port_present\": false, \"missing_sweeps\": 2"));
	assert_non_null(strstr(buf, "\"services\": {\"ats\": 2, \"other\": 1, \"scanned\": 1700000000}"));
	/* One P_Key a line, as atsctl audit --state reads them. */
	assert_non_null(strstr(buf, "\n    {\"pkey\": \"0xffff\", \"ats_records\": 1},\n"
				    "    {\"pkey\": \"0x7fff\", \"ats_records\": 1}\n  ],"));
	assert_non_null(strstr(buf, "\"absent\": 7,"));
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	assert_int_equal(access(tmp, F_OK), -1);

	/* Empty database, replacing the previous file. */
	memset(&sum, 0, sizeof(sum));
	assert_int_equal(state_write(path, &info, &sum, NULL, 0, &cnt, &idx), 0);
	f = fopen(path, "r");
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	assert_non_null(strstr(buf, "\"absent_records\": []"));
	assert_non_null(strstr(buf, "\"partitions\": [],"));
	unlink(path);
	rmdir(dir);
}

static void test_unwritable(void **state)
{
	struct state_counters cnt = { 0 };
	struct state_index idx = { 0 };
	struct state_info info = { "master", "OpenSM 3.3.23", 0 };
	struct state_summary sum = { 0 };

	(void)state;
	assert_int_equal(state_write("/nonexistent/dir/state.json", &info, &sum, NULL, 0, &cnt, &idx),
			 -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_and_read_back),
		cmocka_unit_test(test_unwritable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
