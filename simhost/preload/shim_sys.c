/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* libc's path calls on the simulated node (shim_sys.h). The list is
 * what libibumad, libibverbs, infiniband-diags, OpenSM and atsd call
 * on /sys and /dev/infiniband (umad2sim.c wraps open, opendir and
 * scandir; glibc's fopen, realpath and the stat family do not go
 * through open, so they are here too). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <sys/un.h>

#include <linux/netlink.h>

#include "simhost/wire/devnode.h"
#include "shim.h"
#include "shim_path.h"
#include "shim_sys.h"
#include "shim_ucma.h"
#include "shim_umad.h"

#define SHIM_SYS_LEN 4608

static int shim_sys_net(const char *name, size_t len, void *ctx)
{
	const struct shim_node *node = ctx;
	char path[SHIM_SYS_LEN];
	int n;

	n = snprintf(path, sizeof(path), "%s/class/net/%.*s", node->sys, (int)len, name);
	return n > 0 && (size_t)n < sizeof(path) && !shim_next()->access(path, F_OK);
}

const char *shim_sys_path(const char *path, char *buf, size_t len, int *kind, int *num)
{
	const struct shim_node *node = shim_node();
	int k;

	*kind = SHIM_PATH_HOST;
	if (!path)
		return path;
	k = shim_path_run(path, node ? node->run : NULL, buf, len);
	if (k == SHIM_PATH_RUN) {
		*kind = k;
		return buf;
	}
	k = shim_path_map(path, node ? node->sys : NULL, shim_sys_net, (void *)node, buf, len, num);
	if (k == SHIM_PATH_ABSENT)
		k = -ENOENT;
	if (k < 0) {
		errno = -k;
		return NULL;
	}
	*kind = k;
	return k == SHIM_PATH_SYS ? buf : path;
}

int shim_sys_is_netdir(const char *path)
{
	return shim_node() && path &&
	       (!strcmp(path, "/sys/class/net") || !strcmp(path, "/sys/class/net/"));
}

/* A /dev/infiniband path's kind (shim_path.h) that is a device node. */
static int shim_sys_is_dev(int kind)
{
	return kind == SHIM_PATH_UMAD || kind == SHIM_PATH_ISSM || kind == SHIM_PATH_UCMA ||
	       kind == SHIM_PATH_UVERBS;
}

/* The device node of such a path: its owner and mode (devnode.h) and
 * its numbers from the node's sysfs (CLASS/NAME[N]/dev, where udev reads
 * them to make the node); NULL with ENOENT when the node's kernel has no
 * such device (rdma_cm: no rdma_ucm without ib_cm). */
static const struct devnode *shim_sys_dev(int kind, int num, dev_t *rdev)
{
	const struct shim_node *node = shim_node();
	const struct devnode *d;
	char path[SHIM_SYS_LEN], v[32] = "";
	unsigned ma, mi;
	ssize_t n = -1;
	int fd;

	d = devnode_get(kind == SHIM_PATH_UMAD ? DEVNODE_UMAD :
			kind == SHIM_PATH_ISSM ? DEVNODE_ISSM :
			kind == SHIM_PATH_UVERBS ? DEVNODE_UVERBS : DEVNODE_RDMA_CM);
	if (!node)
		goto none;
	if (d->numbered)
		n = snprintf(path, sizeof(path), "%s/%s/%s%d/dev", node->sys, d->sysdir, d->name,
			     num);
	else
		n = snprintf(path, sizeof(path), "%s/%s/%s/dev", node->sys, d->sysdir, d->name);
	if (n < 0 || (size_t)n >= sizeof(path))
		goto none;
	fd = shim_next()->open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		goto none;
	n = shim_next()->read(fd, v, sizeof(v) - 1);
	shim_next()->close(fd);
	if (n <= 0 || sscanf(v, "%u:%u", &ma, &mi) != 2)
		goto none;
	*rdev = makedev(ma, mi);
	return d;
none:
	errno = ENOENT;
	return NULL;
}

/* access() and faccessat() of a device node: whether it is there, then
 * its mode against the real ids (access: fs/open.c do_faccessat with
 * access_override_creds, which also clears a non-root caller's
 * capabilities and gives root its permitted ones) or the effective ones
 * (AT_EACCESS: taken as root's all or none). */
static int shim_sys_dev_access(int kind, int num, int mode, int effective)
{
	struct devnode_cred cr;
	const struct devnode *d;
	gid_t groups[256];
	dev_t rdev;
	int n, i, ret;

	d = shim_sys_dev(kind, num, &rdev);
	if (!d)
		return -1;
	if (mode == F_OK)
		return 0;
	memset(&cr, 0, sizeof(cr));
	cr.uid = effective ? geteuid() : getuid();
	cr.gid = effective ? getegid() : getgid();
	cr.caps = cr.uid ? 0 : ~0ull;
	n = getgroups(sizeof(groups) / sizeof(groups[0]), groups);
	for (i = 0; i < n; i++)
		if (groups[i] == d->gid)
			cr.in_group = 1;
	ret = devnode_permission(d, &cr, mode & (R_OK | W_OK | X_OK));
	if (ret) {
		errno = -ret;
		return -1;
	}
	return 0;
}

/* stat() of a device node: a character device of the node's numbers,
 * with its owner and mode, filled into a struct stat or stat64. */
#define SHIM_SYS_DEV_STAT(kind, num, st)                                       \
	do {                                                                   \
		const struct devnode *d_;                                      \
		dev_t rdev_;                                                   \
		if (!(d_ = shim_sys_dev((kind), (num), &rdev_)))               \
			return -1;                                             \
		memset((st), 0, sizeof(*(st)));                                \
		(st)->st_mode = S_IFCHR | d_->mode;                            \
		(st)->st_uid = d_->uid;                                        \
		(st)->st_gid = d_->gid;                                        \
		(st)->st_nlink = 1;                                            \
		(st)->st_rdev = rdev_;                                         \
		(st)->st_blksize = 4096;                                       \
		return 0;                                                      \
	} while (0)

/* The open family: the node's path, or a connection for its devices. */
static int shim_sys_open(shim_open_fn fn, const char *path, int flags, mode_t mode)
{
	char buf[SHIM_SYS_LEN];
	const char *p;
	int kind, num;

	p = shim_sys_path(path, buf, sizeof(buf), &kind, &num);
	if (!p)
		return -1;
	if (kind == SHIM_PATH_UMAD || kind == SHIM_PATH_ISSM)
		return shim_umad_open(num, kind == SHIM_PATH_ISSM, flags);
	if (kind == SHIM_PATH_UCMA)
		return shim_ucma_open(flags);
	return fn(p, flags, mode);
}

/* The mode argument, there with O_CREAT or O_TMPFILE only. */
#define SHIM_SYS_MODE(flags, mode)                                             \
	do {                                                                   \
		va_list ap_;                                                   \
		if ((flags) & (O_CREAT | O_TMPFILE)) {                         \
			va_start(ap_, flags);                                  \
			mode = (mode_t)va_arg(ap_, int);                       \
			va_end(ap_);                                           \
		}                                                              \
	} while (0)

int open(const char *path, int flags, ...)
{
	mode_t mode = 0;

	SHIM_SYS_MODE(flags, mode);
	return shim_sys_open(shim_next()->open, path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	mode_t mode = 0;

	SHIM_SYS_MODE(flags, mode);
	return shim_sys_open(shim_next()->open64, path, flags, mode);
}

/* _FORTIFY_SOURCE's open(), without a mode; glibc declares it only
 * for its inline open(). */
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);

int __open_2(const char *path, int flags)
{
	return shim_sys_open(shim_next()->open, path, flags, 0);
}

int __open64_2(const char *path, int flags)
{
	return shim_sys_open(shim_next()->open64, path, flags, 0);
}

static int shim_sys_openat(shim_openat_fn fn, int dirfd, const char *path, int flags,
			   mode_t mode)
{
	char buf[SHIM_SYS_LEN];
	const char *p;
	int kind, num;

	if (!path || path[0] != '/')
		return fn(dirfd, path, flags, mode);
	p = shim_sys_path(path, buf, sizeof(buf), &kind, &num);
	if (!p)
		return -1;
	if (kind == SHIM_PATH_UMAD || kind == SHIM_PATH_ISSM)
		return shim_umad_open(num, kind == SHIM_PATH_ISSM, flags);
	if (kind == SHIM_PATH_UCMA)
		return shim_ucma_open(flags);
	return fn(dirfd, p, flags, mode);
}

int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;

	SHIM_SYS_MODE(flags, mode);
	return shim_sys_openat(shim_next()->openat, dirfd, path, flags, mode);
}

int openat64(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;

	SHIM_SYS_MODE(flags, mode);
	return shim_sys_openat(shim_next()->openat64, dirfd, path, flags, mode);
}

/* Paths that only name files: the node's, or the host's. A device of
 * /dev/infiniband is neither here (it exists as a connection only). */
#define SHIM_SYS_MAPPED(path, buf, fail)                                       \
	char buf[SHIM_SYS_LEN];                                                \
	int kind_, num_ = 0;                                                   \
	const char *mapped_ = shim_sys_path(path, buf, sizeof(buf), &kind_, &num_); \
	if (!mapped_)                                                          \
		return fail

FILE *fopen(const char *path, const char *mode)
{
	SHIM_SYS_MAPPED(path, buf, NULL);
	return shim_next()->fopen(mapped_, mode);
}

FILE *fopen64(const char *path, const char *mode)
{
	SHIM_SYS_MAPPED(path, buf, NULL);
	return shim_next()->fopen64(mapped_, mode);
}

int stat(const char *path, struct stat *st)
{
	SHIM_SYS_MAPPED(path, buf, -1);
	if (shim_sys_is_dev(kind_))
		SHIM_SYS_DEV_STAT(kind_, num_, st);
	return shim_next()->stat(mapped_, st);
}

int lstat(const char *path, struct stat *st)
{
	SHIM_SYS_MAPPED(path, buf, -1);
	if (shim_sys_is_dev(kind_))
		SHIM_SYS_DEV_STAT(kind_, num_, st);
	return shim_next()->lstat(mapped_, st);
}

int stat64(const char *path, struct stat64 *st)
{
	SHIM_SYS_MAPPED(path, buf, -1);
	if (shim_sys_is_dev(kind_))
		SHIM_SYS_DEV_STAT(kind_, num_, st);
	return shim_next()->stat64(mapped_, st);
}

int lstat64(const char *path, struct stat64 *st)
{
	SHIM_SYS_MAPPED(path, buf, -1);
	if (shim_sys_is_dev(kind_))
		SHIM_SYS_DEV_STAT(kind_, num_, st);
	return shim_next()->lstat64(mapped_, st);
}

/* What binaries built against glibc before 2.33 call for stat(); its
 * headers declare them no more. */
int __xstat(int ver, const char *path, struct stat *st);
int __lxstat(int ver, const char *path, struct stat *st);
int __xstat64(int ver, const char *path, struct stat64 *st);
int __lxstat64(int ver, const char *path, struct stat64 *st);

int __xstat(int ver, const char *path, struct stat *st)
{
	SHIM_SYS_MAPPED(path, buf, -1);
	if (shim_sys_is_dev(kind_))
		SHIM_SYS_DEV_STAT(kind_, num_, st);
	return shim_next()->xstat(ver, mapped_, st);
}

int __lxstat(int ver, const char *path, struct stat *st)
{
	SHIM_SYS_MAPPED(path, buf, -1);
	if (shim_sys_is_dev(kind_))
		SHIM_SYS_DEV_STAT(kind_, num_, st);
	return shim_next()->lxstat(ver, mapped_, st);
}

int __xstat64(int ver, const char *path, struct stat64 *st)
{
	SHIM_SYS_MAPPED(path, buf, -1);
	if (shim_sys_is_dev(kind_))
		SHIM_SYS_DEV_STAT(kind_, num_, st);
	return shim_next()->xstat64(ver, mapped_, st);
}

int __lxstat64(int ver, const char *path, struct stat64 *st)
{
	SHIM_SYS_MAPPED(path, buf, -1);
	if (shim_sys_is_dev(kind_))
		SHIM_SYS_DEV_STAT(kind_, num_, st);
	return shim_next()->lxstat64(ver, mapped_, st);
}

/* The *at family: only an absolute path can be the node's. */
int fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	SHIM_SYS_MAPPED(path, buf, -1);
	if (shim_sys_is_dev(kind_))
		SHIM_SYS_DEV_STAT(kind_, num_, st);
	return shim_next()->fstatat(dirfd, mapped_, st, flags);
}

int fstatat64(int dirfd, const char *path, struct stat64 *st, int flags)
{
	SHIM_SYS_MAPPED(path, buf, -1);
	if (shim_sys_is_dev(kind_))
		SHIM_SYS_DEV_STAT(kind_, num_, st);
	return shim_next()->fstatat64(dirfd, mapped_, st, flags);
}

/* What coreutils (ls, stat, test -e in bash) call. */
int statx(int dirfd, const char *path, int flags, unsigned int mask, struct statx *stx)
{
	SHIM_SYS_MAPPED(path, buf, -1);
	if (shim_sys_is_dev(kind_)) {
		struct stat st;

		if (stat(path, &st) < 0)
			return -1;
		memset(stx, 0, sizeof(*stx));
		stx->stx_mask = STATX_BASIC_STATS & ~(unsigned)STATX_INO;
		stx->stx_mode = (uint16_t)st.st_mode;
		stx->stx_uid = st.st_uid;
		stx->stx_gid = st.st_gid;
		stx->stx_nlink = (uint32_t)st.st_nlink;
		stx->stx_blksize = (uint32_t)st.st_blksize;
		stx->stx_rdev_major = major(st.st_rdev);
		stx->stx_rdev_minor = minor(st.st_rdev);
		return 0;
	}
	return shim_next()->statx(dirfd, mapped_, flags, mask, stx);
}

int faccessat(int dirfd, const char *path, int mode, int flags)
{
	SHIM_SYS_MAPPED(path, buf, -1);
	if (shim_sys_is_dev(kind_))
		return shim_sys_dev_access(kind_, num_, mode, flags & AT_EACCESS);
	return shim_next()->faccessat(dirfd, mapped_, mode, flags);
}

int access(const char *path, int mode)
{
	SHIM_SYS_MAPPED(path, buf, -1);
	if (shim_sys_is_dev(kind_))
		return shim_sys_dev_access(kind_, num_, mode, 0);
	return shim_next()->access(mapped_, mode);
}

ssize_t readlink(const char *path, char *out, size_t len)
{
	SHIM_SYS_MAPPED(path, buf, -1);
	return shim_next()->readlink(mapped_, out, len);
}

/* The node's real path: the caller may open it, as it would a host's. */
char *realpath(const char *path, char *resolved)
{
	SHIM_SYS_MAPPED(path, buf, NULL);
	return shim_next()->realpath(mapped_, resolved);
}

/* Into the node's tree: a script's `cd /sys/class/infiniband; echo *`
 * (ibstatus) then lists and reads it with relative paths. */
int chdir(const char *path)
{
	SHIM_SYS_MAPPED(path, buf, -1);
	return shim_next()->chdir(mapped_);
}

/* A node has no RDMA netlink (no ib_core there: the host's would
 * describe the host's devices). socket() fails as a kernel without the
 * family's module does (net/netlink/af_netlink.c netlink_create:
 * EPROTONOSUPPORT), so librdmacm reads the ABI from the node's sysfs
 * (cma.c check_abi_version_nl fails, check_abi_version_sysfs). */
int socket(int domain, int type, int protocol)
{
	if (domain == AF_NETLINK && protocol == NETLINK_RDMA && shim_node()) {
		errno = EPROTONOSUPPORT;
		return -1;
	}
	return shim_next()->socket(domain, type, protocol);
}

/* An AF_UNIX address whose path is the node's (ibacm's socket: the
 * node's run directory) in *out; 1 when mapped, 0 when the address is
 * the host's, -1 with errno ENOENT when the node has none. */
static int shim_sys_unix(const struct sockaddr *addr, socklen_t len, struct sockaddr_un *out)
{
	const struct sockaddr_un *un = (const struct sockaddr_un *)addr;
	char path[sizeof(un->sun_path) + 1];
	char buf[SHIM_SYS_LEN];
	const char *mapped;
	int kind, num;
	size_t n;

	if (!addr || addr->sa_family != AF_UNIX || len <= offsetof(struct sockaddr_un, sun_path) ||
	    !shim_node())
		return 0;
	n = len - offsetof(struct sockaddr_un, sun_path);
	if (n > sizeof(un->sun_path))
		n = sizeof(un->sun_path);
	memcpy(path, un->sun_path, n);
	path[n] = '\0';
	mapped = shim_sys_path(path, buf, sizeof(buf), &kind, &num);
	if (!mapped)
		return -1;
	if (kind != SHIM_PATH_RUN)
		return 0;
	memset(out, 0, sizeof(*out));
	out->sun_family = AF_UNIX;
	snprintf(out->sun_path, sizeof(out->sun_path), "%s", mapped);
	return 1;
}

/* ibacm's socket is the node's (shim_path_run): librdmacm's and
 * ib_acme's connect() meet the node's ibacm, or fail as to a socket file
 * that is not there (ENOENT). */
int connect(int fd, const struct sockaddr *addr, socklen_t len)
{
	struct sockaddr_un un;
	int m = shim_sys_unix(addr, len, &un);

	if (m < 0)
		return -1;
	if (m)
		return shim_next()->connect(fd, (struct sockaddr *)&un, sizeof(un));
	return shim_next()->connect(fd, addr, len);
}

/* A node's ibacm listens in the node's run directory. */
int bind(int fd, const struct sockaddr *addr, socklen_t len)
{
	struct sockaddr_un un;
	int m = shim_sys_unix(addr, len, &un);

	if (m < 0)
		return -1;
	if (m)
		return shim_next()->bind(fd, (struct sockaddr *)&un, sizeof(un));
	return shim_next()->bind(fd, addr, len);
}

int unlink(const char *path)
{
	char buf[SHIM_SYS_LEN];
	int kind, num;
	const char *mapped = shim_sys_path(path, buf, sizeof(buf), &kind, &num);

	if (!mapped)
		return -1;
	return shim_next()->unlink(mapped);
}

/* ibacm links /run/ibacm.sock to its socket by a relative name, which
 * holds in the node's run directory as on a host. */
int symlink(const char *target, const char *linkpath)
{
	char buf[SHIM_SYS_LEN];
	int kind, num;
	const char *mapped = shim_sys_path(linkpath, buf, sizeof(buf), &kind, &num);

	if (!mapped)
		return -1;
	return shim_next()->symlink(target, mapped);
}
