/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* atsctl's questions to the plugin on the SM (lib/host/smq_client.h):
 * `sm` (its view), `why` (this port's last refusals), and the reason
 * printed when the SA refuses a register or deregister. */
#ifndef IBATS_CMD_SM_H
#define IBATS_CMD_SM_H

#include <stdint.h>

#include "core/ats.h"

struct ctl;
struct ctl_args;

/* Each returns an exit status; the port and SA client are open. */
int cmd_sm(struct ctl *c, const struct ctl_args *a);
int cmd_sm_why(struct ctl *c, const struct ctl_args *a);

/* After the SA refused what (e.g. "register 10.0.0.5"), a Set or Delete
 * (method) of ip in pkey for gid: the SM's reason on stderr, when it
 * keeps one; nothing else (-v says why not). */
void cmd_sm_explain(struct ctl *c, const char *what, uint8_t method, const uint8_t *gid,
		    uint16_t pkey, const struct ats_ip *ip);

#endif
