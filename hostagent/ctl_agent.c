/* atsctl's requests to atsd's local resolver socket. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atsd_client.h"
#include "ctl.h"
#include "log.h"

/* The agent's lines are words and key=value pairs; --json makes each an
 * object, naming the first plain words after names[]. */
static void print_agent_line(struct ctl *c, const char *line, size_t i, size_t n,
			     const char *const names[3])
{
	char buf[ATSD_LINE_MAX], *save = NULL, *tok;
	unsigned plain = 0, first = 1;

	if (!c->json) {
		printf("%s\n", line);
		return;
	}
	snprintf(buf, sizeof(buf), "%s", line);
	printf("%s{", i ? ",\n  " : "[\n  ");
	for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(tok, '=');

		if (eq) {
			*eq = '\0';
			printf("%s\"%s\": \"%s\"", first ? "" : ", ", tok, eq + 1);
		} else if (plain < 3) {
			printf("%s\"%s\": \"%s\"", first ? "" : ", ", names[plain++], tok);
		} else {
			printf("%s\"field%u\": \"%s\"", first ? "" : ", ", plain++, tok);
		}
		first = 0;
	}
	printf("}%s", i + 1 == n ? "\n]\n" : "");
}

/* stats lines are "name number": --json makes them one object. */
static void print_stats(struct ctl *c, const struct atsd_reply *rep)
{
	size_t i;

	if (!c->json) {
		for (i = 0; i < rep->nlines; i++)
			printf("%s\n", rep->lines[i]);
		return;
	}
	printf("{");
	for (i = 0; i < rep->nlines; i++) {
		const char *sp = strchr(rep->lines[i], ' ');
		int len = sp ? (int)(sp - rep->lines[i]) : (int)strlen(rep->lines[i]);
		const char *v = sp ? sp + 1 : "";
		int number = *v && strspn(v, "0123456789") == strlen(v);

		printf("%s\"%.*s\": %s%s%s", i ? ", " : "", len, rep->lines[i],
		       number ? "" : "\"", v, number ? "" : "\"");
	}
	printf("}\n");
}

/* Ask atsd: an exit status, or NO_AGENT when none listens (use the SA). */
int agent_call(struct ctl *c, const char *req, int print_recs)
{
	struct atsd_reply rep;
	struct sr_record *r;
	size_t i;
	int ret;

	ret = atsd_request(c->socket, req, 10000, &rep);
	if (ret == -ENOENT || ret == -ECONNREFUSED || ret == -ENOTDIR)
		return NO_AGENT;
	if (c->agent_fallback && (ret || (!rep.ok && !strcmp(rep.code, "EBUSY")))) {
		log_warn("atsd at %s: %s: asking the SA", c->socket,
			 ret ? strerror(-ret) : rep.message);
		if (!ret)
			atsd_reply_free(&rep);
		return NO_AGENT;
	}
	if (ret) {
		fprintf(stderr, "atsctl: atsd at %s: %s\n", c->socket, strerror(-ret));
		return EXIT_SA;
	}
	log_info("%s: answered by atsd (%s)", req, c->socket);
	if (!rep.ok) {
		ret = !strcmp(rep.code, "ENOENT") ? EXIT_NOTFOUND :
		      !strcmp(rep.code, "EINVAL") ? EXIT_USAGE : EXIT_SA;
		if (ret == EXIT_NOTFOUND && c->json && print_recs)
			print_records(c, NULL, 0);
		fprintf(stderr, "atsctl: %s: %s\n", req, rep.message);
		atsd_reply_free(&rep);
		return ret;
	}
	if (!print_recs) {
		static const char *const conn_names[3] = { "id", "role", "state" };
		static const char *const group_names[3] = { "pkey", "mgid", "state" };

		if (!strcmp(req, "stats"))
			print_stats(c, &rep);
		else if (c->json && !rep.nlines)
			printf("[]\n");
		else
			for (i = 0; i < rep.nlines; i++)
				print_agent_line(c, rep.lines[i], i, rep.nlines,
						 strcmp(req, "ipoib") ? conn_names : group_names);
		atsd_reply_free(&rep);
		return EXIT_FOUND;
	}
	r = calloc(rep.nlines + 1, sizeof(*r));
	for (i = 0; r && i < rep.nlines; i++)
		if (atsd_parse_record(rep.lines[i], &r[i])) {
			fprintf(stderr, "atsctl: atsd sent a bad record line '%s'\n", rep.lines[i]);
			free(r);
			atsd_reply_free(&rep);
			return EXIT_SA;
		}
	print_records(c, r, r ? rep.nlines : 0);
	ret = rep.nlines ? EXIT_FOUND : EXIT_NOTFOUND;
	free(r);
	atsd_reply_free(&rep);
	return ret;
}

int ctl_has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 1;
	return 0;
}

/* status lines: "SID GID PKEY LEASE IP STATE [REASON]". */
static int print_status(struct ctl *c)
{
	struct atsd_reply rep;
	size_t i;
	int ret = atsd_request(c->socket, "status", 10000, &rep);

	if (ret == -ENOENT || ret == -ECONNREFUSED || ret == -ENOTDIR) {
		fprintf(stderr, "atsctl: atsd is not running (no socket at %s)\n", c->socket);
		return EXIT_SA;
	}
	if (ret || !rep.ok) {
		fprintf(stderr, "atsctl: atsd at %s: %s\n", c->socket,
			ret ? strerror(-ret) : rep.message);
		if (!ret)
			atsd_reply_free(&rep);
		return EXIT_SA;
	}
	if (c->json)
		printf("{\"records\": [");
	else if (rep.nlines)
		printf("%-18s  %-26s  %-6s  %-10s  %-16s  %s\n", "SID", "GID", "PKEY", "LEASE",
		       "IP", "STATE");
	for (i = 0; i < rep.nlines; i++) {
		char sid[24], gid[64], ip[64], state[24], reason[256] = "", lease_s[16];
		unsigned pkey;
		unsigned long lease;
		int n = 0;

		if (sscanf(rep.lines[i], "%23s %63s %x %lu %63s %23s %n", sid, gid, &pkey, &lease,
			   ip, state, &n) < 6) {
			fprintf(stderr, "atsctl: atsd sent a bad status line '%s'\n", rep.lines[i]);
			atsd_reply_free(&rep);
			return EXIT_SA;
		}
		if (n)
			snprintf(reason, sizeof(reason), "%s", rep.lines[i] + n);
		if (lease == 0xffffffffUL)
			snprintf(lease_s, sizeof(lease_s), "infinite");
		else
			snprintf(lease_s, sizeof(lease_s), "%lu", lease);
		/* The SA's own words (sa_status_str): no quotes or backslashes. */
		if (c->json)
			printf("%s\n  {\"sid\": %s%s%s, \"gid\": \"%s\", \"pkey\": \"0x%04x\", \"lease\": %lu, \"ip\": \"%s\", \"primary\": %s, \"state\": \"%s\"%s%s%s}",
			       i ? "," : "", strcmp(sid, "-") ? "\"" : "", strcmp(sid, "-") ? sid : "null",
			       strcmp(sid, "-") ? "\"" : "", gid, pkey, lease, ip,
			       !strcmp(sid, "0x10000ce100415453") ? "true" : "false", state,
			       reason[0] ? ", \"reason\": \"" : "", reason, reason[0] ? "\"" : "");
		else
			printf("%-18s  %-26s  0x%04x  %-10s  %-16s  %s%s%s%s\n", sid, gid, pkey,
			       lease_s, ip, state,
			       reason[0] ? " (" : "", reason, reason[0] ? ")" : "");
	}
	if (c->json)
		printf("%s]}\n", rep.nlines ? "\n" : "");
	atsd_reply_free(&rep);
	return EXIT_FOUND;
}

int agent_only(struct ctl *c, const char *req, int print_recs)
{
	int ret = agent_call(c, req, print_recs);

	if (ret == NO_AGENT) {
		fprintf(stderr, "atsctl: atsd is not running (no socket at %s)\n", c->socket);
		return EXIT_SA;
	}
	return ret;
}

int cmd_agent(struct ctl *c, const char *cmd, const char *arg)
{
	char req[ATSD_LINE_MAX];

	if (!strcmp(cmd, "hold") || !strcmp(cmd, "release")) {
		if (!c->owner)
			return usage_err(cmd, arg, "needs --owner NAME");
		snprintf(req, sizeof(req), "%s %s %s 0x%04x", cmd, c->owner, arg, c->pkey);
		return agent_only(c, req, 0);
	}
	if (!strcmp(cmd, "resync"))
		return agent_only(c, "verify", 0);
	if (!strcmp(cmd, "connect")) {
		snprintf(req, sizeof(req), "connect %s %s%s%s", arg, c->cm_port,
			 c->cm_sid ? " " : "", c->cm_sid ? c->cm_sid : "");
		return agent_only(c, req, 0);
	}
	if (!strcmp(cmd, "disconnect")) {
		snprintf(req, sizeof(req), "disconnect %s", arg);
		return agent_only(c, req, 0);
	}
	if (!strcmp(cmd, "connections"))
		return agent_only(c, cmd, 0);
	if (!strcmp(cmd, "stats") || !strcmp(cmd, "ipoib"))
		return agent_only(c, cmd, 0);
	return print_status(c);
}

