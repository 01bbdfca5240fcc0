/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* A directory safe from other users (safe_dir.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "safe_dir.h"

int safe_dir_check(const char *dir, char *why, size_t len)
{
	struct stat st;

	if (stat(dir, &st))
		return -errno;
	if (st.st_uid && st.st_uid != geteuid()) {
		snprintf(why, len, "%s is owned by uid %u, neither root nor atsd's", dir,
			 (unsigned)st.st_uid);
		return -EPERM;
	}
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX)) {
		snprintf(why, len, "%s is writable by others (uid %u, mode %04o) and not sticky",
			 dir, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

void safe_dir_of(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, len, ".");
	else if (slash == path)
		snprintf(dir, len, "/");
	else
		snprintf(dir, len, "%.*s", (int)(slash - path), path);
}
