/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* libibverbs calls librdmacm (rdma-core 44) makes on a node's device
 * beyond the ones shim_verbs.c has: completion channels, ECE, memory
 * regions (RDMACM.md 7). Functions of libibverbs' ABI only; no
 * prefixed API of its own. */
#ifndef IBATS_SIMHOST_SHIM_VCM_H
#define IBATS_SIMHOST_SHIM_VCM_H

#endif
