/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The control socket: a Unix socket speaking the line protocol of
 * doc/atsd-protocol.md. Owns the listening socket, the clients, their
 * line buffers, the per-uid and idle limits, and the order of answers: a
 * client whose answer is outstanding is not read further. */
#ifndef IBATS_CTL_SOCK_H
#define IBATS_CTL_SOCK_H

#include <poll.h>
#include <stdint.h>
#include <sys/types.h>

#include "host/agent_conf.h"

#define CTL_SOCK_MAX_CLIENTS 64

/* One request line of client slot (NUL-terminated, no newline). */
typedef void ctl_sock_line_fn(int slot, char *line);

/* A request answered later: its client, unless it went away. */
struct ctl_sock_ticket {
	int slot;
	unsigned gen;
};

/* Listen on conf->socket (conf stays the caller's and may change on
 * reload). 0, -EADDRINUSE when another atsd listens there, or -errno. */
int ctl_sock_open(const struct agent_conf *conf, ctl_sock_line_fn *line);
/* After a reload: the socket file follows control_group. */
void ctl_sock_reloaded(void);
void ctl_sock_close(void);

/* The fds to poll: the listening socket (unless stopped) and every client
 * that may send a request now; slot[i] is the client of p[i], -1 for the
 * listening socket. The count. */
int ctl_sock_pollfds(struct pollfd *p, int *slot, int max, int listening);
void ctl_sock_accept(void);
void ctl_sock_read(int slot);
/* Close clients idle longer than client_idle_timeout (expire); the next
 * deadline (INT64_MAX: none). */
int64_t ctl_sock_timers(int64_t now, int expire);

void ctl_sock_reply(int slot, const char *text);
/* "ERR NAME message": control bytes of the message replaced. */
void ctl_sock_reply_err(int slot, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
uid_t ctl_sock_uid(int slot);
pid_t ctl_sock_pid(int slot);
int ctl_sock_privileged(int slot);

/* Hold the client's next requests until ctl_sock_answered. */
struct ctl_sock_ticket ctl_sock_defer(int slot);
/* The ticket's client is still connected. */
int ctl_sock_live(struct ctl_sock_ticket t);
/* The deferred answer went out (or its client is gone): go on. */
void ctl_sock_answered(struct ctl_sock_ticket t);

#endif
