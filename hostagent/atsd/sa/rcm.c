/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/ib.h>
#include <rdma/rdma_cma.h>

#include "core/a11.h"
#include "host/ats_query.h"
#include "core/log.h"
#include "core/mono.h"
#include "rcm.h"
#include "rcm_peer.h"
#include "rcm_priv.h"
#include "core/sa_client.h"

/* Each refusal is logged, at most RCM_LOG_BURST lines in RCM_LOG_WINDOW_MS;
 * what was left out is counted in the next line. */
#define RCM_LOG_BURST 10
#define RCM_LOG_WINDOW_MS 10000
/* Connection requests judged per rcm_serve: each may cost an SA round
 * trip (the requester's ATS primary), and the thread's queued lookups
 * get their turn between batches. */
#define RCM_SERVE_BATCH 8

const char *rcm_state_name(enum rcm_state s)
{
	static const char *const n[] = {
		"resolving", "req-sent", "rep-sent", "established", "dreq-sent",
	};

	return s <= RCM_DREQ_SENT ? n[s] : "?";
}

const char *rcm_missing_text(int err)
{
	/* librdmacm opens /dev/infiniband/rdma_cm (rdma-core util/open_cdev.c):
	 * ENOENT when rdma_ucm (and the ib_cm it needs) is not loaded;
	 * ENODEV when libibverbs lists no device (cma.c ucma_init). */
	if (err == -ENOENT)
		return "connecting by IP needs the kernel's rdma_cm: "
		       "/dev/infiniband/rdma_cm is missing (modprobe rdma_ucm)";
	if (err == -ENODEV)
		return "connecting by IP needs the kernel's rdma_cm: librdmacm finds no RDMA device";
	return NULL;
}

void rcm_sib_fill(struct sockaddr_ib *s, const uint8_t *gid, uint16_t pkey, uint64_t sid,
		     uint64_t mask)
{
	memset(s, 0, sizeof(*s));
	s->sib_family = AF_IB;
	s->sib_pkey = htobe16(pkey);
	memcpy(&s->sib_addr, gid, 16);
	s->sib_sid = htobe64(sid);
	s->sib_sid_mask = htobe64(mask);
}

int rcm_init(struct rcm **out, struct sa_client *sa, const struct rcm_conf *conf,
	     unsigned rtu_timeout_ms)
{
	const struct mport_info *pi = sa_client_port(sa);
	struct rcm *r = calloc(1, sizeof(*r));
	struct sockaddr_ib sib;
	size_t i;
	int ret;

	if (!r)
		return -ENOMEM;
	r->sa = sa;
	r->conf = *conf;
	r->rtu_timeout_ms = rtu_timeout_ms;
	r->idle_ms = (int64_t)conf->idle_timeout * 1000;
	r->ch = rdma_create_event_channel();
	if (!r->ch) {
		ret = -errno;
		free(r);
		return ret;
	}
	/* Drained between the SA thread's jobs: never block there. */
	if (fcntl(r->ch->fd, F_SETFL, fcntl(r->ch->fd, F_GETFL) | O_NONBLOCK)) {
		ret = -errno;
		rdma_destroy_event_channel(r->ch);
		free(r);
		return ret;
	}
	for (i = 0; i < conf->nlisten; i++) {
		struct rdma_cm_id *id;

		if (rdma_create_id(r->ch, &id, NULL, RDMA_PS_TCP)) {
			log_warn("CM: cannot listen on service 0x%016" PRIx64 ": %s",
				 conf->listen[i], strerror(errno));
			continue;
		}
		/* The port's GID: this atsd serves one port. */
		rcm_sib_fill(&sib, pi->gid, ATS_PKEY_DEFAULT, conf->listen[i], UINT64_MAX);
		if (rdma_bind_addr(id, (struct sockaddr *)&sib) || rdma_listen(id, 0)) {
			log_warn("CM: cannot listen on service 0x%016" PRIx64 ": %s",
				 conf->listen[i], strerror(errno));
			rdma_destroy_id(id);
			continue;
		}
		r->listeners[r->nlisteners++] = id;
	}
	srandom((unsigned)time(NULL) ^ (unsigned)(uintptr_t)r);
	r->next_id = (uint32_t)random();
	*out = r;
	return 0;
}

/* The slot out of the table, its QP destroyed; its id is the caller's
 * to destroy (after the ack of an event of its own: rdma_destroy_id waits
 * for every event of the id to be acked). */
static struct rdma_cm_id *slot_take(struct rcm *r, struct rcm_slot *s)
{
	struct rdma_cm_id *id = s->id;

	if (id->qp)
		rdma_destroy_qp(id);
	*s = r->conns[--r->nconns];
	return id;
}

void rcm_slot_del(struct rcm *r, struct rcm_slot *s)
{
	rdma_destroy_id(slot_take(r, s));
}

void rcm_fini(struct rcm *r)
{
	size_t i;

	if (!r)
		return;
	/* A connected id's destroy sends the DREQ (cm.c cm_destroy_id). */
	while (r->nconns)
		rcm_slot_del(r, &r->conns[0]);
	for (i = 0; i < r->nlisteners; i++)
		rdma_destroy_id(r->listeners[i]);
	rdma_destroy_event_channel(r->ch);
	free(r);
}

int rcm_fd(const struct rcm *r)
{
	return r->ch->fd;
}

struct rcm_slot *rcm_slot_new(struct rcm *r, struct rdma_cm_id *id)
{
	struct rcm_slot *s;

	if (r->nconns == RCM_MAX_CONNS)
		return NULL;
	s = &r->conns[r->nconns++];
	memset(s, 0, sizeof(*s));
	s->id = id;
	s->c.id = r->next_id++;
	return s;
}

static struct rcm_slot *slot_of(struct rcm *r, const struct rdma_cm_id *id)
{
	size_t i;

	for (i = 0; i < r->nconns; i++)
		if (r->conns[i].id == id)
			return &r->conns[i];
	return NULL;
}

struct rcm_slot *rcm_slot_find(struct rcm *r, uint32_t cid)
{
	size_t i;

	for (i = 0; i < r->nconns; i++)
		if (r->conns[i].c.id == cid)
			return &r->conns[i];
	return NULL;
}

/* The listener's passive connections: established ones, those of one
 * requester port among them, and the half-open ones with the oldest. */
struct rcm_count {
	size_t established, half_open;
	unsigned of_peer;
	struct rcm_slot *oldest_half;
};

static void count(struct rcm *r, uint64_t port_guid, const struct rcm_slot *skip,
		  struct rcm_count *n)
{
	size_t i;

	memset(n, 0, sizeof(*n));
	for (i = 0; i < r->nconns; i++) {
		struct rcm_slot *s = &r->conns[i];

		if (s == skip || s->c.active)
			continue;
		if (s->c.state == RCM_REP_SENT) {
			n->half_open++;
			if (!n->oldest_half || s->due < n->oldest_half->due)
				n->oldest_half = s;
			continue;
		}
		n->established++;
		n->of_peer += s->peer_guid == port_guid;
	}
}

/* The path's ends as rdma_cm holds them: on the passive side the REQ's
 * primary path seen from here (cm.c cm_format_path_from_req: sgid ours). */
void rcm_path_fill(struct rcm_conn *c, const struct rdma_cm_id *id)
{
	const struct ibv_sa_path_rec *p = id->route.path_rec;

	if (!id->route.num_paths || !p)
		return;
	memcpy(c->local_gid, p->sgid.raw, 16);
	memcpy(c->remote_gid, p->dgid.raw, 16);
	c->local_lid = be16toh(p->slid);
	c->remote_lid = be16toh(p->dlid);
	c->pkey = be16toh(p->pkey);
}

struct ibv_qp_init_attr rcm_qp_attr(void)
{
	struct ibv_qp_init_attr a;

	/* No data moves over it: one WR each way, the CQs librdmacm makes. */
	memset(&a, 0, sizeof(a));
	a.qp_type = IBV_QPT_RC;
	a.cap.max_send_wr = 1;
	a.cap.max_recv_wr = 1;
	a.cap.max_send_sge = 1;
	a.cap.max_recv_sge = 1;
	return a;
}

struct rdma_conn_param rcm_conn_param(const void *pd, uint8_t len)
{
	struct rdma_conn_param p;

	/* No RDMA reads either way: 0 responder resources and initiator
	 * depth, which every device's limits allow. */
	memset(&p, 0, sizeof(p));
	p.private_data = pd;
	p.private_data_len = len;
	p.retry_count = 7;
	p.rnr_retry_count = 7;
	return p;
}

static void refused(struct rcm *r, const char *gid, const char *why, int err)
{
	int64_t now = mono_ms();

	if (now - r->rl_start >= RCM_LOG_WINDOW_MS) {
		r->rl_start = now;
		r->rl_lines = 0;
	}
	if (r->rl_lines >= RCM_LOG_BURST) {
		r->rl_quiet++;
		return;
	}
	r->rl_lines++;
	if (r->rl_quiet)
		log_warn("CM: REQ from %s rejected: %s%s%s (and %u more refused, not logged)", gid,
			 why, err ? ": " : "", err ? strerror(err) : "", r->rl_quiet);
	else
		log_warn("CM: REQ from %s rejected: %s%s%s", gid, why, err ? ": " : "",
			 err ? strerror(err) : "");
	r->rl_quiet = 0;
}

/* The REQ's judgement, cheapest refusals first: the Annex A11 header,
 * cm_policy any/list (no SA), the listener's room, who is calling (the
 * SA), that port's share, then ATS for cm_policy agree (the SA again).
 * "" and *peer, or the REJ text in why. */
static void judge_req(struct rcm *r, const struct rdma_cm_event *ev, const struct rcm_conn *c,
		      struct a11_pdata *pd, struct rcm_peer *peer, char *why, size_t len)
{
	struct rcm_count n;
	int ret;

	ret = ev->param.conn.private_data ? a11_pdata_decode(ev->param.conn.private_data,
			ev->param.conn.private_data_len, pd) : -EMSGSIZE;
	if (ret == -EPROTONOSUPPORT) {
		snprintf(why, len, "ibats: RDMA IP CM (Annex A11) version 0x%02x not supported",
			 ((const uint8_t *)ev->param.conn.private_data)[0]);
		return;
	}
	if (ret) {
		snprintf(why, len, "ibats: no RDMA IP CM private data (Annex A11)");
		return;
	}
	if (r->conf.policy != RCM_CONF_ACCEPT_AGREE &&
	    rcm_peer_judge(&r->conf, &pd->src, NULL, why, len))
		return;
	count(r, 0, NULL, &n);
	if (rcm_peer_admit(n.established, 0, why, len) ||
	    rcm_peer_verify(r->sa, &r->conf, c->remote_gid, c->remote_lid, peer, why, len))
		return;
	count(r, peer->port_guid, NULL, &n);
	if (rcm_peer_admit(n.established, n.of_peer, why, len) ||
	    (r->conf.policy == RCM_CONF_ACCEPT_AGREE &&
	     rcm_peer_check(r->sa, &r->conf, c->remote_gid, c->pkey, &pd->src, why, len)))
		return;
	why[0] = 0;
}

/* Room for one more half-open connection: when the pool is full, its
 * oldest goes if it waited RCM_PEER_HALF_OPEN_MIN_MS for its RTU (an RTU may
 * be in the channel behind the requests read first); else the newcomer
 * is refused. 0, or -EBUSY with the REJ text in why. */
static int half_open_room(struct rcm *r, char *why, size_t len)
{
	char gid[ATS_IP_STRLEN];
	struct rcm_count n;
	struct rcm_slot *o;

	count(r, 0, NULL, &n);
	if (n.half_open < RCM_PEER_MAX_HALF_OPEN)
		return 0;
	o = n.oldest_half;
	if (mono_ms() - (o->due - r->rtu_timeout_ms) < RCM_PEER_HALF_OPEN_MIN_MS) {
		snprintf(why, len, "ibats: %d requests wait for their RTU", RCM_PEER_MAX_HALF_OPEN);
		return -EBUSY;
	}
	ats_gid_format(o->c.remote_gid, gid, sizeof(gid));
	log_info("CM: connection 0x%08x from %s dropped: no RTU, and %d half-open requests "
		 "wait with a new one", o->c.id, gid, RCM_PEER_MAX_HALF_OPEN);
	rcm_slot_del(r, o);
	return 0;
}

/* A CONNECT_REQUEST on a listener: its new id is accepted (kept in the
 * table) or rejected (destroyed after the event's ack). */
static struct rdma_cm_id *on_request(struct rcm *r, struct rdma_cm_event *ev)
{
	struct rdma_cm_id *id = ev->id;
	struct ibv_qp_init_attr qa = rcm_qp_attr();
	struct rdma_conn_param cp = rcm_conn_param(NULL, 0);
	struct a11_pdata pd;
	struct rcm_peer peer;
	struct rcm_conn c;
	struct rcm_slot *s = NULL;
	char why[RCM_REJ_TEXT_MAX], gid[ATS_IP_STRLEN];

	memset(&c, 0, sizeof(c));
	rcm_path_fill(&c, id);
	c.service_id = be64toh(((struct sockaddr_ib *)rdma_get_local_addr(id))->sib_sid);
	c.remote_qpn = ev->param.conn.qp_num;
	ats_gid_format(c.remote_gid, gid, sizeof(gid));
	judge_req(r, ev, &c, &pd, &peer, why, sizeof(why));
	if (!why[0] && !half_open_room(r, why, sizeof(why)) && !(s = rcm_slot_new(r, id)))
		snprintf(why, sizeof(why), "ibats: connection table full");
	if (why[0]) {
		refused(r, gid, why, 0);
		/* Reason 28, consumer defined (rdma_reject, cma.c). */
		rdma_reject(id, why, (uint8_t)(strlen(why) + 1));
		return id;
	}
	c.id = s->c.id;
	c.state = RCM_REP_SENT;
	c.local_ip = pd.dst;
	c.remote_ip = pd.src;
	c.src_port = pd.src_port;
	c.ib_form = pd.ib_form;
	if (rdma_create_qp(id, NULL, &qa) || rdma_accept(id, &cp)) {
		snprintf(why, sizeof(why), "ibats: no QP for the connection");
		refused(r, gid, why, errno);
		if (id->qp)
			rdma_destroy_qp(id);
		r->nconns--;
		rdma_reject(id, why, (uint8_t)(strlen(why) + 1));
		return id;
	}
	c.local_qpn = id->qp->qp_num;
	s->c = c;
	s->peer_guid = peer.port_guid;
	/* The requester chose how long our ib_cm resends the REP (its REQ's
	 * CM response timeout and retries, IBTA 12.7.27/12.7.29: hours, and
	 * MRAs extend it): our own bound frees the slot. */
	s->due = mono_ms() + r->rtu_timeout_ms;
	log_info("CM: REQ from %s for service 0x%016" PRIx64 ": accepted, connection 0x%08x%s",
		 gid, c.service_id, c.id, c.ib_form ? " (AF_IB form)" : "");
	return NULL;
}

static int all_zero(const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n--)
		if (*b++)
			return 0;
	return 1;
}

/* The active side's step events (connect under way). */
static void on_active(struct rcm *r, struct rcm_slot *s, struct rdma_cm_event *ev)
{
	struct ibv_qp_init_attr qa = rcm_qp_attr();
	uint8_t pd[A11_IB_PDATA_LEN];
	struct rdma_conn_param cp;
	struct a11_pdata ip;
	const char *step = NULL;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		if (rdma_resolve_route(s->id, (int)r->timeout_ms))
			step = "route resolution";
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		rcm_path_fill(&s->c, s->id);
		if (rdma_create_qp(s->id, NULL, &qa)) {
			step = "QP creation";
			break;
		}
		s->c.local_qpn = s->id->qp->qp_num;
		memset(&ip, 0, sizeof(ip));
		ip.src = s->c.local_ip;
		ip.dst = s->c.remote_ip;
		ip.src_port = s->c.src_port;
		/* AF_IB: the kernel adds no CMA header, the A11 one is ours
		 * (cma.c cma_connect_ib, cma_user_data_offset); the peer's
		 * kernel reads it all the same (a11.h). */
		if (s->ib_form)
			a11_pdata_encode_ib(pd, &ip);
		else
			a11_pdata_encode(pd, &ip);
		cp = rcm_conn_param(pd, s->ib_form ? A11_IB_PDATA_LEN : A11_PDATA_LEN);
		if (rdma_connect(s->id, &cp))
			step = "connect";
		else
			s->c.state = RCM_REQ_SENT;
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		s->c.remote_qpn = ev->param.conn.qp_num;
		s->c.state = RCM_ESTABLISHED;
		return;
	case RDMA_CM_EVENT_REJECTED: {
		const char *t = ev->param.conn.private_data;
		int n = 0;

		/* status is the REJ's reason (cma.c cma_ib_handler). The
		 * peer's rdma_cm refuses a request before any listener with
		 * ib_cm's REJ 28 and no private data (cm.c cm_destroy_id). */
		while (t && n < ev->param.conn.private_data_len && t[n])
			n++;
		s->kernel_rej = ev->status == 28 &&
				(!t || all_zero(t, ev->param.conn.private_data_len));
		snprintf(r->err, r->errlen, "rejected (reason %d): %.*s", ev->status,
			 n ? n : (int)sizeof("no reason given") - 1, n ? t : "no reason given");
		s->failed = -ECONNREFUSED;
		return;
	}
	case RDMA_CM_EVENT_ADDR_ERROR:
		snprintf(r->err, r->errlen, "address resolution failed: %s", strerror(-ev->status));
		s->failed = ev->status ? ev->status : -EHOSTUNREACH;
		return;
	case RDMA_CM_EVENT_ROUTE_ERROR:
		snprintf(r->err, r->errlen, "route resolution failed: %s", strerror(-ev->status));
		s->failed = ev->status ? ev->status : -EHOSTUNREACH;
		return;
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
		snprintf(r->err, r->errlen, "connect failed: %s: %s", rdma_event_str(ev->event),
			 strerror(-ev->status));
		s->failed = ev->status ? ev->status : -EHOSTUNREACH;
		return;
	default:
		return;
	}
	if (step) {
		s->failed = -errno;
		snprintf(r->err, r->errlen, "%s failed: %s", step, strerror(errno));
	}
}

/* A passive connection's RTU: the REP reached the port its REQ named,
 * whose share it now takes, if there is room (others may have come
 * through since the REQ). The id to destroy (DREQ), or NULL. */
static struct rdma_cm_id *on_rtu(struct rcm *r, struct rcm_slot *s)
{
	char why[RCM_REJ_TEXT_MAX], gid[ATS_IP_STRLEN];
	struct rcm_count n;

	count(r, s->peer_guid, s, &n);
	if (rcm_peer_admit(n.established, n.of_peer, why, sizeof(why))) {
		ats_gid_format(s->c.remote_gid, gid, sizeof(gid));
		refused(r, gid, why, 0);
		return slot_take(r, s);
	}
	s->c.state = RCM_ESTABLISHED;
	s->due = mono_ms() + r->idle_ms;
	log_info("CM: connection 0x%08x established", s->c.id);
	return NULL;
}

/* One event; the id to destroy once it is acked, or NULL. */
static struct rdma_cm_id *dispatch(struct rcm *r, struct rdma_cm_event *ev)
{
	struct rcm_slot *s;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return on_request(r, ev);
	s = slot_of(r, ev->id);
	if (!s)
		return NULL;
	if (s->c.active && s->c.state < RCM_ESTABLISHED) {
		on_active(r, s, ev);
		return NULL;
	}
	switch (ev->event) {
	case RDMA_CM_EVENT_ESTABLISHED:
		if (s->c.state == RCM_REP_SENT)
			return on_rtu(r, s);
		return NULL;
	case RDMA_CM_EVENT_DISCONNECTED:
		if (s->c.state != RCM_DREQ_SENT)
			log_info("CM: connection 0x%08x closed by the peer", s->c.id);
		break;
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
		/* Our REP had no RTU (cma.c: IB_CM_REP_ERROR / REJ). */
		log_info("CM: connection 0x%08x failed: %s", s->c.id, rdma_event_str(ev->event));
		break;
	default:
		return NULL;
	}
	return slot_take(r, s);
}

/* The events that wait; 0, or -EAGAIN when none. */
static int serve_one(struct rcm *r)
{
	struct rdma_cm_event *ev;
	struct rdma_cm_id *gone;

	if (rdma_get_cm_event(r->ch, &ev))
		return -errno;
	gone = dispatch(r, ev);
	rdma_ack_cm_event(ev);
	if (gone)
		rdma_destroy_id(gone);
	return 0;
}

/* Passive connections past their due time: without the RTU (ib_cm sends
 * the REJ, cm.c cm_destroy_id in IB_CM_REP_SENT), or established and
 * idle for cm_idle_timeout (the DREQ: atsd moves no data over them, and
 * IB CM has no keepalive to find a requester that left). */
void rcm_expire(struct rcm *r)
{
	char why[96], gid[ATS_IP_STRLEN];
	int64_t now = mono_ms();
	size_t i = 0;

	while (i < r->nconns) {
		struct rcm_slot *s = &r->conns[i];

		if (s->c.active || now < s->due ||
		    (s->c.state != RCM_REP_SENT && s->c.state != RCM_ESTABLISHED)) {
			i++;
			continue;
		}
		ats_gid_format(s->c.remote_gid, gid, sizeof(gid));
		if (s->c.state == RCM_REP_SENT) {
			snprintf(why, sizeof(why), "no RTU within %u ms, connection 0x%08x dropped",
				 r->rtu_timeout_ms, s->c.id);
			refused(r, gid, why, 0);
		} else {
			log_info("CM: connection 0x%08x from %s closed: established %" PRId64
				 " s ago (cm_idle_timeout)", s->c.id, gid, r->idle_ms / 1000);
		}
		rcm_slot_del(r, s);
	}
}

int rcm_next_due(const struct rcm *r)
{
	int64_t next = -1, now = mono_ms();
	size_t i;

	for (i = 0; i < r->nconns; i++) {
		const struct rcm_slot *s = &r->conns[i];

		if (s->c.active || (s->c.state != RCM_REP_SENT && s->c.state != RCM_ESTABLISHED))
			continue;
		if (next < 0 || s->due < next)
			next = s->due;
	}
	if (next < 0)
		return -1;
	return next <= now ? 0 : next - now > INT32_MAX ? INT32_MAX : (int)(next - now);
}

int rcm_serve(struct rcm *r)
{
	int i;

	rcm_expire(r);

	for (i = 0; i < RCM_SERVE_BATCH; i++)
		if (serve_one(r))
			return 0;
	return 1;
}

/* Serves events until done(r, arg) or timeout_ms pass: -ETIMEDOUT. */
int rcm_serve_until(struct rcm *r, unsigned timeout_ms,
		       int (*done)(struct rcm *, uint32_t), uint32_t cid)
{
	struct timespec now, end;
	struct pollfd p = { .fd = r->ch->fd, .events = POLLIN };
	long left;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += timeout_ms / 1000;
	end.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	for (;;) {
		rcm_serve(r);
		if (done(r, cid))
			return 0;
		clock_gettime(CLOCK_MONOTONIC, &now);
		left = (end.tv_sec - now.tv_sec) * 1000L + (end.tv_nsec - now.tv_nsec) / 1000000L;
		if (left <= 0)
			return -ETIMEDOUT;
		if (poll(&p, 1, (int)left) < 0 && errno != EINTR)
			return -errno;
	}
}

static int gone(struct rcm *r, uint32_t cid)
{
	return !rcm_slot_find(r, cid);
}

int rcm_disconnect(struct rcm *r, uint32_t cid, unsigned timeout_ms,
		   char *err, size_t errlen)
{
	struct rcm_slot *s = rcm_slot_find(r, cid);
	int ret;

	if (!s) {
		snprintf(err, errlen, "no connection 0x%08x", cid);
		return -ENOENT;
	}
	s->c.state = RCM_DREQ_SENT;
	if (rdma_disconnect(s->id)) {
		ret = -errno;
		snprintf(err, errlen, "rdma_disconnect: %s", strerror(errno));
	} else {
		/* DISCONNECTED on the DREP (or the DREQ's timeout). */
		ret = rcm_serve_until(r, timeout_ms, gone, cid);
		if (ret)
			snprintf(err, errlen, "no DREP within %u ms", timeout_ms);
	}
	/* The connection is gone on our side whatever the peer said. */
	s = rcm_slot_find(r, cid);
	if (s)
		rcm_slot_del(r, s);
	return ret;
}

size_t rcm_list(const struct rcm *r, struct rcm_conn *v, size_t max)
{
	size_t i, n = r->nconns < max ? r->nconns : max;

	for (i = 0; i < n; i++)
		v[i] = r->conns[i].c;
	return n;
}
