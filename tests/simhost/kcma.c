/* The simulated node's rdma_cm ids: see kcma.h. Integers of the ABI are
 * in the process's (host) order except where the kernel stores network
 * order (node_guid, pkey, sib_pkey, sib_sid, sib_sid_mask). */
#include <errno.h>
#include <string.h>

#include "kcma.h"
#include "wire.h"

/* struct sockaddr_ib (48) */
enum {
	KCMA_SIB_FAMILY = 0,
	KCMA_SIB_PKEY = 2,
	KCMA_SIB_ADDR = 8,
	KCMA_SIB_SID = 24,
	KCMA_SIB_SID_MASK = 32,
};
/* struct rdma_ucm_query_addr_resp (280) */
enum {
	KCMA_QA_NODE_GUID = 0,
	KCMA_QA_PORT_NUM = 8,
	KCMA_QA_PKEY = 10,
	KCMA_QA_SRC_SIZE = 12,
	KCMA_QA_DST_SIZE = 14,
	KCMA_QA_SRC = 16,
	KCMA_QA_DST = 144,
	KCMA_QA_IBDEV_INDEX = 272,
};
#define KCMA_AF_IB 27
/* enum rdma_ucm_port_space */
#define KCMA_PS_IB 0x013F
#define KCMA_PS_TCP 0x0106
#define KCMA_PS_UDP 0x0111
/* cma.c: the service ID's port-space part (RDMA_IB_IP_PS_*). */
#define KCMA_SID_PS_MASK 0xFFFFFFFFFFFF0000ull
#define KCMA_SID_PORT_FIRST 32768 /* ip_local_port_range's default start */

/* The ABI's host-order integers (the process is this machine). */
static uint16_t get16h(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

static void put16h(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, 2);
}

void kcma_init(struct kcma *c, const struct kcma_port *port)
{
	memset(c, 0, sizeof(*c));
	c->port = *port;
	c->next_port = KCMA_SID_PORT_FIRST;
}

void kcma_fini(struct kcma *c)
{
	memset(c->ids, 0, sizeof(c->ids));
	c->wn = 0;
}

void kcma_create(struct kcma *c, uint32_t id, uint16_t ps, uint8_t qp_type)
{
	struct kcma_id *d = &c->ids[id];

	memset(d, 0, sizeof(*d));
	d->used = 1;
	d->ps = ps;
	d->qp_type = qp_type;
}

static void kcma_work_put(struct kcma *c, uint32_t id, uint32_t event, int32_t status)
{
	struct kcma_work *w;

	/* One event per command at most, drained after each: never full
	 * unless the caller stops draining. */
	if (c->wn == KCMA_WORK)
		return;
	w = &c->work[(c->whead + c->wn++) % KCMA_WORK];
	w->id = id;
	w->event = event;
	w->status = status;
}

int kcma_work(struct kcma *c, struct kcma_work *w)
{
	if (!c->wn)
		return 0;
	*w = c->work[c->whead];
	c->whead = (c->whead + 1) % KCMA_WORK;
	c->wn--;
	return 1;
}

void kcma_destroy(struct kcma *c, uint32_t id)
{
	struct kcma_work keep[KCMA_WORK];
	size_t i, n = 0;

	for (i = 0; i < c->wn; i++) {
		const struct kcma_work *w = &c->work[(c->whead + i) % KCMA_WORK];

		if (w->id != id)
			keep[n++] = *w;
	}
	memcpy(c->work, keep, n * sizeof(keep[0]));
	c->whead = 0;
	c->wn = n;
	c->ids[id].used = 0;
}

/* cma.c cma_select_ib_ps: the port space a service ID names, given the
 * id's; 0 when none (rdma_bind_addr fails -EPROTONOSUPPORT). */
static uint64_t kcma_sid_ps(uint16_t ps, uint64_t sid, uint64_t mask)
{
	mask &= KCMA_SID_PS_MASK;
	sid &= mask;
	if (ps == KCMA_PS_IB && sid == ((uint64_t)KCMA_PS_IB << 16 & mask))
		return (uint64_t)KCMA_PS_IB << 16;
	if ((ps == KCMA_PS_IB || ps == KCMA_PS_TCP) && sid == ((uint64_t)KCMA_PS_TCP << 16 & mask))
		return (uint64_t)KCMA_PS_TCP << 16;
	if ((ps == KCMA_PS_IB || ps == KCMA_PS_UDP) && sid == ((uint64_t)KCMA_PS_UDP << 16 & mask))
		return (uint64_t)KCMA_PS_UDP << 16;
	return 0;
}

/* Whether a bound id holds service ID sid (cma_use_port without
 * REUSEADDR: any holder conflicts). */
static int kcma_sid_used(const struct kcma *c, uint64_t sid)
{
	size_t i;

	for (i = 0; i < KCMA_IDS; i++)
		if (c->ids[i].used && c->ids[i].bound &&
		    wire_get64(c->ids[i].src + KCMA_SIB_SID) == sid)
			return 1;
	return 0;
}

int kcma_bind(struct kcma *c, uint32_t n, const uint8_t *sib)
{
	static const uint8_t any[16];
	struct kcma_id *id = &c->ids[n];
	uint16_t family = get16h(sib);
	uint64_t ps, port, sid, mask;
	int dev = 0;
	unsigned tries;

	if (id->bound)
		return -EINVAL; /* rdma_bind_addr: only from RDMA_CM_IDLE */
	if (family != KCMA_AF_IB)
		return -EADDRNOTAVAIL; /* the node has no IP address for rdma_cm yet */
	/* cma_translate_ib + cma_acquire_dev_by_src_ip: a GID names the
	 * device that has it; :: binds to none. */
	if (memcmp(sib + KCMA_SIB_ADDR, any, 16)) {
		if (memcmp(sib + KCMA_SIB_ADDR, c->port.gid, 16))
			return -ENODEV;
		dev = 1;
	}
	sid = wire_get64(sib + KCMA_SIB_SID);
	mask = wire_get64(sib + KCMA_SIB_SID_MASK);
	if (!(ps = kcma_sid_ps(id->ps, sid, mask)))
		return -EPROTONOSUPPORT;
	port = sid & 0xffff;
	if (port) {
		if (kcma_sid_used(c, ps | port))
			return -EADDRINUSE;
	} else { /* cma_alloc_any_port */
		for (tries = 0; tries < 0x10000 - KCMA_SID_PORT_FIRST; tries++) {
			port = c->next_port++;
			if (c->next_port < KCMA_SID_PORT_FIRST)
				c->next_port = KCMA_SID_PORT_FIRST;
			if (!kcma_sid_used(c, ps | port))
				break;
		}
		if (tries == 0x10000 - KCMA_SID_PORT_FIRST)
			return -EADDRNOTAVAIL;
	}
	memcpy(id->src, sib, KCMA_SIB_LEN);
	wire_put64(id->src + KCMA_SIB_SID, ps | port);
	wire_put64(id->src + KCMA_SIB_SID_MASK, KCMA_SID_PS_MASK | mask);
	id->bound = 1;
	id->dev = dev;
	return 0;
}

/* rdma_resolve_addr for AF_IB (cma.c resolve_prepare_src,
 * cma_resolve_ib_addr): an IDLE id is bound first (cma_bind_addr: the
 * destination's family and P_Key, any GID, an ephemeral service ID);
 * the destination must share the port's subnet prefix and P_Key
 * (cma_resolve_ib_dev, else -ENODEV); the source becomes the port's
 * GID. No ARP on IB: ADDR_RESOLVED is queued at once
 * (enqueue_resolve_addr_work). */
int kcma_resolve_addr(struct kcma *c, uint32_t n, const uint8_t *src, const uint8_t *dst)
{
	struct kcma_id *id = &c->ids[n];
	uint8_t any[KCMA_SIB_LEN];
	int ret;

	if (id->resolved)
		return -EINVAL; /* not ADDR_BOUND any more */
	if (get16h(dst) != KCMA_AF_IB)
		return -EADDRNOTAVAIL; /* no IP addresses for rdma_cm yet */
	if (!id->bound) {
		if (!src || !get16h(src)) {
			memset(any, 0, sizeof(any));
			put16h(any + KCMA_SIB_FAMILY, KCMA_AF_IB);
			memcpy(any + KCMA_SIB_PKEY, dst + KCMA_SIB_PKEY, 2);
			src = any;
		}
		if ((ret = kcma_bind(c, n, src)) < 0)
			return ret;
	}
	if (get16h(id->src) != KCMA_AF_IB)
		return -EINVAL;
	/* cma_resolve_ib_dev: a GID of the same subnet on a port whose
	 * P_Key table has the destination's P_Key (full member or not). */
	if (memcmp(dst + KCMA_SIB_ADDR, c->port.gid, 8) ||
	    (wire_get16(dst + KCMA_SIB_PKEY) & 0x7fff) != (c->port.pkey & 0x7fff))
		return -ENODEV;
	memcpy(id->dst, dst, KCMA_SIB_LEN);
	memcpy(id->src + KCMA_SIB_ADDR, c->port.gid, 16);
	id->dev = 1;
	id->resolved = 1;
	kcma_work_put(c, n, KCMA_EV_ADDR_RESOLVED, 0);
	return 0;
}

/* ucma_query_addr, ucma_query_gid: for AF_IB both copy the id's
 * sockaddr_ib (the destination: the family only until resolved), and
 * the device's fields when the id has one (ucma_query_device_addr). */
void kcma_query_addr(const struct kcma *c, uint32_t n, uint8_t *resp)
{
	const struct kcma_id *id = &c->ids[n];

	memset(resp, 0, KCMA_QUERY_ADDR_LEN);
	if (id->dev) {
		wire_put64(resp + KCMA_QA_NODE_GUID, c->port.node_guid);
		resp[KCMA_QA_PORT_NUM] = 1;
		memcpy(resp + KCMA_QA_PKEY, id->src + KCMA_SIB_PKEY, 2);
		memset(resp + KCMA_QA_IBDEV_INDEX, 0, 4);
	}
	if (id->bound) {
		put16h(resp + KCMA_QA_SRC_SIZE, KCMA_SIB_LEN);
		put16h(resp + KCMA_QA_DST_SIZE, KCMA_SIB_LEN);
		memcpy(resp + KCMA_QA_SRC, id->src, KCMA_SIB_LEN);
		if (id->resolved)
			memcpy(resp + KCMA_QA_DST, id->dst, KCMA_SIB_LEN);
		else
			put16h(resp + KCMA_QA_DST + KCMA_SIB_FAMILY, KCMA_AF_IB);
	}
}
