/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* ib_umad's registration ioctls as they reach simhostd (simhost.h
 * SIMHOST_AGENTS): IB_USER_MAD_REGISTER_AGENT and _AGENT2 turned into a
 * kmad registration, with the checks user_mad.c makes before mad.c sees
 * it (ib_umad_reg_agent2: unknown flags, an OUI past 24 bits). */
#ifndef IBATS_KIOCTL_H
#define IBATS_KIOCTL_H

#include "kmad.h"
#include "simhost/wire/simhost.h"

/* q (SIMHOST_REG_AGENT or _AGENT2) into r: 0, or -EINVAL with rep->v2
 * as the kernel writes it back. */
int kioctl_reg(const struct simhost_reg_req *q, struct kmad_reg *r, struct simhost_reg_rep *rep);

#endif
