/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* atsctl sm, atsctl why and the reason of a refusal (see cmd_sm.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cmd_sm.h"
#include "cmd_whois.h"
#include "ctl.h"
#include "core/json.h"
#include "core/log.h"
#include "out.h"
#include "core/sa.h"
#include "host/node_map.h"
#include "host/smq_client.h"
#include "core/wire.h"

#define MAX_REFUSALS 8 /* what the plugin keeps per port (plugin/refhist.h) */
#define NAME_LEN (NR_DESC_LEN + 1)

/* Node names for the GIDs and GUIDs sm and why print, asked of the SA
 * only when --node-name-map names a map (whois names them the same). */
struct names {
	struct node_map *map;
	int on;
};

static int names_open(const struct ctl *c, struct names *n)
{
	n->on = c->node_name_map != NULL;
	return n->on ? cmd_whois_map(c, &n->map) : (n->map = NULL, 0);
}

/* port_guid's node name in buf, or NULL (no map given, no such port). */
static const char *names_port(const struct ctl *c, const struct names *n, uint64_t port_guid,
			      char *buf, size_t len)
{
	return n->on ? cmd_whois_port_name(c, n->map, port_guid, buf, len) : NULL;
}

/* The client for the SM at --lid, else the port's SM. */
static int open_sm(struct ctl *c, const struct ctl_args *a, struct smq_client *q)
{
	uint16_t lid = a && a->lid ? a->lid : sa_client_port(c->sa)->sm_lid;

	q->lid = lid;
	return smq_client_init(q, c->port, lid, c->sa_opts.timeout_ms ? c->sa_opts.timeout_ms :
			       SA_CLIENT_TIMEOUT_MS_DEFAULT, c->sa_opts.retries);
}

static const char *err_str(int err)
{
	switch (err) {
	case -EBUSY:
		return "the SM is busy (it answers a port a few queries per 10 s); try again later";
	case -EPROTONOSUPPORT:
		return "the SM does not serve the ibats SM query (vendor class 0x36): "
		       "no libosmats plugin, or an older one";
	case -ETIMEDOUT:
		return "no answer from the SM";
	case -ENETDOWN:
		return "port is not active or has no SM";
	default:
		return strerror(-err);
	}
}

static int fail(const char *what, uint16_t lid, int err)
{
	fprintf(stderr, "atsctl: %s: SM LID %u: %s\n", what, lid, err_str(err));
	return CTL_EXIT_SA;
}

/* The newest of the port's first max refusals that is this request's. */
static int find(struct smq_client *q, size_t max, uint8_t method, const uint8_t *gid,
		uint16_t pkey, const uint8_t *data8, struct smq_refusal *out, size_t *n)
{
	struct smq_refusal v[MAX_REFUSALS];
	const struct smq_refusal *r;
	int ret = smq_client_refusals(q, v, max, n);

	if (ret)
		return ret;
	/* A Delete names the record by SID, GID and P_Key, not by address. */
	r = smq_client_match(v, *n, method, gid, pkey, method == SA_METHOD_SET ? data8 : NULL);
	if (!r)
		return -ENOENT;
	*out = *r;
	return 0;
}

void cmd_sm_explain(struct ctl *c, const char *what, uint8_t method, const uint8_t *gid,
		    uint16_t pkey, const struct ats_ip *ip)
{
	struct smq_refusal r;
	struct smq_client q;
	struct sr_record rec;
	char why[320];
	size_t n = 0;
	int ret;

	ats_record_init(&rec, ATS_SID_PRIMARY, gid, pkey, 0, ip);
	ret = open_sm(c, NULL, &q);
	/* The newest page first (each page counts against the SM's rate
	 * limit): the refusal just answered is on it unless others came
	 * since; the rest only when the page was full. */
	if (!ret)
		ret = find(&q, SMQ_REFUSALS_PER_MAD, method, gid, pkey, rec.data8, &r, &n);
	if (ret == -ENOENT && n == SMQ_REFUSALS_PER_MAD)
		ret = find(&q, MAX_REFUSALS, method, gid, pkey, rec.data8, &r, &n);
	if (ret == -ENOENT)
		log_info("%s: the SM keeps no refusal of it (not one of the plugin's rules)", what);
	else if (ret)
		log_info("%s: cannot ask the SM why: %s", what, err_str(ret));
	else
		fprintf(stderr, "atsctl: %s: refused by the SM: %s\n", what,
			smq_refusal_str(&r, why, sizeof(why)));
}

static const char *method_name(uint8_t m)
{
	return m == SA_METHOD_DELETE ? "Delete" : m == SA_METHOD_SET ? "Set" : "?";
}

static void why_json(uint16_t lid, const struct smq_refusal *v, size_t n,
		     char (*owners)[NAME_LEN], int named)
{
	char ip[ATS_IP_STRLEN], gid[ATS_IP_STRLEN], why[320];
	struct json j;
	size_t i;

	json_init(&j, stdout, 0);
	json_obj(&j, NULL);
	json_u64(&j, "sm_lid", lid);
	json_arr(&j, "refusals");
	for (i = 0; i < n; i++) {
		const struct smq_refusal *r = &v[i];

		json_obj(&j, NULL);
		json_u64(&j, "age_s", r->age_s);
		json_str(&j, "method", method_name(r->method));
		json_str(&j, "rule", r->name);
		json_fmt(&j, "code", "%04X", r->code);
		json_str(&j, "ip", ats_data8_str(r->data8, ip, sizeof(ip)));
		json_hex16(&j, "pkey", r->pkey);
		json_hex64(&j, "sid", r->sid);
		json_str(&j, "gid", ats_gid_format(r->gid, gid, sizeof(gid)));
		json_hex16(&j, "status", r->status);
		if (r->flags & SMQ_OWNER_SHOWN) {
			json_str(&j, "owner", ats_gid_format(r->owner, gid, sizeof(gid)));
			/* null: a map was given, the SA knows no such port */
			if (named && owners[i][0])
				json_str(&j, "owner_node", owners[i]);
			else if (named)
				json_null(&j, "owner_node");
		}
		json_bool(&j, "owner_withheld", !!(r->flags & SMQ_OWNER_WITHHELD));
		json_str(&j, "reason", smq_refusal_str(r, why, sizeof(why)));
		json_end(&j);
	}
	json_end(&j);
	json_end(&j);
	json_fini(&j);
}

/* The owners' node names (empty: none, or not shown). */
static void why_owners(const struct ctl *c, const struct names *nm, const struct smq_refusal *v,
		       size_t n, char (*owners)[NAME_LEN])
{
	size_t i;

	for (i = 0; i < n; i++) {
		owners[i][0] = '\0';
		/* The GID's interface ID is its port GUID (IBTA Vol 1 4.1.1). */
		if (v[i].flags & SMQ_OWNER_SHOWN)
			names_port(c, nm, wire_get64(v[i].owner + 8), owners[i], NAME_LEN);
	}
}

int cmd_sm_why(struct ctl *c, const struct ctl_args *a)
{
	struct smq_refusal v[MAX_REFUSALS];
	char ip[ATS_IP_STRLEN], why[320], owners[MAX_REFUSALS][NAME_LEN], safe[4 * NAME_LEN];
	struct smq_client q;
	struct names nm;
	size_t n = 0, i;
	int ret = names_open(c, &nm);

	if (ret)
		return ret;
	ret = open_sm(c, a, &q);
	if (!ret)
		ret = smq_client_refusals(&q, v, MAX_REFUSALS, &n);
	if (ret) {
		node_map_free(nm.map);
		return fail("why", q.lid, ret);
	}
	why_owners(c, &nm, v, n, owners);
	node_map_free(nm.map);
	if (c->json) {
		why_json(q.lid, v, n, owners, nm.on);
		return n ? CTL_EXIT_FOUND : CTL_EXIT_NOTFOUND;
	}
	if (!n) {
		printf("the SM (LID %u) keeps no refusal of this port's requests\n", q.lid);
		return CTL_EXIT_NOTFOUND;
	}
	for (i = 0; i < n; i++)
		printf("%" PRIu32 " s ago: %s %s SID 0x%016" PRIx64 " P_Key 0x%04x: SA status "
		       "0x%04x: %s%s%s%s\n", v[i].age_s, method_name(v[i].method),
		       ats_data8_str(v[i].data8, ip, sizeof(ip)), v[i].sid, v[i].pkey,
		       v[i].status, smq_refusal_str(&v[i], why, sizeof(why)),
		       owners[i][0] ? " (owner: node " : "",
		       owners[i][0] ? out_clean(owners[i], safe, sizeof(safe)) : "",
		       owners[i][0] ? ")" : "");
	return CTL_EXIT_FOUND;
}

/* The master's standbys: sb NULL when its plugin does not list them;
 * names NULL without a node map, else each one's node ("" unknown). */
static void standbys_json(struct json *j, const struct smq_standbys *sb,
			  char (*names)[NAME_LEN])
{
	size_t i;

	if (!sb)
		return;
	json_arr(j, "standbys");
	for (i = 0; i < sb->n; i++) {
		json_obj(j, NULL);
		json_hex64(j, "guid", sb->s[i].guid);
		if (names && names[i][0])
			json_str(j, "node", names[i]);
		else if (names)
			json_null(j, "node");
		json_u64(j, "acked", sb->s[i].acked);
		json_u64(j, "behind", sb->s[i].behind);
		json_bool(j, "in_sync", sb->s[i].in_sync);
		json_u64(j, "last_seen_ms", sb->s[i].seen_ms);
		json_end(j);
	}
	json_end(j);
}

static void standbys_text(const struct smq_standbys *sb, char (*names)[NAME_LEN])
{
	char seen[32], safe[4 * NAME_LEN];
	size_t i;

	if (!sb) {
		printf("standbys: not listed by this SM's plugin (an older one)\n");
		return;
	}
	/* The node last: a name may hold blanks. */
	printf("%-18s %10s %-7s %s\n", "standby", "behind", "in sync",
	       names ? "last seen         node" : "last seen");
	for (i = 0; i < sb->n; i++) {
		snprintf(seen, sizeof(seen), "%" PRIu32 " ms ago", sb->s[i].seen_ms);
		printf("0x%016" PRIx64 " %10" PRIu64 " %-7s %-*s%s%s\n", sb->s[i].guid,
		       sb->s[i].behind, sb->s[i].in_sync ? "yes" : "no", names ? 17 : 0, seen,
		       names ? " " : "",
		       !names ? "" : names[i][0] ? out_clean(names[i], safe, sizeof(safe)) : "-");
	}
}

/* What a monitoring script asks of `atsctl sm`: healthy (exit 0), or
 * CTL_EXIT_UNHEALTHY with the reason on standard error and in --json's
 * "verdict" when the key given was not taken (it saw the public part
 * only), when replication was asked for but is off (ERR 7A48), when
 * a master has no standby in sync, or when a standby is not. */
struct sm_verdict {
	const char *problem;    /* NULL healthy, else a word for scripts */
	const char *why;
};

static struct sm_verdict verdict(const struct ctl *c, const struct smq_info *in)
{
	struct sm_verdict v = { NULL, NULL };

	if (c->sa_opts.sm_key && !(in->flags & SMQ_INFO_TRUSTED)) {
		v.problem = "key-not-taken";
		/* The SM never trusts OpenSM's default, even when it is the
		 * site's (WRN 7A26): say so rather than "wrong". */
		v.why = c->sa_opts.sm_key == 1 ?
			"the key given is OpenSM's default sa_key 1, which earns no trust "
			"(WRN 7A26: set a site sa_key in opensm.conf): public part only" :
			"the key given is not the site sa_key: public part only";
	} else if (in->role == SMQ_ROLE_ERROR) {
		v.problem = "replication-off";
		v.why = "replication is off: the plugin refused its replication_key_file "
			"(ERR 7A48 in opensm.log)";
	} else if ((in->flags & SMQ_INFO_TRUSTED) && in->role == SMQ_ROLE_MASTER &&
		   !in->standbys_in_sync) {
		v.problem = "no-standby-in-sync";
		v.why = "no standby SM is in sync";
	} else if ((in->flags & SMQ_INFO_TRUSTED) && in->role == SMQ_ROLE_STANDBY &&
		   !in->in_sync) {
		/* Asked of a standby (--lid): its copy would not take over whole. */
		v.problem = "standby-not-in-sync";
		v.why = "this standby SM is not in sync with its master";
	}
	return v;
}

/* "verdict": {"healthy", "problem" (a word, or null), "why"}. */
static void verdict_json(struct json *j, const struct sm_verdict *v)
{
	json_obj(j, "verdict");
	json_bool(j, "healthy", !v->problem);
	if (v->problem) {
		json_str(j, "problem", v->problem);
		json_str(j, "why", v->why);
	} else {
		json_null(j, "problem");
		json_null(j, "why");
	}
	json_end(j);
}

static const char *sm_state_name(uint8_t s)
{
	static const char *const states[] = { "not-active", "discovering", "standby", "master" };

	return s < 4 ? states[s] : "unknown";
}

static void sm_json(uint16_t lid, const struct smq_info *in, const struct smq_standbys *sb,
		    char (*names)[NAME_LEN], const struct sm_verdict *v)
{
	int trusted = in->flags & SMQ_INFO_TRUSTED;
	struct json j;
	size_t i;

	json_init(&j, stdout, 0);
	json_obj(&j, NULL);
	json_u64(&j, "sm_lid", lid);
	json_bool(&j, "trusted", trusted);
	json_fmt(&j, "plugin", "osmats %s", in->version);
	json_str(&j, "version", in->version);
	json_str(&j, "opensm", in->opensm);
	/* The name, as the text says it; the number (SMInfo:SMState) for
	 * scripts written before. */
	json_str(&j, "sm_state", sm_state_name(in->sm_state));
	json_u64(&j, "sm_state_value", in->sm_state);
	json_obj(&j, "services");
	json_u64(&j, "ats", in->ats);
	json_u64(&j, "other", in->other);
	json_end(&j);
	json_obj(&j, "replication");
	json_str(&j, "role", smq_role_name(in->role));
	if (trusted) {
		json_hex64(&j, "epoch", in->epoch);
		json_u64(&j, "head", in->head);
		json_u64(&j, "applied", in->applied);
		json_bool(&j, "in_sync", in->in_sync);
		json_u64(&j, "standbys_in_sync", in->standbys_in_sync);
		json_u64(&j, "lag_ms", in->lag_ms);
		if (in->role == SMQ_ROLE_STANDBY)
			json_u64(&j, "copy_records", in->copy);
		standbys_json(&j, sb, names);
	}
	json_end(&j);
	if (trusted) {
		json_u64(&j, "absent", in->absent);
		json_obj(&j, "counters");
		json_u64(&j, "accepted", in->accepted);
		json_obj(&j, "rejected");
		for (i = 0; i < in->nrules; i++)
			json_u64(&j, in->rules[i].name, in->rules[i].rejected);
		json_end(&j);
		json_obj(&j, "warned");
		for (i = 0; i < in->nrules; i++)
			json_u64(&j, in->rules[i].name, in->rules[i].warned);
		json_end(&j);
		json_u64(&j, "clamped", in->clamped);
		json_u64(&j, "flushed", in->flushed);
		json_end(&j);
	}
	verdict_json(&j, v);
	json_end(&j);
	json_fini(&j);
}

static void sm_text(uint16_t lid, const struct smq_info *in, const struct smq_standbys *sb,
		    char (*names)[NAME_LEN])
{
	int trusted = in->flags & SMQ_INFO_TRUSTED;
	size_t i;

	printf("SM LID %u: %s, plugin osmats %s, SM state %s, replication %s\n", lid, in->opensm,
	       in->version, sm_state_name(in->sm_state), smq_role_name(in->role));
	/* A standby's SA holds none: the master's are in its copy until a
	 * takeover installs them. */
	if (in->role != SMQ_ROLE_STANDBY)
		printf("records: %" PRIu64 " ATS, %" PRIu64 " other\n", in->ats, in->other);
	else if (trusted)
		printf("records: %" PRIu64 " ATS, %" PRIu64 " other in its SA; %" PRIu64
		       " ServiceRecords in its copy of the master's\n", in->ats, in->other,
		       in->copy);
	else
		printf("records: %" PRIu64 " ATS, %" PRIu64 " other in its SA; its copy of the "
		       "master's shown with the key\n", in->ats, in->other);
	if (!trusted) {
		printf("(public part only: trusted_guids or the site sa_key, -k, show "
		       "replication and counters)\n");
		return;
	}
	printf("ATS records of absent ports: %" PRIu64 "\n", in->absent);
	if (in->role == SMQ_ROLE_MASTER) {
		printf("replication: epoch 0x%016" PRIx64 ", head %" PRIu64 ", standbys in sync %"
		       PRIu32 "\n", in->epoch, in->head, in->standbys_in_sync);
		standbys_text(sb, names);
	} else if (in->role == SMQ_ROLE_STANDBY)
		printf("replication: epoch 0x%016" PRIx64 ", applied %" PRIu64 " of %" PRIu64
		       ", %s, lag %" PRIu64 " ms\n", in->epoch, in->applied, in->head,
		       in->in_sync ? "in sync" : "not in sync", in->lag_ms);
	printf("accepted %" PRIu64 ", clamped %" PRIu64 ", flushed %" PRIu64 "\n", in->accepted,
	       in->clamped, in->flushed);
	printf("%-20s %-5s %10s %10s\n", "rule", "code", "rejected", "warned");
	for (i = 0; i < in->nrules; i++)
		printf("%-20s %04X  %10" PRIu64 " %10" PRIu64 "\n", in->rules[i].name,
		       in->rules[i].code, in->rules[i].rejected, in->rules[i].warned);
}

/* The standbys' node names, names NULL when no map is given. */
static void standby_names(const struct ctl *c, const struct names *nm,
			  const struct smq_standbys *sb, char (*names)[NAME_LEN])
{
	size_t i;

	for (i = 0; sb && i < sb->n && i < SMQ_MAX_STANDBYS; i++)
		if (!names_port(c, nm, sb->s[i].guid, names[i], NAME_LEN))
			names[i][0] = '\0';
}

int cmd_sm(struct ctl *c, const struct ctl_args *a)
{
	char names[SMQ_MAX_STANDBYS][NAME_LEN];
	struct smq_standbys sb, *have = NULL;
	struct smq_client q;
	struct smq_info in;
	struct sm_verdict v;
	struct names nm;
	int ret = names_open(c, &nm);

	if (ret)
		return ret;
	ret = open_sm(c, a, &q);

	if (!ret)
		ret = smq_client_info(&q, c->sa_opts.sm_key, &in);
	/* Only a master has standbys, and only a trusted requester sees them. */
	if (!ret && (in.flags & SMQ_INFO_TRUSTED) && in.role == SMQ_ROLE_MASTER) {
		ret = smq_client_standbys(&q, c->sa_opts.sm_key, &sb);
		if (!ret)
			have = &sb;
		else if (ret == -EPROTONOSUPPORT)
			ret = 0; /* a plugin before the list: the rest stands */
	}
	if (ret) {
		node_map_free(nm.map);
		return fail("sm", q.lid, ret);
	}
	standby_names(c, &nm, have, names);
	node_map_free(nm.map);
	v = verdict(c, &in);
	if (c->json)
		sm_json(q.lid, &in, have, nm.on ? names : NULL, &v);
	else
		sm_text(q.lid, &in, have, nm.on ? names : NULL);
	if (!v.problem)
		return CTL_EXIT_FOUND;
	fprintf(stderr, "atsctl: sm: %s\n", v.why);
	return CTL_EXIT_UNHEALTHY;
}
