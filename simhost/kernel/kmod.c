/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The simulated node's run-time kernel modules: see kmod.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kmod.h"

/* The QPNs of IPoIB interfaces: below the first block handed to verbs
 * users (simhost.h SIMHOST_QPN_BLOCK), one each, never reused. */
#define KMOD_IPOIB_QPN_FIRST 0x48
/* drivers/infiniband/core/cm.c: ib_cm's agent (IB_CM_CLASS_VERSION,
 * Send only). */
#define KMOD_CM_CLASS 0x07
#define KMOD_CM_CLASS_VERSION 2
#define KMOD_METHOD_SEND 0x03

void kmod_init(struct kmod *m, struct kmad *k, struct ksysfs *fs, struct kipoib *ipoib)
{
	memset(m, 0, sizeof(*m));
	m->k = k;
	m->fs = fs;
	m->ipoib = ipoib;
	kinet_init(&m->net);
	m->next_qpn = KMOD_IPOIB_QPN_FIRST;
}

void kmod_fini(struct kmod *m)
{
	if (m->cm)
		kmad_unregister(m->k, KMAD_KERNEL, m->cm_agent);
	if (m->has_sa_agent)
		kmad_unregister(m->k, KMAD_KERNEL, m->sa_agent);
	m->cm = m->has_sa_agent = 0;
}

int kmod_ipoib_spec(const char *spec, char name[16], uint16_t *pkey)
{
	const char *colon = strchr(spec, ':');
	size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
	unsigned long v = 0xffff;
	char *end;

	if (!len || len >= 16)
		return -EINVAL;
	if (colon) {
		errno = 0;
		v = strtoul(colon + 1, &end, 0);
		if (errno || end == colon + 1 || *end || !v || v > 0xffff)
			return -EINVAL;
	}
	memcpy(name, spec, len);
	name[len] = '\0';
	*pkey = (uint16_t)v;
	return 0;
}

/* ib_sa's agent (sa_query.c: a sender only, its answers matched by
 * TID): the first of ib_ipoib's joins or rdma_cm's route queries
 * (loaded with ib_cm here) registers it; it stays until kmod_fini. */
static int kmod_sa(struct kmod *m)
{
	struct kmad_reg r;
	int ret;

	if (m->has_sa_agent)
		return 0;
	memset(&r, 0, sizeof(r));
	r.qpn = 1;
	if ((ret = kmad_register(m->k, KMAD_KERNEL, &r, &m->sa_agent)) < 0)
		return ret;
	m->has_sa_agent = 1;
	return 0;
}

int kmod_ipoib_add(struct kmod *m, const char *name, uint16_t pkey, int64_t now)
{
	uint16_t pk;
	int ret;

	if ((ret = kmod_sa(m)) < 0)
		return ret;
	if ((ret = ksysfs_add_netdev(m->fs, name, pkey, m->next_qpn)) < 0)
		return ret;
	if ((ret = kinet_if_add(&m->net, name, pkey)) < 0) {
		ksysfs_del_netdev(m->fs, name, &pk);
		return ret;
	}
	if ((ret = kipoib_add(m->ipoib, pkey, now)) < 0) {
		kinet_if_del(&m->net, name);
		ksysfs_del_netdev(m->fs, name, &pk);
		return ret;
	}
	m->next_qpn++;
	return 0;
}

int kmod_ipoib_del(struct kmod *m, const char *name, kipoib_send_fn send, void *ctx)
{
	uint8_t gid[16];
	uint16_t pkey;
	int ret;

	if ((ret = ksysfs_del_netdev(m->fs, name, &pkey)) < 0)
		return ret;
	kinet_if_del(&m->net, name);
	ksysfs_gid(m->fs, gid);
	ret = kipoib_del(m->ipoib, pkey, gid, send, ctx);
	return ret < 0 ? ret : 0;
}

int kmod_ipoib_addr(struct kmod *m, const char *name, const char *spec, int add)
{
	struct kinet_addr a;

	if (kinet_addr_parse(spec, &a) < 0)
		return -EINVAL;
	return kinet_addr(&m->net, name, &a, add);
}

int kmod_ipoib_link(struct kmod *m, const char *name, int up)
{
	return kinet_link(&m->net, name, up);
}

int kmod_cm_load(struct kmod *m)
{
	struct kmad_reg r;
	int ret;

	if (m->cm)
		return 0;
	memset(&r, 0, sizeof(r));
	r.qpn = 1;
	r.mgmt_class = KMOD_CM_CLASS;
	r.class_version = KMOD_CM_CLASS_VERSION;
	r.method_mask[0] = 1ull << KMOD_METHOD_SEND;
	if ((ret = kmod_sa(m)) < 0)
		return ret;
	if ((ret = kmad_register(m->k, KMAD_KERNEL, &r, &m->cm_agent)) < 0)
		return ret;
	if ((ret = ksysfs_cm(m->fs, 1)) < 0) {
		kmad_unregister(m->k, KMAD_KERNEL, m->cm_agent);
		return ret;
	}
	m->cm = 1;
	return 0;
}

int kmod_cm_unload(struct kmod *m)
{
	if (!m->cm)
		return -ENOENT;
	m->cm = 0;
	kmad_unregister(m->k, KMAD_KERNEL, m->cm_agent);
	return ksysfs_cm(m->fs, 0);
}
