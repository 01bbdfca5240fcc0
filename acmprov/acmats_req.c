/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acmats_req.h"
#include "core/mad.h"
#include "core/mono.h"
#include "core/pr.h"
#include "core/sa.h"
#include "core/sr.h"
#include "core/wire.h"
#include "host/ats_query.h"
#include "host/atsd_client.h"
#include "host/atsd_proto.h"

struct req {
	struct req *next;       /* the worker's queue */
	struct acmats_ep *ep;
	uint64_t id;
	int client;             /* 0: a read-ahead for a NODELAY miss, nobody waits */
	int query;              /* acmats_req_query's: answered as a query, not cached */
	struct acmats_msg_query q;
	uint16_t pkey;
	uint8_t dgid[16];
	uint64_t gen;           /* the cache's before asking: answers of an older one not kept */
	int64_t deadline;       /* mono_ms: atsd's answer by then, else ETIMEDOUT */
	struct acm_msg msg;     /* last: it ends in a flexible array */
};

/* Requests waiting for the worker, at most: past that a caller is
 * answered ENOMEM at once and a read-ahead dropped (the queue of a
 * flood of lookups stays bounded). */
#define ACMATS_QUEUE_MAX 4096

/* The worker: asks atsd, one request at a time (a connection kept). */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t cv;
	pthread_t thread;
	struct req *head, *tail;
	unsigned n;             /* requests in the queue */
	int started, stop;
	struct atsd_client_conn *atsd;
	uint64_t seen;          /* atsd's drops (ask_changes), 0: not yet read */
	int64_t asked_ms;       /* when ask_changes last ran */
} W = { .lock = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };

/* How often the idle worker asks atsd whether it dropped answers (an SA
 * Report of a record's change, a new SM): ours go then too. atsd keeps
 * the subscription (ibacm's core gives a provider no SA reports); a
 * second of staleness at most, one small request a second. */
#define ACMATS_POLL_MS 1000
#define ACMATS_STATS_MS 200
#define ACMATS_STATS_BACKOFF_MS 5000

static uint32_t next_tid;

/* The answer, once; the request freed. */
static void answer(struct req *r, uint8_t status, const uint8_t *path)
{
	struct acm_msg out;

	if (r->client) {
		acmats_msg_answer(&r->msg, status, path, &out);
		if (status == ACM_STATUS_ENODATA)
			acmats_count(r->ep, ACM_CNTR_NODATA);
		else if (status)
			acmats_count(r->ep, ACM_CNTR_ERROR);
		if (r->query)
			acm_query_response(r->id, &out);
		else
			acm_resolve_response(r->id, &out);
	}
	free(r);
}

/* An SA request of r's through the core: method Get of attr, mask, the
 * record's len bytes; handler gets the answer (or the core's timeout). */
static int sa_send(struct req *r, uint16_t attr, uint64_t mask, const uint8_t *rec, size_t len,
		   void (*handler)(struct acm_sa_mad *))
{
	struct acm_sa_mad *m = acm_alloc_sa_mad(r->ep->ep, r, handler);
	struct sa_hdr h;
	uint8_t *mad;

	if (!m)
		return -ENOMEM;
	mad = (uint8_t *)&m->sa_mad;
	memset(&h, 0, sizeof(h));
	h.mad.base_version = MAD_BASE_VERSION;
	h.mad.mgmt_class = SA_CLASS;
	h.mad.class_version = SA_CLASS_VERSION;
	h.mad.method = SA_METHOD_GET;
	/* The core matches answers by the low 32 bits (umad keeps the
	 * agent in the high ones). */
	h.mad.tid = __atomic_add_fetch(&next_tid, 1, __ATOMIC_RELAXED);
	h.mad.attr_id = attr;
	h.comp_mask = mask;
	sa_hdr_encode(mad, &h);
	memcpy(mad + SA_OFF_DATA, rec, len);
	if (acm_send_sa_mad(m)) {
		acm_free_sa_mad(m);
		return -EIO;
	}
	return 0;
}

/* An answer's status: 0 with its record at *data, or the ACM status. */
static uint8_t sa_result(struct acm_sa_mad *m, const uint8_t **data)
{
	const uint8_t *mad = (const uint8_t *)&m->sa_mad;
	struct sa_hdr h;
	int err;

	if (m->umad.status)
		return ACM_STATUS_ETIMEDOUT;
	if (sa_hdr_decode(mad, sizeof(m->sa_mad), &h))
		return ACM_STATUS_EINVAL;
	err = sa_status_to_errno(h.mad.status);
	if (err == -ENOENT)
		return ACM_STATUS_ENODATA;
	if (err)
		return ACM_STATUS_EINVAL;
	*data = mad + SA_OFF_DATA;
	return ACM_STATUS_SUCCESS;
}

static void path_answer(struct acm_sa_mad *m)
{
	struct req *r = m->context;
	const uint8_t *data = NULL;
	uint8_t status = sa_result(m, &data);
	uint8_t path[PR_SIZE];

	/* the answer lives in m: copied before the core frees it */
	if (!status)
		memcpy(path, data, PR_SIZE);
	acm_free_sa_mad(m);
	if (!status && !r->query)
		acmats_cache_put_path(r->ep->port->cache, r->gen, r->dgid, r->pkey, path);
	answer(r, status, status ? NULL : path);
}

/* r's GID is known: its path, from the cache or the SA. */
static void to_path(struct req *r)
{
	uint8_t path[PR_SIZE], rec[PR_SIZE];
	uint64_t mask;

	if (!acmats_cache_path(r->ep->port->cache, r->dgid, r->pkey, path)) {
		acmats_count(r->ep, ACM_CNTR_ROUTE_CACHE);
		answer(r, ACM_STATUS_SUCCESS, path);
		return;
	}
	acmats_count(r->ep, ACM_CNTR_ROUTE_QUERY);
	mask = pr_query(rec, r->ep->port->gid, r->dgid, r->pkey);
	if (sa_send(r, SA_ATTR_PATH_RECORD, mask, rec, PR_SIZE, path_answer))
		answer(r, ACM_STATUS_ENOMEM, NULL);
}

/* The SA's primary record of r's IP (atsd does not run). */
static void primary_answer(struct acm_sa_mad *m)
{
	struct req *r = m->context;
	const uint8_t *data = NULL;
	uint8_t status = sa_result(m, &data);
	struct sr_record rec;
	struct ats_ip ip;

	/* The Get names no P_Key (atsd reads both membership forms): a
	 * record of another partition, where the IP may be another host's,
	 * is none of this endpoint's. */
	if (!status && (sr_decode(data, SR_SIZE, &rec) || !ats_name_is_ats(rec.name) ||
			ats_ip_decode(rec.data8, &ip, NULL) || !ats_ip_equal(&ip, &r->q.ip) ||
			(rec.pkey & 0x7fff) != (r->pkey & 0x7fff)))
		status = ACM_STATUS_ENODATA;
	acm_free_sa_mad(m);
	if (status) {
		answer(r, status, NULL);
		return;
	}
	memcpy(r->dgid, rec.gid, 16);
	acmats_cache_put_gid(r->ep->port->cache, r->gen, &r->q.ip, r->pkey, r->dgid);
	to_path(r);
}

static void from_sa(struct req *r)
{
	uint8_t rec[SR_SIZE];
	uint64_t mask = ats_query_forward_primary(&r->q.ip, rec);

	if (sa_send(r, SA_ATTR_SERVICE_RECORD, mask, rec, SR_SIZE, primary_answer))
		answer(r, ACM_STATUS_ENOMEM, NULL);
}

/* atsd's answer to "resolve IP PKEY" by r's deadline: 0 with the first
 * record's GID (primary holders first), -ENOENT, -ETIMEDOUT, another
 * -errno from atsd, or -ECONNREFUSED when no atsd answers (ask the SA).
 * The connection is kept between requests; atsd closes it when idle
 * (client_idle_timeout) or when it restarts: a kept connection that
 * fails before its answer is made again once. */
static int ask_atsd(struct req *r)
{
	char q[96], ip[ATS_IP_STRLEN];
	struct atsd_client_reply rep;
	struct sr_record rec;
	struct ats_ip got;
	int ret, fresh = 0;
	int64_t left;

	ats_ip_format(&r->q.ip, ip, sizeof(ip));
	snprintf(q, sizeof(q), "resolve %s 0x%04x", ip, r->pkey);
	for (;;) {
		left = r->deadline - mono_ms();
		if (left <= 0)
			return -ETIMEDOUT;
		if (!W.atsd) {
			if (atsd_client_connect_nowait(acmats_opts.socket, &W.atsd))
				return -ECONNREFUSED;
			fresh = 1;
		}
		ret = atsd_client_ask(W.atsd, q, (unsigned)left, &rep);
		if (!ret)
			break;
		atsd_client_disconnect(W.atsd);
		W.atsd = NULL;
		if (ret == -ETIMEDOUT)
			return ret;
		if (fresh || (ret != -EPIPE && ret != -ECONNRESET))
			return -ECONNREFUSED;
	}
	/* The first record line, primary holders first, must be the IP
	 * asked for: a line out of step with the question is no answer. */
	if (!rep.ok)
		ret = !strcmp(rep.code, "ENOENT") ? -ENOENT : -EIO;
	else if (!rep.nlines)
		ret = -ENOENT;
	else if (atsd_proto_parse_record(rep.lines[0], &rec) ||
		 ats_ip_decode(rec.data8, &got, NULL) || !ats_ip_equal(&got, &r->q.ip))
		ret = -ENOENT;
	else
		memcpy(r->dgid, rec.gid, 16);
	atsd_client_reply_free(&rep);
	return ret;
}

/* atsd's count of dropped answers (cache_clears + invalidations +
 * sm_changes in its stats): a change since the last look flushes ours. */
static int ask_changes(void)
{
	struct atsd_client_reply rep;
	uint64_t sum = 0;
	const char *val;
	char name[32];
	size_t i;

	/* Never blocking the requests behind it for long: a connect that
	 * would wait (an atsd that accepts nothing) is not made, an atsd
	 * that does not answer within ACMATS_STATS_MS is asked again after
	 * ACMATS_STATS_BACKOFF_MS. */
	if (!W.atsd && atsd_client_connect_nowait(acmats_opts.socket, &W.atsd))
		return -ECONNREFUSED;
	if (atsd_client_ask(W.atsd, "stats", ACMATS_STATS_MS, &rep)) {
		atsd_client_disconnect(W.atsd);
		W.atsd = NULL;
		return -ETIMEDOUT;
	}
	for (i = 0; rep.ok && i < rep.nlines; i++) {
		atsd_proto_stats_split(rep.lines[i], name, sizeof(name), &val);
		if (!strcmp(name, "cache_clears") || !strcmp(name, "invalidations") ||
		    !strcmp(name, "sm_changes"))
			sum += strtoull(val, NULL, 10);
	}
	atsd_client_reply_free(&rep);
	/* + 1: a first look of 0 is a look */
	if (W.seen && W.seen != sum + 1)
		acmats_flush_all("atsd dropped answers (an SA report, a new SM)");
	W.seen = sum + 1;
	return 0;
}

static void *worker(void *arg)
{
	struct timespec until;

	(void)arg;
	pthread_mutex_lock(&W.lock);
	while (!W.stop) {
		struct req *r = W.head;
		int ret;

		/* busy or idle, atsd is asked once a second */
		if (mono_ms() - W.asked_ms >= ACMATS_POLL_MS) {
			W.asked_ms = mono_ms();
			pthread_mutex_unlock(&W.lock);
			ret = ask_changes();
			pthread_mutex_lock(&W.lock);
			if (ret == -ETIMEDOUT)
				W.asked_ms = mono_ms() + ACMATS_STATS_BACKOFF_MS;
			continue;
		}
		if (!r) {
			clock_gettime(CLOCK_REALTIME, &until);
			until.tv_sec += ACMATS_POLL_MS / 1000;
			pthread_cond_timedwait(&W.cv, &W.lock, &until);
			continue;
		}
		W.head = r->next;
		if (!W.head)
			W.tail = NULL;
		W.n--;
		pthread_mutex_unlock(&W.lock);
		ret = ask_atsd(r);
		if (!ret) {
			acmats_cache_put_gid(r->ep->port->cache, r->gen, &r->q.ip, r->pkey, r->dgid);
			to_path(r);
		} else if (ret == -ECONNREFUSED) {
			from_sa(r);
		} else {
			answer(r, ret == -ENOENT ? ACM_STATUS_ENODATA : ACM_STATUS_ETIMEDOUT, NULL);
		}
		pthread_mutex_lock(&W.lock);
	}
	pthread_mutex_unlock(&W.lock);
	return NULL;
}

int acmats_req_init(void)
{
	int ret = 0;

	pthread_mutex_lock(&W.lock);
	if (!W.started) {
		ret = -pthread_create(&W.thread, NULL, worker, NULL);
		W.started = !ret;
	}
	pthread_mutex_unlock(&W.lock);
	return ret;
}

void acmats_req_fini(void)
{
	struct req *r;

	pthread_mutex_lock(&W.lock);
	if (!W.started) {
		pthread_mutex_unlock(&W.lock);
		return;
	}
	W.stop = 1;
	pthread_cond_signal(&W.cv);
	pthread_mutex_unlock(&W.lock);
	pthread_join(W.thread, NULL);
	while ((r = W.head)) {
		W.head = r->next;
		W.n--;
		answer(r, ACM_STATUS_ENOTCONN, NULL);
	}
	atsd_client_disconnect(W.atsd);
	W.atsd = NULL;
	W.started = 0;
}

static struct req *req_new(struct acmats_ep *ep, const struct acm_msg *msg, uint64_t id,
			   int client)
{
	struct req *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->ep = ep;
	r->msg = *msg;
	r->id = id;
	r->client = client;
	r->pkey = ep->ep->pkey;
	r->gen = acmats_cache_gen(ep->port->cache);
	return r;
}

static void to_worker(struct req *r)
{
	/* Each request waits ats_timeout at most, in the queue and for
	 * atsd together: behind an atsd that does not answer, N callers
	 * are answered within one ats_timeout, not N (librdmacm waits for
	 * ever, and goes on without ibacm's route when told it failed). */
	r->deadline = mono_ms() + acmats_opts.timeout_ms;
	pthread_mutex_lock(&W.lock);
	if (W.n >= ACMATS_QUEUE_MAX) {
		pthread_mutex_unlock(&W.lock);
		answer(r, ACM_STATUS_ENOMEM, NULL);
		return;
	}
	W.n++;
	if (W.tail)
		W.tail->next = r;
	else
		W.head = r;
	W.tail = r;
	pthread_cond_signal(&W.cv);
	pthread_mutex_unlock(&W.lock);
}

/* r's question, from the cache at once, else on its way. */
static void start(struct req *r)
{
	if (r->q.ask == ACMATS_MSG_ASK_PATH) {
		memcpy(r->dgid, r->q.dgid, 16);
		to_path(r);
		return;
	}
	if (!acmats_cache_gid(r->ep->port->cache, &r->q.ip, r->pkey, r->dgid)) {
		acmats_count(r->ep, ACM_CNTR_ADDR_CACHE);
		to_path(r);
		return;
	}
	acmats_count(r->ep, ACM_CNTR_ADDR_QUERY);
	to_worker(r);
}

int acmats_req_resolve(struct acmats_ep *ep, const struct acm_msg *msg, uint64_t id)
{
	uint8_t path[PR_SIZE], gid[16];
	struct acm_msg out;
	struct req *r;
	uint8_t status;

	acmats_count(ep, ACM_CNTR_RESOLVE);
	r = req_new(ep, msg, id, 1);
	if (!r) {
		acmats_msg_answer(msg, ACM_STATUS_ENOMEM, NULL, &out);
		return acm_resolve_response(id, &out);
	}
	status = acmats_msg_question(msg, &r->q);
	if (status) {
		answer(r, status, NULL);
		return 0;
	}
	if (r->q.nodelay) {
		/* The cache's answer or none at once; a miss is looked up
		 * for the next asker (as ibacm's own provider does). */
		const uint8_t *dgid = r->q.ask == ACMATS_MSG_ASK_PATH ? r->q.dgid : gid;

		if ((r->q.ask == ACMATS_MSG_ASK_PATH ||
		     !acmats_cache_gid(ep->port->cache, &r->q.ip, r->pkey, gid)) &&
		    !acmats_cache_path(ep->port->cache, dgid, r->pkey, path)) {
			acmats_count(ep, ACM_CNTR_ROUTE_CACHE);
			answer(r, ACM_STATUS_SUCCESS, path);
			return 0;
		}
		acmats_msg_answer(msg, ACM_STATUS_ENODATA, NULL, &out);
		acmats_count(ep, ACM_CNTR_NODATA);
		r->client = 0;
		start(r);
		return acm_resolve_response(id, &out);
	}
	start(r);
	return 0;
}

int acmats_req_query(struct acmats_ep *ep, const struct acm_msg *msg, uint64_t id)
{
	struct ibv_path_record p;
	struct acm_msg out;
	uint8_t rec[PR_SIZE];
	struct req *r = req_new(ep, msg, id, 1);

	if (!r || msg->hdr.length < ACM_MSG_HDR_LENGTH + ACM_MSG_EP_LENGTH) {
		acmats_msg_answer(msg, r ? ACM_STATUS_EINVAL : ACM_STATUS_ENOMEM, NULL, &out);
		free(r);
		return acm_query_response(id, &out);
	}
	r->q.ask = ACMATS_MSG_ASK_PATH;
	r->query = 1;
	p = msg->resolve_data[0].info.path;
	memcpy(rec, &p, PR_SIZE);
	memcpy(r->dgid, p.dgid.raw, 16);
	if (sa_send(r, SA_ATTR_PATH_RECORD, be64toh(acm_path_comp_mask(&p)), rec, PR_SIZE,
		    path_answer))
		answer(r, ACM_STATUS_ENOMEM, NULL);
	return 0;
}
