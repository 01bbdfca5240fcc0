/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The atsd socket protocol: tables and line formats (atsd_proto.h). */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atsd_proto.h"

/* Privileged verbs change atsd's state or cost SA traffic beyond a
 * lookup. */
const struct atsd_proto_verb_def atsd_proto_verbs[ATSD_PROTO_VERBS] = {
	[ATSD_PROTO_V_RESOLVE] = { "resolve", 2, 3, 0 },
	[ATSD_PROTO_V_REVERSE] = { "reverse", 2, 3, 0 },
	[ATSD_PROTO_V_PRIMARY] = { "primary", 2, 3, 0 },
	[ATSD_PROTO_V_STATUS] = { "status", 1, 1, 0 },
	[ATSD_PROTO_V_STATS] = { "stats", 1, 1, 0 },
	[ATSD_PROTO_V_IPOIB] = { "ipoib", 1, 1, 0 },
	[ATSD_PROTO_V_CONNECTIONS] = { "connections", 1, 1, 0 },
	[ATSD_PROTO_V_HOLD] = { "hold", 1, ATSD_PROTO_ARGS_MAX, 1 },
	[ATSD_PROTO_V_RELEASE] = { "release", 1, ATSD_PROTO_ARGS_MAX, 1 },
	[ATSD_PROTO_V_VERIFY] = { "verify", 1, 1, 1 },
	[ATSD_PROTO_V_CONNECT] = { "connect", 1, ATSD_PROTO_ARGS_MAX, 1 },
	[ATSD_PROTO_V_DISCONNECT] = { "disconnect", 2, 2, 1 },
	[ATSD_PROTO_V_HOLDS] = { "holds", 1, 1, 0 },
	/* One SA query, as a lookup: a listener that is not root checks
	 * its callers with it. */
	[ATSD_PROTO_V_LID] = { "lid", 2, 2, 0 },
};

int atsd_proto_verb_find(const char *name)
{
	int i;

	for (i = 0; i < ATSD_PROTO_VERBS; i++)
		if (!strcmp(name, atsd_proto_verbs[i].name))
			return i;
	return -1;
}

int atsd_proto_pkey_arg(const char *s, uint16_t *pkey)
{
	if (!s) {
		*pkey = ATS_PKEY_DEFAULT;
		return 0;
	}
	return ats_pkey_parse(s, pkey);
}

const char *const atsd_proto_stat_names[ATSD_PROTO_STATS] = {
	[ATSD_PROTO_S_CACHE_HITS] = "cache_hits",
	[ATSD_PROTO_S_CACHE_MISSES] = "cache_misses",
	[ATSD_PROTO_S_NEGATIVE_HITS] = "negative_hits",
	[ATSD_PROTO_S_COALESCED] = "coalesced",
	[ATSD_PROTO_S_SA_LOOKUPS] = "sa_lookups",
	[ATSD_PROTO_S_SA_QUERIES] = "sa_queries",
	[ATSD_PROTO_S_SYNCS] = "syncs",
	[ATSD_PROTO_S_SYNC_FAILURES] = "sync_failures",
	[ATSD_PROTO_S_SETS] = "sets",
	[ATSD_PROTO_S_DELETES] = "deletes",
	[ATSD_PROTO_S_SM_CHANGES] = "sm_changes",
	[ATSD_PROTO_S_RECORDS] = "records",
	[ATSD_PROTO_S_HOLDS] = "holds",
	[ATSD_PROTO_S_CACHE_ENTRIES] = "cache_entries",
	[ATSD_PROTO_S_LID] = "lid",
	[ATSD_PROTO_S_SM_LID] = "sm_lid",
	[ATSD_PROTO_S_SUBSCRIBED] = "subscribed",
	[ATSD_PROTO_S_SUBSCRIPTIONS] = "subscriptions",
	[ATSD_PROTO_S_SUBSCRIPTION_FAILURES] = "subscription_failures",
	[ATSD_PROTO_S_REPORTS] = "reports",
	[ATSD_PROTO_S_REPORT_DUPLICATES] = "report_duplicates",
	[ATSD_PROTO_S_REPORTS_REFUSED] = "reports_refused",
	[ATSD_PROTO_S_INVALIDATIONS] = "invalidations",
	[ATSD_PROTO_S_LOCAL_ANSWERS] = "local_answers",
	[ATSD_PROTO_S_SA_DEPTH] = "sa_depth",
	[ATSD_PROTO_S_SA_INFLIGHT] = "sa_inflight",
	[ATSD_PROTO_S_SA_INFLIGHT_MAX] = "sa_inflight_max",
	[ATSD_PROTO_S_SA_RESENT] = "sa_resent",
	[ATSD_PROTO_S_SA_TIMEOUTS] = "sa_timeouts",
	[ATSD_PROTO_S_PREFETCHES] = "prefetches",
	[ATSD_PROTO_S_PREFETCH_RECORDS] = "prefetch_records",
	[ATSD_PROTO_S_CACHE_CLEARS] = "cache_clears",
};

/* snprintf's count, kept inside buf for the next append. */
static size_t clamp(int n, size_t len)
{
	return n < 0 ? 0 : (size_t)n >= len ? (len ? len - 1 : 0) : (size_t)n;
}

int atsd_proto_ok_format(char *buf, size_t len, size_t n)
{
	return snprintf(buf, len, "OK %zu\n", n);
}

int atsd_proto_ok_parse(const char *line, size_t *n)
{
	char tail;

	if (sscanf(line, "OK %zu%c", n, &tail) != 1 || *n > ATSD_PROTO_ANSWER_MAX)
		return -EPROTO;
	return 0;
}

int atsd_proto_stats_format(char *buf, size_t len, const uint64_t v[ATSD_PROTO_STATS])
{
	size_t used;
	int i, n, total;

	total = n = snprintf(buf, len, "OK %d\n", ATSD_PROTO_STATS);
	used = clamp(n, len);
	for (i = 0; i < ATSD_PROTO_STATS; i++) {
		n = snprintf(buf + used, len - used, "%s %" PRIu64 "\n", atsd_proto_stat_names[i], v[i]);
		total += n;
		used += clamp(n, len - used);
	}
	return total;
}

void atsd_proto_stats_split(const char *line, char *name, size_t len, const char **value)
{
	const char *sp = strchr(line, ' ');

	snprintf(name, len, "%.*s", (int)(sp ? sp - line : (ptrdiff_t)strlen(line)), line);
	*value = sp ? sp + 1 : "";
}

int atsd_proto_format_record(char *buf, size_t len, const struct sr_record *r)
{
	char gid[ATS_IP_STRLEN], ip[ATS_IP_STRLEN];

	ats_data8_str(r->data8, ip, sizeof(ip));
	return snprintf(buf, len, "0x%016" PRIx64 " %s 0x%04x %" PRIu32 " %s", r->id,
			ats_gid_format(r->gid, gid, sizeof(gid)), r->pkey, r->lease, ip);
}

int atsd_proto_parse_record(const char *line, struct sr_record *r)
{
	char gid[64], ip[64];
	unsigned long long sid;
	unsigned pkey;
	unsigned long lease;
	struct ats_ip a;

	if (sscanf(line, "%llx %63s %x %lu %63s", &sid, gid, &pkey, &lease, ip) != 5 ||
	    pkey > 0xffff || lease > 0xffffffffUL)
		return -EPROTO;
	memset(r, 0, sizeof(*r));
	if (ats_gid_parse(gid, r->gid) || ats_ip_parse(ip, &a))
		return -EPROTO;
	r->id = sid;
	r->pkey = (uint16_t)pkey;
	r->lease = (uint32_t)lease;
	ats_name_put(r->name);
	ats_ip_encode(&a, r->data8);
	return 0;
}

int atsd_proto_record_local(const char *line)
{
	char word[8];
	int n = 0;

	if (sscanf(line, "%*x %*s %*x %*u %*s %n", &n) || !n)
		return 0;
	return sscanf(line + n, "%7s", word) == 1 && !strcmp(word, ATSD_PROTO_REC_LOCAL);
}

int atsd_proto_status_format(char *buf, size_t len, uint64_t sid, const uint8_t *gid,
		       uint16_t pkey, uint32_t lease, const struct ats_ip *ip,
		       const char *state, const char *reason)
{
	char gids[ATS_IP_STRLEN], ips[ATS_IP_STRLEN], sids[24];

	if (sid)
		snprintf(sids, sizeof(sids), "0x%016" PRIx64, sid);
	else
		snprintf(sids, sizeof(sids), "-");
	return snprintf(buf, len, "%s %s 0x%04x %" PRIu32 " %s %s%s%s\n", sids,
			ats_gid_format(gid, gids, sizeof(gids)), pkey, lease,
			ats_ip_format(ip, ips, sizeof(ips)), state, reason ? " " : "",
			reason ? reason : "");
}

int atsd_proto_status_parse(const char *line, struct atsd_proto_status *st)
{
	int n = 0;

	memset(st, 0, sizeof(*st));
	if (sscanf(line, "%23s %63s %x %lu %63s %23s %n", st->sid, st->gid, &st->pkey,
		   &st->lease, st->ip, st->state, &n) < 6 || st->pkey > 0xffff)
		return -EPROTO;
	if (n)
		snprintf(st->reason, sizeof(st->reason), "%s", line + n);
	return 0;
}

int atsd_proto_resync_format(char *buf, size_t len, const struct atsd_proto_resync *r)
{
	return snprintf(buf, len, "checked %lu registered %lu deleted %lu refused %lu\n",
			r->checked, r->registered, r->deleted, r->refused);
}

int atsd_proto_resync_parse(const char *line, struct atsd_proto_resync *r)
{
	int n = 0;

	memset(r, 0, sizeof(*r));
	if (sscanf(line, "checked %lu registered %lu deleted %lu refused %lu%n", &r->checked,
		   &r->registered, &r->deleted, &r->refused, &n) != 4 || line[n])
		return -EPROTO;
	return 0;
}

int atsd_proto_hold_format(char *buf, size_t len, const char *owner, unsigned long uid,
		     const struct ats_ip *ip, uint16_t pkey)
{
	char ips[ATS_IP_STRLEN];

	return snprintf(buf, len, "%s %lu %s 0x%04x\n", owner, uid,
			ats_ip_format(ip, ips, sizeof(ips)), pkey);
}

int atsd_proto_hold_parse(const char *line, struct atsd_proto_hold *h)
{
	int n = 0;

	memset(h, 0, sizeof(*h));
	if (sscanf(line, "%63s %lu %63s %x%n", h->owner, &h->uid, h->ip, &h->pkey, &n) != 4 ||
	    line[n] || h->pkey > 0xffff)
		return -EPROTO;
	return 0;
}

int atsd_proto_lid_arg(const char *s, uint16_t *lid)
{
	unsigned long v;
	char *end;

	/* strtoul takes a sign and blanks: a LID word has neither. */
	if (!s || !(*s >= '0' && *s <= '9'))
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end || !v || v > ATSD_PROTO_LID_UNICAST_MAX)
		return -EINVAL;
	*lid = (uint16_t)v;
	return 0;
}

int atsd_proto_lid_format(char *buf, size_t len, uint64_t port_guid, uint16_t base_lid)
{
	return snprintf(buf, len, "0x%016" PRIx64 " 0x%04x\n", port_guid, base_lid);
}

/* One "0x" and 1..16 hex digits at s: its end, or NULL. */
static const char *hex_word(const char *s, size_t max_digits, uint64_t *v)
{
	size_t n = 0;

	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return NULL;
	*v = 0;
	for (s += 2; isxdigit((unsigned char)*s); s++, n++) {
		if (n == max_digits)
			return NULL;
		*v = *v << 4 | (uint64_t)(isdigit((unsigned char)*s) ? *s - '0' :
					  (tolower((unsigned char)*s) - 'a' + 10));
	}
	return n ? s : NULL;
}

int atsd_proto_lid_parse(const char *line, uint64_t *port_guid, uint16_t *base_lid)
{
	uint64_t guid, lid;
	const char *p = hex_word(line, 16, &guid);

	if (!p || *p != ' ')
		return -EPROTO;
	p = hex_word(p + 1, 4, &lid);
	if (!p || *p || !lid || lid > ATSD_PROTO_LID_UNICAST_MAX)
		return -EPROTO;
	*port_guid = guid;
	*base_lid = (uint16_t)lid;
	return 0;
}

/* Per line kind: the names of its leading plain words, then of its
 * name=value words in the order atsd writes them. */
static const struct line_names {
	const char *plain[3];
	const char *keyed[5];
} line_names[] = {
	[ATSD_PROTO_LINE_CONN] = { { "id", "role", "state" },
			     { "sid", "local", "remote", "ip", "pkey" } },
	[ATSD_PROTO_LINE_GROUP] = { { "pkey", "mgid", "state" },
			      { "qkey", "mlid", "mtu", "sl", "rate" } },
};

int atsd_proto_conn_format(char *buf, size_t len, const struct atsd_proto_conn_line *c)
{
	const char *const *k = line_names[ATSD_PROTO_LINE_CONN].keyed;
	char lg[ATS_IP_STRLEN], rg[ATS_IP_STRLEN], si[ATS_IP_STRLEN], di[ATS_IP_STRLEN];

	return snprintf(buf, len,
			"0x%08x %s %s %s=0x%016" PRIx64 " %s=%s/lid=%u/qpn=0x%06x %s=%s/lid=%u/qpn=0x%06x %s=%s:%u->%s %s=0x%04x\n",
			c->id, c->active ? "active" : "passive", c->state,
			k[0], c->sid,
			k[1], ats_gid_format(c->local_gid, lg, sizeof(lg)), c->local_lid, c->local_qpn,
			k[2], ats_gid_format(c->remote_gid, rg, sizeof(rg)), c->remote_lid,
			c->remote_qpn,
			k[3], ats_ip_format(&c->src, si, sizeof(si)), c->src_port,
			ats_ip_format(&c->dst, di, sizeof(di)),
			k[4], c->pkey);
}

int atsd_proto_group_format(char *buf, size_t len, const struct atsd_proto_group_line *g)
{
	const char *const *k = line_names[ATSD_PROTO_LINE_GROUP].keyed;
	char mgid[ATS_IP_STRLEN];

	ats_gid_format(g->mgid, mgid, sizeof(mgid));
	if (g->error)
		return snprintf(buf, len, "0x%04x %s error %s\n", g->pkey, mgid, g->error);
	return snprintf(buf, len, "0x%04x %s %s %s=0x%08x %s=0x%04x %s=%u %s=%u %s=%u\n",
			g->pkey, mgid, g->state ? g->state : "joined", k[0], g->qkey, k[1],
			g->mlid, k[2], g->mtu, k[3], g->sl, k[4], g->rate);
}

size_t atsd_proto_line_fields(char *line, enum atsd_proto_line_kind kind, struct atsd_proto_field *f,
			size_t max)
{
	const struct line_names *ln = &line_names[kind];
	char *save = NULL, *tok;
	unsigned plain = 0;
	size_t n = 0;

	for (tok = strtok_r(line, " ", &save); tok && n < max; tok = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(tok, '=');

		f[n].buf[0] = '\0';
		if (eq) {
			*eq = '\0';
			f[n].name = tok;
			f[n].value = eq + 1;
		} else {
			if (plain < 3) {
				f[n].name = ln->plain[plain];
			} else {
				snprintf(f[n].buf, sizeof(f[n].buf), "field%u", plain);
				f[n].name = f[n].buf;
			}
			plain++;
			f[n].value = tok;
		}
		n++;
	}
	return n;
}
