/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* ib_cm_init_qp_attr (Linux 6.1 cm.c cm_init_qp_init_attr,
 * cm_init_qp_rtr_attr, cm_init_qp_rts_attr) for a kcm connection: the
 * answer to rdma_ucm's INIT_QP_ATTR once ib_cm has the connection. */
#ifndef IBATS_SIMHOST_KCM_QP_H
#define IBATS_SIMHOST_KCM_QP_H

#include <stdint.h>

#include "kcm.h"

#define KCM_QP_ATTR_LEN 144 /* sizeof(struct ib_uverbs_qp_attr) */

/* qp_state IBV_QPS_INIT, _RTR or _RTS: resp gets a struct
 * ib_uverbs_qp_attr (host byte order, the process ABI): 0, or -EINVAL
 * for an unknown conn, another qp_state, or a state of the connection
 * cm.c has no such answer in (RTR/RTS need the peer's QPN). */
int kcm_qp_init_attr(const struct kcm *m, uint32_t conn, uint32_t qp_state, uint8_t *resp);

#endif
