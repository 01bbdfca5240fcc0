/* The temporary behind an atomic file replacement (write, fsync,
 * rename): the plugin's state file and osmats.prom, atsd's metrics
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

#endif
