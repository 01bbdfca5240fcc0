/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The driver profiles (simhost/kernel/kdriver.c): which verbs async
 * events each driver raises for a port change (hw/mlx5/main.c
 * handle_port_change, hw/mlx4/mad.c handle_port_mgmt_change_event,
 * hw/qib/qib_mad.c subn_set_portinfo), as ksysfs_update raises them from
 * two reads of PortInfo, and the received MAD's P_Key index and path
 * bits (user_mad.c recv_handler). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <infiniband/verbs.h>

#include "core/wire.h"
#include "simhost/kernel/kdriver.h"
#include "simhost/kernel/ksysfs.h"

static void test_parse(void **state)
{
	(void)state;
	assert_int_equal(kdriver_parse("mlx5"), KDRIVER_MLX5);
	assert_int_equal(kdriver_parse("mlx4"), KDRIVER_MLX4);
	assert_int_equal(kdriver_parse("qib"), KDRIVER_QIB);
	assert_int_equal(kdriver_parse("mthca"), -22);
	assert_string_equal(kdriver_name(KDRIVER_MLX4), "mlx4");
}

/* A failover: a new SM LID, and ClientReregister from the new master. */
static void test_sm_change(void **state)
{
	struct kdriver_change c = { .sm_lid = 1, .rereg = 1 };
	uint32_t ev[KDRIVER_MAX_EVENTS];

	(void)state;
	/* Neither Mellanox driver has an SM event: CLIENT_REREGISTER only. */
	assert_int_equal(kdriver_events(KDRIVER_MLX5, &c, ev), 1);
	assert_int_equal(ev[0], IBV_EVENT_CLIENT_REREGISTER);
	assert_int_equal(kdriver_events(KDRIVER_MLX4, &c, ev), 1);
	assert_int_equal(ev[0], IBV_EVENT_CLIENT_REREGISTER);
	/* qib's SMA raises SM_CHANGE, then CLIENT_REREGISTER. */
	assert_int_equal(kdriver_events(KDRIVER_QIB, &c, ev), 2);
	assert_int_equal(ev[0], IBV_EVENT_SM_CHANGE);
	assert_int_equal(ev[1], IBV_EVENT_CLIENT_REREGISTER);
	/* An SM that sets no ClientReregister: nothing at all on mlx5. */
	c.rereg = 0;
	assert_int_equal(kdriver_events(KDRIVER_MLX5, &c, ev), 0);
	assert_int_equal(kdriver_events(KDRIVER_MLX4, &c, ev), 0);
	assert_int_equal(kdriver_events(KDRIVER_QIB, &c, ev), 1);
	assert_int_equal(ev[0], IBV_EVENT_SM_CHANGE);
	/* A new SM SL alone: qib's SM_CHANGE too. */
	c.sm_lid = 0;
	c.sm_sl = 1;
	assert_int_equal(kdriver_events(KDRIVER_MLX5, &c, ev), 0);
	assert_int_equal(kdriver_events(KDRIVER_QIB, &c, ev), 1);
}

static void test_port_changes(void **state)
{
	struct kdriver_change c = { .lmc = 1 };
	uint32_t ev[KDRIVER_MAX_EVENTS];

	(void)state;
	/* A new LMC: qib's LID_CHANGE; no Mellanox code names it. */
	assert_int_equal(kdriver_events(KDRIVER_MLX5, &c, ev), 0);
	assert_int_equal(kdriver_events(KDRIVER_QIB, &c, ev), 1);
	assert_int_equal(ev[0], IBV_EVENT_LID_CHANGE);
	/* The GID prefix: mlx4's GID_CHANGE (GID_PFX_CHANGE_MASK), none from
	 * qib's SMA. */
	memset(&c, 0, sizeof(c));
	c.gid_prefix = 1;
	assert_int_equal(kdriver_events(KDRIVER_MLX4, &c, ev), 1);
	assert_int_equal(ev[0], IBV_EVENT_GID_CHANGE);
	assert_int_equal(kdriver_events(KDRIVER_QIB, &c, ev), 0);
	/* Down, then up with a new LID and P_Keys, every driver. */
	memset(&c, 0, sizeof(c));
	c.down = 1;
	assert_int_equal(kdriver_events(KDRIVER_MLX5, &c, ev), 1);
	assert_int_equal(ev[0], IBV_EVENT_PORT_ERR);
	memset(&c, 0, sizeof(c));
	c.up = c.lid = c.pkeys = c.rereg = 1;
	assert_int_equal(kdriver_events(KDRIVER_MLX5, &c, ev), 4);
	assert_int_equal(ev[0], IBV_EVENT_LID_CHANGE);
	assert_int_equal(ev[1], IBV_EVENT_PKEY_CHANGE);
	assert_int_equal(ev[2], IBV_EVENT_PORT_ACTIVE);
	assert_int_equal(ev[3], IBV_EVENT_CLIENT_REREGISTER);
	assert_int_equal(kdriver_events(KDRIVER_QIB, &c, ev), 4);
}

static void pkeys(uint8_t pk[64], uint16_t a, uint16_t b)
{
	memset(pk, 0, 64);
	wire_put16(pk, a);
	wire_put16(pk + 2, b);
}

static void test_recv_fields(void **state)
{
	uint8_t pk[64];

	(void)state;
	pkeys(pk, 0xffff, 0);
	assert_int_equal(kdriver_recv_pkey_index(pk), 0);
	pkeys(pk, 0x7fff, 0x8001); /* a limited member */
	assert_int_equal(kdriver_recv_pkey_index(pk), 0);
	pkeys(pk, 0x8001, 0x7fff); /* OpenSM's indx0 on another P_Key */
	assert_int_equal(kdriver_recv_pkey_index(pk), 1);
	pkeys(pk, 0x7fff, 0xffff); /* both: ib_find_pkey takes the full one */
	assert_int_equal(kdriver_recv_pkey_index(pk), 1);
	pkeys(pk, 0x8001, 0);
	assert_int_equal(kdriver_recv_pkey_index(pk), 0);
	assert_int_equal(kdriver_recv_path_bits(0x13, 0), 0);
	assert_int_equal(kdriver_recv_path_bits(0x13, 2), 3);
}

/* ksysfs_update: two reads of the port, the events of the node's driver. */
struct fs {
	char dir[64];
	struct ksysfs s;
	uint8_t pi[64], pk[64];
};

static struct fs *fs_new(enum kdriver d, int no_rereg)
{
	struct fs *f = calloc(1, sizeof(*f));
	uint8_t ni[64] = { 0 };
	uint32_t ev[KSYSFS_MAX_EVENTS];

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/test_kdriver.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	ni[KSYSFS_NI_OFF_NODE_TYPE] = 1;
	assert_int_equal(ksysfs_init(&f->s, f->dir, "n1", ni), 0);
	f->s.driver = d;
	f->s.no_rereg = no_rereg;
	f->pi[KSYSFS_PI_OFF_STATE] = KSYSFS_PI_STATE_ACTIVE;
	wire_put16(f->pi + KSYSFS_PI_OFF_LID, 2);
	wire_put16(f->pi + KSYSFS_PI_OFF_SM_LID, 1);
	wire_put16(f->pk, 0xffff);
	assert_int_equal(ksysfs_update(&f->s, f->pi, f->pk, ev), 0); /* the first: none */
	return f;
}

static void fs_free(struct fs *f)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	assert_int_equal(system(cmd), 0);
	free(f);
}

static void test_ksysfs_failover(void **state)
{
	uint32_t ev[KSYSFS_MAX_EVENTS];
	struct fs *f;

	(void)state;
	f = fs_new(KDRIVER_MLX5, 0);
	wire_put16(f->pi + KSYSFS_PI_OFF_SM_LID, 7);
	assert_int_equal(ksysfs_update(&f->s, f->pi, f->pk, ev), 1);
	assert_int_equal(ev[0], IBV_EVENT_CLIENT_REREGISTER);
	assert_int_equal(ksysfs_update(&f->s, f->pi, f->pk, ev), 0); /* no change */
	fs_free(f);

	f = fs_new(KDRIVER_MLX5, 1);
	wire_put16(f->pi + KSYSFS_PI_OFF_SM_LID, 7);
	assert_int_equal(ksysfs_update(&f->s, f->pi, f->pk, ev), 0);
	fs_free(f);

	f = fs_new(KDRIVER_MLX4, 0);
	wire_put16(f->pi + KSYSFS_PI_OFF_SM_LID, 7);
	assert_int_equal(ksysfs_update(&f->s, f->pi, f->pk, ev), 1);
	assert_int_equal(ev[0], IBV_EVENT_CLIENT_REREGISTER);
	fs_free(f);

	f = fs_new(KDRIVER_QIB, 0);
	wire_put16(f->pi + KSYSFS_PI_OFF_SM_LID, 7);
	assert_int_equal(ksysfs_update(&f->s, f->pi, f->pk, ev), 2);
	assert_int_equal(ev[0], IBV_EVENT_SM_CHANGE);
	assert_int_equal(ev[1], IBV_EVENT_CLIENT_REREGISTER);
	fs_free(f);
}

static void test_ksysfs_port_up(void **state)
{
	uint32_t ev[KSYSFS_MAX_EVENTS];
	struct fs *f = fs_new(KDRIVER_MLX5, 0);

	(void)state;
	f->pi[KSYSFS_PI_OFF_STATE] = 2; /* INIT */
	assert_int_equal(ksysfs_update(&f->s, f->pi, f->pk, ev), 1);
	assert_int_equal(ev[0], IBV_EVENT_PORT_ERR);
	f->pi[KSYSFS_PI_OFF_STATE] = KSYSFS_PI_STATE_ACTIVE;
	assert_int_equal(ksysfs_update(&f->s, f->pi, f->pk, ev), 2);
	assert_int_equal(ev[0], IBV_EVENT_PORT_ACTIVE);
	assert_int_equal(ev[1], IBV_EVENT_CLIENT_REREGISTER);
	wire_put16(f->pk + 2, 0x8001);
	assert_int_equal(ksysfs_update(&f->s, f->pi, f->pk, ev), 1);
	assert_int_equal(ev[0], IBV_EVENT_PKEY_CHANGE);
	fs_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_sm_change),
		cmocka_unit_test(test_port_changes),
		cmocka_unit_test(test_recv_fields),
		cmocka_unit_test(test_ksysfs_failover),
		cmocka_unit_test(test_ksysfs_port_up),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
