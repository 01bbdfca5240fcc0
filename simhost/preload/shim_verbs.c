/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* libibverbs on the simulated node: what a process of a host uses of
 * it to find its port and follow it (the device list, open and close,
 * the port's async events, queries of the device, port, GID and P_Key
 * table from the node's sysfs), and QP numbers for CM (PD, CQ and QP
 * objects whose qp_num comes from the node's block, simhost.h; no data
 * path: posts fail with EOPNOTSUPP, polls find nothing).
 *
 * With a node (SIMHOST_DIR, SIM_HOST), every device the process sees is
 * the node's, none of the host's; without one, every call is
 * libibverbs' own. A context's async_fd is its SIMHOST_VERBS
 * connection, so poll() on it works as on the uverbs device. Its
 * abi_compat is NULL: libibverbs' inline helpers (verbs.h
 * verbs_get_ctx) then call the exported functions interposed here, or
 * fail with EOPNOTSUPP. */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "simhost/wire/simhost.h"
#include "shim.h"
#include "shim_conn.h"
#include "shim_verbs.h"

#define SHIM_VERBS_DEVS 8
#define SHIM_VERBS_LEN 4608

struct shim_verbs_dev {
	struct ibv_device dev; /* first: the pointer the process holds */
	int used;
};

/* A device stays for the process's life, as libibverbs' do while a
 * context holds them: a pointer from an old list stays valid. */
static struct shim_verbs_dev shim_verbs_devs[SHIM_VERBS_DEVS];
static pthread_mutex_t shim_verbs_mu = PTHREAD_MUTEX_INITIALIZER;

struct shim_verbs_ctx {
	struct ibv_context ctx; /* first: the pointer the process holds */
	uint32_t qpn_base, qpn_next;
};

static int shim_verbs_ours(const struct ibv_device *dev)
{
	const struct shim_verbs_dev *d = (const struct shim_verbs_dev *)dev;

	return d >= shim_verbs_devs && d < shim_verbs_devs + SHIM_VERBS_DEVS;
}

int shim_verbs_ctx_ours(const struct ibv_context *ctx)
{
	return ctx && shim_verbs_ours(ctx->device);
}

void *shim_verbs_next(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

int shim_verbs_attr(const char *ca, char *v, size_t len, const char *fmt, ...)
{
	const struct shim_node *node = shim_node();
	char rel[256], path[SHIM_VERBS_LEN];
	va_list ap;
	ssize_t n;
	int fd;

	if (!node)
		return -ENODEV;
	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "%s/class/infiniband/%s/%s", node->sys, ca, rel);
	fd = shim_next()->open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = shim_next()->read(fd, v, len - 1);
	shim_next()->close(fd);
	if (n < 0)
		return -EIO;
	v[n] = '\0';
	v[strcspn(v, "\n")] = '\0';
	return 0;
}

int shim_verbs_count(const char *ca, const char *rel)
{
	const struct shim_node *node = shim_node();
	char path[SHIM_VERBS_LEN];
	struct dirent *e;
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "%s/class/infiniband/%s/%s", node ? node->sys : "", ca, rel);
	d = shim_next()->opendir(path);
	if (!d)
		return 0;
	while ((e = shim_next()->readdir(d)))
		n += e->d_name[0] != '.';
	shim_next()->closedir(d);
	return n;
}

__be64 shim_verbs_guid(const char *s)
{
	unsigned a, b, c, d;

	if (sscanf(s, "%x:%x:%x:%x", &a, &b, &c, &d) != 4)
		return 0;
	return htobe64((uint64_t)a << 48 | (uint64_t)b << 32 | (uint64_t)c << 16 | d);
}

static void shim_verbs_dev_fill(struct shim_verbs_dev *d, const char *ca, int idx)
{
	char v[64] = "";

	memset(&d->dev, 0, sizeof(d->dev));
	snprintf(d->dev.name, sizeof(d->dev.name), "%.63s", ca);
	snprintf(d->dev.dev_name, sizeof(d->dev.dev_name), "uverbs%d", idx);
	snprintf(d->dev.dev_path, sizeof(d->dev.dev_path), "/sys/class/infiniband_verbs/uverbs%d",
		 idx);
	snprintf(d->dev.ibdev_path, sizeof(d->dev.ibdev_path), "/sys/class/infiniband/%.63s", ca);
	(void)shim_verbs_attr(ca, v, sizeof(v), "node_type");
	d->dev.node_type = (enum ibv_node_type)atoi(v);
	if (d->dev.node_type == IBV_NODE_UNKNOWN)
		d->dev.node_type = IBV_NODE_CA;
	d->dev.transport_type = IBV_TRANSPORT_IB;
	d->used = 1;
}

/* The node's device named ca, added at first sight. */
static struct ibv_device *shim_verbs_dev_of(const char *ca)
{
	struct shim_verbs_dev *free_slot = NULL;
	int i;

	for (i = 0; i < SHIM_VERBS_DEVS; i++) {
		struct shim_verbs_dev *d = &shim_verbs_devs[i];

		if (d->used && !strcmp(d->dev.name, ca))
			return &d->dev;
		if (!d->used && !free_slot)
			free_slot = d;
	}
	if (!free_slot)
		return NULL;
	shim_verbs_dev_fill(free_slot, ca, (int)(free_slot - shim_verbs_devs));
	return &free_slot->dev;
}

struct ibv_device **ibv_get_device_list(int *num)
{
	struct ibv_device **(*next)(int *);
	const struct shim_node *node = shim_node();
	char path[SHIM_VERBS_LEN];
	struct ibv_device **list;
	struct dirent **cas = NULL;
	int n, i, k = 0;

	if (!node) {
		next = (struct ibv_device **(*)(int *))shim_verbs_next("ibv_get_device_list");
		return next ? next(num) : NULL;
	}
	snprintf(path, sizeof(path), "%s/class/infiniband", node->sys);
	n = shim_next()->scandir(path, &cas, NULL, alphasort);
	list = calloc((size_t)(n > 0 ? n : 0) + 1, sizeof(*list));
	pthread_mutex_lock(&shim_verbs_mu);
	for (i = 0; i < n; i++) {
		if (list && cas[i]->d_name[0] != '.' && (list[k] = shim_verbs_dev_of(cas[i]->d_name)))
			k++;
		free(cas[i]);
	}
	pthread_mutex_unlock(&shim_verbs_mu);
	free(cas);
	if (!list) {
		errno = ENOMEM;
		return NULL;
	}
	if (num)
		*num = k;
	return list;
}

void ibv_free_device_list(struct ibv_device **list)
{
	void (*next)(struct ibv_device **);

	if (shim_node()) {
		free(list);
		return;
	}
	next = (void (*)(struct ibv_device **))shim_verbs_next("ibv_free_device_list");
	if (next)
		next(list);
}

const char *ibv_get_device_name(struct ibv_device *dev)
{
	const char *(*next)(struct ibv_device *);

	if (shim_verbs_ours(dev))
		return dev->name;
	next = (const char *(*)(struct ibv_device *))shim_verbs_next("ibv_get_device_name");
	return next ? next(dev) : NULL;
}

__be64 ibv_get_device_guid(struct ibv_device *dev)
{
	__be64 (*next)(struct ibv_device *);
	char v[64];

	if (shim_verbs_ours(dev))
		return shim_verbs_attr(dev->name, v, sizeof(v), "node_guid") ? 0 :
									     shim_verbs_guid(v);
	next = (__be64 (*)(struct ibv_device *))shim_verbs_next("ibv_get_device_guid");
	return next ? next(dev) : 0;
}

/* The kernel's index of the device (RDMA_NLDEV_ATTR_DEV_INDEX): the
 * node's one CA is 0, as rdma_ucm's QUERY answers say (ibdev_index).
 * libibverbs' own reads memory past the node's struct ibv_device
 * (verbs_get_device(dev)->sysfs); librdmacm's sync_devices_list calls
 * it for every device. */
int ibv_get_device_index(struct ibv_device *dev)
{
	int (*next)(struct ibv_device *);

	if (shim_verbs_ours(dev))
		return (int)((const struct shim_verbs_dev *)dev - shim_verbs_devs);
	next = (int (*)(struct ibv_device *))shim_verbs_next("ibv_get_device_index");
	return next ? next(dev) : -1;
}

/* The data path the node has not: nothing completes, nothing posts. */
static int shim_verbs_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	(void)cq;
	(void)n;
	(void)wc;
	return 0;
}

static int shim_verbs_notify(struct ibv_cq *cq, int solicited)
{
	(void)cq;
	(void)solicited;
	return 0;
}

static int shim_verbs_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
				struct ibv_send_wr **bad)
{
	(void)qp;
	*bad = wr;
	return EOPNOTSUPP;
}

static int shim_verbs_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
				struct ibv_recv_wr **bad)
{
	(void)qp;
	*bad = wr;
	return EOPNOTSUPP;
}

static int shim_verbs_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
				    struct ibv_recv_wr **bad)
{
	(void)srq;
	*bad = wr;
	return EOPNOTSUPP;
}

struct ibv_context *ibv_open_device(struct ibv_device *dev)
{
	struct ibv_context *(*next)(struct ibv_device *);
	struct simhost_welcome w;
	struct shim_verbs_ctx *c;
	int fd;

	if (!shim_verbs_ours(dev)) {
		next = (struct ibv_context * (*)(struct ibv_device *))
			shim_verbs_next("ibv_open_device");
		return next ? next(dev) : NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	fd = shim_conn_open(SIMHOST_VERBS, 0, 0, 1, &w);
	if (fd < 0) {
		free(c);
		errno = -fd == ENOENT ? ENODEV : -fd;
		return NULL;
	}
	c->ctx.device = dev;
	c->ctx.cmd_fd = -1;
	c->ctx.async_fd = fd;
	c->ctx.num_comp_vectors = 1;
	c->ctx.ops.poll_cq = shim_verbs_poll_cq;
	c->ctx.ops.req_notify_cq = shim_verbs_notify;
	c->ctx.ops.post_send = shim_verbs_post_send;
	c->ctx.ops.post_recv = shim_verbs_post_recv;
	c->ctx.ops.post_srq_recv = shim_verbs_post_srq_recv;
	pthread_mutex_init(&c->ctx.mutex, NULL);
	c->qpn_base = w.qpn_base;
	return &c->ctx;
}

int ibv_close_device(struct ibv_context *ctx)
{
	int (*next)(struct ibv_context *);

	if (!shim_verbs_ctx_ours(ctx)) {
		next = (int (*)(struct ibv_context *))shim_verbs_next("ibv_close_device");
		return next ? next(ctx) : -1;
	}
	shim_next()->close(ctx->async_fd);
	pthread_mutex_destroy(&ctx->mutex);
	free(ctx);
	return 0;
}

/* One simhost_event per packet of the context's SIMHOST_VERBS
 * connection: blocks unless the process made async_fd non-blocking, as
 * the uverbs device's read does. */
int ibv_get_async_event(struct ibv_context *ctx, struct ibv_async_event *ev)
{
	int (*next)(struct ibv_context *, struct ibv_async_event *);
	struct simhost_event e;
	ssize_t n;

	if (!shim_verbs_ctx_ours(ctx)) {
		next = (int (*)(struct ibv_context *, struct ibv_async_event *))shim_verbs_next(
			"ibv_get_async_event");
		return next ? next(ctx, ev) : -1;
	}
	do
		n = recv(ctx->async_fd, &e, sizeof(e), 0);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(e)) {
		if (n >= 0)
			errno = EIO; /* the kernel went away */
		return -1;
	}
	memset(ev, 0, sizeof(*ev));
	ev->event_type = (enum ibv_event_type)e.type;
	ev->element.port_num = (int)e.port;
	return 0;
}

void ibv_ack_async_event(struct ibv_async_event *ev)
{
	void (*next)(struct ibv_async_event *);

	/* The node raises port and device events only, which libibverbs
	 * acknowledges by doing nothing (verbs.c ibv_ack_async_event). */
	switch (ev->event_type) {
	case IBV_EVENT_DEVICE_FATAL:
	case IBV_EVENT_PORT_ACTIVE:
	case IBV_EVENT_PORT_ERR:
	case IBV_EVENT_LID_CHANGE:
	case IBV_EVENT_PKEY_CHANGE:
	case IBV_EVENT_SM_CHANGE:
	case IBV_EVENT_CLIENT_REREGISTER:
	case IBV_EVENT_GID_CHANGE:
		return;
	default:
		break;
	}
	next = (void (*)(struct ibv_async_event *))shim_verbs_next("ibv_ack_async_event");
	if (next)
		next(ev);
}

struct ibv_pd *ibv_alloc_pd(struct ibv_context *ctx)
{
	struct ibv_pd *(*next)(struct ibv_context *);
	struct ibv_pd *pd;

	if (!shim_verbs_ctx_ours(ctx)) {
		next = (struct ibv_pd * (*)(struct ibv_context *)) shim_verbs_next("ibv_alloc_pd");
		return next ? next(ctx) : NULL;
	}
	pd = calloc(1, sizeof(*pd));
	if (pd)
		pd->context = ctx;
	return pd;
}

int ibv_dealloc_pd(struct ibv_pd *pd)
{
	int (*next)(struct ibv_pd *);

	if (!shim_verbs_ctx_ours(pd->context)) {
		next = (int (*)(struct ibv_pd *))shim_verbs_next("ibv_dealloc_pd");
		return next ? next(pd) : EINVAL;
	}
	free(pd);
	return 0;
}

struct ibv_cq *ibv_create_cq(struct ibv_context *ctx, int cqe, void *cq_context,
			     struct ibv_comp_channel *channel, int comp_vector)
{
	struct ibv_cq *(*next)(struct ibv_context *, int, void *, struct ibv_comp_channel *, int);
	struct ibv_cq *cq;

	if (!shim_verbs_ctx_ours(ctx)) {
		next = (struct ibv_cq * (*)(struct ibv_context *, int, void *,
					    struct ibv_comp_channel *, int))
			shim_verbs_next("ibv_create_cq");
		return next ? next(ctx, cqe, cq_context, channel, comp_vector) : NULL;
	}
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;
	cq->context = ctx;
	cq->channel = channel;
	cq->cq_context = cq_context;
	cq->cqe = cqe;
	pthread_mutex_init(&cq->mutex, NULL);
	pthread_cond_init(&cq->cond, NULL);
	return cq;
}

int ibv_destroy_cq(struct ibv_cq *cq)
{
	int (*next)(struct ibv_cq *);

	if (!shim_verbs_ctx_ours(cq->context)) {
		next = (int (*)(struct ibv_cq *))shim_verbs_next("ibv_destroy_cq");
		return next ? next(cq) : EINVAL;
	}
	pthread_mutex_destroy(&cq->mutex);
	pthread_cond_destroy(&cq->cond);
	free(cq);
	return 0;
}

/* A QP number from the context's block (the kernel hands each QP its
 * own; the node's block keeps processes apart). */
struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	struct ibv_qp *(*next)(struct ibv_pd *, struct ibv_qp_init_attr *);
	struct shim_verbs_ctx *c;
	struct ibv_qp *qp;

	if (!shim_verbs_ctx_ours(pd->context)) {
		next = (struct ibv_qp * (*)(struct ibv_pd *, struct ibv_qp_init_attr *))
			shim_verbs_next("ibv_create_qp");
		return next ? next(pd, attr) : NULL;
	}
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;
	c = (struct shim_verbs_ctx *)pd->context;
	pthread_mutex_lock(&c->ctx.mutex);
	qp->qp_num = c->qpn_base + c->qpn_next++ % SIMHOST_QPN_BLOCK;
	pthread_mutex_unlock(&c->ctx.mutex);
	qp->context = pd->context;
	qp->qp_context = attr->qp_context;
	qp->pd = pd;
	qp->send_cq = attr->send_cq;
	qp->recv_cq = attr->recv_cq;
	qp->srq = attr->srq;
	qp->qp_type = attr->qp_type;
	qp->state = IBV_QPS_RESET;
	pthread_mutex_init(&qp->mutex, NULL);
	pthread_cond_init(&qp->cond, NULL);
	return qp;
}

int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	int (*next)(struct ibv_qp *, struct ibv_qp_attr *, int);

	if (!shim_verbs_ctx_ours(qp->context)) {
		next = (int (*)(struct ibv_qp *, struct ibv_qp_attr *, int))shim_verbs_next(
			"ibv_modify_qp");
		return next ? next(qp, attr, mask) : EINVAL;
	}
	if (mask & IBV_QP_STATE)
		qp->state = attr->qp_state;
	return 0;
}

int ibv_destroy_qp(struct ibv_qp *qp)
{
	int (*next)(struct ibv_qp *);

	if (!shim_verbs_ctx_ours(qp->context)) {
		next = (int (*)(struct ibv_qp *))shim_verbs_next("ibv_destroy_qp");
		return next ? next(qp) : EINVAL;
	}
	pthread_mutex_destroy(&qp->mutex);
	pthread_cond_destroy(&qp->cond);
	free(qp);
	return 0;
}
