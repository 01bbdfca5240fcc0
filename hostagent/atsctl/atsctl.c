/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* atsctl: register and look up ATS records from the command line. One
 * table names the commands, their arguments and options, whom they ask
 * (the SA, atsd, or libibats: atsd before the SA) and their handler, as
 * infiniband-diags' saquery does; usage and argument checks come from it. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/ats.h"
#include "host/atsd_client.h"
#include "core/cfg.h"
#include "cmd_audit.h"
#include "cmd_config.h"
#include "cmd_lookup.h"
#include "cmd_ping.h"
#include "cmd_purge.h"
#include "cmd_records.h"
#include "cmd_sm.h"
#include "cmd_verify.h"
#include "cmd_whois.h"
#include "ctl.h"
#include "cmd_agent.h"
#include "core/log.h"
#include "core/osmats_conf.h"
#include "out.h"
#include "smkey.h"

enum {
	CMD_SA = 1 << 0,          /* opens the port and SA client */
	CMD_ANY_SID = 1 << 1,     /* --sid may be outside the ATS SID block */
	CMD_GID_OR_SID = 1 << 2,  /* --gid and --sid exclude each other */
};

/* Long options without a short letter. */
enum { OPT_LIST_COMMANDS = 256, OPT_SMKEY_FILE };

/* atsctl's own options, before the command or after it among its own
 * (as git and ip take them): no letter of cmd_optdefs but 'j' and 'h'. */
static const struct option glob_lopts[] = {
	{ "ca", required_argument, NULL, 'C' },
	{ "port", required_argument, NULL, 'P' },
	{ "json", no_argument, NULL, 'j' },
	{ "timeout", required_argument, NULL, 't' },
	{ "retries", required_argument, NULL, 'r' },
	{ "smkey", required_argument, NULL, 'k' },
	{ "rmpp", required_argument, NULL, 'R' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "socket", required_argument, NULL, 'S' },
	{ "no-agent", no_argument, NULL, 'n' },
	{ "version", no_argument, NULL, 'V' },
	{ "smkey-file", required_argument, NULL, OPT_SMKEY_FILE },
	{ "list-commands", no_argument, NULL, OPT_LIST_COMMANDS },
	{ NULL, 0, NULL, 0 },
};

#define GLOB_SHORT "C:P:t:r:k:vS:nV" /* and j, h */
#define NGLOB (sizeof(glob_lopts) / sizeof(glob_lopts[0]) - 1)

/* What atsctl's own options leave for after the parse. */
struct glob {
	const char *key_arg, *key_file;
	int verbose;
};

/* One entry a command: a new command fills every field, its example
 * included (atsctl CMD --help prints it). */
struct ctl_cmd {
	const char *name;
	const char *synopsis;  /* arguments and options, for usage */
	const char *help;      /* one line */
	const char *example;   /* one command line, for CMD --help */
	unsigned nargs;
	const char *opts;      /* option letters it takes (cmd_optdefs) */
	unsigned flags;        /* CMD_*; none: atsd alone, or libibats */
	int (*check)(const char *arg); /* the first argument, before any MAD */
	int (*run)(struct ctl *c, const struct ctl_args *a);
};

static int check_ip(const char *arg)
{
	struct ats_ip ip;

	if (ats_ip_parse(arg, &ip))
		return out_usage_err("IP", arg, "not an IPv4 or IPv6 address");
	return 0;
}

static int check_unicast(const char *arg)
{
	struct ats_ip ip;
	const char *why;

	if (check_ip(arg))
		return CTL_EXIT_USAGE;
	ats_ip_parse(arg, &ip);
	if (ats_ip_check_unicast(&ip, &why))
		return out_usage_err("IP", arg, why);
	return 0;
}

static int check_gid(const char *arg)
{
	uint8_t gid[16];
	uint64_t guid;

	if (ats_gid_parse(arg, gid) && cfg_parse_hex64(arg, &guid))
		return out_usage_err("GID", arg, "not a GID or port GUID");
	return 0;
}

static int check_conn_id(const char *arg)
{
	uint64_t id;

	if (cfg_parse_u64(arg, UINT32_MAX, &id))
		return out_usage_err("connection ID", arg, "not a number from atsctl connections");
	return 0;
}

static const struct ctl_cmd cmds[] = {
	{ "register", "IP [--primary] [--pkey P] [--lease S] [--gid GID] [--sid SID]",
	  "register IP for the local port (or GID)",
	  "atsctl register 10.0.0.1 --primary",
	  1, "pKLgsj", CMD_SA | CMD_ANY_SID, check_unicast, cmd_records_register },
	{ "deregister", "IP [--pkey P] [--gid GID]", "delete the GID's records of IP",
	  "atsctl deregister 10.0.1.1",
	  1, "Kgj", CMD_SA, check_ip, cmd_records_deregister },
	{ "resolve", "IP [--pkey P] [--names [--node-name-map F]]", "GIDs of an IP, primary holders first",
	  "atsctl resolve 10.0.0.1 --names",
	  1, "KjDM", 0, check_ip, cmd_lookup_resolve },
	{ "reverse", "GID [--pkey P]", "all IPs of a GID",
	  "atsctl reverse fe80::2c9:300:1:2",
	  1, "Kj", 0, check_gid, cmd_lookup_reverse },
	{ "primary", "GID [--pkey P]", "the primary IP of a GID",
	  "atsctl primary 0x2c903000102",
	  1, "Kj", 0, check_gid, cmd_lookup_primary },
	{ "dump", "[--gid GID | --sid SID] [--pkey P] [--names [--node-name-map F]]",
	  "every ATS record, or one GID's or SID's",
	  "atsctl --json dump --sid 0x10000ce100415453",
	  0, "KgsjDM", CMD_SA | CMD_GID_OR_SID, NULL, cmd_records_dump },
	{ "whois", "IP [--pkey P] [--node-name-map FILE]", "the nodes holding IP: LID, name",
	  "atsctl whois 10.0.0.1 --node-name-map /etc/infiniband-diags/ibnetdiscover.map",
	  1, "KMj", CMD_SA, check_ip, cmd_whois },
	{ "port", "", "the local port: LID, SM LID, state, GID",
	  "atsctl -C mlx5_0 -P 1 port",
	  0, "j", CMD_SA, NULL, cmd_records_port },
	{ "hold", "IP --owner NAME [--pkey P]", "keep IP registered (atsd)",
	  "atsctl hold 10.0.0.5 --owner vip",
	  1, "Koj", 0, check_ip, cmd_agent_hold },
	{ "release", "IP --owner NAME [--pkey P]", "drop that hold (atsd)",
	  "atsctl release 10.0.0.5 --owner vip",
	  1, "Koj", 0, check_ip, cmd_agent_release },
	{ "status", "", "the records atsd keeps for this host",
	  "atsctl --json status",
	  0, "j", 0, NULL, cmd_agent_status },
	{ "stats", "", "atsd's cache and SA counters",
	  "atsctl stats",
	  0, "j", 0, NULL, cmd_agent_stats },
	{ "resync", "", "make atsd check its records against the SA now",
	  "atsctl resync",
	  0, "", 0, NULL, cmd_agent_resync },
	{ "ipoib", "", "atsd's IPoIB broadcast groups: Q_Key, MLID, MTU, SL",
	  "atsctl --json ipoib",
	  0, "j", 0, NULL, cmd_agent_ipoib },
	{ "verify", "[--netns NS] [--pkey P]", "kernel IPoIB neighbours against ATS",
	  "atsctl verify --netns blue",
	  0, "NKj", CMD_SA, NULL, cmd_verify },
	{ "connect", "IP PORT [--service-id SID] [--pkey P]", "CM connection by IP through atsd",
	  "atsctl connect 10.0.0.2 5000",
	  2, "EjK", 0, check_ip, cmd_agent_connect },
	{ "connections", "", "atsd's CM connections",
	  "atsctl --json connections",
	  0, "j", 0, NULL, cmd_agent_connections },
	{ "disconnect", "ID", "DREQ/DREP one of them",
	  "atsctl disconnect 1",
	  1, "", 0, check_conn_id, cmd_agent_disconnect },
	{ "audit", "[--save FILE] [--inventory FILE] [--state FILE]",
	  "check every ATS record against the spec",
	  "atsctl --smkey-file /etc/ibats/smkey audit --state /var/lib/opensm/osmats-state.json",
	  0, "wIXj", CMD_SA, NULL, cmd_audit },
	{ "purge", "[--pkey P] [--yes]", "records of absent ports: list, or delete (-k)",
	  "atsctl --smkey-file /etc/ibats/smkey purge --yes",
	  0, "Kyj", CMD_SA, NULL, cmd_purge },
	{ "ping", "TARGET [-c N] [-i SECONDS] [--type echo|timestamp|info] [--size BYTES]",
	  "liveness (vendor class 0x34) to a LID, GID or IP",
	  "atsctl ping -c 5 10.0.0.2",
	  1, "ciTzKj", CMD_SA, NULL, cmd_ping },
	{ "check-config", "FILE [--plugin]", "check atsd.conf (or osmats.conf) offline",
	  "atsctl check-config --plugin " OSMATS_CONF_DEFAULT_PATH,
	  1, "O", 0, NULL, cmd_config_check },
	{ "sm", "[--lid LID] [--node-name-map F]", "the SM plugin's view: role, replication, counters",
	  "atsctl --smkey-file /etc/ibats/smkey sm --json",
	  0, "ljM", CMD_SA, NULL, cmd_sm },
	{ "why", "[--lid LID] [--node-name-map F]", "why the SM refused this port's last requests",
	  "atsctl why --node-name-map /etc/infiniband-diags/node-name-map",
	  0, "ljM", CMD_SA, NULL, cmd_sm_why },
};

#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))

/* A command's line: its help at the first of two columns that leaves two
 * blanks, else on a line of its own. */
static void usage_command(FILE *f, const struct ctl_cmd *cmd)
{
	char line[128];
	int len = snprintf(line, sizeof(line), "%s%s%s", cmd->name,
			   *cmd->synopsis ? " " : "", cmd->synopsis);

	if (len <= 29)
		fprintf(f, "  %-31s%s\n", line, cmd->help);
	else if (len <= 34)
		fprintf(f, "  %-36s%s\n", line, cmd->help);
	else
		fprintf(f, "  %s\n%33s%s\n", line, "", cmd->help);
}

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "Usage: atsctl [OPTIONS] COMMAND [ARGS]\n\nCommands:\n");
	for (i = 0; i < NCMDS; i++)
		usage_command(f, &cmds[i]);
	fprintf(f,
"\n"
"Options:\n"
"  -C, --ca NAME        CA to use (default: first with an active port)\n"
"  -P, --port N         CA port (default: first active)\n"
"  -j, --json           print one JSON document\n"
"  -t, --timeout MS     SA timeout per attempt (default %d; doubled at\n"
"                       each retry of a GetTable, up to 16 times)\n"
"  -r, --retries N      SA retries (default %d)\n"
"  -k, --smkey KEY      SM_Key for SA requests (default 0; - reads it from\n"
"                       the terminal, or a line from stdin)\n"
"      --smkey-file FILE  the SM_Key from FILE (mode 600 or stricter)\n"
"      --rmpp MODE      auto|on|off: trust GetTable for several records\n"
"  -S, --socket PATH    atsd's socket (default " ATSD_PROTO_SOCKET_DEFAULT ")\n"
"  -n, --no-agent       ask the SA even when atsd runs\n"
"  -v, --verbose        more log output (repeat for debug)\n"
"  -V, --version        atsctl's version\n"
"  -h, --help           this help; atsctl help COMMAND (or COMMAND --help)\n"
"                       for one command's\n"
"\n"
"resolve, reverse and primary go through atsd's cache when it runs.\n"
"IBATS_SMKEY in the environment gives the SM_Key when -k and\n"
"--smkey-file do not. Options go before or after the command, a\n"
"command's own after it.\n"
"GID: IPv6 notation (fe80::2c9:300:1:2) or a port GUID (0x2c903000102),\n"
"which takes the local port's subnet prefix. Exit status: 0 done, 1 nothing\n"
"found, 2 usage error, 3 SA, agent or transport error, 4 (status, resync)\n"
"the SA refuses an address of this host.\n",
		SA_CLIENT_TIMEOUT_MS_DEFAULT, SA_CLIENT_RETRIES_DEFAULT);
}

/* Bytes below 0x20 or 0x7f in s. */
static int has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 1;
	return 0;
}

/* The options whose value is checked before it names a record or a
 * target: --pkey, --lease, --sid, --lid, --service-id, --owner; an exit
 * status. */
static int value_option(const struct ctl_cmd *cmd, int opt, const char *val,
			struct ctl_args *a)
{
	uint64_t v;

	switch (opt) {
	case 'K':
		if (ats_pkey_parse(val, &a->pkey))
			return out_usage_err("--pkey", val, "not a PKey (1..0xFFFF)");
		break;
	case 'L':
		if (cfg_parse_u64(val, 0xffffffff, &v))
			return out_usage_err("--lease", val, "not a lease in seconds (0..4294967295)");
		a->lease = (uint32_t)v;
		break;
	case 's':
		if (cfg_parse_hex64(val, &a->sid))
			return out_usage_err("--sid", val, "not a ServiceID (hex, 1..16 digits)");
		if (!(cmd->flags & CMD_ANY_SID) && !ats_sid_in_block(a->sid))
			return out_usage_err("--sid", val, "outside the ATS SID block 0x10000CE100415400..0x10000CE1004154FF");
		a->have_sid = 1;
		break;
	case 'l':
		if (cfg_parse_u64(val, 0xbfff, &v) || !v)
			return out_usage_err("--lid", val, "not a unicast LID (1..0xBFFF)");
		a->lid = (uint16_t)v;
		break;
	case 'E':
		if (cfg_parse_hex64(val, &v))
			return out_usage_err("--service-id", val, "not a service ID (hex, 1..16 digits)");
		/* atsd gets one spelling, whatever the user typed. */
		snprintf(a->cm_sid_buf, sizeof(a->cm_sid_buf), "0x%016" PRIx64, v);
		a->cm_sid = a->cm_sid_buf;
		break;
	case 'o':
		if (!*val || strpbrk(val, " \t") || strlen(val) > 63 || has_control(val))
			return out_usage_err("--owner", val,
					     "not a name (1..63 characters, no blanks or control bytes)");
		a->owner = val;
		break;
	}
	return 0;
}

/* One option of a command, checked; an exit status. Flags and paths are
 * stored as given; values go to the helpers above. */
static int command_option(struct ctl *c, const struct ctl_cmd *cmd, int opt,
			  const char *val, struct ctl_args *a, const char **gid_arg)
{
	switch (opt) {
	case 'c':
	case 'i':
	case 'T':
	case 'z':
		return cmd_ping_option(&a->ping, opt, val);
	case 'K':
	case 'L':
	case 's':
	case 'l':
	case 'E':
	case 'o':
		return value_option(cmd, opt, val, a);
	case 'p':
		a->primary = 1;
		break;
	case 'g':
		*gid_arg = val;
		break;
	case 'j':
		c->json = 1;
		break;
	case 'w':
		a->audit.save = val;
		break;
	case 'I':
		a->audit.inventory = val;
		break;
	case 'X':
		a->audit.state = val;
		break;
	case 'N':
		a->netns = val;
		break;
	case 'y':
		a->yes = 1;
		break;
	case 'D':
		c->names = 1;
		break;
	case 'M':
		c->node_name_map = val;
		c->names = 1;
		break;
	case 'O':
		a->plugin_conf = 1;
		break;
	}
	return 0;
}

/* Every command's options, for getopt_long and for CMD --help; a
 * command's opts letters pick its own. */
struct cmd_opt {
	const char *name;
	int val;           /* its letter in ctl_cmd.opts */
	int is_short;      /* -val is accepted too */
	const char *arg;   /* the argument's name, NULL: a flag */
	const char *help;
};

static const struct cmd_opt cmd_optdefs[] = {
	{ "primary", 'p', 0, NULL, "the GID's primary address (SID ...53)" },
	{ "pkey", 'K', 0, "P", "the partition's P_Key (default 0xffff; 0x7fff is the same one)" },
	{ "lease", 'L', 0, "S", "lease in seconds (default 4294967295: infinite)" },
	{ "gid", 'g', 0, "GID", "a GID or port GUID (default: the local port's)" },
	{ "sid", 's', 0, "SID", "a ServiceID (hex)" },
	{ "json", 'j', 1, NULL, "print one JSON document" },
	{ "owner", 'o', 0, "NAME", "the hold's name (1..63 characters, no blanks)" },
	{ "count", 'c', 1, "N", "requests to send (default 3)" },
	{ "interval", 'i', 1, "SECONDS", "between requests (default 1)" },
	{ "type", 'T', 0, "TYPE", "echo, timestamp or info (default echo)" },
	{ "size", 'z', 0, "BYTES", "echo data bytes (default 56; over 208 needs RMPP)" },
	{ "save", 'w', 0, "FILE", "save the records as an inventory in FILE" },
	{ "inventory", 'I', 0, "FILE", "compare with an inventory saved before" },
	{ "state", 'X', 0, "FILE", "the plugin's state file: records of absent ports" },
	{ "service-id", 'E', 0, "SID", "the listener's CM service ID (default: from PORT)" },
	{ "netns", 'N', 0, "NS", "the neighbours of network namespace NS" },
	{ "plugin", 'O', 0, NULL, "FILE is the plugin's osmats.conf, not atsd.conf" },
	{ "yes", 'y', 0, NULL, "purge: delete the records, not only list them" },
	{ "names", 'D', 0, NULL, "add each GID's node description (SA NodeRecord)" },
	{ "node-name-map", 'M', 0, "FILE", "names from an infiniband-diags node name map" },
	{ "lid", 'l', 0, "LID", "ask the SM at LID (default: the port's SM LID)" },
};

#define NOPTS (sizeof(cmd_optdefs) / sizeof(cmd_optdefs[0]))

/* getopt_long's tables from cmd_optdefs, --help and -h added. */
static void cmd_getopt_tables(struct option *lo, char *so)
{
	size_t i;

	*so++ = ':'; /* a missing argument is ':', not '?' (getopt(3)) */
	for (i = 0; i < NOPTS; i++) {
		const struct cmd_opt *o = &cmd_optdefs[i];

		lo[i] = (struct option){ o->name, o->arg ? required_argument : no_argument,
					 NULL, o->val };
		if (o->is_short) {
			*so++ = (char)o->val;
			if (o->arg)
				*so++ = ':';
		}
	}
	lo[i++] = (struct option){ "help", no_argument, NULL, 'h' };
	lo[i] = (struct option){ NULL, 0, NULL, 0 };
	*so++ = 'h';
	*so = '\0';
}

/* atsctl CMD --help: synopsis, what it does, its options alone and an
 * example. */
static void command_help(FILE *f, const struct ctl_cmd *cmd)
{
	size_t i;

	fprintf(f, "Usage: atsctl [OPTIONS] %s%s%s\n%s.\n\nOptions:\n", cmd->name,
		*cmd->synopsis ? " " : "", cmd->synopsis, cmd->help);
	for (i = 0; i < NOPTS; i++) {
		const struct cmd_opt *o = &cmd_optdefs[i];
		char lhs[48];

		if (!strchr(cmd->opts, o->val))
			continue;
		snprintf(lhs, sizeof(lhs), "%c%c%s--%s%s%s", o->is_short ? '-' : ' ',
			 o->is_short ? o->val : ' ', o->is_short ? ", " : "  ", o->name,
			 o->arg ? " " : "", o->arg ? o->arg : "");
		fprintf(f, "  %-26s%s\n", lhs, o->help);
	}
	fprintf(f, "  %-26s%s\n", "-h, --help", "this help");
	fprintf(f, "\nExample:\n  %s\n\n"
		"atsctl's own options, before or after the command: atsctl --help.\n",
		cmd->example);
}

static const struct ctl_cmd *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < NCMDS; i++)
		if (!strcmp(name, cmds[i].name))
			return &cmds[i];
	return NULL;
}

/* atsctl help [COMMAND]. */
static int help_command(int argc, char **argv)
{
	const struct ctl_cmd *cmd;

	if (argc == 1) {
		usage(stdout);
		return CTL_EXIT_FOUND;
	}
	if (argc > 2) {
		fprintf(stderr, "atsctl: help takes at most 1 argument (try --help)\n");
		return CTL_EXIT_USAGE;
	}
	cmd = find_command(argv[1]);
	if (!cmd)
		return out_usage_err("command", argv[1], "unknown (try --help)");
	command_help(stdout, cmd);
	return CTL_EXIT_FOUND;
}

/* The hidden --list-commands: a command a line with the long options it
 * takes, "=" after those with an argument. The bash completion reads it
 * to stay in step with this table. */
static void list_commands(void)
{
	size_t i, k;

	for (i = 0; i < NCMDS; i++) {
		printf("%s", cmds[i].name);
		for (k = 0; k < NOPTS; k++)
			if (strchr(cmds[i].opts, cmd_optdefs[k].val))
				printf(" --%s%s", cmd_optdefs[k].name, cmd_optdefs[k].arg ? "=" : "");
		putchar('\n');
	}
}

/* The SM_Key: -k or --smkey-file (not both), else IBATS_SMKEY, else 0.
 * Errors name where the key came from, never the key. */
static int sm_key(const char *arg, const char *file, uint64_t *key)
{
	const char *env = getenv(SMKEY_ENV);
	char err[PATH_MAX + 128];
	int ret;

	if (arg && file)
		return out_usage_err("--smkey-file", file, "give -k or --smkey-file, not both");
	if (file) {
		ret = smkey_read_file(file, key, err, sizeof(err));
		if (ret)
			fprintf(stderr, "atsctl: --smkey-file %s\n", err);
		return ret ? CTL_EXIT_USAGE : 0;
	}
	if (arg && !strcmp(arg, "-")) {
		ret = smkey_read_stream(stdin, isatty(STDIN_FILENO), key);
		if (ret)
			fprintf(stderr, "atsctl: -k -: %s\n", ret == -EINVAL ?
				"not an SM_Key (decimal or 0x-hex, 64 bits)" :
				ret == -ENODATA ? "no line on standard input" : strerror(-ret));
		return ret ? CTL_EXIT_USAGE : 0;
	}
	if (arg) {
		/* The value typed is the key: not echoed in the error. */
		if (smkey_parse(arg, key)) {
			fprintf(stderr, "atsctl: --smkey: not a 64-bit key (decimal or 0x-hex)\n");
			return CTL_EXIT_USAGE;
		}
		return 0;
	}
	if (env && smkey_parse(env, key)) {
		fprintf(stderr, "atsctl: %s: not a 64-bit key (decimal or 0x-hex)\n", SMKEY_ENV);
		return CTL_EXIT_USAGE;
	}
	return 0;
}

/* One of atsctl's own options; *stop: exit now with the status returned
 * (-V, --help before a command, --list-commands). */
static int global_option(struct ctl *c, struct glob *g, int opt, const char *arg, int *stop)
{
	uint64_t v;

	switch (opt) {
	case 'C':
		c->ca = arg;
		break;
	case 'P':
		if (cfg_parse_u64(arg, 254, &v) || !v)
			return out_usage_err("--port", arg, "not a port number (1..254)");
		c->portnum = (int)v;
		break;
	case 'j':
		c->json = 1;
		break;
	case 't':
		if (cfg_parse_u64(arg, 600000, &v) || !v)
			return out_usage_err("--timeout", arg, "not a time in ms (1..600000)");
		c->sa_opts.timeout_ms = (unsigned)v;
		break;
	case 'r':
		if (cfg_parse_u64(arg, 100, &v))
			return out_usage_err("--retries", arg, "not a count (0..100)");
		c->sa_opts.retries = (unsigned)v;
		break;
	case 'k':
		g->key_arg = arg;
		break;
	case OPT_SMKEY_FILE:
		g->key_file = arg;
		break;
	case 'R':
		if (!strcmp(arg, "auto"))
			c->sa_opts.rmpp = SA_CLIENT_RMPP_AUTO;
		else if (!strcmp(arg, "on"))
			c->sa_opts.rmpp = SA_CLIENT_RMPP_ON;
		else if (!strcmp(arg, "off"))
			c->sa_opts.rmpp = SA_CLIENT_RMPP_OFF;
		else
			return out_usage_err("--rmpp", arg, "expected auto, on or off");
		break;
	case 'v':
		g->verbose++;
		break;
	case 'S':
		c->socket = arg;
		break;
	case 'n':
		c->no_agent = 1;
		break;
	case 'h':
		usage(stdout);
		*stop = 1;
		break;
	case 'V':
		printf("atsctl (ibats) %s\n", IBATS_VERSION);
		*stop = 1;
		break;
	case OPT_LIST_COMMANDS:
		list_commands();
		*stop = 1;
		break;
	}
	return 0;
}

/* After every option, wherever it stood: the SM_Key and the log level. */
static int globals_done(struct ctl *c, const struct glob *g)
{
	enum log_level level;
	int ret = sm_key(g->key_arg, g->key_file, &c->sa_opts.sm_key);

	if (ret)
		return ret;
	level = g->verbose >= 2 ? LOG_LVL_DEBUG : g->verbose ? LOG_LVL_INFO : LOG_LVL_WARN;
	log_init("atsctl", level);
	c->log_level = (int)level;
	return 0;
}

static int is_global(int opt)
{
	size_t i;

	for (i = 0; i < NGLOB; i++)
		if (glob_lopts[i].val == opt)
			return 1;
	return 0;
}

/* The option getopt_long returned last as the user typed it: "--lid",
 * not its argument "3" (argv[optind - 1] after "--lid 3"); "-x" for an
 * unknown letter of a cluster ("-xv": optind still at that word, or
 * before it). Valid right after the call (GNU getopt permutes at the
 * next one). */
static const char *opt_word(char **argv, int opt, char *buf, size_t len)
{
	const char *w = argv[optind - 1];

	/* optopt is a letter's, or a long option's given an argument it
	 * takes none of ("--json=1", that word). */
	if (opt == '?' && optopt && strncmp(w, "--", 2)) {
		snprintf(buf, len, "-%c", optopt);
		return buf;
	}
	if (opt == ':')
		return w;
	return optarg && optarg == w && optind >= 2 ? argv[optind - 2] : w;
}

static int run_command(struct ctl *c, struct glob *g, int argc, char **argv)
{
	const struct ctl_cmd *cmd;
	const char *gid_arg = NULL;
	struct option lopts[NOPTS + NGLOB + 2];
	char sopts[2 * NOPTS + sizeof(GLOB_SHORT) + 3], word[8];
	struct ctl_args a;
	size_t i, n;
	unsigned k;
	int opt, ret, stop = 0;

	if (!strcmp(argv[0], "help"))
		return help_command(argc, argv);
	cmd = find_command(argv[0]);
	if (!cmd)
		return out_usage_err("command", argv[0], "unknown (try --help)");
	memset(&a, 0, sizeof(a));
	a.pkey = ATS_PKEY_DEFAULT;
	a.lease = SR_LEASE_INFINITE;
	a.ping.count = 3;
	a.ping.interval_ms = 1000;
	a.ping.type = VMAD_LIV_ECHO_REQ;
	a.ping.size = 56;
	optind = 0; /* 0: GNU getopt reinitializes, permuting again */
	opterr = 0;
	/* One getopt_long pass over the command's words: its options and
	 * atsctl's own, json and help once (the command's). */
	cmd_getopt_tables(lopts, sopts);
	for (n = NOPTS + 1, i = 0; i < NGLOB; i++)
		if (glob_lopts[i].val != 'j' && glob_lopts[i].val != 'h')
			lopts[n++] = glob_lopts[i];
	lopts[n] = (struct option){ NULL, 0, NULL, 0 };
	strcat(sopts, GLOB_SHORT);
	while ((opt = getopt_long(argc, argv, sopts, lopts, NULL)) != -1) {
		if (opt == ':')
			return out_usage_err(cmd->name, opt_word(argv, opt, word, sizeof(word)),
					     "needs an argument");
		if (opt == 'h') {
			command_help(stdout, cmd);
			return CTL_EXIT_FOUND;
		}
		if (opt != '?' && is_global(opt)) {
			ret = global_option(c, g, opt, optarg, &stop);
			if (ret || stop)
				return ret;
			continue;
		}
		if (opt == '?' || !strchr(cmd->opts, opt))
			return out_usage_err(cmd->name, opt_word(argv, opt, word, sizeof(word)),
					     "option not valid for this command");
		ret = command_option(c, cmd, opt, optarg, &a, &gid_arg);
		if (ret)
			return ret;
	}
	if ((unsigned)(argc - optind) != cmd->nargs) {
		fprintf(stderr, "atsctl: %s takes %u argument%s (try --help)\n",
			cmd->name, cmd->nargs, cmd->nargs == 1 ? "" : "s");
		return CTL_EXIT_USAGE;
	}
	for (k = 0; k < cmd->nargs; k++)
		a.arg[k] = argv[optind + k];
	if (gid_arg && a.have_sid && (cmd->flags & CMD_GID_OR_SID))
		return out_usage_err(cmd->name, "--gid/--sid", "give one of them, not both");
	ret = globals_done(c, g);
	if (ret)
		return ret;
	if (cmd->check && (ret = cmd->check(a.arg[0])))
		return ret;
	if (cmd->flags & CMD_SA) {
		ret = ctl_open(c);
		if (ret)
			return ret;
		if (gid_arg) {
			if (ctl_parse_gid(c, gid_arg, a.gid))
				return out_usage_err("--gid", gid_arg, "not a GID or port GUID");
			a.have_gid = 1;
		}
	}
	return cmd->run(c, &a);
}

int main(int argc, char **argv)
{
	struct glob g = { NULL, NULL, 0 };
	char word[8];
	struct ctl c;
	int opt, ret, stop = 0;

	/* An agent that closes on us is an error to report, not a death. */
	signal(SIGPIPE, SIG_IGN);
	memset(&c, 0, sizeof(c));
	c.sa_opts.timeout_ms = SA_CLIENT_TIMEOUT_MS_DEFAULT;
	c.sa_opts.retries = SA_CLIENT_RETRIES_DEFAULT;
	c.socket = ATSD_PROTO_SOCKET_DEFAULT;
	opterr = 0;
	/* Up to the command ("+"): its words are run_command's. */
	while ((opt = getopt_long(argc, argv, "+:jh" GLOB_SHORT, glob_lopts, NULL)) != -1) {
		if (opt == '?' || opt == ':')
			return out_usage_err("option", opt_word(argv, opt, word, sizeof(word)),
					     opt == ':' ? "needs an argument" : "unknown (try --help)");
		ret = global_option(&c, &g, opt, optarg, &stop);
		if (ret || stop)
			return ret;
	}
	if (optind >= argc) {
		ret = globals_done(&c, &g);
		usage(stderr);
		return ret ? ret : CTL_EXIT_USAGE;
	}
	ret = run_command(&c, &g, argc - optind, argv + optind);
	ctl_close(&c);
	return ret;
}
