/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/umad.h>

#include "log.h"
#include "mad.h"
#include "mono.h"
#include "mport.h"
#include "wire.h"

struct mport {
	int fd;
	char ca[UMAD_CA_NAME_LEN];
	int portnum;
	uint32_t next_tid;
	uint8_t *rbuf; /* umad header + MAD, grown for RMPP tables */
	size_t rbuf_len;
	mport_answer_fn answer;
	void *answer_ctx;
	const uint8_t *cur_req;   /* in the answer function: the request */
	uint16_t last_slid;       /* source LID of the last MAD received */
	uint16_t pkey_index;      /* our requests' (mport_default_pkey_index) */
	int cur_agent;
	uint64_t answered;
	mport_expired_fn *expired;  /* mport_on_expired */
	void *expired_ctx;
	/* Responses an exchange received for another request (mport_keep_
	 * strays): a ring, oldest first, bounded in count and bytes. */
	struct mport_stray {
		uint16_t slid;
		uint8_t *mad;
		size_t len;
	} *strays;
	unsigned stray_cap, stray_first, nstrays;
	size_t stray_bytes;
};

/* A stray answer larger than this, or past it in all, is dropped (its
 * request is sent again when its time is up). */
#define STRAY_BYTES_MAX (4u << 20)

#define RBUF_INITIAL 8192

int mport_open(struct mport **out, const char *ca, int portnum)
{
	struct mport *p;
	umad_port_t port;
	int ret;

	if (umad_init() < 0)
		return -ENODEV;
	ret = umad_get_port(ca, portnum, &port);
	if (ret < 0)
		return ret == -1 ? -ENODEV : ret;
	p = calloc(1, sizeof(*p));
	if (!p) {
		umad_release_port(&port);
		return -ENOMEM;
	}
	memcpy(p->ca, port.ca_name, sizeof(p->ca));
	p->portnum = port.portnum;
	p->pkey_index = mport_default_pkey_index(port.pkeys, port.pkeys_size);
	umad_release_port(&port);

	p->fd = umad_open_port(p->ca, p->portnum);
	if (p->fd < 0) {
		ret = p->fd == -1 ? -ENODEV : p->fd;
		free(p);
		return ret;
	}
	/* libibumad opens the device without O_CLOEXEC: a program that
	 * execs would hand its agents' MADs to the new image. Best effort:
	 * without the flag the port works the same. */
	(void)fcntl(p->fd, F_SETFD, FD_CLOEXEC);
	p->rbuf_len = umad_size() + RBUF_INITIAL;
	p->rbuf = malloc(p->rbuf_len);
	if (!p->rbuf) {
		umad_close_port(p->fd);
		free(p);
		return -ENOMEM;
	}
	/* Spread TIDs of concurrent processes (a child of fork() opening its
	 * own port too); only the low 32 bits are ours (ib_umad writes the
	 * agent's hi_tid into the high ones). */
	p->next_tid = (uint32_t)getpid() << 16 ^ (uint32_t)mono_ms();
	*out = p;
	return 0;
}

int mport_open_guid(struct mport **out, uint64_t guid)
{
	char names[UMAD_MAX_DEVICES][UMAD_CA_NAME_LEN];
	int n, i, k, np;

	if (umad_init() < 0)
		return -ENODEV;
	n = umad_get_cas_names(names, UMAD_MAX_DEVICES);
	for (i = 0; i < n; i++) {
		__be64 guids[UMAD_MAX_PORTS + 1];

		np = umad_get_ca_portguids(names[i], guids, UMAD_MAX_PORTS + 1);
		for (k = 0; k < np; k++) {
			uint8_t b[8];

			memcpy(b, &guids[k], 8);
			if (guid && wire_get64(b) == guid)
				return mport_open(out, names[i], k);
		}
	}
	return -ENODEV;
}

void mport_close(struct mport *p)
{
	if (!p)
		return;
	umad_close_port(p->fd);
	while (p->nstrays) {
		free(p->strays[p->stray_first].mad);
		p->stray_first = (p->stray_first + 1) % p->stray_cap;
		p->nstrays--;
	}
	free(p->strays);
	free(p->rbuf);
	free(p);
}

int mport_keep_strays(struct mport *p, unsigned n)
{
	if (!n)
		return -EINVAL;
	if (p->strays)
		return 0;
	p->strays = calloc(n, sizeof(*p->strays));
	if (!p->strays)
		return -ENOMEM;
	p->stray_cap = n;
	return 0;
}

static void stray_drop_first(struct mport *p)
{
	struct mport_stray *s = &p->strays[p->stray_first];

	p->stray_bytes -= s->len;
	free(s->mad);
	s->mad = NULL;
	p->stray_first = (p->stray_first + 1) % p->stray_cap;
	p->nstrays--;
}

/* The response in rbuf (len bytes) to someone else's request: kept for
 * their mport_wait, the oldest giving way. */
static void stray_keep(struct mport *p, size_t len)
{
	struct mport_stray *s;

	if (!p->stray_cap || len > STRAY_BYTES_MAX)
		return;
	while (p->nstrays && (p->nstrays == p->stray_cap ||
			      p->stray_bytes + len > STRAY_BYTES_MAX))
		stray_drop_first(p);
	s = &p->strays[(p->stray_first + p->nstrays) % p->stray_cap];
	s->mad = malloc(len);
	if (!s->mad)
		return;
	memcpy(s->mad, umad_get_mad(p->rbuf), len);
	s->len = len;
	s->slid = p->last_slid;
	p->stray_bytes += len;
	p->nstrays++;
}

/* The first kept stray match() accepts, taken out of the ring. */
static int stray_take(struct mport *p, mport_match_fn match, void *ctx, uint8_t **mad,
		      size_t *mad_len)
{
	unsigned i, k;

	for (i = 0; i < p->nstrays; i++) {
		struct mport_stray *s = &p->strays[(p->stray_first + i) % p->stray_cap];

		if (!match(s->mad, s->len, ctx))
			continue;
		*mad = s->mad;
		*mad_len = s->len;
		p->last_slid = s->slid;
		p->stray_bytes -= s->len;
		/* Close the gap: the ones before it move up by one. */
		for (k = i; k > 0; k--)
			p->strays[(p->stray_first + k) % p->stray_cap] =
				p->strays[(p->stray_first + k - 1) % p->stray_cap];
		p->strays[p->stray_first].mad = NULL;
		p->stray_first = (p->stray_first + 1) % p->stray_cap;
		p->nstrays--;
		return 1;
	}
	return 0;
}

/* core/device.c ib_find_pkey(IB_DEFAULT_PKEY_FULL), as sa_query.c
 * update_sm_ah picks the kernel's own SA queries' index. */
uint16_t mport_default_pkey_index(const uint16_t *pkeys, unsigned n)
{
	unsigned i;
	int limited = -1;

	for (i = 0; pkeys && i < n; i++) {
		if ((pkeys[i] & 0x7fff) != 0x7fff)
			continue;
		if (pkeys[i] & 0x8000)
			return (uint16_t)i;
		if (limited < 0)
			limited = (int)i;
	}
	return limited >= 0 ? (uint16_t)limited : 0;
}

int mport_query(struct mport *p, struct mport_info *info)
{
	umad_port_t port;
	uint64_t prefix, guid;
	int ret;

	ret = umad_get_port(p->ca, p->portnum, &port);
	if (ret < 0)
		return ret == -1 ? -ENODEV : ret;
	memset(info, 0, sizeof(*info));
	memcpy(info->ca, p->ca, sizeof(info->ca) < sizeof(p->ca) ?
	       sizeof(info->ca) : sizeof(p->ca));
	info->ca[sizeof(info->ca) - 1] = '\0';
	info->portnum = p->portnum;
	info->lid = (uint16_t)port.base_lid;
	info->lmc = (uint8_t)port.lmc;
	info->sm_lid = (uint16_t)port.sm_lid;
	info->sm_sl = (uint8_t)port.sm_sl;
	info->state = (int)port.state;
	/* umad_port_t carries network-order values: store them as wire bytes. */
	memcpy(&prefix, &port.gid_prefix, 8);
	memcpy(&guid, &port.port_guid, 8);
	memcpy(info->gid, &prefix, 8);
	memcpy(info->gid + 8, &guid, 8);
	info->port_guid = wire_get64(info->gid + 8);
	p->pkey_index = mport_default_pkey_index(port.pkeys, port.pkeys_size);
	umad_release_port(&port);
	return 0;
}

int mport_register(struct mport *p, uint8_t mgmt_class, uint8_t class_version,
		   uint8_t rmpp_version)
{
	int id = umad_register(p->fd, mgmt_class, class_version, rmpp_version,
			       NULL);

	return id < 0 ? (id == -1 ? -EIO : id) : id;
}

int mport_register_serve(struct mport *p, uint8_t mgmt_class, uint8_t class_version,
			 uint8_t method)
{
	long mask[16 / sizeof(long)] = { 0 };
	int id;

	mask[method / (8 * sizeof(long))] |= 1L << (method % (8 * sizeof(long)));
	id = umad_register(p->fd, mgmt_class, class_version, 0, mask);
	return id < 0 ? (id == -1 ? -EIO : id) : id;
}

int mport_register_oui(struct mport *p, uint8_t mgmt_class, uint8_t class_version,
		       uint8_t rmpp_version, uint32_t oui, int serve)
{
	/* umad_register2: umad_register_oui registers class version 1 only. */
	struct umad_reg_attr a = {
		.mgmt_class = mgmt_class, .mgmt_class_version = class_version,
		.oui = oui, .rmpp_version = rmpp_version,
	};
	uint32_t id;
	int ret;

	if (serve)
		a.method_mask[0] = 1ULL << MAD_METHOD_GET;
	ret = umad_register2(p->fd, &a, &id);
	return ret ? (ret > 0 ? -ret : (ret == -1 ? -EIO : ret)) : (int)id;
}

void mport_set_responder(struct mport *p, mport_answer_fn fn, void *ctx)
{
	p->answer = fn;
	p->answer_ctx = ctx;
}

static int mport_recv(struct mport *p, int timeout_ms, size_t *mad_len);

/* The retries of a send in its umad header. The kernel spends them on a
 * kernel-RMPP transfer only as its segments go unACKed (mad_rmpp.c
 * ib_retry_rmpp resends from the last ACK, each wait at most 2 s:
 * send_next_seg; process_rmpp_ack gives them back on progress); with
 * none, one lost segment or ACK ends the transfer. A MAD without RMPP
 * gets none: a response is not resent, and a request's retries are
 * ours (a fresh TID each, mport_rpc). OpenSM gives its answers its
 * transaction_retries (osm_vendor_ibumad.c osm_vendor_send), 3 by
 * default: the same here. */
#define MPORT_RMPP_RETRIES 3

static int send_retries(const uint8_t *mad)
{
	uint8_t c = mad[MAD_OFF_MGMT_CLASS];
	/* mad.h ib_is_mad_class_rmpp: SA, DevMgt, DevAdm, BIS, vendor 2 */
	int rmpp_class = c == 0x03 || c == 0x06 || c == 0x10 || c == 0x12 ||
			 (c >= 0x30 && c <= 0x4f);

	return rmpp_class && (mad[MAD_RMPP_OFF_FLAGS] & MAD_RMPP_FLAG_ACTIVE) && mad[MAD_RMPP_OFF_VERSION]
		       ? MPORT_RMPP_RETRIES
		       : 0;
}

/* Answer the request in p->rbuf through the agent it came in on, to the
 * address it came from. */
static void mport_reply(struct mport *p, int agent, size_t len)
{
	size_t cap = len > MAD_SIZE ? len : MAD_SIZE, n;
	uint8_t *req, *sbuf;

	if (!p->answer)
		return;
	/* The responder may do MAD exchanges of its own, which reuse rbuf:
	 * keep the request and where it came from. */
	req = malloc(umad_size() + len);
	sbuf = calloc(1, umad_size() + cap);
	if (!req || !sbuf) {
		free(req);
		free(sbuf);
		return;
	}
	memcpy(req, p->rbuf, umad_size() + len);
	p->cur_req = req;
	p->cur_agent = agent;
	n = p->answer(umad_get_mad(req), len, umad_get_mad(sbuf), cap, p->answer_ctx);
	p->cur_req = NULL;
	if (n) {
		memcpy(sbuf, req, umad_size());
		if (umad_send(p->fd, agent, sbuf, (int)n, 0, send_retries(umad_get_mad(sbuf))) < 0)
			log_debug("cannot send an answer: %s", strerror(errno));
		else
			p->answered++;
	}
	free(req);
	free(sbuf);
}

int mport_requester(const struct mport *p, struct mport_held *h)
{
	const ib_mad_addr_t *addr;

	if (!p->cur_req || (size_t)umad_size() > sizeof(h->umad))
		return -EINVAL;
	memset(h, 0, sizeof(*h));
	memcpy(h->umad, p->cur_req, (size_t)umad_size());
	h->agent = p->cur_agent;
	addr = umad_get_mad_addr((void *)p->cur_req);
	h->slid = ntohs(addr->lid);
	return 0;
}

/* Only the fd is shared with the thread serving the port: a write of
 * one whole MAD, which the kernel takes atomically. */
int mport_answer_held(struct mport *p, const struct mport_held *h,
		      const uint8_t *mad, size_t len)
{
	uint8_t *sbuf = calloc(1, umad_size() + len);
	int ret = 0;

	if (!sbuf)
		return -ENOMEM;
	memcpy(sbuf, h->umad, umad_size());
	memcpy(umad_get_mad(sbuf), mad, len);
	if (umad_send(p->fd, h->agent, sbuf, (int)len, 0, send_retries(mad)) < 0)
		ret = -EIO;
	free(sbuf);
	return ret;
}

static int send_one(struct mport *p, int agent, const struct mport_dest *dst,
		    const uint8_t *mad, size_t len, unsigned timeout_ms);

int mport_send(struct mport *p, int agent, const struct mport_dest *dst,
	       const uint8_t *mad, size_t len)
{
	return send_one(p, agent, dst, mad, len, 0);
}

int mport_send_req(struct mport *p, int agent, const struct mport_dest *dst,
		   const uint8_t *mad, size_t len, unsigned timeout_ms)
{
	return send_one(p, agent, dst, mad, len, timeout_ms ? timeout_ms : 1);
}

static int send_one(struct mport *p, int agent, const struct mport_dest *dst,
		    const uint8_t *mad, size_t len, unsigned timeout_ms)
{
	uint8_t *sbuf = calloc(1, umad_size() + len);
	int ret = 0;

	if (!sbuf)
		return -ENOMEM;
	memcpy(umad_get_mad(sbuf), mad, len);
	umad_set_addr(sbuf, dst->lid, (int)dst->qpn, dst->sl, (int)dst->qkey);
	umad_set_pkey(sbuf, p->pkey_index);
	if (umad_send(p->fd, agent, sbuf, (int)len, (int)timeout_ms, 0) < 0)
		ret = -EIO;
	free(sbuf);
	return ret;
}

int mport_wait(struct mport *p, int timeout_ms, mport_match_fn match, void *ctx,
	       uint8_t **mad, size_t *mad_len)
{
	uint64_t deadline = mono_ms() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0);

	if (p->nstrays && stray_take(p, match, ctx, mad, mad_len))
		return 0;
	/* One look at the port even with no time left: a caller draining
	 * what arrived asks with 0. */
	for (;;) {
		uint64_t now = mono_ms();
		const uint8_t *m;
		size_t len = 0;
		int agent;

		agent = mport_recv(p, now < deadline ? (int)(deadline - now) : 0, &len);
		if (agent == -ETIMEDOUT)
			return -ETIMEDOUT;
		if (agent < 0)
			return agent;
		if (umad_status(p->rbuf) || len < MAD_HDR_SIZE)
			continue;
		m = umad_get_mad(p->rbuf);
		if (match(m, len, ctx)) {
			*mad = malloc(len);
			if (!*mad)
				return -ENOMEM;
			memcpy(*mad, m, len);
			*mad_len = len;
			return 0;
		}
		if (!(m[MAD_OFF_METHOD] & MAD_METHOD_RESP_BIT))
			mport_reply(p, agent, len);
	}
}

/* Reads one MAD into p->rbuf, growing it when an RMPP table is larger.
 * Returns the agent it arrived on. */
static int mport_recv(struct mport *p, int timeout_ms, size_t *mad_len)
{
	int len, ret;

	for (;;) {
		len = (int)(p->rbuf_len - umad_size());
		ret = umad_recv(p->fd, p->rbuf, &len, timeout_ms);
		if (ret >= 0)
			break;
		if (ret == -ENOSPC || errno == ENOSPC) {
			size_t need = umad_size() + (size_t)len;
			uint8_t *nb;

			if (len <= 0 || need <= p->rbuf_len)
				return -EMSGSIZE;
			nb = realloc(p->rbuf, need);
			if (!nb)
				return -ENOMEM;
			p->rbuf = nb;
			p->rbuf_len = need;
			continue;
		}
		/* libibumad reads at once for a timeout of 0: a port with
		 * nothing to read answers EAGAIN then. */
		if (ret == -ETIMEDOUT || errno == ETIMEDOUT || ret == -EAGAIN || errno == EAGAIN)
			return -ETIMEDOUT;
		return ret < -1 ? ret : -errno;
	}
	*mad_len = len < 0 ? 0 : (size_t)len;
	p->last_slid = ntohs(umad_get_mad_addr(p->rbuf)->lid);
	return ret;
}

uint32_t mport_new_tids(struct mport *p, unsigned n)
{
	uint32_t first = p->next_tid;

	p->next_tid += n;
	return first;
}

int mport_fd(const struct mport *p)
{
	return p->fd;
}

uint16_t mport_last_slid(const struct mport *p)
{
	return p->last_slid;
}

int mport_serve(struct mport *p, int timeout_ms)
{
	size_t len = 0;
	int agent = mport_recv(p, timeout_ms, &len);

	if (agent == -ETIMEDOUT)
		return 0;
	if (agent < 0)
		return agent;
	if (len >= MAD_HDR_SIZE && umad_status(p->rbuf) == 0 &&
	    !(((uint8_t *)umad_get_mad(p->rbuf))[MAD_OFF_METHOD] & MAD_METHOD_RESP_BIT))
		mport_reply(p, agent, len);
	return 0;
}

void mport_on_expired(struct mport *p, mport_expired_fn *fn, void *ctx)
{
	p->expired = fn;
	p->expired_ctx = ctx;
}

/* TIDs of one exchange whose answers it still takes (its last attempts'). */
#define MPORT_RPC_TIDS 8
/* How long past its own deadline an attempt whose TID stays waits for
 * the kernel to hand its send back (its timer runs from the send's
 * completion, a little after ours): a safety net, the kernel's
 * ETIMEDOUT ends the attempt first. */
#define MPORT_KERNEL_GRACE_MS 1000

/* Whether tid is one of the attempts' (-1: no), their index. */
static int rpc_ours(const uint32_t *tids, unsigned n, uint32_t tid)
{
	unsigned i;

	for (i = 0; i < n && i < MPORT_RPC_TIDS; i++)
		if (tids[i] == tid)
			return (int)i;
	return -1;
}

/* The exchange of mport_rpc (fresh: a new TID each attempt) and of
 * mport_rpc_tid (the TID req holds, every attempt). ib_umad refuses a
 * request whose TID and class another still waiting has (user_mad.c
 * ib_umad_write, is_duplicate: EINVAL), and the kernel's timer for the
 * last attempt runs out a little after ours: so a retry either takes a
 * new TID, or waits for the kernel to hand the last one back
 * (ETIMEDOUT). Either way the answer to an earlier attempt, late, is
 * still taken. */
static int rpc(struct mport *p, int agent, const struct mport_dest *dst, const uint8_t *req,
	       size_t req_len, const struct mport_rpc_opts *o, int fresh, uint8_t **resp,
	       size_t *resp_len)
{
	uint32_t tids[MPORT_RPC_TIDS];
	struct mport_dest to = *dst;
	uint8_t *sbuf;
	uint32_t tid;
	unsigned attempt, ntids = 0;
	uint16_t lids[MPORT_RPC_TIDS];
	int ret = -ETIMEDOUT, k;

	if (req_len < MAD_HDR_SIZE)
		return -EINVAL;
	dst = &to;
	tid = (uint32_t)wire_get64(req + MAD_OFF_TID);
	sbuf = calloc(1, umad_size() + req_len);
	if (!sbuf)
		return -ENOMEM;
	for (attempt = 0; attempt <= o->retries; attempt++) {
		unsigned wait_ms = o->timeout_ms << (o->grow ? (attempt < 4 ? attempt : 4) : 0);
		uint64_t deadline = mono_ms() + wait_ms;
		uint64_t limit = deadline + (fresh ? 0 : MPORT_KERNEL_GRACE_MS);

		if (attempt && fresh)
			tid = p->next_tid++;
		tids[ntids % MPORT_RPC_TIDS] = tid;
		if (attempt && o->follow_sm) {
			struct mport_info info;

			if (!mport_query(p, &info) && info.sm_lid && info.sm_lid != to.lid) {
				log_debug("TID 0x%08x: the SM moved from LID %u to %u", tid, to.lid,
					  info.sm_lid);
				to.lid = info.sm_lid;
				to.sl = info.sm_sl;
			}
		}
		lids[ntids++ % MPORT_RPC_TIDS] = to.lid;
		memset(sbuf, 0, umad_size());
		memcpy(umad_get_mad(sbuf), req, req_len);
		wire_put64(umad_get_mad(sbuf) + MAD_OFF_TID, tid);
		umad_set_addr(sbuf, dst->lid, (int)dst->qpn, dst->sl,
			      (int)dst->qkey);
		umad_set_pkey(sbuf, p->pkey_index);
		/* A timeout on the send lets the kernel match the response
		 * to it; with 0 it drops responses as unsolicited. */
		if (umad_send(p->fd, agent, sbuf, (int)req_len, (int)wait_ms,
			      send_retries(req)) < 0) {
			log_debug("TID 0x%08x to LID %u: the port refused the send: %s", tid,
				  dst->lid, strerror(errno));
			ret = -EIO;
			goto out;
		}
		for (;;) {
			uint64_t now = mono_ms();
			const uint8_t *mad;
			size_t len = 0;
			struct mad_hdr h;

			if (now >= limit) {
				ret = -ETIMEDOUT;
				break;
			}
			ret = mport_recv(p, (int)(limit - now), &len);
			if (ret == -ETIMEDOUT)
				break;
			if (ret < 0)
				goto out;
			mad = umad_get_mad(p->rbuf);
			if (mad_hdr_decode(mad, len, &h))
				continue;
			if (!(h.method & MAD_METHOD_RESP_BIT) && umad_status(p->rbuf) == 0) {
				/* Someone asks us something while we wait. */
				mport_reply(p, ret, len);
				continue;
			}
			k = rpc_ours(tids, ntids, (uint32_t)h.tid);
			if (k < 0 || h.mgmt_class != req[MAD_OFF_MGMT_CLASS]) {
				if (umad_status(p->rbuf) == 0)
					stray_keep(p, len);
				continue;
			}
			/* The kernel matches a response by TID and class only
			 * (mad.c ib_find_send_mad): any port that guesses the
			 * TID could answer for the one we asked. It costs the
			 * attempt (the kernel took the forgery as its
			 * answer), not a false answer. */
			if (umad_status(p->rbuf) == 0 && p->last_slid != lids[k]) {
				log_debug("TID 0x%08x: an answer from LID %u, not %u's: dropped",
					  (uint32_t)h.tid, p->last_slid, lids[k]);
				continue;
			}
			if (umad_status(p->rbuf) == ETIMEDOUT) {
				if ((uint32_t)h.tid != tid)
					continue; /* an earlier attempt's, handed back */
				ret = -ETIMEDOUT; /* the kernel gave up: the TID is free */
				break;
			}
			if (!(h.method & MAD_METHOD_RESP_BIT))
				continue;
			*resp = malloc(len);
			if (!*resp) {
				ret = -ENOMEM;
				goto out;
			}
			memcpy(*resp, mad, len);
			*resp_len = len;
			ret = 0;
			goto out;
		}
		log_debug("TID 0x%08x to LID %u: no answer within %u ms (attempt %u of %u)",
			  tid, dst->lid, wait_ms, attempt + 1, o->retries + 1);
		if (p->expired)
			p->expired(p->expired_ctx, req, req_len);
	}
out:
	free(sbuf);
	return ret;
}

int mport_rpc(struct mport *p, int agent, const struct mport_dest *dst,
	      uint8_t *req, size_t req_len, const struct mport_rpc_opts *o,
	      uint8_t **resp, size_t *resp_len)
{
	if (req_len < MAD_HDR_SIZE)
		return -EINVAL;
	wire_put64(req + MAD_OFF_TID, p->next_tid++);
	return rpc(p, agent, dst, req, req_len, o, 1, resp, resp_len);
}

int mport_rpc_tid(struct mport *p, int agent, const struct mport_dest *dst,
		  const uint8_t *req, size_t req_len, const struct mport_rpc_opts *o,
		  uint8_t **resp, size_t *resp_len)
{
	return rpc(p, agent, dst, req, req_len, o, 0, resp, resp_len);
}
