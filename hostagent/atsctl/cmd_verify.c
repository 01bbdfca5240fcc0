/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* atsctl verify: the kernel's IPoIB neighbours against ATS. */
#include <errno.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/ats_query.h"
#include "cmd_verify.h"
#include "ctl.h"
#include "core/ipoib.h"
#include "core/json.h"

int cmd_verify_ipoib_neigh(const struct ifev_neigh *n, struct ats_ip *ip, uint8_t *gid)
{
	struct ipoib_hwaddr hw;

	if (n->state & (NUD_INCOMPLETE | NUD_FAILED | NUD_NOARP) ||
	    ipoib_hwaddr_decode(n->lladdr, n->lllen, &hw))
		return 0;
	memset(ip, 0, sizeof(*ip));
	ip->family = n->family;
	memcpy(ip->addr, n->addr, n->family == AF_INET ? 4 : 16);
	memcpy(gid, hw.gid, 16);
	return 1;
}

struct neighs {
	struct ifev_neigh *v;
	size_t n;
};

static void collect(const struct ifev_event *ev, void *arg)
{
	struct neighs *ns = arg;
	struct ifev_neigh *v;

	if (ev->type != IFEV_EV_NEWNEIGH)
		return;
	v = realloc(ns->v, (ns->n + 1) * sizeof(*v));
	if (!v)
		return;
	ns->v = v;
	ns->v[ns->n++] = ev->neigh;
}

/* The neighbour table of netns (NULL: atsctl's own) into ns; an exit
 * status, 3 with the cause on stderr and ns freed. */
static int read_neighbours(const char *netns, struct neighs *ns)
{
	struct ifev_sock *nl = NULL;
	int ret;

	ret = ifev_open(&nl, netns);
	if (!ret)
		ret = ifev_dump_all(nl, RTM_GETNEIGH, collect, ns);
	if (ret) {
		fprintf(stderr, "atsctl: verify: cannot read the neighbour table%s%s: %s\n",
			netns ? " of netns " : "", netns ? netns : "", strerror(-ret));
		ifev_close(nl);
		free(ns->v);
		return 3;
	}
	ifev_close(nl);
	return 0;
}

/* What ATS says of a neighbour's address: "agree", "no-ats-record" or
 * "gid-differs" in *verdict, the first ATS GID in as (left as it is when
 * there is none); -errno when the lookup fails for another reason than
 * no record. */
static int neigh_verdict(struct sa_client *sa, const struct ats_ip *ip, uint16_t pkey,
		       const uint8_t *gid, const char **verdict, char *as, size_t aslen)
{
	struct ats_query_set s;
	size_t k;
	int ret;

	ret = ats_query_forward(sa, ip, pkey, &s);
	if (ret && ret != -ENOENT)
		return ret;
	for (k = 0; !ret && k < s.n && memcmp(s.recs[k].gid, gid, 16); k++)
		;
	*verdict = "agree";
	if (ret || !s.n)
		*verdict = "no-ats-record";
	else if (k == s.n)
		*verdict = "gid-differs";
	if (!ret && s.n)
		ats_gid_format(s.recs[0].gid, as, aslen);
	ats_query_set_free(&s);
	return 0;
}

/* One neighbour's line, or its object in the document when j is set. */
static void print_neigh(struct json *j, const struct ats_ip *ip, const uint8_t *gid,
			const char *verdict, const char *as)
{
	char ips[ATS_IP_STRLEN], gs[ATS_IP_STRLEN];

	ats_ip_format(ip, ips, sizeof(ips));
	ats_gid_format(gid, gs, sizeof(gs));
	if (j) {
		json_obj(j, NULL);
		json_str(j, "ip", ips);
		json_str(j, "neighbour_gid", gs);
		json_str(j, "ats_gid", as);
		json_str(j, "verdict", verdict);
		json_end(j);
	} else {
		printf("%-14s %s: neighbour GID %s, ATS GID %s\n", verdict, ips, gs, as);
	}
}

int cmd_verify(struct ctl *c, const struct ctl_args *a)
{
	struct sa_client *sa = c->sa;
	uint16_t pkey = a->pkey;
	int json = c->json;
	struct neighs ns = { NULL, 0 };
	size_t i, checked = 0, bad = 0;
	struct json j;
	char *doc = NULL;
	size_t doclen = 0;
	FILE *out = NULL;
	int ret;

	if (read_neighbours(a->netns, &ns))
		return 3;
	/* The document goes out whole or not at all: a lookup that fails
	 * halfway must not leave half a document on stdout. */
	if (json && !(out = open_memstream(&doc, &doclen))) {
		fprintf(stderr, "atsctl: verify: %s\n", strerror(errno));
		free(ns.v);
		return 3;
	}
	if (json) {
		json_init(&j, out, 0);
		json_obj(&j, NULL);
		json_arr(&j, "neighbours");
	}
	for (i = 0; i < ns.n; i++) {
		char as[ATS_IP_STRLEN] = "-";
		const char *verdict;
		struct ats_ip ip;
		uint8_t gid[16];

		if (!cmd_verify_ipoib_neigh(&ns.v[i], &ip, gid))
			continue;
		checked++;
		ret = neigh_verdict(sa, &ip, pkey, gid, &verdict, as, sizeof(as));
		if (ret) {
			fprintf(stderr, "atsctl: verify: ATS lookup failed: %s\n", strerror(-ret));
			if (out)
				fclose(out);
			free(doc);
			free(ns.v);
			return 3;
		}
		bad += strcmp(verdict, "agree") != 0;
		print_neigh(json ? &j : NULL, &ip, gid, verdict, as);
	}
	if (json) {
		json_end(&j);
		json_u64(&j, "checked", checked);
		json_u64(&j, "disagree", bad);
		json_end(&j);
		json_fini(&j);
		fclose(out);
		fwrite(doc, 1, doclen, stdout);
		free(doc);
	} else
		printf("%zu IPoIB neighbour(s) checked, %zu disagree with ATS\n", checked, bad);
	free(ns.v);
	return bad ? 1 : 0;
}
