/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"

int plan_want_build(const struct plan_want_cand *c, size_t n, struct plan_want_addr **out,
		    size_t *nout)
{
	struct plan_want_addr *w = NULL;
	enum plan_want_prio *prio = NULL;
	size_t nw = 0, i, j;

	*out = NULL;
	*nout = 0;
	if (!n)
		return 0;
	w = calloc(n, sizeof(*w));
	prio = calloc(n, sizeof(*prio));
	if (!w || !prio) {
		free(w);
		free(prio);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		for (j = 0; j < nw; j++)
			if (w[j].pkey == c[i].pkey && ats_ip_equal(&w[j].ip, &c[i].ip))
				break;
		if (j == nw) {
			w[nw].ip = c[i].ip;
			w[nw].pkey = c[i].pkey;
			prio[nw] = c[i].prio;
			nw++;
		} else if (c[i].prio > prio[j]) {
			prio[j] = c[i].prio;
		}
	}
	/* Per PKey, the first address of the highest priority is primary. */
	for (i = 0; i < nw; i++) {
		size_t best = nw;

		/* Ascending j and a strict > keep the first of equal priorities. */
		for (j = 0; j < nw; j++)
			if (w[j].pkey == w[i].pkey && (best == nw || prio[j] > prio[best]))
				best = j;
		w[i].primary = best == i;
	}
	free(prio);
	*out = w;
	*nout = nw;
	return 0;
}

struct plan_buf {
	struct plan_action *v;
	size_t n;
};

static int push(struct plan_buf *b, enum plan_op op, uint64_t sid,
		uint16_t pkey, const struct ats_ip *ip)
{
	struct plan_action *v = realloc(b->v, (b->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	b->v = v;
	memset(&v[b->n], 0, sizeof(v[b->n]));
	v[b->n].op = op;
	v[b->n].sid = sid;
	v[b->n].pkey = pkey;
	if (ip)
		v[b->n].ip = *ip;
	b->n++;
	return 0;
}

static int wanted(const struct plan_want_addr *w, size_t n, uint16_t pkey,
		  const struct ats_ip *ip)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (w[i].pkey == pkey && ats_ip_equal(&w[i].ip, ip))
			return 1;
	return 0;
}

static int foreign_has(const struct plan_held_rec *f, size_t n, uint16_t pkey,
		       const struct ats_ip *ip)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (f[i].pkey == pkey && ats_ip_equal(&f[i].ip, ip))
			return 1;
	return 0;
}

static int plan_pkey(uint16_t pkey, const struct plan_want_addr *want, size_t nwant,
		     const struct plan_held_rec *held, size_t nheld,
		     const struct plan_held_rec *foreign, size_t nforeign, struct plan_buf *b)
{
	uint8_t used[ATS_SID_COUNT] = { 0 };
	const struct ats_ip *primary = NULL;
	const struct plan_held_rec *hp = NULL;
	size_t i, j;
	unsigned next = 1;
	int ret, fp = 0;

	for (i = 0; i < nwant; i++)
		if (want[i].pkey == pkey && want[i].primary)
			primary = &want[i].ip;
	for (i = 0; i < nheld; i++)
		if (held[i].pkey == pkey && held[i].sid == ATS_SID_PRIMARY)
			hp = &held[i];
	for (i = 0; i < nforeign; i++)
		if (foreign[i].pkey == pkey) {
			used[ats_sid_order(foreign[i].sid)] = 1;
			fp |= foreign[i].sid == ATS_SID_PRIMARY;
		}
	/* Someone else's record carries the primary address already, or
	 * sits on the primary SID: ours cannot go there. */
	if (primary && (fp || foreign_has(foreign, nforeign, pkey, primary)))
		primary = NULL;

	/* Secondaries: keep the first record of each wanted address. */
	for (i = 0; i < nheld; i++) {
		const struct plan_held_rec *h = &held[i];
		int keep;

		if (h->pkey != pkey || h->sid == ATS_SID_PRIMARY)
			continue;
		keep = wanted(want, nwant, pkey, &h->ip) &&
		       !(primary && ats_ip_equal(primary, &h->ip));
		for (j = 0; keep && j < nheld; j++)
			if (held[j].pkey == pkey && held[j].sid != ATS_SID_PRIMARY &&
			    ats_sid_order(held[j].sid) < ats_sid_order(h->sid) &&
			    ats_ip_equal(&held[j].ip, &h->ip))
				keep = 0;
		if (keep) {
			used[ats_sid_order(h->sid)] = 1;
			continue;
		}
		ret = push(b, PLAN_DELETE, h->sid, pkey, &h->ip);
		if (ret)
			return ret;
	}
	if (primary && !(hp && ats_ip_equal(&hp->ip, primary))) {
		ret = push(b, PLAN_SET, ATS_SID_PRIMARY, pkey, primary);
		if (ret)
			return ret;
	}
	used[0] = 1;
	for (i = 0; i < nwant; i++) {
		const struct plan_want_addr *w = &want[i];
		int have = 0;

		if (w->pkey != pkey || (primary && ats_ip_equal(primary, &w->ip)) ||
		    foreign_has(foreign, nforeign, pkey, &w->ip))
			continue;
		for (j = 0; j < nheld && !have; j++)
			have = held[j].pkey == pkey && held[j].sid != ATS_SID_PRIMARY &&
			       used[ats_sid_order(held[j].sid)] &&
			       ats_ip_equal(&held[j].ip, &w->ip);
		if (have)
			continue;
		while (next < ATS_SID_COUNT && used[next])
			next++;
		if (next == ATS_SID_COUNT)
			return -ENOSPC;
		used[next] = 1;
		ret = push(b, PLAN_SET, ats_sid_at(next), pkey, &w->ip);
		if (ret)
			return ret;
	}
	if (!primary && hp)
		return push(b, PLAN_DELETE, ATS_SID_PRIMARY, pkey, &hp->ip);
	return 0;
}

int plan_build(const struct plan_want_addr *want, size_t nwant,
	       const struct plan_held_rec *held, size_t nheld,
	       struct plan_action **out, size_t *nout)
{
	return plan_build_foreign(want, nwant, held, nheld, NULL, 0, out, nout);
}

int plan_build_foreign(const struct plan_want_addr *want, size_t nwant,
		       const struct plan_held_rec *held, size_t nheld,
		       const struct plan_held_rec *foreign, size_t nforeign,
		       struct plan_action **out, size_t *nout)
{
	struct plan_buf b = { NULL, 0 };
	uint16_t *pkeys;
	size_t np = 0, i, j;
	int ret = 0;

	*out = NULL;
	*nout = 0;
	pkeys = calloc(nwant + nheld + 1, sizeof(*pkeys));
	if (!pkeys)
		return -ENOMEM;
	for (i = 0; i < nwant + nheld; i++) {
		uint16_t p = i < nwant ? want[i].pkey : held[i - nwant].pkey;

		for (j = 0; j < np && pkeys[j] != p; j++)
			;
		if (j == np)
			pkeys[np++] = p;
	}
	for (i = 0; i < np && !ret; i++)
		ret = plan_pkey(pkeys[i], want, nwant, held, nheld, foreign, nforeign, &b);
	free(pkeys);
	if (ret) {
		free(b.v);
		return ret;
	}
	*out = b.v;
	*nout = b.n;
	return 0;
}

int plan_is_refusal(uint16_t mad_status)
{
	unsigned cls = (mad_status >> 8) & 0xff;

	/* No answer, BUSY, or the SA short of memory: try again soon. Any
	 * other class status is the SA's verdict on this record (IBA
	 * 15.2.1.1 Table 185), which a retry within seconds will not change. */
	return cls && cls != 1; /* 1: ERR_NO_RESOURCES */
}

void plan_want_drop_refused(struct plan_want_addr *want, size_t *nwant,
			    const struct plan_refused *r, size_t nr, int64_t now)
{
	size_t i, k, n = 0;

	for (i = 0; i < *nwant; i++) {
		int drop = 0;

		for (k = 0; k < nr && !drop; k++)
			drop = r[k].retry_at > now && r[k].pkey == want[i].pkey &&
			       ats_ip_equal(&r[k].ip, &want[i].ip);
		if (!drop)
			want[n++] = want[i];
	}
	*nwant = n;
	for (i = 0; i < n; i++) {
		int has = 0;

		for (k = 0; k < n && !has; k++)
			has = want[k].pkey == want[i].pkey && want[k].primary;
		if (!has)
			want[i].primary = 1;
	}
}
