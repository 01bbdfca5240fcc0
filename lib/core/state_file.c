/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "afile.h"
#include "ats.h"
#include "cfg.h"
#include "json.h"
#include "state_file.h"

void state_file_rec_from(struct state_file_rec *s, const struct sr_record *r)
{
	memset(s, 0, sizeof(*s));
	s->sid = r->id;
	memcpy(s->gid, r->gid, 16);
	memcpy(s->data8, r->data8, 16);
	s->lease = r->lease;
	s->pkey = r->pkey;
}

void state_file_summary_add(struct state_file_summary *sum, const struct sr_record *rec, int is_ats)
{
	size_t i;

	if (!is_ats) {
		sum->other++;
		return;
	}
	sum->ats++;
	for (i = 0; i < sum->npkeys; i++)
		if (sum->pkeys[i].pkey == rec->pkey)
			break;
	if (i == sum->npkeys) {
		if (i == STATE_FILE_MAX_PKEYS) {
			sum->pkeys_more++;
			return;
		}
		sum->pkeys[i].pkey = rec->pkey;
		sum->pkeys[i].n = 0;
		sum->npkeys++;
	}
	sum->pkeys[i].n++;
}

static void put_counters(struct json *j, const char *name, const uint64_t *v)
{
	unsigned r;

	json_obj(j, name);
	for (r = 1; r < RULE_COUNT; r++)
		json_u64(j, rule_name((enum rule)r), v[r]);
	json_end(j);
}

void state_file_counters_json(struct json *j, const char *key, const struct state_file_counters *cnt)
{
	json_obj(j, key);
	json_u64(j, "accepted", cnt->accepted);
	put_counters(j, "rejected", cnt->rejected);
	put_counters(j, "warned", cnt->warned);
	json_u64(j, "clamped", cnt->clamped);
	json_u64(j, "flushed", cnt->flushed);
	json_end(j);
}

static int repl_role_known(const char *role)
{
	return !strcmp(role, "off") || !strcmp(role, "master") || !strcmp(role, "standby") ||
	       !strcmp(role, "error");
}

static void put_repl(struct json *j, const struct state_file_repl *x)
{
	size_t i;

	json_obj(j, "replication");
	json_str(j, "role", x->role);
	json_hex64(j, "epoch", x->epoch);
	json_u64(j, "head", x->head);
	json_u64(j, "applied", x->applied);
	json_bool(j, "in_sync", x->in_sync);
	json_u64(j, "standbys_in_sync", x->standbys_in_sync);
	json_u64(j, "lag_ms", x->lag_ms);
	json_u64(j, "snapshots", x->snapshots);
	json_u64(j, "snapshot_records", x->snapshot_records);
	json_u64(j, "snapshot_ms", x->snapshot_ms);
	json_u64(j, "installed", x->installed);
	json_u64(j, "takeovers", x->takeovers);
	json_arr(j, "standbys");
	for (i = 0; i < x->nstandbys && i < STATE_FILE_MAX_STANDBYS; i++) {
		const struct state_file_standby *s = &x->standbys[i];

		json_obj(j, NULL);
		json_hex64(j, "guid", s->guid);
		json_u64(j, "acked", s->acked);
		json_u64(j, "behind", s->behind);
		json_bool(j, "in_sync", s->in_sync);
		json_u64(j, "last_seen_ms", s->last_seen_ms);
		json_end(j);
	}
	json_end(j);
	json_end(j);
}

int state_file_write(const char *path, const struct state_file_info *info,
		const struct state_file_summary *sum, const struct state_file_rec *recs, size_t n,
		const struct state_file_counters *cnt, const struct state_file_index *idx,
		const struct state_file_repl *repl)
{
	char tmp[600], gid[ATS_IP_STRLEN], ip[ATS_IP_STRLEN];
	struct json j;
	FILE *f;
	size_t i;

	/* A file its own reader refuses would fail every audit. */
	if (!repl_role_known(repl->role))
		return -EINVAL;
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= sizeof(tmp))
		return -ENAMETOOLONG;
	f = afile_tmp(tmp);
	if (!f)
		return -errno;
	/* A member of the document or an entry of its lists a line, for
	 * people and for grep. */
	json_init(&j, f, 1);
	json_obj(&j, NULL);
	json_u64(&j, "version", STATE_FILE_VERSION);
	json_fmt(&j, "plugin", "osmats %s", IBATS_VERSION);
	json_str(&j, "opensm", info->opensm);
	json_i64(&j, "time", info->time);
	json_str(&j, "sm_state", info->sm_state);
	state_file_counters_json(&j, "counters", cnt);
	json_obj(&j, "index");
	json_u64(&j, "records", idx->records);
	json_u64(&j, "bytes", idx->bytes);
	json_u64(&j, "rebuilds", idx->rebuilds);
	json_u64(&j, "gets_indexed", idx->gets_indexed);
	json_u64(&j, "gets_fallback", idx->gets_fallback);
	json_u64(&j, "get_avg_ns", idx->gets_indexed ? idx->get_ns / idx->gets_indexed : 0);
	json_u64(&j, "sets", idx->sets);
	json_u64(&j, "set_avg_ns", idx->sets ? idx->set_ns / idx->sets : 0);
	json_end(&j);
	put_repl(&j, repl);
	json_obj(&j, "services");
	json_u64(&j, "ats", sum->ats);
	json_u64(&j, "other", sum->other);
	json_i64(&j, "scanned", sum->scanned);
	json_end(&j);
	json_arr(&j, "partitions");
	for (i = 0; i < sum->npkeys; i++) {
		json_obj(&j, NULL);
		json_hex16(&j, "pkey", sum->pkeys[i].pkey);
		json_u64(&j, "ats_records", sum->pkeys[i].n);
		json_end(&j);
	}
	json_end(&j);
	json_u64(&j, "partitions_more", sum->pkeys_more);
	json_u64(&j, "absent", sum->absent);
	json_arr(&j, "absent_records");
	for (i = 0; i < n; i++) {
		const struct state_file_rec *r = &recs[i];

		ats_data8_str(r->data8, ip, sizeof(ip));
		json_obj(&j, NULL);
		json_hex64(&j, "sid", r->sid);
		json_str(&j, "gid", ats_gid_format(r->gid, gid, sizeof(gid)));
		json_hex16(&j, "pkey", r->pkey);
		json_u64(&j, "lease", r->lease);
		json_str(&j, "ip", ip);
		json_bool(&j, "port_present", r->port_present);
		json_u64(&j, "missing_sweeps", r->missing_sweeps);
		json_end(&j);
	}
	json_end(&j);
	json_end(&j);
	return afile_commit(f, tmp, path, json_fini(&j), 1);
}

/* The reader: a cursor over the whole file, strict about everything but
 * the blanks between tokens (RFC 8259 section 2). */
struct state_rd {
	const char *p;
	unsigned line;
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 2, 3)))
static int rd_fail(struct state_rd *r, const char *fmt, ...)
{
	char why[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	snprintf(r->err, r->errlen, "line %u: %s", r->line, why);
	return -EINVAL;
}

static void rd_ws(struct state_rd *r)
{
	for (;; r->p++) {
		if (*r->p == '\n')
			r->line++;
		else if (*r->p != ' ' && *r->p != '\t' && *r->p != '\r')
			return;
	}
}

static int rd_char(struct state_rd *r, char c, const char *where)
{
	rd_ws(r);
	if (*r->p != c)
		return rd_fail(r, "expected '%c' %s", c, where);
	r->p++;
	return 0;
}

/* A member's name: ',' before all but the first of an object. */
static int rd_key(struct state_rd *r, const char *key, int first)
{
	size_t len = strlen(key);

	if (!first && rd_char(r, ',', key))
		return -EINVAL;
	rd_ws(r);
	if (r->p[0] != '"' || strncmp(r->p + 1, key, len) || r->p[len + 1] != '"')
		return rd_fail(r, "expected \"%s\"", key);
	r->p += len + 2;
	return rd_char(r, ':', key);
}

static int rd_u64(struct state_rd *r, const char *key, uint64_t max, uint64_t *v)
{
	size_t len;
	char *end;

	rd_ws(r);
	len = strspn(r->p, "0123456789");
	errno = 0;
	*v = strtoull(r->p, &end, 10);
	if (!len || end != r->p + len || errno || *v > max || (len > 1 && *r->p == '0'))
		return rd_fail(r, "\"%s\": not a number (0..%" PRIu64 ")", key, max);
	r->p = end;
	return 0;
}

static int rd_i64(struct state_rd *r, const char *key, long long *v)
{
	uint64_t u;
	int neg;

	rd_ws(r);
	neg = *r->p == '-';
	r->p += neg;
	if (neg && (*r->p < '0' || *r->p > '9'))
		return rd_fail(r, "\"%s\": not a number", key);
	if (rd_u64(r, key, neg ? (uint64_t)INT64_MAX + 1 : INT64_MAX, &u))
		return -EINVAL;
	*v = neg ? (long long)(0 - u) : (long long)u;
	return 0;
}

static int rd_bool(struct state_rd *r, const char *key, uint8_t *v)
{
	rd_ws(r);
	if (!strncmp(r->p, "true", 4)) {
		*v = 1;
		r->p += 4;
	} else if (!strncmp(r->p, "false", 5)) {
		*v = 0;
		r->p += 5;
	} else {
		return rd_fail(r, "\"%s\": not true or false", key);
	}
	return 0;
}

/* A string into buf, escapes decoded (RFC 8259 section 7); \u escapes
 * as UTF-8. \u0000 (it would cut the C string) and surrogates (json.c
 * never writes them) are refused. */
static int rd_str(struct state_rd *r, const char *key, char *buf, size_t len)
{
	size_t n = 0;

	rd_ws(r);
	if (*r->p++ != '"')
		return rd_fail(r, "\"%s\": not a string", key);
	while (*r->p != '"') {
		unsigned char c = (unsigned char)*r->p++;
		unsigned u;
		char out[3];
		size_t k, m = 1;

		if (c < 0x20)
			return rd_fail(r, "\"%s\": control byte or end of file in a string", key);
		out[0] = (char)c;
		if (c == '\\') {
			c = (unsigned char)*r->p++;
			switch (c) {
			case '"': case '\\': case '/': out[0] = (char)c; break;
			case 'b': out[0] = '\b'; break;
			case 'f': out[0] = '\f'; break;
			case 'n': out[0] = '\n'; break;
			case 'r': out[0] = '\r'; break;
			case 't': out[0] = '\t'; break;
			case 'u':
				if (strspn(r->p, "0123456789abcdefABCDEF") < 4 ||
				    sscanf(r->p, "%4x", &u) != 1 || !u || (u >= 0xd800 && u < 0xe000))
					return rd_fail(r, "\"%s\": bad \\u escape", key);
				r->p += 4;
				if (u < 0x80) {
					out[0] = (char)u;
				} else if (u < 0x800) {
					out[0] = (char)(0xc0 | u >> 6);
					out[1] = (char)(0x80 | (u & 0x3f));
					m = 2;
				} else {
					out[0] = (char)(0xe0 | u >> 12);
					out[1] = (char)(0x80 | ((u >> 6) & 0x3f));
					out[2] = (char)(0x80 | (u & 0x3f));
					m = 3;
				}
				break;
			default:
				return rd_fail(r, "\"%s\": bad escape", key);
			}
		}
		if (n + m >= len)
			return rd_fail(r, "\"%s\": longer than %zu bytes", key, len - 1);
		for (k = 0; k < m; k++)
			buf[n++] = out[k];
	}
	r->p++;
	buf[n] = '\0';
	return 0;
}

/* "0x" and exactly digits hex digits, as json_hex16/json_hex64 write. */
static int rd_hex(struct state_rd *r, const char *key, unsigned digits, uint64_t *v)
{
	char buf[24];

	if (rd_str(r, key, buf, sizeof(buf)))
		return -EINVAL;
	if (strncmp(buf, "0x", 2) || strlen(buf) != 2 + digits ||
	    strspn(buf + 2, "0123456789abcdef") != digits)
		return rd_fail(r, "\"%s\": not 0x and %u hex digits", key, digits);
	*v = strtoull(buf + 2, NULL, 16);
	return 0;
}

static int rd_u64_member(struct state_rd *r, const char *key, int first, uint64_t *v)
{
	return rd_key(r, key, first) || rd_u64(r, key, UINT64_MAX, v) ? -EINVAL : 0;
}

static int rd_rules(struct state_rd *r, const char *key, uint64_t *v)
{
	unsigned i;

	if (rd_key(r, key, 0) || rd_char(r, '{', key))
		return -EINVAL;
	for (i = 1; i < RULE_COUNT; i++)
		if (rd_u64_member(r, rule_name((enum rule)i), i == 1, &v[i]))
			return -EINVAL;
	return rd_char(r, '}', key);
}

static int rd_counters(struct state_rd *r, struct state_file_counters *c)
{
	if (rd_key(r, "counters", 0) || rd_char(r, '{', "counters") ||
	    rd_u64_member(r, "accepted", 1, &c->accepted) ||
	    rd_rules(r, "rejected", c->rejected) || rd_rules(r, "warned", c->warned) ||
	    rd_u64_member(r, "clamped", 0, &c->clamped) ||
	    rd_u64_member(r, "flushed", 0, &c->flushed))
		return -EINVAL;
	return rd_char(r, '}', "after \"flushed\"");
}

static int rd_index(struct state_rd *r, struct state_file_index *x)
{
	uint64_t get_avg, set_avg;

	if (rd_key(r, "index", 0) || rd_char(r, '{', "index") ||
	    rd_u64_member(r, "records", 1, &x->records) ||
	    rd_u64_member(r, "bytes", 0, &x->bytes) ||
	    rd_u64_member(r, "rebuilds", 0, &x->rebuilds) ||
	    rd_u64_member(r, "gets_indexed", 0, &x->gets_indexed) ||
	    rd_u64_member(r, "gets_fallback", 0, &x->gets_fallback) ||
	    rd_u64_member(r, "get_avg_ns", 0, &get_avg) ||
	    rd_u64_member(r, "sets", 0, &x->sets) ||
	    rd_u64_member(r, "set_avg_ns", 0, &set_avg))
		return -EINVAL;
	x->get_ns = get_avg * x->gets_indexed;
	x->set_ns = set_avg * x->sets;
	return rd_char(r, '}', "after \"set_avg_ns\"");
}

/* '[' then elements each read by one(), up to max of them. */
static int rd_list(struct state_rd *r, const char *key, size_t max, size_t *n,
		   int (*one)(struct state_rd *r, void *ctx, size_t i), void *ctx)
{
	if (rd_key(r, key, 0) || rd_char(r, '[', key))
		return -EINVAL;
	*n = 0;
	rd_ws(r);
	if (*r->p == ']') {
		r->p++;
		return 0;
	}
	for (;;) {
		if (*n == max)
			return rd_fail(r, "\"%s\": more than %zu entries", key, max);
		if (rd_char(r, '{', key) || one(r, ctx, *n) || rd_char(r, '}', key))
			return -EINVAL;
		(*n)++;
		rd_ws(r);
		if (*r->p != ',')
			return rd_char(r, ']', key);
		r->p++;
	}
}

static int rd_standby(struct state_rd *r, void *ctx, size_t i)
{
	struct state_file_standby *s = &((struct state_file_standby *)ctx)[i];

	if (rd_key(r, "guid", 1) || rd_hex(r, "guid", 16, &s->guid) ||
	    rd_u64_member(r, "acked", 0, &s->acked) ||
	    rd_u64_member(r, "behind", 0, &s->behind) ||
	    rd_key(r, "in_sync", 0) || rd_bool(r, "in_sync", &s->in_sync) ||
	    rd_u64_member(r, "last_seen_ms", 0, &s->last_seen_ms))
		return -EINVAL;
	return 0;
}

static int rd_repl(struct state_rd *r, struct state_file_repl *x)
{
	uint8_t in_sync;

	if (rd_key(r, "replication", 0) || rd_char(r, '{', "replication") ||
	    rd_key(r, "role", 1) || rd_str(r, "role", x->role, sizeof(x->role)))
		return -EINVAL;
	if (!repl_role_known(x->role))
		return rd_fail(r, "\"role\": not off, error, master or standby");
	if (rd_key(r, "epoch", 0) || rd_hex(r, "epoch", 16, &x->epoch) ||
	    rd_u64_member(r, "head", 0, &x->head) ||
	    rd_u64_member(r, "applied", 0, &x->applied) ||
	    rd_key(r, "in_sync", 0) || rd_bool(r, "in_sync", &in_sync) ||
	    rd_u64_member(r, "standbys_in_sync", 0, &x->standbys_in_sync) ||
	    rd_u64_member(r, "lag_ms", 0, &x->lag_ms) ||
	    rd_u64_member(r, "snapshots", 0, &x->snapshots) ||
	    rd_u64_member(r, "snapshot_records", 0, &x->snapshot_records) ||
	    rd_u64_member(r, "snapshot_ms", 0, &x->snapshot_ms) ||
	    rd_u64_member(r, "installed", 0, &x->installed) ||
	    rd_u64_member(r, "takeovers", 0, &x->takeovers))
		return -EINVAL;
	x->in_sync = in_sync;
	/* "standbys" came later: a file without it has none. */
	rd_ws(r);
	if (*r->p != ',')
		return rd_char(r, '}', "after \"takeovers\"");
	if (rd_list(r, "standbys", STATE_FILE_MAX_STANDBYS, &x->nstandbys, rd_standby, x->standbys))
		return -EINVAL;
	return rd_char(r, '}', "after \"standbys\"");
}

static int rd_partition(struct state_rd *r, void *ctx, size_t i)
{
	struct state_file_summary *sum = ctx;
	uint64_t pkey;

	if (rd_key(r, "pkey", 1) || rd_hex(r, "pkey", 4, &pkey) ||
	    rd_u64_member(r, "ats_records", 0, &sum->pkeys[i].n))
		return -EINVAL;
	sum->pkeys[i].pkey = (uint16_t)pkey;
	return 0;
}

static int rd_absent(struct state_rd *r, void *ctx, size_t i)
{
	struct state_file_rec *s = &((struct state_file_rec *)ctx)[i];
	char gid[ATS_IP_STRLEN], ip[ATS_IP_STRLEN];
	uint64_t pkey, lease, sweeps;
	struct ats_ip a;

	if (rd_key(r, "sid", 1) || rd_hex(r, "sid", 16, &s->sid) ||
	    rd_key(r, "gid", 0) || rd_str(r, "gid", gid, sizeof(gid)))
		return -EINVAL;
	if (ats_gid_parse(gid, s->gid))
		return rd_fail(r, "\"gid\": not a GID");
	if (rd_key(r, "pkey", 0) || rd_hex(r, "pkey", 4, &pkey) ||
	    rd_key(r, "lease", 0) || rd_u64(r, "lease", UINT32_MAX, &lease) ||
	    rd_key(r, "ip", 0) || rd_str(r, "ip", ip, sizeof(ip)))
		return -EINVAL;
	if (!strcmp(ip, "-"))
		memset(s->data8, 0, sizeof(s->data8));
	else if (ats_ip_parse(ip, &a))
		return rd_fail(r, "\"ip\": not an address or '-'");
	else
		ats_ip_encode(&a, s->data8);
	if (rd_key(r, "port_present", 0) || rd_bool(r, "port_present", &s->port_present) ||
	    rd_key(r, "missing_sweeps", 0) || rd_u64(r, "missing_sweeps", UINT32_MAX, &sweeps))
		return -EINVAL;
	s->pkey = (uint16_t)pkey;
	s->lease = (uint32_t)lease;
	s->missing_sweeps = (uint32_t)sweeps;
	return 0;
}

static int rd_document(struct state_rd *r, struct state_file *sf)
{
	struct state_file_summary *sum = &sf->summary;
	uint64_t version;

	if (rd_char(r, '{', "at the start") || rd_key(r, "version", 1) ||
	    rd_u64(r, "version", UINT64_MAX, &version))
		return -EINVAL;
	if (version != STATE_FILE_VERSION)
		return rd_fail(r, "\"version\": %" PRIu64 ", not %d", version, STATE_FILE_VERSION);
	if (rd_key(r, "plugin", 0) || rd_str(r, "plugin", sf->plugin, sizeof(sf->plugin)))
		return -EINVAL;
	if (strncmp(sf->plugin, "osmats ", 7))
		return rd_fail(r, "\"plugin\": not osmats");
	if (rd_key(r, "opensm", 0) || rd_str(r, "opensm", sf->opensm, sizeof(sf->opensm)) ||
	    rd_key(r, "time", 0) || rd_i64(r, "time", &sf->time) ||
	    rd_key(r, "sm_state", 0) ||
	    rd_str(r, "sm_state", sf->sm_state, sizeof(sf->sm_state)) ||
	    rd_counters(r, &sf->counters) || rd_index(r, &sf->index) ||
	    rd_repl(r, &sf->repl) ||
	    rd_key(r, "services", 0) || rd_char(r, '{', "services") ||
	    rd_u64_member(r, "ats", 1, &sum->ats) || rd_u64_member(r, "other", 0, &sum->other) ||
	    rd_key(r, "scanned", 0) || rd_i64(r, "scanned", &sum->scanned) ||
	    rd_char(r, '}', "after \"scanned\"") ||
	    rd_list(r, "partitions", STATE_FILE_MAX_PKEYS, &sum->npkeys, rd_partition, sum) ||
	    rd_u64_member(r, "partitions_more", 0, &sum->pkeys_more) ||
	    rd_u64_member(r, "absent", 0, &sum->absent))
		return -EINVAL;
	sf->recs = calloc(STATE_FILE_MAX_ABSENT, sizeof(*sf->recs));
	if (!sf->recs)
		return -ENOMEM;
	if (rd_list(r, "absent_records", STATE_FILE_MAX_ABSENT, &sf->nrecs, rd_absent, sf->recs) ||
	    rd_char(r, '}', "at the end"))
		return -EINVAL;
	rd_ws(r);
	return *r->p ? rd_fail(r, "data after the document") : 0;
}

/* The file is replaced by rename: one read sees one version. Only a
 * regular file: a FIFO would hang the reader, /dev/zero fill its memory
 * (atsctl audit --state). */
static int state_slurp(const char *path, char **text, size_t *len)
{
	FILE *f = cfg_fopen_regular(path), *m;
	char chunk[4096];
	size_t n;
	int ret = 0;

	*text = NULL;
	if (!f)
		return -errno;
	m = open_memstream(text, len);
	if (!m) {
		ret = -errno;
		fclose(f);
		return ret;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fwrite(chunk, 1, n, m);
	if (ferror(f))
		ret = -EIO;
	fclose(f);
	if (fclose(m) && !ret)
		ret = -ENOMEM;
	if (ret) {
		free(*text);
		*text = NULL;
	}
	return ret;
}

int state_file_read(const char *path, struct state_file *sf, char *err, size_t errlen)
{
	struct state_rd r = { NULL, 1, err, errlen };
	char *text;
	size_t len;
	int ret;

	memset(sf, 0, sizeof(*sf));
	if (errlen)
		err[0] = '\0';
	ret = state_slurp(path, &text, &len);
	if (ret == -EINVAL || ret == -EISDIR) {
		snprintf(err, errlen, "%s", ret == -EISDIR ? "a directory" : "not a regular file");
		return -EINVAL;
	}
	if (ret)
		return ret;
	r.p = text;
	if (strlen(text) != len)
		ret = rd_fail(&r, "a NUL byte");
	else
		ret = rd_document(&r, sf);
	free(text);
	if (ret)
		state_file_free(sf);
	return ret;
}

void state_file_free(struct state_file *sf)
{
	free(sf->recs);
	sf->recs = NULL;
	sf->nrecs = 0;
}
