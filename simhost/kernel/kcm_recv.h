/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The simulated ib_cm's receive side (kcm_recv.c, Linux 6.1 cm.c
 * cm_recv_handler): one CM MAD from the fabric into kcm's state. */
#ifndef IBATS_SIMHOST_KCM_RECV_H
#define IBATS_SIMHOST_KCM_RECV_H

#include <stddef.h>
#include <stdint.h>

#include "kcm.h"

/* A CM MAD from the fabric (class 0x07), from slid. */
void kcm_recv(struct kcm *m, const uint8_t *mad, size_t len, uint16_t slid, int64_t now);

#endif
