/* The CM endpoint's QPNs come from verbs: a REP carries the number of an
 * RC QP that ibv_create_qp made on the port's device, and the QP goes
 * with its connection. libibverbs is replaced by the fake device below
 * (this test links without it); the port and the SA client by --wrap
 * (tests/Makefile.inc). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <infiniband/verbs.h>

#include "cm.h"
#include "cm_ep.h"
#include "mad.h"
#include "sa_client.h"
#include "wire.h"

#define QPN_FIRST 0x00abc1

/* One verbs device, "fake0", and what of it is alive. */
static struct {
	struct ibv_device *list[2];
	int contexts, pds, cqs, qps;
	uint32_t next_qpn;
	int fail_qp;       /* ibv_create_qp fails with this errno */
	uint32_t last_qpn; /* the last QPN handed out */
	int registrations; /* CM class agents */
} fk;

static struct ibv_device fake_device;

struct ibv_device **ibv_get_device_list(int *num)
{
	fk.list[0] = &fake_device;
	*num = 1;
	return fk.list;
}

void ibv_free_device_list(struct ibv_device **list)
{
	assert_ptr_equal(list, fk.list);
}

const char *ibv_get_device_name(struct ibv_device *d)
{
	assert_ptr_equal(d, &fake_device);
	return "fake0";
}

struct ibv_context *ibv_open_device(struct ibv_device *d)
{
	assert_ptr_equal(d, &fake_device);
	fk.contexts++;
	return calloc(1, sizeof(struct ibv_context));
}

int ibv_close_device(struct ibv_context *c)
{
	fk.contexts--;
	free(c);
	return 0;
}

struct ibv_pd *ibv_alloc_pd(struct ibv_context *c)
{
	struct ibv_pd *pd = calloc(1, sizeof(*pd));

	pd->context = c;
	fk.pds++;
	return pd;
}

int ibv_dealloc_pd(struct ibv_pd *pd)
{
	fk.pds--;
	free(pd);
	return 0;
}

struct ibv_cq *ibv_create_cq(struct ibv_context *c, int cqe, void *ctx,
			     struct ibv_comp_channel *ch, int vec)
{
	struct ibv_cq *cq = calloc(1, sizeof(*cq));

	(void)ctx;
	(void)vec;
	assert_true(cqe >= 1);
	assert_null(ch);
	cq->context = c;
	fk.cqs++;
	return cq;
}

int ibv_destroy_cq(struct ibv_cq *cq)
{
	fk.cqs--;
	free(cq);
	return 0;
}

struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *a)
{
	struct ibv_qp *qp;

	if (fk.fail_qp) {
		errno = fk.fail_qp;
		return NULL;
	}
	assert_int_equal(a->qp_type, IBV_QPT_RC);
	assert_non_null(a->send_cq);
	assert_non_null(a->recv_cq);
	qp = calloc(1, sizeof(*qp));
	qp->pd = pd;
	qp->qp_num = fk.last_qpn = fk.next_qpn++;
	fk.qps++;
	return qp;
}

int ibv_destroy_qp(struct ibv_qp *qp)
{
	fk.qps--;
	free(qp);
	return 0;
}

static struct mport_info port_info;

int __wrap_mport_query(struct mport *p, struct mport_info *info);
int __wrap_mport_query(struct mport *p, struct mport_info *info)
{
	(void)p;
	*info = port_info;
	return 0;
}

int __wrap_mport_register_serve(struct mport *p, uint8_t mgmt_class, uint8_t class_version,
				uint8_t method);
int __wrap_mport_register_serve(struct mport *p, uint8_t mgmt_class, uint8_t class_version,
				uint8_t method)
{
	(void)p;
	(void)class_version;
	(void)method;
	assert_int_equal(mgmt_class, CM_CLASS);
	fk.registrations++;
	return 3;
}

const struct mport_info *__wrap_sa_client_port(const struct sa_client *sa);
const struct mport_info *__wrap_sa_client_port(const struct sa_client *sa)
{
	(void)sa;
	return &port_info;
}

static int dummy; /* the port and SA client: never touched */

static int setup(void **state)
{
	(void)state;
	memset(&fk, 0, sizeof(fk));
	fk.next_qpn = QPN_FIRST;
	memset(&port_info, 0, sizeof(port_info));
	strcpy(port_info.ca, "fake0");
	port_info.portnum = 1;
	port_info.port_guid = 0x0002c90300000005ull;
	return 0;
}

static struct cmep *endpoint(void)
{
	struct cmep_conf conf;
	struct cmep *e = NULL;

	memset(&conf, 0, sizeof(conf));
	conf.policy = CMEP_ACCEPT_ANY;
	conf.listen[conf.nlisten++] = cm_ip_service_id(CM_PS_TCP, 5001);
	assert_int_equal(cmep_init(&e, (struct mport *)&dummy, (struct sa_client *)&dummy,
				   &conf), 0);
	return e;
}

static void cm_mad(uint8_t *mad, uint16_t attr, uint64_t tid)
{
	struct mad_hdr h = {
		.base_version = MAD_BASE_VERSION, .mgmt_class = CM_CLASS,
		.class_version = CM_CLASS_VERSION, .method = 0x03, /* Send */
		.tid = tid, .attr_id = attr,
	};

	memset(mad, 0, MAD_SIZE);
	mad_hdr_encode(mad, &h);
}

/* A REQ for TCP port 5001 from comm ID id, with Annex A11 private data. */
static void req_mad(uint8_t *mad, uint32_t id)
{
	struct cm_ip_pdata pd;
	struct cm_req req;

	memset(&req, 0, sizeof(req));
	req.local_comm_id = id;
	req.service_id = cm_ip_service_id(CM_PS_TCP, 5001);
	req.local_qpn = 0x4d2;
	req.starting_psn = 0xabcdef;
	req.pkey = 0xffff;
	req.primary.local_lid = 4;
	req.primary.remote_lid = 5;
	req.primary.local_gid[0] = 0xfe;
	req.primary.local_gid[1] = 0x80;
	req.primary.local_gid[15] = 3;
	memset(&pd, 0, sizeof(pd));
	ats_ip_parse("10.0.0.3", &pd.src);
	ats_ip_parse("10.0.0.5", &pd.dst);
	pd.src_port = 40000;
	cm_ip_pdata_encode(req.private_data, &pd);
	cm_mad(mad, CM_ATTR_REQ, 0x77);
	cm_req_encode(mad + CM_DATA_OFF, &req);
}

/* Answer a REQ from comm ID id: the REP's local QPN. */
static uint32_t connect_from(struct cmep *e, uint32_t id)
{
	uint8_t mad[MAD_SIZE], resp[MAD_SIZE];
	struct cm_rep rep;

	req_mad(mad, id);
	assert_int_equal(cmep_answer(e, mad, sizeof(mad), resp, sizeof(resp)), MAD_SIZE);
	assert_int_equal(wire_get16(resp + MAD_OFF_ATTR_ID), CM_ATTR_REP);
	assert_int_equal(cm_rep_decode(resp + CM_DATA_OFF, MAD_SIZE - CM_DATA_OFF, &rep), 0);
	return rep.local_qpn;
}

static void test_rep_qpn_from_verbs(void **state)
{
	struct cmep_conn conns[CMEP_MAX_CONNS];
	struct cmep *e;

	(void)state;
	e = endpoint();
	/* One device, one PD, one CQ for the endpoint; no QP yet. */
	assert_int_equal(fk.contexts, 1);
	assert_int_equal(fk.pds, 1);
	assert_int_equal(fk.cqs, 1);
	assert_int_equal(fk.qps, 0);
	assert_int_equal(fk.registrations, 1);
	assert_int_equal(connect_from(e, 0x1111), QPN_FIRST);
	assert_int_equal(fk.qps, 1);
	assert_int_equal(connect_from(e, 0x2222), QPN_FIRST + 1);
	assert_int_equal(fk.qps, 2);
	assert_int_equal(cmep_list(e, conns, CMEP_MAX_CONNS), 2);
	assert_int_equal(conns[0].local_qpn, QPN_FIRST);
	assert_int_equal(conns[1].local_qpn, QPN_FIRST + 1);
	/* A retried REQ replaces its connection: the old QP goes. */
	assert_int_equal(connect_from(e, 0x1111), QPN_FIRST + 2);
	assert_int_equal(fk.qps, 2);
	assert_int_equal(cmep_list(e, conns, CMEP_MAX_CONNS), 2);
	/* The endpoint's end takes every QP, the CQ, the PD and the device. */
	cmep_fini(e);
	assert_int_equal(fk.qps, 0);
	assert_int_equal(fk.cqs, 0);
	assert_int_equal(fk.pds, 0);
	assert_int_equal(fk.contexts, 0);
}

static void test_qp_goes_with_connection(void **state)
{
	uint8_t mad[MAD_SIZE], resp[MAD_SIZE];
	struct cmep_conn conns[CMEP_MAX_CONNS];
	struct cm_dreq dreq;
	struct cm_rej rej;
	struct cmep *e;

	(void)state;
	e = endpoint();
	connect_from(e, 0x1111);
	connect_from(e, 0x2222);
	assert_int_equal(cmep_list(e, conns, CMEP_MAX_CONNS), 2);
	/* The peer's DREQ closes the first: DREP, and its QP is destroyed. */
	memset(&dreq, 0, sizeof(dreq));
	dreq.local_comm_id = 0x1111;
	dreq.remote_comm_id = conns[0].id;
	cm_mad(mad, CM_ATTR_DREQ, 0x78);
	cm_dreq_encode(mad + CM_DATA_OFF, &dreq);
	assert_int_equal(cmep_answer(e, mad, sizeof(mad), resp, sizeof(resp)), MAD_SIZE);
	assert_int_equal(wire_get16(resp + MAD_OFF_ATTR_ID), CM_ATTR_DREP);
	assert_int_equal(fk.qps, 1);
	/* The peer's REJ of the other (say, to our REP): gone too. */
	memset(&rej, 0, sizeof(rej));
	rej.local_comm_id = 0x2222;
	rej.remote_comm_id = conns[1].id;
	rej.reason = CM_REJ_CONSUMER;
	cm_mad(mad, CM_ATTR_REJ, 0x79);
	cm_rej_encode(mad + CM_DATA_OFF, &rej);
	assert_int_equal(cmep_answer(e, mad, sizeof(mad), resp, sizeof(resp)), 0);
	assert_int_equal(fk.qps, 0);
	assert_int_equal(cmep_list(e, conns, CMEP_MAX_CONNS), 0);
	cmep_fini(e);
	assert_int_equal(fk.contexts, 0);
}

static void test_no_qp_rejects(void **state)
{
	uint8_t mad[MAD_SIZE], resp[MAD_SIZE];
	struct cmep_conn conns[CMEP_MAX_CONNS];
	struct cm_rej rej;
	struct cmep *e;

	(void)state;
	e = endpoint();
	fk.fail_qp = ENOMEM;
	req_mad(mad, 0x1111);
	assert_int_equal(cmep_answer(e, mad, sizeof(mad), resp, sizeof(resp)), MAD_SIZE);
	assert_int_equal(wire_get16(resp + MAD_OFF_ATTR_ID), CM_ATTR_REJ);
	assert_int_equal(cm_rej_decode(resp + CM_DATA_OFF, MAD_SIZE - CM_DATA_OFF, &rej), 0);
	assert_int_equal(rej.reason, CM_REJ_NO_QP);
	assert_int_equal(rej.remote_comm_id, 0x1111);
	assert_string_equal((char *)rej.private_data, "ibats: no QP for the connection");
	assert_int_equal(cmep_list(e, conns, CMEP_MAX_CONNS), 0);
	cmep_fini(e);
}

static void test_no_device(void **state)
{
	struct cmep_conf conf;
	struct cmep *e = NULL;

	(void)state;
	strcpy(port_info.ca, "mlx5_9");
	memset(&conf, 0, sizeof(conf));
	/* No QPs, no endpoint: and the CM class stays unregistered, for a
	 * registered agent would take REQs nobody answers. */
	assert_int_equal(cmep_init(&e, (struct mport *)&dummy, (struct sa_client *)&dummy,
				   &conf), -ENODEV);
	assert_null(e);
	assert_int_equal(fk.registrations, 0);
	assert_int_equal(fk.contexts, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_rep_qpn_from_verbs, setup),
		cmocka_unit_test_setup(test_qp_goes_with_connection, setup),
		cmocka_unit_test_setup(test_no_qp_rejects, setup),
		cmocka_unit_test_setup(test_no_device, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
