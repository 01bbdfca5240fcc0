#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent_state.h"
#include "ats_query.h"
#include "ipoib.h"
#include "cm.h"
#include "log.h"
#include "sa_thread.h"
#include "smp.h"
#include "vmad.h"

/* How long the thread listens for requests between looks at its queue. */
#define SERVE_SLICE_MS 20

struct saj_thread {
	struct mport *port;
	struct sa_client *sa;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct saj *todo, **todo_tail;
	struct saj *done, **done_tail;
	unsigned pending;
	int stop;
	int pipe[2];
	int issm_fd;
	int serving;                /* agents for requests registered */
	struct vmad_identity id;    /* this thread's only */
	struct cmep *cm;
	unsigned cm_timeout_ms;
};

static size_t answer(const uint8_t *req, size_t len, uint8_t *resp, size_t cap,
		     void *ctx)
{
	struct saj_thread *t = ctx;

	if (len >= MAD_HDR_SIZE && req[MAD_OFF_MGMT_CLASS] == CM_CLASS)
		return t->cm ? cmep_answer(t->cm, req, len, resp, cap) : 0;
	if (len >= MAD_HDR_SIZE && (req[MAD_OFF_MGMT_CLASS] == SMP_CLASS_LID ||
				    req[MAD_OFF_MGMT_CLASS] == SMP_CLASS_DR))
		return t->issm_fd >= 0 ? smp_refuse(req, len, resp, cap) : 0;
	return vmad_answer(req, len, &t->id, liv_timestamp(), resp, cap);
}

static void identity_update(struct saj_thread *t, const struct mport_info *pi)
{
	t->id.lid = pi->lid;
	t->id.port_guid = pi->port_guid;
}

static void queue_put(struct saj ***tail, struct saj *j)
{
	j->next = NULL;
	**tail = j;
	*tail = &j->next;
}

static struct saj *queue_take(struct saj **head, struct saj ***tail)
{
	struct saj *j = *head;

	if (j) {
		*head = j->next;
		if (!*head)
			*tail = head;
	}
	return j;
}

void saj_free(struct saj *job)
{
	if (!job)
		return;
	free(job->want);
	free(job->owned);
	free(job->foreign);
	free(job->refused);
	free(job->recs);
	free(job->result);
	free(job);
}

static int set_from_records(struct saj *j, struct ats_set *s)
{
	j->recs = s->recs;
	j->nrecs = s->n;
	j->queries += s->queries;
	s->recs = NULL;
	s->n = 0;
	return 0;
}

static int held_add(struct held_rec **v, size_t *n, const struct sr_record *r)
{
	struct held_rec *nv;
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
static size_t held_find(const struct held_rec *v, size_t n, uint64_t sid, uint16_t pkey)
{
	size_t k;

	for (k = 0; k < n; k++)
		if (v[k].sid == sid && v[k].pkey == pkey)
			break;
	return k;
}

/* What the SA holds for our GID: the whole SID block of every PKey that
 * matters (full), or one SubnAdmGet per record we own (verify). */
static int read_held(struct saj_thread *t, struct saj *j, struct held_rec **held,
		     size_t *nheld)
{
	uint16_t pk[AGENT_PKEYS_MAX];
	size_t npk = 0, i, k;
	int ret = 0;

	*held = NULL;
	*nheld = 0;
	if (!j->full) {
		for (i = 0; i < j->nowned && !ret; i++) {
			struct sr_record q, r;

			ats_record_init(&q, j->owned[i].sid, j->port.gid, j->owned[i].pkey,
					j->lease, &j->owned[i].ip);
			j->queries++;
			ret = sa_sr_get(t->sa, &q, sr_comp_mask(SR_F_ID | SR_F_GID |
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
	for (i = 0; i < j->nwant + j->nowned; i++) {
		uint16_t p = i < j->nwant ? j->want[i].pkey : j->owned[i - j->nwant].pkey;

		for (k = 0; k < npk && pk[k] != p; k++)
			;
		if (k == npk && npk < AGENT_PKEYS_MAX)
			pk[npk++] = p;
	}
	for (k = 0; k < npk && !ret; k++) {
		struct ats_set s;

		ret = ats_reverse(t->sa, j->port.gid, pk[k], &s);
		if (ret)
			break;
		j->queries += s.queries;
		for (i = 0; i < s.n && !ret; i++)
			ret = held_add(held, nheld, &s.recs[i]);
		ats_set_free(&s);
	}
	return ret;
}

static int rec_in(const struct held_rec *v, size_t n, const struct held_rec *h)
{
	size_t k;

	for (k = 0; k < n; k++)
		if (v[k].sid == h->sid && v[k].pkey == h->pkey && ats_ip_equal(&v[k].ip, &h->ip))
			return 1;
	return 0;
}

static int want_has(const struct saj *j, const struct held_rec *h)
{
	size_t k;

	for (k = 0; k < j->nwant; k++)
		if (j->want[k].pkey == h->pkey && ats_ip_equal(&j->want[k].ip, &h->ip))
			return 1;
	return 0;
}

static int refused_add(struct saj *j, const struct plan_action *a, uint16_t st)
{
	struct plan_refused *v = realloc(j->refused, (j->nrefused + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	j->refused = v;
	memset(&v[j->nrefused], 0, sizeof(*v));
	v[j->nrefused].ip = a->ip;
	v[j->nrefused].pkey = a->pkey;
	v[j->nrefused].sid = a->sid;
	v[j->nrefused].sa_status = st;
	j->nrefused++;
	return 0;
}

/* Split what the SA holds for our GID: ours (registered by this atsd,
 * known from the last sync or the state file) and foreign (an admin's
 * `atsctl register`, another tool's), which a sync never touches. */
static int split_held(struct saj *j, struct held_rec *all, size_t nall,
		      struct held_rec **ours, size_t *nours)
{
	size_t i;
	int ret = 0;

	*ours = NULL;
	*nours = 0;
	if (!j->full) {
		/* A verify reads only our own records (SubnAdmGet each). */
		*ours = all;
		*nours = nall;
		return 0;
	}
	free(j->foreign);
	j->foreign = NULL;
	j->nforeign = 0;
	for (i = 0; i < nall && !ret; i++) {
		struct held_rec **v = &j->foreign;
		size_t *n = &j->nforeign, k;
		struct held_rec *nv;

		if (rec_in(j->owned, j->nowned, &all[i]) || (j->adopt_wanted && want_has(j, &all[i]))) {
			v = ours;
			n = nours;
			for (k = 0; k < j->nowned && !rec_in(&j->owned[k], 1, &all[i]); k++)
				;
			/* Found again after a restart, or new to us. */
			if (k == j->nowned || j->owned_from_state)
				j->adopted++;
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
			    const struct held_rec *ours, size_t nours)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i].op == PLAN_SET && held_find(ours, nours, p[i].sid, p[i].pkey) == nours)
			return 1;
	return 0;
}

static void state_save(struct saj *j, const struct held_rec *r, size_t n,
		       const struct plan_action *plan, size_t nplan)
{
	struct held_rec *v = NULL;
	size_t i, nv = n;
	int ret;

	if (!j->state_path[0])
		return;
	/* Before the Sets go out, list them too: a crash between a Set and
	 * the next write must not leave a record of ours that we would take
	 * for someone else's. */
	v = malloc((n + nplan + 1) * sizeof(*v));
	if (!v) {
		j->state_err = -ENOMEM;
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
	ret = astate_save(j->state_path, j->port.gid, v, nv);
	free(v);
	if (ret)
		j->state_err = ret;
	else
		j->state_saved = 1;
}

static void run_sync(struct saj_thread *t, struct saj *j)
{
	struct held_rec *held = NULL, *all = NULL;
	struct plan_action *plan = NULL;
	size_t nheld = 0, nall = 0, nplan = 0, i, k;
	char ip[ATS_IP_STRLEN];
	unsigned timeouts = 0;
	int ret, err = 0, pass;

	for (pass = 0; pass < 2; pass++) {
		free(held);
		free(plan);
		held = NULL;
		plan = NULL;
		nheld = nplan = 0;
		j->adopted = 0;
		ret = read_held(t, j, &all, &nall);
		if (!ret)
			ret = split_held(j, all, nall, &held, &nheld);
		else
			free(all);
		if (!ret)
			ret = plan_build_foreign(j->want, j->nwant, held, nheld, j->foreign,
						 j->nforeign, &plan, &nplan);
		if (ret || j->full || !plan_needs_block(plan, nplan, held, nheld))
			break;
		j->full = 1;
	}
	if (!ret && (nplan || j->adopted || j->adopt_wanted))
		state_save(j, held, nheld, plan, nplan);
	/* Each record on its own: one the SA refuses or loses does not keep
	 * the others from being registered. */
	for (i = 0; i < nplan && !ret; i++) {
		struct plan_action *a = &plan[i];
		struct sr_record r;
		uint16_t st;
		int r1;

		ats_record_init(&r, a->sid, j->port.gid, a->pkey, j->lease, &a->ip);
		j->queries++;
		if (a->op == PLAN_SET)
			r1 = sa_sr_set(t->sa, &r,
				       ats_reg_mask(j->lease), NULL);
		else
			r1 = sa_sr_delete(t->sa, &r, sr_comp_mask(SR_F_ID | SR_F_GID |
								  SR_F_PKEY), NULL);
		st = r1 ? sa_client_last_status(t->sa) : 0;
		if (r1 == -ENOENT && a->op == PLAN_DELETE)
			r1 = 0; /* gone already: that is what we wanted */
		if (r1 && a->op == PLAN_SET && plan_is_refusal(st)) {
			log_warn("the SA refused %s on SID 0x%016llx PKey 0x%04x: %s",
				 ats_ip_format(&a->ip, ip, sizeof(ip)),
				 (unsigned long long)a->sid, a->pkey, sa_status_str(st));
			ret = refused_add(j, a, st);
			continue;
		}
		if (r1 && plan_is_refusal(st)) {
			/* E.g. the plugin's primary-first rule keeps our primary
			 * while another's record of this GID needs it. Not a
			 * failure to back off from: the record stays ours. Said at
			 * full reads and at exit, not at every verify. */
			if (j->full || !j->nwant)
				log_warn("the SA refused to delete %s from SID 0x%016llx PKey 0x%04x: %s; kept",
					 ats_ip_format(&a->ip, ip, sizeof(ip)),
					 (unsigned long long)a->sid, a->pkey, sa_status_str(st));
			continue;
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
			err = r1;
			if ((r1 == -ETIMEDOUT || r1 == -ENETDOWN) && ++timeouts >= 2)
				break;
			continue;
		}
		timeouts = 0;
		k = held_find(held, nheld, a->sid, a->pkey);
		if (a->op == PLAN_SET) {
			j->sets++;
			log_info("registered %s on SID 0x%016llx PKey 0x%04x",
				 ats_ip_format(&a->ip, ip, sizeof(ip)),
				 (unsigned long long)a->sid, a->pkey);
			/* Replace what the SA held under that SID. */
			if (k == nheld)
				ret = held_add(&held, &nheld, &r);
			else
				held[k].ip = a->ip;
		} else {
			j->deletes++;
			log_info("deregistered %s from SID 0x%016llx PKey 0x%04x",
				 ats_ip_format(&a->ip, ip, sizeof(ip)),
				 (unsigned long long)a->sid, a->pkey);
			if (k < nheld)
				held[k] = held[--nheld];
		}
	}
	if (!ret && (nplan || j->adopted || j->adopt_wanted))
		state_save(j, held, nheld, NULL, 0);
	if (ret) {
		snprintf(j->errmsg, sizeof(j->errmsg), "%s",
			 sa_client_last_status(t->sa) ?
			 sa_status_str(sa_client_last_status(t->sa)) : strerror(-ret));
		j->sa_status = sa_client_last_status(t->sa);
	} else {
		ret = err;
	}
	j->err = ret;
	j->result = held;
	j->nresult = nheld;
	free(plan);
}

static void run_ipoib(struct saj_thread *t, struct saj *j)
{
	size_t i;

	for (i = 0; i < j->ngroups; i++) {
		struct saj_group *g = &j->groups[i];
		uint8_t mgid[16];

		ipoib_bcast_mgid(g->pkey, mgid);
		j->queries++;
		if (j->join == SAJ_LEAVE) {
			g->err = mcm_leave(t->sa, mgid);
		} else if (j->join == SAJ_JOIN) {
			g->err = mcm_join(t->sa, mgid, &g->rec);
		} else {
			g->err = mcm_member(t->sa, mgid, &g->rec);
			if (g->err == -ENOENT) {
				j->queries++;
				g->err = mcm_join(t->sa, mgid, &g->rec);
				g->joined = !g->err;
			}
		}
		g->sa_status = g->err ? sa_client_last_status(t->sa) : 0;
	}
}

static void run(struct saj_thread *t, struct saj *j)
{
	struct ats_set s;
	int ret;

	/* Under ibsim the port poll reads the SMA (mport_use_sma). */
	if (j->kind == SAJ_PORT && (ret = mport_refresh(t->port)))
		log_debug("PortInfo from the SMA: %s", strerror(-ret));
	ret = mport_query(t->port, &j->port);
	if (!ret)
		identity_update(t, &j->port);
	if (!ret && (j->port.state != 4 || !j->port.sm_lid))
		ret = -ENETDOWN;
	if (ret || j->kind == SAJ_PORT) {
		j->err = ret;
		if (ret)
			snprintf(j->errmsg, sizeof(j->errmsg), "%s", ret == -ENETDOWN ?
				 "port is not active or has no SM" : strerror(-ret));
		return;
	}
	switch (j->kind) {
	case SAJ_SYNC:
		run_sync(t, j);
		return;
	case SAJ_IPOIB:
		run_ipoib(t, j);
		return;
	case SAJ_CONNECT:
		if (!t->cm) {
			j->err = -ENOTSUP;
			snprintf(j->errmsg, sizeof(j->errmsg), "the CM endpoint is off (cm_listen, cm_policy)");
			return;
		}
		j->err = cmep_connect(t->cm, &j->ip, j->port_no, j->sid, &j->src,
				      t->cm_timeout_ms, &j->conns[0], j->errmsg, sizeof(j->errmsg));
		j->nconns = j->err ? 0 : 1;
		return;
	case SAJ_DISCONNECT:
		j->err = t->cm ? cmep_disconnect(t->cm, j->conn_id, t->cm_timeout_ms, j->errmsg,
						 sizeof(j->errmsg)) : -ENOENT;
		return;
	case SAJ_CONNS:
		j->nconns = t->cm ? cmep_list(t->cm, j->conns, CMEP_MAX_CONNS) : 0;
		return;
	case SAJ_FORWARD:
		ret = ats_forward(t->sa, &j->ip, j->pkey, &s);
		break;
	case SAJ_REVERSE:
		ret = ats_reverse(t->sa, j->gid, j->pkey, &s);
		break;
	case SAJ_PRIMARY:
		memset(&s, 0, sizeof(s));
		s.recs = calloc(1, sizeof(*s.recs));
		ret = s.recs ? ats_primary(t->sa, j->gid, j->pkey, s.recs) : -ENOMEM;
		s.n = ret ? 0 : 1;
		s.queries = 1;
		if (ret == -ENOENT)
			ret = 0;
		break;
	default:
		ret = -EINVAL;
		memset(&s, 0, sizeof(s));
		break;
	}
	j->err = ret;
	j->sa_status = sa_client_last_status(t->sa);
	if (ret)
		snprintf(j->errmsg, sizeof(j->errmsg), "%s", j->sa_status ?
			 sa_status_str(j->sa_status) : strerror(-ret));
	set_from_records(j, &s);
	ats_set_free(&s);
}

static void *thread_main(void *arg)
{
	struct saj_thread *t = arg;

	pthread_mutex_lock(&t->mu);
	for (;;) {
		struct saj *j;

		while (!t->stop && !t->todo) {
			if (!t->serving) {
				pthread_cond_wait(&t->cv, &t->mu);
				continue;
			}
			/* umad cannot be woken by the queue: listen in slices. */
			pthread_mutex_unlock(&t->mu);
			mport_serve(t->port, SERVE_SLICE_MS);
			pthread_mutex_lock(&t->mu);
		}
		if (t->stop)
			break;
		j = queue_take(&t->todo, &t->todo_tail);
		pthread_mutex_unlock(&t->mu);
		run(t, j);
		pthread_mutex_lock(&t->mu);
		queue_put(&t->done_tail, j);
		if (write(t->pipe[1], "", 1) < 0 && errno != EAGAIN)
			log_err("SA thread: cannot wake the main loop: %s", strerror(errno));
	}
	pthread_mutex_unlock(&t->mu);
	return NULL;
}

/* Under ibsim only a node's "SM" client receives unsolicited MADs. Become
 * one without SIM_SET_ISSM: every class that may arrive must have an agent
 * first (umad2sim crashes on a MAD of an unregistered class). OpenSM probes
 * the IsSM capability with SMInfo: refuse it as a port without an SM does,
 * as ibsim would leave an unanswered probe, and OpenSM's sweep, pending.
 * umad2sim's sysfs never changes: port polls read PortInfo from the SMA. */
static int become_sim_sm(struct saj_thread *t, const struct saj_opts *o)
{
	int ret, dr;

	ret = mport_register_serve(t->port, SMP_CLASS_LID, 1, MAD_METHOD_GET);
	if (ret < 0)
		return ret;
	dr = mport_register_serve(t->port, SMP_CLASS_DR, 1, MAD_METHOD_GET);
	if (dr < 0)
		return dr;
	mport_use_sma(t->port, dr);
	if ((ret = mport_refresh(t->port)))
		log_warn("ibsim mode: no PortInfo from the port's SMA: %s", strerror(-ret));
	/* Classes a peer may send us although we do not serve them. */
	if (!o->cm && (ret = mport_register_serve(t->port, CM_CLASS, CM_CLASS_VERSION, 0x03)) < 0)
		return ret;
	if (!o->liveness &&
	    (ret = mport_register_oui(t->port, VMAD_CLASS_LIVENESS, 1, VMAD_OUI_OPENIB, 1)) < 0)
		return ret;
	if (!o->ibping &&
	    (ret = mport_register_oui(t->port, VMAD_CLASS_IBPING, 0, VMAD_OUI_OPENIB, 1)) < 0)
		return ret;
	t->issm_fd = open("/dev/infiniband/issm0", O_RDWR);
	return t->issm_fd < 0 ? -errno : 0;
}

int saj_start(struct saj_thread **out, const struct saj_opts *o)
{
	struct saj_thread *t = calloc(1, sizeof(*t));
	struct sa_client_opts so = { 0 };
	int ret;

	if (!t)
		return -ENOMEM;
	t->issm_fd = -1;
	t->todo_tail = &t->todo;
	t->done_tail = &t->done;
	pthread_mutex_init(&t->mu, NULL);
	pthread_cond_init(&t->cv, NULL);
	if (pipe2(t->pipe, O_NONBLOCK | O_CLOEXEC)) {
		ret = -errno;
		goto fail;
	}
	ret = mport_open(&t->port, o->ca, o->port);
	if (ret)
		goto fail;
	so.timeout_ms = o->timeout_ms;
	so.retries = o->retries;
	ret = sa_client_init(&t->sa, t->port, &so);
	if (ret)
		goto fail;
	mport_set_responder(t->port, answer, t);
	if (o->cm) {
		ret = cmep_init(&t->cm, t->port, t->sa, o->cm);
		if (ret) {
			log_err("cannot serve the CM class (is the kernel's CM using it?): %s",
				strerror(-ret));
			goto fail;
		}
		t->cm_timeout_ms = o->cm_timeout_ms;
		t->serving = 1;
	}
	if (o->liveness || o->ibping) {
		struct mport_info pi;

		t->id.liveness = o->liveness;
		t->id.ibping = o->ibping;
		vmad_host_name(t->id.host, sizeof(t->id.host));
		if (!mport_query(t->port, &pi))
			identity_update(t, &pi);
		ret = mport_register_oui(t->port, VMAD_CLASS_LIVENESS, 1, VMAD_OUI_OPENIB, 1);
		if (ret >= 0)
			ret = mport_register_oui(t->port, VMAD_CLASS_IBPING, 0, VMAD_OUI_OPENIB, 1);
		if (ret < 0) {
			log_err("cannot serve vendor classes 0x34/0x32 (is ibping -S running?): %s",
				strerror(-ret));
			goto fail;
		}
		t->serving = 1;
	}
	if (o->ibsim) {
		ret = become_sim_sm(t, o);
		if (ret) {
			log_err("ibsim mode: cannot become the node's SM client: %s",
				strerror(-ret));
			goto fail;
		}
		t->serving = 1;
	}
	ret = -pthread_create(&t->thread, NULL, thread_main, t);
	if (ret)
		goto fail;
	*out = t;
	return 0;
fail:
	cmep_fini(t->cm);
	if (t->sa)
		sa_client_fini(t->sa);
	mport_close(t->port);
	if (t->pipe[0] > 0) {
		close(t->pipe[0]);
		close(t->pipe[1]);
	}
	free(t);
	return ret;
}

void saj_stop(struct saj_thread *t)
{
	struct saj *j;

	if (!t)
		return;
	pthread_mutex_lock(&t->mu);
	t->stop = 1;
	pthread_cond_signal(&t->cv);
	pthread_mutex_unlock(&t->mu);
	pthread_join(t->thread, NULL);
	while ((j = queue_take(&t->todo, &t->todo_tail)))
		saj_free(j);
	while ((j = queue_take(&t->done, &t->done_tail)))
		saj_free(j);
	if (t->issm_fd >= 0)
		close(t->issm_fd);
	cmep_fini(t->cm);
	sa_client_fini(t->sa);
	mport_close(t->port);
	close(t->pipe[0]);
	close(t->pipe[1]);
	pthread_cond_destroy(&t->cv);
	pthread_mutex_destroy(&t->mu);
	free(t);
}

int saj_fd(const struct saj_thread *t)
{
	return t->pipe[0];
}

void saj_submit(struct saj_thread *t, struct saj *job)
{
	pthread_mutex_lock(&t->mu);
	queue_put(&t->todo_tail, job);
	t->pending++;
	pthread_cond_signal(&t->cv);
	pthread_mutex_unlock(&t->mu);
}

struct saj *saj_done(struct saj_thread *t)
{
	struct saj *j;
	char buf[64];

	while (read(t->pipe[0], buf, sizeof(buf)) > 0)
		;
	pthread_mutex_lock(&t->mu);
	j = queue_take(&t->done, &t->done_tail);
	if (j)
		t->pending--;
	pthread_mutex_unlock(&t->mu);
	return j;
}

unsigned saj_pending(const struct saj_thread *t)
{
	return t->pending;
}
