/* atsctl's shared state and helpers (atsctl.c, ctl_agent.c). */
#ifndef IBATS_CTL_H
#define IBATS_CTL_H

#include <stddef.h>
#include <stdint.h>

#include "cmd_audit.h"
#include "mport.h"
#include "cmd_ping.h"
#include "sa_client.h"
#include "sr.h"

enum {
	EXIT_FOUND = 0,
	EXIT_NOTFOUND = 1,
	EXIT_USAGE = 2,
	EXIT_SA = 3,
};

struct ctl {
	const char *ca;
	int portnum;
	int json;
	int partial;    /* the records printed may be incomplete */
	struct sa_client_opts sa_opts;
	struct mport *port;
	struct sa_client *sa;
	/* per command */
	uint16_t pkey;
	uint32_t lease;
	int primary;
	int have_gid;
	uint8_t gid[16];
	int have_sid;
	uint64_t sid;
	const char *socket;
	int no_agent;
	int agent_fallback;     /* a lookup: the SA answers when atsd cannot */
	const char *owner;
	const char *cm_port, *cm_sid;
	char cm_sid_buf[20];
	const char *netns;
	struct ping_opts ping;
	struct cmd_audit_opts audit;
};

/* A usage error naming the argument: exit status 2. */
int usage_err(const char *what, const char *arg, const char *why);
/* Records as a table, or one JSON document with --json. */
void print_records(struct ctl *c, const struct sr_record *r, size_t n);

/* ctl_agent.c: requests to atsd. NO_AGENT when none listens. */
#define NO_AGENT (-1)
int agent_call(struct ctl *c, const char *req, int print_recs);
int agent_only(struct ctl *c, const char *req, int print_recs);
int cmd_agent(struct ctl *c, const char *cmd, const char *arg);
/* Bytes below 0x20 or 0x7f in s. */
int ctl_has_control(const char *s);

#endif
