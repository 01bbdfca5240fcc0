/* atsctl: register and look up ATS records from the command line. One
 * table names the commands, their arguments and options, whom they ask
 * (the SA, atsd, or libibats: atsd before the SA) and their handler, as
 * infiniband-diags' saquery does; usage and argument checks come from it. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ats.h"
#include "atsd_client.h"
#include "cfg.h"
#include "cmd_audit.h"
#include "cmd_lookup.h"
#include "cmd_ping.h"
#include "cmd_records.h"
#include "cmd_sm.h"
#include "cmd_verify.h"
#include "ctl.h"
#include "ctl_agent.h"
#include "log.h"
#include "output.h"

enum {
	CMD_SA = 1 << 0,          /* opens the port and SA client */
	CMD_ANY_SID = 1 << 1,     /* --sid may be outside the ATS SID block */
	CMD_GID_OR_SID = 1 << 2,  /* --gid and --sid exclude each other */
};

/* Long options without a short letter. */
enum { OPT_LIST_COMMANDS = 256 };

struct ctl_cmd {
	const char *name;
	const char *synopsis;  /* arguments and options, for usage */
	const char *help;      /* one line, or NULL */
	unsigned nargs;
	const char *opts;      /* option letters it takes (cmd_opts) */
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
		return EXIT_USAGE;
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
	{ "register", "IP [--primary] [--pkey P] [--lease S] [--gid GID] [--sid SID]", NULL,
	  1, "pKLgsj", CMD_SA | CMD_ANY_SID, check_unicast, cmd_register },
	{ "deregister", "IP [--pkey P] [--gid GID]", NULL,
	  1, "Kgj", CMD_SA, check_ip, cmd_deregister },
	{ "resolve", "IP [--pkey P]", "GIDs of an IP, primary holders first",
	  1, "Kj", 0, check_ip, cmd_resolve },
	{ "reverse", "GID [--pkey P]", "all IPs of a GID",
	  1, "Kj", 0, check_gid, cmd_reverse },
	{ "primary", "GID [--pkey P]", "the primary IP of a GID",
	  1, "Kj", 0, check_gid, cmd_primary },
	{ "dump", "[--gid GID | --sid SID] [--pkey P]", NULL,
	  0, "Kgsj", CMD_SA | CMD_GID_OR_SID, NULL, cmd_dump },
	{ "port", "", "the local port: LID, SM LID, GID",
	  0, "j", CMD_SA, NULL, cmd_port },
	{ "hold", "IP --owner NAME [--pkey P]", "keep IP registered (atsd)",
	  1, "Koj", 0, check_ip, cmd_hold },
	{ "release", "IP --owner NAME [--pkey P]", "drop that hold (atsd)",
	  1, "Koj", 0, check_ip, cmd_release },
	{ "status", "", "the records atsd keeps for this host",
	  0, "j", 0, NULL, cmd_status },
	{ "stats", "", "atsd's cache and SA counters",
	  0, "", 0, NULL, cmd_stats },
	{ "resync", "", "make atsd check its records against the SA now",
	  0, "", 0, NULL, cmd_resync },
	{ "ipoib", "", "atsd's IPoIB broadcast groups: Q_Key, MLID, MTU, SL",
	  0, "", 0, NULL, cmd_ipoib },
	{ "verify", "[--netns NS] [--pkey P]", "kernel IPoIB neighbours against ATS",
	  0, "NKj", CMD_SA, NULL, cmd_verify },
	{ "connect", "IP PORT [--service-id SID]", "CM connection by IP through atsd",
	  2, "Sj", 0, check_ip, cmd_connect },
	{ "connections", "", "atsd's CM connections",
	  0, "j", 0, NULL, cmd_connections },
	{ "disconnect", "ID", "DREQ/DREP one of them",
	  1, "", 0, check_conn_id, cmd_disconnect },
	{ "audit", "[--save FILE] [--inventory FILE] [--state FILE]",
	  "check every ATS record against the spec",
	  0, "wIXj", CMD_SA, NULL, cmd_audit },
	{ "ping", "TARGET [-c N] [-i SECONDS] [--type echo|timestamp|info] [--size BYTES]",
	  "liveness (vendor class 0x34) to a LID, GID or IP",
	  1, "ciTzKj", CMD_SA, NULL, cmd_ping },
	{ "sm", "[--lid LID]", "the SM plugin's view: role, replication, counters",
	  0, "lj", CMD_SA, NULL, cmd_sm },
	{ "why", "[--lid LID]", "why the SM refused this port's last requests",
	  0, "lj", CMD_SA, NULL, cmd_sm_why },
};

#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))

/* A command's line: its help at the first of two columns that leaves two
 * blanks, else on a line of its own. */
static void usage_command(FILE *f, const struct ctl_cmd *cmd)
{
	char line[128];
	int len = snprintf(line, sizeof(line), "%s%s%s", cmd->name,
			   *cmd->synopsis ? " " : "", cmd->synopsis);

	if (!cmd->help)
		fprintf(f, "  %s\n", line);
	else if (len <= 29)
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
"  -k, --smkey KEY      SM_Key for SA requests (default 0)\n"
"      --rmpp MODE      auto|on|off: trust GetTable for several records\n"
"  -S, --socket PATH    atsd's socket (default " ATSD_SOCKET_DEFAULT ")\n"
"  -n, --no-agent       ask the SA even when atsd runs\n"
"  -v, --verbose        more log output (repeat for debug)\n"
"  -h, --help\n"
"\n"
"resolve, reverse and primary go through atsd's cache when it runs.\n"
"GID: IPv6 notation (fe80::2c9:300:1:2) or a port GUID (0x2c903000102),\n"
"which takes the local port's subnet prefix. Exit status: 0 done, 1 nothing\n"
"found, 2 usage error, 3 SA, agent or transport error.\n",
		SA_TIMEOUT_MS_DEFAULT, SA_RETRIES_DEFAULT);
}

/* Bytes below 0x20 or 0x7f in s. */
static int has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 1;
	return 0;
}

/* One option of a command, checked; an exit status. */
static int command_option(struct ctl *c, const struct ctl_cmd *cmd, int opt,
			  const char *val, struct ctl_args *a, const char **gid_arg)
{
	uint64_t v;

	switch (opt) {
	case 'p':
		a->primary = 1;
		break;
	case 'K':
		if (ats_pkey_parse(val, &a->pkey))
			return out_usage_err("--pkey", val, "not a PKey (1..0xFFFF)");
		break;
	case 'L':
		if (cfg_parse_u64(val, 0xffffffff, &v))
			return out_usage_err("--lease", val, "not a lease in seconds (0..4294967295)");
		a->lease = (uint32_t)v;
		break;
	case 'g':
		*gid_arg = val;
		break;
	case 's':
		if (cfg_parse_hex64(val, &a->sid))
			return out_usage_err("--sid", val, "not a ServiceID (hex, 1..16 digits)");
		if (!(cmd->flags & CMD_ANY_SID) && !ats_sid_in_block(a->sid))
			return out_usage_err("--sid", val, "outside the ATS SID block 0x10000CE100415400..0x10000CE1004154FF");
		a->have_sid = 1;
		break;
	case 'j':
		c->json = 1;
		break;
	case 'c':
		if (cfg_parse_u64(val, 1000000, &v) || !v)
			return out_usage_err("--count", val, "not a count (1..1000000)");
		a->ping.count = (unsigned)v;
		break;
	case 'i': {
		char *end;
		double sec = strtod(val, &end);

		if (*end || end == val || sec < 0 || sec > 3600)
			return out_usage_err("--interval", val, "not seconds (0..3600)");
		a->ping.interval_ms = (unsigned)(sec * 1000);
		break;
	}
	case 'T':
		if (!strcmp(val, "echo"))
			a->ping.type = LIV_ECHO_REQ;
		else if (!strcmp(val, "timestamp"))
			a->ping.type = LIV_TS_REQ;
		else if (!strcmp(val, "info"))
			a->ping.type = LIV_INFO_REQ;
		else
			return out_usage_err("--type", val, "expected echo, timestamp or info");
		break;
	case 'z':
		if (cfg_parse_u64(val, LIV_ECHO_RMPP_MAX, &v))
			return out_usage_err("--size", val,
					     "not an echo size (0..8192 bytes; over 208 needs RMPP)");
		a->ping.size = (size_t)v;
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
	case 'l':
		if (cfg_parse_u64(val, 0xbfff, &v) || !v)
			return out_usage_err("--lid", val, "not a unicast LID (1..0xBFFF)");
		a->lid = (uint16_t)v;
		break;
	case 'S':
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

/* Every command's options; cmd->opts picks its own. */
static const struct option cmd_opts[] = {
	{ "primary", no_argument, NULL, 'p' },
	{ "pkey", required_argument, NULL, 'K' },
	{ "lease", required_argument, NULL, 'L' },
	{ "gid", required_argument, NULL, 'g' },
	{ "sid", required_argument, NULL, 's' },
	{ "json", no_argument, NULL, 'j' },
	{ "owner", required_argument, NULL, 'o' },
	{ "count", required_argument, NULL, 'c' },
	{ "interval", required_argument, NULL, 'i' },
	{ "type", required_argument, NULL, 'T' },
	{ "size", required_argument, NULL, 'z' },
	{ "save", required_argument, NULL, 'w' },
	{ "inventory", required_argument, NULL, 'I' },
	{ "state", required_argument, NULL, 'X' },
	{ "service-id", required_argument, NULL, 'S' },
	{ "netns", required_argument, NULL, 'N' },
	{ "lid", required_argument, NULL, 'l' },
	{ NULL, 0, NULL, 0 },
};

/* The hidden --list-commands: a command a line with the long options it
 * takes, "=" after those with an argument. The bash completion reads it
 * to stay in step with this table. */
static void list_commands(void)
{
	const struct option *o;
	size_t i;

	for (i = 0; i < NCMDS; i++) {
		printf("%s", cmds[i].name);
		for (o = cmd_opts; o->name; o++)
			if (strchr(cmds[i].opts, o->val))
				printf(" --%s%s", o->name, o->has_arg ? "=" : "");
		putchar('\n');
	}
}

static int run_command(struct ctl *c, int argc, char **argv)
{
	const struct ctl_cmd *cmd = NULL;
	const char *gid_arg = NULL;
	struct ctl_args a;
	unsigned k;
	size_t i;
	int opt, ret;

	for (i = 0; i < NCMDS && !cmd; i++)
		if (!strcmp(argv[0], cmds[i].name))
			cmd = &cmds[i];
	if (!cmd)
		return out_usage_err("command", argv[0], "unknown (try --help)");
	memset(&a, 0, sizeof(a));
	a.pkey = ATS_PKEY_DEFAULT;
	a.lease = SR_LEASE_INFINITE;
	a.ping.count = 3;
	a.ping.interval_ms = 1000;
	a.ping.type = LIV_ECHO_REQ;
	a.ping.size = 56;
	optind = 0; /* 0: GNU getopt reinitializes, permuting again */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "c:i:", cmd_opts, NULL)) != -1) {
		if (opt == '?' || !strchr(cmd->opts, opt))
			return out_usage_err(cmd->name, argv[optind - 1],
					     "option not valid for this command");
		ret = command_option(c, cmd, opt, optarg, &a, &gid_arg);
		if (ret)
			return ret;
	}
	if ((unsigned)(argc - optind) != cmd->nargs) {
		fprintf(stderr, "atsctl: %s takes %u argument%s (try --help)\n",
			cmd->name, cmd->nargs, cmd->nargs == 1 ? "" : "s");
		return EXIT_USAGE;
	}
	for (k = 0; k < cmd->nargs; k++)
		a.arg[k] = argv[optind + k];
	if (gid_arg && a.have_sid && (cmd->flags & CMD_GID_OR_SID))
		return out_usage_err(cmd->name, "--gid/--sid", "give one of them, not both");
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
	static const struct option opts[] = {
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
		{ "list-commands", no_argument, NULL, OPT_LIST_COMMANDS },
		{ NULL, 0, NULL, 0 },
	};
	enum log_level level;
	struct ctl c;
	int opt, verbose = 0, ret;
	uint64_t v;

	/* An agent that closes on us is an error to report, not a death. */
	signal(SIGPIPE, SIG_IGN);
	memset(&c, 0, sizeof(c));
	c.sa_opts.timeout_ms = SA_TIMEOUT_MS_DEFAULT;
	c.sa_opts.retries = SA_RETRIES_DEFAULT;
	c.socket = ATSD_SOCKET_DEFAULT;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+C:P:jt:r:k:vhS:n", opts, NULL)) != -1) {
		switch (opt) {
		case 'C':
			c.ca = optarg;
			break;
		case 'P':
			if (cfg_parse_u64(optarg, 254, &v) || !v)
				return out_usage_err("--port", optarg, "not a port number (1..254)");
			c.portnum = (int)v;
			break;
		case 'j':
			c.json = 1;
			break;
		case 't':
			if (cfg_parse_u64(optarg, 600000, &v) || !v)
				return out_usage_err("--timeout", optarg, "not a time in ms (1..600000)");
			c.sa_opts.timeout_ms = (unsigned)v;
			break;
		case 'r':
			if (cfg_parse_u64(optarg, 100, &v))
				return out_usage_err("--retries", optarg, "not a count (0..100)");
			c.sa_opts.retries = (unsigned)v;
			break;
		case 'k':
			if (cfg_parse_u64(optarg, UINT64_MAX, &c.sa_opts.sm_key))
				return out_usage_err("--smkey", optarg, "not a 64-bit key");
			break;
		case 'R':
			if (!strcmp(optarg, "auto"))
				c.sa_opts.rmpp = SA_RMPP_AUTO;
			else if (!strcmp(optarg, "on"))
				c.sa_opts.rmpp = SA_RMPP_ON;
			else if (!strcmp(optarg, "off"))
				c.sa_opts.rmpp = SA_RMPP_OFF;
			else
				return out_usage_err("--rmpp", optarg, "expected auto, on or off");
			break;
		case 'v':
			verbose++;
			break;
		case 'S':
			c.socket = optarg;
			break;
		case 'n':
			c.no_agent = 1;
			break;
		case 'h':
			usage(stdout);
			return EXIT_FOUND;
		case OPT_LIST_COMMANDS:
			list_commands();
			return EXIT_FOUND;
		default:
			return out_usage_err("option", argv[optind - 1], "unknown (try --help)");
		}
	}
	level = verbose >= 2 ? LOG_LVL_DEBUG : verbose ? LOG_LVL_INFO : LOG_LVL_WARN;
	log_init("atsctl", level);
	c.log_level = (int)level;
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	ret = run_command(&c, argc - optind, argv + optind);
	ctl_close(&c);
	return ret;
}
