/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* atsctl audit: every ATS record of the fabric, read by GID through
 * ats_query, checked by ats_audit against the spec, compared with an
 * inventory and with the plugin's state file. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ats.h"
#include "host/ats_audit.h"
#include "host/atsd_client.h"
#include "host/ats_query.h"
#include "core/cfg.h"
#include "cmd_audit.h"
#include "ctl.h"
#include "core/json.h"
#include "out.h"
#include "core/state_file.h"

static void pkey_union_add(uint16_t *v, size_t *n, uint16_t pkey)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (v[i] == pkey)
			return;
	if (*n < ATS_AUDIT_MAX_PKEYS)
		v[(*n)++] = pkey;
}

/* The plugin's state file: its partitions and the PKeys of the records
 * of absent ports join the union of PKeys asked in. */
static void state_pkeys(const struct state_file *sf, uint16_t *v, size_t *n)
{
	size_t i;

	for (i = 0; i < sf->summary.npkeys; i++)
		pkey_union_add(v, n, sf->summary.pkeys[i].pkey);
	for (i = 0; i < sf->nrecs; i++)
		pkey_union_add(v, n, sf->recs[i].pkey);
}

/* The SM-side counters on one line, for people. */
static int format_counters(const struct state_file_counters *cnt, char **out)
{
	size_t len = 0;
	FILE *m = open_memstream(out, &len);
	struct json j;
	int ret;

	if (!m)
		return -errno;
	json_init(&j, m, 0);
	state_file_counters_json(&j, NULL, cnt);
	ret = json_fini(&j);
	if (fclose(m) && !ret)
		ret = -ENOMEM;
	if (ret) {
		free(*out);
		*out = NULL;
	} else if (len) {
		(*out)[len - 1] = '\0';
	}
	return ret;
}

static int save(const char *path, const struct ats_query_set *r)
{
	char line[256];
	FILE *f = fopen(path, "w");
	size_t i;

	if (!f)
		return -errno;
	fprintf(f, "# ibats ATS inventory: SID GID PKEY LEASE IP\n");
	for (i = 0; i < r->n; i++) {
		atsd_proto_format_record(line, sizeof(line), &r->recs[i]);
		fprintf(f, "%s\n", line);
	}
	return fclose(f) ? -errno : 0;
}

static int same_key(const struct sr_record *a, const struct sr_record *b)
{
	return a->id == b->id && a->pkey == b->pkey && !memcmp(a->gid, b->gid, 16);
}

/* Missing, extra and changed records against an inventory file. */
static int inventory(const char *path, const struct ats_query_set *r, struct json *j, unsigned *diffs)
{
	struct ats_query_set inv = { 0 };
	char line[256], a[256], b[256];
	FILE *f = cfg_fopen_regular(path); /* not a FIFO: no hang */
	size_t i, k;

	*diffs = 0;
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		struct sr_record s;

		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#' || !line[0])
			continue;
		if (atsd_proto_parse_record(line, &s) || ats_query_set_put(&inv, &s)) {
			fclose(f);
			ats_query_set_free(&inv);
			return -EPROTO;
		}
	}
	fclose(f);
	if (j)
		json_arr(j, "inventory");
	for (i = 0; i < inv.n + r->n; i++) {
		const struct sr_record *x = i < inv.n ? &inv.recs[i] : &r->recs[i - inv.n];
		const struct ats_query_set *other = i < inv.n ? r : &inv;
		const char *what = NULL;

		for (k = 0; k < other->n && !same_key(x, &other->recs[k]); k++)
			;
		if (k == other->n)
			what = i < inv.n ? "missing" : "extra";
		else if (i < inv.n && (memcmp(x->data8, other->recs[k].data8, 16) ||
				       x->lease != other->recs[k].lease))
			what = "changed";
		if (!what)
			continue;
		(*diffs)++;
		atsd_proto_format_record(a, sizeof(a), x);
		if (!strcmp(what, "changed"))
			atsd_proto_format_record(b, sizeof(b), &other->recs[k]);
		if (j) {
			json_obj(j, NULL);
			json_str(j, "diff", what);
			json_obj(j, "record");
			out_record_members(j, x);
			json_end(j);
			if (!strcmp(what, "changed")) {
				json_obj(j, "now");
				out_record_members(j, &other->recs[k]);
				json_end(j);
			}
			json_end(j);
		} else {
			printf("inventory %s: %s%s%s\n", what, a,
			       !strcmp(what, "changed") ? "  now: " : "",
			       !strcmp(what, "changed") ? b : "");
		}
	}
	if (j)
		json_end(j);
	ats_query_set_free(&inv);
	return 0;
}

/* What the audit read: the fabric's ports and every ATS claim. */
struct audit_input {
	struct ats_audit_port *ports;
	size_t nports;
	struct ats_query_set recs;
};

static void audit_input_free(struct audit_input *in)
{
	free(in->ports);
	ats_query_set_free(&in->recs);
}

/* The ports with their PKeys, then the records of every port's GID and
 * of every GID the state file lists, in every partition seen anywhere:
 * a record may sit in a partition its port no longer holds. */
static int audit_collect(struct sa_client *sa, const struct state_file *sf,
			 struct audit_input *in)
{
	uint64_t sent = sa_client_requests(sa);
	uint16_t allpk[ATS_AUDIT_MAX_PKEYS];
	struct sa_client_ca_port *ports = NULL;
	size_t nports = 0, nallpk = 0, i, k;
	int ret;

	ret = sa_client_ports(sa, SA_CLIENT_PORTS_GAP, &ports, &nports);
	if (ret)
		return ret;
	in->ports = calloc(nports + 1, sizeof(*in->ports));
	if (!in->ports) {
		free(ports);
		return -ENOMEM;
	}
	in->nports = nports;
	for (i = 0; i < nports; i++) {
		struct ats_audit_port *p = &in->ports[i];
		int n;

		memcpy(p->gid, ports[i].gid, 16);
		p->lid = ports[i].lid;
		p->sys_guid = ports[i].sys_guid;
		/* OpenSM answers PKeyTableRecord to trusted requesters only. */
		n = sa_client_keyed(sa) ?
		    sa_client_port_pkeys(sa, ports[i].lid, ports[i].port_num, p->pkeys,
				  ATS_AUDIT_MAX_PKEYS) : -EACCES;
		if (n >= 0) {
			p->npkeys = (size_t)n;
			p->pkeys_known = 1;
		}
		for (k = 0; k < p->npkeys; k++)
			pkey_union_add(allpk, &nallpk, p->pkeys[k]);
	}
	free(ports);
	if (sf)
		state_pkeys(sf, allpk, &nallpk);
	for (i = 0; i < nports && !ret; i++)
		ret = ats_query_gid_claims(sa, in->ports[i].gid, allpk, nallpk, &in->recs);
	/* Ports that left the fabric still have records. */
	for (i = 0; sf && i < sf->nrecs && !ret; i++) {
		for (k = 0; k < nports && memcmp(in->ports[k].gid, sf->recs[i].gid, 16); k++)
			;
		if (k == nports)
			ret = ats_query_gid_claims(sa, sf->recs[i].gid, allpk, nallpk, &in->recs);
	}
	/* Every request: the ports and their PKeys too. */
	in->recs.queries = (unsigned)(sa_client_requests(sa) - sent);
	return ret;
}

/* A finding as one object: what and why, then its record's members as
 * every --json record has them, and the record it conflicts with as
 * "other" (atsctl.8, audit). */
static void finding_json(struct json *j, const struct ats_audit_finding *f,
			 const struct sr_record *recs)
{
	json_obj(j, NULL);
	json_str(j, "severity", ats_audit_severity_name(f->severity));
	json_str(j, "kind", ats_audit_kind_name(f->kind));
	json_str(j, "detail", f->text);
	if (f->rec[0] != (size_t)-1) {
		const struct sr_record *r = &recs[f->rec[0]];

		out_record_members(j, r);
		if (f->kind == ATS_AUDIT_NAME)
			json_strn(j, "service_name", r->name,
				  strnlen((const char *)r->name, SR_NAME_LEN));
	}
	if (f->rec[1] != (size_t)-1) {
		json_obj(j, "other");
		out_record_members(j, &recs[f->rec[1]]);
		json_end(j);
	}
	json_end(j);
}

static void finding_text(const struct ats_audit_finding *f, const struct sr_record *recs)
{
	char line[256];
	size_t k;

	printf("%s %s: %s", ats_audit_severity_name(f->severity),
	       ats_audit_kind_name(f->kind), f->text);
	if (f->kind == ATS_AUDIT_NAME && f->rec[0] != (size_t)-1) {
		const uint8_t *nm = recs[f->rec[0]].name;
		char esc[6 * SR_NAME_LEN + 1];

		/* Escaped as in JSON: no control byte reaches the terminal. */
		json_escape(esc, sizeof(esc), nm, strnlen((const char *)nm, SR_NAME_LEN));
		printf(" (it is \"%s\")", esc);
	}
	printf("\n");
	for (k = 0; k < 2; k++) {
		if (f->rec[k] == (size_t)-1)
			continue;
		out_record_text(line, sizeof(line), &recs[f->rec[k]]);
		printf("    %s\n", line);
	}
}

/* A state file named but unusable is an error, not a clean audit. */
static int audit_state(const char *path, struct state_file *sf, char **counters)
{
	char err[200];
	int ret = state_file_read(path, sf, err, sizeof(err));

	if (!ret)
		ret = format_counters(&sf->counters, counters);
	if (ret == -EINVAL)
		fprintf(stderr, "atsctl: audit --state %s: not a state file of the osmats plugin (%s)\n",
			path, err);
	else if (ret)
		fprintf(stderr, "atsctl: audit --state %s: %s\n", path, strerror(-ret));
	return ret;
}

/* The report's head in JSON: what was read, then the findings, in the
 * array left open for --inventory's differences. */
static void head_json(struct json *j, struct sa_client *sa, const struct audit_input *in,
		      const struct ats_audit_result *res)
{
	size_t i;

	json_obj(j, NULL);
	json_u64(j, "ports", in->nports);
	json_u64(j, "records", in->recs.n);
	json_u64(j, "sa_queries", in->recs.queries);
	json_bool(j, "partial", in->recs.name_cut || in->recs.pkeys_missed);
	json_bool(j, "keyed", sa_client_keyed(sa));
	json_arr(j, "findings");
	for (i = 0; i < res->n; i++)
		finding_json(j, &res->f[i], in->recs.recs);
	json_end(j);
}

/* The report's head as text: what was read and what was not checked,
 * then the findings. */
static void head_text(struct sa_client *sa, const struct audit_input *in,
		      const struct ats_audit_result *res)
{
	size_t i;

	printf("audited %zu ATS record(s) of %zu port(s) in %u SA request(s)\n",
	       in->recs.n, in->nports, in->recs.queries);
	if (in->recs.name_cut)
		printf("info: without RMPP, records outside the SID block were seen only as the first of each answer\n");
	if (!sa_client_keyed(sa))
		printf("info: PKey membership and ServiceKeys not checked: they need the SA key (-k)\n");
	if (in->recs.pkeys_missed)
		printf("info: a SID with records in several partitions was read in 0xffff only (PKeys need -k)\n");
	for (i = 0; i < res->n; i++)
		finding_text(&res->f[i], in->recs.recs);
}

/* --inventory: its differences count as issues; 0, or the exit status 3
 * when the file cannot be read. */
static int audit_inventory(const char *path, const struct ats_query_set *recs, struct json *j,
			   size_t *issues)
{
	unsigned diffs = 0;
	int ret = inventory(path, recs, j, &diffs);

	if (ret) {
		fprintf(stderr, "atsctl: audit --inventory %s: %s\n", path,
			ret == -EPROTO ? "not an inventory file" :
			ret == -EINVAL ? "not a regular file" : strerror(-ret));
		return 3;
	}
	*issues += diffs;
	return 0;
}

/* --save: 0, or the exit status 3 when the file cannot be written. */
static int audit_save(const char *path, const struct ats_query_set *recs)
{
	int ret = save(path, recs);

	if (ret) {
		fprintf(stderr, "atsctl: audit --save %s: %s\n", path, strerror(-ret));
		return 3;
	}
	return 0;
}

int cmd_audit(struct ctl *c, const struct ctl_args *a)
{
	const struct cmd_audit_opts *o = &a->audit;
	struct sa_client *sa = c->sa;
	struct ats_audit_result res = { 0 };
	struct audit_input in = { 0 };
	struct state_file sf = { 0 };
	size_t i, issues = 0;
	char *counters = NULL, *doc = NULL;
	size_t doclen = 0;
	FILE *out = NULL;
	struct json j;
	int ret;

	if (o->state && audit_state(o->state, &sf, &counters))
		return 3;
	ret = audit_collect(sa, o->state ? &sf : NULL, &in);
	if (!ret)
		ret = ats_audit_check(in.recs.recs, in.recs.n, in.ports, in.nports, &res);
	if (ret)
		goto fail;
	if (c->json) {
		/* Whole or not at all: a failure below discards it. */
		out = open_memstream(&doc, &doclen);
		if (!out) {
			ret = -errno;
			goto fail;
		}
		json_init(&j, out, 0);
		head_json(&j, sa, &in, &res);
	} else {
		head_text(sa, &in, &res);
	}
	for (i = 0; i < res.n; i++)
		issues += res.f[i].severity != ATS_AUDIT_INFO;
	if (o->inventory) {
		ret = audit_inventory(o->inventory, &in.recs, c->json ? &j : NULL, &issues);
		if (ret)
			goto out;
	}
	if (c->json) {
		if (o->state)
			state_file_counters_json(&j, "sm_counters", &sf.counters);
		json_u64(&j, "issues", issues);
		json_end(&j);
		json_fini(&j);
		fclose(out);
		out = NULL;
		fwrite(doc, 1, doclen, stdout);
	} else {
		if (counters)
			printf("SM-side counters (%s): %s\n", o->state, counters);
		printf("%zu finding(s)%s\n", issues, issues ? "" : ": clean");
	}
	if (o->save) {
		ret = audit_save(o->save, &in.recs);
		if (ret)
			goto out;
	}
	ret = issues ? 1 : 0;
	goto out;
fail:
	fprintf(stderr, "atsctl: audit: %s\n", sa_client_last_status(sa) ?
		sa_status_str(sa_client_last_status(sa)) : strerror(-ret));
	ret = 3;
out:
	if (out)
		fclose(out);
	free(doc);
	ats_audit_free(&res);
	free(counters);
	state_file_free(&sf);
	audit_input_free(&in);
	return ret;
}
