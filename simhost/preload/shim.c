/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* libsimhost.so: libc's functions behind the interposed ones, and the
 * node from the environment, both resolved once (pthread_once). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simhost/wire/simhost.h"
#include "shim.h"

static struct shim_libc shim_libc;
static struct shim_node shim_the_node;
static int shim_have_node;
static pthread_once_t shim_once = PTHREAD_ONCE_INIT;

#define NEXT(field, name) (shim_libc.field = (__typeof__(shim_libc.field))dlsym(RTLD_NEXT, name))

static void shim_init(void)
{
	const char *dir = getenv("SIMHOST_DIR"), *node = getenv("SIM_HOST");
	int n;

	NEXT(open, "open");
	NEXT(open64, "open64");
	NEXT(openat, "openat");
	NEXT(openat64, "openat64");
	NEXT(open_2, "__open_2");
	NEXT(open64_2, "__open64_2");
	NEXT(fopen, "fopen");
	NEXT(fopen64, "fopen64");
	NEXT(opendir, "opendir");
	NEXT(readdir, "readdir");
	NEXT(readdir64, "readdir64");
	NEXT(closedir, "closedir");
	NEXT(scandir, "scandir");
	NEXT(scandir64, "scandir64");
	NEXT(stat, "stat");
	NEXT(lstat, "lstat");
	NEXT(stat64, "stat64");
	NEXT(lstat64, "lstat64");
	NEXT(xstat, "__xstat");
	NEXT(lxstat, "__lxstat");
	NEXT(xstat64, "__xstat64");
	NEXT(lxstat64, "__lxstat64");
	NEXT(fstat, "fstat");
	NEXT(fstat64, "fstat64");
	NEXT(fstatat, "fstatat");
	NEXT(fstatat64, "fstatat64");
	NEXT(statx, "statx");
	NEXT(access, "access");
	NEXT(faccessat, "faccessat");
	NEXT(readlink, "readlink");
	NEXT(realpath, "realpath");
	NEXT(chdir, "chdir");
	NEXT(close, "close");
	NEXT(read, "read");
	NEXT(write, "write");
	NEXT(ioctl, "ioctl");
	NEXT(socket, "socket");
	NEXT(connect, "connect");
	NEXT(bind, "bind");
	NEXT(unlink, "unlink");
	NEXT(symlink, "symlink");

	if (!dir || !*dir || !node || !*node || strchr(node, '/'))
		return;
	n = snprintf(shim_the_node.sys, sizeof(shim_the_node.sys), "%s/%s/%s", dir, node,
		     SIMHOST_SYS);
	if (n < 0 || (size_t)n >= sizeof(shim_the_node.sys))
		return;
	n = snprintf(shim_the_node.sock, sizeof(shim_the_node.sock), "%s/%s/%s", dir, node,
		     SIMHOST_SOCK);
	if (n < 0 || (size_t)n >= sizeof(shim_the_node.sock))
		shim_the_node.sock[0] = '\0'; /* no kernel reachable: ENOENT */
	n = snprintf(shim_the_node.run, sizeof(shim_the_node.run), "%s/%s/%s", dir, node,
		     SIMHOST_RUN);
	if (n < 0 || (size_t)n >= sizeof(shim_the_node.run))
		shim_the_node.run[0] = '\0'; /* no ibacm reachable: ENOENT */
	shim_have_node = 1;
}

const struct shim_libc *shim_next(void)
{
	pthread_once(&shim_once, shim_init);
	return &shim_libc;
}

const struct shim_node *shim_node(void)
{
	pthread_once(&shim_once, shim_init);
	return shim_have_node ? &shim_the_node : NULL;
}
