/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* atsctl's lookups (resolve, reverse, primary) through libibats, as any
 * application makes them: atsd's cache when it runs, the SA otherwise.
 * ibats_lookup_info(3) tells who answered, so the output and exit status
 * are those atsctl(8) documents for each path. */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include "core/ats.h"
#include "core/cfg.h"
#include "cmd_lookup.h"
#include "cmd_whois.h"
#include "ctl.h"
#include "ibats/ibats.h"
#include "host/ibsys.h"
#include "core/log.h"
#include "out.h"
#include "core/wire.h"

/* no_agent: the SA alone answers (-n). */
static int lib_open(struct ctl *c, int no_agent)
{
	struct ibats_opts o = { 0 };
	struct sockaddr_un sun;
	int ret;

	/* No atsd listens on a path longer than sun_path: ask the SA, as
	 * atsctl does when atsd is not there to ask. */
	no_agent |= c->no_agent;
	if (!no_agent && strlen(c->socket) >= sizeof(sun.sun_path)) {
		log_warn("atsd at %s: %s: asking the SA", c->socket, strerror(EINVAL));
		no_agent = 1;
	}
	if (!no_agent)
		o.socket_path = c->socket;
	o.ca = c->ca;
	o.port = c->portnum;
	o.sa_timeout_ms = c->sa_opts.timeout_ms;
	/* The library reads 0 as its default and a negative count as none. */
	o.sa_retries = c->sa_opts.retries ? (int)c->sa_opts.retries : -1;
	o.sm_key = c->sa_opts.sm_key;
	o.flags = (no_agent ? IBATS_NO_AGENT : 0) |
		  (c->sa_opts.rmpp == SA_CLIENT_RMPP_ON ? IBATS_RMPP_ON : 0) |
		  (c->sa_opts.rmpp == SA_CLIENT_RMPP_OFF ? IBATS_RMPP_OFF : 0);
	ret = ibats_open(&c->ats, &o);
	/* The library's diagnostics under atsctl's name, at its -v level. */
	if (!ret)
		ret = ibats_set_log("atsctl", c->log_level);
	if (ret) {
		fprintf(stderr, "atsctl: libibats: %s\n", strerror(-ret));
		return CTL_EXIT_SA;
	}
	return 0;
}

/* A GID, or a port GUID under the local port's subnet prefix (from
 * sysfs: a user's lookup by GUID goes to atsd like any other). */
static int parse_gid(struct ctl *c, const char *s, uint8_t *gid)
{
	uint64_t guid;
	int ret;

	if (!ats_gid_parse(s, gid))
		return 0;
	if (cfg_parse_hex64(s, &guid))
		return out_usage_err("GID", s, "not a GID or port GUID");
	ret = ibats_port_gid(c->ats, gid);
	if (ret) {
		fprintf(stderr, "atsctl: %s: no subnet prefix for the port GUID: CA %s port %d: %s\n",
			s, c->ca ? c->ca : "(default)", c->portnum, strerror(-ret));
		return CTL_EXIT_SA;
	}
	wire_put64(gid + 8, guid);
	return 0;
}

/* The public records in the project's model, for out.c. */
static struct sr_record *to_sr(const struct ibats_record *recs, size_t n)
{
	struct sr_record *r = calloc(n ? n : 1, sizeof(*r));
	size_t i;

	for (i = 0; r && i < n; i++) {
		struct ats_ip ip = { .family = recs[i].addr.ss_family };
		struct sockaddr_in6 s6;
		struct sockaddr_in s4;

		if (ip.family == AF_INET) {
			memcpy(&s4, &recs[i].addr, sizeof(s4));
			memcpy(ip.addr, &s4.sin_addr, 4);
		} else if (ip.family == AF_INET6) {
			memcpy(&s6, &recs[i].addr, sizeof(s6));
			memcpy(ip.addr, &s6.sin6_addr, 16);
		}
		r[i].id = recs[i].sid;
		memcpy(r[i].gid, recs[i].gid, 16);
		r[i].pkey = recs[i].pkey;
		r[i].lease = recs[i].lease;
		/* No address stays the all-zero field, printed "-". */
		if (ip.family == AF_INET || ip.family == AF_INET6)
			ats_ip_encode(&ip, r[i].data8);
	}
	return r;
}

static int print_records(const struct ctl *c, int partial, int local,
			 const struct ibats_record *recs, size_t n)
{
	struct sr_record *r = to_sr(recs, n);

	int ret = CTL_EXIT_FOUND;

	if (!r) {
		fprintf(stderr, "atsctl: %s\n", strerror(ENOMEM));
		return CTL_EXIT_SA;
	}
	if (c->names)
		ret = cmd_whois_records(c, partial, local, r, n);
	else
		out_records(c->json, partial, local, r, n);
	free(r);
	return ret;
}

/* atsd answered: its records, or its ERR line in words. */
static int agent_answer(const struct ctl *c, const char *arg, const char *req, int ret,
			const struct ibats_info *in, const struct ibats_record *recs, size_t n)
{
	char safe[4 * sizeof(in->agent_msg) + 1];

	log_info("%s: answered by atsd (%s)", req, c->socket);
	if (!ret && (in->flags & IBATS_INFO_LOCAL) && !c->json)
		fprintf(stderr, "atsctl: %s: the SA does not answer: atsd's own records "
			"(local, ATS 5.1)\n", req);
	if (!ret)
		return print_records(c, 0, !!(in->flags & IBATS_INFO_LOCAL), recs, n);
	if (ret == -EPROTO && in->agent_msg[0]) {
		fprintf(stderr, "atsctl: atsd sent a bad record line '%s'\n",
			out_clean(in->agent_msg, safe, sizeof(safe)));
		return CTL_EXIT_SA;
	}
	if (ret == -ENOENT && c->json)
		out_records(1, 0, 0, NULL, 0);
	if (ret == -ENOENT)
		return out_not_found(arg, in->agent_msg[0] ?
				     out_clean(in->agent_msg, safe, sizeof(safe)) : NULL);
	if (in->agent_msg[0])
		fprintf(stderr, "atsctl: %s: %s\n", req,
			out_clean(in->agent_msg, safe, sizeof(safe)));
	else
		fprintf(stderr, "atsctl: %s: %s\n", req, strerror(-ret));
	return ibats_exit_code(ret);
}

/* The SA path failed before or while asking. */
static int sa_fail(const struct ctl *c, const char *what, int ret, const struct ibats_info *in)
{
	char why[160];

	/* Lookups are every user's through atsd; the SA itself only
	 * through the umad device, root's on distributions. */
	if (in->sa_failed == IBATS_SA_PORT && ret == -EACCES) {
		if (ibsys_umad_denied(c->ca, c->portnum, why, sizeof(why)) != -EACCES)
			snprintf(why, sizeof(why), "%s", strerror(-ret));
		if (c->no_agent)
			fprintf(stderr, "atsctl: %s: cannot ask the SA: %s: run as root, "
				"or ask atsd (without -n)\n", what, why);
		else
			fprintf(stderr, "atsctl: %s: atsd at %s: %s; cannot ask the SA: %s: "
				"run as root or start atsd\n", what, c->socket,
				strerror(in->agent_err ? -in->agent_err : ECONNREFUSED), why);
		return CTL_EXIT_SA;
	}
	if (in->sa_failed == IBATS_SA_PORT) {
		fprintf(stderr, "atsctl: cannot open CA %s port %d: %s\n",
			c->ca ? c->ca : "(default)", c->portnum, strerror(-ret));
		return CTL_EXIT_SA;
	}
	if (in->sa_failed == IBATS_SA_AGENT) {
		fprintf(stderr, "atsctl: cannot register SA agent: %s\n", strerror(-ret));
		return CTL_EXIT_SA;
	}
	return out_sa_err(c, what, ret, in->sa_status, in->sm_lid);
}

/* One lookup's outcome, printed as atsctl(8) says. */
static int report(const struct ctl *c, const char *cmd, const char *arg, uint16_t pkey,
		  int ret, const struct ibats_record *recs, size_t n)
{
	struct ibats_info in;
	char what[96], req[160], safe[4 * sizeof(in.agent_msg) + 1];
	int is_primary = !strcmp(cmd, "primary");

	snprintf(what, sizeof(what), "%s %s", cmd, arg);
	snprintf(req, sizeof(req), "%s %s 0x%04x", cmd, arg, pkey);
	if (ibats_lookup_info(c->ats, &in)) {
		fprintf(stderr, "atsctl: %s: %s\n", what, strerror(-ret));
		return ibats_exit_code(ret);
	}
	/* A busy, stuck or vanished agent: the library asked the SA. */
	if (in.source == IBATS_BY_SA && in.agent_err && in.agent_err != -ENOENT &&
	    in.agent_err != -ECONNREFUSED && in.agent_err != -ENOTDIR)
		log_warn("atsd at %s: %s: asking the SA", c->socket,
			 in.agent_err == -EBUSY && in.agent_msg[0] ?
			 out_clean(in.agent_msg, safe, sizeof(safe)) : strerror(-in.agent_err));
	if (in.source == IBATS_BY_AGENT)
		return agent_answer(c, arg, req, ret, &in, recs, n);
	if (ret && ret != -ENOENT)
		return sa_fail(c, what, ret, &in);
	log_info("%s: %zu record(s) in %u SA request(s)%s", what, is_primary ? (size_t)!ret : n,
		 in.sa_queries, in.sa_walked ? " (SubnAdmGet walk, no RMPP)" : "");
	if (is_primary) {
		if (!ret)
			return print_records(c, 0, 0, recs, 1);
		if (c->json)
			out_records(1, 0, 0, NULL, 0);
		return out_not_found(arg, "no primary ATS record");
	}
	ret = print_records(c, in.partial, 0, recs, ret ? 0 : n);
	if (ret)
		return ret;
	if (in.partial && !c->json)
		fprintf(stderr, "atsctl: %s: without RMPP, SIDs held by several GIDs were read "
			"port by port: records of GIDs not on the fabric can be missing "
			"(audit --state lists them)\n", what);
	if (!n && !c->json)
		out_not_found(arg, "no ATS record");
	return n ? CTL_EXIT_FOUND : CTL_EXIT_NOTFOUND;
}

int cmd_lookup_resolve(struct ctl *c, const struct ctl_args *a)
{
	struct ibats_record *recs = NULL;
	size_t n = 0;
	int ret = lib_open(c, 0);

	/* --names: NodeRecords come from the SA, whoever answers the lookup. */
	if (!ret && c->names)
		ret = ctl_open(c);
	if (ret)
		return ret;
	ret = ibats_resolve(c->ats, a->arg[0], a->pkey, &recs, &n);
	ret = report(c, "resolve", a->arg[0], a->pkey, ret, recs, n);
	ibats_records_free(recs);
	return ret;
}

int cmd_lookup_reverse(struct ctl *c, const struct ctl_args *a)
{
	struct ibats_record *recs = NULL;
	uint8_t gid[16];
	size_t n = 0;
	int ret = lib_open(c, 0);

	if (ret || (ret = parse_gid(c, a->arg[0], gid)))
		return ret;
	ret = ibats_reverse(c->ats, gid, a->pkey, &recs, &n);
	ret = report(c, "reverse", a->arg[0], a->pkey, ret, recs, n);
	ibats_records_free(recs);
	return ret;
}

int cmd_lookup_primary(struct ctl *c, const struct ctl_args *a)
{
	struct ibats_record rec;
	uint8_t gid[16];
	int ret = lib_open(c, 0);

	if (ret || (ret = parse_gid(c, a->arg[0], gid)))
		return ret;
	ret = ibats_primary(c->ats, gid, a->pkey, &rec);
	return report(c, "primary", a->arg[0], a->pkey, ret, &rec, ret ? 0 : 1);
}
