/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The simulated node's rdma_ucm: see kucma.h. Offsets are those of
 * <rdma/rdma_user_cm.h>; integers of the ABI are in the process's (host)
 * order. */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <rdma/rdma_user_cm.h>

#include "simhost/wire/abi.h"
#include "kucma.h"
#include "core/wire.h"

/* enum rdma_ucm_cmd */
enum {
	KUCMA_CMD_CREATE_ID = 0,
	KUCMA_CMD_DESTROY_ID = 1,
	KUCMA_CMD_RESOLVE_ROUTE = 4,
	KUCMA_CMD_CONNECT = 6,
	KUCMA_CMD_LISTEN = 7,
	KUCMA_CMD_ACCEPT = 8,
	KUCMA_CMD_REJECT = 9,
	KUCMA_CMD_DISCONNECT = 10,
	KUCMA_CMD_INIT_QP_ATTR = 11,
	KUCMA_CMD_GET_EVENT = 12,
	KUCMA_CMD_SET_OPTION = 14,
	KUCMA_CMD_MIGRATE_ID = 18,
	KUCMA_CMD_QUERY = 19,
	KUCMA_CMD_BIND = 20,
	KUCMA_CMD_RESOLVE_ADDR = 21,
	KUCMA_CMD_JOIN_MCAST = 22, /* the table's last */
};

/* struct rdma_ucm_cmd_hdr */
enum { KUCMA_HDR_CMD = 0, KUCMA_HDR_IN = 4, KUCMA_HDR_OUT = 6, KUCMA_HDR_LEN = 8 };
/* struct rdma_ucm_create_id (24) */
enum { KUCMA_CREATE_UID = 0, KUCMA_CREATE_PS = 16, KUCMA_CREATE_QP_TYPE = 18, KUCMA_CREATE_LEN = 24 };
/* struct rdma_ucm_destroy_id (16), rdma_ucm_query (16) */
enum { KUCMA_DESTROY_ID = 8, KUCMA_DESTROY_LEN = 16 };
enum { KUCMA_QUERY_ID = 8, KUCMA_QUERY_OPTION = 12, KUCMA_QUERY_LEN = 16 };
/* enum rdma_ucm_query_option */
enum { KUCMA_QUERY_ADDR = 0, KUCMA_QUERY_PATH = 1, KUCMA_QUERY_GID = 2 };
/* struct rdma_ucm_resolve_route (8) */
enum { KUCMA_RR_ID = 0, KUCMA_RR_TIMEOUT = 4, KUCMA_RR_LEN = 8 };
/* struct rdma_ucm_listen (8) */
enum { KUCMA_LISTEN_ID = 0, KUCMA_LISTEN_BACKLOG = 4, KUCMA_LISTEN_LEN = 8 };
/* ucma.c: net.rdma_ucm.max_backlog's default */
#define KUCMA_MAX_BACKLOG 1024
/* struct rdma_ucm_bind (136) */
enum { KUCMA_BIND_ID = 0, KUCMA_BIND_SIZE = 4, KUCMA_BIND_ADDR = 8, KUCMA_BIND_LEN = 136 };
/* struct rdma_ucm_resolve_addr (272) */
enum {
	KUCMA_RA_ID = 0,
	KUCMA_RA_SRC_SIZE = 8,
	KUCMA_RA_DST_SIZE = 10,
	KUCMA_RA_SRC = 16,
	KUCMA_RA_DST = 144,
	KUCMA_RA_LEN = 272,
};
/* struct rdma_ucm_connect (288): conn_param (272), id, reserved, ece */
enum { KUCMA_CONNECT_PARAM = 0, KUCMA_CONNECT_ID = 272, KUCMA_CONNECT_LEN = 288 };
/* struct rdma_ucm_accept (296): uid, conn_param, id, reserved, ece */
enum { KUCMA_ACCEPT_UID = 0, KUCMA_ACCEPT_PARAM = 8, KUCMA_ACCEPT_ID = 280, KUCMA_ACCEPT_LEN = 296 };
#define KUCMA_PARAM_VALID 271 /* rdma_ucm_conn_param.valid */
/* struct rdma_ucm_reject (264) */
enum {
	KUCMA_REJECT_ID = 0,
	KUCMA_REJECT_PDATA_LEN = 4,
	KUCMA_REJECT_REASON = 5,
	KUCMA_REJECT_PDATA = 8,
	KUCMA_REJECT_LEN = 264,
};
/* struct rdma_ucm_disconnect (4); rdma_ucm_init_qp_attr (16) */
enum { KUCMA_DISCONNECT_ID = 0, KUCMA_DISCONNECT_LEN = 4 };
enum { KUCMA_IQA_ID = 8, KUCMA_IQA_STATE = 12, KUCMA_IQA_LEN = 16 };
/* struct rdma_ucm_set_option (24), the option's bytes after it */
enum { KUCMA_SO_ID = 8, KUCMA_SO_LEVEL = 12, KUCMA_SO_NAME = 16, KUCMA_SO_OPTLEN = 20, KUCMA_SO_LEN = 24 };
/* struct rdma_ucm_migrate_id (16) */
enum { KUCMA_MIGRATE_ID = 8, KUCMA_MIGRATE_FD = 12, KUCMA_MIGRATE_LEN = 16 };
/* struct rdma_ucm_event_resp */
enum {
	KUCMA_EV_UID = 0,
	KUCMA_EV_ID = 8,
	KUCMA_EV_EVENT = 12,
	KUCMA_EV_STATUS = 16,
	KUCMA_EV_PARAM = 20,
};
#define KUCMA_AF_INET 2
#define KUCMA_AF_INET6 10
#define KUCMA_AF_IB 27
/* enum rdma_ucm_port_space, enum ib_qp_type */
#define KUCMA_PS_IPOIB 0x0002
#define KUCMA_PS_IB 0x013F
#define KUCMA_PS_TCP 0x0106
#define KUCMA_PS_UDP 0x0111
#define KUCMA_QPT_RC 2
#define KUCMA_QPT_UD 4

/* The named offsets are the header's (ABI 4, this machine's layout). */
#define KUCMA_AT(s, f, off) _Static_assert(offsetof(struct s, f) == (off), #s "." #f)
KUCMA_AT(rdma_ucm_connect, id, KUCMA_CONNECT_ID);
KUCMA_AT(rdma_ucm_accept, uid, KUCMA_ACCEPT_UID);
KUCMA_AT(rdma_ucm_accept, conn_param, KUCMA_ACCEPT_PARAM);
KUCMA_AT(rdma_ucm_accept, id, KUCMA_ACCEPT_ID);
KUCMA_AT(rdma_ucm_conn_param, valid, KUCMA_PARAM_VALID);
KUCMA_AT(rdma_ucm_reject, private_data_len, KUCMA_REJECT_PDATA_LEN);
KUCMA_AT(rdma_ucm_reject, reason, KUCMA_REJECT_REASON);
KUCMA_AT(rdma_ucm_reject, private_data, KUCMA_REJECT_PDATA);
KUCMA_AT(rdma_ucm_init_qp_attr, id, KUCMA_IQA_ID);
KUCMA_AT(rdma_ucm_init_qp_attr, qp_state, KUCMA_IQA_STATE);
KUCMA_AT(rdma_ucm_set_option, id, KUCMA_SO_ID);
KUCMA_AT(rdma_ucm_set_option, level, KUCMA_SO_LEVEL);
KUCMA_AT(rdma_ucm_set_option, optname, KUCMA_SO_NAME);
KUCMA_AT(rdma_ucm_set_option, optlen, KUCMA_SO_OPTLEN);
KUCMA_AT(rdma_ucm_migrate_id, id, KUCMA_MIGRATE_ID);
KUCMA_AT(rdma_ucm_migrate_id, fd, KUCMA_MIGRATE_FD);
KUCMA_AT(rdma_ucm_event_resp, param, KUCMA_EV_PARAM);
KUCMA_AT(rdma_ucm_bind, addr, KUCMA_BIND_ADDR);
KUCMA_AT(rdma_ucm_resolve_addr, dst_addr, KUCMA_RA_DST);
_Static_assert(sizeof(struct rdma_ucm_connect) == KUCMA_CONNECT_LEN, "rdma_ucm_connect");
_Static_assert(sizeof(struct rdma_ucm_accept) == KUCMA_ACCEPT_LEN, "rdma_ucm_accept");
_Static_assert(sizeof(struct rdma_ucm_reject) == KUCMA_REJECT_LEN, "rdma_ucm_reject");
_Static_assert(sizeof(struct rdma_ucm_event_resp) == KUCMA_EVENT_LEN, "rdma_ucm_event_resp");

void kucma_init(struct kucma *u, const struct kcma_port *port, uint32_t cm_retries,
		uint8_t cm_timeout)
{
	memset(u, 0, sizeof(*u));
	kcma_init(&u->cma, port, cm_retries, cm_timeout);
	u->next_token = 1;
}

void kucma_fini(struct kucma *u)
{
	kcma_fini(&u->cma);
	memset(u->files, 0, sizeof(u->files));
	memset(u->ids, 0, sizeof(u->ids));
}

static struct kucma_file *kucma_file(struct kucma *u, uint32_t token)
{
	size_t i;

	for (i = 0; i < KUCMA_FILES; i++)
		if (u->files[i].used && u->files[i].token == token)
			return &u->files[i];
	return NULL;
}

int kucma_open(struct kucma *u, int cm_loaded)
{
	size_t i;

	/* rdma_ucm depends on ib_cm (via rdma_cm): without it there is no
	 * misc device to open (RDMACM.md 4). */
	if (!cm_loaded)
		return -ENOENT;
	for (i = 0; i < KUCMA_FILES; i++)
		if (!u->files[i].used) {
			memset(&u->files[i], 0, sizeof(u->files[i]));
			u->files[i].used = 1;
			u->files[i].token = u->next_token++;
			return (int)u->files[i].token;
		}
	return -EMFILE;
}

/* The file's events of id dropped (ucma_cleanup_ctx_events): the ids
 * its CONNECT_REQUESTs made go too, as nobody can fetch them. */
static void kucma_drop_events(struct kucma *u, struct kucma_file *f, uint32_t id)
{
	struct kucma_event keep[KUCMA_EVENTS];
	size_t i, n = 0;

	for (i = 0; i < f->n; i++) {
		const struct kucma_event *e = &f->ev[(f->head + i) % KUCMA_EVENTS];

		if (e->id != id) {
			keep[n++] = *e;
		} else if (e->child != id && u->ids[e->child].used && u->ids[e->child].pending) {
			kcma_destroy(&u->cma, e->child);
			u->ids[e->child].used = 0;
		}
	}
	memcpy(f->ev, keep, n * sizeof(keep[0]));
	f->head = 0;
	f->n = n;
}

void kucma_close(struct kucma *u, uint32_t token)
{
	struct kucma_file *f = kucma_file(u, token);
	size_t i;

	if (!f)
		return;
	for (i = 0; i < KUCMA_IDS; i++)
		if (u->ids[i].used && u->ids[i].file == token) {
			kcma_destroy(&u->cma, (uint32_t)i);
			u->ids[i].used = 0;
		}
	f->used = 0;
}

/* ucma_get_ctx: -ENOENT for no such id, -EINVAL for another file's. */
static int kucma_id(struct kucma *u, uint32_t token, uint32_t id, struct kucma_ctx **out)
{
	if (id >= KUCMA_IDS || !u->ids[id].used || u->ids[id].pending)
		return -ENOENT;
	if (u->ids[id].file != token)
		return -EINVAL;
	*out = &u->ids[id];
	return 0;
}

static int kucma_create_id(struct kucma *u, uint32_t token, const uint8_t *in, uint16_t out,
			   uint8_t *resp, size_t *rlen)
{
	uint16_t ps = abi_get16(in + KUCMA_CREATE_PS);
	uint8_t qpt;
	size_t i;

	if (out < 4)
		return -ENOSPC;
	/* ucma_get_qp_type */
	switch (ps) {
	case KUCMA_PS_TCP:
		qpt = KUCMA_QPT_RC;
		break;
	case KUCMA_PS_UDP:
	case KUCMA_PS_IPOIB:
		qpt = KUCMA_QPT_UD;
		break;
	case KUCMA_PS_IB:
		qpt = in[KUCMA_CREATE_QP_TYPE];
		break;
	default:
		return -EINVAL;
	}
	for (i = 0; i < KUCMA_IDS; i++)
		if (!u->ids[i].used) {
			memset(&u->ids[i], 0, sizeof(u->ids[i]));
			u->ids[i].used = 1;
			u->ids[i].file = token;
			u->ids[i].uid = abi_get64(in + KUCMA_CREATE_UID);
			kcma_create(&u->cma, (uint32_t)i, ps, qpt);
			abi_put32(resp, (uint32_t)i);
			*rlen = 4;
			return 0;
		}
	return -ENOMEM;
}

static int kucma_destroy_id(struct kucma *u, uint32_t token, const uint8_t *in, uint16_t out,
			    uint8_t *resp, size_t *rlen)
{
	struct kucma_ctx *id;
	uint32_t n = abi_get32(in + KUCMA_DESTROY_ID);
	int ret;

	if (out < 4)
		return -ENOSPC;
	if ((ret = kucma_id(u, token, n, &id)) < 0)
		return ret;
	kucma_drop_events(u, kucma_file(u, token), n);
	abi_put32(resp, id->events_reported);
	*rlen = 4;
	kcma_destroy(&u->cma, n);
	id->used = 0;
	return 0;
}

/* rdma_addr_size: 0 for a family rdma_cm does not take. */
static uint16_t kucma_addr_size(const uint8_t *sa)
{
	uint16_t family = abi_get16(sa);

	return family == KUCMA_AF_IB ? 48 : family == KUCMA_AF_INET ? 16 :
	       family == KUCMA_AF_INET6 ? 28 : 0;
}

static int kucma_bind(struct kucma *u, uint32_t token, const uint8_t *in)
{
	const uint8_t *sib = in + KUCMA_BIND_ADDR;
	uint16_t size = abi_get16(in + KUCMA_BIND_SIZE);
	uint32_t n = abi_get32(in + KUCMA_BIND_ID);
	struct kucma_ctx *id;
	int ret;

	/* ucma_bind: addr_size must be rdma_addr_size(addr). */
	if (!size || size != kucma_addr_size(sib))
		return -EINVAL;
	if ((ret = kucma_id(u, token, n, &id)) < 0)
		return ret;
	return kcma_bind(&u->cma, n, sib);
}

/* ucma_resolve_addr: the sizes checked, then rdma_resolve_addr (kcma). */
static int kucma_resolve_addr(struct kucma *u, uint32_t token, const uint8_t *in)
{
	const uint8_t *src = in + KUCMA_RA_SRC, *dst = in + KUCMA_RA_DST;
	uint16_t src_size = abi_get16(in + KUCMA_RA_SRC_SIZE);
	uint16_t dst_size = abi_get16(in + KUCMA_RA_DST_SIZE);
	uint32_t n = abi_get32(in + KUCMA_RA_ID);
	struct kucma_ctx *id;
	int ret;

	if ((src_size && src_size != kucma_addr_size(src)) || !dst_size ||
	    dst_size != kucma_addr_size(dst))
		return -EINVAL;
	if ((ret = kucma_id(u, token, n, &id)) < 0)
		return ret;
	return kcma_resolve_addr(&u->cma, n, src_size ? src : NULL, dst);
}

/* ucma_query: ADDR and GID (the same answer for AF_IB), PATH, from
 * kcma. */
static int kucma_query(struct kucma *u, uint32_t token, const uint8_t *in, uint16_t out,
		       uint8_t *resp, size_t *rlen)
{
	uint32_t n = abi_get32(in + KUCMA_QUERY_ID), opt = abi_get32(in + KUCMA_QUERY_OPTION);
	struct kucma_ctx *id;
	int ret;

	if ((ret = kucma_id(u, token, n, &id)) < 0)
		return ret;
	if (opt == KUCMA_QUERY_PATH) {
		if ((ret = kcma_query_path(&u->cma, n, out, resp)) < 0)
			return ret;
		*rlen = (size_t)ret;
		return 0;
	}
	if (opt != KUCMA_QUERY_ADDR && opt != KUCMA_QUERY_GID)
		return -ENOSYS;
	if (out < KCMA_QUERY_ADDR_LEN)
		return -ENOSPC;
	kcma_query_addr(&u->cma, n, resp);
	*rlen = KCMA_QUERY_ADDR_LEN;
	return 0;
}

static int kucma_resolve_route(struct kucma *u, uint32_t token, const uint8_t *in)
{
	uint32_t n = abi_get32(in + KUCMA_RR_ID);
	struct kucma_ctx *id;
	int ret;

	if ((ret = kucma_id(u, token, n, &id)) < 0)
		return ret;
	return kcma_resolve_route(&u->cma, n, abi_get32(in + KUCMA_RR_TIMEOUT));
}

/* ucma_listen: a backlog <= 0 or over max_backlog becomes max_backlog. */
static int kucma_listen(struct kucma *u, uint32_t token, const uint8_t *in)
{
	uint32_t n = abi_get32(in + KUCMA_LISTEN_ID);
	int32_t backlog = (int32_t)abi_get32(in + KUCMA_LISTEN_BACKLOG);
	struct kucma_ctx *id;
	int ret;

	if ((ret = kucma_id(u, token, n, &id)) < 0)
		return ret;
	if (backlog <= 0 || backlog > KUCMA_MAX_BACKLOG)
		backlog = KUCMA_MAX_BACKLOG;
	return kcma_listen(&u->cma, n, backlog);
}

static int kucma_get_event(struct kucma *u, uint32_t token, uint32_t flags, uint16_t out,
			   uint8_t *resp, size_t *rlen)
{
	struct kucma_file *f = kucma_file(u, token);
	struct kucma_event *e;
	struct kucma_ctx *id;

	if (out < KUCMA_EVENT_LEN)
		return -ENOSPC;
	if (!f->n)
		return flags & KUCMA_NONBLOCK ? -EAGAIN : KUCMA_PARK;
	e = &f->ev[f->head];
	memcpy(resp, e->b, KUCMA_EVENT_LEN);
	*rlen = KUCMA_EVENT_LEN;
	f->head = (f->head + 1) % KUCMA_EVENTS;
	f->n--;
	if (!kucma_id(u, token, e->id, &id))
		id->events_reported++;
	/* ucma_get_event: the new id gets its handle, the listener its
	 * backlog back */
	if (e->child != e->id && u->ids[e->child].used) {
		u->ids[e->child].pending = 0;
		kcma_fetched(&u->cma, e->id, e->child);
	}
	return 0;
}

static int kucma_connect(struct kucma *u, uint32_t token, const uint8_t *in, int64_t now)
{
	uint32_t n = abi_get32(in + KUCMA_CONNECT_ID);
	struct kucma_ctx *id;
	int ret;

	if ((ret = kucma_id(u, token, n, &id)) < 0)
		return ret;
	return kcma_connect(&u->cma, n, in + KUCMA_CONNECT_PARAM, now);
}

/* ucma_accept: with a valid param the passive side's REP and the id's
 * uid (its events reach the process from now on), else the active
 * side's RTU. */
static int kucma_accept(struct kucma *u, uint32_t token, const uint8_t *in, int64_t now)
{
	uint32_t n = abi_get32(in + KUCMA_ACCEPT_ID);
	const uint8_t *param = in + KUCMA_ACCEPT_PARAM;
	struct kucma_ctx *id;
	int ret;

	if ((ret = kucma_id(u, token, n, &id)) < 0)
		return ret;
	if (!param[KUCMA_PARAM_VALID])
		return kcma_accept(&u->cma, n, NULL, now);
	id->uid = abi_get64(in + KUCMA_ACCEPT_UID);
	return kcma_accept(&u->cma, n, param, now);
}

static int kucma_reject(struct kucma *u, uint32_t token, const uint8_t *in, int64_t now)
{
	uint32_t n = abi_get32(in + KUCMA_REJECT_ID);
	struct kucma_ctx *id;
	int ret;

	if ((ret = kucma_id(u, token, n, &id)) < 0)
		return ret;
	return kcma_reject(&u->cma, n, in[KUCMA_REJECT_REASON], in + KUCMA_REJECT_PDATA,
			   in[KUCMA_REJECT_PDATA_LEN], now);
}

static int kucma_disconnect(struct kucma *u, uint32_t token, const uint8_t *in, int64_t now)
{
	uint32_t n = abi_get32(in + KUCMA_DISCONNECT_ID);
	struct kucma_ctx *id;
	int ret;

	if ((ret = kucma_id(u, token, n, &id)) < 0)
		return ret;
	return kcma_disconnect(&u->cma, n, now);
}

static int kucma_init_qp_attr(struct kucma *u, uint32_t token, const uint8_t *in, uint16_t out,
			      uint8_t *resp, size_t *rlen)
{
	uint32_t n = abi_get32(in + KUCMA_IQA_ID);
	struct kucma_ctx *id;
	int ret;

	if (out < KCMA_QP_ATTR_LEN)
		return -ENOSPC;
	if ((ret = kucma_id(u, token, n, &id)) < 0)
		return ret;
	if ((ret = kcma_init_qp_attr(&u->cma, n, abi_get32(in + KUCMA_IQA_STATE), resp)) < 0)
		return ret;
	*rlen = KCMA_QP_ATTR_LEN;
	return 0;
}

/* ucma_set_option: level RDMA_OPTION_ID takes TOS (u8), REUSEADDR,
 * AFONLY (int) and ACK_TIMEOUT (u8), which change nothing on this node
 * (no IP, one id per service ID); RDMA_OPTION_IB's IB_PATH only ibacm's
 * routes use: -ENOSYS as any other. optlen is what the shim sent. */
static int kucma_set_option(struct kucma *u, uint32_t token, const uint8_t *in, size_t len)
{
	uint32_t n = abi_get32(in + KUCMA_SO_ID), level = abi_get32(in + KUCMA_SO_LEVEL);
	uint32_t name = abi_get32(in + KUCMA_SO_NAME), optlen = abi_get32(in + KUCMA_SO_OPTLEN);
	struct kucma_ctx *id;
	int ret;

	if (optlen > len - KUCMA_SO_LEN)
		return -EFAULT; /* the shim could not read optval */
	if ((ret = kucma_id(u, token, n, &id)) < 0)
		return ret;
	if (level != 0)
		return -ENOSYS;
	switch (name) {
	case 0: /* RDMA_OPTION_ID_TOS */
	case 3: /* RDMA_OPTION_ID_ACK_TIMEOUT */
		return optlen == 1 ? 0 : -EINVAL;
	case 1: /* RDMA_OPTION_ID_REUSEADDR */
	case 2: /* RDMA_OPTION_ID_AFONLY */
		return optlen == 4 ? 0 : -EINVAL;
	default:
		return -ENOSYS;
	}
}

/* ucma_migrate_id, written on the new file: id of the file whose token
 * is cmd.fd (the shim's translation; 0 = not an rdma_cm fd: -EINVAL)
 * moves here with its events. */
static int kucma_migrate_id(struct kucma *u, uint32_t token, const uint8_t *in, uint16_t out,
			    uint8_t *resp, size_t *rlen)
{
	uint32_t n = abi_get32(in + KUCMA_MIGRATE_ID), from = abi_get32(in + KUCMA_MIGRATE_FD);
	struct kucma_file *src = kucma_file(u, from), *dst = kucma_file(u, token);
	struct kucma_ctx *id;
	size_t i, k = 0;
	int was_empty = !dst->n, ret;

	if (out < 4)
		return -ENOSPC;
	if (!src)
		return -EINVAL;
	if ((ret = kucma_id(u, from, n, &id)) < 0)
		return ret;
	if (src != dst) {
		/* ucma_move_events: the id's events, in order, to the new list */
		struct kucma_event keep[KUCMA_EVENTS];

		for (i = 0; i < src->n; i++) {
			const struct kucma_event *e = &src->ev[(src->head + i) % KUCMA_EVENTS];

			if (e->id != n)
				keep[k++] = *e;
			else if (dst->n < KUCMA_EVENTS)
				dst->ev[(dst->head + dst->n++) % KUCMA_EVENTS] = *e;
		}
		memcpy(src->ev, keep, k * sizeof(keep[0]));
		src->head = 0;
		src->n = k;
		for (i = 0; i < KUCMA_IDS; i++) /* the children it made go along */
			if (u->ids[i].used && u->ids[i].pending && u->ids[i].file == from &&
			    u->cma.ids[i].listener == n)
				u->ids[i].file = token;
		id->file = token;
		if (was_empty && dst->n)
			u->ring = token;
	}
	abi_put32(resp, id->events_reported);
	*rlen = 4;
	return 0;
}

int kucma_write(struct kucma *u, uint32_t token, uint32_t flags, const uint8_t *buf, size_t len,
		uint8_t *resp, size_t *resp_len, int64_t now)
{
	/* The commands' `in` sizes; 0: no handler here (-ENOSYS). */
	static const uint16_t in_len[KUCMA_CMD_JOIN_MCAST + 1] = {
		[KUCMA_CMD_CREATE_ID] = KUCMA_CREATE_LEN,
		[KUCMA_CMD_DESTROY_ID] = KUCMA_DESTROY_LEN,
		[KUCMA_CMD_RESOLVE_ROUTE] = KUCMA_RR_LEN,
		[KUCMA_CMD_CONNECT] = KUCMA_CONNECT_LEN,
		[KUCMA_CMD_LISTEN] = KUCMA_LISTEN_LEN,
		[KUCMA_CMD_ACCEPT] = KUCMA_ACCEPT_LEN,
		[KUCMA_CMD_REJECT] = KUCMA_REJECT_LEN,
		[KUCMA_CMD_DISCONNECT] = KUCMA_DISCONNECT_LEN,
		[KUCMA_CMD_INIT_QP_ATTR] = KUCMA_IQA_LEN,
		[KUCMA_CMD_GET_EVENT] = 8,
		[KUCMA_CMD_SET_OPTION] = KUCMA_SO_LEN,
		[KUCMA_CMD_MIGRATE_ID] = KUCMA_MIGRATE_LEN,
		[KUCMA_CMD_QUERY] = KUCMA_QUERY_LEN,
		[KUCMA_CMD_BIND] = KUCMA_BIND_LEN,
		[KUCMA_CMD_RESOLVE_ADDR] = KUCMA_RA_LEN,
	};
	uint32_t cmd;
	uint16_t in, out;
	const uint8_t *p = buf + KUCMA_HDR_LEN;
	int ret;

	*resp_len = 0;
	if (!kucma_file(u, token))
		return -EBADF;
	/* ucma_write's checks, in its order. */
	if (len < KUCMA_HDR_LEN)
		return -EINVAL;
	cmd = abi_get32(buf + KUCMA_HDR_CMD);
	in = abi_get16(buf + KUCMA_HDR_IN);
	out = abi_get16(buf + KUCMA_HDR_OUT);
	if (cmd > KUCMA_CMD_JOIN_MCAST || (size_t)in + KUCMA_HDR_LEN > len)
		return -EINVAL;
	if (!in_len[cmd])
		return -ENOSYS;
	/* The kernel copies sizeof(cmd) from the caller whatever `in`
	 * says; here only `in` bytes came: a shorter one is refused. */
	if (in < in_len[cmd])
		return -EINVAL;
	switch (cmd) {
	case KUCMA_CMD_CREATE_ID:
		ret = kucma_create_id(u, token, p, out, resp, resp_len);
		break;
	case KUCMA_CMD_DESTROY_ID:
		ret = kucma_destroy_id(u, token, p, out, resp, resp_len);
		break;
	case KUCMA_CMD_GET_EVENT:
		ret = kucma_get_event(u, token, flags, out, resp, resp_len);
		break;
	case KUCMA_CMD_QUERY:
		ret = kucma_query(u, token, p, out, resp, resp_len);
		break;
	case KUCMA_CMD_RESOLVE_ADDR:
		ret = kucma_resolve_addr(u, token, p);
		break;
	case KUCMA_CMD_RESOLVE_ROUTE:
		ret = kucma_resolve_route(u, token, p);
		break;
	case KUCMA_CMD_LISTEN:
		ret = kucma_listen(u, token, p);
		break;
	case KUCMA_CMD_CONNECT:
		ret = kucma_connect(u, token, p, now);
		break;
	case KUCMA_CMD_ACCEPT:
		ret = kucma_accept(u, token, p, now);
		break;
	case KUCMA_CMD_REJECT:
		ret = kucma_reject(u, token, p, now);
		break;
	case KUCMA_CMD_DISCONNECT:
		ret = kucma_disconnect(u, token, p, now);
		break;
	case KUCMA_CMD_INIT_QP_ATTR:
		ret = kucma_init_qp_attr(u, token, p, out, resp, resp_len);
		break;
	case KUCMA_CMD_SET_OPTION:
		ret = kucma_set_option(u, token, p, len - KUCMA_HDR_LEN);
		break;
	case KUCMA_CMD_MIGRATE_ID:
		ret = kucma_migrate_id(u, token, p, out, resp, resp_len);
		break;
	default:
		ret = kucma_bind(u, token, p);
		break;
	}
	if (ret < 0) {
		*resp_len = 0;
		return ret;
	}
	return (int)len;
}

int kucma_queue_work(struct kucma *u, const struct kcma_work *w)
{
	struct kucma_file *f;
	struct kucma_event *e;
	uint32_t n = w->id;
	int was_empty;

	if (n >= KUCMA_IDS || !u->ids[n].used || w->child >= KUCMA_IDS)
		return -ENOENT;
	/* ucma_event_handler: an id nobody accepted has no uid yet */
	if (!u->ids[n].uid && w->event != KCMA_EV_CONNECT_REQUEST)
		return 0;
	f = kucma_file(u, u->ids[n].file);
	if (f->n == KUCMA_EVENTS) {
		/* A full list (a process that fetches nothing, a peer's
		 * REQ flood): a new id nobody could fetch is refused as
		 * past the backlog -- cma_ib_req_handler fails, cm_req_handler
		 * destroys the cm_id (REJ) -- not kept for ever. */
		if (w->child != n) {
			kcma_fetched(&u->cma, n, w->child);
			kcma_destroy(&u->cma, w->child);
		}
		return -ENOBUFS;
	}
	if (w->child != n) { /* ucma_connect_event_handler: the new context */
		memset(&u->ids[w->child], 0, sizeof(u->ids[0]));
		u->ids[w->child].used = u->ids[w->child].pending = 1;
		u->ids[w->child].file = u->ids[n].file;
	}
	was_empty = !f->n;
	e = &f->ev[(f->head + f->n) % KUCMA_EVENTS];
	memset(e, 0, sizeof(*e));
	e->id = n;
	e->child = w->child;
	abi_put64(e->b + KUCMA_EV_UID, u->ids[n].uid);
	abi_put32(e->b + KUCMA_EV_ID, w->child);
	abi_put32(e->b + KUCMA_EV_EVENT, w->event);
	abi_put32(e->b + KUCMA_EV_STATUS, (uint32_t)w->status);
	if (w->has_param)
		memcpy(e->b + KUCMA_EV_PARAM, w->param, KCMA_EV_PARAM_LEN);
	f->n++;
	return was_empty;
}

int kucma_queue(struct kucma *u, uint32_t n, uint32_t event, int32_t status)
{
	struct kcma_work w;

	memset(&w, 0, sizeof(w));
	w.id = w.child = n;
	w.event = event;
	w.status = status;
	return kucma_queue_work(u, &w);
}

int kucma_ready(const struct kucma *u, uint32_t token)
{
	size_t i;

	for (i = 0; i < KUCMA_FILES; i++)
		if (u->files[i].used && u->files[i].token == token)
			return u->files[i].n > 0;
	return 0;
}
