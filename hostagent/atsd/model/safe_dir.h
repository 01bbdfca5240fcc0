/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Whether a directory atsd keeps a file in (its socket, its state file)
 * is safe from other users: a directory another user owns, or one others
 * may write to without the sticky bit, lets them swap atsd's file for
 * their own or for a symlink at any time. */
#ifndef IBATS_SAFE_DIR_H
#define IBATS_SAFE_DIR_H

#include <stddef.h>

/* 0; -EPERM with the reason in why (owner and mode); -errno when dir
 * cannot be read. */
int safe_dir_check(const char *dir, char *why, size_t len);

/* The directory of path, "/" or "." as the case may be, into dir. */
void safe_dir_of(const char *path, char *dir, size_t len);

#endif
