/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "golden.h"
#include "core/nr.h"
#include "core/sa.h"
#include "core/sa_client.h"
#include "core/sr.h"
#include "fixture.h"

/* Field by field: the structs have padding. */
static void assert_hdr_equal(const struct sa_hdr *a, const struct sa_hdr *b)
{
	assert_int_equal(a->mad.base_version, b->mad.base_version);
	assert_int_equal(a->mad.mgmt_class, b->mad.mgmt_class);
	assert_int_equal(a->mad.class_version, b->mad.class_version);
	assert_int_equal(a->mad.method, b->mad.method);
	assert_int_equal(a->mad.status, b->mad.status);
	assert_true(a->mad.tid == b->mad.tid);
	assert_int_equal(a->mad.attr_id, b->mad.attr_id);
	assert_int_equal(a->mad.attr_mod, b->mad.attr_mod);
	assert_int_equal(a->rmpp_version, b->rmpp_version);
	assert_int_equal(a->rmpp_type, b->rmpp_type);
	assert_int_equal(a->rmpp_flags, b->rmpp_flags);
	assert_int_equal(a->rmpp_status, b->rmpp_status);
	assert_int_equal(a->rmpp_data1, b->rmpp_data1);
	assert_int_equal(a->rmpp_data2, b->rmpp_data2);
	assert_true(a->sm_key == b->sm_key);
	assert_int_equal(a->attr_offset, b->attr_offset);
	assert_true(a->comp_mask == b->comp_mask);
}

static void test_set_header_golden(void **state)
{
	uint8_t m[MAD_SIZE] = { 0 };
	struct sa_hdr h = { 0 }, d;

	(void)state;
	h.mad.base_version = 1;
	h.mad.mgmt_class = SA_CLASS;
	h.mad.class_version = SA_CLASS_VERSION;
	h.mad.method = SA_METHOD_SET;
	h.mad.tid = 0x12345678;
	h.mad.attr_id = SA_ATTR_SERVICE_RECORD;
	h.comp_mask = sr_comp_mask(SR_F_ID | SR_F_GID | SR_F_PKEY | SR_F_NAME |
				   SR_F_DATA8);
	sa_hdr_encode(m, &h);
	assert_memory_equal(m, golden_sa_set_hdr, sizeof(golden_sa_set_hdr));
	assert_int_equal(sa_hdr_decode(m, sizeof(m), &d), 0);
	assert_hdr_equal(&d, &h);
}

static void test_header_fields(void **state)
{
	uint8_t m[MAD_SIZE] = { 0 };
	struct sa_hdr h = { 0 }, d;

	(void)state;
	h.rmpp_version = 1;
	h.rmpp_type = 1;
	h.rmpp_flags = MAD_RMPP_FLAG_ACTIVE | MAD_RMPP_FLAG_FIRST;
	h.rmpp_data1 = 1;
	h.rmpp_data2 = 372;
	h.sm_key = 0x0102030405060708ull;
	h.attr_offset = SR_SIZE / 8;
	h.comp_mask = 0x8000000000000001ull;
	sa_hdr_encode(m, &h);
	assert_int_equal(m[MAD_RMPP_OFF_FLAGS], 0x03);
	assert_int_equal(m[MAD_RMPP_OFF_DATA2 + 3], 372 & 0xff);
	assert_int_equal(m[SA_OFF_SM_KEY], 0x01);
	assert_int_equal(m[SA_OFF_ATTR_OFFSET + 1], 22);
	assert_int_equal(m[SA_OFF_COMP_MASK], 0x80);
	assert_int_equal(m[SA_OFF_COMP_MASK + 7], 0x01);
	assert_int_equal(sa_hdr_decode(m, SA_OFF_DATA, &d), 0);
	assert_hdr_equal(&d, &h);
	assert_int_equal(sa_hdr_decode(m, SA_OFF_DATA - 1, &d), -EMSGSIZE);
}

static void test_status(void **state)
{
	(void)state;
	assert_int_equal(sa_status_to_errno(0), 0);
	assert_int_equal(sa_status_to_errno(0x0200), -EINVAL);
	assert_int_equal(sa_status_to_errno(0x0300), -ENOENT);
	assert_int_equal(sa_status_to_errno(0x0400), -E2BIG);
	assert_int_equal(sa_status_to_errno(0x0600), -EDOM);
	assert_int_equal(sa_status_to_errno(0x0700), -EACCES);
	assert_int_equal(sa_status_to_errno(0x5500), -EPROTO);
	assert_int_equal(sa_status_to_errno(0x000c), -EOPNOTSUPP);
	assert_int_equal(sa_status_to_errno(0x0001), -EBUSY);
	/* Redirect: the data is a ClassPortInfo, never records. */
	assert_int_equal(sa_status_to_errno(0x0002), -EREMOTE);
	assert_string_equal(sa_status_str(0x0002), "SA redirects elsewhere (not followed)");
	assert_string_equal(sa_status_str(0x0200),
			    "request rejected as invalid (ERR_REQ_INVALID)");
	assert_string_equal(sa_status_str(0x5500), "unknown SA status");
}

static void test_table_shape(void **state)
{
	enum { A = MAD_RMPP_FLAG_ACTIVE, F = MAD_RMPP_FLAG_FIRST, L = MAD_RMPP_FLAG_LAST,
	       HDR = SA_OFF_DATA - MAD_RMPP_HDR_END, SR8 = SR_SIZE / 8 };
	/* The answer's RMPP header and AttributeOffset, the bytes and record
	 * size read; what sa_table_shape makes of it (-1: not looked at). */
	static const struct {
		uint8_t version, type, flags;
		uint32_t data2;
		uint16_t attr_offset;
		size_t len, rec_size;
		int ret, nrec, truncated;
	} cases[] = {
		/* One record: 232-byte answer, complete. */
		{ 0, 0, 0, 0, SR8, SR_SIZE, SR_SIZE, 0, 1, 0 },
		/* What ibsim delivers for a longer table: one MAD, 200 data bytes. */
		{ 0, 0, A, 0, SR8, SA_DATA_SIZE, SR_SIZE, 0, 1, 1 },
		/* Kernel-reassembled RMPP table of three records. */
		{ 1, 0, A | F, 0, SR8, 3 * SR_SIZE, SR_SIZE, 0, 3, 0 },
		/* The first of several segments alone (a sender with RMPP, a
		 * reader without): cut, even when it ends on a whole record. */
		{ 1, 0, A | F, 0, SR8, SR_SIZE, SR_SIZE, 0, 1, 1 },
		{ 1, 0, A | F, 0, 5, SA_DATA_SIZE, 40, 0, 5, 1 }, /* 200 bytes hold five 40-byte records */
		/* The only segment (First and Last): whole. */
		{ 1, 0, A | F | L, 0, 5, SA_DATA_SIZE, 40, 0, -1, 0 },
		/* The same from an SA without RMPP (RMPP version 0): it keeps
		 * what one MAD holds, so five 40-byte records or one
		 * ServiceRecord may be a part; fewer are whole. */
		{ 0, 0, A | F | L, 0, 5, SA_DATA_SIZE, 40, 0, -1, 1 },
		{ 0, 0, A | F | L, 0, 5, 4 * 40, 40, 0, -1, 0 },
		{ 0, 0, A | F | L, 0, SR8, SR_SIZE, SR_SIZE, 0, 1, 1 },
		/* OpenSM with RMPP through ibsim: version 0, Active alone, whole. */
		{ 0, 0, A, 0, SR8, SR_SIZE, SR_SIZE, 0, -1, 0 },
		/* Empty table. */
		{ 0, 0, A, 0, SR8, 0, SR_SIZE, 0, 0, -1 },
		/* ... as one segment without reassembly: PayloadLength is the SA
		 * header alone, the rest padding (AttributeOffset 0, as OpenSM). */
		{ 1, MAD_RMPP_TYPE_DATA, A | F | L, HDR, 0, SA_DATA_SIZE, SR_SIZE, 0, 0, -1 },
		/* ... and one record in it: whole, not cut. */
		{ 1, MAD_RMPP_TYPE_DATA, A | F | L, HDR + SR_SIZE, SR8, SA_DATA_SIZE, SR_SIZE, 0, 1, 0 },
		/* Hostile AttributeOffset: smaller than a record, or zero. */
		{ 0, MAD_RMPP_TYPE_DATA, A, 0, 2, SA_DATA_SIZE, SR_SIZE, -EPROTO, -1, -1 },
		{ 0, MAD_RMPP_TYPE_DATA, A, 0, 0, SA_DATA_SIZE, SR_SIZE, -EPROTO, -1, -1 },
	};
	struct sa_hdr h = { 0 };
	struct sa_table_shape s;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		h.rmpp_version = cases[i].version;
		h.rmpp_type = cases[i].type;
		h.rmpp_flags = cases[i].flags;
		h.rmpp_data2 = cases[i].data2;
		h.attr_offset = cases[i].attr_offset;
		assert_int_equal(sa_table_shape(&h, cases[i].len, cases[i].rec_size, &s),
				 cases[i].ret);
		if (cases[i].nrec >= 0)
			assert_int_equal(s.nrec, cases[i].nrec);
		if (cases[i].truncated >= 0)
			assert_int_equal(!!s.truncated, cases[i].truncated);
	}
}

/* A NodeRecord table (Table 193, NodeInfo Table 132 inside it) at
 * OpenSM's stride of 112: the CA ports in LID order, not the switch. */
static void test_ports_decode(void **state)
{
	static const uint8_t prefix[8] = { 0xfe, 0x80 };
	uint8_t d[3 * 112] = { 0 };
	struct sa_client_ca_port *p;
	size_t n;

	(void)state;
	d[1] = 9;               /* LID */
	d[4 + 2] = 1;           /* NodeType CA */
	d[4 + 20 + 7] = 0x11;   /* PortGUID */
	d[4 + 36] = 2;          /* LocalPortNum */
	d[112 + 1] = 4;
	d[112 + 4 + 2] = 2;     /* a switch */
	d[224 + 1] = 3;
	d[224 + 4 + 2] = 1;
	d[224 + 4 + 4 + 7] = 0x77; /* SystemImageGUID */
	assert_int_equal(sa_client_ports_decode(prefix, d, 3, 112, &p, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(p[0].lid, 3);
	assert_int_equal(p[0].sys_guid, 0x77);
	assert_int_equal(p[1].lid, 9);
	assert_int_equal(p[1].port_num, 2);
	assert_int_equal(p[1].gid[0], 0xfe);
	assert_int_equal(p[1].gid[15], 0x11);
	free(p);
	/* A stride short of a NodeRecord; none at all. */
	assert_int_equal(sa_client_ports_decode(prefix, d, 3, 104, &p, &n), -EPROTO);
	assert_int_equal(sa_client_ports_decode(prefix, d, 0, 0, &p, &n), 0);
	assert_int_equal(n, 0);
	assert_null(p);
}

/* The NodeRecord codec against the hand-built image, both ways. */
static void test_nr_golden(void **state)
{
	struct nr_record r;
	uint8_t b[NR_SIZE];

	(void)state;
	assert_int_equal(nr_decode(golden_nr, sizeof(golden_nr), &r), 0);
	assert_int_equal(r.lid, 0x0107);
	assert_int_equal(r.base_version, 1);
	assert_int_equal(r.class_version, 1);
	assert_int_equal(r.node_type, NR_NODE_TYPE_CA);
	assert_int_equal(r.num_ports, 2);
	assert_int_equal(r.sys_guid, 0x0002c90300001110ull);
	assert_int_equal(r.node_guid, 0x0002c90300001111ull);
	assert_int_equal(r.port_guid, 0x0002c90300001112ull);
	assert_int_equal(r.partition_cap, 128);
	assert_int_equal(r.device_id, 0x1017);
	assert_int_equal(r.revision, 0);
	assert_int_equal(r.local_port, 1);
	assert_int_equal(r.vendor_id, 0x0002c9);
	assert_string_equal((const char *)r.desc, "h1 mlx5_0");
	nr_encode(b, &r);
	assert_memory_equal(b, golden_nr, NR_SIZE);
	assert_int_equal(nr_decode(golden_nr, NR_SIZE - 1, &r), -EMSGSIZE);
}

/* The first PathRecord of an answer (Table 205): the one asked for, or
 * no answer. */
static void test_path_decode(void **state)
{
	uint8_t d[SA_DATA_SIZE] = { 0 }, dgid[16] = { 0xfe, 0x80 };
	struct sa_client_path_info p;

	(void)state;
	dgid[15] = 2;
	memcpy(d + 8, dgid, 16);
	d[41] = 7;    /* DLID */
	d[53] = 0x13; /* QoS class above SL 3 */
	d[54] = 0x84; /* selector 2, MTU 4 */
	assert_int_equal(sa_client_path_decode(d, 64, dgid, &p), 0);
	assert_int_equal(p.dlid, 7);
	assert_int_equal(p.sl, 3);
	assert_int_equal(p.mtu, 4);
	assert_int_equal(sa_client_path_decode(d, 63, dgid, &p), -ENOENT);
	d[8 + 15] = 3; /* another port's path */
	assert_int_equal(sa_client_path_decode(d, 64, dgid, &p), -EPROTO);
}

TEST_MAIN(
	cmocka_unit_test(test_set_header_golden),
	cmocka_unit_test(test_header_fields),
	cmocka_unit_test(test_status),
	cmocka_unit_test(test_table_shape),
	cmocka_unit_test(test_ports_decode),
	cmocka_unit_test(test_path_decode),
	cmocka_unit_test(test_nr_golden))
