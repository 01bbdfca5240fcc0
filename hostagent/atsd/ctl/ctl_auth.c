/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "ctl_auth.h"
#include "core/log.h"

#ifndef SO_PEERGROUPS
#define SO_PEERGROUPS 59 /* Linux 4.13, asm-generic/socket.h */
#endif

#define GROUPS_MAX 1024

int ctl_auth_peer(int fd, struct ctl_auth_cred *p)
{
	struct ucred uc;
	socklen_t len = sizeof(uc);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len))
		return -errno;
	p->uid = uc.uid;
	p->gid = uc.gid;
	p->pid = uc.pid;
	return 0;
}

/* Supplementary groups from /proc/PID/status "Groups:" (kernels before
 * SO_PEERGROUPS). Racy: the pid may be gone or reused; used only when the
 * socket cannot tell. */
static int proc_in_group(pid_t pid, uid_t uid, gid_t group)
{
	char path[64], line[4096];
	int found = 0, uid_ok = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *p, *end;

		if (!strncmp(line, "Uid:", 4)) {
			/* real, effective, saved, fs: the effective one connected */
			unsigned long r, e;

			uid_ok = sscanf(line + 4, "%lu %lu", &r, &e) == 2 && e == uid;
		} else if (!strncmp(line, "Groups:", 7)) {
			for (p = line + 7;; p = end) {
				unsigned long g = strtoul(p, &end, 10);

				if (end == p)
					break;
				found |= g == group;
			}
		}
	}
	fclose(f);
	return found && uid_ok;
}

int ctl_auth_privileged(int fd, const struct ctl_auth_cred *p, int have_group, gid_t group)
{
	gid_t *g;
	socklen_t len = GROUPS_MAX * sizeof(gid_t);
	size_t i;
	int in = 0;

	if (p->uid == 0)
		return 1;
	if (!have_group)
		return 0;
	if (p->gid == group)
		return 1;
	/* The groups the peer had when it connected, from the kernel: no
	 * race with the pid exiting and being reused. */
	g = malloc(len);
	if (!g)
		return 0;
	if (!getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, g, &len)) {
		for (i = 0; i < len / sizeof(gid_t); i++)
			in |= g[i] == group;
		free(g);
		return in;
	}
	free(g);
	return errno == ENOPROTOOPT ? proc_in_group(p->pid, p->uid, group) : 0;
}

void ctl_auth_log_refusal(const struct ctl_auth_cred *p, const char *verb,
			  const char *group)
{
	static time_t last;
	static unsigned skipped;
	time_t now = time(NULL);

	if (now == last) {
		skipped++;
		return;
	}
	last = now;
	log_warn("refused '%s' from uid %u pid %d: needs root%s%s", verb,
		 (unsigned)p->uid, (int)p->pid, group[0] ? " or group " : "", group);
	if (skipped)
		log_warn("(%u more refusal(s) not logged)", skipped);
	skipped = 0;
}
