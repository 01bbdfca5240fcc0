/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* libibverbs on the simulated node (shim_verbs.c: devices, contexts,
 * events, objects; shim_vquery.c: the queries), what both share. */
#ifndef IBATS_SIMHOST_SHIM_VERBS_H
#define IBATS_SIMHOST_SHIM_VERBS_H

#include <stddef.h>

#include <infiniband/verbs.h>

/* ctx is one of the node's (else libibverbs' own). */
int shim_verbs_ctx_ours(const struct ibv_context *ctx);

/* libibverbs' own function `name`, for what is not the node's. */
void *shim_verbs_next(const char *name);

/* One attribute of the node's sysfs: the first line of
 * <sys>/class/infiniband/<ca>/<rel> in v; 0 or -errno. */
int shim_verbs_attr(const char *ca, char *v, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Entries of the node's <sys>/class/infiniband/<ca>/<rel> directory
 * that are not dots. */
int shim_verbs_count(const char *ca, const char *rel);

/* "0002:c903:0000:1234" (sysfs' GUIDs) in network order; 0 when not. */
__be64 shim_verbs_guid(const char *s);

#endif
