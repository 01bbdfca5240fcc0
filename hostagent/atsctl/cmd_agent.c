/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The commands atsd alone answers, on its local resolver socket. */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/atsd_client.h"
#include "ctl.h"
#include "cmd_agent.h"
#include "core/json.h"
#include "core/log.h"
#include "out.h"

/* A number JSON can carry as one: digits that fit 64 bits. */
static int all_digits(const char *v)
{
	char *end;

	if (!*v || strspn(v, "0123456789") != strlen(v))
		return 0;
	errno = 0;
	return strtoull(v, &end, 10) != ULLONG_MAX || errno != ERANGE;
}

/* Connection and group lines are words and key=value pairs; --json makes
 * each an object, fields named by atsd_proto; decimal values (LIDs, MTU,
 * SL, QPNs as atsd prints them) as numbers, the rest (hex identifiers
 * included) as strings. */
static void json_agent_line(struct json *j, const char *line, enum atsd_proto_line_kind kind)
{
	struct atsd_proto_field f[ATSD_PROTO_LINE_MAX / 2];
	char buf[ATSD_PROTO_LINE_MAX];
	size_t i, n;

	snprintf(buf, sizeof(buf), "%s", line);
	n = atsd_proto_line_fields(buf, kind, f, sizeof(f) / sizeof(f[0]));
	json_obj(j, NULL);
	for (i = 0; i < n; i++) {
		if (all_digits(f[i].value))
			json_u64(j, f[i].name, strtoull(f[i].value, NULL, 10));
		else
			json_str(j, f[i].name, f[i].value);
	}
	json_end(j);
}

/* stats lines are "name value": --json makes them one object, numbers
 * as numbers. */
static void json_stats(struct json *j, const struct atsd_client_reply *rep)
{
	size_t i;

	json_obj(j, NULL);
	for (i = 0; i < rep->nlines; i++) {
		char name[ATSD_PROTO_LINE_MAX];
		const char *v;

		atsd_proto_stats_split(rep->lines[i], name, sizeof(name), &v);
		if (all_digits(v))
			json_u64(j, name, strtoull(v, NULL, 10));
		else
			json_str(j, name, v);
	}
	json_end(j);
}

static int has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 1;
	return 0;
}

static void print_agent_lines(const struct ctl *c, const char *req, const struct atsd_client_reply *rep)
{
	struct json j;
	size_t i;

	if (!c->json) {
		for (i = 0; i < rep->nlines; i++) {
			char safe[4 * ATSD_PROTO_LINE_MAX + 1];

			printf("%s\n", out_clean(rep->lines[i], safe, sizeof(safe)));
		}
		return;
	}
	json_init(&j, stdout, 0);
	if (!strcmp(req, "stats")) {
		json_stats(&j, rep);
	} else {
		json_arr(&j, NULL);
		for (i = 0; i < rep->nlines; i++)
			json_agent_line(&j, rep->lines[i],
					strcmp(req, "ipoib") ? ATSD_PROTO_LINE_CONN : ATSD_PROTO_LINE_GROUP);
		json_end(&j);
	}
	json_fini(&j);
}

/* Send req to atsd and print its answer: an exit status. The lookups
 * ask atsd through libibats (cmd_lookup.c); these commands only it
 * answers. */
static int agent_only(const struct ctl *c, const char *req)
{
	struct atsd_client_reply rep;
	char safe[4 * ATSD_PROTO_LINE_MAX + 1];
	int ret;

	ret = atsd_client_request(c->socket, req, 10000, &rep);
	if (ret == -ENOENT || ret == -ECONNREFUSED || ret == -ENOTDIR) {
		fprintf(stderr, "atsctl: atsd is not running (no socket at %s)\n", c->socket);
		return CTL_EXIT_SA;
	}
	if (ret) {
		fprintf(stderr, "atsctl: atsd at %s: %s\n", c->socket, strerror(-ret));
		return CTL_EXIT_SA;
	}
	log_info("%s: answered by atsd (%s)", req, c->socket);
	if (!rep.ok) {
		ret = !strcmp(rep.code, "ENOENT") ? CTL_EXIT_NOTFOUND :
		      !strcmp(rep.code, "EINVAL") ? CTL_EXIT_USAGE : CTL_EXIT_SA;
		fprintf(stderr, "atsctl: %s: %s\n", req, out_clean(rep.message, safe, sizeof(safe)));
		atsd_client_reply_free(&rep);
		return ret;
	}
	print_agent_lines(c, req, &rep);
	atsd_client_reply_free(&rep);
	return CTL_EXIT_FOUND;
}

/* status's second part: each hold with the uid that took it. An atsd
 * without the request (older) leaves it out. */
static void print_holds(const struct ctl *c, struct json *j)
{
	struct atsd_client_reply rep;
	struct atsd_proto_hold h;
	size_t i;

	if (atsd_client_request(c->socket, "holds", 10000, &rep))
		return;
	for (i = 0; rep.ok && i < rep.nlines; i++)
		if (atsd_proto_hold_parse(rep.lines[i], &h) || has_control(rep.lines[i]))
			rep.ok = 0;
	if (c->json && rep.ok)
		json_arr(j, "holds");
	else if (rep.ok && rep.nlines)
		printf("\n%-24s  %-10s  %-16s  %s\n", "HOLD OWNER", "UID", "IP", "PKEY");
	for (i = 0; rep.ok && i < rep.nlines; i++) {
		atsd_proto_hold_parse(rep.lines[i], &h);
		if (c->json) {
			json_obj(j, NULL);
			json_str(j, "owner", h.owner);
			json_u64(j, "uid", h.uid);
			json_str(j, "ip", h.ip);
			json_hex16(j, "pkey", (uint16_t)h.pkey);
			json_end(j);
		} else {
			printf("%-24s  %-10lu  %-16s  0x%04x\n", h.owner, h.uid, h.ip, h.pkey);
		}
	}
	if (c->json && rep.ok)
		json_end(j);
	atsd_client_reply_free(&rep);
}

static int print_status(const struct ctl *c)
{
	int refused = 0;
	struct atsd_client_reply rep;
	struct json j;
	char safe[4 * ATSD_PROTO_LINE_MAX + 1];
	size_t i;
	int ret = atsd_client_request(c->socket, "status", 10000, &rep);

	if (ret == -ENOENT || ret == -ECONNREFUSED || ret == -ENOTDIR) {
		fprintf(stderr, "atsctl: atsd is not running (no socket at %s)\n", c->socket);
		return CTL_EXIT_SA;
	}
	if (ret || !rep.ok) {
		fprintf(stderr, "atsctl: atsd at %s: %s\n", c->socket,
			ret ? strerror(-ret) : out_clean(rep.message, safe, sizeof(safe)));
		if (!ret)
			atsd_client_reply_free(&rep);
		return CTL_EXIT_SA;
	}
	/* Check every line before printing any: no half a document. */
	for (i = 0; i < rep.nlines; i++) {
		struct atsd_proto_status sl;

		if (atsd_proto_status_parse(rep.lines[i], &sl) || has_control(rep.lines[i])) {
			fprintf(stderr, "atsctl: atsd sent a bad status line '%s'\n",
				out_clean(rep.lines[i], safe, sizeof(safe)));
			atsd_client_reply_free(&rep);
			return CTL_EXIT_SA;
		}
	}
	if (c->json) {
		json_init(&j, stdout, 0);
		json_obj(&j, NULL);
		json_arr(&j, "records");
	} else if (rep.nlines) {
		printf("%-18s  %-26s  %-6s  %-10s  %-16s  %s\n", "SID", "GID", "PKEY", "LEASE",
		       "IP", "STATE");
	}
	for (i = 0; i < rep.nlines; i++) {
		struct atsd_proto_status sl;
		char lease_s[16];

		atsd_proto_status_parse(rep.lines[i], &sl);
		refused |= !strcmp(sl.state, "refused");
		if (sl.lease == SR_LEASE_INFINITE)
			snprintf(lease_s, sizeof(lease_s), "infinite");
		else
			snprintf(lease_s, sizeof(lease_s), "%lu", sl.lease);
		if (c->json) {
			json_obj(&j, NULL);
			if (strcmp(sl.sid, "-"))
				json_str(&j, "sid", sl.sid);
			else
				json_null(&j, "sid");
			json_str(&j, "gid", sl.gid);
			json_hex16(&j, "pkey", (uint16_t)sl.pkey);
			json_u64(&j, "lease", sl.lease);
			json_str(&j, "ip", sl.ip);
			json_bool(&j, "primary", strtoull(sl.sid, NULL, 16) == ATS_SID_PRIMARY);
			json_str(&j, "state", sl.state);
			if (sl.reason[0])
				json_str(&j, "reason", sl.reason);
			json_end(&j);
		} else {
			printf("%-18s  %-26s  0x%04x  %-10s  %-16s  %s%s%s%s\n", sl.sid, sl.gid,
			       sl.pkey, lease_s, sl.ip, sl.state,
			       sl.reason[0] ? " (" : "", sl.reason, sl.reason[0] ? ")" : "");
		}
	}
	if (c->json)
		json_end(&j);
	atsd_client_reply_free(&rep);
	print_holds(c, &j);
	if (c->json) {
		json_end(&j);
		json_fini(&j);
	}
	/* For monitoring: an address the SA refuses is not served. */
	return refused ? CTL_EXIT_REFUSED : CTL_EXIT_FOUND;
}

/* resync: atsd answers once the full sync it asked for has ended. */
static int print_resync(const struct ctl *c)
{
	struct atsd_client_reply rep;
	struct atsd_proto_resync r;
	struct atsd_proto_status sl;
	struct json j;
	char safe[4 * ATSD_PROTO_LINE_MAX + 1];
	size_t i;
	int ret = atsd_client_request(c->socket, "verify", 120000, &rep);

	if (ret == -ENOENT || ret == -ECONNREFUSED || ret == -ENOTDIR) {
		fprintf(stderr, "atsctl: atsd is not running (no socket at %s)\n", c->socket);
		return CTL_EXIT_SA;
	}
	if (ret || !rep.ok) {
		fprintf(stderr, "atsctl: resync: %s\n",
			ret ? strerror(-ret) : out_clean(rep.message, safe, sizeof(safe)));
		if (!ret)
			atsd_client_reply_free(&rep);
		return CTL_EXIT_SA;
	}
	ret = !rep.nlines || atsd_proto_resync_parse(rep.lines[0], &r) ||
	      r.refused != rep.nlines - 1;
	for (i = 1; !ret && i < rep.nlines; i++)
		ret = atsd_proto_status_parse(rep.lines[i], &sl) || has_control(rep.lines[i]);
	if (ret) {
		fprintf(stderr, "atsctl: atsd sent a bad resync answer\n");
		atsd_client_reply_free(&rep);
		return CTL_EXIT_SA;
	}
	if (c->json) {
		json_init(&j, stdout, 0);
		json_obj(&j, NULL);
		json_u64(&j, "checked", r.checked);
		json_u64(&j, "registered", r.registered);
		json_u64(&j, "deleted", r.deleted);
		json_arr(&j, "refused");
	} else {
		printf("checked %lu address(es): %lu registered, %lu deleted, %lu still refused\n",
		       r.checked, r.registered, r.deleted, r.refused);
	}
	for (i = 1; i < rep.nlines; i++) {
		atsd_proto_status_parse(rep.lines[i], &sl);
		if (c->json) {
			json_obj(&j, NULL);
			json_str(&j, "ip", sl.ip);
			json_hex16(&j, "pkey", (uint16_t)sl.pkey);
			json_str(&j, "sid", sl.sid);
			json_str(&j, "reason", sl.reason);
			json_end(&j);
		} else {
			printf("refused: %s PKey 0x%04x SID %s: %s\n", sl.ip, sl.pkey, sl.sid,
			       sl.reason);
		}
	}
	if (c->json) {
		json_end(&j);
		json_end(&j);
		json_fini(&j);
	}
	atsd_client_reply_free(&rep);
	return r.refused ? CTL_EXIT_REFUSED : CTL_EXIT_FOUND;
}

static int hold(const struct ctl *c, const struct ctl_args *a, const char *cmd)
{
	char req[ATSD_PROTO_LINE_MAX];

	if (!a->owner)
		return out_usage_err(cmd, a->arg[0], "needs --owner NAME");
	snprintf(req, sizeof(req), "%s %s %s 0x%04x", cmd, a->owner, a->arg[0], a->pkey);
	return agent_only(c, req);
}

int cmd_agent_hold(struct ctl *c, const struct ctl_args *a)
{
	return hold(c, a, "hold");
}

int cmd_agent_release(struct ctl *c, const struct ctl_args *a)
{
	return hold(c, a, "release");
}

int cmd_agent_status(struct ctl *c, const struct ctl_args *a)
{
	(void)a;
	return print_status(c);
}

int cmd_agent_stats(struct ctl *c, const struct ctl_args *a)
{
	(void)a;
	return agent_only(c, "stats");
}

int cmd_agent_ipoib(struct ctl *c, const struct ctl_args *a)
{
	(void)a;
	return agent_only(c, "ipoib");
}

int cmd_agent_resync(struct ctl *c, const struct ctl_args *a)
{
	(void)a;
	return print_resync(c);
}

int cmd_agent_connections(struct ctl *c, const struct ctl_args *a)
{
	(void)a;
	return agent_only(c, "connections");
}

int cmd_agent_connect(struct ctl *c, const struct ctl_args *a)
{
	char req[ATSD_PROTO_LINE_MAX];

	snprintf(req, sizeof(req), "connect %s %s%s%s pkey=0x%04x", a->arg[0], a->arg[1],
		 a->cm_sid ? " " : "", a->cm_sid ? a->cm_sid : "", a->pkey);
	return agent_only(c, req);
}

int cmd_agent_disconnect(struct ctl *c, const struct ctl_args *a)
{
	char req[ATSD_PROTO_LINE_MAX];

	snprintf(req, sizeof(req), "disconnect %s", a->arg[0]);
	return agent_only(c, req);
}
