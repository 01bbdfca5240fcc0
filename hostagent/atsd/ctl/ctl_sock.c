/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The control socket (ctl_sock.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "host/atsd_proto.h"
#include "ctl_auth.h"
#include "ctl_sock.h"
#include "core/log.h"
#include "core/mono.h"
#include "model/safe_dir.h"

/* Non-root clients leave this many slots free: root can always connect,
 * whatever local users do. */
#define ROOT_RESERVED 4

struct client {
	int fd;                 /* -1: free slot */
	unsigned gen;           /* tells a reused slot from the old client */
	char buf[ATSD_PROTO_LINE_MAX];
	size_t len;
	uid_t uid;              /* SO_PEERCRED at connect time */
	pid_t pid;
	int privileged;         /* root or a member of control_group */
	int busy;               /* an answer is outstanding: later lines wait */
	int eof;                /* the client sent all it will send */
	int64_t last_active;    /* ms: for client_idle_timeout */
};

static struct {
	const struct agent_conf *conf;
	ctl_sock_line_fn *line;
	int listen_fd;
	struct client clients[CTL_SOCK_MAX_CLIENTS];
	unsigned next_gen;
} cs = { .listen_fd = -1 };

static const char *errno_name(int err)
{
	switch (err) {
	case ENOENT: return "ENOENT";
	case EINVAL: return "EINVAL";
	case ETIMEDOUT: return "ETIMEDOUT";
	case ENETDOWN: return "ENETDOWN";
	case EEXIST: return "EEXIST";
	case ENOSPC: return "ENOSPC";
	case E2BIG: return "E2BIG";
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case EBUSY: return "EBUSY";
	case ECONNREFUSED: return "ECONNREFUSED";
	case EHOSTUNREACH: return "EHOSTUNREACH";
	case ENOTSUP: return "ENOTSUP";
	default: return "EIO";
	}
}

static void client_close(int slot)
{
	struct client *c = &cs.clients[slot];

	if (c->fd < 0)
		return;
	close(c->fd);
	c->fd = -1;
	c->len = 0;
	c->busy = 0;
	c->eof = 0;
}

void ctl_sock_reply(int slot, const char *text)
{
	size_t len = strlen(text);

	/* Answers are small; a client that does not read them is dropped. */
	if (send(cs.clients[slot].fd, text, len, MSG_NOSIGNAL | MSG_DONTWAIT) !=
	    (ssize_t)len)
		client_close(slot);
}

void ctl_sock_reply_err(int slot, int err, const char *fmt, ...)
{
	char msg[300], line[340], *p;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* Messages quote the client's words: never echo control bytes or a
	 * stray newline that would look like another answer. */
	for (p = msg; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			*p = '?';
	snprintf(line, sizeof(line), "ERR %s %s\n", errno_name(err), msg);
	ctl_sock_reply(slot, line);
}

uid_t ctl_sock_uid(int slot)
{
	return cs.clients[slot].uid;
}

pid_t ctl_sock_pid(int slot)
{
	return cs.clients[slot].pid;
}

int ctl_sock_privileged(int slot)
{
	return cs.clients[slot].privileged;
}

struct ctl_sock_ticket ctl_sock_defer(int slot)
{
	struct ctl_sock_ticket t = { slot, cs.clients[slot].gen };

	cs.clients[slot].busy = 1;
	return t;
}

int ctl_sock_live(struct ctl_sock_ticket t)
{
	return cs.clients[t.slot].fd >= 0 && cs.clients[t.slot].gen == t.gen;
}

static void client_drain(int slot);

void ctl_sock_answered(struct ctl_sock_ticket t)
{
	struct client *c = &cs.clients[t.slot];

	if (!ctl_sock_live(t))
		return;
	c->busy = 0;
	c->last_active = mono_ms();
	client_drain(t.slot);
}

/* The socket file in control_group: ls -l shows who may change state
 * (ctl_auth decides by the peer's credentials, not by the file). chown(2)
 * to a group needs CAP_CHOWN or membership: with neither (a unit without
 * Group=) the file keeps atsd's group, which changes nothing but the
 * listing. */
static void give_group(const char *path, const struct agent_conf *conf)
{
	/* Not through a symlink put in the socket's place: atsd is root. */
	if (!conf->control_group[0] ||
	    !fchownat(AT_FDCWD, path, (uid_t)-1, conf->control_gid, AT_SYMLINK_NOFOLLOW))
		return;
	log_warn("socket %s: cannot give it group %s (%s): atsd needs CAP_CHOWN or to run "
		 "in that group (Group=%s in its unit); requests are authorized all the same",
		 path, conf->control_group, strerror(errno), conf->control_group);
}

void ctl_sock_reloaded(void)
{
	if (cs.listen_fd >= 0)
		give_group(cs.conf->socket, cs.conf);
}

/* The socket's directory (safe_dir.h): -EPERM, said, when another user
 * could swap the socket. */
static int check_dir(const char *dir)
{
	char why[320];
	int ret = safe_dir_check(dir, why, sizeof(why));

	if (ret == -EPERM)
		log_err("socket directory %s", why);
	return ret;
}

int ctl_sock_open(const struct agent_conf *conf, ctl_sock_line_fn *line)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *path = conf->socket;
	char dir[sizeof(sa.sun_path)], *slash;
	mode_t mask;
	int fd, i, ret;

	cs.conf = conf;
	cs.line = line;
	for (i = 0; i < CTL_SOCK_MAX_CLIENTS; i++)
		cs.clients[i].fd = -1;
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	if (slash && slash != dir && mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	ret = check_dir(dir);
	if (ret)
		return ret;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* A socket file left by a killed agent: nobody listens on it. */
	if (!connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -EADDRINUSE;
	}
	unlink(path);
	/* Lookups are for every local program, as DNS is: mode 0666 from
	 * bind(2) itself, not a chmod(2) by a name that could be swapped for
	 * a symlink in between. */
	mask = umask(0111);
	ret = bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ? -errno : 0;
	umask(mask);
	if (!ret && listen(fd, 16))
		ret = -errno;
	if (ret) {
		close(fd);
		return ret;
	}
	give_group(path, conf);
	cs.listen_fd = fd;
	return 0;
}

void ctl_sock_close(void)
{
	int i;

	if (!cs.conf)
		return; /* never opened */
	for (i = 0; i < CTL_SOCK_MAX_CLIENTS; i++)
		client_close(i);
	if (cs.listen_fd >= 0) {
		close(cs.listen_fd);
		unlink(cs.conf->socket);
		cs.listen_fd = -1;
	}
}

int ctl_sock_pollfds(struct pollfd *p, int *slot, int max, int listening)
{
	int n = 0, i;

	if (n < max) {
		p[n].fd = listening ? cs.listen_fd : -1;
		p[n].events = POLLIN;
		slot[n++] = -1;
	}
	for (i = 0; i < CTL_SOCK_MAX_CLIENTS && n < max; i++) {
		/* A client waiting for an answer sends nothing more we would
		 * read: its next lines wait in the socket (in order). */
		if (cs.clients[i].fd < 0 || cs.clients[i].busy || cs.clients[i].eof)
			continue;
		p[n].fd = cs.clients[i].fd;
		p[n].events = POLLIN;
		slot[n++] = i;
	}
	return n;
}

void ctl_sock_accept(void)
{
	int fd, i;

	while ((fd = accept4(cs.listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		struct ctl_auth_cred p = { (uid_t)-1, (gid_t)-1, 0 };
		char busy[160];
		int used = 0, mine = 0, free_slot = -1;

		if (ctl_auth_peer(fd, &p))
			log_debug("no peer credentials: treated as an unprivileged user");
		for (i = 0; i < CTL_SOCK_MAX_CLIENTS; i++) {
			if (cs.clients[i].fd < 0) {
				if (free_slot < 0)
					free_slot = i;
				continue;
			}
			used++;
			mine += cs.clients[i].uid == p.uid;
		}
		busy[0] = '\0';
		if (free_slot < 0 || (p.uid && used >= CTL_SOCK_MAX_CLIENTS - ROOT_RESERVED))
			snprintf(busy, sizeof(busy), "ERR EBUSY too many clients\n");
		else if (p.uid && (unsigned)mine >= cs.conf->max_clients_per_uid)
			snprintf(busy, sizeof(busy),
				 "ERR EBUSY uid %u has %d connections open (max_clients_per_uid)\n",
				 (unsigned)p.uid, mine);
		if (busy[0] || free_slot < 0) {
			/* The client asks the SA itself (atsctl does). */
			if (send(fd, busy, strlen(busy), MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
				log_debug("client gone before the busy answer");
			close(fd);
			continue;
		}
		i = free_slot;
		memset(&cs.clients[i], 0, sizeof(cs.clients[i]));
		cs.clients[i].fd = fd;
		cs.clients[i].gen = ++cs.next_gen;
		cs.clients[i].uid = p.uid;
		cs.clients[i].pid = p.pid;
		cs.clients[i].privileged = ctl_auth_privileged(fd, &p, cs.conf->control_group[0] != 0,
							       cs.conf->control_gid);
		cs.clients[i].last_active = mono_ms();
	}
}

/* Requests in the buffer, in order: one waiting for the SA holds back
 * the ones behind it (doc/atsd-protocol.md: answers in request order). */
static void client_drain(int slot)
{
	struct client *c = &cs.clients[slot];
	char *nl;

	while (c->fd >= 0 && !c->busy && (nl = memchr(c->buf, '\n', c->len))) {
		size_t l = (size_t)(nl - c->buf);

		*nl = '\0';
		c->last_active = mono_ms();
		if (memchr(c->buf, '\0', l))
			ctl_sock_reply_err(slot, EINVAL, "request contains a NUL byte");
		else
			cs.line(slot, c->buf);
		if (c->fd < 0)
			return;
		memmove(c->buf, nl + 1, c->len - l - 1);
		c->len -= l + 1;
		c->buf[c->len] = '\0';
	}
	if (c->fd < 0 || c->busy)
		return;
	if (c->len == sizeof(c->buf) - 1) {
		/* The rest of that line cannot be told from the next request. */
		char junk[4096];
		int k;

		ctl_sock_reply_err(slot, E2BIG, "request line longer than %d bytes; closing",
				   ATSD_PROTO_LINE_MAX - 2);
		/* Read what is queued, so that the close does not reset the
		 * connection before the client has read the answer. */
		for (k = 0; k < 16 && c->fd >= 0 && read(c->fd, junk, sizeof(junk)) > 0; k++)
			;
		client_close(slot);
	} else if (c->eof) {
		client_close(slot);
	}
}

void ctl_sock_read(int slot)
{
	struct client *c = &cs.clients[slot];
	ssize_t n;

	n = read(c->fd, c->buf + c->len, sizeof(c->buf) - 1 - c->len);
	if (n < 0) {
		if (errno == EAGAIN || errno == EINTR)
			return;
		client_close(slot);
		return;
	}
	/* A client that shut down its side still gets its answers. */
	if (n == 0)
		c->eof = 1;
	c->len += (size_t)n;
	c->buf[c->len] = '\0';
	c->last_active = mono_ms();
	client_drain(slot);
}

int64_t ctl_sock_timers(int64_t now, int expire)
{
	int64_t next = INT64_MAX, idle = (int64_t)cs.conf->client_idle_timeout * 1000;
	int i;

	if (!idle)
		return next;
	for (i = 0; i < CTL_SOCK_MAX_CLIENTS; i++) {
		struct client *c = &cs.clients[i];

		/* Waiting for our answer is not idle. */
		if (c->fd < 0 || c->busy)
			continue;
		if (expire && now - c->last_active >= idle) {
			log_debug("client uid %u idle for %u s: closed", (unsigned)c->uid,
				  cs.conf->client_idle_timeout);
			client_close(i);
		} else if (c->last_active + idle < next) {
			next = c->last_active + idle;
		}
	}
	return next;
}
