/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Which paths of a host belong to the simulated node (shim_path.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim_path.h"

/* Under /sys: what the node's kernel (simhostd) keeps. A host without
 * ib_cm has no /sys/module/ib_cm: the node's tree decides that too, and
 * whether rdma_ucm is there (librdmacm's check_abi_version_sysfs reads
 * class/misc/rdma_cm/abi_version). */
static const char *const shim_path_sys[] = {
	"/sys/class/infiniband",
	"/sys/class/infiniband_mad",
	"/sys/class/infiniband_verbs",
	"/sys/class/misc/rdma_cm",
	"/sys/module/ib_cm",
};

/* ibacm's, under /run: the node's own (shim_path_run). */
static const char *const shim_path_ibacm[] = {
	"/run/ibacm.port",
	"/run/ibacm-tcp.port",
	"/run/ibacm.sock",
	"/run/ibacm-unix.sock",
};

#define SHIM_PATH_NET "/sys/class/net/"
#define SHIM_PATH_DEV "/dev/infiniband/"

/* path is dir or below it ("/sys/class/infiniband_mad" is not below
 * "/sys/class/infiniband"). */
static int shim_path_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(path, dir, n) && (path[n] == '\0' || path[n] == '/');
}

/* "umad3" after prefix "umad": 3; -1 when not a device number. */
static int shim_path_devnum(const char *s, const char *prefix)
{
	size_t n = strlen(prefix);
	char *end;
	long v;

	if (strncmp(s, prefix, n) || s[n] < '0' || s[n] > '9')
		return -1;
	v = strtol(s + n, &end, 10);
	return *end || v > 1023 ? -1 : (int)v;
}

int shim_path_map(const char *path, const char *sys, shim_path_net_fn net, void *ctx, char *out,
		  size_t len, int *num)
{
	const char *rest = NULL;
	size_t i;
	int n;

	if (!path)
		return SHIM_PATH_HOST;
	if (!strncmp(path, SHIM_PATH_DEV, strlen(SHIM_PATH_DEV))) {
		const char *dev = path + strlen(SHIM_PATH_DEV);

		if ((*num = shim_path_devnum(dev, "umad")) >= 0)
			return SHIM_PATH_UMAD;
		if ((*num = shim_path_devnum(dev, "issm")) >= 0)
			return SHIM_PATH_ISSM;
		if (!strcmp(dev, "rdma_cm"))
			return SHIM_PATH_UCMA;
		if ((*num = shim_path_devnum(dev, "uverbs")) >= 0)
			return SHIM_PATH_UVERBS;
		return SHIM_PATH_HOST;
	}
	if (!sys)
		return SHIM_PATH_HOST;
	for (i = 0; i < sizeof(shim_path_ibacm) / sizeof(shim_path_ibacm[0]); i++)
		if (!strcmp(path, shim_path_ibacm[i]))
			return SHIM_PATH_ABSENT; /* where it is: shim_path_run */
	for (i = 0; i < sizeof(shim_path_sys) / sizeof(shim_path_sys[0]); i++)
		if (shim_path_under(path, shim_path_sys[i]))
			rest = path + strlen("/sys");
	if (!rest && !strncmp(path, SHIM_PATH_NET, strlen(SHIM_PATH_NET))) {
		const char *name = path + strlen(SHIM_PATH_NET);
		size_t nlen = strcspn(name, "/");

		if (nlen && net(name, nlen, ctx))
			rest = path + strlen("/sys");
	}
	if (!rest)
		return SHIM_PATH_HOST;
	n = snprintf(out, len, "%s%s", sys, rest);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return SHIM_PATH_SYS;
}

int shim_path_run(const char *path, const char *run, char *out, size_t len)
{
	size_t i;
	int n;

	for (i = 0; i < sizeof(shim_path_ibacm) / sizeof(shim_path_ibacm[0]); i++)
		if (path && !strcmp(path, shim_path_ibacm[i]))
			break;
	if (i == sizeof(shim_path_ibacm) / sizeof(shim_path_ibacm[0]))
		return SHIM_PATH_HOST;
	if (!run || !*run)
		return SHIM_PATH_ABSENT;
	n = snprintf(out, len, "%s%s", run, path + strlen("/run"));
	/* A socket's path must fit sun_path, NUL included. */
	if (n < 0 || (size_t)n >= len || n >= 108)
		return SHIM_PATH_ABSENT;
	return SHIM_PATH_RUN;
}
