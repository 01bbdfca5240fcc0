/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Temporaries for atomic replacement. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "afile.h"

FILE *afile_tmp(const char *tmp)
{
	const int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
	int fd = open(tmp, flags, 0644);
	FILE *f;

	if (fd < 0 && errno == EEXIST && !unlink(tmp))
		fd = open(tmp, flags, 0644);
	if (fd < 0)
		return NULL;
	f = fdopen(fd, "w");
	if (!f) {
		int err = errno;

		close(fd);
		unlink(tmp);
		errno = err;
	}
	return f;
}

int afile_commit(FILE *f, const char *tmp, const char *path, int err, int sync)
{
	if (!err && sync && (fflush(f) || fsync(fileno(f))))
		err = -errno;
	if (fclose(f) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}
