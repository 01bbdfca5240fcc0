/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The ats provider's messages (acmprov/acmats_msg.c) as ibacm's core
 * hands them over (acm_svr_verify_resolve has set src_index, dst_index
 * and src_out) and as librdmacm reads the answer (acm.c
 * ucma_ib_save_resp): golden answers, hostile indexes; and its cache. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "acmprov/acmats_cache.h"
#include "acmprov/acmats_msg.h"
#include "core/pr.h"
#include "fixture.h"

/* A request as librdmacm sends it (acm.c ucma_ib_resolve): a source and
 * a destination IPv4 entry, after the core's checks. */
static void request(struct acm_msg *m, int with_src, uint32_t dflags)
{
	unsigned n = 0;

	memset(m, 0, sizeof(*m));
	m->hdr.version = ACM_VERSION;
	m->hdr.opcode = ACM_OP_RESOLVE;
	m->hdr.tid = 0x1234;
	if (with_src) {
		m->resolve_data[n].flags = ACM_EP_FLAG_SOURCE;
		m->resolve_data[n].type = ACM_EP_INFO_ADDRESS_IP;
		inet_pton(AF_INET, "10.0.0.1", m->resolve_data[n].info.addr);
		m->hdr.src_index = (uint8_t)n++;
	}
	m->resolve_data[n].flags = ACM_EP_FLAG_DEST | dflags;
	m->resolve_data[n].type = ACM_EP_INFO_ADDRESS_IP;
	inet_pton(AF_INET, "10.0.0.2", m->resolve_data[n].info.addr);
	m->hdr.dst_index = (uint8_t)n++;
	m->hdr.length = (uint16_t)(ACM_MSG_HDR_LENGTH + n * ACM_MSG_EP_LENGTH);
	if (!with_src) {
		/* the core's choice of source goes in the next entry */
		m->hdr.src_out = 1;
		m->hdr.src_index = (uint8_t)n;
		m->resolve_data[n].flags = ACM_EP_FLAG_SOURCE;
		m->resolve_data[n].type = ACM_EP_INFO_ADDRESS_IP;
		inet_pton(AF_INET, "10.0.0.1", m->resolve_data[n].info.addr);
	}
}

static void test_question(void **state)
{
	struct acmats_msg_query q;
	struct acm_msg m;

	(void)state;
	request(&m, 1, 0);
	assert_int_equal(acmats_msg_question(&m, &q), ACM_STATUS_SUCCESS);
	assert_int_equal(q.ask, ACMATS_MSG_ASK_IP);
	assert_int_equal(q.ip.family, AF_INET);
	assert_memory_equal(q.ip.addr, ((uint8_t[]){ 10, 0, 0, 2 }), 4);
	assert_int_equal(q.nodelay, 0);
	request(&m, 1, ACM_FLAGS_NODELAY);
	assert_int_equal(acmats_msg_question(&m, &q), ACM_STATUS_SUCCESS);
	assert_int_equal(q.nodelay, 1);
	/* IPv6 */
	m.resolve_data[1].type = ACM_EP_INFO_ADDRESS_IP6;
	inet_pton(AF_INET6, "fd00::2", m.resolve_data[1].info.addr);
	assert_int_equal(acmats_msg_question(&m, &q), ACM_STATUS_SUCCESS);
	assert_int_equal(q.ip.family, AF_INET6);
	/* a name is acmp's hosts file, not ATS */
	m.resolve_data[1].type = ACM_EP_INFO_NAME;
	assert_int_equal(acmats_msg_question(&m, &q), ACM_STATUS_EDESTTYPE);
	/* hostile: a destination index past the entries, no entries */
	request(&m, 1, 0);
	m.hdr.dst_index = 2;
	assert_int_equal(acmats_msg_question(&m, &q), ACM_STATUS_EDESTADDR);
	m.hdr.dst_index = 255;
	assert_int_equal(acmats_msg_question(&m, &q), ACM_STATUS_EDESTADDR);
	m.hdr.length = ACM_MSG_HDR_LENGTH;
	assert_int_equal(acmats_msg_question(&m, &q), ACM_STATUS_EINVAL);
	m.hdr.length = 0xffff; /* more entries than the buffer: capped */
	m.hdr.dst_index = 1;
	assert_int_equal(acmats_msg_question(&m, &q), ACM_STATUS_SUCCESS);
	/* a PATH request (route only): its DGID, none is refused */
	memset(&m, 0, sizeof(m));
	m.hdr.length = ACM_MSG_HDR_LENGTH + ACM_MSG_EP_LENGTH;
	m.resolve_data[0].type = ACM_EP_INFO_PATH;
	assert_int_equal(acmats_msg_question(&m, &q), ACM_STATUS_EDESTADDR);
	m.resolve_data[0].info.path.dgid.raw[0] = 0xfe;
	m.resolve_data[0].info.path.dgid.raw[15] = 5;
	assert_int_equal(acmats_msg_question(&m, &q), ACM_STATUS_SUCCESS);
	assert_int_equal(q.ask, ACMATS_MSG_ASK_PATH);
	assert_int_equal(q.dgid[15], 5);
}

static void test_answer_golden(void **state)
{
	uint8_t path[PR_SIZE];
	struct acm_msg req, out;
	const uint8_t *b = (const uint8_t *)&out;
	unsigned i;

	(void)state;
	for (i = 0; i < PR_SIZE; i++)
		path[i] = (uint8_t)i;
	request(&req, 1, 0);
	acmats_msg_answer(&req, ACM_STATUS_SUCCESS, path, &out);
	/* header: version 1, RESOLVE | ACK, status 0, data 0, one entry */
	assert_int_equal(b[0], 1);
	assert_int_equal(b[1], ACM_OP_RESOLVE | ACM_OP_ACK);
	assert_int_equal(b[2], 0);
	assert_int_equal(out.hdr.length, ACM_MSG_HDR_LENGTH + ACM_MSG_EP_LENGTH);
	assert_int_equal(out.hdr.tid, 0x1234);
	/* the entry: GMP | PRIMARY | BIDIRECTIONAL (0x2b), PATH, the path */
	assert_int_equal(out.resolve_data[0].flags, 0x2b);
	assert_int_equal(out.resolve_data[0].type, ACM_EP_INFO_PATH);
	assert_memory_equal(&out.resolve_data[0].info.path, path, PR_SIZE);
	/* the core chose the source: echoed after the path (librdmacm's
	 * ucma_ib_set_connect reads it) */
	request(&req, 0, 0);
	acmats_msg_answer(&req, ACM_STATUS_SUCCESS, path, &out);
	assert_int_equal(out.hdr.length, ACM_MSG_HDR_LENGTH + 2 * ACM_MSG_EP_LENGTH);
	assert_memory_equal(&out.resolve_data[1], &req.resolve_data[req.hdr.src_index],
			    ACM_MSG_EP_LENGTH);
	/* an error: the header alone, the status */
	acmats_msg_answer(&req, ACM_STATUS_ENODATA, NULL, &out);
	assert_int_equal(out.hdr.length, ACM_MSG_HDR_LENGTH);
	assert_int_equal(out.hdr.status, ACM_STATUS_ENODATA);
	assert_int_equal(out.hdr.src_out, 0);
	/* a hostile source index is not followed */
	request(&req, 0, 0);
	req.hdr.src_index = 200;
	acmats_msg_answer(&req, ACM_STATUS_SUCCESS, path, &out);
	assert_int_equal(out.hdr.length, ACM_MSG_HDR_LENGTH + ACM_MSG_EP_LENGTH);
}

static void test_cache(void **state)
{
	struct acmats_cache *c;
	struct ats_ip ip, other;
	uint64_t gen;
	uint8_t gid[16] = { 0xfe, 0x80 }, got[16], path[PR_SIZE] = { 7 }, p2[PR_SIZE];

	(void)state;
	assert_int_equal(acmats_cache_init(&c, 30), 0);
	ats_ip_parse("10.0.0.2", &ip);
	ats_ip_parse("10.0.0.3", &other);
	assert_int_equal(acmats_cache_gid(c, &ip, 0xffff, got), -ENOENT);
	acmats_cache_put_gid(c, acmats_cache_gen(c), &ip, 0xffff, gid);
	assert_int_equal(acmats_cache_gid(c, &ip, 0xffff, got), 0);
	assert_memory_equal(got, gid, 16);
	/* a partition, not a P_Key; another partition misses */
	assert_int_equal(acmats_cache_gid(c, &ip, 0x7fff, got), 0);
	assert_int_equal(acmats_cache_gid(c, &ip, 0x8001, got), -ENOENT);
	assert_int_equal(acmats_cache_gid(c, &other, 0xffff, got), -ENOENT);
	acmats_cache_put_path(c, acmats_cache_gen(c), gid, 0xffff, path);
	assert_int_equal(acmats_cache_path(c, gid, 0xffff, p2), 0);
	assert_memory_equal(p2, path, PR_SIZE);
	acmats_cache_flush(c);
	assert_int_equal(acmats_cache_gid(c, &ip, 0xffff, got), -ENOENT);
	assert_int_equal(acmats_cache_path(c, gid, 0xffff, p2), -ENOENT);
	/* an answer asked for before the flush is not kept after it */
	gen = acmats_cache_gen(c);
	acmats_cache_flush(c);
	acmats_cache_put_gid(c, gen, &ip, 0xffff, gid);
	acmats_cache_put_path(c, gen, gid, 0xffff, path);
	assert_int_equal(acmats_cache_gid(c, &ip, 0xffff, got), -ENOENT);
	assert_int_equal(acmats_cache_path(c, gid, 0xffff, p2), -ENOENT);
	acmats_cache_put_gid(c, acmats_cache_gen(c), &ip, 0xffff, gid);
	assert_int_equal(acmats_cache_gid(c, &ip, 0xffff, got), 0);
	acmats_cache_fini(c);
	/* ttl 0: nothing is kept */
	assert_int_equal(acmats_cache_init(&c, 0), 0);
	acmats_cache_put_gid(c, acmats_cache_gen(c), &ip, 0xffff, gid);
	assert_int_equal(acmats_cache_gid(c, &ip, 0xffff, got), -ENOENT);
	acmats_cache_fini(c);
}

TEST_MAIN(
	cmocka_unit_test(test_question),
	cmocka_unit_test(test_answer_golden),
	cmocka_unit_test(test_cache))
