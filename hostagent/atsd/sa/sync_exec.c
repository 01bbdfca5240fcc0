/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The sync executor, on the SA thread: make the SA hold the wanted
 * addresses for our GID, remove what we registered and no longer want,
 * and leave others' records on the GID alone. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/agent_state.h"
#include "host/ats_query.h"
#include "core/log.h"
#include "model/nosa.h"
#include "core/sa.h"
#include "sync_exec.h"

static int held_add(struct plan_held_rec **v, size_t *n, const struct sr_record *r)
{
	struct plan_held_rec *nv;
	struct ats_ip ip;

	if (ats_ip_decode(r->data8, &ip, NULL))
		return 0; /* not an address: not something we registered */
	nv = realloc(*v, (*n + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[*n].sid = r->id;
	nv[*n].pkey = r->pkey;
	nv[*n].ip = ip;
	(*n)++;
	return 0;
}

/* Index of the record held under (sid, pkey), or n. */
static size_t held_find(const struct plan_held_rec *v, size_t n, uint64_t sid, uint16_t pkey)
{
	size_t k;

	for (k = 0; k < n; k++)
		if (v[k].sid == sid && v[k].pkey == pkey)
			break;
	return k;
}

/* What the SA holds for our GID: the whole SID block of every PKey that
 * matters (full), or one SubnAdmGet per record we own (verify). */
static int read_held(struct sa_client *sa, struct saj *j, struct plan_held_rec **held,
		     size_t *nheld)
{
	struct saj_sync *s = &j->u.sync;
	uint16_t pk[SAJ_PKEYS_MAX];
	size_t npk = 0, i, k;
	int ret = 0;

	*held = NULL;
	*nheld = 0;
	if (!s->full) {
		for (i = 0; i < s->nowned && !ret; i++) {
			struct sr_record q, r;

			ats_record_init(&q, s->owned[i].sid, j->port.gid, s->owned[i].pkey,
					s->lease, &s->owned[i].ip);
			j->queries++;
			ret = sa_client_sr_get(sa, &q, sr_comp_mask(SR_F_ID | SR_F_GID |
							       SR_F_PKEY | SR_F_NAME), &r);
			if (ret == -ENOENT) {
				ret = 0;
				continue;
			}
			if (!ret)
				ret = held_add(held, nheld, &r);
		}
		return ret;
	}
	for (i = 0; i < s->nwant + s->nowned; i++) {
		uint16_t p = i < s->nwant ? s->want[i].pkey : s->owned[i - s->nwant].pkey;

		for (k = 0; k < npk && pk[k] != p; k++)
			;
		if (k == npk && npk < SAJ_PKEYS_MAX)
			pk[npk++] = p;
	}
	for (k = 0; k < npk && !ret; k++) {
		struct ats_query_set set;

		ret = ats_query_reverse_exact(sa, j->port.gid, pk[k], &set);
		if (ret)
			break;
		j->queries += set.queries;
		for (i = 0; i < set.n && !ret; i++)
			ret = held_add(held, nheld, &set.recs[i]);
		ats_query_set_free(&set);
	}
	return ret;
}

static int rec_in(const struct plan_held_rec *v, size_t n, const struct plan_held_rec *h)
{
	size_t k;

	for (k = 0; k < n; k++)
		if (v[k].sid == h->sid && v[k].pkey == h->pkey && ats_ip_equal(&v[k].ip, &h->ip))
			return 1;
	return 0;
}

static int want_has(const struct saj_sync *s, const struct plan_held_rec *h)
{
	size_t k;

	for (k = 0; k < s->nwant; k++)
		if (s->want[k].pkey == h->pkey && ats_ip_equal(&s->want[k].ip, &h->ip))
			return 1;
	return 0;
}

static int refused_add(struct saj_sync *s, const struct plan_action *a, uint16_t st)
{
	struct plan_refused *v = realloc(s->refused, (s->nrefused + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	s->refused = v;
	memset(&v[s->nrefused], 0, sizeof(*v));
	v[s->nrefused].ip = a->ip;
	v[s->nrefused].pkey = a->pkey;
	v[s->nrefused].sid = a->sid;
	v[s->nrefused].sa_status = st;
	s->nrefused++;
	return 0;
}

/* The SM's reasons for the refused Sets, logged and kept for status.
 * Nothing when it does not say (no plugin, busy, another rule). */
static void explain(struct smq_client *smq, struct saj *j)
{
	struct saj_sync *s = &j->u.sync;
	struct smq_refusal v[8];
	char ip[ATS_IP_STRLEN];
	size_t n = 0, i;
	int ret;

	smq->lid = j->port.sm_lid;
	ret = smq_client_refusals(smq, v, sizeof(v) / sizeof(v[0]), &n);
	if (ret) {
		log_info("cannot ask the SM why: %s", ret == -EBUSY ? "it is busy" :
			 ret == -EPROTONOSUPPORT ? "it does not serve class 0x36 (no plugin)" :
			 strerror(-ret));
		return;
	}
	for (i = 0; i < s->nrefused; i++) {
		struct plan_refused *f = &s->refused[i];
		const struct smq_refusal *r;
		struct sr_record rec;

		ats_record_init(&rec, f->sid, j->port.gid, f->pkey, s->lease, &f->ip);
		r = smq_client_match(v, n, SA_METHOD_SET, j->port.gid, f->pkey, rec.data8);
		if (!r)
			continue;
		smq_refusal_str(r, f->why, sizeof(f->why));
		log_warn("%s on SID 0x%016llx PKey 0x%04x refused by the SM: %s",
			 ats_ip_format(&f->ip, ip, sizeof(ip)), (unsigned long long)f->sid,
			 f->pkey, f->why);
	}
}

/* Split what the SA holds for our GID: ours (registered by this atsd,
 * known from the last sync or the state file) and foreign (an admin's
 * `atsctl register`, another tool's), which a sync never touches. */
static int split_held(struct saj_sync *s, struct plan_held_rec *all, size_t nall,
		      struct plan_held_rec **ours, size_t *nours)
{
	size_t i;
	int ret = 0;

	*ours = NULL;
	*nours = 0;
	if (!s->full) {
		/* A verify reads only our own records (SubnAdmGet each). */
		*ours = all;
		*nours = nall;
		return 0;
	}
	free(s->foreign);
	s->foreign = NULL;
	s->nforeign = 0;
	for (i = 0; i < nall && !ret; i++) {
		struct plan_held_rec **v = &s->foreign;
		size_t *n = &s->nforeign, k;
		struct plan_held_rec *nv;

		if (rec_in(s->owned, s->nowned, &all[i]) || (s->adopt_wanted && want_has(s, &all[i]))) {
			v = ours;
			n = nours;
			for (k = 0; k < s->nowned && !rec_in(&s->owned[k], 1, &all[i]); k++)
				;
			/* Found again after a restart, or new to us. */
			if (k == s->nowned || s->owned_from_state)
				s->adopted++;
		}
		nv = realloc(*v, (*n + 1) * sizeof(*nv));
		if (!nv) {
			ret = -ENOMEM;
			break;
		}
		*v = nv;
		nv[(*n)++] = all[i];
	}
	free(all);
	return ret;
}

/* A Set on a SID we hold no record on: a verify knows nothing of others'
 * records there, so such a sync reads the whole SID block first. */
static int plan_needs_block(const struct plan_action *p, size_t n,
			    const struct plan_held_rec *ours, size_t nours)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i].op == PLAN_SET && held_find(ours, nours, p[i].sid, p[i].pkey) == nours)
			return 1;
	return 0;
}

static void state_save(struct saj *j, const struct plan_held_rec *r, size_t n,
		       const struct plan_action *plan, size_t nplan)
{
	struct saj_sync *s = &j->u.sync;
	struct plan_held_rec *v = NULL;
	size_t i, nv = n;
	int ret;

	if (!s->state_path[0])
		return;
	/* Before the Sets go out, list them too: a crash between a Set and
	 * the next write must not leave a record of ours that we would take
	 * for someone else's. */
	v = malloc((n + nplan + 1) * sizeof(*v));
	if (!v) {
		s->state_err = -ENOMEM;
		return;
	}
	if (n)
		memcpy(v, r, n * sizeof(*v));
	for (i = 0; i < nplan; i++)
		if (plan[i].op == PLAN_SET) {
			v[nv].sid = plan[i].sid;
			v[nv].pkey = plan[i].pkey;
			v[nv].ip = plan[i].ip;
			nv++;
		}
	ret = agent_state_save(s->state_path, j->port.gid, v, nv);
	s->state_err = ret;
	if (ret) {
		free(v);
		return;
	}
	s->state_saved = 1;
	free(s->filed);
	s->filed = v;
	s->nfiled = nv;
}

/* The state file could not list this plan's Sets: those of records it
 * does not list already stay back (agent_state_gate); deletes, and Sets it
 * knows of, go on. The actions left. */
static size_t hold_unsaved(struct saj_sync *s, struct plan_action *plan, size_t nplan)
{
	size_t n = agent_state_gate(plan, nplan, s->filed, s->nfiled), i;
	struct plan_held_rec *v;

	if (n == nplan)
		return n;
	v = realloc(s->unsaved, (s->nunsaved + nplan - n) * sizeof(*v));
	if (!v)
		return n; /* not shown as held back; still not sent */
	s->unsaved = v;
	for (i = n; i < nplan; i++) {
		v[s->nunsaved].sid = plan[i].sid;
		v[s->nunsaved].pkey = plan[i].pkey;
		v[s->nunsaved].ip = plan[i].ip;
		s->nunsaved++;
	}
	return n;
}

/* Read what the SA holds and plan from it; a second pass reads it all
 * when the plan must (plan_needs_block). 0 or -errno. */
static int read_and_plan(struct sa_client *sa, struct saj *j, struct plan_held_rec **held,
			 size_t *nheld, struct plan_action **plan, size_t *nplan)
{
	struct saj_sync *s = &j->u.sync;
	struct plan_held_rec *all = NULL;
	size_t nall = 0;
	int ret = 0, pass;

	for (pass = 0; pass < 2; pass++) {
		free(*held);
		free(*plan);
		*held = NULL;
		*plan = NULL;
		*nheld = *nplan = 0;
		s->adopted = 0;
		ret = read_held(sa, j, &all, &nall);
		if (!ret)
			ret = split_held(s, all, nall, held, nheld);
		else
			free(all);
		if (!ret)
			ret = plan_build_foreign(s->want, s->nwant, *held, *nheld, s->foreign,
						 s->nforeign, plan, nplan);
		if (ret || s->full || !plan_needs_block(*plan, *nplan, *held, *nheld))
			break;
		s->full = 1;
	}
	return ret;
}

/* The SA did a; what it holds (held) follows. 0 or -errno. */
static int applied(struct saj_sync *s, const struct plan_action *a, const struct sr_record *r,
		   struct plan_held_rec **held, size_t *nheld)
{
	size_t k = held_find(*held, *nheld, a->sid, a->pkey);
	char ip[ATS_IP_STRLEN];

	if (a->op == PLAN_SET) {
		s->sets++;
		log_info("registered %s on SID 0x%016llx PKey 0x%04x",
			 ats_ip_format(&a->ip, ip, sizeof(ip)),
			 (unsigned long long)a->sid, a->pkey);
		/* Replace what the SA held under that SID. */
		if (k == *nheld)
			return held_add(held, nheld, r);
		(*held)[k].ip = a->ip;
	} else {
		s->deletes++;
		log_info("deregistered %s from SID 0x%016llx PKey 0x%04x",
			 ats_ip_format(&a->ip, ip, sizeof(ip)),
			 (unsigned long long)a->sid, a->pkey);
		if (k < *nheld)
			(*held)[k] = (*held)[--*nheld];
	}
	return 0;
}

/* One Set or Delete. 0 to go on to the next, 1 to stop (the SA is
 * plainly gone), -errno on a failure of our own. A failed exchange sets
 * *err (the sync failed: backoff) and counts in *timeouts. */
static int apply(struct sa_client *sa, struct saj *j, const struct plan_action *a,
		 struct plan_held_rec **held, size_t *nheld, int *err, unsigned *timeouts)
{
	struct saj_sync *s = &j->u.sync;
	char ip[ATS_IP_STRLEN];
	struct sr_record r;
	uint16_t st;
	int r1;

	ats_record_init(&r, a->sid, j->port.gid, a->pkey, s->lease, &a->ip);
	j->queries++;
	if (a->op == PLAN_SET)
		r1 = sa_client_sr_set(sa, &r,
			       ats_reg_mask(s->lease), NULL);
	else
		r1 = sa_client_sr_delete(sa, &r, sr_comp_mask(SR_F_ID | SR_F_GID |
							  SR_F_PKEY), NULL);
	st = r1 ? sa_client_last_status(sa) : 0;
	if (r1 == -ENOENT && a->op == PLAN_DELETE)
		r1 = 0; /* gone already: that is what we wanted */
	if (r1 && a->op == PLAN_SET && plan_is_refusal(st)) {
		log_warn("the SA refused %s on SID 0x%016llx PKey 0x%04x: %s",
			 ats_ip_format(&a->ip, ip, sizeof(ip)),
			 (unsigned long long)a->sid, a->pkey, sa_status_str(st));
		return refused_add(s, a, st);
	}
	if (r1 && plan_is_refusal(st)) {
		/* E.g. the plugin's primary-first rule keeps our primary
		 * while another's record of this GID needs it. Not a
		 * failure to back off from: the record stays ours. Said at
		 * full reads and at exit, not at every verify. */
		if (s->full || !s->nwant)
			log_warn("the SA refused to delete %s from SID 0x%016llx PKey 0x%04x: %s; kept",
				 ats_ip_format(&a->ip, ip, sizeof(ip)),
				 (unsigned long long)a->sid, a->pkey, sa_status_str(st));
		return 0;
	}
	if (r1) {
		/* No answer or a transient error: the sync counts as failed
		 * (backoff) but the next records still get their turn,
		 * unless the SA is plainly gone. */
		snprintf(j->errmsg, sizeof(j->errmsg), "%s %s on SID 0x%016llx: %s",
			 a->op == PLAN_SET ? "registering" : "deregistering",
			 ats_ip_format(&a->ip, ip, sizeof(ip)), (unsigned long long)a->sid,
			 st ? sa_status_str(st) : strerror(-r1));
		j->sa_status = st;
		*err = r1;
		return nosa_applies(r1) && ++*timeouts >= 2;
	}
	*timeouts = 0;
	return applied(s, a, &r, held, nheld);
}

void sync_exec_run(struct sa_client *sa, struct smq_client *smq, struct saj *j)
{
	struct saj_sync *s = &j->u.sync;
	struct plan_held_rec *held = NULL;
	struct plan_action *plan = NULL;
	size_t nheld = 0, nplan = 0, i;
	unsigned timeouts = 0;
	int ret, err = 0;

	ret = read_and_plan(sa, j, &held, &nheld, &plan, &nplan);
	if (!ret && (nplan || s->adopted || s->adopt_wanted))
		state_save(j, held, nheld, plan, nplan);
	if (!ret && s->state_err)
		nplan = hold_unsaved(s, plan, nplan);
	/* Each record on its own: one the SA refuses or loses does not keep
	 * the others from being registered. */
	for (i = 0; i < nplan && !ret; i++) {
		ret = apply(sa, j, &plan[i], &held, &nheld, &err, &timeouts);
		if (ret > 0) {
			ret = 0;
			break;
		}
	}
	if (!ret && (nplan || s->adopted || s->adopt_wanted))
		state_save(j, held, nheld, NULL, 0);
	if (smq && s->nrefused)
		explain(smq, j);
	if (ret) {
		snprintf(j->errmsg, sizeof(j->errmsg), "%s",
			 sa_client_last_status(sa) ?
			 sa_status_str(sa_client_last_status(sa)) : strerror(-ret));
		j->sa_status = sa_client_last_status(sa);
	} else {
		ret = err;
	}
	j->err = ret;
	s->result = held;
	s->nresult = nheld;
	free(plan);
}
