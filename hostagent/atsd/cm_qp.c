/* The CM endpoint's queue pairs (see cm_qp.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "cm_qp.h"

struct cmqp {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
};

/* verbs calls set errno on failure, some providers not at all. */
static int verbs_err(void)
{
	return errno ? -errno : -ENOMEM;
}

static struct ibv_context *open_device(const char *ca)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list)
		return NULL;
	errno = ENODEV;
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), ca)) {
			errno = 0;
			ctx = ibv_open_device(list[i]);
			break;
		}
	ibv_free_device_list(list);
	return ctx;
}

int cmqp_init(struct cmqp **out, const char *ca)
{
	struct cmqp *q = calloc(1, sizeof(*q));
	int ret;

	if (!q)
		return -ENOMEM;
	q->ctx = open_device(ca);
	if (!q->ctx) {
		ret = errno ? -errno : -ENODEV;
		free(q);
		return ret;
	}
	errno = 0;
	q->pd = ibv_alloc_pd(q->ctx);
	if (q->pd) {
		errno = 0;
		q->cq = ibv_create_cq(q->ctx, 1, NULL, NULL, 0);
	}
	if (!q->pd || !q->cq) {
		ret = verbs_err();
		cmqp_fini(q);
		return ret;
	}
	*out = q;
	return 0;
}

void cmqp_fini(struct cmqp *q)
{
	if (!q)
		return;
	if (q->cq)
		ibv_destroy_cq(q->cq);
	if (q->pd)
		ibv_dealloc_pd(q->pd);
	ibv_close_device(q->ctx);
	free(q);
}

int cmqp_create(struct cmqp *q, struct ibv_qp **qp, uint32_t *qpn)
{
	struct ibv_qp_init_attr a;

	memset(&a, 0, sizeof(a));
	a.send_cq = q->cq;
	a.recv_cq = q->cq;
	a.qp_type = IBV_QPT_RC;
	a.cap.max_send_wr = 1;
	a.cap.max_recv_wr = 1;
	a.cap.max_send_sge = 1;
	a.cap.max_recv_sge = 1;
	errno = 0;
	*qp = ibv_create_qp(q->pd, &a);
	if (!*qp)
		return verbs_err();
	*qpn = (*qp)->qp_num;
	return 0;
}

void cmqp_destroy(struct ibv_qp *qp)
{
	if (qp)
		ibv_destroy_qp(qp);
}
