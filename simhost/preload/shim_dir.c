/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Directory listings on the simulated node: /sys's RDMA classes are
 * the node's (shim_sys_path); /sys/class/net lists the host's
 * interfaces and then the node's simulated IPoIB ones (a host name the
 * node also has is the node's, listed once). glibc's scandir opens its
 * directory without opendir(), so both are here. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shim.h"
#include "shim_dir.h"
#include "shim_path.h"
#include "shim_sys.h"

#define SHIM_DIR_LEN 4608
#define SHIM_DIR_MAX 16

/* struct dirent64 is struct dirent on LP64 glibc: one merge serves
 * both readdir and readdir64, scandir and scandir64. */
_Static_assert(sizeof(struct dirent) == sizeof(struct dirent64), "dirent64 differs");

/* An open /sys/class/net: the host's listing, then the node's. */
struct shim_dir {
	DIR *host, *node;
};

static pthread_mutex_t shim_dir_mu = PTHREAD_MUTEX_INITIALIZER;
static struct shim_dir shim_dir_tab[SHIM_DIR_MAX];

static int shim_dir_dot(const char *name)
{
	return !strcmp(name, ".") || !strcmp(name, "..");
}

/* The node's class/net directory, or "" without one. */
static void shim_dir_netpath(char *buf, size_t len)
{
	const struct shim_node *node = shim_node();

	buf[0] = '\0';
	if (node)
		snprintf(buf, len, "%s/class/net", node->sys);
}

/* The node has interface name (its entry shadows the host's). */
static int shim_dir_node_has(const char *name)
{
	char path[SHIM_DIR_LEN];
	int n;

	shim_dir_netpath(path, sizeof(path));
	n = (int)strlen(path);
	if (!n || snprintf(path + n, sizeof(path) - (size_t)n, "/%s", name) >= (int)sizeof(path) - n)
		return 0;
	return !shim_next()->access(path, F_OK);
}

DIR *opendir(const char *path)
{
	char buf[SHIM_DIR_LEN];
	const char *p;
	DIR *d, *node;
	int kind, num, i;

	p = shim_sys_path(path, buf, sizeof(buf), &kind, &num);
	if (!p)
		return NULL;
	d = shim_next()->opendir(p);
	if (!d || !shim_sys_is_netdir(path))
		return d;
	shim_dir_netpath(buf, sizeof(buf));
	node = buf[0] ? shim_next()->opendir(buf) : NULL;
	if (!node)
		return d;
	pthread_mutex_lock(&shim_dir_mu);
	for (i = 0; i < SHIM_DIR_MAX && shim_dir_tab[i].host; i++)
		;
	if (i < SHIM_DIR_MAX) {
		shim_dir_tab[i].host = d;
		shim_dir_tab[i].node = node;
		node = NULL;
	}
	pthread_mutex_unlock(&shim_dir_mu);
	if (node) /* too many open at once: the host's listing only */
		shim_next()->closedir(node);
	return d;
}

static DIR *shim_dir_node_of(DIR *d)
{
	DIR *node = NULL;
	int i;

	pthread_mutex_lock(&shim_dir_mu);
	for (i = 0; i < SHIM_DIR_MAX; i++)
		if (shim_dir_tab[i].host == d)
			node = shim_dir_tab[i].node;
	pthread_mutex_unlock(&shim_dir_mu);
	return node;
}

static struct dirent *shim_dir_next(DIR *d)
{
	DIR *node = shim_dir_node_of(d);
	struct dirent *e;

	if (!node)
		return shim_next()->readdir(d);
	while ((e = shim_next()->readdir(d)) && shim_dir_node_has(e->d_name))
		;
	if (e)
		return e;
	while ((e = shim_next()->readdir(node)) && shim_dir_dot(e->d_name))
		;
	return e;
}

struct dirent *readdir(DIR *d)
{
	return shim_dir_next(d);
}

struct dirent64 *readdir64(DIR *d)
{
	return (struct dirent64 *)shim_dir_next(d);
}

int closedir(DIR *d)
{
	DIR *node = NULL;
	int i;

	pthread_mutex_lock(&shim_dir_mu);
	for (i = 0; i < SHIM_DIR_MAX; i++)
		if (shim_dir_tab[i].host == d) {
			node = shim_dir_tab[i].node;
			shim_dir_tab[i].host = NULL;
			shim_dir_tab[i].node = NULL;
		}
	pthread_mutex_unlock(&shim_dir_mu);
	if (node)
		shim_next()->closedir(node);
	return shim_next()->closedir(d);
}

typedef int (*shim_dir_filter)(const struct dirent *);
typedef int (*shim_dir_cmp)(const struct dirent **, const struct dirent **);

/* Appends the node's entries (filter's) to the host's, drops host
 * entries the node shadows, sorts the whole by cmp. */
static int shim_dir_merge(struct dirent ***list, int n, shim_dir_filter filter, shim_dir_cmp cmp)
{
	struct dirent **node = NULL, **all;
	char path[SHIM_DIR_LEN];
	int m, i, k = 0;

	shim_dir_netpath(path, sizeof(path));
	m = path[0] ? shim_next()->scandir(path, &node, filter, NULL) : -1;
	if (m <= 0) {
		free(node);
		return n;
	}
	all = realloc(*list, (size_t)(n + m) * sizeof(*all));
	if (!all) {
		for (i = 0; i < m; i++)
			free(node[i]);
		free(node);
		return n; /* no memory: the host's listing */
	}
	for (i = 0; i < n; i++) {
		if (shim_dir_node_has(all[i]->d_name))
			free(all[i]);
		else
			all[k++] = all[i];
	}
	for (i = 0; i < m; i++) {
		if (shim_dir_dot(node[i]->d_name))
			free(node[i]);
		else
			all[k++] = node[i];
	}
	free(node);
	if (cmp)
		qsort(all, (size_t)k, sizeof(*all), (int (*)(const void *, const void *))cmp);
	*list = all;
	return k;
}

int scandir(const char *path, struct dirent ***list, shim_dir_filter filter, shim_dir_cmp cmp)
{
	char buf[SHIM_DIR_LEN];
	const char *p;
	int kind, num, n;

	p = shim_sys_path(path, buf, sizeof(buf), &kind, &num);
	if (!p)
		return -1;
	n = shim_next()->scandir(p, list, filter, cmp);
	if (n < 0 || !shim_sys_is_netdir(path))
		return n;
	return shim_dir_merge(list, n, filter, cmp);
}

int scandir64(const char *path, struct dirent64 ***list, int (*filter)(const struct dirent64 *),
	      int (*cmp)(const struct dirent64 **, const struct dirent64 **))
{
	return scandir(path, (struct dirent ***)list, (shim_dir_filter)filter, (shim_dir_cmp)cmp);
}
