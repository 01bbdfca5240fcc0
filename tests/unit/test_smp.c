#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "smp.h"

/* OpenSM 3.3.23's SMInfo probe of a port whose IsSM ibsim had just set,
 * captured with ibsim's "Verbose 3": SubnGet(SMInfo), directed route,
 * hop count 2, TID 0x00000002000012da, M_Key 0, DrSLID/DrDLID permissive,
 * initial path 0,1,3. Bytes not listed are zero. */
static const uint8_t probe_head[40] = {
	0x01, 0x81, 0x01, 0x01, 0x00, 0x00, 0x00, 0x02,
	0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x12, 0xda,
	0x00, 0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00,
};
static const uint8_t probe_path[3] = { 0x00, 0x01, 0x03 };

/* What the agent sent back in the same capture (return path 1,1,1 filled
 * in by ibsim on the way): the first 8 bytes change, nothing else. */
static const uint8_t answer_first8[8] = {
	0x01, 0x81, 0x01, 0x81, 0x80, 0x0c, 0x00, 0x02,
};

static void make_probe(uint8_t *mad)
{
	memset(mad, 0, MAD_SIZE);
	memcpy(mad, probe_head, sizeof(probe_head));
	memcpy(mad + SMP_OFF_INITIAL_PATH, probe_path, sizeof(probe_path));
	mad[SMP_OFF_RETURN_PATH] = 1;
	mad[SMP_OFF_RETURN_PATH + 1] = 1;
	mad[SMP_OFF_RETURN_PATH + 2] = 1;
}

static void test_probe_golden(void **state)
{
	uint8_t req[MAD_SIZE], resp[MAD_SIZE];

	(void)state;
	make_probe(req);
	assert_int_equal(smp_refuse(req, sizeof(req), resp, sizeof(resp)), MAD_SIZE);
	assert_memory_equal(resp, answer_first8, 8);
	/* TID, attribute, M_Key, DR LIDs, data and both paths as they came. */
	assert_memory_equal(resp + 8, req + 8, MAD_SIZE - 8);
}

static void test_lid_routed(void **state)
{
	uint8_t req[MAD_SIZE], resp[MAD_SIZE];

	(void)state;
	make_probe(req);
	req[MAD_OFF_MGMT_CLASS] = SMP_CLASS_LID;
	req[SMP_OFF_HOP_COUNT] = 0;
	assert_int_equal(smp_refuse(req, sizeof(req), resp, sizeof(resp)), MAD_SIZE);
	/* No direction bit outside directed route. */
	assert_int_equal(resp[MAD_OFF_STATUS], 0x00);
	assert_int_equal(resp[MAD_OFF_STATUS + 1], 0x0c);
	assert_int_equal(resp[MAD_OFF_METHOD], 0x81);
}

static void test_set_and_other_attributes(void **state)
{
	uint8_t req[MAD_SIZE], resp[MAD_SIZE];
	size_t i;

	(void)state;
	make_probe(req);
	req[MAD_OFF_METHOD] = MAD_METHOD_SET; /* a handover */
	memset(req + SMP_OFF_DATA, 0xa5, SMP_DATA_SIZE);
	assert_int_equal(smp_refuse(req, sizeof(req), resp, sizeof(resp)), MAD_SIZE);
	assert_int_equal(resp[MAD_OFF_METHOD], 0x81);
	assert_int_equal(resp[MAD_OFF_STATUS], 0x80);
	assert_int_equal(resp[MAD_OFF_STATUS + 1], 0x0c);
	for (i = 0; i < SMP_DATA_SIZE; i++)
		assert_int_equal(resp[SMP_OFF_DATA + i], 0);
	make_probe(req);
	req[MAD_OFF_ATTR_ID + 1] = 0x15; /* PortInfo */
	assert_int_equal(smp_refuse(req, sizeof(req), resp, sizeof(resp)), MAD_SIZE);
	assert_int_equal(resp[MAD_OFF_STATUS + 1], 0x0c);
}

/* Nothing that is not a request to this port gets an answer. */
static void test_not_answered(void **state)
{
	static const uint8_t methods[] = { 0x81, 0x05, 0x07, 0x03, 0x00, 0xff };
	uint8_t req[MAD_SIZE], resp[MAD_SIZE];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(methods); i++) {
		make_probe(req);
		req[MAD_OFF_METHOD] = methods[i];
		assert_int_equal(smp_refuse(req, sizeof(req), resp, sizeof(resp)), 0);
	}
	make_probe(req);
	req[MAD_OFF_STATUS] = 0x80; /* directed route, returning */
	assert_int_equal(smp_refuse(req, sizeof(req), resp, sizeof(resp)), 0);
	make_probe(req);
	req[MAD_OFF_MGMT_CLASS] = 0x03; /* SA */
	assert_int_equal(smp_refuse(req, sizeof(req), resp, sizeof(resp)), 0);
	make_probe(req);
	req[MAD_OFF_BASE_VERSION] = 2;
	assert_int_equal(smp_refuse(req, sizeof(req), resp, sizeof(resp)), 0);
	make_probe(req);
	for (i = 0; i < MAD_SIZE; i++)
		assert_int_equal(smp_refuse(req, i, resp, sizeof(resp)), 0);
	assert_int_equal(smp_refuse(req, sizeof(req), resp, MAD_SIZE - 1), 0);
}

/* atsd's own SubnGet(PortInfo) to its port, as ibsim's "Verbose 3"
 * printed it (the TID is stamped when sending): directed route, hop count
 * 0, attribute modifier 1 (the port), DrSLID and DrDLID permissive. */
static const uint8_t portinfo_req_head[36] = {
	0x01, 0x81, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x15, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0xff, 0xff, 0xff, 0xff,
};

static void test_portinfo_request_golden(void **state)
{
	uint8_t mad[MAD_SIZE];
	size_t i;

	(void)state;
	memset(mad, 0xee, sizeof(mad));
	smp_portinfo_request(mad, 1);
	assert_memory_equal(mad, portinfo_req_head, sizeof(portinfo_req_head));
	for (i = sizeof(portinfo_req_head); i < MAD_SIZE; i++)
		assert_int_equal(mad[i], 0);
}

/* A PortInfo answer laid out from 14.2.5.6: LID 0x0005, MasterSMLID
 * 0x0006, PortState Active under LinkSpeedSupported 1, LMC 2 under
 * M_KeyProtectBits 1, MasterSMSL 3 under NeighborMTU 4. */
static void make_portinfo_resp(uint8_t *mad)
{
	uint8_t *d = mad + SMP_OFF_DATA;

	smp_portinfo_request(mad, 1);
	mad[MAD_OFF_METHOD] = 0x81;
	mad[SMP_OFF_STATUS] = 0x80;
	d[16] = 0x00; d[17] = 0x05;
	d[18] = 0x00; d[19] = 0x06;
	d[32] = 0x14;
	d[34] = 0x42;
	d[36] = 0x43;
}

static void test_portinfo_parse(void **state)
{
	uint8_t mad[MAD_SIZE];
	struct smp_portinfo pi;

	(void)state;
	make_portinfo_resp(mad);
	assert_int_equal(smp_portinfo_parse(mad, sizeof(mad), &pi), 0);
	assert_int_equal(pi.lid, 5);
	assert_int_equal(pi.sm_lid, 6);
	assert_int_equal(pi.state, 4);
	assert_int_equal(pi.lmc, 2);
	assert_int_equal(pi.sm_sl, 3);
}

static void test_portinfo_parse_hostile(void **state)
{
	uint8_t mad[MAD_SIZE];
	struct smp_portinfo pi;
	size_t len;

	(void)state;
	make_portinfo_resp(mad);
	for (len = 0; len < MAD_SIZE; len++)
		assert_int_equal(smp_portinfo_parse(mad, len, &pi), -EMSGSIZE);
	mad[SMP_OFF_STATUS + 1] = 0x0c; /* the SMA refused */
	assert_int_equal(smp_portinfo_parse(mad, sizeof(mad), &pi), -EREMOTEIO);
	assert_int_equal(pi.sm_lid, 0);
	make_portinfo_resp(mad);
	mad[MAD_OFF_METHOD] = MAD_METHOD_GET; /* our own request looped back */
	assert_int_equal(smp_portinfo_parse(mad, sizeof(mad), &pi), -EPROTO);
	make_portinfo_resp(mad);
	mad[MAD_OFF_ATTR_ID + 1] = 0x20;
	assert_int_equal(smp_portinfo_parse(mad, sizeof(mad), &pi), -EPROTO);
	make_portinfo_resp(mad);
	mad[MAD_OFF_MGMT_CLASS] = SMP_CLASS_LID;
	assert_int_equal(smp_portinfo_parse(mad, sizeof(mad), &pi), -EPROTO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe_golden),
		cmocka_unit_test(test_lid_routed),
		cmocka_unit_test(test_set_and_other_attributes),
		cmocka_unit_test(test_not_answered),
		cmocka_unit_test(test_portinfo_request_golden),
		cmocka_unit_test(test_portinfo_parse),
		cmocka_unit_test(test_portinfo_parse_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
