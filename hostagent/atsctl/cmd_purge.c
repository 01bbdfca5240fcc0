/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* atsctl purge: the records audit reports gid-absent (ats_audit.c decides,
 * over the fabric's CA ports and every ATS record of one partition), each
 * deleted by its RID with the SA key: the plugin lets a trusted requester
 * delete any ATS record, its port present or not (libosmats(8)). So each
 * GID's port is asked for again just before its record goes: the port
 * list may be old (a port back since), or short (the walk without RMPP
 * stops at a gap of SA_CLIENT_PORTS_GAP LIDs), and a present port's record is
 * its atsd's. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ats.h"
#include "host/ats_audit.h"
#include "host/ats_query.h"
#include "cmd_purge.h"
#include "ctl.h"
#include "core/json.h"
#include "out.h"
#include "core/wire.h"

/* The records to delete: indexes into the set, secondaries first (the
 * plugin's primary-first rule refuses a primary deleted before them). */
struct purge_list {
	size_t *idx;
	size_t n;
};

static int purge_find(struct sa_client *sa, const struct ats_query_set *s, struct purge_list *out)
{
	struct ats_audit_result res = { 0 };
	struct ats_audit_port *ap;
	struct sa_client_ca_port *ports;
	size_t nports, i, pass;
	int ret;

	ret = sa_client_ports(sa, SA_CLIENT_PORTS_GAP, &ports, &nports);
	if (ret)
		return ret;
	ap = calloc(nports + 1, sizeof(*ap));
	if (!ap) {
		free(ports);
		return -ENOMEM;
	}
	for (i = 0; i < nports; i++) {
		memcpy(ap[i].gid, ports[i].gid, 16);
		ap[i].lid = ports[i].lid;
		ap[i].sys_guid = ports[i].sys_guid;
	}
	free(ports);
	ret = ats_audit_check(s->recs, s->n, ap, nports, &res);
	free(ap);
	if (ret)
		return ret;
	out->idx = calloc(res.n + 1, sizeof(*out->idx));
	if (!out->idx) {
		ats_audit_free(&res);
		return -ENOMEM;
	}
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < res.n; i++) {
			const struct ats_audit_finding *f = &res.f[i];

			if (f->kind == ATS_AUDIT_GID_ABSENT &&
			    (s->recs[f->rec[0]].id == ATS_SID_PRIMARY) == (pass == 1))
				out->idx[out->n++] = f->rec[0];
		}
	ats_audit_free(&res);
	return 0;
}

/* error: why a Delete failed, or why the record is kept (its port's LID
 * when present). */
static void record_json(struct json *j, const struct sr_record *r, const char *action,
			const char *error, uint16_t lid)
{
	json_obj(j, NULL);
	out_record_members(j, r);
	json_str(j, "action", action);
	if (lid)
		json_u64(j, "lid", lid);
	else if (error)
		json_str(j, "error", error);
	json_end(j);
}

/* Whether the port of r's GID is on the fabric now (NodeRecord by its
 * PortGUID, the GID's interface ID): 1 with its LID in *lid, 0 when no
 * port has it, else -errno. */
static int port_present(struct sa_client *sa, const struct sr_record *r, uint16_t *lid)
{
	struct nr_record nr;
	int ret = sa_client_node_of_port(sa, wire_get64(r->gid + 8), &nr);

	if (ret == -ENOENT)
		return 0;
	if (ret)
		return ret;
	*lid = nr.lid;
	return 1;
}

/* The SA's words for a failed Delete. */
static const char *delete_error(struct sa_client *sa, int err, char *buf, size_t len)
{
	uint16_t st = sa_client_last_status(sa);

	if (st)
		snprintf(buf, len, "SA status 0x%04x: %s%s", st, sa_status_str(st),
			 (st >> 8) == SA_STATUS_REQ_INVALID ?
			 " (needs the SA key, -k, or a trusted_guids port; the SM's log names the rule)" : "");
	else
		snprintf(buf, len, "%s", strerror(-err));
	return buf;
}

/* What purge did with the records so far. */
struct purge_counts {
	size_t deleted, failed, present;
};

/* One absent port's record: kept when its port is back, deleted with
 * yes, else only listed. The action's name; *why (in err) says why it
 * was kept or failed, *lid is the port's when present. */
static const char *purge_record(struct sa_client *sa, const struct sr_record *r, int yes,
				struct purge_counts *n, char *err, size_t errlen,
				uint16_t *lid, const char **why)
{
	int ret = port_present(sa, r, lid);

	if (ret > 0) {
		snprintf(err, errlen, "the port is on the fabric (LID %u): kept", *lid);
		*why = err;
		n->present++;
		return "present";
	}
	if (ret) {
		snprintf(err, errlen, "cannot ask for its port: %s", strerror(-ret));
		*why = err;
		n->failed++;
		return "failed";
	}
	if (!yes)
		return "would-delete";
	ret = sa_client_sr_delete(sa, r, sr_comp_mask(SR_F_ID | SR_F_GID | SR_F_PKEY |
						      SR_F_NAME), NULL);
	if (ret) {
		*why = delete_error(sa, ret, err, errlen);
		n->failed++;
		return "failed";
	}
	n->deleted++;
	return "deleted";
}

/* The closing counts: the document's members, or the text's last lines. */
static void print_summary(struct json *j, int yes, size_t found, const struct purge_counts *n)
{
	if (j) {
		json_end(j);
		json_u64(j, "found", found - n->present);
		json_u64(j, "present", n->present);
		json_u64(j, "deleted", n->deleted);
		json_u64(j, "failed", n->failed);
		json_end(j);
		json_fini(j);
		return;
	}
	if (!yes) {
		size_t k = found - n->present - n->failed;

		printf("would delete %zu record%s%s\n", k, k == 1 ? "" : "s",
		       k ? " (run with --yes to delete)" : "");
	} else {
		printf("deleted %zu record%s, %zu failed\n", n->deleted, n->deleted == 1 ? "" : "s",
		       n->failed);
	}
	if (n->present)
		printf("kept %zu record%s: the port is on the fabric\n", n->present,
		       n->present == 1 ? "" : "s");
}

int cmd_purge(struct ctl *c, const struct ctl_args *a)
{
	struct purge_list l = { 0 };
	struct ats_query_set s = { 0 };
	struct purge_counts n = { 0 };
	size_t i;
	char line[256], err[160];
	struct json j;
	int ret;

	ret = ats_query_all(c->sa, a->pkey, &s);
	if (!ret)
		ret = purge_find(c->sa, &s, &l);
	if (ret) {
		ats_query_set_free(&s);
		return out_sa_fail(c, "purge", ret);
	}
	if (s.by_port)
		fprintf(stderr, "atsctl: purge: without RMPP, SIDs held by several GIDs were read "
			"port by port: records of absent ports can be missing\n");
	if (c->json) {
		json_init(&j, stdout, 0);
		json_obj(&j, NULL);
		json_hex16(&j, "pkey", a->pkey);
		json_bool(&j, "dry_run", !a->yes);
		json_arr(&j, "records");
	}
	for (i = 0; i < l.n; i++) {
		const struct sr_record *r = &s.recs[l.idx[i]];
		const char *action, *why = NULL;
		uint16_t lid = 0;

		action = purge_record(c->sa, r, a->yes, &n, err, sizeof(err), &lid, &why);
		if (c->json) {
			record_json(&j, r, action, why, lid);
			continue;
		}
		out_record_text(line, sizeof(line), r);
		printf("%s %s%s%s\n", a->yes || why ? action : "gid-absent", line,
		       why ? ": " : "", why ? why : "");
	}
	print_summary(c->json ? &j : NULL, a->yes, l.n, &n);
	free(l.idx);
	ats_query_set_free(&s);
	return n.failed ? CTL_EXIT_SA : CTL_EXIT_FOUND;
}
