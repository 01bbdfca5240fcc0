/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* sd_notify(3) by hand (sdnotify.h). The protocol, as sd_notify(3) and
 * systemd.service(5) describe it: $NOTIFY_SOCKET names an AF_UNIX
 * datagram socket, a filesystem path or, with a leading '@', an abstract
 * name; each message is one datagram of newline-separated assignments.
 * systemd takes the sender's credentials from the socket itself
 * (SO_PASSCRED on its end), so nothing but the text is sent. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "sdnotify.h"

/* Longer than any message atsd sends: a STATUS= line and a few keys. */
#define SDN_MSG_MAX 512

static struct {
	int fd;
	struct sockaddr_un addr;
	socklen_t addrlen;
	int64_t wd_half_ms;   /* half the watchdog interval; 0: no watchdog */
	int64_t wd_due;       /* the next WATCHDOG=1 (CLOCK_MONOTONIC ms) */
} sdn = { .fd = -1 };

int sdnotify_init(void)
{
	const char *e = getenv("NOTIFY_SOCKET");
	size_t len;

	sdnotify_fini();
	if (!e || !*e)
		return 0;
	len = strlen(e);
	/* A path needs its terminating NUL inside sun_path; an abstract
	 * name's length is its address length, its '@' becomes the NUL. */
	if ((e[0] != '/' && e[0] != '@') || len < 2 ||
	    len + (e[0] == '/') > sizeof(sdn.addr.sun_path))
		return -EINVAL;
	memset(&sdn.addr, 0, sizeof(sdn.addr));
	sdn.addr.sun_family = AF_UNIX;
	memcpy(sdn.addr.sun_path, e, len);
	if (e[0] == '@')
		sdn.addr.sun_path[0] = '\0';
	sdn.addrlen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len +
				  (e[0] == '/'));
	/* Non-blocking: a manager that does not read (its queue full) costs
	 * a lost message (-EAGAIN), never atsd's event loop. */
	sdn.fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (sdn.fd < 0)
		return -errno;
	/* sd_notify(3)'s unset_environment: children (none today) must not
	 * talk to the manager as if they were the service. */
	unsetenv("NOTIFY_SOCKET");
	return 0;
}

int sdnotify_enabled(void)
{
	return sdn.fd >= 0;
}

int sdnotify_send(const char *msg)
{
	size_t len = strlen(msg);

	if (sdn.fd < 0)
		return 0;
	if (sendto(sdn.fd, msg, len, MSG_NOSIGNAL | MSG_DONTWAIT, (struct sockaddr *)&sdn.addr,
		   sdn.addrlen) != (ssize_t)len)
		return -errno;
	return 0;
}

int sdnotify_sendf(const char *fmt, ...)
{
	char msg[SDN_MSG_MAX];
	va_list ap;
	int n;

	if (sdn.fd < 0)
		return 0;
	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(msg))
		return -EMSGSIZE;
	return sdnotify_send(msg);
}

int sdnotify_reloading(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		return -errno;
	return sdnotify_sendf("RELOADING=1\nMONOTONIC_USEC=%llu",
			      (unsigned long long)ts.tv_sec * 1000000ULL +
			 (unsigned long long)ts.tv_nsec / 1000ULL);
}

/* A decimal number filling the whole string, above 0. */
static int parse_pos(const char *e, uint64_t *v)
{
	char *end;

	if (!e || *e < '0' || *e > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoull(e, &end, 10);
	if (errno || *end || !*v)
		return -EINVAL;
	return 0;
}

int sdnotify_watchdog_init(void)
{
	const char *usec = getenv("WATCHDOG_USEC"), *pid = getenv("WATCHDOG_PID");
	uint64_t us, p;
	int ret = 0;

	sdn.wd_half_ms = 0;
	if (!usec)
		goto out;
	if (parse_pos(usec, &us) || (pid && parse_pos(pid, &p))) {
		ret = -EINVAL;
		goto out;
	}
	/* sd_watchdog_enabled(3): a WATCHDOG_PID of another process means
	 * the watchdog is that process's, not ours. */
	if (pid && p != (uint64_t)getpid())
		goto out;
	/* sd_watchdog_enabled(3) advises a ping at half the interval. */
	sdn.wd_half_ms = (int64_t)(us / 2000);
	if (!sdn.wd_half_ms)
		sdn.wd_half_ms = 1;
	sdn.wd_due = 0;
	ret = 1;
out:
	/* As NOTIFY_SOCKET: no child may take the watchdog for its own. */
	unsetenv("WATCHDOG_USEC");
	unsetenv("WATCHDOG_PID");
	return ret;
}

int64_t sdnotify_watchdog(int64_t now)
{
	if (!sdn.wd_half_ms)
		return INT64_MAX;
	if (now >= sdn.wd_due) {
		/* A lost ping (full queue) is not an error: the next one, half
		 * an interval on, still comes in time. */
		sdnotify_send("WATCHDOG=1");
		sdn.wd_due = now + sdn.wd_half_ms;
	}
	return sdn.wd_due;
}

void sdnotify_fini(void)
{
	if (sdn.fd >= 0)
		close(sdn.fd);
	sdn.fd = -1;
}
