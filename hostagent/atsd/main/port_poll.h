/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The port as atsd last saw it (LID, SM LID, GID), read every
 * sm_poll_interval: an SM or LID change, or the port coming back up, may
 * have cost us our records. */
#ifndef IBATS_PORT_POLL_H
#define IBATS_PORT_POLL_H

#include <stdint.h>

#include "host/agent_conf.h"
#include "sa/sa_thread.h"

/* changed(sm_change): the SM LID or LID changed (1), or the port came
 * back up (0). conf stays the caller's. */
void port_poll_init(struct sa_thread *saj, const struct agent_conf *conf,
		    void (*changed)(int sm_change));
/* Read the port once, waiting for the answer: its GID is needed before
 * anything else. 0 or -errno; the port may still be down. */
int port_poll_first(void);
/* A sync read the port: it is up (an SM or LID change counts). */
void port_poll_set(const struct mport_info *port);
/* The port; *known 0 while it is down or unknown. */
const struct mport_info *port_poll_info(int *known);
unsigned port_poll_sm_changes(void);
/* The next poll when it is due; its deadline. */
int64_t port_poll_timers(int64_t now);

#endif
