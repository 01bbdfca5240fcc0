/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The port lock (port_lock.h). A symlink planted where the lock goes is
 * not followed: atsd runs as root. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "host/ibsys.h"
#include "core/log.h"
#include "port_lock.h"
#include "core/wire.h"

/* The port port_lock_selected locked: *ca points into it until exit. */
static struct ibsys_port locked;

int port_lock_take(const char *socket, uint64_t guid)
{
	char path[4096];
	const char *slash = strrchr(socket, '/');
	int fd;

	snprintf(path, sizeof(path), "%.*s/atsd-0x%016" PRIx64 ".lock",
		 slash ? (int)(slash - socket) : 1, slash ? socket : ".", guid);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		log_err("port lock %s: %s", path, strerror(errno));
		return -errno;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		int err = errno;

		if (err == EWOULDBLOCK)
			log_err("another atsd serves port GUID 0x%016" PRIx64 " (it holds %s)",
				guid, path);
		else
			log_err("port lock %s: %s", path, strerror(err));
		close(fd);
		return -EBUSY;
	}
	return fd;
}

int port_lock_selected(const char *socket, const char **ca, int *port)
{
	char why[128];
	int fd;

	if (ibsys_select(NULL, *ca, *port, &locked, why, sizeof(why)))
		return -ENODEV;
	fd = port_lock_take(socket, wire_get64(locked.gid + 8));
	if (fd >= 0) {
		*ca = locked.ca;
		*port = locked.port;
	}
	return fd;
}
