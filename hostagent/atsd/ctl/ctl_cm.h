/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The CM requests of the control socket: connect, disconnect and
 * connections, done on the SA thread through librdmacm (rcm.h). */
#ifndef IBATS_CTL_CM_H
#define IBATS_CTL_CM_H

#include "sa/sa_thread.h"

void ctl_cm_init(struct sa_thread *saj);
/* connect IP PORT [SID]: from this host's primary address in 0xFFFF. */
void ctl_cm_connect(int slot, char **argv, int argc);
/* connections (argc 1) or disconnect ID. */
void ctl_cm_conns(int slot, char **argv, int argc);

#endif
