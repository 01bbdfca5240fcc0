/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* libibverbs' queries on the simulated node, answered from the node's
 * sysfs as the kernel keeps it (what ib_query_port gives, the kernel
 * prints there: drivers/infiniband/core/sysfs.c). */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "shim_verbs.h"
#include "shim_vquery.h"

int ibv_query_device(struct ibv_context *ctx, struct ibv_device_attr *attr)
{
	int (*next)(struct ibv_context *, struct ibv_device_attr *);
	const char *ca;
	char v[128];

	if (!shim_verbs_ctx_ours(ctx)) {
		next = (int (*)(struct ibv_context *, struct ibv_device_attr *))shim_verbs_next(
			"ibv_query_device");
		return next ? next(ctx, attr) : EINVAL;
	}
	ca = ctx->device->name;
	memset(attr, 0, sizeof(*attr));
	if (!shim_verbs_attr(ca, v, sizeof(v), "fw_ver"))
		snprintf(attr->fw_ver, sizeof(attr->fw_ver), "%.63s", v);
	if (!shim_verbs_attr(ca, v, sizeof(v), "node_guid"))
		attr->node_guid = shim_verbs_guid(v);
	if (!shim_verbs_attr(ca, v, sizeof(v), "sys_image_guid"))
		attr->sys_image_guid = shim_verbs_guid(v);
	if (!shim_verbs_attr(ca, v, sizeof(v), "hw_rev"))
		attr->hw_ver = (uint32_t)strtoul(v, NULL, 16);
	attr->phys_port_cnt = (uint8_t)shim_verbs_count(ca, "ports");
	/* The limits librdmacm reads (ucma_init_device): max_qp_wr, and
	 * max_qp_rd_atom / max_qp_init_rd_atom, which rdma_connect and
	 * rdma_accept check conn_param's responder_resources and
	 * initiator_depth against (cma.c ucma_valid_param). A ConnectX-4/5
	 * (mlx5) answers 32768 work requests and 16 outstanding RDMA
	 * reads/atomics each way (`ibv_devinfo -v`, mlx5 ib_main.c
	 * mlx5_ib_query_device: 1 << log_max_ra_res_qp). */
	attr->max_qp = 4096;
	attr->max_qp_wr = 32768;
	attr->max_qp_rd_atom = 16;
	attr->max_qp_init_rd_atom = 16;
	attr->max_pkeys = (uint16_t)shim_verbs_count(ca, "ports/1/pkeys");
	return 0;
}

/* "10 Gb/sec (4X)", "56 Gb/sec (4X FDR)": width and speed as
 * PortInfo's LinkWidthActive / LinkSpeedActive encode them. */
static void shim_vquery_rate(const char *s, uint8_t *width, uint8_t *speed)
{
	const char *p = strchr(s, '(');
	int lanes = p ? atoi(p + 1) : 0;
	double gbps = atof(s);

	*width = lanes == 1 ? 1 : lanes == 8 ? 4 : lanes == 12 ? 8 : 2;
	if (!lanes)
		lanes = 4;
	*speed = gbps / lanes >= 5 ? 4 : gbps / lanes >= 4 ? 2 : 1;
}

/* The exported ibv_query_port (verbs.h makes ibv_query_port a macro
 * that falls back to it for a context without extended ops). */
int(ibv_query_port)(struct ibv_context *ctx, uint8_t port, struct _compat_ibv_port_attr *compat)
{
	int (*next)(struct ibv_context *, uint8_t, struct _compat_ibv_port_attr *);
	struct ibv_port_attr *attr = (struct ibv_port_attr *)compat;
	const char *ca;
	char v[128];

	if (!shim_verbs_ctx_ours(ctx)) {
		next = (int (*)(struct ibv_context *, uint8_t, struct _compat_ibv_port_attr *))
			shim_verbs_next("ibv_query_port");
		return next ? next(ctx, port, compat) : EINVAL;
	}
	ca = ctx->device->name;
	if (shim_verbs_attr(ca, v, sizeof(v), "ports/%u/state", port))
		return EINVAL; /* no such port */
	memset(attr, 0, sizeof(*attr));
	attr->state = (enum ibv_port_state)atoi(v);
	if (!shim_verbs_attr(ca, v, sizeof(v), "ports/%u/phys_state", port))
		attr->phys_state = (uint8_t)atoi(v);
	if (!shim_verbs_attr(ca, v, sizeof(v), "ports/%u/lid", port))
		attr->lid = (uint16_t)strtoul(v, NULL, 16);
	if (!shim_verbs_attr(ca, v, sizeof(v), "ports/%u/sm_lid", port))
		attr->sm_lid = (uint16_t)strtoul(v, NULL, 16);
	if (!shim_verbs_attr(ca, v, sizeof(v), "ports/%u/sm_sl", port))
		attr->sm_sl = (uint8_t)atoi(v);
	if (!shim_verbs_attr(ca, v, sizeof(v), "ports/%u/lid_mask_count", port))
		attr->lmc = (uint8_t)atoi(v);
	if (!shim_verbs_attr(ca, v, sizeof(v), "ports/%u/cap_mask", port))
		attr->port_cap_flags = (uint32_t)strtoul(v, NULL, 16);
	if (!shim_verbs_attr(ca, v, sizeof(v), "ports/%u/rate", port))
		shim_vquery_rate(v, &attr->active_width, &attr->active_speed);
	snprintf(v, sizeof(v), "ports/%u/gids", port);
	attr->gid_tbl_len = shim_verbs_count(ca, v);
	snprintf(v, sizeof(v), "ports/%u/pkeys", port);
	attr->pkey_tbl_len = (uint16_t)shim_verbs_count(ca, v);
	attr->max_mtu = IBV_MTU_4096;
	attr->active_mtu = IBV_MTU_4096;
	attr->max_msg_sz = 0x80000000u;
	attr->max_vl_num = 1;
	attr->link_layer = IBV_LINK_LAYER_INFINIBAND;
	return 0;
}

int ibv_query_gid(struct ibv_context *ctx, uint8_t port, int index, union ibv_gid *gid)
{
	int (*next)(struct ibv_context *, uint8_t, int, union ibv_gid *);
	unsigned w[8];
	char v[128];
	int i;

	if (!shim_verbs_ctx_ours(ctx)) {
		next = (int (*)(struct ibv_context *, uint8_t, int, union ibv_gid *))
			shim_verbs_next("ibv_query_gid");
		return next ? next(ctx, port, index, gid) : -1;
	}
	if (shim_verbs_attr(ctx->device->name, v, sizeof(v), "ports/%u/gids/%d", port, index) ||
	    sscanf(v, "%x:%x:%x:%x:%x:%x:%x:%x", &w[0], &w[1], &w[2], &w[3], &w[4], &w[5], &w[6],
		   &w[7]) != 8)
		return -1;
	for (i = 0; i < 8; i++) {
		gid->raw[2 * i] = (uint8_t)(w[i] >> 8);
		gid->raw[2 * i + 1] = (uint8_t)w[i];
	}
	return 0;
}

int ibv_query_pkey(struct ibv_context *ctx, uint8_t port, int index, __be16 *pkey)
{
	int (*next)(struct ibv_context *, uint8_t, int, __be16 *);
	char v[32];

	if (!shim_verbs_ctx_ours(ctx)) {
		next = (int (*)(struct ibv_context *, uint8_t, int, __be16 *))shim_verbs_next(
			"ibv_query_pkey");
		return next ? next(ctx, port, index, pkey) : -1;
	}
	if (shim_verbs_attr(ctx->device->name, v, sizeof(v), "ports/%u/pkeys/%d", port, index))
		return -1;
	*pkey = htobe16((uint16_t)strtoul(v, NULL, 16));
	return 0;
}
