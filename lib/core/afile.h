/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Atomic file replacement (a temporary, written, fsync'ed if asked,
 * renamed over the file): the plugin's state file and osmats.prom, atsd's metrics
 * file. The plugin and atsd run as root, the directory may be
 * world-writable. */
#ifndef IBATS_AFILE_H
#define IBATS_AFILE_H

#include <stdio.h>

/* tmp created anew, mode 0644 (O_EXCL, which also refuses a symlink,
 * and O_NOFOLLOW), never opened through a link another user planted; a
 * leftover (a crash mid-write, or a planted link) is removed once. NULL
 * with errno set on failure. */
FILE *afile_tmp(const char *tmp);

/* Ends the replacement afile_tmp began: err is the writer's result so
 * far (0 or -errno). With sync the data is on disk before the rename
 * makes it visible, so a crash leaves the old file or the new one, never
 * a cut one. Closes f; on any failure removes tmp and leaves path as it
 * was. 0 or -errno. */
int afile_commit(FILE *f, const char *tmp, const char *path, int err, int sync);

#endif
