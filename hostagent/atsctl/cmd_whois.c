/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* atsctl whois and --names: a GID's port by its GUID (NodeRecord
 * SubnAdmGet with PortGUID in the mask, sa_client.h), named as
 * infiniband-diags names nodes: the node name map's entry for the
 * NodeGUID, else the NodeDescription (remap_node_name() in their
 * ibdiag_common.c does the same). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ats.h"
#include "host/ats_query.h"
#include "cmd_whois.h"
#include "ctl.h"
#include "core/json.h"
#include "host/node_map.h"
#include "out.h"
#include "core/wire.h"

/* What the SA says of one GID's port; present 0 when no port has it. */
struct whois_node {
	int present;
	struct nr_record nr;
	const char *name; /* the map's, or NULL: the NodeDescription */
};

struct whois {
	const struct ctl *c;
	struct node_map *map;
};

/* The map named by --node-name-map: an exit status. */
static int whois_open(struct whois *w, const struct ctl *c)
{
	char err[320];

	memset(w, 0, sizeof(*w));
	w->c = c;
	if (c->node_name_map && node_map_load(c->node_name_map, &w->map, err, sizeof(err))) {
		fprintf(stderr, "atsctl: --node-name-map %s\n", err);
		return CTL_EXIT_USAGE;
	}
	return 0;
}

static int whois_node(struct whois *w, const uint8_t *gid, struct whois_node *out)
{
	int ret;

	memset(out, 0, sizeof(*out));
	/* The GID's interface ID is its port GUID (IBTA Vol 1 4.1.1). */
	ret = sa_client_node_of_port(w->c->sa, wire_get64(gid + 8), &out->nr);
	if (ret == -ENOENT)
		return 0;
	if (ret)
		return ret;
	out->present = 1;
	out->name = node_map_name(w->map, out->nr.node_guid);
	return 0;
}

/* The name for a terminal: the map's, or the NodeDescription with
 * control bytes as \xNN; "-" for a GID no port has. */
static const char *node_text(const struct whois_node *n, char *buf, size_t len)
{
	char desc[NR_DESC_LEN + 1];

	if (!n->present)
		return "-";
	if (n->name)
		return out_clean(n->name, buf, len);
	memcpy(desc, n->nr.desc, NR_DESC_LEN);
	desc[NR_DESC_LEN] = '\0';
	return out_clean(desc, buf, len);
}

static void node_json(struct json *j, const struct whois_node *n)
{
	size_t dlen = strnlen((const char *)n->nr.desc, NR_DESC_LEN);

	json_bool(j, "present", n->present);
	if (!n->present)
		return;
	json_u64(j, "lid", n->nr.lid);
	json_hex64(j, "node_guid", n->nr.node_guid);
	json_strn(j, "node_description", n->nr.desc, dlen);
	if (n->name)
		json_str(j, "name", n->name);
	else
		json_strn(j, "name", n->nr.desc, dlen);
}

static void record_json(struct json *j, const struct sr_record *r, const struct whois_node *n,
			int local)
{
	json_obj(j, NULL);
	out_record_members(j, r);
	if (local)
		json_bool(j, "local", 1);
	node_json(j, n);
	json_end(j);
}

/* One query per distinct GID, in the records' order. */
static int lookup_all(struct whois *w, const struct sr_record *r, size_t n,
		      struct whois_node **out)
{
	struct whois_node *v = calloc(n ? n : 1, sizeof(*v));
	size_t i, k;
	int ret = 0;

	if (!v)
		return -ENOMEM;
	for (i = 0; i < n && !ret; i++) {
		for (k = 0; k < i && memcmp(r[k].gid, r[i].gid, 16); k++)
			;
		if (k < i)
			v[i] = v[k];
		else
			ret = whois_node(w, r[i].gid, &v[i]);
	}
	if (ret) {
		free(v);
		return ret;
	}
	*out = v;
	return 0;
}

static void print_json(const struct sr_record *r, const struct whois_node *v, size_t n,
		       int partial, int local, const char *ip)
{
	struct json j;
	size_t i;

	out_records_open(&j, ip);
	for (i = 0; i < n; i++)
		record_json(&j, &r[i], &v[i], local);
	out_records_close(&j, partial, local);
}

static void print_text(const struct sr_record *r, const struct whois_node *v, size_t n,
		       int local)
{
	char gid[ATS_IP_STRLEN], ip[ATS_IP_STRLEN], lid[8], name[4 * NR_DESC_LEN + 1];
	size_t i;

	if (!n)
		return;
	printf("%-18s  %-26s  %-6s  %-15s  %-5s  %s\n", "SID", "GID", "PKEY", "IP", "LID",
	       "NODE");
	for (i = 0; i < n; i++) {
		if (v[i].present)
			snprintf(lid, sizeof(lid), "%u", v[i].nr.lid);
		else
			snprintf(lid, sizeof(lid), "-");
		printf("0x%016" PRIx64 "  %-26s  0x%04x  %-15s  %-5s  %s%s%s\n", r[i].id,
		       ats_gid_format(r[i].gid, gid, sizeof(gid)), r[i].pkey,
		       ats_data8_str(r[i].data8, ip, sizeof(ip)), lid,
		       node_text(&v[i], name, sizeof(name)),
		       r[i].id == ATS_SID_PRIMARY ? " (primary)" : "", local ? " (local)" : "");
	}
}

static int show(struct whois *w, const struct sr_record *r, size_t n, int partial, int local,
		const char *ip)
{
	struct whois_node *v;
	int ret = lookup_all(w, r, n, &v);

	if (ret)
		return out_sa_fail(w->c, ip ? "whois" : "--names", ret);
	if (w->c->json)
		print_json(r, v, n, partial, local, ip);
	else
		print_text(r, v, n, local);
	free(v);
	return CTL_EXIT_FOUND;
}

int cmd_whois_records(const struct ctl *c, int partial, int local, const struct sr_record *r, size_t n)
{
	struct whois w;
	int ret = whois_open(&w, c);

	if (ret)
		return ret;
	ret = show(&w, r, n, partial, local, NULL);
	node_map_free(w.map);
	return ret;
}

int cmd_whois_map(const struct ctl *c, struct node_map **map)
{
	struct whois w;
	int ret = whois_open(&w, c);

	*map = w.map;
	return ret;
}

const char *cmd_whois_port_name(const struct ctl *c, const struct node_map *map,
				uint64_t port_guid, char *buf, size_t len)
{
	struct nr_record nr;
	const char *name;
	size_t n;

	if (!len || sa_client_node_of_port(c->sa, port_guid, &nr))
		return NULL;
	name = node_map_name(map, nr.node_guid);
	if (name) {
		snprintf(buf, len, "%s", name);
		return buf;
	}
	n = strnlen((const char *)nr.desc, NR_DESC_LEN);
	if (n >= len)
		n = len - 1;
	memcpy(buf, nr.desc, n);
	buf[n] = '\0';
	return buf;
}

int cmd_whois(struct ctl *c, const struct ctl_args *a)
{
	struct ats_query_set s = { 0 };
	struct whois w;
	struct ats_ip ip;
	char what[96];
	int ret = whois_open(&w, c);

	if (ret)
		return ret;
	ats_ip_parse(a->arg[0], &ip);
	snprintf(what, sizeof(what), "whois %s", a->arg[0]);
	ret = ats_query_forward(c->sa, &ip, a->pkey, &s);
	if (ret)
		ret = out_sa_fail(c, what, ret);
	else if (!s.n && !c->json)
		ret = out_not_found(a->arg[0], "no ATS record");
	else {
		ret = show(&w, s.recs, s.n, s.by_port, 0, a->arg[0]);
		if (!ret && !s.n)
			ret = CTL_EXIT_NOTFOUND;
	}
	ats_query_set_free(&s);
	node_map_free(w.map);
	return ret;
}
