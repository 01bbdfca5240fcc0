/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* atsctl ping: liveness requests (vendor class 0x34) to one port. */
#ifndef IBATS_CMD_PING_H
#define IBATS_CMD_PING_H

#include <stddef.h>
#include <stdint.h>

#include "core/vmad.h"

struct ctl;
struct ctl_args;

struct cmd_ping_opts {
	unsigned count;
	unsigned interval_ms;
	unsigned timeout_ms;
	enum vmad_liv_type type;     /* VMAD_LIV_ECHO_REQ, VMAD_LIV_TS_REQ or VMAD_LIV_INFO_REQ */
	size_t size;            /* echo payload */
	int json;
};

/* Exit status 0 when at least one answer came, 1 on 100% loss or no
 * such target, 2 on a bad target, 3 on local or SA errors. */
int cmd_ping(struct ctl *c, const struct ctl_args *a);
/* One of ping's options (--count, --interval, --type, --size), checked
 * into o as atsctl reads the command line; an exit status. */
int cmd_ping_option(struct cmd_ping_opts *o, int opt, const char *val);

#endif
