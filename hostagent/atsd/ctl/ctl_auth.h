/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Who is on the other end of a control socket connection, and whether
 * they may change atsd's state (doc/atsd-protocol.md, "Permissions"). */
#ifndef IBATS_CTL_AUTH_H
#define IBATS_CTL_AUTH_H

#include <sys/types.h>

struct ctl_auth_cred {
	uid_t uid;
	gid_t gid;
	pid_t pid;
};

/* SO_PEERCRED of a connected Unix socket: 0 or -errno. */
int ctl_auth_peer(int fd, struct ctl_auth_cred *p);
/* Root, or group (when have_group) is the peer's primary or one of its
 * supplementary groups. */
int ctl_auth_privileged(int fd, const struct ctl_auth_cred *p, int have_group, gid_t group);
/* Log a refused request, at most one line a second (a user looping on
 * refused requests must not flood syslog); the lines left out are
 * counted in the next. */
void ctl_auth_log_refusal(const struct ctl_auth_cred *p, const char *verb,
			  const char *group);

#endif
