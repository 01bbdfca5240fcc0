/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* libsimhost.so (simhost): what its modules share. The node's
 * simulated kernel from the environment (SIMHOST_DIR, SIM_HOST), and
 * libc's own functions behind the ones the shim interposes (dlsym
 * RTLD_NEXT), resolved once. */
#ifndef IBATS_SIMHOST_SHIM_H
#define IBATS_SIMHOST_SHIM_H

#include <dirent.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>

typedef int (*shim_open_fn)(const char *, int, ...);
typedef int (*shim_openat_fn)(int, const char *, int, ...);
typedef int (*shim_open2_fn)(const char *, int);
typedef FILE *(*shim_fopen_fn)(const char *, const char *);
typedef DIR *(*shim_opendir_fn)(const char *);
typedef struct dirent *(*shim_readdir_fn)(DIR *);
typedef struct dirent64 *(*shim_readdir64_fn)(DIR *);
typedef int (*shim_closedir_fn)(DIR *);
typedef int (*shim_scandir_fn)(const char *, struct dirent ***,
			       int (*)(const struct dirent *),
			       int (*)(const struct dirent **, const struct dirent **));
typedef int (*shim_scandir64_fn)(const char *, struct dirent64 ***,
				 int (*)(const struct dirent64 *),
				 int (*)(const struct dirent64 **, const struct dirent64 **));
typedef int (*shim_stat_fn)(const char *, struct stat *);
typedef int (*shim_stat64_fn)(const char *, struct stat64 *);
typedef int (*shim_xstat_fn)(int, const char *, struct stat *);
typedef int (*shim_xstat64_fn)(int, const char *, struct stat64 *);
typedef int (*shim_fstat_fn)(int, struct stat *);
typedef int (*shim_fstat64_fn)(int, struct stat64 *);
typedef int (*shim_fstatat_fn)(int, const char *, struct stat *, int);
typedef int (*shim_fstatat64_fn)(int, const char *, struct stat64 *, int);
typedef int (*shim_statx_fn)(int, const char *, int, unsigned int, struct statx *);
typedef int (*shim_access_fn)(const char *, int);
typedef int (*shim_faccessat_fn)(int, const char *, int, int);
typedef ssize_t (*shim_readlink_fn)(const char *, char *, size_t);
typedef char *(*shim_realpath_fn)(const char *, char *);
typedef int (*shim_chdir_fn)(const char *);
typedef int (*shim_close_fn)(int);
typedef ssize_t (*shim_read_fn)(int, void *, size_t);
typedef ssize_t (*shim_write_fn)(int, const void *, size_t);
typedef int (*shim_ioctl_fn)(int, unsigned long, ...);
typedef int (*shim_socket_fn)(int, int, int);
typedef int (*shim_connect_fn)(int, const struct sockaddr *, socklen_t);
typedef int (*shim_unlink_fn)(const char *);
typedef int (*shim_symlink_fn)(const char *, const char *);

/* libc's functions (never NULL once shim_next() returned, except the
 * __xstat family, gone from newer glibc). */
struct shim_libc {
	shim_open_fn open, open64;
	shim_openat_fn openat, openat64;
	shim_open2_fn open_2, open64_2;
	shim_fopen_fn fopen, fopen64;
	shim_opendir_fn opendir;
	shim_readdir_fn readdir;
	shim_readdir64_fn readdir64;
	shim_closedir_fn closedir;
	shim_scandir_fn scandir;
	shim_scandir64_fn scandir64;
	shim_stat_fn stat, lstat;
	shim_stat64_fn stat64, lstat64;
	shim_xstat_fn xstat, lxstat;
	shim_xstat64_fn xstat64, lxstat64;
	shim_fstat_fn fstat;
	shim_fstat64_fn fstat64;
	shim_fstatat_fn fstatat;
	shim_fstatat64_fn fstatat64;
	shim_statx_fn statx;
	shim_access_fn access;
	shim_faccessat_fn faccessat;
	shim_readlink_fn readlink;
	shim_realpath_fn realpath;
	shim_chdir_fn chdir;
	shim_close_fn close;
	shim_read_fn read;
	shim_write_fn write;
	shim_ioctl_fn ioctl;
	shim_socket_fn socket;
	shim_connect_fn connect, bind;
	shim_unlink_fn unlink;
	shim_symlink_fn symlink;
};

const struct shim_libc *shim_next(void);

/* The node's simulated kernel: NULL without SIMHOST_DIR and SIM_HOST
 * (then the shim passes every call through, as on a host without the
 * RDMA modules for /dev/infiniband). */
struct shim_node {
	char sock[108]; /* kernel.sock, as sun_path holds it ("" when too long) */
	char sys[4096]; /* the node's sysfs tree */
	char run[108];  /* the node's /run for ibacm ("" when too long) */
};

const struct shim_node *shim_node(void);

#endif
