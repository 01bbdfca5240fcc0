/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The service manager's notification protocol (sd_notify(3)), spoken by
 * hand so that atsd needs no libsystemd: one datagram of "KEY=VALUE"
 * lines to the AF_UNIX socket named by $NOTIFY_SOCKET. Without that
 * variable (not started by systemd with Type=notify) every call is a
 * successful no-op. Errors are -errno. */
#ifndef IBATS_SDNOTIFY_H
#define IBATS_SDNOTIFY_H

#include <stdint.h>

/* Read $NOTIFY_SOCKET (an absolute path, or '@' for an abstract name)
 * and open a datagram socket. The variable is removed from the
 * environment so that no child notifies in atsd's name. 0: ready (or
 * nothing to notify); -EINVAL: unusable address (relative, too long);
 * the socket's error otherwise. Call before starting threads. */
int sdnotify_init(void);

/* Send MSG (lines "KEY=VALUE\n"; the last newline may be omitted) as
 * one datagram. Never blocks: -EAGAIN when the manager's queue is full. */
int sdnotify_send(const char *msg);

/* printf-style sdnotify_send. */
int sdnotify_sendf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "RELOADING=1" with MONOTONIC_USEC, the time the reload started on
 * CLOCK_MONOTONIC, as systemd 253's Type=notify-reload wants it (older
 * managers ignore the extra field). READY=1 must follow. */
int sdnotify_reloading(void);

/* The service watchdog, as sd_watchdog_enabled(3) reads it: enabled
 * when $WATCHDOG_USEC is a positive number and $WATCHDOG_PID, if set,
 * is this process's pid. Both are removed from the environment. 1:
 * enabled; 0: not (unset, or another process's); -EINVAL: a value that
 * is not a number. */
int sdnotify_watchdog_init(void);

/* Call from the event loop with the CLOCK_MONOTONIC time in ms: sends
 * WATCHDOG=1 when due (every half interval), so a loop that stops
 * turning stops the pings. The next time it is due; INT64_MAX without a
 * watchdog. */
int64_t sdnotify_watchdog(int64_t now);

/* Whether a manager listens: a STATUS= worth formatting. */
int sdnotify_enabled(void);

void sdnotify_fini(void);

#endif
