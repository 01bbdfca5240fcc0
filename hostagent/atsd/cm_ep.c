#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ats_query.h"
#include "cm.h"
#include "cm_ep.h"
#include "cm_qp.h"
#include "log.h"
#include "sa.h"
#include "wire.h"

#define CM_METHOD_SEND 0x03
#define CM_RETRIES 3
#define REJ_TEXT_MAX 160

struct cmep {
	struct mport *port;
	struct sa_client *sa;
	int agent;
	struct cmep_conf conf;
	struct cmep_conn conns[CMEP_MAX_CONNS];
	struct ibv_qp *qps[CMEP_MAX_CONNS]; /* conns[i]'s QP */
	size_t nconns;
	struct cmqp *qpdev;
	uint32_t next_id;
	uint32_t next_tid;
};

const char *cmep_state_name(enum cmep_state s)
{
	static const char *const n[] = { "req-sent", "rep-sent", "established", "dreq-sent" };

	return s <= CMEP_DREQ_SENT ? n[s] : "?";
}

int cmep_init(struct cmep **out, struct mport *port, struct sa_client *sa,
	      const struct cmep_conf *conf)
{
	struct cmep *e = calloc(1, sizeof(*e));
	struct mport_info pi;
	int ret;

	if (!e)
		return -ENOMEM;
	e->port = port;
	e->sa = sa;
	e->conf = *conf;
	/* The device before the class: a registered agent cannot be given
	 * back, and without QPs it would take REQs nobody answers. */
	ret = mport_query(port, &pi);
	if (!ret && (ret = cmqp_init(&e->qpdev, pi.ca)))
		log_warn("CM endpoint: no QPs from the verbs device %s: %s", pi.ca,
			 strerror(-ret));
	if (!ret) {
		e->agent = mport_register_serve(port, CM_CLASS, CM_CLASS_VERSION, CM_METHOD_SEND);
		ret = e->agent < 0 ? e->agent : 0;
	}
	if (ret) {
		cmqp_fini(e->qpdev);
		free(e);
		return ret;
	}
	srandom((unsigned)time(NULL) ^ (unsigned)(uintptr_t)e);
	e->next_id = (uint32_t)random();
	e->next_tid = (uint32_t)random();
	*out = e;
	return 0;
}

void cmep_fini(struct cmep *e)
{
	size_t i;

	if (!e)
		return;
	for (i = 0; i < e->nconns; i++)
		cmqp_destroy(e->qps[i]);
	cmqp_fini(e->qpdev);
	free(e); /* the agent goes with the port */
}

/* A connection with a QP of its own, or NULL with *err -ENOSPC (table
 * full) or the device's error. */
static struct cmep_conn *conn_new(struct cmep *e, int *err)
{
	struct cmep_conn *c;
	uint32_t qpn;

	if (e->nconns == CMEP_MAX_CONNS) {
		*err = -ENOSPC;
		return NULL;
	}
	*err = cmqp_create(e->qpdev, &e->qps[e->nconns], &qpn);
	if (*err)
		return NULL;
	c = &e->conns[e->nconns++];
	memset(c, 0, sizeof(*c));
	c->id = e->next_id++;
	c->local_qpn = qpn;
	/* Any 24-bit start will do (12.7.23); random, as the kernel's CM
	 * consumers pick it. */
	c->local_psn = (uint32_t)random() & 0xffffff;
	return c;
}

static void conn_del(struct cmep *e, struct cmep_conn *c)
{
	size_t i = (size_t)(c - e->conns);

	cmqp_destroy(e->qps[i]);
	e->nconns--;
	e->conns[i] = e->conns[e->nconns];
	e->qps[i] = e->qps[e->nconns];
}

static struct cmep_conn *conn_find(struct cmep *e, uint32_t local_id)
{
	size_t i;

	for (i = 0; i < e->nconns; i++)
		if (e->conns[i].id == local_id)
			return &e->conns[i];
	return NULL;
}

static void cm_hdr(uint8_t *mad, uint16_t attr, uint64_t tid)
{
	struct mad_hdr h = {
		.base_version = MAD_BASE_VERSION, .mgmt_class = CM_CLASS,
		.class_version = CM_CLASS_VERSION, .method = CM_METHOD_SEND,
		.tid = tid, .attr_id = attr,
	};

	memset(mad, 0, MAD_SIZE);
	mad_hdr_encode(mad, &h);
}

static int listened(const struct cmep *e, uint64_t sid)
{
	size_t i;

	for (i = 0; i < e->conf.nlisten; i++)
		if (e->conf.listen[i] == sid)
			return 1;
	return 0;
}

static size_t reject(uint8_t *resp, uint64_t tid, uint32_t remote_id,
		     uint16_t reason, const char *text)
{
	struct cm_rej rej;

	memset(&rej, 0, sizeof(rej));
	rej.local_comm_id = 0;
	rej.remote_comm_id = remote_id;
	rej.message_rejected = 0; /* the REQ */
	rej.reason = reason;
	snprintf((char *)rej.private_data, sizeof(rej.private_data), "%.*s",
		 (int)sizeof(rej.private_data) - 1, text);
	cm_hdr(resp, CM_ATTR_REJ, tid);
	cm_rej_encode(resp + CM_DATA_OFF, &rej);
	return MAD_SIZE;
}

int cmep_judge(const struct cmep_conf *conf, const struct ats_ip *src,
	       const struct ats_ip *primary, char *why, size_t len)
{
	char s[ATS_IP_STRLEN], p[ATS_IP_STRLEN];
	size_t i;

	ats_ip_format(src, s, sizeof(s));
	switch (conf->policy) {
	case CMEP_ACCEPT_ANY:
		return 0;
	case CMEP_ACCEPT_LIST:
		for (i = 0; i < conf->naccept; i++)
			if (ats_ip_equal(&conf->accept[i], src))
				return 0;
		snprintf(why, len, "ibats: source IP %s is not on the accept list", s);
		return -EACCES;
	case CMEP_ACCEPT_AGREE:
		break;
	}
	if (!primary) {
		snprintf(why, len, "ibats: the requester's GID has no ATS primary IP");
		return -EACCES;
	}
	if (!ats_ip_equal(primary, src)) {
		ats_ip_format(primary, p, sizeof(p));
		snprintf(why, len, "ibats: spoofed source: IP %s is not the requester's ATS primary %s",
			 s, p);
		return -EACCES;
	}
	return 0;
}

/* The policy check of a REQ: 0 accept, else a REJ text in why. */
static int check_req(struct cmep *e, const struct cm_req *req,
		     const struct cm_ip_pdata *pd, char *why, size_t len)
{
	struct sr_record r;
	struct ats_ip ip;
	int ret;

	if (e->conf.policy != CMEP_ACCEPT_AGREE)
		return cmep_judge(&e->conf, &pd->src, NULL, why, len);
	/* Who is calling, by ATS (DAT Collaborative ATS v1 sections 2.2 and
	 * 5): the requester GID's primary. */
	ret = ats_primary(e->sa, req->primary.local_gid, req->pkey | 0x8000, &r);
	if (ret && ret != -ENOENT) {
		snprintf(why, len, "ibats: ATS lookup of the requester failed (%s)",
			 strerror(-ret));
		return ret;
	}
	if (!ret && ats_ip_decode(r.data8, &ip, NULL))
		ret = -ENOENT;
	return cmep_judge(&e->conf, &pd->src, ret ? NULL : &ip, why, len);
}

static size_t on_req(struct cmep *e, const uint8_t *mad, uint64_t tid, uint8_t *resp)
{
	const struct mport_info *pi = sa_client_port(e->sa);
	struct cm_ip_pdata pd;
	struct cmep_conn *c;
	struct cm_req req;
	struct cm_rep rep;
	char why[REJ_TEXT_MAX], gid[ATS_IP_STRLEN];
	uint16_t ps, port;
	size_t i;
	int ret;

	if (cm_req_decode(mad + CM_DATA_OFF, MAD_SIZE - CM_DATA_OFF, &req))
		return 0;
	/* A retried REQ of a connection we answered: answer the same. */
	for (i = 0; i < e->nconns;)
		if (!e->conns[i].active && e->conns[i].remote_id == req.local_comm_id &&
		    !memcmp(e->conns[i].remote_gid, req.primary.local_gid, 16))
			conn_del(e, &e->conns[i]); /* the last one moved to i */
		else
			i++;
	if (!listened(e, req.service_id))
		return reject(resp, tid, req.local_comm_id, CM_REJ_INVALID_SERVICE_ID,
			      "ibats: nobody listens on this service ID");
	if (!cm_ip_service_parse(req.service_id, &ps, &port) ||
	    cm_ip_pdata_decode(req.private_data, sizeof(req.private_data), &pd))
		return reject(resp, tid, req.local_comm_id, CM_REJ_CONSUMER,
			      "ibats: no RDMA IP CM private data (Annex A11)");
	if (check_req(e, &req, &pd, why, sizeof(why))) {
		log_warn("CM: REQ from %s rejected: %s",
			 ats_gid_format(req.primary.local_gid, gid, sizeof(gid)), why);
		return reject(resp, tid, req.local_comm_id, CM_REJ_CONSUMER, why);
	}
	c = conn_new(e, &ret);
	if (!c)
		return reject(resp, tid, req.local_comm_id, CM_REJ_NO_QP, ret == -ENOSPC ?
			      "ibats: connection table full" : "ibats: no QP for the connection");
	c->remote_id = req.local_comm_id;
	c->state = CMEP_REP_SENT;
	c->service_id = req.service_id;
	c->tid = tid;
	memcpy(c->local_gid, req.primary.remote_gid, 16);
	memcpy(c->remote_gid, req.primary.local_gid, 16);
	c->local_lid = req.primary.remote_lid;
	c->remote_lid = req.primary.local_lid;
	c->pkey = req.pkey;
	c->remote_qpn = req.local_qpn;
	c->remote_psn = req.starting_psn;
	c->local_ip = pd.dst;
	c->remote_ip = pd.src;
	c->src_port = pd.src_port;
	c->mtu = req.path_mtu;
	c->sl = req.primary.sl;
	memset(&rep, 0, sizeof(rep));
	rep.local_comm_id = c->id;
	rep.remote_comm_id = c->remote_id;
	rep.local_qpn = c->local_qpn;
	rep.starting_psn = c->local_psn;
	rep.responder_resources = req.initiator_depth;
	rep.initiator_depth = req.responder_resources;
	rep.rnr_retry_count = 7;
	rep.local_ca_guid = pi->port_guid;
	cm_hdr(resp, CM_ATTR_REP, tid);
	cm_rep_encode(resp + CM_DATA_OFF, &rep);
	log_info("CM: REQ from %s for service 0x%016" PRIx64 ": REP, connection 0x%08x",
		 ats_gid_format(c->remote_gid, gid, sizeof(gid)), c->service_id, c->id);
	return MAD_SIZE;
}

size_t cmep_answer(struct cmep *e, const uint8_t *mad, size_t len,
		   uint8_t *resp, size_t cap)
{
	struct mad_hdr h;
	struct cmep_conn *c;

	if (len < MAD_SIZE || cap < MAD_SIZE || mad_hdr_decode(mad, len, &h) ||
	    h.mgmt_class != CM_CLASS || h.class_version != CM_CLASS_VERSION ||
	    h.method != CM_METHOD_SEND)
		return 0;
	switch (h.attr_id) {
	case CM_ATTR_REQ:
		return on_req(e, mad, h.tid, resp);
	case CM_ATTR_RTU: {
		struct cm_rtu rtu;

		cm_rtu_decode(mad + CM_DATA_OFF, len - CM_DATA_OFF, &rtu);
		c = conn_find(e, rtu.remote_comm_id);
		if (c && c->state == CMEP_REP_SENT) {
			c->state = CMEP_ESTABLISHED;
			log_info("CM: connection 0x%08x established", c->id);
		}
		return 0;
	}
	case CM_ATTR_DREQ: {
		struct cm_dreq dreq;
		struct cm_drep drep;

		cm_dreq_decode(mad + CM_DATA_OFF, len - CM_DATA_OFF, &dreq);
		c = conn_find(e, dreq.remote_comm_id);
		memset(&drep, 0, sizeof(drep));
		drep.local_comm_id = dreq.remote_comm_id;
		drep.remote_comm_id = dreq.local_comm_id;
		if (c) {
			log_info("CM: connection 0x%08x closed by the peer", c->id);
			conn_del(e, c);
		}
		/* DREP even for an unknown connection: the peer is done. */
		cm_hdr(resp, CM_ATTR_DREP, h.tid);
		cm_drep_encode(resp + CM_DATA_OFF, &drep);
		return MAD_SIZE;
	}
	case CM_ATTR_REJ: {
		struct cm_rej rej;

		cm_rej_decode(mad + CM_DATA_OFF, len - CM_DATA_OFF, &rej);
		c = conn_find(e, rej.remote_comm_id);
		if (c)
			conn_del(e, c);
		return 0;
	}
	default:
		return 0;
	}
}

struct wait_ctx {
	uint32_t id;
	const uint16_t *attrs;
	size_t nattrs;
};

/* A CM MAD for one of our connections: its remote comm ID is ours. */
static int match_conn(const uint8_t *mad, size_t len, void *arg)
{
	const struct wait_ctx *w = arg;
	struct mad_hdr h;
	size_t i;

	if (len < MAD_SIZE || mad_hdr_decode(mad, len, &h) || h.mgmt_class != CM_CLASS)
		return 0;
	for (i = 0; i < w->nattrs; i++)
		if (h.attr_id == w->attrs[i])
			return wire_get32(mad + CM_DATA_OFF + 4) == w->id;
	return 0;
}

int cmep_connect(struct cmep *e, const struct ats_ip *dst, uint16_t port,
		 uint64_t sid, const struct ats_ip *src, unsigned timeout_ms,
		 struct cmep_conn *out, char *err, size_t errlen)
{
	static const uint16_t want[] = { CM_ATTR_REP, CM_ATTR_REJ, CM_ATTR_MRA };
	const struct mport_info *pi = sa_client_port(e->sa);
	struct sa_path_info path;
	struct cm_ip_pdata pd;
	struct mport_dest d;
	struct cmep_conn *c;
	struct ats_set s;
	struct cm_req req;
	struct wait_ctx w;
	uint8_t mad[MAD_SIZE];
	char ip[ATS_IP_STRLEN];
	unsigned try;
	int ret;

	ats_ip_format(dst, ip, sizeof(ip));
	ret = ats_forward(e->sa, dst, ATS_PKEY_DEFAULT, &s);
	if (ret || !s.n) {
		snprintf(err, errlen, ret ? "ATS lookup of %s failed: %s" :
			 "%s has no ATS record: the connection fails locally (ATS 2.2)",
			 ip, strerror(-ret));
		ats_set_free(&s);
		return ret ? ret : -EHOSTUNREACH;
	}
	ret = sa_path(e->sa, s.recs[0].gid, &path); /* primary holders first */
	ats_set_free(&s);
	if (ret) {
		snprintf(err, errlen, "no path to %s: %s", ip, strerror(-ret));
		return ret;
	}
	c = conn_new(e, &ret);
	if (!c) {
		snprintf(err, errlen, "%s", ret == -ENOSPC ? "connection table full" :
			 "no QP for the connection");
		if (ret != -ENOSPC)
			log_warn("CM: no QP for a connection: %s", strerror(-ret));
		return ret;
	}
	c->active = 1;
	c->state = CMEP_REQ_SENT;
	c->service_id = sid ? sid : cm_ip_service_id(CM_PS_TCP, port);
	c->tid = e->next_tid++;
	memcpy(c->local_gid, pi->gid, 16);
	memcpy(c->remote_gid, path.dgid, 16);
	c->local_lid = path.slid;
	c->remote_lid = path.dlid;
	c->pkey = path.pkey;
	c->local_ip = *src;
	c->remote_ip = *dst;
	c->src_port = (uint16_t)(0xc000 | (random() & 0x3fff));
	c->mtu = path.mtu;
	c->sl = path.sl;

	memset(&req, 0, sizeof(req));
	req.local_comm_id = c->id;
	req.service_id = c->service_id;
	req.local_ca_guid = pi->port_guid;
	req.local_qpn = c->local_qpn;
	req.responder_resources = 4;
	req.initiator_depth = 4;
	req.remote_cm_response_timeout = 20;
	req.starting_psn = c->local_psn;
	req.local_cm_response_timeout = 20;
	req.retry_count = 7;
	req.pkey = path.pkey;
	req.path_mtu = path.mtu;
	req.rnr_retry_count = 7;
	req.max_cm_retries = CM_RETRIES;
	req.primary.local_lid = path.slid;
	req.primary.remote_lid = path.dlid;
	memcpy(req.primary.local_gid, path.sgid, 16);
	memcpy(req.primary.remote_gid, path.dgid, 16);
	req.primary.flow_label = path.flow_label;
	req.primary.packet_rate = path.rate;
	req.primary.traffic_class = path.tclass;
	req.primary.hop_limit = path.hop_limit;
	req.primary.sl = path.sl;
	req.primary.subnet_local = 1;
	req.primary.local_ack_timeout = (uint8_t)(path.pkt_life + 1);
	memset(&pd, 0, sizeof(pd));
	pd.src = *src;
	pd.dst = *dst;
	pd.src_port = c->src_port;
	cm_ip_pdata_encode(req.private_data, &pd);
	cm_hdr(mad, CM_ATTR_REQ, c->tid);
	cm_req_encode(mad + CM_DATA_OFF, &req);

	d.lid = path.dlid;
	d.qpn = SA_QP;
	d.qkey = SA_QKEY;
	d.sl = path.sl;
	w.id = c->id;
	w.attrs = want;
	w.nattrs = 3;
	for (try = 0; try <= CM_RETRIES; try++) {
		uint8_t *ans = NULL;
		size_t len = 0;

		ret = mport_send(e->port, e->agent, &d, mad, sizeof(mad));
		if (ret)
			break;
		ret = mport_wait(e->port, (int)timeout_ms, match_conn, &w, &ans, &len);
		if (ret == -ETIMEDOUT)
			continue;
		if (ret)
			break;
		switch (wire_get16(ans + MAD_OFF_ATTR_ID)) {
		case CM_ATTR_MRA:
			try--; /* the peer asked for more time */
			free(ans);
			continue;
		case CM_ATTR_REJ: {
			struct cm_rej rej;

			cm_rej_decode(ans + CM_DATA_OFF, len - CM_DATA_OFF, &rej);
			rej.private_data[sizeof(rej.private_data) - 1] = 0;
			snprintf(err, errlen, "rejected (reason %u): %s", rej.reason,
				 rej.private_data[0] ? (char *)rej.private_data : "no reason given");
			free(ans);
			conn_del(e, c);
			return -ECONNREFUSED;
		}
		default: {
			struct cm_rep rep;
			struct cm_rtu rtu;

			cm_rep_decode(ans + CM_DATA_OFF, len - CM_DATA_OFF, &rep);
			free(ans);
			c->remote_id = rep.local_comm_id;
			c->remote_qpn = rep.local_qpn;
			c->remote_psn = rep.starting_psn;
			memset(&rtu, 0, sizeof(rtu));
			rtu.local_comm_id = c->id;
			rtu.remote_comm_id = c->remote_id;
			cm_hdr(mad, CM_ATTR_RTU, c->tid);
			cm_rtu_encode(mad + CM_DATA_OFF, &rtu);
			ret = mport_send(e->port, e->agent, &d, mad, sizeof(mad));
			if (ret)
				break;
			c->state = CMEP_ESTABLISHED;
			*out = *c;
			return 0;
		}
		}
		break;
	}
	if (ret == -ETIMEDOUT)
		snprintf(err, errlen, "no answer to REQ after %d tries", CM_RETRIES + 1);
	else
		snprintf(err, errlen, "REQ failed: %s", strerror(-ret));
	conn_del(e, c);
	return ret ? ret : -ETIMEDOUT;
}

int cmep_disconnect(struct cmep *e, uint32_t id, unsigned timeout_ms,
		    char *err, size_t errlen)
{
	static const uint16_t want[] = { CM_ATTR_DREP };
	struct cmep_conn *c = conn_find(e, id);
	struct cm_dreq dreq;
	struct mport_dest d;
	struct wait_ctx w;
	uint8_t mad[MAD_SIZE], *ans = NULL;
	size_t len;
	unsigned try;
	int ret = -ETIMEDOUT;

	if (!c) {
		snprintf(err, errlen, "no connection 0x%08x", id);
		return -ENOENT;
	}
	memset(&dreq, 0, sizeof(dreq));
	dreq.local_comm_id = c->id;
	dreq.remote_comm_id = c->remote_id;
	dreq.remote_qpn_eecn = c->remote_qpn;
	cm_hdr(mad, CM_ATTR_DREQ, e->next_tid++);
	cm_dreq_encode(mad + CM_DATA_OFF, &dreq);
	d.lid = c->remote_lid;
	d.qpn = SA_QP;
	d.qkey = SA_QKEY;
	d.sl = c->sl;
	w.id = c->id;
	w.attrs = want;
	w.nattrs = 1;
	c->state = CMEP_DREQ_SENT;
	for (try = 0; try <= CM_RETRIES && ret == -ETIMEDOUT; try++) {
		ret = mport_send(e->port, e->agent, &d, mad, sizeof(mad));
		if (!ret)
			ret = mport_wait(e->port, (int)timeout_ms, match_conn, &w, &ans, &len);
	}
	free(ans);
	/* The connection is gone on our side whatever the peer said. */
	c = conn_find(e, id);
	if (c)
		conn_del(e, c);
	if (ret)
		snprintf(err, errlen, "no DREP: %s", strerror(-ret));
	return ret;
}

size_t cmep_list(const struct cmep *e, struct cmep_conn *v, size_t max)
{
	size_t n = e->nconns < max ? e->nconns : max;

	memcpy(v, e->conns, n * sizeof(*v));
	return n;
}
