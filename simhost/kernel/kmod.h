/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The simulated node's kernel modules an admin changes at run time:
 * ib_ipoib's interfaces (`ip link add NAME type ipoib` or the parent's
 * create_child, `ip link del NAME`) and ib_cm (modprobe, rmmod). Ties
 * each change to its three faces: the node's sysfs (ksysfs), ipoib's
 * broadcast joins and leaves (kipoib), their IP side (kinet: state and
 * addresses, what rdma_cm checks an IP request against) and the MAD agents the module
 * holds in the kernel's MAD layer (kmad: ib_sa's sender of the joins,
 * ib_cm's class 0x07). simhostd's --ipoib and --kernel-cm go through
 * here too. */
#ifndef IBATS_KMOD_H
#define IBATS_KMOD_H

#include <stdint.h>

#include "kinet.h"
#include "kipoib.h"
#include "kmad.h"
#include "ksysfs.h"

struct kmod {
	struct kmad *k;
	struct ksysfs *fs;
	struct kipoib *ipoib;
	struct kinet net; /* the interfaces as IP sees them (rdma_cm's check) */
	uint32_t next_qpn;
	uint32_t sa_agent; /* valid when has_sa_agent */
	int has_sa_agent;
	uint32_t cm_agent; /* valid when cm */
	int cm;
};

void kmod_init(struct kmod *m, struct kmad *k, struct ksysfs *fs, struct kipoib *ipoib);
void kmod_fini(struct kmod *m);
/* "NAME[:PKEY]" (PKEY 1..0xffff, default 0xffff; name as ksysfs takes
 * it): 0 or -EINVAL. */
int kmod_ipoib_spec(const char *spec, char name[16], uint16_t *pkey);
/* Interface name of pkey: in sysfs, and joined at once when the port
 * is up. -EEXIST, -ENOSPC, -EINVAL, -errno. */
int kmod_ipoib_add(struct kmod *m, const char *name, uint16_t pkey, int64_t now);
/* Interface name gone; the leave (given to send) when it was the last
 * of its P_Key. -ENODEV when there is none. */
int kmod_ipoib_del(struct kmod *m, const char *name, kipoib_send_fn send, void *ctx);
/* `ip addr add|del IP/PREFIX dev NAME` (spec "IP/PREFIX") on an IPoIB
 * interface; `ip link set NAME up|down`. kinet_addr's errors, -EINVAL
 * for a bad spec. */
int kmod_ipoib_addr(struct kmod *m, const char *name, const char *spec, int add);
int kmod_ipoib_link(struct kmod *m, const char *name, int up);
/* ib_cm loaded: its agent holds class 0x07 (a process's registration
 * overlapping it fails) and /sys/module/ib_cm exists. Loading it again
 * is nothing; -EINVAL when a process holds the class (ib_cm's
 * ib_register_mad_agent would fail). ib_sa's agent is registered
 * with it if no ipoib did: rdma_cm's route queries go through it. */
int kmod_cm_load(struct kmod *m);
/* ib_cm unloaded: the class is free, /sys/module/ib_cm gone. -ENOENT
 * when it is not loaded (rmmod: "not currently loaded"). */
int kmod_cm_unload(struct kmod *m);

#endif
