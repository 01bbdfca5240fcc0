/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Port selection, umad devices and IPoIB interfaces against fixture sysfs trees laid
 * out as the kernel documents them (Documentation/ABI/stable/
 * sysfs-class-infiniband, sysfs-class-net): a dual-port HCA, a RoCE
 * device that sorts first, and a kernel without link_layer. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/ats.h"
#include "host/ibsys.h"

static char root[64];

/* Writes root/rel, creating the directories on the way. */
static void put(const char *rel, const char *text)
{
	char path[512];
	FILE *f;
	char *s;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (s = path + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(path, 0755);
		*s = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void port(const char *ca, int n, const char *state, const char *phys,
		 const char *ll, const char *lid, const char *gid0)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/%d/state", ca, n);
	put(rel, state);
	snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/%d/phys_state", ca, n);
	put(rel, phys);
	if (ll) {
		snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/%d/link_layer", ca, n);
		put(rel, ll);
	}
	snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/%d/lid", ca, n);
	put(rel, lid);
	snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/%d/sm_lid", ca, n);
	put(rel, "0x1\n");
	snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/%d/gids/0", ca, n);
	put(rel, gid0);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/ibats-sysfs.XXXXXX");
	assert_non_null(mkdtemp(root));
	/* A RoCE device whose name sorts before the HCA, port active. */
	port("bnxt_re0", 1, "4: ACTIVE\n", "5: LinkUp\n", "Ethernet\n", "0x0\n",
	     "fe80:0000:0000:0000:0210:18ff:fe00:0001\n");
	/* The dual-port HCA: port 1 active, port 2 down. */
	port("mlx5_0", 1, "4: ACTIVE\n", "5: LinkUp\n", "InfiniBand\n", "0x12\n",
	     "fe80:0000:0000:0000:0002:c903:000a:b1c1\n");
	put("class/infiniband/mlx5_0/ports/1/gids/1",
	    "fec0:0000:0000:0001:0002:c903:000a:b1c1\n");
	port("mlx5_0", 2, "1: DOWN\n", "2: Polling\n", "InfiniBand\n", "0x0\n",
	     "fe80:0000:0000:0000:0002:c903:000a:b1c2\n");
	/* IPoIB on port 1, a child interface of partition 0x8001, Ethernet. */
	put("class/net/ib0/type", "32\n");
	/* ib_umad's devices: one per IB port, issm beside them, the class's
	 * abi_version among them. */
	put("class/infiniband_mad/abi_version", "5\n");
	put("class/infiniband_mad/umad0/ibdev", "mlx5_0\n");
	put("class/infiniband_mad/umad0/port", "1\n");
	put("class/infiniband_mad/issm1/ibdev", "mlx5_0\n");
	put("class/infiniband_mad/issm1/port", "2\n");
	put("class/infiniband_mad/umad1/ibdev", "mlx5_0\n");
	put("class/infiniband_mad/umad1/port", "2\n");
	put("class/net/ib0/address",
	    "80:00:00:48:fe:80:00:00:00:00:00:00:00:02:c9:03:00:0a:b1:c1\n");
	put("class/net/ib0/pkey", "0xffff\n");
	put("class/net/ib0.8001/type", "32\n");
	put("class/net/ib0.8001/address",
	    "80:00:01:0a:fe:80:00:00:00:00:00:00:00:02:c9:03:00:0a:b1:c1\n");
	put("class/net/ib0.8001/pkey", "0x8001\n");
	put("class/net/eth0/type", "1\n");
	put("class/net/ibbad/type", "32\n");
	put("class/net/ibbad/address", "80:00:00:48:fe:80\n");
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) ? -1 : 0;
}

static void test_port_read(void **state)
{
	struct ibsys_port p;
	char g[ATS_IP_STRLEN];

	(void)state;
	assert_int_equal(ibsys_port_read(root, "mlx5_0", 1, &p), 0);
	assert_true(p.ib);
	assert_int_equal(p.state, IBSYS_ACTIVE);
	assert_true(p.link_up);
	assert_int_equal(p.lid, 0x12);
	assert_int_equal(p.sm_lid, 1);
	assert_string_equal(ats_gid_format(p.gid, g, sizeof(g)), "fe80::2:c903:a:b1c1");
	assert_int_equal(ibsys_port_read(root, "bnxt_re0", 1, &p), 0);
	assert_false(p.ib);
	assert_int_equal(ibsys_port_read(root, "mlx5_0", 3, &p), -ENOENT);
	assert_int_equal(ibsys_port_read(root, "nosuch", 1, &p), -ENOENT);
	assert_int_equal(ibsys_port_read(root, "../etc", 1, &p), -EINVAL);
}

/* The port's umad device, as udev names it from sysfs (user_mad.c
 * ib_umad_init_port, umad_devnode). */
static void test_umad_path(void **state)
{
	char path[64];

	(void)state;
	assert_int_equal(ibsys_umad_path(root, "mlx5_0", 1, path, sizeof(path)), 0);
	assert_string_equal(path, "/dev/infiniband/umad0");
	/* issm1 names the same port: not the umad device. */
	assert_int_equal(ibsys_umad_path(root, "mlx5_0", 2, path, sizeof(path)), 0);
	assert_string_equal(path, "/dev/infiniband/umad1");
	assert_int_equal(ibsys_umad_path(root, "mlx5_0", 3, path, sizeof(path)), -ENOENT);
	assert_int_equal(ibsys_umad_path(root, "bnxt_re0", 1, path, sizeof(path)), -ENOENT);
	assert_int_equal(ibsys_umad_path("/nonexistent", "mlx5_0", 1, path, sizeof(path)), -ENOENT);
	assert_int_equal(ibsys_umad_path(root, "mlx5_0", 1, path, 10), -ENAMETOOLONG);
}

/* What ibats_port_gid gives for a port GUID's prefix: the selected
 * port's gids/0, read from sysfs alone. */
static void test_select_gid(void **state)
{
	struct ibsys_port p;
	char why[160], g[ATS_IP_STRLEN];

	(void)state;
	assert_int_equal(ibsys_select(root, NULL, 0, &p, why, sizeof(why)), 0);
	assert_string_equal(ats_gid_format(p.gid, g, sizeof(g)), "fe80::2:c903:a:b1c1");
	assert_int_equal(ibsys_select(root, "mlx5_0", 2, &p, why, sizeof(why)), 0);
	assert_string_equal(ats_gid_format(p.gid, g, sizeof(g)), "fe80::2:c903:a:b1c2");
}

static void test_ipoib_on_port(void **state)
{
	uint8_t gid[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
			    0x00, 0x02, 0xc9, 0x03, 0x00, 0x0a, 0xb1, 0xc1 };
	char name[IBSYS_NAME_MAX];

	(void)state;
	assert_int_equal(ibsys_ipoib_on_port(root, gid, 0xffff, name, sizeof(name)), 1);
	assert_string_equal(name, "ib0");
	/* The child interface's partition, in either membership form. */
	assert_int_equal(ibsys_ipoib_on_port(root, gid, 0x0001, name, sizeof(name)), 1);
	assert_string_equal(name, "ib0.8001");
	assert_int_equal(ibsys_ipoib_on_port(root, gid, 0x8002, name, sizeof(name)), 0);
	/* Port 2's GID: no IPoIB interface there. */
	gid[15] = 0xc2;
	assert_int_equal(ibsys_ipoib_on_port(root, gid, 0xffff, name, sizeof(name)), 0);
	assert_int_equal(ibsys_ipoib_on_port("/nonexistent", gid, 0xffff, name, sizeof(name)), 0);
}

static void test_select_skips_roce(void **state)
{
	struct ibsys_port p;
	char why[160];

	(void)state;
	assert_int_equal(ibsys_select(root, NULL, 0, &p, why, sizeof(why)), 0);
	assert_string_equal(p.ca, "mlx5_0");
	assert_int_equal(p.port, 1);
	/* Asked for by name, the RoCE port is refused with the reason. */
	assert_int_equal(ibsys_select(root, "bnxt_re0", 0, &p, why, sizeof(why)),
			 -EPROTONOSUPPORT);
	assert_non_null(strstr(why, "bnxt_re0 port 1 is RoCE"));
	/* A named IB port is taken even when down (the admin's choice). */
	assert_int_equal(ibsys_select(root, "mlx5_0", 2, &p, why, sizeof(why)), 0);
	assert_int_equal(p.port, 2);
	assert_int_equal(p.state, IBSYS_DOWN);
	assert_int_equal(ibsys_select(root, "mlx5_0", 7, &p, why, sizeof(why)), -ENODEV);
}

static void test_select_prefers_link_up(void **state)
{
	struct ibsys_port p;
	char why[160];

	(void)state;
	/* Port 1 goes down, port 2 comes up to INIT (no SM yet). */
	put("class/infiniband/mlx5_0/ports/1/state", "1: DOWN\n");
	put("class/infiniband/mlx5_0/ports/1/phys_state", "3: Disabled\n");
	put("class/infiniband/mlx5_0/ports/2/state", "2: INIT\n");
	put("class/infiniband/mlx5_0/ports/2/phys_state", "5: LinkUp\n");
	assert_int_equal(ibsys_select(root, NULL, 0, &p, why, sizeof(why)), 0);
	assert_int_equal(p.port, 2);
	/* A kernel without link_layer (before RoCE) shows IB ports. */
	port("qib0", 1, "4: ACTIVE\n", "5: LinkUp\n", NULL, "0x5\n",
	     "fe80:0000:0000:0000:0011:7500:0070:0001\n");
	assert_int_equal(ibsys_select(root, NULL, 0, &p, why, sizeof(why)), 0);
	assert_string_equal(p.ca, "qib0");
	put("class/infiniband/mlx5_0/ports/1/state", "4: ACTIVE\n");
	put("class/infiniband/mlx5_0/ports/1/phys_state", "5: LinkUp\n");
	put("class/infiniband/mlx5_0/ports/2/state", "1: DOWN\n");
	put("class/infiniband/mlx5_0/ports/2/phys_state", "2: Polling\n");
}

static void test_select_none(void **state)
{
	struct ibsys_port p;
	char why[160];

	(void)state;
	assert_int_equal(ibsys_select("/nonexistent", NULL, 0, &p, why, sizeof(why)), -ENODEV);
	assert_non_null(strstr(why, "no InfiniBand port"));
}

/* RoCE ports alone: refused even when nothing is named, since libibumad,
 * asked when sysfs shows no port, would open the RoCE one. */
static void test_select_roce_only(void **state)
{
	struct ibsys_port p;
	char why[200], sub[128];

	(void)state;
	put("roce/class/infiniband/rxe0/ports/1/state", "4: ACTIVE\n");
	put("roce/class/infiniband/rxe0/ports/1/link_layer", "Ethernet\n");
	snprintf(sub, sizeof(sub), "%s/roce", root);
	assert_int_equal(ibsys_select(sub, NULL, 0, &p, why, sizeof(why)), -EPROTONOSUPPORT);
	assert_non_null(strstr(why, "only RoCE"));
	assert_non_null(strstr(why, "rxe0 port 1"));
}

static void test_find_gid(void **state)
{
	struct ibsys_port p;
	uint8_t gid[16];

	(void)state;
	assert_int_equal(ats_gid_parse("fe80::2:c903:a:b1c2", gid), 0);
	assert_int_equal(ibsys_find_gid(root, gid, &p), 0);
	assert_string_equal(p.ca, "mlx5_0");
	assert_int_equal(p.port, 2);
	/* A GID further down the table. */
	assert_int_equal(ats_gid_parse("fec0:0:0:1:2:c903:a:b1c1", gid), 0);
	assert_int_equal(ibsys_find_gid(root, gid, &p), 0);
	assert_int_equal(p.port, 1);
	assert_int_equal(ats_gid_parse("fe80::1", gid), 0);
	assert_int_equal(ibsys_find_gid(root, gid, &p), -ENOENT);
}

static void test_netdev(void **state)
{
	struct ibsys_netdev nd;
	struct ibsys_port p;

	(void)state;
	assert_int_equal(ibsys_netdev_read(root, "ib0", &nd), 0);
	assert_int_equal(nd.pkey, 0xffff);
	assert_int_equal(nd.qpn, 0x48);
	/* The interface's port is the one whose GID table holds its GID. */
	assert_int_equal(ibsys_find_gid(root, nd.gid, &p), 0);
	assert_string_equal(p.ca, "mlx5_0");
	assert_int_equal(p.port, 1);
	assert_int_equal(ibsys_netdev_read(root, "ib0.8001", &nd), 0);
	assert_int_equal(nd.pkey, 0x8001);
	assert_int_equal(nd.qpn, 0x10a);
	assert_int_equal(ibsys_netdev_read(root, "eth0", &nd), -EPROTOTYPE);
	assert_int_equal(ibsys_netdev_read(root, "ibbad", &nd), -EINVAL);
	assert_int_equal(ibsys_netdev_read(root, "nosuch", &nd), -ENOENT);
	assert_int_equal(ibsys_netdev_read(root, "../x", &nd), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_port_read),
		cmocka_unit_test(test_umad_path),
		cmocka_unit_test(test_select_gid),
		cmocka_unit_test(test_ipoib_on_port),
		cmocka_unit_test(test_select_skips_roce),
		cmocka_unit_test(test_select_prefers_link_up),
		cmocka_unit_test(test_select_none),
		cmocka_unit_test(test_select_roce_only),
		cmocka_unit_test(test_find_gid),
		cmocka_unit_test(test_netdev),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
