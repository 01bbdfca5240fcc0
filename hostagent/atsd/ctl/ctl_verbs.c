/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The control socket's requests (ctl_verbs.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "host/atsd_proto.h"
#include "ctl_auth.h"
#include "ctl_cm.h"
#include "ctl_lookup.h"
#include "ctl_prefetch.h"
#include "ctl_records.h"
#include "ctl_sock.h"
#include "ctl_verbs.h"
#include "core/ipoib.h"
#include "state/ipoib_groups.h"
#include "state/own_records.h"
#include "main/port_poll.h"
#include "core/sa.h"
#include "state/subs.h"

typedef void verb_fn(int slot, char **argv, int argc);

static struct {
	const struct agent_conf *conf;
	const struct sources *src;
} cv;

void ctl_verbs_init(const struct agent_conf *conf, const struct sources *src)
{
	cv.conf = conf;
	cv.src = src;
}

static void v_resolve(int slot, char **argv, int argc)
{
	enum ats_query_kind kind = !strcmp(argv[0], "resolve") ? ATS_QUERY_FORWARD :
		!strcmp(argv[0], "reverse") ? ATS_QUERY_REVERSE : ATS_QUERY_PRIMARY;

	ctl_lookup_request(slot, kind, argv[1], argc == 3 ? argv[2] : NULL);
}

void ctl_verbs_stats_collect(uint64_t v[ATSD_PROTO_STATS])
{
	struct ctl_lookup_stats ls;
	struct ctl_prefetch_stats ps;
	struct own_records_stats os;
	struct subs_stats ss;
	const struct mport_info *port;
	size_t nowned;
	int known;

	ctl_lookup_stats(&ls);
	own_records_stats(&os);
	subs_stats(&ss);
	own_records_list(&nowned);
	port = port_poll_info(&known);
	v[ATSD_PROTO_S_CACHE_HITS] = ls.cache_hits;
	v[ATSD_PROTO_S_CACHE_MISSES] = ls.cache_misses;
	v[ATSD_PROTO_S_NEGATIVE_HITS] = ls.negative_hits;
	v[ATSD_PROTO_S_COALESCED] = ls.coalesced;
	v[ATSD_PROTO_S_SA_LOOKUPS] = ls.sa_lookups;
	v[ATSD_PROTO_S_SA_QUERIES] = ls.sa_queries + os.sa_queries;
	v[ATSD_PROTO_S_SYNCS] = os.syncs;
	v[ATSD_PROTO_S_SYNC_FAILURES] = os.sync_failures;
	v[ATSD_PROTO_S_SETS] = os.sets;
	v[ATSD_PROTO_S_DELETES] = os.deletes;
	v[ATSD_PROTO_S_SM_CHANGES] = port_poll_sm_changes();
	v[ATSD_PROTO_S_RECORDS] = nowned;
	v[ATSD_PROTO_S_HOLDS] = sources_nholds(cv.src);
	v[ATSD_PROTO_S_CACHE_ENTRIES] = ls.cache_entries;
	v[ATSD_PROTO_S_LOCAL_ANSWERS] = ls.local_answers;
	v[ATSD_PROTO_S_SA_DEPTH] = cv.conf->sa_depth;
	v[ATSD_PROTO_S_SA_INFLIGHT] = ls.window.inflight;
	v[ATSD_PROTO_S_SA_INFLIGHT_MAX] = ls.window.inflight_max;
	v[ATSD_PROTO_S_SA_RESENT] = ls.window.resent;
	v[ATSD_PROTO_S_SA_TIMEOUTS] = ls.window.timeouts;
	ctl_prefetch_stats(&ps);
	v[ATSD_PROTO_S_PREFETCHES] = ps.tables;
	v[ATSD_PROTO_S_PREFETCH_RECORDS] = ps.records;
	v[ATSD_PROTO_S_CACHE_CLEARS] = ctl_lookup_clears();
	v[ATSD_PROTO_S_LID] = known ? port->lid : 0;
	v[ATSD_PROTO_S_SM_LID] = known ? port->sm_lid : 0;
	v[ATSD_PROTO_S_SUBSCRIBED] = (uint64_t)ss.active;
	v[ATSD_PROTO_S_SUBSCRIPTIONS] = ss.subscriptions;
	v[ATSD_PROTO_S_SUBSCRIPTION_FAILURES] = ss.failures;
	v[ATSD_PROTO_S_REPORTS] = ss.reports;
	v[ATSD_PROTO_S_REPORT_DUPLICATES] = ss.duplicates;
	v[ATSD_PROTO_S_REPORTS_REFUSED] = ss.refused;
	v[ATSD_PROTO_S_INVALIDATIONS] = ss.invalidations;
}

static void v_stats(int slot, char **argv, int argc)
{
	uint64_t v[ATSD_PROTO_STATS];
	char buf[2048];

	(void)argv;
	(void)argc;
	ctl_verbs_stats_collect(v);
	atsd_proto_stats_format(buf, sizeof(buf), v);
	ctl_sock_reply(slot, buf);
}

static void v_ipoib(int slot, char **argv, int argc)
{
	char buf[SAJ_PKEYS_MAX * 160 + 16];
	const struct saj_group *g;
	size_t i, n, used;

	(void)argv;
	(void)argc;
	g = ipoib_groups_list(&n);
	used = (size_t)atsd_proto_ok_format(buf, sizeof(buf), n);
	for (i = 0; i < n && used < sizeof(buf); i++) {
		struct atsd_proto_group_line l = {
			.pkey = g[i].err ? g[i].pkey : g[i].rec.pkey,
			.qkey = g[i].rec.qkey,
			.mlid = g[i].rec.mlid,
			.mtu = mcm_mtu_bytes(g[i].rec.mtu),
			.sl = g[i].rec.sl,
			.rate = g[i].rec.rate,
		};

		ipoib_bcast_mgid(g[i].pkey, l.mgid);
		l.state = g[i].manage ? "joined" : "member";
		if (!g[i].manage && g[i].err == -ENOENT)
			l.error = "not a member (the kernel's IPoIB driver joins it; ipoib_membership check)";
		else if (g[i].err)
			l.error = g[i].sa_status ? sa_status_str(g[i].sa_status) :
				  strerror(-g[i].err);
		used += (size_t)atsd_proto_group_format(buf + used, sizeof(buf) - used, &l);
	}
	ctl_sock_reply(slot, buf);
}

static verb_fn *const handlers[ATSD_PROTO_VERBS] = {
	[ATSD_PROTO_V_RESOLVE] = v_resolve,
	[ATSD_PROTO_V_REVERSE] = v_resolve,
	[ATSD_PROTO_V_PRIMARY] = v_resolve,
	[ATSD_PROTO_V_STATUS] = ctl_records_status,
	[ATSD_PROTO_V_STATS] = v_stats,
	[ATSD_PROTO_V_IPOIB] = v_ipoib,
	[ATSD_PROTO_V_CONNECTIONS] = ctl_cm_conns,
	[ATSD_PROTO_V_HOLD] = ctl_records_hold,
	[ATSD_PROTO_V_RELEASE] = ctl_records_hold,
	/* Answered when the full sync ends: a script looping on resync
	 * waits for each, and requests during one share the next. */
	[ATSD_PROTO_V_VERIFY] = ctl_records_resync,
	[ATSD_PROTO_V_CONNECT] = ctl_cm_connect,
	[ATSD_PROTO_V_DISCONNECT] = ctl_cm_conns,
	[ATSD_PROTO_V_HOLDS] = ctl_records_holds,
	[ATSD_PROTO_V_LID] = ctl_cm_lid,
};

void ctl_verbs_line(int slot, char *line)
{
	const struct atsd_proto_verb_def *v;
	char *argv[ATSD_PROTO_ARGS_MAX], *save = NULL, *tok;
	int argc = 0, i;

	for (tok = strtok_r(line, " \t\r", &save); tok && argc < ATSD_PROTO_ARGS_MAX;
	     tok = strtok_r(NULL, " \t\r", &save))
		argv[argc++] = tok;
	if (!argc) {
		ctl_sock_reply_err(slot, EINVAL, "empty request");
		return;
	}
	i = atsd_proto_verb_find(argv[0]);
	if (i < 0 || argc < atsd_proto_verbs[i].min || argc > atsd_proto_verbs[i].max) {
		ctl_sock_reply_err(slot, EINVAL, "unknown request '%.40s' or wrong arguments", argv[0]);
		return;
	}
	v = &atsd_proto_verbs[i];
	if (v->privileged && !ctl_sock_privileged(slot)) {
		struct ctl_auth_cred p = { ctl_sock_uid(slot), 0, ctl_sock_pid(slot) };

		ctl_auth_log_refusal(&p, v->name, cv.conf->control_group);
		ctl_sock_reply_err(slot, EPERM, "'%s' needs root%s%s", v->name,
				   cv.conf->control_group[0] ? " or group " : "",
				   cv.conf->control_group);
		return;
	}
	handlers[i](slot, argv, argc);
}
