/* atsctl: register and look up ATS records from the command line. */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ats.h"
#include "ats_query.h"
#include "atsd_client.h"
#include "cfg.h"
#include "ctl.h"
#include "json.h"
#include "log.h"
#include "cmd_verify.h"

static void usage(FILE *f)
{
	fprintf(f,
"Usage: atsctl [OPTIONS] COMMAND [ARGS]\n"
"\n"
"Commands:\n"
"  register IP [--primary] [--pkey P] [--lease S] [--gid GID] [--sid SID]\n"
"  deregister IP [--pkey P] [--gid GID]\n"
"  resolve IP [--pkey P]          GIDs of an IP, primary holders first\n"
"  reverse GID [--pkey P]         all IPs of a GID\n"
"  primary GID [--pkey P]         the primary IP of a GID\n"
"  dump [--gid GID | --sid SID] [--pkey P]\n"
"  port                           the local port: LID, SM LID, GID\n"
"  hold IP --owner NAME [--pkey P]     keep IP registered (atsd)\n"
"  release IP --owner NAME [--pkey P]  drop that hold (atsd)\n"
"  status                         the records atsd keeps for this host\n"
"  stats                          atsd's cache and SA counters\n"
"  resync                         make atsd check its records against the SA now\n"
"  ipoib                          atsd's IPoIB broadcast groups: Q_Key, MLID, MTU, SL\n"
"  verify [--netns NS] [--pkey P]      kernel IPoIB neighbours against ATS\n"
"  connect IP PORT [--service-id SID]  CM connection by IP through atsd\n"
"  connections                    atsd's CM connections\n"
"  disconnect ID                  DREQ/DREP one of them\n"
"  audit [--save FILE] [--inventory FILE] [--state FILE]\n"
"                                 check every ATS record against the spec\n"
"  ping TARGET [-c N] [-i SECONDS] [--type echo|timestamp|info] [--size BYTES]\n"
"                                 liveness (vendor class 0x34) to a LID, GID or IP\n"
"\n"
"Options:\n"
"  -C, --ca NAME        CA to use (default: first with an active port)\n"
"  -P, --port N         CA port (default: first active)\n"
"  -j, --json           print one JSON document\n"
"  -t, --timeout MS     SA timeout per attempt (default %d)\n"
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

int usage_err(const char *what, const char *arg, const char *why)
{
	fprintf(stderr, "atsctl: %s '%s': %s\n", what, arg, why);
	return EXIT_USAGE;
}

static int ctl_open(struct ctl *c)
{
	int ret = mport_open(&c->port, c->ca, c->portnum);

	if (ret) {
		fprintf(stderr, "atsctl: cannot open CA %s port %d: %s\n",
			c->ca ? c->ca : "(default)", c->portnum, strerror(-ret));
		return EXIT_SA;
	}
	ret = sa_client_init(&c->sa, c->port, &c->sa_opts);
	if (ret) {
		fprintf(stderr, "atsctl: cannot register SA agent: %s\n",
			strerror(-ret));
		return EXIT_SA;
	}
	return 0;
}

static int parse_gid(struct ctl *c, const char *s, uint8_t *gid)
{
	uint64_t guid;
	int i;

	if (!ats_gid_parse(s, gid))
		return 0;
	if (cfg_parse_hex64(s, &guid))
		return -EINVAL;
	/* A bare GUID needs the subnet prefix of the local port. */
	if (!c->sa && ctl_open(c))
		return -ENODEV;
	memcpy(gid, sa_client_port(c->sa)->gid, 8);
	for (i = 0; i < 8; i++)
		gid[8 + i] = (uint8_t)(guid >> (56 - 8 * i));
	return 0;
}

/* An SA error in words: what the SA said, or why it said nothing. */
static int sa_fail(struct ctl *c, const char *what, int err)
{
	uint16_t st = c->sa ? sa_client_last_status(c->sa) : 0;

	if (st)
		fprintf(stderr, "atsctl: %s: SA status 0x%04x: %s\n", what, st,
			sa_status_str(st));
	else if (err == -ETIMEDOUT)
		fprintf(stderr, "atsctl: %s: no answer from the SA (SM LID %u) after %u attempt(s) of %u ms\n",
			what, sa_client_port(c->sa)->sm_lid, c->sa_opts.retries + 1,
			c->sa_opts.timeout_ms ? c->sa_opts.timeout_ms : SA_TIMEOUT_MS_DEFAULT);
	else if (err == -ENETDOWN)
		fprintf(stderr, "atsctl: %s: port is not active or has no SM\n", what);
	else
		fprintf(stderr, "atsctl: %s: %s\n", what, strerror(-err));
	return err == -ENOENT ? EXIT_NOTFOUND : EXIT_SA;
}

static void print_lease(char *buf, size_t len, uint32_t lease)
{
	if (lease == SR_LEASE_INFINITE)
		snprintf(buf, len, "infinite");
	else
		snprintf(buf, len, "%" PRIu32, lease);
}

void print_records(struct ctl *c, const struct sr_record *r, size_t n)
{
	char gid[ATS_IP_STRLEN], ip[ATS_IP_STRLEN], lease[16];
	struct json j;
	size_t i;

	if (c->json) {
		json_init(&j, stdout, 0);
		json_obj(&j, NULL);
		json_arr(&j, "records");
		for (i = 0; i < n; i++) {
			json_obj(&j, NULL);
			json_hex64(&j, "sid", r[i].id);
			json_str(&j, "gid", ats_gid_format(r[i].gid, gid, sizeof(gid)));
			json_hex16(&j, "pkey", r[i].pkey);
			json_u64(&j, "lease", r[i].lease);
			json_str(&j, "ip", ats_data8_str(r[i].data8, ip, sizeof(ip)));
			json_bool(&j, "primary", r[i].id == ATS_SID_PRIMARY);
			json_end(&j);
		}
		json_end(&j);
		/* Records of GIDs not on the fabric may be missing. */
		if (c->partial)
			json_bool(&j, "partial", 1);
		json_end(&j);
		json_fini(&j);
		return;
	}
	if (!n)
		return;
	printf("%-18s  %-26s  %-6s  %-10s  %s\n", "SID", "GID", "PKEY",
	       "LEASE", "IP");
	for (i = 0; i < n; i++) {
		print_lease(lease, sizeof(lease), r[i].lease);
		printf("0x%016" PRIx64 "  %-26s  0x%04x  %-10s  %s%s\n", r[i].id,
		       ats_gid_format(r[i].gid, gid, sizeof(gid)), r[i].pkey,
		       lease, ats_data8_str(r[i].data8, ip, sizeof(ip)),
		       r[i].id == ATS_SID_PRIMARY ? " (primary)" : "");
	}
}

static int print_set(struct ctl *c, struct ats_set *s, const char *what)
{
	int ret = s->n ? EXIT_FOUND : EXIT_NOTFOUND;

	c->partial = s->by_port;
	print_records(c, s->recs, s->n);
	if (s->by_port && !c->json)
		fprintf(stderr, "atsctl: %s: without RMPP, SIDs held by several GIDs were read "
			"port by port: records of GIDs not on the fabric can be missing "
			"(audit --state lists them)\n", what);
	if (!s->n && !c->json)
		fprintf(stderr, "atsctl: %s: no ATS record\n", what);
	log_info("%s: %zu record(s) in %u SA request(s)%s", what, s->n,
		 s->queries, s->walked ? " (SubnAdmGet walk, no RMPP)" : "");
	ats_set_free(s);
	return ret;
}

static int local_gid(struct ctl *c)
{
	if (c->have_gid)
		return 0;
	memcpy(c->gid, sa_client_port(c->sa)->gid, 16);
	return 0;
}

static int cmd_register(struct ctl *c, const char *arg)
{
	struct ats_ip ip;
	const char *why;
	char buf[80];
	uint64_t sid = 0;
	int ret;

	if (ats_ip_parse(arg, &ip))
		return usage_err("IP", arg, "not an IPv4 or IPv6 address");
	if (ats_ip_check_unicast(&ip, &why))
		return usage_err("IP", arg, why);
	local_gid(c);
	if (c->have_sid) {
		struct sr_record r;

		ats_record_init(&r, c->sid, c->gid, c->pkey, c->lease, &ip);
		sid = c->sid;
		ret = sa_sr_set(c->sa, &r,
				ats_reg_mask(c->lease), NULL);
	} else {
		ret = ats_register(c->sa, c->gid, c->pkey, c->lease, &ip,
				   c->primary, &sid);
	}
	snprintf(buf, sizeof(buf), "register %s", arg);
	if (ret == -ENOSPC) {
		fprintf(stderr, "atsctl: %s: all 256 ATS SIDs of this GID are in use\n", buf);
		return EXIT_SA;
	}
	if (ret)
		return sa_fail(c, buf, ret);
	if (c->json) {
		char gid[ATS_IP_STRLEN], ips[ATS_IP_STRLEN];
		struct json j;

		json_init(&j, stdout, 0);
		json_obj(&j, NULL);
		json_obj(&j, "registered");
		json_hex64(&j, "sid", sid);
		json_str(&j, "gid", ats_gid_format(c->gid, gid, sizeof(gid)));
		json_hex16(&j, "pkey", c->pkey);
		json_str(&j, "ip", ats_ip_format(&ip, ips, sizeof(ips)));
		json_end(&j);
		json_end(&j);
		json_fini(&j);
	} else {
		printf("registered %s on SID 0x%016" PRIx64 "%s\n", arg, sid,
		       sid == ATS_SID_PRIMARY ? " (primary)" : "");
	}
	return EXIT_FOUND;
}

static int cmd_deregister(struct ctl *c, const char *arg)
{
	struct ats_ip ip;
	unsigned n = 0;
	char buf[80];
	int ret;

	if (ats_ip_parse(arg, &ip))
		return usage_err("IP", arg, "not an IPv4 or IPv6 address");
	local_gid(c);
	snprintf(buf, sizeof(buf), "deregister %s", arg);
	ret = ats_deregister(c->sa, c->gid, c->pkey, &ip, &n);
	if (ret == -ENOENT) {
		fprintf(stderr, "atsctl: %s: this GID has no record of that address\n", buf);
		return EXIT_NOTFOUND;
	}
	if (ret)
		return sa_fail(c, buf, ret);
	if (c->json) {
		struct json j;

		json_init(&j, stdout, 0);
		json_obj(&j, NULL);
		json_u64(&j, "deregistered", n);
		json_end(&j);
		json_fini(&j);
	} else
		printf("deregistered %s (%u record%s)\n", arg, n, n == 1 ? "" : "s");
	return EXIT_FOUND;
}

static int cmd_lookup(struct ctl *c, const char *cmd, const char *arg)
{
	struct ats_set s;
	struct sr_record r;
	char what[96];
	int ret;

	snprintf(what, sizeof(what), "%s%s%s", cmd, arg ? " " : "", arg ? arg : "");
	if (!strcmp(cmd, "resolve")) {
		struct ats_ip ip;

		if (ats_ip_parse(arg, &ip))
			return usage_err("IP", arg, "not an IPv4 or IPv6 address");
		ret = ats_forward(c->sa, &ip, c->pkey, &s);
	} else if (!strcmp(cmd, "dump")) {
		if (c->have_gid)
			ret = ats_reverse(c->sa, c->gid, c->pkey, &s);
		else if (c->have_sid)
			ret = ats_by_sid(c->sa, c->sid, c->pkey, &s);
		else
			ret = ats_all(c->sa, c->pkey, &s);
		if (!ret && !c->json && !s.n) {
			ats_set_free(&s);
			printf("no ATS records\n");
			return EXIT_NOTFOUND;
		}
	} else {
		uint8_t gid[16];

		if (parse_gid(c, arg, gid))
			return usage_err("GID", arg, "not a GID or port GUID");
		if (!strcmp(cmd, "reverse")) {
			ret = ats_reverse(c->sa, gid, c->pkey, &s);
		} else {
			ret = ats_primary(c->sa, gid, c->pkey, &r);
			if (ret == -ENOENT) {
				if (c->json)
					print_records(c, NULL, 0);
				fprintf(stderr, "atsctl: %s: GID has no primary ATS record\n", what);
				return EXIT_NOTFOUND;
			}
			if (ret)
				return sa_fail(c, what, ret);
			print_records(c, &r, 1);
			return EXIT_FOUND;
		}
	}
	if (ret)
		return sa_fail(c, what, ret);
	return print_set(c, &s, what);
}

static int cmd_port(struct ctl *c)
{
	const struct mport_info *i = sa_client_port(c->sa);
	char gid[ATS_IP_STRLEN];

	ats_gid_format(i->gid, gid, sizeof(gid));
	if (c->json) {
		struct json j;

		json_init(&j, stdout, 0);
		json_obj(&j, NULL);
		json_str(&j, "ca", i->ca);
		json_i64(&j, "port", i->portnum);
		json_u64(&j, "lid", i->lid);
		json_u64(&j, "sm_lid", i->sm_lid);
		json_i64(&j, "state", i->state);
		json_str(&j, "gid", gid);
		json_hex64(&j, "port_guid", i->port_guid);
		json_end(&j);
		json_fini(&j);
	} else
		printf("CA %s port %d: LID %u, SM LID %u, state %d, GID %s, port GUID 0x%016" PRIx64 "\n",
		       i->ca, i->portnum, i->lid, i->sm_lid, i->state, gid,
		       i->port_guid);
	return EXIT_FOUND;
}

/* Reject a malformed argument before any MAD is sent. */
static int check_arg(const char *cmd, const char *arg)
{
	struct ats_ip ip;
	uint8_t gid[16];
	uint64_t guid;
	const char *why;

	if (!arg || !strcmp(cmd, "ping"))
		return 0;
	if (!strcmp(cmd, "disconnect")) {
		if (cfg_parse_u64(arg, UINT32_MAX, &guid))
			return usage_err("connection ID", arg, "not a number from atsctl connections");
		return 0;
	}
	if (!strcmp(cmd, "reverse") || !strcmp(cmd, "primary")) {
		if (ats_gid_parse(arg, gid) && cfg_parse_hex64(arg, &guid))
			return usage_err("GID", arg, "not a GID or port GUID");
		return 0;
	}
	if (ats_ip_parse(arg, &ip))
		return usage_err("IP", arg, "not an IPv4 or IPv6 address");
	if (!strcmp(cmd, "register") && ats_ip_check_unicast(&ip, &why))
		return usage_err("IP", arg, why);
	return 0;
}

/* TARGET: a decimal LID, an IPv4 address, or IPv6 text: the holder of
 * that address by ATS if there is one, else the GID itself. */
static int cmd_ping(struct ctl *c, const char *arg)
{
	struct ping_target t;
	struct ats_ip ip;
	uint8_t gid[16];
	uint64_t v;
	int ret, have_gid = 0;

	memset(&t, 0, sizeof(t));
	snprintf(t.label, sizeof(t.label), "%s", arg);
	if (strspn(arg, "0123456789") == strlen(arg)) {
		if (cfg_parse_u64(arg, 0xBFFF, &v) || !v)
			return usage_err("LID", arg, "not a unicast LID (1..49151)");
		t.lid = (uint16_t)v;
		return ping_run(c->port, &t, &c->ping);
	}
	if (!ats_ip_parse(arg, &ip)) {
		struct ats_set s;

		ret = ats_forward(c->sa, &ip, c->pkey, &s);
		if (ret && ret != -ENOENT)
			return sa_fail(c, "ping: resolve", ret);
		if (!ret && s.n) {
			memcpy(gid, s.recs[0].gid, 16);
			have_gid = 1;
		}
		ats_set_free(&s);
		if (!have_gid && ip.family == AF_INET) {
			fprintf(stderr, "atsctl: ping %s: no ATS record of that address\n", arg);
			return EXIT_NOTFOUND;
		}
	}
	if (!have_gid && ats_gid_parse(arg, gid))
		return usage_err("TARGET", arg, "not a LID, GID or IP address");
	{
		struct sa_path_info pi;

		ret = sa_path(c->sa, gid, &pi);
		if (ret)
			return sa_fail(c, "ping: path to the target", ret);
		t.lid = pi.dlid;
	}
	return ping_run(c->port, &t, &c->ping);
}

static int run_command(struct ctl *c, int argc, char **argv)
{
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
		{ NULL, 0, NULL, 0 },
	};
	static const struct {
		const char *name;
		int nargs;
		const char *allowed; /* option letters */
	} cmds[] = {
		{ "register", 1, "pKLgsj" },
		{ "deregister", 1, "Kgj" },
		{ "resolve", 1, "Kj" },
		{ "reverse", 1, "Kj" },
		{ "primary", 1, "Kj" },
		{ "dump", 0, "Kgsj" },
		{ "port", 0, "j" },
		{ "hold", 1, "Koj" },
		{ "release", 1, "Koj" },
		{ "status", 0, "j" },
		{ "stats", 0, "" },
		{ "resync", 0, "" },
		{ "ping", 1, "ciTzKj" },
		{ "audit", 0, "wIXj" },
		{ "ipoib", 0, "" },
		{ "connect", 2, "Sj" },
		{ "connections", 0, "j" },
		{ "disconnect", 1, "" },
		{ "verify", 0, "NKj" },
	};
	const char *cmd = argv[0], *gid_arg = NULL;
	uint64_t v;
	size_t i;
	int opt, ret;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(cmd, cmds[i].name))
			break;
	if (i == sizeof(cmds) / sizeof(cmds[0]))
		return usage_err("command", cmd, "unknown (try --help)");
	optind = 0; /* 0: GNU getopt reinitializes, permuting again */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "c:i:", cmd_opts, NULL)) != -1) {
		const char *a = argv[optind - 1];

		if (opt == '?' || !strchr(cmds[i].allowed, opt))
			return usage_err(cmd, a, "option not valid for this command");
		switch (opt) {
		case 'p':
			c->primary = 1;
			break;
		case 'K':
			if (cfg_parse_u64(optarg, 0xffff, &v) || !(v & 0x7fff))
				return usage_err("--pkey", optarg, "not a PKey (1..0xFFFF)");
			c->pkey = (uint16_t)v;
			break;
		case 'L':
			if (cfg_parse_u64(optarg, 0xffffffff, &v))
				return usage_err("--lease", optarg, "not a lease in seconds (0..4294967295)");
			c->lease = (uint32_t)v;
			break;
		case 'g':
			gid_arg = optarg;
			break;
		case 's':
			if (cfg_parse_hex64(optarg, &c->sid))
				return usage_err("--sid", optarg, "not a ServiceID (hex, 1..16 digits)");
			if (strcmp(cmd, "register") && !ats_sid_in_block(c->sid))
				return usage_err("--sid", optarg, "outside the ATS SID block 0x10000CE100415400..0x10000CE1004154FF");
			c->have_sid = 1;
			break;
		case 'j':
			c->json = 1;
			break;
		case 'c':
			if (cfg_parse_u64(optarg, 1000000, &v) || !v)
				return usage_err("--count", optarg, "not a count (1..1000000)");
			c->ping.count = (unsigned)v;
			break;
		case 'i': {
			char *end;
			double sec = strtod(optarg, &end);

			if (*end || end == optarg || sec < 0 || sec > 3600)
				return usage_err("--interval", optarg, "not seconds (0..3600)");
			c->ping.interval_ms = (unsigned)(sec * 1000);
			break;
		}
		case 'T':
			if (!strcmp(optarg, "echo"))
				c->ping.type = LIV_ECHO_REQ;
			else if (!strcmp(optarg, "timestamp"))
				c->ping.type = LIV_TS_REQ;
			else if (!strcmp(optarg, "info"))
				c->ping.type = LIV_INFO_REQ;
			else
				return usage_err("--type", optarg, "expected echo, timestamp or info");
			break;
		case 'z':
			if (cfg_parse_u64(optarg, LIV_ECHO_RMPP_MAX, &v))
				return usage_err("--size", optarg,
						 "not an echo size (0..8192 bytes; over 208 needs RMPP)");
			c->ping.size = (size_t)v;
			break;
		case 'w':
			c->audit.save = optarg;
			break;
		case 'I':
			c->audit.inventory = optarg;
			break;
		case 'X':
			c->audit.state = optarg;
			break;
		case 'N':
			c->netns = optarg;
			break;
		case 'S':
			if (cfg_parse_hex64(optarg, &v))
				return usage_err("--service-id", optarg, "not a service ID (hex, 1..16 digits)");
			/* atsd gets one spelling, whatever the user typed. */
			snprintf(c->cm_sid_buf, sizeof(c->cm_sid_buf), "0x%016" PRIx64, v);
			c->cm_sid = c->cm_sid_buf;
			break;
		case 'o':
			if (!*optarg || strpbrk(optarg, " \t") || strlen(optarg) > 63 ||
			    ctl_has_control(optarg))
				return usage_err("--owner", optarg,
						 "not a name (1..63 characters, no blanks or control bytes)");
			c->owner = optarg;
			break;
		}
	}
	if (argc - optind != cmds[i].nargs) {
		fprintf(stderr, "atsctl: %s takes %d argument%s (try --help)\n",
			cmd, cmds[i].nargs, cmds[i].nargs == 1 ? "" : "s");
		return EXIT_USAGE;
	}
	if (gid_arg && c->have_sid && !strcmp(cmd, "dump"))
		return usage_err("dump", "--gid/--sid", "give one of them, not both");
	ret = check_arg(cmd, cmds[i].nargs ? argv[optind] : NULL);
	if (ret)
		return ret;
	if (!strcmp(cmd, "hold") || !strcmp(cmd, "release") ||
	    !strcmp(cmd, "status") || !strcmp(cmd, "stats") || !strcmp(cmd, "resync") ||
	    !strcmp(cmd, "ipoib") || !strcmp(cmd, "connect") ||
	    !strcmp(cmd, "connections") || !strcmp(cmd, "disconnect")) {
		if (!strcmp(cmd, "connect"))
			c->cm_port = argv[optind + 1];
		return cmd_agent(c, cmd, cmds[i].nargs ? argv[optind] : NULL);
	}
	if (!c->no_agent && (!strcmp(cmd, "resolve") ||
			     ((!strcmp(cmd, "reverse") || !strcmp(cmd, "primary")) &&
			      !ats_gid_parse(argv[optind], c->gid)))) {
		char req[ATSD_LINE_MAX];

		snprintf(req, sizeof(req), "%s %s 0x%04x", cmd, argv[optind], c->pkey);
		/* A busy, stuck or vanished agent: ask the SA ourselves. */
		c->agent_fallback = 1;
		ret = agent_call(c, req, 1);
		c->agent_fallback = 0;
		if (ret != NO_AGENT)
			return ret;
	}
	ret = ctl_open(c);
	if (ret)
		return ret;
	if (gid_arg) {
		if (parse_gid(c, gid_arg, c->gid))
			return usage_err("--gid", gid_arg, "not a GID or port GUID");
		c->have_gid = 1;
	}
	if (!strcmp(cmd, "port"))
		return cmd_port(c);
	if (!strcmp(cmd, "verify"))
		return verify_cmd(c->sa, c->netns, c->pkey, c->json);
	if (!strcmp(cmd, "audit")) {
		c->audit.json = c->json;
		return cmd_audit(c->sa, &c->audit);
	}
	if (!strcmp(cmd, "ping")) {
		c->ping.json = c->json;
		c->ping.timeout_ms = c->sa_opts.timeout_ms;
		return cmd_ping(c, argv[optind]);
	}
	if (!strcmp(cmd, "register"))
		return cmd_register(c, argv[optind]);
	if (!strcmp(cmd, "deregister"))
		return cmd_deregister(c, argv[optind]);
	return cmd_lookup(c, cmd, cmds[i].nargs ? argv[optind] : NULL);
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
		{ NULL, 0, NULL, 0 },
	};
	struct ctl c;
	int opt, verbose = 0, ret;
	uint64_t v;

	/* An agent that closes on us is an error to report, not a death. */
	signal(SIGPIPE, SIG_IGN);
	memset(&c, 0, sizeof(c));
	c.pkey = ATS_PKEY_DEFAULT;
	c.lease = SR_LEASE_INFINITE;
	c.sa_opts.timeout_ms = SA_TIMEOUT_MS_DEFAULT;
	c.sa_opts.retries = SA_RETRIES_DEFAULT;
	c.socket = ATSD_SOCKET_DEFAULT;
	c.ping.count = 3;
	c.ping.interval_ms = 1000;
	c.ping.type = LIV_ECHO_REQ;
	c.ping.size = 56;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+C:P:jt:r:k:vhS:n", opts, NULL)) != -1) {
		switch (opt) {
		case 'C':
			c.ca = optarg;
			break;
		case 'P':
			if (cfg_parse_u64(optarg, 254, &v) || !v)
				return usage_err("--port", optarg, "not a port number (1..254)");
			c.portnum = (int)v;
			break;
		case 'j':
			c.json = 1;
			break;
		case 't':
			if (cfg_parse_u64(optarg, 600000, &v) || !v)
				return usage_err("--timeout", optarg, "not a time in ms (1..600000)");
			c.sa_opts.timeout_ms = (unsigned)v;
			break;
		case 'r':
			if (cfg_parse_u64(optarg, 100, &v))
				return usage_err("--retries", optarg, "not a count (0..100)");
			c.sa_opts.retries = (unsigned)v;
			break;
		case 'k':
			if (cfg_parse_u64(optarg, UINT64_MAX, &c.sa_opts.sm_key))
				return usage_err("--smkey", optarg, "not a 64-bit key");
			break;
		case 'R':
			if (!strcmp(optarg, "auto"))
				c.sa_opts.rmpp = SA_RMPP_AUTO;
			else if (!strcmp(optarg, "on"))
				c.sa_opts.rmpp = SA_RMPP_ON;
			else if (!strcmp(optarg, "off"))
				c.sa_opts.rmpp = SA_RMPP_OFF;
			else
				return usage_err("--rmpp", optarg, "expected auto, on or off");
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
		default:
			return usage_err("option", argv[optind - 1], "unknown (try --help)");
		}
	}
	log_init("atsctl", verbose >= 2 ? LOG_LVL_DEBUG :
		 verbose ? LOG_LVL_INFO : LOG_LVL_WARN);
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	ret = run_command(&c, argc - optind, argv + optind);
	if (c.sa)
		sa_client_fini(c.sa);
	mport_close(c.port);
	return ret;
}
