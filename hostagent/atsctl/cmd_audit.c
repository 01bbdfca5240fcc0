#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ats.h"
#include "ats_audit.h"
#include "atsd_client.h"
#include "ats_query.h"
#include "cmd_audit.h"
#include "json.h"

struct recs {
	struct ats_set set;     /* the records, and the SA requests they took */
	int partial;            /* out-of-block records may be missing */
	int other_pkeys_missed; /* PKeys unknown: some partitions not read */
};

/* Anything with the ATS name or an ATS SID is the audit's business. */
static int rec_add(struct recs *r, const struct sr_record *s)
{
	if (!ats_sid_in_block(s->id) && !ats_name_is_ats(s->name))
		return 0;
	return ats_set_put(&r->set, s);
}

/* Every record of one GID: GetTable when RMPP works, else a SubnAdmGet
 * per SID of the block (per PKey when one SID matches several), plus the
 * first ATS-named record a cut table shows. */
static int collect_gid(struct sa_client *sa, const uint8_t *gid,
		       const uint16_t *pkeys, size_t npkeys, struct recs *r)
{
	struct sr_record q, got, *tab = NULL;
	size_t n = 0, i, k;
	unsigned s;
	int ret;

	memset(&q, 0, sizeof(q));
	memcpy(q.gid, gid, 16);
	if (sa_client_rmpp_state(sa) != 0) {
		r->set.queries++;
		ret = sa_sr_get_table(sa, &q, sr_comp_mask(SR_F_GID), &tab, &n);
		if (!ret) {
			for (i = 0; i < n && !ret; i++)
				ret = rec_add(r, &tab[i]);
			free(tab);
			return ret;
		}
		if (ret != -EMSGSIZE)
			return ret;
	}
	for (s = 0; s < ATS_SID_COUNT; s++) {
		q.id = ats_sid_at(s);
		r->set.queries++;
		ret = sa_sr_get(sa, &q, sr_comp_mask(SR_F_ID | SR_F_GID), &got);
		if (ret == -ENOENT)
			continue;
		if (!ret) {
			ret = rec_add(r, &got);
			if (ret)
				return ret;
			continue;
		}
		if (ret != -E2BIG)
			return ret;
		if (!npkeys)
			r->other_pkeys_missed = 1;
		for (k = 0; k < (npkeys ? npkeys : 1); k++) {
			static const uint16_t dflt = ATS_PKEY_DEFAULT;

			q.pkey = npkeys ? pkeys[k] : dflt;
			r->set.queries++;
			ret = sa_sr_get(sa, &q, sr_comp_mask(SR_F_ID | SR_F_GID | SR_F_PKEY), &got);
			if (ret == -ENOENT)
				continue;
			if (ret)
				return ret;
			ret = rec_add(r, &got);
			if (ret)
				return ret;
		}
		q.pkey = 0;
	}
	/* Outside the block only a name query finds them; without RMPP its
	 * answer holds the first one whole. */
	ats_name_put(q.name);
	q.id = 0;
	{
		uint8_t buf[SR_SIZE];
		struct sa_answer ans;

		sr_encode(buf, &q);
		r->set.queries++;
		ret = sa_request(sa, SA_METHOD_GET_TABLE, SA_ATTR_SERVICE_RECORD,
				 sr_comp_mask(SR_F_GID | SR_F_NAME), buf, sizeof(buf), &ans);
		if (ret == -ENOENT)
			return 0;
		if (ret)
			return ret;
		n = ans.data_len / SR_SIZE;
		if (ans.data_len % SR_SIZE)
			r->partial = 1;
		for (i = 0; i < n && !ret; i++) {
			sr_decode(ans.data + i * SR_SIZE, SR_SIZE, &got);
			ret = rec_add(r, &got);
		}
		sa_answer_free(&ans);
	}
	return ret;
}

/* The plugin's state file, read whole once: it is replaced atomically,
 * so one read sees one version. */
static int state_load(const char *path, char **out)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = fopen(path, "r"), *m;
	char chunk[4096];
	size_t n;
	int ret = 0;

	*out = NULL;
	if (!f)
		return -errno;
	m = open_memstream(&buf, &len);
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
	if (!ret && !strstr(buf, "\"counters\": {"))
		ret = -EPROTO;
	if (ret) {
		free(buf);
		return ret;
	}
	*out = buf;
	return 0;
}

/* GIDs the plugin's state file lists: ports that left the fabric still
 * have records there. */
static void state_gids(const char *text, uint8_t (**gids)[16], size_t *n)
{
	const char *g = text;

	*gids = NULL;
	*n = 0;
	while ((g = strstr(g, "\"gid\": \""))) {
		char buf[ATS_IP_STRLEN];
		size_t len;
		uint8_t (*v)[16];

		g += 8;
		len = strcspn(g, "\"");
		if (len >= sizeof(buf))
			continue;
		memcpy(buf, g, len);
		buf[len] = '\0';
		v = realloc(*gids, (*n + 1) * sizeof(*v));
		if (!v)
			break;
		*gids = v;
		if (!ats_gid_parse(buf, v[*n]))
			(*n)++;
	}
}

static void pkey_union_add(uint16_t *v, size_t *n, uint16_t pkey)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (v[i] == pkey)
			return;
	if (*n < AUDIT_MAX_PKEYS)
		v[(*n)++] = pkey;
}

/* PKeys of the records the plugin's state file lists. */
static void state_pkeys(const char *text, uint16_t *v, size_t *n)
{
	const char *p = text;
	unsigned k;

	while ((p = strstr(p, "\"pkey\": \""))) {
		p += 9;
		if (sscanf(p, "%x", &k) == 1 && k <= 0xffff)
			pkey_union_add(v, n, (uint16_t)k);
	}
}

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
		p++;
	return p;
}

/* Copy the state file's "counters" object, nested objects of unsigned
 * numbers with plain names, into j; -EPROTO for anything else, so that
 * nothing from the file is passed on unchecked. */
static int state_counters(const char *text, struct json *j, const char *name)
{
	const char *p = strstr(text, "\"counters\": {");
	int depth = 0;

	if (!p)
		return -EPROTO;
	p += 12;
	do {
		char key[64];
		size_t len;

		p = skip_ws(p);
		if (*p == '{' && !depth) {
			json_obj(j, name);
			depth++;
			p++;
			continue;
		}
		if (*p == '}') {
			depth--;
			json_end(j);
			p = skip_ws(p + 1);
			if (*p == ',')
				p++;
			continue;
		}
		if (*p != '"')
			return -EPROTO;
		len = strspn(p + 1, "abcdefghijklmnopqrstuvwxyz0123456789_-");
		if (len >= sizeof(key) || p[1 + len] != '"')
			return -EPROTO;
		memcpy(key, p + 1, len);
		key[len] = '\0';
		p = skip_ws(p + 2 + len);
		if (*p++ != ':')
			return -EPROTO;
		p = skip_ws(p);
		if (*p == '{') {
			json_obj(j, key);
			depth++;
			p++;
			continue;
		}
		len = strspn(p, "0123456789");
		if (!len || len > 20)
			return -EPROTO;
		json_u64(j, key, strtoull(p, NULL, 10));
		p = skip_ws(p + len);
		if (*p == ',')
			p++;
	} while (depth > 0);
	return 0;
}

/* The counters on one line, for people; -EPROTO when the file holds
 * no counters object of the expected shape. */
static int format_counters(const char *text, char **out)
{
	size_t len = 0;
	FILE *m = open_memstream(out, &len);
	struct json j;
	int ret;

	if (!m)
		return -errno;
	json_init(&j, m, 0);
	ret = state_counters(text, &j, NULL);
	if (json_fini(&j) && !ret)
		ret = -EPROTO;
	fclose(m);
	if (ret) {
		free(*out);
		*out = NULL;
	} else if (len) {
		(*out)[len - 1] = '\0';
	}
	return ret;
}

static int save(const char *path, const struct recs *r)
{
	char line[256];
	FILE *f = fopen(path, "w");
	size_t i;

	if (!f)
		return -errno;
	fprintf(f, "# ibats ATS inventory: SID GID PKEY LEASE IP\n");
	for (i = 0; i < r->set.n; i++) {
		atsd_format_record(line, sizeof(line), &r->set.recs[i]);
		fprintf(f, "%s\n", line);
	}
	return fclose(f) ? -errno : 0;
}

static int same_key(const struct sr_record *a, const struct sr_record *b)
{
	return a->id == b->id && a->pkey == b->pkey && !memcmp(a->gid, b->gid, 16);
}

/* Missing, extra and changed records against an inventory file. */
static int inventory(const char *path, const struct recs *r, struct json *j, unsigned *diffs)
{
	struct recs inv = { 0 };
	char line[256], a[256], b[256];
	FILE *f = fopen(path, "r");
	size_t i, k;

	*diffs = 0;
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		struct sr_record s;

		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#' || !line[0])
			continue;
		if (atsd_parse_record(line, &s) || rec_add(&inv, &s)) {
			fclose(f);
			ats_set_free(&inv.set);
			return -EPROTO;
		}
	}
	fclose(f);
	if (j)
		json_arr(j, "inventory");
	for (i = 0; i < inv.set.n + r->set.n; i++) {
		const struct sr_record *x = i < inv.set.n ? &inv.set.recs[i] : &r->set.recs[i - inv.set.n];
		const struct recs *other = i < inv.set.n ? r : &inv;
		const char *what = NULL;

		for (k = 0; k < other->set.n && !same_key(x, &other->set.recs[k]); k++)
			;
		if (k == other->set.n)
			what = i < inv.set.n ? "missing" : "extra";
		else if (i < inv.set.n && (memcmp(x->data8, other->set.recs[k].data8, 16) ||
				       x->lease != other->set.recs[k].lease))
			what = "changed";
		if (!what)
			continue;
		(*diffs)++;
		atsd_format_record(a, sizeof(a), x);
		if (!strcmp(what, "changed"))
			atsd_format_record(b, sizeof(b), &other->set.recs[k]);
		if (j) {
			json_obj(j, NULL);
			json_str(j, "diff", what);
			json_str(j, "record", a);
			if (!strcmp(what, "changed"))
				json_str(j, "now", b);
			json_end(j);
		} else {
			printf("inventory %s: %s%s%s\n", what, a,
			       !strcmp(what, "changed") ? "  now: " : "",
			       !strcmp(what, "changed") ? b : "");
		}
	}
	if (j)
		json_end(j);
	ats_set_free(&inv.set);
	return 0;
}

int audit_cmd(struct sa_client *sa, const struct audit_opts *o)
{
	struct audit_port *ap = NULL;
	struct sa_port *ports = NULL;
	uint8_t (*extra)[16] = NULL;
	struct audit_result res = { 0 };
	struct recs r = { 0 };
	size_t nports = 0, nextra = 0, i, k, issues = 0, nallpk = 0;
	uint16_t allpk[AUDIT_MAX_PKEYS];
	unsigned diffs = 0;
	char line[256], *state = NULL, *counters = NULL, *doc = NULL;
	size_t doclen = 0;
	FILE *out = NULL;
	struct json j;
	int ret;

	/* A state file named but unusable is an error, not a clean audit. */
	if (o->state) {
		ret = state_load(o->state, &state);
		if (!ret)
			ret = format_counters(state, &counters);
		if (ret) {
			fprintf(stderr, "atsctl: audit --state %s: %s\n", o->state,
				ret == -EPROTO ? "not a state file of the osmats plugin" :
				strerror(-ret));
			free(state);
			return 3;
		}
	}
	ret = sa_ports(sa, SA_PORTS_GAP, &ports, &nports);
	if (ret)
		goto fail;
	ap = calloc(nports + 1, sizeof(*ap));
	if (!ap) {
		ret = -ENOMEM;
		goto fail;
	}
	for (i = 0; i < nports; i++) {
		int n;

		memcpy(ap[i].gid, ports[i].gid, 16);
		ap[i].lid = ports[i].lid;
		ap[i].lid = ports[i].lid;
		ap[i].sys_guid = ports[i].sys_guid;
		/* OpenSM answers PKeyTableRecord to trusted requesters only. */
		n = sa_client_keyed(sa) ?
		    sa_port_pkeys(sa, ports[i].lid, ports[i].port_num, ap[i].pkeys,
				  AUDIT_MAX_PKEYS) : -EACCES;
		if (n >= 0) {
			ap[i].npkeys = (size_t)n;
			ap[i].pkeys_known = 1;
		}
		for (k = 0; k < ap[i].npkeys; k++)
			pkey_union_add(allpk, &nallpk, ap[i].pkeys[k]);
	}
	if (state)
		state_pkeys(state, allpk, &nallpk);
	/* A record may sit in a partition its port no longer holds: ask in
	 * every partition seen anywhere. */
	for (i = 0; i < nports; i++) {
		ret = collect_gid(sa, ap[i].gid, allpk, nallpk, &r);
		if (ret)
			goto fail;
	}
	if (state) {
		state_gids(state, &extra, &nextra);
		for (i = 0; i < nextra; i++) {
			for (k = 0; k < nports && memcmp(ap[k].gid, extra[i], 16); k++)
				;
			if (k == nports && (ret = collect_gid(sa, extra[i], allpk, nallpk, &r)))
				goto fail;
		}
	}
	ret = audit_run(r.set.recs, r.set.n, ap, nports, &res);
	if (ret)
		goto fail;
	if (o->json) {
		/* Whole or not at all: a failure below discards it. */
		out = open_memstream(&doc, &doclen);
		if (!out) {
			ret = -errno;
			goto fail;
		}
		json_init(&j, out, 0);
		json_obj(&j, NULL);
		json_u64(&j, "ports", nports);
		json_u64(&j, "records", r.set.n);
		json_u64(&j, "sa_queries", r.set.queries);
		json_bool(&j, "partial", r.partial || r.other_pkeys_missed);
		json_bool(&j, "keyed", sa_client_keyed(sa));
		json_arr(&j, "findings");
		for (i = 0; i < res.n; i++) {
			const struct audit_finding *f = &res.f[i];

			json_obj(&j, NULL);
			json_str(&j, "severity", audit_severity_name(f->severity));
			json_str(&j, "kind", audit_kind_name(f->kind));
			json_str(&j, "text", f->text);
			if (f->kind == AUD_NAME && f->rec[0] != (size_t)-1) {
				const uint8_t *nm = r.set.recs[f->rec[0]].name;

				json_strn(&j, "service_name", nm, strnlen((const char *)nm, SR_NAME_LEN));
			}
			json_arr(&j, "records");
			for (k = 0; k < 2; k++) {
				if (f->rec[k] == (size_t)-1)
					continue;
				atsd_format_record(line, sizeof(line), &r.set.recs[f->rec[k]]);
				json_str(&j, NULL, line);
			}
			json_end(&j);
			json_end(&j);
		}
		json_end(&j);
	} else {
		printf("audited %zu ATS record(s) of %zu port(s) in %u SA request(s)\n",
		       r.set.n, nports, r.set.queries);
		if (r.partial)
			printf("info: without RMPP, records outside the SID block were seen only as the first of each answer\n");
		if (!sa_client_keyed(sa))
			printf("info: PKey membership and ServiceKeys not checked: they need the SA key (-k)\n");
		if (r.other_pkeys_missed)
			printf("info: a SID with records in several partitions was read in 0xffff only (PKeys need -k)\n");
		for (i = 0; i < res.n; i++) {
			const struct audit_finding *f = &res.f[i];

			printf("%s %s: %s", audit_severity_name(f->severity),
			       audit_kind_name(f->kind), f->text);
			if (f->kind == AUD_NAME && f->rec[0] != (size_t)-1) {
				const uint8_t *nm = r.set.recs[f->rec[0]].name;
				char esc[6 * SR_NAME_LEN + 1];

				/* Escaped as in JSON: no control byte reaches the terminal. */
				json_escape(esc, sizeof(esc), nm, strnlen((const char *)nm, SR_NAME_LEN));
				printf(" (it is \"%s\")", esc);
			}
			printf("\n");
			for (k = 0; k < 2; k++) {
				if (f->rec[k] == (size_t)-1)
					continue;
				atsd_format_record(line, sizeof(line), &r.set.recs[f->rec[k]]);
				printf("    %s\n", line);
			}
		}
	}
	for (i = 0; i < res.n; i++)
		issues += res.f[i].severity != AUDIT_INFO;
	if (o->inventory) {
		ret = inventory(o->inventory, &r, o->json ? &j : NULL, &diffs);
		if (ret) {
			fprintf(stderr, "atsctl: audit --inventory %s: %s\n", o->inventory,
				ret == -EPROTO ? "not an inventory file" : strerror(-ret));
			ret = 3;
			goto out;
		}
		issues += diffs;
	}
	if (o->json) {
		if (state)
			state_counters(state, &j, "sm_counters");
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
		ret = save(o->save, &r);
		if (ret) {
			fprintf(stderr, "atsctl: audit --save %s: %s\n", o->save, strerror(-ret));
			ret = 3;
			goto out;
		}
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
	audit_free(&res);
	free(counters);
	free(state);
	free(extra);
	free(ap);
	free(ports);
	ats_set_free(&r.set);
	return ret;
}
