/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "nr.h"
#include "sa_client.h"
#include "wire.h"

/* PKeyTableRecord (Table 196). */
enum {
	PKR_OFF_LID = 0,
	PKR_OFF_BLOCK = 2,
	PKR_OFF_PORT = 4,
	PKR_OFF_TABLE = 8,
	PKR_TABLE_ENTRIES = 32, /* one PKeyTable block */
	PKR_SIZE = 72,
	PKR_CM_LID = 0,
	PKR_CM_BLOCK = 1,
	PKR_CM_PORT = 2,
};
_Static_assert(PKR_OFF_TABLE + 2 * PKR_TABLE_ENTRIES == PKR_SIZE, "PKeyTableRecord layout");

/* PathRecord (Table 205): the fields a DLID lookup needs. */
enum {
	PR_OFF_DGID = 8,
	PR_OFF_SGID = 24,
	PR_OFF_DLID = 40,
	PR_OFF_SLID = 42,
	PR_OFF_FLOW_HOP = 44,   /* raw (1) | reserved (3) | flow label (20) | hop limit (8) */
	PR_OFF_TCLASS = 48,
	PR_OFF_PKEY = 50,
	PR_OFF_SL = 53,         /* low 4 bits; QoS class above */
	PR_OFF_MTU = 54,        /* selector (2) | MTU (6) */
	PR_OFF_RATE = 55,
	PR_OFF_PLT = 56,
	PR_SIZE = 64,
	PR_CM_DGID = 2,
	PR_CM_SGID = 3,
};

/* LIDs above this are multicast (IBTA Vol 1 4.1.3). */
#define SA_UNICAST_LID_MAX 0xBFFF

struct sa_client {
	struct mport *port;
	struct mport_info info;
	struct sa_client_opts opts;
	int agent;
	int rmpp_usable; /* -1 unknown, 0 no, 1 yes */
	uint16_t last_status;
	uint64_t requests;
};

int sa_client_init(struct sa_client **out, struct mport *port,
		   const struct sa_client_opts *o)
{
	struct sa_client *sa = calloc(1, sizeof(*sa));
	int ret;

	if (!sa)
		return -ENOMEM;
	sa->port = port;
	sa->opts = *o;
	if (!sa->opts.timeout_ms)
		sa->opts.timeout_ms = SA_CLIENT_TIMEOUT_MS_DEFAULT;
	sa->rmpp_usable = o->rmpp == SA_CLIENT_RMPP_ON ? 1 :
			  o->rmpp == SA_CLIENT_RMPP_OFF ? 0 : -1;
	ret = mport_query(port, &sa->info);
	if (ret)
		goto fail;
	/* RMPP version 1: the kernel reassembles GetTable answers. */
	sa->agent = mport_register(port, SA_CLASS, SA_CLASS_VERSION, 1);
	if (sa->agent < 0) {
		ret = sa->agent;
		goto fail;
	}
	*out = sa;
	return 0;
fail:
	free(sa);
	return ret;
}

void sa_client_fini(struct sa_client *sa)
{
	free(sa);
}

uint16_t sa_client_last_status(const struct sa_client *sa)
{
	return sa->last_status;
}

int sa_client_rmpp_state(const struct sa_client *sa)
{
	return sa->rmpp_usable;
}

uint64_t sa_client_requests(const struct sa_client *sa)
{
	return sa->requests;
}

int sa_client_keyed(const struct sa_client *sa)
{
	return sa->opts.sm_key != 0;
}

const struct mport_info *sa_client_port(const struct sa_client *sa)
{
	return &sa->info;
}

int sa_client_agent(const struct sa_client *sa)
{
	return sa->agent;
}

void sa_client_answer_free(struct sa_client_answer *ans)
{
	free(ans->mad);
	memset(ans, 0, sizeof(*ans));
}

static uint8_t sa_resp_method(uint8_t method)
{
	return method == SA_METHOD_GET_TABLE ? SA_METHOD_GET_TABLE_RESP :
	       method == SA_METHOD_DELETE ? SA_METHOD_DELETE_RESP :
	       SA_METHOD_GET_RESP;
}

int sa_client_refresh(struct sa_client *sa)
{
	int ret = mport_query(sa->port, &sa->info);

	if (ret)
		return ret;
	return sa->info.state != 4 || !sa->info.sm_lid ? -ENETDOWN : 0;
}

struct mport *sa_client_mport(const struct sa_client *sa)
{
	return sa->port;
}

void sa_client_rpc_opts(const struct sa_client *sa, uint8_t method, struct mport_rpc_opts *ro)
{
	ro->timeout_ms = sa->opts.timeout_ms;
	ro->retries = sa->opts.retries;
	ro->grow = method == SA_METHOD_GET_TABLE;
	ro->follow_sm = 1;
}

int sa_client_encode(struct sa_client *sa, uint8_t method, uint16_t attr_id, uint64_t comp_mask,
		     const uint8_t *rec, size_t rec_len, uint8_t *req, struct mport_dest *dst)
{
	struct sa_hdr h = { 0 };

	if (rec_len > SA_DATA_SIZE)
		return -EINVAL;
	memset(req, 0, MAD_SIZE);
	h.mad.base_version = MAD_BASE_VERSION;
	h.mad.mgmt_class = SA_CLASS;
	h.mad.class_version = SA_CLASS_VERSION;
	h.mad.method = method;
	h.mad.attr_id = attr_id;
	h.sm_key = sa->opts.sm_key;
	h.comp_mask = comp_mask;
	sa_hdr_encode(req, &h);
	memcpy(req + SA_OFF_DATA, rec, rec_len);
	dst->lid = sa->info.sm_lid;
	dst->qpn = SA_QP;
	dst->qkey = SA_QKEY;
	dst->sl = sa->info.sm_sl;
	sa->requests++;
	return 0;
}

int sa_client_decode(struct sa_client *sa, uint8_t method, uint16_t attr_id, uint8_t *mad,
		     size_t mad_len, struct sa_client_answer *ans)
{
	int ret;

	memset(ans, 0, sizeof(*ans));
	ans->mad = mad;
	ans->mad_len = mad_len;
	sa->last_status = 0;
	if (sa_hdr_decode(ans->mad, ans->mad_len, &ans->hdr)) {
		sa_client_answer_free(ans);
		return -EPROTO;
	}
	if (ans->hdr.mad.method != sa_resp_method(method) ||
	    ans->hdr.mad.attr_id != attr_id) {
		log_debug("SA answered method 0x%02x attribute 0x%04x to 0x%02x/0x%04x",
			  ans->hdr.mad.method, ans->hdr.mad.attr_id, method, attr_id);
		sa_client_answer_free(ans);
		return -EPROTO;
	}
	sa->last_status = ans->hdr.mad.status;
	ret = sa_status_to_errno(ans->hdr.mad.status);
	if (ret) {
		sa_client_answer_free(ans);
		return ret;
	}
	ans->data = ans->mad + SA_OFF_DATA;
	ans->data_len = ans->mad_len - SA_OFF_DATA;
	return 0;
}

int sa_client_request(struct sa_client *sa, uint8_t method, uint16_t attr_id,
	       uint64_t comp_mask, const uint8_t *rec, size_t rec_len,
	       struct sa_client_answer *ans)
{
	uint8_t req[MAD_SIZE], *mad = NULL;
	struct mport_dest dst;
	struct mport_rpc_opts ro;
	size_t mad_len = 0;
	int ret;

	memset(ans, 0, sizeof(*ans));
	if (rec_len > SA_DATA_SIZE)
		return -EINVAL;
	/* The SM may have moved since the last request. */
	ret = sa_client_refresh(sa);
	if (ret)
		return ret;
	ret = sa_client_encode(sa, method, attr_id, comp_mask, rec, rec_len, req, &dst);
	if (ret)
		return ret;
	sa->last_status = 0;
	sa_client_rpc_opts(sa, method, &ro);
	ret = mport_rpc(sa->port, sa->agent, &dst, req, sizeof(req), &ro, &mad, &mad_len);
	if (ret)
		return ret;
	return sa_client_decode(sa, method, attr_id, mad, mad_len, ans);
}

static int sa_sr_single(struct sa_client *sa, uint8_t method,
			const struct sr_record *r, uint64_t mask,
			struct sr_record *out)
{
	uint8_t buf[SR_SIZE];
	struct sa_client_answer ans;
	int ret;

	sr_encode(buf, r);
	ret = sa_client_request(sa, method, SA_ATTR_SERVICE_RECORD, mask, buf,
			 sizeof(buf), &ans);
	if (ret)
		return ret;
	/* A record the query does not select is no answer to it (a lookup
	 * would name it as the queried GID's or address's). */
	if (method == SA_METHOD_GET &&
	    (ans.data_len < SR_SIZE || !sr_answers(ans.data, buf, mask)))
		ret = -EPROTO;
	else if (out && sr_decode(ans.data, ans.data_len, out))
		ret = -EPROTO;
	sa_client_answer_free(&ans);
	return ret;
}

int sa_client_sr_set(struct sa_client *sa, const struct sr_record *r, uint64_t mask,
	      struct sr_record *out)
{
	return sa_sr_single(sa, SA_METHOD_SET, r, mask, out);
}

int sa_client_sr_delete(struct sa_client *sa, const struct sr_record *r,
		 uint64_t mask, struct sr_record *out)
{
	return sa_sr_single(sa, SA_METHOD_DELETE, r, mask, out);
}

int sa_client_sr_get(struct sa_client *sa, const struct sr_record *q, uint64_t mask,
	      struct sr_record *out)
{
	return sa_sr_single(sa, SA_METHOD_GET, q, mask, out);
}

int sa_client_table(struct sa_client *sa, const struct sa_client_answer *ans, size_t rec_size,
		    struct sa_table_shape *shape)
{
	int ret = sa_table_shape(&ans->hdr, ans->data_len, rec_size, shape);

	if (ret)
		return ret;
	if (shape->truncated) {
		if (sa->rmpp_usable != 0)
			log_info("GetTable answer cut after %zu record(s): no RMPP on this path, walking with SubnAdmGet",
				 shape->nrec);
		sa->rmpp_usable = 0;
		return -EMSGSIZE;
	}
	if (shape->nrec > 1)
		sa->rmpp_usable = 1;
	return 0;
}

int sa_client_sr_table(struct sa_client *sa, const struct sa_client_answer *ans, const uint8_t *qbuf,
		       uint64_t mask, struct sr_record **recs, size_t *n)
{
	struct sa_table_shape shape;
	int ret;

	*recs = NULL;
	*n = 0;
	ret = sa_client_table(sa, ans, SR_SIZE, &shape);
	/* A record the query does not select is no answer to it (a lookup
	 * would name it as the queried GID's or address's). */
	if (!ret)
		ret = sr_table_decode(ans->data, shape.nrec, shape.rec_size, qbuf, mask, recs);
	if (!ret)
		*n = shape.nrec;
	return ret;
}

int sa_client_sr_get_table(struct sa_client *sa, const struct sr_record *q,
		    uint64_t mask, struct sr_record **recs, size_t *n)
{
	uint8_t buf[SR_SIZE];
	struct sa_client_answer ans;
	int ret;

	*recs = NULL;
	*n = 0;
	sr_encode(buf, q);
	ret = sa_client_request(sa, SA_METHOD_GET_TABLE, SA_ATTR_SERVICE_RECORD, mask,
			 buf, sizeof(buf), &ans);
	if (ret == -ENOENT)
		return 0;
	if (ret)
		return ret;
	ret = sa_client_sr_table(sa, &ans, buf, mask, recs, n);
	sa_client_answer_free(&ans);
	return ret;
}

int sa_client_path_decode(const uint8_t *d, size_t len, const uint8_t *dgid, struct sa_client_path_info *p)
{
	if (len < PR_SIZE)
		return -ENOENT;
	/* A path elsewhere is no answer (CM would connect to its LID). */
	if (memcmp(d + PR_OFF_DGID, dgid, 16))
		return -EPROTO;
	memcpy(p->dgid, d + PR_OFF_DGID, 16);
	memcpy(p->sgid, d + PR_OFF_SGID, 16);
	p->dlid = wire_get16(d + PR_OFF_DLID);
	p->slid = wire_get16(d + PR_OFF_SLID);
	p->flow_label = (wire_get32(d + PR_OFF_FLOW_HOP) >> 8) & 0xfffff;
	p->hop_limit = d[PR_OFF_FLOW_HOP + 3];
	p->tclass = d[PR_OFF_TCLASS];
	p->pkey = wire_get16(d + PR_OFF_PKEY);
	p->sl = d[PR_OFF_SL] & 0xf;
	p->mtu = d[PR_OFF_MTU] & 0x3f;
	p->rate = d[PR_OFF_RATE] & 0x3f;
	p->pkt_life = d[PR_OFF_PLT] & 0x3f;
	return 0;
}

int sa_client_path(struct sa_client *sa, const uint8_t *dgid, struct sa_client_path_info *p)
{
	uint8_t pr[PR_SIZE] = { 0 };
	struct sa_client_answer ans;
	int ret;

	memcpy(pr + PR_OFF_DGID, dgid, 16);
	memcpy(pr + PR_OFF_SGID, sa->info.gid, 16);
	/* GetTable: several paths may exist (LMC); the first will do, and
	 * it is whole even when the answer was cut. */
	ret = sa_client_request(sa, SA_METHOD_GET_TABLE, SA_ATTR_PATH_RECORD,
			 1ull << PR_CM_DGID | 1ull << PR_CM_SGID, pr, sizeof(pr), &ans);
	if (ret)
		return ret;
	ret = sa_client_path_decode(ans.data, ans.data_len, dgid, p);
	sa_client_answer_free(&ans);
	return ret;
}

/* Appends the port of NodeRecord nr (at lid) to *v when it is a CA's;
 * its GID has our subnet prefix. */
static int port_add(const uint8_t *prefix, const uint8_t *b, uint16_t lid,
		    struct sa_client_ca_port **v, size_t *cnt, size_t *cap)
{
	struct nr_record nr;

	nr_decode(b, NR_SIZE, &nr);
	if (nr.node_type != NR_NODE_TYPE_CA)
		return 0;
	if (*cnt == *cap) {
		size_t ncap = *cap ? 2 * *cap : 16;
		struct sa_client_ca_port *nv = realloc(*v, ncap * sizeof(**v));

		if (!nv)
			return -ENOMEM;
		*v = nv;
		*cap = ncap;
	}
	memcpy((*v)[*cnt].gid, prefix, 8);
	wire_put64((*v)[*cnt].gid + 8, nr.port_guid);
	(*v)[*cnt].lid = lid;
	(*v)[*cnt].port_num = nr.local_port;
	(*v)[*cnt].sys_guid = nr.sys_guid;
	(*cnt)++;
	return 0;
}

static int port_by_lid(const void *a, const void *b)
{
	const struct sa_client_ca_port *x = a, *y = b;

	return x->lid < y->lid ? -1 : x->lid > y->lid;
}

int sa_client_ports_decode(const uint8_t *prefix, const uint8_t *data, size_t nrec, size_t rec_size,
		    struct sa_client_ca_port **ports, size_t *n)
{
	struct sa_client_ca_port *v = NULL;
	size_t cnt = 0, cap = 0, i;
	int ret = 0;

	*ports = NULL;
	*n = 0;
	if (nrec && rec_size < NR_SIZE)
		return -EPROTO;
	for (i = 0; !ret && i < nrec; i++) {
		const uint8_t *d = data + i * rec_size;

		ret = port_add(prefix, d, wire_get16(d + NR_OFF_LID), &v, &cnt, &cap);
	}
	if (ret) {
		free(v);
		return ret;
	}
	if (cnt > 1)
		qsort(v, cnt, sizeof(*v), port_by_lid);
	*ports = v;
	*n = cnt;
	return 0;
}

/* Every NodeRecord in one GetTable (one record per CA port), in LID
 * order as the walk finds them; -EMSGSIZE when the answer was cut. */
static int sa_ports_table(struct sa_client *sa, struct sa_client_ca_port **ports, size_t *n)
{
	uint8_t nr[NR_SIZE] = { 0 };
	struct sa_table_shape shape;
	struct sa_client_answer ans;
	int ret;

	ret = sa_client_request(sa, SA_METHOD_GET_TABLE, SA_ATTR_NODE_RECORD, 0, nr, sizeof(nr), &ans);
	if (ret == -ENOENT)
		return 0;
	if (ret)
		return ret;
	ret = sa_client_table(sa, &ans, NR_SIZE, &shape);
	if (!ret)
		ret = sa_client_ports_decode(sa->info.gid, ans.data, shape.nrec, shape.rec_size, ports, n);
	sa_client_answer_free(&ans);
	return ret;
}

/* NodeRecord SubnAdmGet per LID (one MAD each). */
static int sa_ports_walk(struct sa_client *sa, unsigned gap, struct sa_client_ca_port **ports,
			 size_t *n)
{
	struct sa_client_ca_port *v = NULL;
	size_t cnt = 0, cap = 0;
	unsigned lid, misses = 0;
	uint8_t nr[NR_SIZE];
	int ret = 0;

	for (lid = 1; lid <= SA_UNICAST_LID_MAX && misses < gap; lid++) {
		struct sa_client_answer ans;

		memset(nr, 0, sizeof(nr));
		wire_put16(nr + NR_OFF_LID, (uint16_t)lid);
		ret = sa_client_request(sa, SA_METHOD_GET, SA_ATTR_NODE_RECORD,
				 1ull << NR_CM_LID, nr, sizeof(nr), &ans);
		if (ret == -ENOENT) {
			misses++;
			continue;
		}
		if (ret)
			goto fail;
		misses = 0;
		if (ans.data_len >= NR_SIZE)
			ret = port_add(sa->info.gid, ans.data, (uint16_t)lid, &v, &cnt, &cap);
		sa_client_answer_free(&ans);
		if (ret)
			goto fail;
	}
	*ports = v;
	*n = cnt;
	return 0;
fail:
	free(v);
	return ret;
}

int sa_client_ports(struct sa_client *sa, unsigned gap, struct sa_client_ca_port **ports, size_t *n)
{
	int ret = -EMSGSIZE;

	*ports = NULL;
	*n = 0;
	if (sa->rmpp_usable != 0)
		ret = sa_ports_table(sa, ports, n);
	if (ret == -EMSGSIZE)
		ret = sa_ports_walk(sa, gap, ports, n);
	return ret;
}

/* One NodeRecord by the fields of mask set in nr (SubnAdmGet). */
static int nr_get(struct sa_client *sa, uint64_t mask, const uint8_t *nr,
		  struct nr_record *out)
{
	struct sa_client_answer ans;
	int ret;

	ret = sa_client_request(sa, SA_METHOD_GET, SA_ATTR_NODE_RECORD, mask, nr, NR_SIZE, &ans);
	if (ret)
		return ret;
	ret = nr_decode(ans.data, ans.data_len, out) ? -EPROTO : 0;
	sa_client_answer_free(&ans);
	return ret;
}

int sa_client_node_at_lid(struct sa_client *sa, uint16_t lid, struct nr_record *out)
{
	uint8_t nr[NR_SIZE] = { 0 };

	wire_put16(nr + NR_OFF_LID, lid);
	return nr_get(sa, 1ull << NR_CM_LID, nr, out);
}

int sa_client_port_guid(struct sa_client *sa, uint16_t lid, uint64_t *guid)
{
	struct nr_record rec;
	int ret;

	ret = sa_client_node_at_lid(sa, lid, &rec);
	if (!ret)
		*guid = rec.port_guid;
	return ret;
}

int sa_client_node_of_port(struct sa_client *sa, uint64_t port_guid, struct nr_record *out)
{
	uint8_t nr[NR_SIZE] = { 0 };
	int ret;

	wire_put64(nr + NR_OFF_PORT_GUID, port_guid);
	ret = nr_get(sa, 1ull << NR_CM_PORT_GUID, nr, out);
	/* Another port's record is an SA's error, not this port's name. */
	if (!ret && out->port_guid != port_guid)
		ret = -EPROTO;
	return ret;
}

int sa_client_port_pkeys(struct sa_client *sa, uint16_t lid, uint8_t port_num,
		  uint16_t *pkeys, size_t max)
{
	uint8_t rec[PKR_SIZE] = { 0 };
	struct sa_client_answer ans;
	size_t i, n = 0;
	int ret;

	wire_put16(rec + PKR_OFF_LID, lid);
	wire_put16(rec + PKR_OFF_BLOCK, 0);
	rec[PKR_OFF_PORT] = port_num;
	ret = sa_client_request(sa, SA_METHOD_GET, SA_ATTR_PKEY_TABLE_RECORD,
			 1ull << PKR_CM_LID | 1ull << PKR_CM_BLOCK | 1ull << PKR_CM_PORT,
			 rec, sizeof(rec), &ans);
	if (ret)
		return ret;
	if (ans.data_len < PKR_SIZE) {
		sa_client_answer_free(&ans);
		return -EPROTO;
	}
	for (i = 0; i < PKR_TABLE_ENTRIES && n < max; i++) {
		uint16_t k = wire_get16(ans.data + PKR_OFF_TABLE + 2 * i);

		if (k & 0x7fff)
			pkeys[n++] = k;
	}
	sa_client_answer_free(&ans);
	return (int)n;
}

/* MCMemberRecord joins (IBTA Vol 1 15.2.5.17): as a FullMember, with our
 * port's GID. */
static int sa_mcm_op(struct sa_client *sa, uint8_t method, const uint8_t *mgid,
		     uint64_t comp_mask, struct mcm_record *out)
{
	struct mcm_record q = { 0 };
	struct sa_client_answer ans;
	uint8_t b[MCM_SIZE];
	int ret;

	memcpy(q.mgid, mgid, 16);
	memcpy(q.port_gid, sa_client_port(sa)->gid, 16);
	q.join_state = MCM_JOIN_FULL;
	mcm_encode(b, &q);
	ret = sa_client_request(sa, method, SA_ATTR_MCMEMBER_RECORD, comp_mask, b, sizeof(b), &ans);
	if (ret)
		return ret;
	if (out && mcm_decode(ans.data, ans.data_len, out))
		ret = -EPROTO;
	sa_client_answer_free(&ans);
	return ret;
}

/* Joining a group that exists: its parameters come from the SM. */
#define SA_MCM_JOIN_MASK (1ull << MCM_CM_MGID | 1ull << MCM_CM_PORT_GID | 1ull << MCM_CM_JOIN_STATE)

int sa_client_mcm_join(struct sa_client *sa, const uint8_t *mgid, struct mcm_record *out)
{
	return sa_mcm_op(sa, SA_METHOD_SET, mgid, SA_MCM_JOIN_MASK, out);
}

int sa_client_mcm_leave(struct sa_client *sa, const uint8_t *mgid)
{
	return sa_mcm_op(sa, SA_METHOD_DELETE, mgid, SA_MCM_JOIN_MASK, NULL);
}

/* With the PortGID in the mask OpenSM answers only if that port is a
 * member, to untrusted requesters too. */
int sa_client_mcm_member(struct sa_client *sa, const uint8_t *mgid, struct mcm_record *out)
{
	return sa_mcm_op(sa, SA_METHOD_GET, mgid,
		      1ull << MCM_CM_MGID | 1ull << MCM_CM_PORT_GID, out);
}
