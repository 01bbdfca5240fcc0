/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* atsctl's invocation: the options every command shares, the port and
 * SA client or the libibats handle opened for it, and the arguments of
 * the one command run. */
#ifndef IBATS_CTL_H
#define IBATS_CTL_H

#include <stdint.h>

#include "cmd_audit.h"
#include "cmd_ping.h"
#include "core/mport.h"
#include "core/sa_client.h"

struct ibats;

/* Exit status (atsctl.8, EXIT STATUS). */
enum {
	CTL_EXIT_FOUND = 0,
	CTL_EXIT_NOTFOUND = 1,
	CTL_EXIT_INVALID = 1,       /* check-config: the file has an error */
	CTL_EXIT_USAGE = 2,
	CTL_EXIT_SA = 3,
	CTL_EXIT_REFUSED = 4,       /* status, resync: the SA refuses an address */
	CTL_EXIT_UNHEALTHY = 5,     /* sm: a key not taken, replication off or unsynced */
};

struct ctl {
	const char *ca;
	int portnum;
	int json;
	int log_level;          /* enum log_level from -v, IBATS_LOG_* alike */
	struct sa_client_opts sa_opts;
	const char *socket;     /* atsd's */
	int no_agent;
	int names;              /* --names: dump's and resolve's NodeDescription column */
	const char *node_name_map; /* --node-name-map FILE (cmd_whois.h) */
	struct mport *port;     /* opened for commands that ask the SA */
	struct sa_client *sa;
	struct ibats *ats;      /* opened by the lookups (cmd_lookup.h) */
};

/* The command's arguments and options, checked. */
struct ctl_args {
	const char *arg[2];     /* positional, as many as the command takes */
	uint16_t pkey;
	uint32_t lease;
	int primary;
	int have_gid;           /* --gid */
	uint8_t gid[16];
	int have_sid;           /* --sid */
	uint64_t sid;
	const char *owner;
	const char *cm_sid;     /* --service-id, as 0x and 16 digits */
	char cm_sid_buf[20];
	const char *netns;
	int yes;                /* purge: delete, not list */
	int plugin_conf;        /* check-config --plugin: FILE is osmats.conf */
	uint16_t lid;           /* --lid: the SM asked by sm and why */
	struct cmd_ping_opts ping;
	struct cmd_audit_opts audit;
};

/* Open the port and register the SA client: an exit status. */
int ctl_open(struct ctl *c);
/* Close whatever the command opened. */
void ctl_close(struct ctl *c);
/* A GID, or a port GUID under the local port's subnet prefix (the port
 * is open). */
int ctl_parse_gid(const struct ctl *c, const char *s, uint8_t *gid);

#endif
