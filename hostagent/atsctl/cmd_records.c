/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* atsctl's commands on ATS records, through lib/host/ats_query (the
 * lookups go through libibats, cmd_lookup.c). Their arguments come
 * checked by atsctl.c's command table: an IP parses. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/ats.h"
#include "host/ats_query.h"
#include "host/ibsys.h"
#include "cmd_records.h"
#include "cmd_whois.h"
#include "cmd_sm.h"
#include "ctl.h"
#include "core/json.h"
#include "core/log.h"
#include "out.h"

static int print_set(const struct ctl *c, struct ats_query_set *s, const char *what)
{
	int ret = s->n ? CTL_EXIT_FOUND : CTL_EXIT_NOTFOUND;

	if (c->names) {
		int err = cmd_whois_records(c, s->by_port, 0, s->recs, s->n);

		if (err) {
			ats_query_set_free(s);
			return err;
		}
	} else
		out_records(c->json, s->by_port, 0, s->recs, s->n);
	if (s->by_port && !c->json)
		fprintf(stderr, "atsctl: %s: without RMPP, SIDs held by several GIDs were read "
			"port by port: records of GIDs not on the fabric can be missing "
			"(audit --state lists them)\n", what);
	if (!s->n && !c->json)
		out_not_found(what, "no ATS record");
	log_info("%s: %zu record(s) in %u SA request(s)%s", what, s->n,
		 s->queries, s->walked ? " (SubnAdmGet walk, no RMPP)" : "");
	ats_query_set_free(s);
	return ret;
}

/* --gid, or the local port's. */
static const uint8_t *own_gid(const struct ctl *c, const struct ctl_args *a)
{
	return a->have_gid ? a->gid : sa_client_port(c->sa)->gid;
}

int cmd_records_register(struct ctl *c, const struct ctl_args *a)
{
	const uint8_t *gid = own_gid(c, a);
	const char *arg = a->arg[0];
	struct ats_ip ip;
	char buf[80];
	uint64_t sid = 0;
	int ret;

	ats_ip_parse(arg, &ip);
	if (a->have_sid) {
		struct sr_record r;

		ats_record_init(&r, a->sid, gid, a->pkey, a->lease, &ip);
		sid = a->sid;
		ret = sa_client_sr_set(c->sa, &r, ats_reg_mask(a->lease), NULL);
	} else {
		ret = ats_query_register(c->sa, gid, a->pkey, a->lease, &ip, a->primary, &sid);
	}
	snprintf(buf, sizeof(buf), "register %s", arg);
	if (ret == -ENOSPC) {
		fprintf(stderr, "atsctl: %s: all 256 ATS SIDs of this GID are in use\n", buf);
		return CTL_EXIT_SA;
	}
	if (ret) {
		ret = out_sa_fail(c, buf, ret);
		if (sa_client_last_status(c->sa))
			cmd_sm_explain(c, buf, SA_METHOD_SET, gid, a->pkey, &ip);
		return ret;
	}
	if (c->json) {
		char gs[ATS_IP_STRLEN], ips[ATS_IP_STRLEN];
		struct json j;

		json_init(&j, stdout, 0);
		json_obj(&j, NULL);
		json_obj(&j, "registered");
		json_hex64(&j, "sid", sid);
		json_str(&j, "gid", ats_gid_format(gid, gs, sizeof(gs)));
		json_hex16(&j, "pkey", a->pkey);
		json_str(&j, "ip", ats_ip_format(&ip, ips, sizeof(ips)));
		json_end(&j);
		json_end(&j);
		json_fini(&j);
	} else {
		printf("registered %s on SID 0x%016" PRIx64 "%s\n", arg, sid,
		       sid == ATS_SID_PRIMARY ? " (primary)" : "");
	}
	return CTL_EXIT_FOUND;
}

int cmd_records_deregister(struct ctl *c, const struct ctl_args *a)
{
	const char *arg = a->arg[0];
	struct ats_ip ip;
	unsigned n = 0;
	char buf[80];
	int ret;

	ats_ip_parse(arg, &ip);
	snprintf(buf, sizeof(buf), "deregister %s", arg);
	ret = ats_query_deregister(c->sa, own_gid(c, a), a->pkey, &ip, &n);
	if (ret == -ENOENT)
		return out_not_found(arg, "this GID has no record of that address");
	if (ret) {
		ret = out_sa_fail(c, buf, ret);
		if (sa_client_last_status(c->sa))
			cmd_sm_explain(c, buf, SA_METHOD_DELETE, own_gid(c, a), a->pkey, &ip);
		return ret;
	}
	if (c->json) {
		struct json j;

		json_init(&j, stdout, 0);
		json_obj(&j, NULL);
		json_u64(&j, "deregistered", n);
		json_end(&j);
		json_fini(&j);
	} else
		printf("deregistered %s (%u record%s)\n", arg, n, n == 1 ? "" : "s");
	return CTL_EXIT_FOUND;
}

int cmd_records_dump(struct ctl *c, const struct ctl_args *a)
{
	struct ats_query_set s;
	int ret;

	if (a->have_gid)
		ret = ats_query_reverse(c->sa, a->gid, a->pkey, &s);
	else if (a->have_sid)
		ret = ats_query_by_sid(c->sa, a->sid, a->pkey, &s);
	else
		ret = ats_query_all(c->sa, a->pkey, &s);
	if (ret)
		return out_sa_fail(c, "dump", ret);
	if (!c->json && !s.n) {
		ats_query_set_free(&s);
		return out_not_found("dump", "no ATS records");
	}
	return print_set(c, &s, "dump");
}

int cmd_records_port(struct ctl *c, const struct ctl_args *a)
{
	const struct mport_info *i = sa_client_port(c->sa);
	char gid[ATS_IP_STRLEN];

	(void)a;
	ats_gid_format(i->gid, gid, sizeof(gid));
	if (c->json) {
		struct json j;

		json_init(&j, stdout, 0);
		json_obj(&j, NULL);
		json_str(&j, "ca", i->ca);
		json_i64(&j, "port", i->portnum);
		json_u64(&j, "lid", i->lid);
		json_u64(&j, "sm_lid", i->sm_lid);
		json_str(&j, "state", ibsys_state_name(i->state));
		json_i64(&j, "state_num", i->state);
		json_str(&j, "gid", gid);
		json_hex64(&j, "port_guid", i->port_guid);
		json_end(&j);
		json_fini(&j);
	} else
		printf("CA %s port %d: LID %u, SM LID %u, state %s, GID %s, port GUID 0x%016" PRIx64 "\n",
		       i->ca, i->portnum, i->lid, i->sm_lid, ibsys_state_name(i->state), gid,
		       i->port_guid);
	return CTL_EXIT_FOUND;
}
