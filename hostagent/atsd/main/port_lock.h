/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* One atsd per port: a second (atsd.service beside atsd@CA:PORT, say)
 * would adopt the first one's records and delete them when it stops. The
 * lock sits next to the socket (/run/ibats for both units) and is held
 * until exit; the kernel drops it with the process, even on SIGKILL. */
#ifndef IBATS_PORT_LOCK_H
#define IBATS_PORT_LOCK_H

#include <stdint.h>

/* The lock of the port of GUID guid, beside socket: its fd (close it to
 * drop the lock); -EBUSY when another atsd holds it; -errno. Logged. */
int port_lock_take(const char *socket, uint64_t guid);

/* The lock before the port's agents: a second atsd on the port would
 * otherwise fail at the kernel's refusal of the classes the first one
 * holds, and say less. *ca and *port (NULL and 0: the first ACTIVE
 * port) become the port sysfs selects, locked: the SA thread then opens
 * that one, not its own pick of a moment later (a port turning ACTIVE
 * in between, at boot, would be served under another's lock). The
 * lock's fd; -ENODEV when sysfs names no port (the lock is taken once
 * the port is open); port_lock_take's error otherwise. */
int port_lock_selected(const char *socket, const char **ca, int *port);

#endif
