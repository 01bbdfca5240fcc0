/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* simhostd's bench console: see kadmin.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "kadmin.h"
#include "simhost/kernel/kmod.h"
#include "simhost/wire/simhost.h"

int kadmin_parse(const uint8_t *buf, size_t len, struct kadmin_cmd *cmd, char *err,
		 size_t errlen)
{
	char line[128], onoff[8], spec[64], extra[2];
	int cls;

	snprintf(line, sizeof(line), "%.*s", (int)(len < sizeof(line) ? len : sizeof(line) - 1),
		 (const char *)buf);
	line[strcspn(line, "\n")] = '\0';
	memset(cmd, 0, sizeof(*cmd));
	if (!strcmp(line, "rereg")) {
		cmd->op = KADMIN_REREG;
		return 0;
	}
	if (!strcmp(line, "status")) {
		cmd->op = KADMIN_STATUS;
		return 0;
	}
	if (sscanf(line, "drop %i %7s", &cls, onoff) == 2 && cls >= 0 && cls < 256 &&
	    (!strcmp(onoff, "on") || !strcmp(onoff, "off"))) {
		cmd->op = KADMIN_DROP;
		cmd->mgmt_class = (uint8_t)cls;
		cmd->on = !strcmp(onoff, "on");
		return 0;
	}
	if (!strcmp(line, "rmpp on") || !strcmp(line, "rmpp off")) {
		cmd->op = KADMIN_RMPP;
		cmd->on = !strcmp(line, "rmpp on");
		return 0;
	}
	if (!strcmp(line, "modprobe ib_cm") || !strcmp(line, "rmmod ib_cm")) {
		cmd->op = line[0] == 'm' ? KADMIN_MODPROBE_CM : KADMIN_RMMOD_CM;
		return 0;
	}
	if (sscanf(line, "ipoib add %63s %1s", spec, extra) == 1) {
		cmd->op = KADMIN_IPOIB_ADD;
		if (kmod_ipoib_spec(spec, cmd->name, &cmd->pkey) == 0)
			return 0;
		snprintf(err, errlen, "error: \"%s\": not NAME[:PKEY]", spec);
		return -EINVAL;
	}
	if (sscanf(line, "ipoib addr del %63s %63s %1s", spec, cmd->addr, extra) == 2 ||
	    sscanf(line, "ipoib addr %63s %63s %1s", spec, cmd->addr, extra) == 2) {
		cmd->op = KADMIN_IPOIB_ADDR;
		cmd->on = strncmp(line, "ipoib addr del ", 15) != 0;
		if (strlen(spec) < sizeof(cmd->name)) {
			memcpy(cmd->name, spec, strlen(spec) + 1);
			return 0;
		}
		snprintf(err, errlen, "error: \"%s\": interface name too long", spec);
		return -EINVAL;
	}
	if (sscanf(line, "ipoib link %63s %7s %1s", spec, onoff, extra) == 2 &&
	    strlen(spec) < sizeof(cmd->name) && (!strcmp(onoff, "up") || !strcmp(onoff, "down"))) {
		cmd->op = KADMIN_IPOIB_LINK;
		cmd->on = !strcmp(onoff, "up");
		memcpy(cmd->name, spec, strlen(spec) + 1);
		return 0;
	}
	if (sscanf(line, "ipoib del %63s %1s", spec, extra) == 1 && strlen(spec) < sizeof(cmd->name)) {
		cmd->op = KADMIN_IPOIB_DEL;
		memcpy(cmd->name, spec, strlen(spec) + 1); /* fits: checked above */
		return 0;
	}
	snprintf(err, errlen,
		 "error: unknown command \"%s\" (rereg, status, drop CLASS on|off, rmpp on|off, "
		 "ipoib add NAME[:PKEY], ipoib del NAME, ipoib addr [del] NAME IP/PREFIX, "
		 "ipoib link NAME up|down, modprobe ib_cm, rmmod ib_cm)",
		 line);
	return -EINVAL;
}

int kadmin_console(const char *dir, const char *node, const char *cmd)
{
	struct simhost_hello hi = { SIMHOST_MAGIC, SIMHOST_ADMIN, (uint32_t)getpid(), 0, 0 };
	struct simhost_welcome w;
	struct sockaddr_un a;
	char reply[1024];
	ssize_t n = -1;
	int fd;

	memset(&a, 0, sizeof(a));
	a.sun_family = AF_UNIX;
	if (snprintf(a.sun_path, sizeof(a.sun_path), "%s/%s/%s", dir, node, SIMHOST_SOCK) >=
	    (int)sizeof(a.sun_path)) {
		fprintf(stderr, "simhostd: socket path too long\n");
		return 2;
	}
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    send(fd, &hi, sizeof(hi), 0) != (ssize_t)sizeof(hi) ||
	    recv(fd, &w, sizeof(w), 0) != (ssize_t)sizeof(w) || w.err ||
	    send(fd, cmd, strlen(cmd), 0) < 0 || (n = recv(fd, reply, sizeof(reply) - 1, 0)) < 0) {
		fprintf(stderr, "simhostd: %s: %s\n", a.sun_path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return 2;
	}
	close(fd);
	reply[n] = '\0';
	printf("%s\n", reply);
	return strncmp(reply, "error", 5) ? 0 : 1;
}
