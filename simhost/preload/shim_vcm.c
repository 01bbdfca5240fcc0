/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Verbs objects librdmacm and its users (ucmatose, rping) create on the
 * node's device; there is no data path (shim_verbs.c), so they carry
 * nothing: see shim_vcm.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "shim.h"
#include "shim_vcm.h"
#include "shim_verbs.h"

/* A counter for MR keys: the kernel hands out distinct ones. */
static uint32_t shim_vcm_key = 0x100;

/* A completion channel whose fd never becomes readable: no completion
 * ever arrives (an eventfd: poll()able, closable, as the uverbs fd). */
struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *ctx)
{
	struct ibv_comp_channel *(*next)(struct ibv_context *);
	struct ibv_comp_channel *ch;

	if (!shim_verbs_ctx_ours(ctx)) {
		next = (struct ibv_comp_channel * (*)(struct ibv_context *))
			shim_verbs_next("ibv_create_comp_channel");
		return next ? next(ctx) : NULL;
	}
	ch = calloc(1, sizeof(*ch));
	if (!ch)
		return NULL;
	ch->context = ctx;
	ch->fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (ch->fd < 0) {
		free(ch);
		return NULL;
	}
	return ch;
}

int ibv_destroy_comp_channel(struct ibv_comp_channel *ch)
{
	int (*next)(struct ibv_comp_channel *);

	if (!shim_verbs_ctx_ours(ch->context)) {
		next = (int (*)(struct ibv_comp_channel *))shim_verbs_next(
			"ibv_destroy_comp_channel");
		return next ? next(ch) : EINVAL;
	}
	shim_next()->close(ch->fd);
	free(ch);
	return 0;
}

/* ECE: the device has no options to offer (libibverbs' own calls the
 * context's ops, which the node's context has not). librdmacm takes
 * EOPNOTSUPP as "no ECE" (cma.c ucma_query_ece / rdma_set_local_ece). */
int ibv_query_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	int (*next)(struct ibv_qp *, struct ibv_ece *);

	if (!shim_verbs_ctx_ours(qp->context)) {
		next = (int (*)(struct ibv_qp *, struct ibv_ece *))shim_verbs_next("ibv_query_ece");
		return next ? next(qp, ece) : EOPNOTSUPP;
	}
	return EOPNOTSUPP;
}

int ibv_set_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	int (*next)(struct ibv_qp *, struct ibv_ece *);

	if (!shim_verbs_ctx_ours(qp->context)) {
		next = (int (*)(struct ibv_qp *, struct ibv_ece *))shim_verbs_next("ibv_set_ece");
		return next ? next(qp, ece) : EOPNOTSUPP;
	}
	return EOPNOTSUPP;
}

static struct ibv_mr *shim_vcm_mr(struct ibv_pd *pd, void *addr, size_t length)
{
	struct ibv_mr *mr = calloc(1, sizeof(*mr));
	uint32_t key;

	if (!mr)
		return NULL;
	key = __atomic_fetch_add(&shim_vcm_key, 1, __ATOMIC_RELAXED);
	mr->context = pd->context;
	mr->pd = pd;
	mr->addr = addr;
	mr->length = length;
	mr->lkey = mr->rkey = key;
	return mr;
}

/* ibv_reg_mr is a macro of verbs.h; the library exports the function
 * (old callers and access flags without IBV_ACCESS_OPTIONAL_RANGE) and
 * ibv_reg_mr_iova2 (the rest). */
#undef ibv_reg_mr
struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	struct ibv_mr *(*next)(struct ibv_pd *, void *, size_t, int);

	if (!shim_verbs_ctx_ours(pd->context)) {
		next = (struct ibv_mr * (*)(struct ibv_pd *, void *, size_t, int))
			shim_verbs_next("ibv_reg_mr");
		return next ? next(pd, addr, length, access) : NULL;
	}
	return shim_vcm_mr(pd, addr, length);
}

struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
				unsigned int access)
{
	struct ibv_mr *(*next)(struct ibv_pd *, void *, size_t, uint64_t, unsigned int);

	if (!shim_verbs_ctx_ours(pd->context)) {
		next = (struct ibv_mr * (*)(struct ibv_pd *, void *, size_t, uint64_t, unsigned int))
			shim_verbs_next("ibv_reg_mr_iova2");
		return next ? next(pd, addr, length, iova, access) : NULL;
	}
	return shim_vcm_mr(pd, addr, length);
}

int ibv_dereg_mr(struct ibv_mr *mr)
{
	int (*next)(struct ibv_mr *);

	if (!shim_verbs_ctx_ours(mr->context)) {
		next = (int (*)(struct ibv_mr *))shim_verbs_next("ibv_dereg_mr");
		return next ? next(mr) : EINVAL;
	}
	free(mr);
	return 0;
}
