/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The handle and its lookups: atsd first (its local resolver socket,
 * doc/atsd-protocol.md), the SA when no agent answers. Each path has its
 * own lock so that threads sharing a handle never interleave requests on
 * one connection or one umad port. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "host/ats_query.h"
#include "host/ibsys.h"
#include "core/log.h"
#include "core/mono.h"
#include "core/mport.h"
#include "priv.h"

/* atsd answers lookups within ATSD_PROTO_LOOKUP_REPLY_MS: wait that long and
 * some slack (atsd_proto.h). */
#define AGENT_TIMEOUT_MS_DEFAULT ATSD_PROTO_LOOKUP_WAIT_MS
/* After atsd let a request time out, the SA answers for this long
 * without asking atsd first: a hung agent costs one timeout, not one per
 * lookup. */
#define AGENT_BACKOFF_MS 10000

/* The calling thread's last lookup (ibats_lookup_info): per thread, as
 * errno is, so threads sharing a handle each read their own. */
static __thread uint64_t last_h; /* the handle's id, 0: none */
static __thread struct ibats_info last;
static uint64_t next_id;

/* The library is quiet: the project's code logs only errors, and an
 * application's stderr is not ours to fill with SA details, unless it
 * asks (ibats_set_log). Once, so that its choice stays. */
static pthread_once_t log_once = PTHREAD_ONCE_INIT;
_Static_assert(IBATS_LOG_ERR == LOG_LVL_ERR && IBATS_LOG_WARN == LOG_LVL_WARN &&
	       IBATS_LOG_INFO == LOG_LVL_INFO && IBATS_LOG_DEBUG == LOG_LVL_DEBUG,
	       "IBATS_LOG_* are lib/core/log.h's levels");

static void log_quiet(void)
{
	log_set_level(LOG_LVL_ERR);
}

IBATS_EXPORT int ibats_open(struct ibats **out, const struct ibats_opts *opts)
{
	struct ibats *h;
	size_t i;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (opts) {
		for (i = 0; i < sizeof(opts->reserved) / sizeof(opts->reserved[0]); i++)
			if (opts->reserved[i])
				return -EINVAL;
		if (opts->reserved0 || opts->sa_depth > ATS_WINDOW_DEPTH_MAX)
			return -EINVAL;
		if (opts->flags & ~(unsigned)(IBATS_NO_AGENT | IBATS_NO_SA |
					      IBATS_RMPP_ON | IBATS_RMPP_OFF) ||
		    (opts->flags & IBATS_NO_AGENT && opts->flags & IBATS_NO_SA) ||
		    (opts->flags & IBATS_RMPP_ON && opts->flags & IBATS_RMPP_OFF))
			return -EINVAL;
	}
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	if (opts)
		h->o = *opts;
	if (!h->o.pkey)
		h->o.pkey = IBATS_PKEY_DEFAULT;
	if (!h->o.agent_timeout_ms)
		h->o.agent_timeout_ms = AGENT_TIMEOUT_MS_DEFAULT;
	if (!h->o.sa_depth)
		h->o.sa_depth = ATS_WINDOW_DEPTH_DEFAULT;
	if (snprintf(h->socket_path, sizeof(h->socket_path), "%s",
		     h->o.socket_path ? h->o.socket_path : IBATS_SOCKET_DEFAULT) >=
		    (int)sizeof(h->socket_path) ||
	    (h->o.ca && snprintf(h->ca, sizeof(h->ca), "%s", h->o.ca) >= (int)sizeof(h->ca))) {
		free(h);
		return -ENAMETOOLONG;
	}
	/* The caller's strings need not outlive the call. */
	h->o.socket_path = h->socket_path;
	h->o.ca = h->o.ca ? h->ca : NULL;
	pthread_mutex_init(&h->agent_lock, NULL);
	pthread_mutex_init(&h->sa_lock, NULL);
	pthread_cond_init(&h->sa_cv, NULL);
	pthread_once(&log_once, log_quiet);
	h->id = __atomic_add_fetch(&next_id, 1, __ATOMIC_RELAXED);
	*out = h;
	return 0;
}

IBATS_EXPORT void ibats_close(struct ibats *h)
{
	if (!h)
		return;
	atsd_client_disconnect(h->agent);
	ats_window_fini(h->win);
	if (h->sa)
		sa_client_fini(h->sa);
	if (h->port)
		mport_close(h->port);
	pthread_mutex_destroy(&h->agent_lock);
	pthread_mutex_destroy(&h->sa_lock);
	pthread_cond_destroy(&h->sa_cv);
	free(h);
}

/* After fork() the child holds copies of the parent's fds: the atsd
 * stream (an answer goes to whichever process reads first) and the umad
 * port (the kernel hands a response to any reader of the file). The
 * child drops its copies and opens its own at its next request: close(2)
 * only, never shutdown(2) nor anything sent, so the parent's connection
 * and registered agents go on untouched (the kernel keeps the file while
 * the parent holds it, ib_umad unregisters agents at its last close).
 * What was read ahead on the stream goes with the copy. A getpid() per
 * request, not pthread_atfork: a handle of a library loaded by dlopen
 * needs no global registry of handles to be found from a fork handler.
 * Caller holds agent_lock. */
static void agent_drop_inherited(struct ibats *h)
{
	if (h->agent && h->agent_pid != getpid()) {
		atsd_client_disconnect(h->agent);
		h->agent = NULL;
	}
}

/* The same for the SA path (caller holds sa_lock). The next port is
 * opened afresh: its agents are the child's and its TIDs start from a
 * seed of the child's (mport_open), not the parent's sequence. The
 * lookups in the window are the parent's threads', which the child does
 * not have: the window goes without a look at them, and so does a
 * reader the fork caught waiting. */
static void sa_drop_inherited(struct ibats *h)
{
	if (h->port && h->sa_pid != getpid()) {
		ats_window_fini(h->win);
		if (h->sa)
			sa_client_fini(h->sa);
		mport_close(h->port);
		h->win = NULL;
		h->sa = NULL;
		h->port = NULL;
		h->sa_reader = 0;
	}
}

/* One request on the persistent connection. A connection atsd closed
 * since the last request (restart, idle limit) fails with EPIPE or
 * ECONNRESET on first use: reconnect once. Returns -ENOTCONN when no
 * agent could be reached at all (*why the connect error), another -errno
 * when it broke mid-way. */
static int agent_ask(struct ibats *h, const char *req, struct atsd_client_reply *rep, int *why)
{
	int attempt, ret = -ENOTCONN;

	pthread_mutex_lock(&h->agent_lock);
	if (!(h->o.flags & IBATS_NO_SA) && h->agent_skip_until &&
	    mono_ms() < h->agent_skip_until) {
		pthread_mutex_unlock(&h->agent_lock);
		/* Skipped because it let the last request time out. */
		*why = -ETIMEDOUT;
		return -ENOTCONN;
	}
	h->agent_skip_until = 0;
	agent_drop_inherited(h);
	for (attempt = 0; attempt < 2; attempt++) {
		int reused = h->agent != NULL;

		if (!h->agent && (*why = atsd_client_connect(h->socket_path, &h->agent))) {
			h->agent = NULL;
			ret = -ENOTCONN;
			break;
		}
		if (!reused)
			h->agent_pid = getpid();
		ret = atsd_client_ask(h->agent, req, h->o.agent_timeout_ms, rep);
		if (!ret)
			break;
		/* The stream may hold half an answer: never reuse it. */
		atsd_client_disconnect(h->agent);
		h->agent = NULL;
		if (ret == -ETIMEDOUT)
			h->agent_skip_until = mono_ms() + AGENT_BACKOFF_MS;
		if (!reused || (ret != -EPIPE && ret != -ECONNRESET))
			break;
	}
	pthread_mutex_unlock(&h->agent_lock);
	return ret;
}

/* 1 when the agent answered (ret then the result), 0 to ask the SA. */
static int agent_lookup(struct ibats *h, const char *req, struct ibats_record **recs,
			size_t *n, int *ret)
{
	struct atsd_client_reply rep;
	int r, why = 0;

	if (h->o.flags & IBATS_NO_AGENT)
		return 0;
	r = agent_ask(h, req, &rep, &why);
	if (r) {
		/* Absent, refusing, timed out or broken: the SA answers the
		 * same question. Without the SA this is the answer. */
		last.agent_err = r == -ENOTCONN ? why : r;
		if (!(h->o.flags & IBATS_NO_SA))
			return 0;
		*ret = r == -ENOTCONN ? -ECONNREFUSED : r;
		return 1;
	}
	r = ibl_records_from_reply(&rep, recs, n, last.agent_msg, sizeof(last.agent_msg));
	if (!r && ibl_reply_local(&rep))
		last.flags |= IBATS_INFO_LOCAL;
	atsd_client_reply_free(&rep);
	/* An agent too busy for one more client is no answer either. */
	if (r == -EBUSY && !(h->o.flags & IBATS_NO_SA)) {
		last.agent_err = r;
		return 0;
	}
	last.source = IBATS_BY_AGENT;
	*ret = r;
	return 1;
}

/* Caller holds sa_lock. On failure last.sa_failed says which step. */
static int sa_open(struct ibats *h)
{
	struct sa_client_opts so = { 0 };
	int ret;

	sa_drop_inherited(h);
	if (h->sa)
		return 0;
	if (!h->port) {
		char why[160];

		ret = ibsys_open_port(&h->port, h->o.ca, h->o.port, why, sizeof(why));
		if (ret) {
			h->port = NULL;
			last.sa_failed = IBATS_SA_PORT;
			return ret;
		}
		h->sa_pid = getpid();
	}
	so.timeout_ms = h->o.sa_timeout_ms ? h->o.sa_timeout_ms : SA_CLIENT_TIMEOUT_MS_DEFAULT;
	so.retries = h->o.sa_retries < 0 ? 0 :
		     h->o.sa_retries ? (unsigned)h->o.sa_retries : SA_CLIENT_RETRIES_DEFAULT;
	so.sm_key = h->o.sm_key;
	so.rmpp = h->o.flags & IBATS_RMPP_ON ? SA_CLIENT_RMPP_ON :
		  h->o.flags & IBATS_RMPP_OFF ? SA_CLIENT_RMPP_OFF : SA_CLIENT_RMPP_AUTO;
	ret = sa_client_init(&h->sa, h->port, &so);
	if (ret) {
		h->sa = NULL;
		last.sa_failed = IBATS_SA_AGENT;
		return ret;
	}
	ret = ats_window_init(&h->win, h->sa, h->o.sa_depth);
	if (ret) {
		sa_client_fini(h->sa);
		h->sa = NULL;
		h->win = NULL;
		last.sa_failed = IBATS_SA_AGENT;
	}
	return ret;
}

/* Finished requests off the window's list, with sa_lock held, before
 * the lock is let go: each lives on its thread's stack, which the thread
 * leaves as soon as it sees its own finished (at once when the window
 * failed it before sending: the port down). Their threads are woken. */
static void sa_window_reap(struct ibats *h)
{
	int any = 0;

	while (ats_window_done(h->win))
		any = 1;
	if (any)
		pthread_cond_broadcast(&h->sa_cv);
}

/* r through the window, with sa_lock held: its requests are sent at
 * once when the window has room; then this thread either reads the port
 * for every thread (one does at a time, without the lock, so that others
 * send theirs meanwhile) or waits for the one that does. */
static void sa_window_wait(struct ibats *h, struct ats_window_req *r)
{
	ats_window_submit(h->win, r);
	ats_window_send(h->win);
	sa_window_reap(h);
	while (!ats_window_finished(r)) {
		uint8_t *mad;
		size_t len;
		int due;

		if (h->sa_reader) {
			pthread_cond_wait(&h->sa_cv, &h->sa_lock);
			continue;
		}
		due = ats_window_pump(h->win);
		sa_window_reap(h);
		if (!ats_window_finished(r) && due >= 0) {
			h->sa_reader = 1;
			pthread_mutex_unlock(&h->sa_lock);
			due = ats_window_recv(h->win, due, &mad, &len);
			pthread_mutex_lock(&h->sa_lock);
			h->sa_reader = 0;
			if (!due)
				ats_window_answer(h->win, mad, len);
			else if (due != -ETIMEDOUT)
				ats_window_fail(h->win, due); /* not a spin until the retries end */
			sa_window_reap(h);
			/* The port is free to read: another may take it. */
			pthread_cond_broadcast(&h->sa_cv);
		}
	}
}

static int sa_lookup(struct ibats *h, const struct ats_query_lookup *q,
		     struct ibats_record **recs, size_t *n)
{
	struct ats_window_req r;
	struct ats_query_set s = { 0 };
	int ret;

	if (h->o.flags & IBATS_NO_SA)
		return -ECONNREFUSED;
	last.source = IBATS_BY_SA;
	pthread_mutex_lock(&h->sa_lock);
	ret = sa_open(h);
	if (!ret) {
		memset(&r, 0, sizeof(r));
		r.l = *q;
		sa_window_wait(h, &r);
		ret = r.err;
		s = r.set;
		last.sa_status = r.sa_status;
		last.sm_lid = sa_client_port(h->sa)->sm_lid;
		/* Every request, a primary's fallback by P_Key too. */
		last.sa_queries = s.queries;
	}
	pthread_mutex_unlock(&h->sa_lock);
	if (ret)
		return ret;
	last.sa_walked = s.walked;
	last.partial = s.by_port;
	if (!s.n) {
		ats_query_set_free(&s);
		return -ENOENT;
	}
	ret = ibl_records_from_sr(s.recs, s.n, recs);
	*n = ret ? 0 : s.n;
	ats_query_set_free(&s);
	return ret;
}

/* q for the agent, else the SA; its pkey 0: the handle's. */
static int lookup(struct ibats *h, struct ats_query_lookup *q, struct ibats_record **recs,
		  size_t *n)
{
	static const char *const verb[] = {
		[ATS_QUERY_FORWARD] = "resolve",
		[ATS_QUERY_REVERSE] = "reverse",
		[ATS_QUERY_PRIMARY] = "primary",
	};
	char req[ATSD_PROTO_LINE_MAX], arg[ATS_IP_STRLEN];
	int ret;

	*recs = NULL;
	*n = 0;
	memset(&last, 0, sizeof(last));
	last_h = h->id;
	if (!q->pkey)
		q->pkey = h->o.pkey;
	if (q->kind == ATS_QUERY_FORWARD)
		ats_ip_format(&q->ip, arg, sizeof(arg));
	else
		ats_gid_format(q->gid, arg, sizeof(arg));
	snprintf(req, sizeof(req), "%s %s 0x%04x", verb[q->kind], arg, q->pkey);
	if (agent_lookup(h, req, recs, n, &ret))
		return ret;
	return sa_lookup(h, q, recs, n);
}

/* NodeRecord by LID through the handle's port: one request, sent and
 * read by this thread once no other reads the port (the window's
 * answers that come meanwhile are kept for it: ats_window.h). */
static int sa_lid_owner(struct ibats *h, uint16_t lid, struct nr_record *nr)
{
	uint64_t sent;
	int ret;

	if (h->o.flags & IBATS_NO_SA)
		return -ECONNREFUSED;
	last.source = IBATS_BY_SA;
	pthread_mutex_lock(&h->sa_lock);
	ret = sa_open(h);
	if (!ret) {
		while (h->sa_reader)
			pthread_cond_wait(&h->sa_cv, &h->sa_lock);
		sent = sa_client_requests(h->sa);
		ret = sa_client_node_at_lid(h->sa, lid, nr);
		last.sa_status = sa_client_last_status(h->sa);
		last.sm_lid = sa_client_port(h->sa)->sm_lid;
		last.sa_queries = (unsigned)(sa_client_requests(h->sa) - sent);
	}
	pthread_mutex_unlock(&h->sa_lock);
	return ret;
}

int ibl_lid_owner(struct ibats *h, uint16_t lid, uint64_t *guid, uint16_t *base)
{
	struct atsd_client_reply rep;
	struct nr_record nr;
	char req[32];
	int r, why = 0;

	memset(&last, 0, sizeof(last));
	last_h = h->id;
	if (!(h->o.flags & IBATS_NO_AGENT)) {
		snprintf(req, sizeof(req), "lid 0x%04x", lid);
		r = agent_ask(h, req, &rep, &why);
		if (!r) {
			r = ibl_lid_from_reply(&rep, guid, base, last.agent_msg,
					       sizeof(last.agent_msg));
			atsd_client_reply_free(&rep);
			/* Busy, or an atsd from before the verb: the SA
			 * answers. Anything else is atsd's word. */
			if ((r != -EBUSY && r != -EINVAL) || h->o.flags & IBATS_NO_SA) {
				last.source = IBATS_BY_AGENT;
				return r;
			}
		} else if (h->o.flags & IBATS_NO_SA) {
			last.agent_err = r == -ENOTCONN ? why : r;
			return r == -ENOTCONN ? -ECONNREFUSED : r;
		}
		last.agent_err = r == -ENOTCONN ? why : r;
	}
	r = sa_lid_owner(h, lid, &nr);
	if (!r) {
		*guid = nr.port_guid;
		*base = nr.lid;
	}
	return r;
}

IBATS_EXPORT int ibats_resolve_addr(struct ibats *h, const struct sockaddr *addr,
				    uint16_t pkey, struct ibats_record **recs, size_t *n)
{
	struct ats_query_lookup q = { .kind = ATS_QUERY_FORWARD, .pkey = pkey };
	int ret;

	if (!h || !recs || !n)
		return -EINVAL;
	ret = ibl_ip_from_sockaddr(addr, &q.ip);
	if (ret)
		return ret;
	return lookup(h, &q, recs, n);
}

IBATS_EXPORT int ibats_resolve(struct ibats *h, const char *text, uint16_t pkey,
			       struct ibats_record **recs, size_t *n)
{
	struct ats_query_lookup q = { .kind = ATS_QUERY_FORWARD, .pkey = pkey };

	if (!h || !text || !recs || !n || ats_ip_parse(text, &q.ip))
		return -EINVAL;
	return lookup(h, &q, recs, n);
}

IBATS_EXPORT int ibats_reverse(struct ibats *h, const uint8_t gid[16], uint16_t pkey,
			       struct ibats_record **recs, size_t *n)
{
	struct ats_query_lookup q = { .kind = ATS_QUERY_REVERSE, .pkey = pkey };

	if (!h || !gid || !recs || !n)
		return -EINVAL;
	memcpy(q.gid, gid, 16);
	return lookup(h, &q, recs, n);
}

IBATS_EXPORT int ibats_primary(struct ibats *h, const uint8_t gid[16], uint16_t pkey,
			       struct ibats_record *rec)
{
	struct ats_query_lookup q = { .kind = ATS_QUERY_PRIMARY, .pkey = pkey };
	struct ibats_record *recs;
	size_t n;
	int ret;

	if (!h || !gid || !rec)
		return -EINVAL;
	memcpy(q.gid, gid, 16);
	ret = lookup(h, &q, &recs, &n);
	if (ret)
		return ret;
	*rec = recs[0];
	ibats_records_free(recs);
	return 0;
}

IBATS_EXPORT int ibats_lookup_info(const struct ibats *h, struct ibats_info *info)
{
	if (!h || !info)
		return -EINVAL;
	if (last_h != h->id)
		return -ENOENT;
	*info = last;
	return 0;
}

IBATS_EXPORT int ibats_set_log(const char *ident, int level)
{
	if (!ident || level < IBATS_LOG_ERR || level > IBATS_LOG_DEBUG)
		return -EINVAL;
	pthread_once(&log_once, log_quiet);
	log_init(ident, (enum log_level)level);
	return 0;
}

IBATS_EXPORT int ibats_port_gid(struct ibats *h, uint8_t gid[16])
{
	static const uint8_t none[16];
	struct ibsys_port p;
	struct mport_info mi;
	char why[160];
	int ret = 0, open_port;

	if (!h || !gid)
		return -EINVAL;
	/* From sysfs (gids/0, world-readable on a host), never the umad
	 * device, which distributions make root's: a user's lookup by port
	 * GUID goes to atsd, and needs no more than atsd's socket. The port
	 * is the one a lookup's SA path opens (ibsys_open_port's choice), or
	 * has opened. */
	pthread_mutex_lock(&h->sa_lock);
	sa_drop_inherited(h);
	open_port = h->port != NULL;
	if (open_port)
		ret = mport_query(h->port, &mi);
	pthread_mutex_unlock(&h->sa_lock);
	if (open_port) {
		if (!ret)
			memcpy(gid, mi.gid, 16);
		return ret;
	}
	ret = ibsys_select(NULL, h->o.ca && *h->o.ca ? h->o.ca : NULL, h->o.port, &p, why,
			   sizeof(why));
	if (ret)
		return ret;
	/* gids/0 unreadable: no GID to give. */
	if (!memcmp(p.gid, none, 16))
		return -ENODATA;
	memcpy(gid, p.gid, 16);
	return 0;
}
