/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Directory listings on the simulated node (shim_dir.c): it interposes
 * libc's opendir, readdir, readdir64, closedir, scandir and scandir64,
 * whose prototypes are <dirent.h>'s; nothing else is its. */
#ifndef IBATS_SIMHOST_SHIM_DIR_H
#define IBATS_SIMHOST_SHIM_DIR_H

#include <dirent.h>

#endif
