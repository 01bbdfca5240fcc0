/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The CM requests of the control socket: connect, disconnect and
 * connections, done on the SA thread through librdmacm (rcm.h), and lid,
 * which a listener asks to check who is calling. */
#ifndef IBATS_CTL_CM_H
#define IBATS_CTL_CM_H

#include "sa/sa_thread.h"

void ctl_cm_init(struct sa_thread *saj);
/* connect IP PORT [SID]: from this host's primary address in 0xFFFF. */
void ctl_cm_connect(int slot, char **argv, int argc);
/* connections (argc 1) or disconnect ID. */
void ctl_cm_conns(int slot, char **argv, int argc);
/* lid LID: the port GUID and base LID of the port that holds LID (the SA's
 * NodeRecord), for a listener's check of a requester's GID. */
void ctl_cm_lid(int slot, char **argv, int argc);

#endif
