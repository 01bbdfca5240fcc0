/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The MAD responder, on the SA thread: what the port answers to MADs
 * that arrive unsolicited. SA Reports go to the subscriptions (subs_exec.h); vendor classes
 * 0x34 (liveness) and 0x32 (ibping) are answered from this host's
 * identity. No SMP class is registered: the kernel's SMA answers SMPs. */
#ifndef IBATS_MAD_SERVE_H
#define IBATS_MAD_SERVE_H

#include <stddef.h>
#include <stdint.h>

#include "core/mport.h"

/* Serve on port the vendor classes that are on. 0 or -errno (a class
 * already taken, e.g. by ibping -S). */
int mad_serve_init(struct mport *port, int liveness, int ibping);
/* The port's LID and GUID for the vendor class answers. */
void mad_serve_identity(const struct mport_info *pi);

#endif
