/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "core/ats.h"
#include "atsd_client.h"
#include "core/mono.h"

void atsd_client_reply_free(struct atsd_client_reply *rep)
{
	size_t i;

	for (i = 0; i < rep->nlines; i++)
		free(rep->lines[i]);
	free(rep->lines);
	memset(rep, 0, sizeof(*rep));
}

struct atsd_client_conn {
	int fd;
	char pend[ATSD_PROTO_LINE_MAX]; /* read, not yet consumed */
	size_t npend;
};

/* Read one line (without the newline) into buf. */
static int read_line(struct atsd_client_conn *c, char *buf, size_t len, int64_t deadline)
{
	for (;;) {
		char *nl = memchr(c->pend, '\n', c->npend);
		struct pollfd p = { c->fd, POLLIN, 0 };
		ssize_t n;
		int64_t left;

		if (nl) {
			size_t l = (size_t)(nl - c->pend);

			if (l >= len)
				return -EMSGSIZE;
			memcpy(buf, c->pend, l);
			buf[l] = '\0';
			memmove(c->pend, nl + 1, c->npend - l - 1);
			c->npend -= l + 1;
			return 0;
		}
		if (c->npend == ATSD_PROTO_LINE_MAX)
			return -EMSGSIZE;
		left = deadline - mono_ms();
		if (left <= 0)
			return -ETIMEDOUT;
		if (poll(&p, 1, (int)left) <= 0)
			return -ETIMEDOUT;
		n = read(c->fd, c->pend + c->npend, ATSD_PROTO_LINE_MAX - c->npend);
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ECONNRESET;
		c->npend += (size_t)n;
	}
}

static int parse_reply(struct atsd_client_conn *c, int64_t deadline, struct atsd_client_reply *rep)
{
	char line[ATSD_PROTO_LINE_MAX];
	size_t n, i;
	int ret;

	ret = read_line(c, line, sizeof(line), deadline);
	if (ret)
		return ret;
	if (!strncmp(line, "ERR ", 4)) {
		char *sp = strchr(line + 4, ' ');

		if (sp)
			*sp = '\0';
		snprintf(rep->code, sizeof(rep->code), "%.*s", (int)sizeof(rep->code) - 1,
			 line + 4);
		snprintf(rep->message, sizeof(rep->message), "%.*s",
			 (int)sizeof(rep->message) - 1, sp ? sp + 1 : "");
		return 0;
	}
	if (atsd_proto_ok_parse(line, &n))
		return -EPROTO;
	rep->ok = 1;
	rep->lines = calloc(n ? n : 1, sizeof(*rep->lines));
	if (!rep->lines)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		ret = read_line(c, line, sizeof(line), deadline);
		if (ret)
			return ret;
		rep->lines[i] = strdup(line);
		if (!rep->lines[i])
			return -ENOMEM;
		rep->nlines++;
	}
	return 0;
}

static int do_connect(const char *path, int nowait, struct atsd_client_conn **out)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct atsd_client_conn *c;
	int ret;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -EINVAL;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | (nowait ? SOCK_NONBLOCK : 0), 0);
	if (c->fd < 0) {
		ret = -errno;
		free(c);
		return ret;
	}
	if (connect(c->fd, (struct sockaddr *)&sa, sizeof(sa))) {
		ret = -errno;
		atsd_client_disconnect(c);
		return ret;
	}
	*out = c;
	return 0;
}

int atsd_client_connect(const char *path, struct atsd_client_conn **out)
{
	return do_connect(path, 0, out);
}

int atsd_client_connect_nowait(const char *path, struct atsd_client_conn **out)
{
	return do_connect(path, 1, out);
}

void atsd_client_disconnect(struct atsd_client_conn *c)
{
	if (!c)
		return;
	close(c->fd);
	free(c);
}

int atsd_client_ask(struct atsd_client_conn *c, const char *request, unsigned timeout_ms,
	     struct atsd_client_reply *rep)
{
	size_t len = strlen(request);
	char line[ATSD_PROTO_LINE_MAX];
	ssize_t n;
	int ret;

	memset(rep, 0, sizeof(*rep));
	if (len >= ATSD_PROTO_LINE_MAX - 1 || strchr(request, '\n'))
		return -EINVAL;
	/* One write: request and newline in one segment. MSG_NOSIGNAL: a
	 * dead agent is an EPIPE here, never a SIGPIPE in atsctl or in a
	 * program using libibats. */
	memcpy(line, request, len);
	line[len] = '\n';
	n = send(c->fd, line, len + 1, MSG_NOSIGNAL);
	if (n != (ssize_t)(len + 1)) {
		ret = n < 0 ? -errno : -EIO;
		/* A busy agent answers "ERR EBUSY" and closes at once: that
		 * answer may wait unread although the send failed. */
		if ((ret == -EPIPE || ret == -ECONNRESET) &&
		    !parse_reply(c, mono_ms() + timeout_ms, rep) && !rep->ok)
			return 0;
		atsd_client_reply_free(rep);
		return ret;
	}
	ret = parse_reply(c, mono_ms() + timeout_ms, rep);
	if (ret)
		atsd_client_reply_free(rep);
	return ret;
}

int atsd_client_request(const char *path, const char *request, unsigned timeout_ms,
		 struct atsd_client_reply *rep)
{
	struct atsd_client_conn *c;
	int ret;

	memset(rep, 0, sizeof(*rep));
	ret = atsd_client_connect(path, &c);
	if (ret)
		return ret;
	ret = atsd_client_ask(c, request, timeout_ms, rep);
	atsd_client_disconnect(c);
	return ret;
}
