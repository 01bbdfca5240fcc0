/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The simulated node's device nodes (simhost/wire/devnode.c): the owner
 * and mode each has on a distribution (drivers/base/devtmpfs.c
 * devtmpfs_create_node; user_mad.c umad_devnode, uverbs_main.c
 * uverbs_devnode, ucma.c ucma_misc) and the VFS's check of an opener
 * against them (fs/namei.c generic_permission, acl_permission_check). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "simhost/wire/devnode.h"
#include "simhost/wire/simhost.h"

#define RW (DEVNODE_MAY_READ | DEVNODE_MAY_WRITE)

static const struct devnode_cred root = { 0, 0, 0, ~0ull };
static const struct devnode_cred root_nocaps = { 0, 0, 0, 0 };
static const struct devnode_cred user = { 1000, 1000, 0, 0 };
static const struct devnode_cred nobody = { 65534, 65534, 0, 0 };
static const struct devnode_cred user_override = { 1000, 1000, 0, DEVNODE_CAP_DAC_OVERRIDE };
static const struct devnode_cred user_search = { 1000, 1000, 0, DEVNODE_CAP_DAC_READ_SEARCH };
static const struct devnode_cred user_in_node_group = { 1000, 1000, 1, 0 };

/* What a distribution makes: root:root, umad and issm 0600, uverbs and
 * rdma_cm 0666. */
static void test_owner_and_mode(void **state)
{
	static const struct { enum devnode_kind k; const char *name; unsigned mode; } want[] = {
		{ DEVNODE_UMAD, "umad", 0600 },
		{ DEVNODE_ISSM, "issm", 0600 },
		{ DEVNODE_UVERBS, "uverbs", 0666 },
		{ DEVNODE_RDMA_CM, "rdma_cm", 0666 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct devnode *d = devnode_get(want[i].k);

		assert_non_null(d);
		assert_string_equal(d->name, want[i].name);
		assert_int_equal(d->mode, want[i].mode);
		assert_int_equal(d->uid, 0);
		assert_int_equal(d->gid, 0);
	}
	assert_int_equal(devnode_get(DEVNODE_RDMA_CM)->numbered, 0);
	assert_int_equal(devnode_get(DEVNODE_UMAD)->numbered, 1);
}

/* Each connection stands for the node its open() names; the console none. */
static void test_kinds(void **state)
{
	(void)state;
	assert_ptr_equal(devnode_of_kind(SIMHOST_UMAD), devnode_get(DEVNODE_UMAD));
	assert_ptr_equal(devnode_of_kind(SIMHOST_AGENTS), devnode_get(DEVNODE_UMAD));
	assert_ptr_equal(devnode_of_kind(SIMHOST_ISSM), devnode_get(DEVNODE_ISSM));
	assert_ptr_equal(devnode_of_kind(SIMHOST_VERBS), devnode_get(DEVNODE_UVERBS));
	assert_ptr_equal(devnode_of_kind(SIMHOST_UCMA), devnode_get(DEVNODE_RDMA_CM));
	assert_ptr_equal(devnode_of_kind(SIMHOST_UCMA_CMD), devnode_get(DEVNODE_RDMA_CM));
	assert_null(devnode_of_kind(SIMHOST_ADMIN));
	assert_null(devnode_of_kind(0));
	assert_null(devnode_of_kind(99));
}

/* umad and issm: root's alone. A user gets EACCES for reading, writing or
 * both, whatever group it is in (0600: the group has nothing either). */
static void test_umad_root_only(void **state)
{
	const struct devnode *umad = devnode_get(DEVNODE_UMAD), *issm = devnode_get(DEVNODE_ISSM);

	(void)state;
	assert_int_equal(devnode_permission(umad, &root, RW), 0);
	/* The owner's bits: root needs no capability for its own node. */
	assert_int_equal(devnode_permission(umad, &root_nocaps, RW), 0);
	assert_int_equal(devnode_permission(issm, &root_nocaps, RW), 0);
	assert_int_equal(devnode_permission(umad, &user, RW), -EACCES);
	assert_int_equal(devnode_permission(umad, &nobody, RW), -EACCES);
	assert_int_equal(devnode_permission(umad, &user, DEVNODE_MAY_READ), -EACCES);
	assert_int_equal(devnode_permission(umad, &user, DEVNODE_MAY_WRITE), -EACCES);
	assert_int_equal(devnode_permission(umad, &user_in_node_group, RW), -EACCES);
	assert_int_equal(devnode_permission(issm, &nobody, RW), -EACCES);
	/* An empty mask (access F_OK) asks nothing of the bits. */
	assert_int_equal(devnode_permission(umad, &nobody, 0), 0);
}

/* generic_permission: CAP_DAC_OVERRIDE passes read and write,
 * CAP_DAC_READ_SEARCH reading alone; neither executes a node without an
 * execute bit. */
static void test_capabilities(void **state)
{
	const struct devnode *umad = devnode_get(DEVNODE_UMAD);

	(void)state;
	assert_int_equal(devnode_permission(umad, &user_override, RW), 0);
	assert_int_equal(devnode_permission(umad, &user_search, DEVNODE_MAY_READ), 0);
	assert_int_equal(devnode_permission(umad, &user_search, RW), -EACCES);
	assert_int_equal(devnode_permission(umad, &user_override, DEVNODE_MAY_EXEC), -EACCES);
	assert_int_equal(devnode_permission(umad, &root, DEVNODE_MAY_EXEC), -EACCES);
}

/* uverbs and rdma_cm: everyone's, for reading and writing, not executing. */
static void test_world_rw(void **state)
{
	const struct devnode *uv = devnode_get(DEVNODE_UVERBS), *cm = devnode_get(DEVNODE_RDMA_CM);

	(void)state;
	assert_int_equal(devnode_permission(uv, &nobody, RW), 0);
	assert_int_equal(devnode_permission(cm, &nobody, RW), 0);
	assert_int_equal(devnode_permission(cm, &user, DEVNODE_MAY_READ), 0);
	assert_int_equal(devnode_permission(cm, &root, RW), 0);
	assert_int_equal(devnode_permission(cm, &user, DEVNODE_MAY_EXEC), -EACCES);
}

/* The group's bits, when they differ from the others' (a made-up node:
 * none of ours has such a mode), for a member by fsgid or by a
 * supplementary group; the owner's bits for the owner even when the
 * others' would allow more (acl_permission_check looks no further). */
static void test_group_and_owner_bits(void **state)
{
	static const struct devnode grp = { "x", "class/x", 1, 0, 50, 0660 };
	static const struct devnode own = { "y", "class/y", 1, 1000, 0, 0066 };
	static const struct devnode_cred by_gid = { 1000, 50, 0, 0 };

	(void)state;
	assert_int_equal(devnode_permission(&grp, &by_gid, RW), 0);
	assert_int_equal(devnode_permission(&grp, &user_in_node_group, RW), 0);
	assert_int_equal(devnode_permission(&grp, &user, RW), -EACCES);
	assert_int_equal(devnode_permission(&own, &user, RW), -EACCES);
	assert_int_equal(devnode_permission(&own, &nobody, RW), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_owner_and_mode),
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_umad_root_only),
		cmocka_unit_test(test_capabilities),
		cmocka_unit_test(test_world_rw),
		cmocka_unit_test(test_group_and_owner_bits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
