/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* libsimhost's pure parts (simhost): which paths are the
 * simulated node's and where they are (shim_path.c), and ib_umad's
 * answers to a read buffer that is too short or a write the kernel
 * refuses (shim_mad.c; the kernel's user_mad.c copy_recv_mad,
 * copy_send_mad, ib_umad_write, mad.c ib_create_send_mad). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/mad.h"
#include "simhost/preload/shim_mad.h"
#include "simhost/preload/shim_path.h"

#define SYS "/run/sim/h1/sys"
#define HDR SHIM_MAD_UMAD_HDR

/* The node has interfaces ib0 and ib0.8001 only. */
static int has_net(const char *name, size_t len, void *ctx)
{
	(void)ctx;
	return (len == 3 && !strncmp(name, "ib0", 3)) || (len == 8 && !strncmp(name, "ib0.8001", 8));
}

static int map(const char *path, char *out, size_t len, int *num)
{
	return shim_path_map(path, SYS, has_net, NULL, out, len, num);
}

static void test_path_sys(void **state)
{
	(void)state;
	char out[256];
	int num = -1;

	assert_int_equal(map("/sys/class/infiniband", out, sizeof(out), &num), SHIM_PATH_SYS);
	assert_string_equal(out, SYS "/class/infiniband");
	assert_int_equal(map("/sys/class/infiniband/ibsim0/ports/1/lid", out, sizeof(out), &num),
			 SHIM_PATH_SYS);
	assert_string_equal(out, SYS "/class/infiniband/ibsim0/ports/1/lid");
	assert_int_equal(map("/sys/class/infiniband_mad/umad0/port", out, sizeof(out), &num),
			 SHIM_PATH_SYS);
	assert_string_equal(out, SYS "/class/infiniband_mad/umad0/port");
	assert_int_equal(map("/sys/class/infiniband_verbs/uverbs0/ibdev", out, sizeof(out), &num),
			 SHIM_PATH_SYS);
	assert_string_equal(out, SYS "/class/infiniband_verbs/uverbs0/ibdev");
	/* So is rdma_ucm (librdmacm reads its abi_version). */
	assert_int_equal(map("/sys/class/misc/rdma_cm/abi_version", out, sizeof(out), &num),
			 SHIM_PATH_SYS);
	assert_string_equal(out, SYS "/class/misc/rdma_cm/abi_version");
	/* ib_cm is the node's to have or not, whatever the host has. */
	assert_int_equal(map("/sys/module/ib_cm", out, sizeof(out), &num), SHIM_PATH_SYS);
	assert_string_equal(out, SYS "/module/ib_cm");
}

static void test_path_host(void **state)
{
	(void)state;
	char out[256];
	int num = -1;

	/* A name that only starts like a class is the host's. */
	assert_int_equal(map("/sys/class/infinibandx", out, sizeof(out), &num), SHIM_PATH_HOST);
	assert_int_equal(map("/sys/class/infiniband_madness/x", out, sizeof(out), &num),
			 SHIM_PATH_HOST);
	assert_int_equal(map("/sys/module/ib_cma", out, sizeof(out), &num), SHIM_PATH_HOST);
	assert_int_equal(map("/sys/class/misc", out, sizeof(out), &num), SHIM_PATH_HOST);
	assert_int_equal(map("/sys/class/misc/rdma_cmx", out, sizeof(out), &num), SHIM_PATH_HOST);
	assert_int_equal(map("/sys/class/misc/fuse", out, sizeof(out), &num), SHIM_PATH_HOST);
	assert_int_equal(map("/sys/module/ib_core", out, sizeof(out), &num), SHIM_PATH_HOST);
	assert_int_equal(map("/sys/class/net", out, sizeof(out), &num), SHIM_PATH_HOST);
	assert_int_equal(map("/sys/class/net/", out, sizeof(out), &num), SHIM_PATH_HOST);
	assert_int_equal(map("/sys/class/net/eth0/address", out, sizeof(out), &num), SHIM_PATH_HOST);
	assert_int_equal(map("/sys/class/net/ib", out, sizeof(out), &num), SHIM_PATH_HOST);
	assert_int_equal(map("/etc/passwd", out, sizeof(out), &num), SHIM_PATH_HOST);
	assert_int_equal(map("sys/class/infiniband", out, sizeof(out), &num), SHIM_PATH_HOST);
	assert_int_equal(map(NULL, out, sizeof(out), &num), SHIM_PATH_HOST);
}

static void test_path_net(void **state)
{
	(void)state;
	char out[256];
	int num = -1;

	assert_int_equal(map("/sys/class/net/ib0", out, sizeof(out), &num), SHIM_PATH_SYS);
	assert_string_equal(out, SYS "/class/net/ib0");
	assert_int_equal(map("/sys/class/net/ib0/address", out, sizeof(out), &num), SHIM_PATH_SYS);
	assert_string_equal(out, SYS "/class/net/ib0/address");
	assert_int_equal(map("/sys/class/net/ib0.8001/pkey", out, sizeof(out), &num),
			 SHIM_PATH_SYS);
	assert_string_equal(out, SYS "/class/net/ib0.8001/pkey");
	assert_int_equal(map("/sys/class/net/ib0.8002/pkey", out, sizeof(out), &num),
			 SHIM_PATH_HOST);
}

static void test_path_dev(void **state)
{
	(void)state;
	char out[256];
	int num = -1;

	assert_int_equal(map("/dev/infiniband/umad0", out, sizeof(out), &num), SHIM_PATH_UMAD);
	assert_int_equal(num, 0);
	assert_int_equal(map("/dev/infiniband/umad12", out, sizeof(out), &num), SHIM_PATH_UMAD);
	assert_int_equal(num, 12);
	assert_int_equal(map("/dev/infiniband/issm1", out, sizeof(out), &num), SHIM_PATH_ISSM);
	assert_int_equal(num, 1);
	assert_int_equal(map("/dev/infiniband/umad", out, sizeof(out), &num), SHIM_PATH_HOST);
	assert_int_equal(map("/dev/infiniband/umad0x", out, sizeof(out), &num), SHIM_PATH_HOST);
	/* uverbs: the node's for stat() and access() (its owner and mode). */
	assert_int_equal(map("/dev/infiniband/uverbs0", out, sizeof(out), &num), SHIM_PATH_UVERBS);
	assert_int_equal(num, 0);
	assert_int_equal(map("/dev/infiniband/uverbs", out, sizeof(out), &num), SHIM_PATH_HOST);
	/* rdma_cm is the node's (RDMACM.md): a host's must never answer. */
	assert_int_equal(map("/dev/infiniband/rdma_cm", out, sizeof(out), &num), SHIM_PATH_UCMA);
	assert_int_equal(map("/dev/infiniband/rdma_cm0", out, sizeof(out), &num), SHIM_PATH_HOST);
	assert_int_equal(map("/dev/infiniband/rdma_c", out, sizeof(out), &num), SHIM_PATH_HOST);
}

/* ibacm's files are the node's (librdmacm's acm.c ucma_ib_init, ibacm's
 * acm.c acm_listen): in the node's run directory, absent when it has
 * none that fits sun_path; the host's own without a node. */
static void test_path_ibacm(void **state)
{
	char out[256], lng[200];
	int num = -1;

	(void)state;
	assert_int_equal(shim_path_run("/run/ibacm.sock", "/s/host1/run", out, sizeof(out)),
			 SHIM_PATH_RUN);
	assert_string_equal(out, "/s/host1/run/ibacm.sock");
	assert_int_equal(shim_path_run("/run/ibacm-unix.sock", "/s/host1/run", out, sizeof(out)),
			 SHIM_PATH_RUN);
	assert_string_equal(out, "/s/host1/run/ibacm-unix.sock");
	assert_int_equal(shim_path_run("/run/ibacm.port", "/s/h/run", out, sizeof(out)),
			 SHIM_PATH_RUN);
	assert_int_equal(shim_path_run("/run/ibacm-tcp.port", "/s/h/run", out, sizeof(out)),
			 SHIM_PATH_RUN);
	assert_int_equal(shim_path_run("/run/ibacm.portx", "/s/h/run", out, sizeof(out)),
			 SHIM_PATH_HOST);
	assert_int_equal(shim_path_run("/run/ibacm", "/s/h/run", out, sizeof(out)), SHIM_PATH_HOST);
	assert_int_equal(shim_path_run("/run/ibacm.sock", NULL, out, sizeof(out)), SHIM_PATH_ABSENT);
	memset(lng, 'x', sizeof(lng) - 1);
	lng[0] = '/';
	lng[sizeof(lng) - 1] = '\0';
	assert_int_equal(shim_path_run("/run/ibacm.sock", lng, out, sizeof(out)), SHIM_PATH_ABSENT);
	/* shim_path_map (open, stat) leaves them to shim_path_run */
	assert_int_equal(map("/run/ibacm.sock", out, sizeof(out), &num), SHIM_PATH_ABSENT);
	assert_int_equal(shim_path_map("/run/ibacm.port", NULL, has_net, NULL, out, sizeof(out),
				       &num),
			 SHIM_PATH_HOST);
}

/* Without a node, /sys is the host's and the devices are nobody's:
 * the shim never opens a host's umad, issm or rdma_cm device. */
static void test_path_no_node(void **state)
{
	char out[256];
	int num = -1;

	(void)state;
	assert_int_equal(shim_path_map("/sys/class/infiniband", NULL, has_net, NULL, out,
				       sizeof(out), &num),
			 SHIM_PATH_HOST);
	assert_int_equal(shim_path_map("/sys/class/net/ib0", NULL, has_net, NULL, out, sizeof(out),
				       &num),
			 SHIM_PATH_HOST);
	assert_int_equal(shim_path_map("/dev/infiniband/issm0", NULL, has_net, NULL, out,
				       sizeof(out), &num),
			 SHIM_PATH_ISSM);
	assert_int_equal(shim_path_map("/dev/infiniband/rdma_cm", NULL, has_net, NULL, out,
				       sizeof(out), &num),
			 SHIM_PATH_UCMA);
}

static void test_path_too_long(void **state)
{
	(void)state;
	char out[24];
	int num = -1;

	assert_int_equal(map("/sys/class/infiniband/ibsim0", out, sizeof(out), &num),
			 -ENAMETOOLONG);
}

/* One MAD: all or nothing, and the kernel checks the header's room
 * before it waits for anything. */
static void test_read_one_mad(void **state)
{
	(void)state;
	size_t plen = HDR + MAD_SIZE;

	assert_int_equal(shim_mad_read_verdict(plen, 0, plen), plen);
	assert_int_equal(shim_mad_read_verdict(plen, 0, plen + 1000), plen);
	assert_int_equal(shim_mad_read_verdict(plen, 0, plen - 1), -EINVAL);
	assert_int_equal(shim_mad_read_verdict(plen, 0, HDR), -EINVAL);
	assert_int_equal(shim_mad_read_verdict(plen, 0, HDR - 1), -EINVAL);
	assert_int_equal(shim_mad_read_verdict(plen, 0, 0), -EINVAL);
}

/* An RMPP message: the first segment must fit, then -ENOSPC tells the
 * reader the length (the header is copied, the message stays). */
static void test_read_rmpp(void **state)
{
	(void)state;
	size_t plen = HDR + 5000;

	assert_int_equal(shim_mad_read_verdict(plen, 0, plen), plen);
	assert_int_equal(shim_mad_read_verdict(plen, 0, plen - 1), -ENOSPC);
	assert_int_equal(shim_mad_read_verdict(plen, 0, HDR + MAD_SIZE), -ENOSPC);
	assert_int_equal(shim_mad_read_verdict(plen, 0, HDR + MAD_SIZE - 1), -EINVAL);
	assert_int_equal(shim_mad_read_verdict(plen, 0, HDR - 1), -EINVAL);
}

/* A send handed back (ETIMEDOUT) is copy_send_mad's: no -ENOSPC. */
static void test_read_send_back(void **state)
{
	(void)state;
	size_t plen = HDR + 5000;

	assert_int_equal(shim_mad_read_verdict(plen, ETIMEDOUT, plen), plen);
	assert_int_equal(shim_mad_read_verdict(plen, ETIMEDOUT, plen - 1), -EINVAL);
	assert_int_equal(shim_mad_read_verdict(HDR + MAD_SIZE, ETIMEDOUT, HDR + MAD_SIZE),
			 HDR + MAD_SIZE);
}

/* A umad write of len MAD bytes for agent id, class cls, RMPP flags. */
static size_t umad_write(uint8_t *buf, uint32_t id, uint8_t cls, uint8_t flags, size_t len)
{
	memset(buf, 0, HDR + len);
	memcpy(buf, &id, sizeof(id));
	buf[HDR + MAD_OFF_MGMT_CLASS] = cls;
	buf[HDR + MAD_RMPP_OFF_FLAGS] = flags;
	return HDR + len;
}

static void test_write(void **state)
{
	(void)state;
	struct shim_mad_agent ag[SHIM_MAD_MAX_AGENTS];
	static uint8_t buf[HDR + 4096];

	memset(ag, 0, sizeof(ag));
	ag[2].used = 1;
	ag[2].rmpp_version = 1;
	ag[3].used = 1; /* no RMPP */

	assert_int_equal(shim_mad_write_check(buf, umad_write(buf, 2, 0x03, 0, MAD_SIZE), ag), 0);
	assert_int_equal(shim_mad_write_check(buf, umad_write(buf, 3, 0x03, 0, MAD_SIZE), ag), 0);
	/* Below the RMPP header, or an agent the fd has not. */
	assert_int_equal(shim_mad_write_check(buf, umad_write(buf, 2, 0x03, 0, MAD_RMPP_HDR_END - 1), ag),
			 -EINVAL);
	assert_int_equal(shim_mad_write_check(buf, umad_write(buf, 2, 0x03, 0, MAD_RMPP_HDR_END), ag), 0);
	assert_int_equal(shim_mad_write_check(buf, umad_write(buf, 1, 0x03, 0, MAD_SIZE), ag),
			 -EINVAL);
	assert_int_equal(shim_mad_write_check(buf, umad_write(buf, 40, 0x03, 0, MAD_SIZE), ag),
			 -EINVAL);
	/* Longer than a MAD: only an RMPP agent's Active message of an RMPP
	 * class. */
	assert_int_equal(shim_mad_write_check(buf, umad_write(buf, 2, 0x03, MAD_RMPP_FLAG_ACTIVE, 4096),
					      ag),
			 0);
	assert_int_equal(shim_mad_write_check(buf, umad_write(buf, 2, 0x03, 0, 4096), ag), -EINVAL);
	assert_int_equal(shim_mad_write_check(buf, umad_write(buf, 3, 0x03, MAD_RMPP_FLAG_ACTIVE, 4096),
					      ag),
			 -EINVAL);
	assert_int_equal(shim_mad_write_check(buf, umad_write(buf, 2, 0x04, MAD_RMPP_FLAG_ACTIVE, 4096),
					      ag),
			 -EINVAL);
	assert_int_equal(shim_mad_write_check(buf, umad_write(buf, 2, 0x31, MAD_RMPP_FLAG_ACTIVE, 4096),
					      ag),
			 0);
}

/* A umad write: agent 1, SA Get of TID tid, timeout_ms. */
static void sent_req(uint8_t *buf, uint32_t tid, uint32_t timeout_ms, uint8_t method)
{
	uint32_t id = 1;

	memset(buf, 0, SHIM_MAD_UMAD_HDR + MAD_SIZE);
	memcpy(buf, &id, sizeof(id));
	memcpy(buf + 8, &timeout_ms, sizeof(timeout_ms));
	buf[SHIM_MAD_UMAD_HDR + MAD_OFF_BASE_VERSION] = 1;
	buf[SHIM_MAD_UMAD_HDR + MAD_OFF_MGMT_CLASS] = 0x03;
	buf[SHIM_MAD_UMAD_HDR + MAD_OFF_METHOD] = method;
	buf[SHIM_MAD_UMAD_HDR + MAD_OFF_TID + 7] = (uint8_t)tid;
}

/* Which writes wait for the kernel's is_duplicate verdict: a request
 * whose TID a request of the fd may still have outstanding, until its
 * answer or timeout is read. */
static void test_sent(void **state)
{
	static struct shim_mad_sent s;
	struct shim_mad_agent agents[SHIM_MAD_MAX_AGENTS] = { { 0, 0 }, { 1, 1 } };
	uint8_t buf[SHIM_MAD_UMAD_HDR + MAD_SIZE], in[SHIM_MAD_UMAD_HDR + MAD_SIZE];
	uint32_t st = 110, i;

	(void)state;
	memset(&s, 0, sizeof(s));
	sent_req(buf, 9, 500, MAD_METHOD_GET);
	assert_int_equal(shim_mad_sent_ask(&s, buf, sizeof(buf), agents, 0), 0);
	shim_mad_sent_add(&s, buf, sizeof(buf), 0);
	assert_int_equal(shim_mad_sent_ask(&s, buf, sizeof(buf), agents, 0), 1);
	sent_req(in, 10, 500, MAD_METHOD_GET);
	assert_int_equal(shim_mad_sent_ask(&s, in, sizeof(in), agents, 0), 0);
	/* Its answer read: no longer. */
	sent_req(in, 9, 0, MAD_METHOD_GET | MAD_METHOD_RESP_BIT);
	shim_mad_sent_read(&s, in, sizeof(in));
	assert_int_equal(shim_mad_sent_ask(&s, buf, sizeof(buf), agents, 0), 0);
	/* Its timeout read (status set, the MAD header as sent): no longer. */
	shim_mad_sent_add(&s, buf, sizeof(buf), 0);
	memcpy(in, buf, SHIM_MAD_UMAD_HDR + MAD_HDR_SIZE);
	memcpy(in + 4, &st, sizeof(st));
	shim_mad_sent_read(&s, in, SHIM_MAD_UMAD_HDR + MAD_HDR_SIZE);
	assert_int_equal(shim_mad_sent_ask(&s, buf, sizeof(buf), agents, 0), 0);
	/* No timeout: never held. A failed write takes it out again. */
	sent_req(in, 11, 0, MAD_METHOD_GET);
	shim_mad_sent_add(&s, in, sizeof(in), 0);
	assert_int_equal(s.n, 0);
	shim_mad_sent_add(&s, buf, sizeof(buf), 0);
	shim_mad_sent_forget(&s, buf, sizeof(buf));
	assert_int_equal(s.n, 0);
	/* The agent unregistered: its sends are cancelled. */
	shim_mad_sent_add(&s, buf, sizeof(buf), 0);
	shim_mad_sent_agent_gone(&s, 1);
	assert_int_equal(s.n, 0);
	/* An RMPP response of a kernel-RMPP agent: the kernel may still send
	 * one of its TID, so it asks. */
	sent_req(in, 12, 0, 0x92);
	in[SHIM_MAD_UMAD_HDR + MAD_RMPP_OFF_FLAGS] = MAD_RMPP_FLAG_ACTIVE;
	assert_int_equal(shim_mad_sent_ask(&s, in, sizeof(in), agents, 0), 1);
	/* Full: past it every request asks while an entry not kept may
	 * wait; entries surely over make room. */
	for (i = 0; i < SHIM_MAD_SENT_MAX; i++) {
		sent_req(buf, 100 + i, 500, MAD_METHOD_GET);
		shim_mad_sent_add(&s, buf, sizeof(buf), 0);
	}
	sent_req(buf, 99, 500, MAD_METHOD_GET);
	shim_mad_sent_add(&s, buf, sizeof(buf), 0);
	sent_req(in, 98, 500, MAD_METHOD_GET);
	assert_int_equal(shim_mad_sent_ask(&s, in, sizeof(in), agents, 1000), 1);
	assert_int_equal(shim_mad_sent_ask(&s, in, sizeof(in), agents, 60000), 0);
	shim_mad_sent_add(&s, buf, sizeof(buf), 60000);
	assert_int_equal(s.n, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path_sys),      cmocka_unit_test(test_path_host),
		cmocka_unit_test(test_path_net),      cmocka_unit_test(test_path_dev),
		cmocka_unit_test(test_path_ibacm),
		cmocka_unit_test(test_path_no_node), cmocka_unit_test(test_path_too_long), cmocka_unit_test(test_read_one_mad),
		cmocka_unit_test(test_read_rmpp),     cmocka_unit_test(test_read_send_back),
		cmocka_unit_test(test_write),
		cmocka_unit_test(test_sent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
