/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* libibverbs' queries on the simulated node (shim_vquery.c): it
 * interposes ibv_query_device, ibv_query_port, ibv_query_gid and
 * ibv_query_pkey, whose prototypes are <infiniband/verbs.h>'s. */
#ifndef IBATS_SIMHOST_SHIM_VQUERY_H
#define IBATS_SIMHOST_SHIM_VQUERY_H

#include <infiniband/verbs.h>

#endif
