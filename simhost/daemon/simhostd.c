/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* simhostd: one simulated node's kernel RDMA stack for the bench (test
 * code, never linked into the product). One ibsim client for the node
 * (simclient.c); the node's processes reach it through libsimhost.so over
 * DIR/NODE/kernel.sock (simhost.h, kconn.c). It plays ib_mad and ib_umad
 * (kmad.c: agents, dispatch by registration, hi_tid routing, timeouts;
 * krmpp.c: RMPP; kumad.c: the files' writes, ioctls and reads), the
 * driver's sysfs and verbs port events (ksysfs.c, PortInfo polled
 * every 50 ms), ib_ipoib's broadcast joins (kipoib.c), the modules an
 * admin changes at run time (kmod.c) and rdma_ucm's device (kucma.c,
 * kucmaio.c; rdma_cm's ids: kcma.c). Single-threaded: one poll loop; no process can block it.
 *
 *   simhostd -n NODE -d DIR [--kernel-cm] [--cm-retries N] [--cm-timeout T]
 *            [--ipoib NAME[:PKEY]]... [--driver mlx5|mlx4|qib]
 *            [--no-client-rereg] [-v]
 *   simhostd -n NODE -d DIR -C COMMAND (kadmin.h)
 *
 * IBSIM_SOCKNAME names ibsim's sockets as for umad2sim. DIR/NODE/ready
 * appears once the socket listens and sysfs is written; SIGTERM or
 * SIGINT: kernel.sock and ready go, the client leaves ibsim. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <infiniband/umad.h>
#include <infiniband/verbs.h>

#include "simhost/wire/cmwire.h"
#include "kadmin.h"
#include "kconn.h"
#include "simhost/kernel/kdriver.h"
#include "simhost/kernel/kipoib.h"
#include "simhost/kernel/kmad.h"
#include "simhost/kernel/kmod.h"
#include "simhost/kernel/krmpp.h"
#include "simhost/kernel/ksysfs.h"
#include "kucmaio.h"
#include "kumad.h"
#include "core/mad.h"
#include "core/mono.h"
#include "simhost/wire/simhost.h"
#include "core/sa.h"
#include "simclient.h"
#include "core/wire.h"

#define PORTINFO_POLL_MS 50
/* A join's SA Set: timeout and retries before ipoib's backoff. */
#define JOIN_TIMEOUT_MS 1000
#define JOIN_RETRIES 1

struct host {
	const char *node;
	char dir[PATH_MAX];
	int verbose;
	struct simclient sc;
	struct kmad k;
	struct ksysfs fs;
	struct kipoib ipoib;
	struct kmod mod;
	struct kconn_set cs;
	struct kucmaio ucma;
	struct kumad um;
	uint8_t pi[64], pk[64];
	int driver, no_rereg; /* ksysfs's: kdriver.h */
	int64_t next_poll;
	uint32_t next_token, next_qpn_block;
	struct kconn *issm; /* the one holder of issm0 */
	uint8_t drop[256]; /* `drop CLASS on`: MADs of the class lost */
	uint64_t mads_in, unmatched_answered, timeouts, lost;
	uint64_t sa_requests_in; /* SA requests (no response bit, no RMPP ACK) */
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void logf_(struct host *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void logf_(struct host *h, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "simhostd[%s]: ", h->node);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

#define DBG(h, ...)                          \
	do {                                 \
		if ((h)->verbose)            \
			logf_(h, __VA_ARGS__); \
	} while (0)

/* ---- to the processes ---- */

static void raise_event(struct host *h, uint32_t type)
{
	struct simhost_event e = { type, 1 };
	size_t i;

	DBG(h, "event %u", type);
	for (i = 0; i < KCONN_MAX; i++)
		if (h->cs.c[i] && h->cs.c[i]->kind == SIMHOST_VERBS)
			kconn_send(&h->cs, h->cs.c[i], &e, sizeof(e), NULL, 0);
}

/* ---- timeouts: what they send and hand over ---- */

static void wait_resend(void *ctx, struct kmad_agent *a, const uint8_t *buf, size_t len)
{
	struct host *h = ctx;
	struct ib_user_mad u;

	memcpy(&u, buf, KUMAD_HDR);
	DBG(h, "resend tid 0x%016llx",
	    (unsigned long long)wire_get64(buf + KUMAD_HDR + MAD_OFF_TID));
	kumad_wire(&h->um, &u, a->reg.qpn, buf + KUMAD_HDR, len - KUMAD_HDR);
}

static void wait_expire(void *ctx, struct kmad_agent *a, const void *hdr, const uint8_t *mad,
			size_t len)
{
	struct host *h = ctx;

	h->timeouts++;
	DBG(h, "tid 0x%016llx: no response, ETIMEDOUT", (unsigned long long)wire_get64(mad + MAD_OFF_TID));
	if (a->file == KMAD_KERNEL) {
		if (!kucmaio_sa_answer(&h->ucma, mad, len, 1))
			kipoib_answer(&h->ipoib, mad, len, 1, mono_ms());
	} else {
		kumad_deliver(&h->um, a, hdr, mad, len);
	}
}

/* ---- MADs from ibsim ---- */

static void answer_unmatched(struct host *h, const struct simclient_req *in)
{
	uint8_t mad[MAD_SIZE];

	kmad_unmatched(in->mad, MAD_SIZE, mad);
	h->unmatched_answered++;
	if (simclient_reply(&h->sc, in, mad) == 0)
		h->um.mads_out++;
}

static void from_wire(struct host *h, struct simclient_req *in, int64_t now)
{
	uint8_t *mad = in->mad;
	struct kmad_agent *a;
	struct ib_user_mad u;
	enum kmad_verdict v;

	h->mads_in++;
	/* A requester's RMPP ACKs to a GetTableResp are not requests. */
	if (mad[MAD_OFF_MGMT_CLASS] == SA_CLASS && !(mad[MAD_OFF_METHOD] & MAD_METHOD_RESP_BIT) &&
	    !(kmad_rmpp_active(mad, MAD_SIZE) && mad[MAD_RMPP_OFF_TYPE] != MAD_RMPP_TYPE_DATA))
		h->sa_requests_in++;
	if (h->drop[mad[MAD_OFF_MGMT_CLASS]]) {
		h->lost++;
		return;
	}
	/* ibsim bounces what it could not deliver (status 110, sim_mad.c
	 * process_packet): on a fabric the request is lost and times out. */
	if (in->status)
		return;
	v = kmad_route(&h->k, mad, MAD_SIZE, ntohl(in->dqp), &a);
	DBG(h, "in class 0x%02x method 0x%02x attr 0x%04x tid 0x%016llx: %s", mad[MAD_OFF_MGMT_CLASS],
	    mad[MAD_OFF_METHOD], wire_get16(mad + MAD_OFF_ATTR_ID),
	    (unsigned long long)wire_get64(mad + MAD_OFF_TID),
	    v == KMAD_DELIVER ? "deliver" : v == KMAD_UNMATCHED ? "unmatched" : "drop");
	if (v == KMAD_UNMATCHED) {
		answer_unmatched(h, in);
		return;
	}
	if (v == KMAD_DROP) {
		if (kmad_is_response(mad))
			h->um.resp_dropped++;
		return;
	}
	memset(&u, 0, sizeof(u));
	u.agent_id = a->id;
	u.length = (uint32_t)(KUMAD_HDR + MAD_SIZE);
	u.addr.qpn = in->sqp;
	u.addr.lid = (uint16_t)in->slid;
	/* user_mad.c recv_handler: the work completion's P_Key index and
	 * DLID path bits (kdriver.h); its SL and GRH are not on ibsim's
	 * wire (sim_request): 0, as no sender on the bench sets them. */
	u.addr.pkey_index = kdriver_recv_pkey_index(h->pk);
	if (ntohs((uint16_t)in->dlid) != 0xffff)
		u.addr.path_bits = kdriver_recv_path_bits(ntohs((uint16_t)in->dlid),
							  h->pi[KSYSFS_PI_OFF_LMC]);
	if (a->file == KMAD_KERNEL && mad[MAD_OFF_MGMT_CLASS] == CMWIRE_CLASS) {
		/* ib_cm's: every CM message is a Send, matched by comm IDs */
		kucmaio_cm_recv(&h->ucma, mad, MAD_SIZE, ntohs((uint16_t)in->slid), now);
		return;
	}
	if (a->file == KMAD_KERNEL) {
		/* ib_sa's answers (rdma_cm's routes by their TIDs, else the
		 * joins'). */
		struct kwait_src src = { 0, u.addr.path_bits, h->k.lmc };

		if (!kmad_complete(a, mad, MAD_SIZE, &src))
			h->um.resp_dropped++;
		else if (!kucmaio_sa_answer(&h->ucma, mad, MAD_SIZE, 0))
			kipoib_answer(&h->ipoib, mad, MAD_SIZE, 0, now);
		return;
	}
	kumad_recv(&h->um, a, &u, mad, MAD_SIZE, now);
}

/* ---- the bench's console ---- */

static void port_events(struct host *h, const uint32_t *ev, int n, int64_t now);
static void join_send(void *ctx, const uint8_t mad[256]);
static int cm_load(struct host *h);

static void admin(struct host *h, struct kconn *c, const uint8_t *buf, size_t len)
{
	uint32_t ev = IBV_EVENT_CLIENT_REREGISTER;
	struct kadmin_cmd cmd;
	char reply[512];
	int ret = 0;

	if (kadmin_parse(buf, len, &cmd, reply, sizeof(reply)) < 0) {
		/* the reply says what is wrong */
	} else if (cmd.op != KADMIN_STATUS) {
		if (cmd.op == KADMIN_REREG)
			port_events(h, &ev, 1, mono_ms());
		else if (cmd.op == KADMIN_DROP)
			h->drop[cmd.mgmt_class] = (uint8_t)cmd.on;
		else if (cmd.op == KADMIN_RMPP)
			h->um.no_rmpp = !cmd.on;
		else if (cmd.op == KADMIN_IPOIB_ADD)
			ret = kmod_ipoib_add(&h->mod, cmd.name, cmd.pkey, mono_ms());
		else if (cmd.op == KADMIN_IPOIB_DEL)
			ret = kmod_ipoib_del(&h->mod, cmd.name, join_send, h);
		else if (cmd.op == KADMIN_IPOIB_ADDR)
			ret = kmod_ipoib_addr(&h->mod, cmd.name, cmd.addr, cmd.on);
		else if (cmd.op == KADMIN_IPOIB_LINK)
			ret = kmod_ipoib_link(&h->mod, cmd.name, cmd.on);
		else if (cmd.op == KADMIN_MODPROBE_CM)
			ret = cm_load(h);
		else
			ret = kmod_cm_unload(&h->mod);
		snprintf(reply, sizeof(reply), ret ? "error: %s" : "ok", strerror(-ret));
	} else {
		snprintf(reply, sizeof(reply),
			 "mads_in=%llu mads_out=%llu resp_dropped=%llu unmatched_answered=%llu "
			 "timeouts=%llu queue_drops=%llu lost=%llu joins=%llu join_failures=%llu "
			 "leaves=%llu cm_listens=%zu sa_requests_in=%llu sa_answers_out=%llu "
			 "dup_refused=%llu cma_ip_refused=%llu",
			 (unsigned long long)h->mads_in, (unsigned long long)h->um.mads_out,
			 (unsigned long long)h->um.resp_dropped,
			 (unsigned long long)h->unmatched_answered,
			 (unsigned long long)h->timeouts, (unsigned long long)h->cs.drops,
			 (unsigned long long)h->lost, (unsigned long long)h->ipoib.joins,
			 (unsigned long long)h->ipoib.failures,
			 (unsigned long long)h->ipoib.leaves, kcm_listens(&h->ucma.u.cma.cm),
			 (unsigned long long)h->sa_requests_in,
			 (unsigned long long)h->um.sa_answers_out,
			 (unsigned long long)h->um.dup_refused,
			 (unsigned long long)h->ucma.u.cma.ip_refused);
	}
	kconn_send(&h->cs, c, reply, strlen(reply), NULL, 0);
}

/* ---- connections ---- */

static void hello(struct host *h, struct kconn *c, const uint8_t *buf, size_t len)
{
	struct simhost_hello hi;
	struct simhost_welcome w = { SIMHOST_MAGIC, 0, 0, 0 };
	int ret;

	if (len != sizeof(hi)) {
		w.err = -EPROTO;
		goto out;
	}
	memcpy(&hi, buf, sizeof(hi));
	if (hi.magic != SIMHOST_MAGIC || hi.kind < SIMHOST_UMAD || hi.kind > SIMHOST_UCMA_CMD) {
		w.err = -EPROTO;
		goto out;
	}
	c->pid = hi.pid;
	/* The device node's owner and mode against who connected (the
	 * VFS's check at open(), before the device's own open). */
	if ((w.err = kconn_may_open(c, hi.kind)) < 0)
		goto out;
	switch (hi.kind) {
	case SIMHOST_UMAD:
		if (hi.port != 1) {
			w.err = -ENODEV;
			break;
		}
		c->rmpp = calloc(1, sizeof(*c->rmpp));
		if (!c->rmpp || krmpp_init(c->rmpp) < 0) {
			w.err = -ENOMEM;
			break;
		}
		/* Tokens name files in kmad: never KMAD_KERNEL (0). */
		do
			h->next_token = h->next_token + 1 ? h->next_token + 1 : 1;
		while (kconn_by_token(&h->cs, SIMHOST_UMAD, h->next_token));
		c->token = w.token = h->next_token;
		break;
	case SIMHOST_AGENTS:
		if (!kconn_by_token(&h->cs, SIMHOST_UMAD, hi.token))
			w.err = -EBADF;
		c->token = hi.token;
		break;
	case SIMHOST_ISSM:
		/* ib_umad_sm_open: one holder; OpenSM opens it O_NONBLOCK
		 * and a second gets EAGAIN (a blocking open would wait). */
		if (hi.port != 1) {
			w.err = -ENODEV;
		} else if (h->issm) {
			w.err = -EAGAIN;
		} else if ((ret = simclient_set_issm(&h->sc, 1)) < 0) {
			w.err = ret;
		} else {
			h->issm = c;
		}
		break;
	case SIMHOST_VERBS:
		h->next_qpn_block = h->next_qpn_block % (0xffffff / SIMHOST_QPN_BLOCK - 1) + 1;
		w.qpn_base = h->next_qpn_block * SIMHOST_QPN_BLOCK;
		break;
	case SIMHOST_UCMA:
	case SIMHOST_UCMA_CMD:
		w.token = hi.token;
		w.err = kucmaio_hello(&h->ucma, c, hi.kind, &w.token, h->mod.cm);
		break;
	default:
		break;
	}
out:
	if (!w.err)
		c->kind = hi.kind;
	DBG(h, "pid %u kind %u: %d", c->pid, hi.kind, w.err);
	kconn_send(&h->cs, c, &w, sizeof(w), NULL, 0);
}

static void conn_gone(struct host *h, struct kconn *c)
{
	if (c->kind == SIMHOST_UMAD)
		kmad_drop_file(&h->k, c->token);
	if (c->kind == SIMHOST_UCMA || c->kind == SIMHOST_UCMA_CMD)
		kucmaio_gone(&h->ucma, c);
	if (c == h->issm) {
		/* ib_umad_sm_close: IsSM cleared. */
		h->issm = NULL;
		if (simclient_set_issm(&h->sc, 0) < 0)
			logf_(h, "cannot clear IsSM: ibsim gone?");
	}
	kconn_close(&h->cs, c);
}

/* The writes a umad file's process made before its call on the AGENTS
 * connection, taken in first: one file's writes and calls are in the
 * order the process made them (a SIMHOST_WRITE's is_duplicate sees the
 * writes before it). A broken connection is left to the main loop. */
static void drain_umad(struct host *h, uint32_t token, int64_t now)
{
	struct kconn *f = kconn_by_token(&h->cs, SIMHOST_UMAD, token);
	uint8_t *buf;
	size_t len;

	while (f && kconn_recv(f, &buf, &len) > 0) {
		kumad_write(&h->um, f, buf, len, now);
		free(buf);
	}
}

static void conn_input(struct host *h, struct kconn *c, int64_t now)
{
	uint8_t *buf;
	size_t len;
	int n, r;

	for (n = 0; n < 64; n++) {
		r = kconn_recv(c, &buf, &len);
		if (r < 0) {
			conn_gone(h, c);
			return;
		}
		if (!r)
			return;
		if (!c->kind) {
			hello(h, c, buf, len);
		} else if (c->kind == SIMHOST_UMAD) {
			kumad_write(&h->um, c, buf, len, now);
		} else if (c->kind == SIMHOST_AGENTS) {
			drain_umad(h, c->token, now);
			kumad_agents(&h->um, c, buf, len, now);
		} else if (c->kind == SIMHOST_ADMIN) {
			admin(h, c, buf, len);
		} else if (c->kind == SIMHOST_UCMA_CMD) {
			kucmaio_input(&h->ucma, c, buf, len, now);
		}
		free(buf);
	}
}

/* ---- the port ---- */

/* ib_sa's send to the SM (sa_query.c send_mad: the SM's LID and SL
 * from PortInfo), waiting for the answer in kmad. */
static void sa_send(struct host *h, const uint8_t *mad, uint32_t timeout_ms, uint32_t retries)
{
	struct kmad_agent *a = kmad_agent(&h->k, KMAD_KERNEL, h->mod.sa_agent);
	uint8_t buf[KUMAD_HDR + MAD_SIZE];
	struct ib_user_mad u;

	if (!h->mod.has_sa_agent || !a)
		return;
	memset(&u, 0, sizeof(u));
	u.agent_id = a->id;
	u.timeout_ms = timeout_ms;
	u.retries = retries;
	u.addr.qpn = htonl(SA_QP);
	u.addr.qkey = htonl(SA_QKEY);
	u.addr.lid = htons(wire_get16(h->pi + KSYSFS_PI_OFF_SM_LID));
	u.addr.sl = h->pi[KSYSFS_PI_OFF_SM_SL] & 0xf;
	memcpy(buf, &u, KUMAD_HDR);
	memcpy(buf + KUMAD_HDR, mad, MAD_SIZE);
	kmad_stamp_tid(a, buf + KUMAD_HDR);
	kmad_send_wait(a, buf, sizeof(buf), mono_ms());
	kumad_wire(&h->um, &u, SA_QP, buf + KUMAD_HDR, MAD_SIZE);
}

static void join_send(void *ctx, const uint8_t mad[256])
{
	sa_send(ctx, mad, JOIN_TIMEOUT_MS, JOIN_RETRIES);
}

/* rdma_cm's PathRecord Gets: cma.c gives ib_sa_path_rec_get the
 * caller's timeout_ms and no retries. */
static void route_send(void *ctx, const uint8_t *mad, uint32_t timeout_ms)
{
	sa_send(ctx, mad, timeout_ms, 0);
}

/* ib_cm's MADs (cm.c cm_alloc_msg: the path's DLID and SL, QP1, the
 * GSI Q_Key, P_Key index 0); its own retries, not the MAD layer's. */
static void cm_send(void *ctx, const struct kcm_send *s)
{
	struct host *h = ctx;
	struct kmad_agent *a = kmad_agent(&h->k, KMAD_KERNEL, h->mod.cm_agent);
	struct ib_user_mad u;

	if (!h->mod.cm || !a)
		return;
	memset(&u, 0, sizeof(u));
	u.agent_id = a->id;
	u.addr.qpn = htonl(1);
	u.addr.qkey = htonl(0x80010000);
	u.addr.lid = htons(s->dlid);
	u.addr.sl = s->sl & 0xf;
	kumad_wire(&h->um, &u, 1, s->mad, MAD_SIZE);
}

static int cm_load(struct host *h)
{
	struct kmad_agent *a;
	int ret;

	if ((ret = kmod_cm_load(&h->mod)) < 0)
		return ret;
	if ((a = kmad_agent(&h->k, KMAD_KERNEL, h->mod.cm_agent)))
		kucmaio_cm_agent(&h->ucma, a->hi_tid);
	return 0;
}

static int port_up(const struct host *h)
{
	return (h->pi[KSYSFS_PI_OFF_STATE] & 0xf) == KSYSFS_PI_STATE_ACTIVE && wire_get16(h->pi + KSYSFS_PI_OFF_SM_LID);
}

static void port_events(struct host *h, const uint32_t *ev, int n, int64_t now)
{
	int i, rejoin = 0;

	for (i = 0; i < n; i++) {
		logf_(h, "port event %s (%s)", kdriver_event_name(ev[i]),
		      kdriver_name(h->fs.driver));
		raise_event(h, ev[i]);
		rejoin |= ev[i] == IBV_EVENT_CLIENT_REREGISTER || ev[i] == IBV_EVENT_SM_CHANGE ||
			  ev[i] == IBV_EVENT_LID_CHANGE;
	}
	kipoib_port(&h->ipoib, port_up(h), rejoin, now);
}

static int poll_port(struct host *h, int64_t now)
{
	uint8_t pi[64], pk[64];
	uint32_t ev[KSYSFS_MAX_EVENTS];
	int ret;

	ret = simclient_portinfo(&h->sc, pi);
	if (!ret)
		ret = simclient_pkeys(&h->sc, pk);
	if (ret)
		return ret;
	ret = ksysfs_update(&h->fs, pi, pk, ev);
	memcpy(h->pi, pi, 64);
	memcpy(h->pk, pk, 64);
	h->k.lmc = pi[KSYSFS_PI_OFF_LMC] & 0x7;
	if (ret < 0)
		logf_(h, "sysfs: %s", strerror(-ret));
	else
		port_events(h, ev, ret, now);
	return 0;
}

/* ---- setup and the loop ---- */

static int write_file(const char *path, const char *text)
{
	char tmp[PATH_MAX + 80];
	FILE *f;
	int ok;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return -errno;
	ok = fputs(text, f) >= 0;
	ok &= fclose(f) == 0;
	if (!ok || rename(tmp, path) < 0) {
		unlink(tmp);
		return -EIO;
	}
	return 0;
}

static int64_t next_deadline(struct host *h)
{
	int64_t d = h->next_poll, x;
	size_t i;

	if ((x = kmad_deadline(&h->k)) < d)
		d = x;
	if ((x = kipoib_deadline(&h->ipoib)) < d)
		d = x;
	if ((x = kucmaio_deadline(&h->ucma)) < d)
		d = x;
	for (i = 0; i < KCONN_MAX; i++)
		if (h->cs.c[i] && h->cs.c[i]->rmpp && (x = krmpp_deadline(h->cs.c[i]->rmpp)) < d)
			d = x;
	return d;
}

static void timers(struct host *h, int64_t now)
{
	uint8_t gid[16];

	kmad_due(&h->k, now, wait_resend, wait_expire, h);
	kumad_timers(&h->um, now);
	ksysfs_gid(&h->fs, gid);
	kipoib_due(&h->ipoib, now, gid, join_send, h);
	kucmaio_due(&h->ucma, now);
}

static int run(struct host *h)
{
	struct pollfd pf[2 + KCONN_MAX];
	struct kconn *pc[KCONN_MAX];
	struct simclient_req req;
	sigset_t none;
	size_t n, i;
	int64_t now, d;
	struct timespec ts;
	int r;

	sigemptyset(&none);
	while (!stop) {
		now = mono_ms();
		if (now >= h->next_poll) {
			if (poll_port(h, now) < 0) {
				logf_(h, "ibsim does not answer: exiting");
				return 1;
			}
			h->next_poll = now + PORTINFO_POLL_MS;
		}
		timers(h, now);
		pf[0].fd = h->sc.fd_data;
		pf[0].events = POLLIN;
		pf[1].fd = h->cs.listen_fd;
		pf[1].events = POLLIN;
		for (n = 0, i = 0; i < KCONN_MAX; i++) {
			if (!h->cs.c[i])
				continue;
			pc[n] = h->cs.c[i];
			pf[2 + n].fd = pc[n]->fd;
			pf[2 + n].events = POLLIN | (pc[n]->head ? POLLOUT : 0);
			n++;
		}
		d = next_deadline(h) - mono_ms();
		d = d < 0 || simclient_backlog(&h->sc) ? 0 : d > PORTINFO_POLL_MS ? PORTINFO_POLL_MS : d;
		ts.tv_sec = 0;
		ts.tv_nsec = (long)d * 1000000L;
		r = ppoll(pf, 2 + n, &ts, &none);
		if (r < 0 && errno != EINTR)
			return 1;
		if (r <= 0 && !simclient_backlog(&h->sc))
			continue;
		now = mono_ms();
		if ((pf[0].revents & POLLIN) || simclient_backlog(&h->sc))
			for (i = 0; i < 256 && simclient_recv(&h->sc, &req) > 0; i++)
				from_wire(h, &req, now);
		if (pf[1].revents & POLLIN)
			while (kconn_accept(&h->cs))
				;
		for (i = 0; i < n; i++) {
			if (!pf[2 + i].revents)
				continue;
			if ((pf[2 + i].revents & POLLOUT) && kconn_flush(pc[i]) < 0) {
				conn_gone(h, pc[i]);
				continue;
			}
			if (pf[2 + i].revents & (POLLIN | POLLHUP | POLLERR))
				conn_input(h, pc[i], now);
		}
	}
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: simhostd -n NODE -d DIR [--kernel-cm] [--cm-retries N] [--cm-timeout T]\n"
			"         [--ipoib NAME[:PKEY]]... [--driver mlx5|mlx4|qib] [--no-client-rereg] [-v]\n"
			"       simhostd -n NODE -d DIR -C COMMAND (rereg, status, drop CLASS on|off,\n"
			"         ipoib add NAME[:PKEY], ipoib del NAME, ipoib addr [del] NAME IP/PREFIX,\n"
			"         ipoib link NAME up|down, modprobe ib_cm, rmmod ib_cm)\n");
	exit(2);
}

static int setup(struct host *h, int kernel_cm, char **ipoib, int nipoib, uint32_t cm_retries,
		 uint8_t cm_timeout)
{
	uint8_t ni[64];
	char path[PATH_MAX + 64], name[16];
	uint16_t pkey;
	int ret, i;

	/* DIR, and the node's /run where its ibacm puts its socket (0755 as /run) */
	snprintf(path, sizeof(path), "%s/%s", h->dir, SIMHOST_RUN);
	if ((mkdir(h->dir, 0755) < 0 && errno != EEXIST) || (mkdir(path, 0755) < 0 && errno != EEXIST))
		return -errno;
	ret = simclient_init(&h->sc, h->node);
	if (ret) {
		logf_(h, "cannot attach to ibsim: %s", strerror(-ret));
		return ret;
	}
	if ((ret = simclient_nodeinfo(&h->sc, ni)) < 0)
		return ret;
	kmad_init(&h->k);
	kumad_init(&h->um, &h->k, &h->cs, &h->sc, h->node, h->verbose);
	kipoib_init(&h->ipoib);
	snprintf(path, sizeof(path), "%s/%s", h->dir, SIMHOST_SYS);
	if ((ret = ksysfs_init(&h->fs, path, h->node, ni)) < 0)
		return ret;
	h->fs.driver = (enum kdriver)h->driver;
	h->fs.no_rereg = h->no_rereg;
	kmod_init(&h->mod, &h->k, &h->fs, &h->ipoib);
	kucmaio_init(&h->ucma, &h->cs, &h->fs, route_send, cm_send, h, cm_retries, cm_timeout);
	/* rdma_cm's IP requests meet ib_ipoib's interfaces (none until one
	 * is added: ib_get_net_dev_by_params finds nothing) */
	h->ucma.u.cma.net = &h->mod.net;
	if (kernel_cm && (ret = cm_load(h)) < 0)
		return ret;
	for (i = 0; i < nipoib; i++)
		if ((ret = kmod_ipoib_spec(ipoib[i], name, &pkey)) < 0 ||
		    (ret = kmod_ipoib_add(&h->mod, name, pkey, mono_ms())) < 0)
			return ret;
	if ((ret = poll_port(h, mono_ms())) < 0)
		return ret;
	h->next_poll = mono_ms() + PORTINFO_POLL_MS;
	snprintf(path, sizeof(path), "%s/%s", h->dir, SIMHOST_SOCK);
	if ((ret = kconn_listen(&h->cs, path)) < 0) {
		logf_(h, "%s: %s", path, strerror(-ret));
		return ret;
	}
	snprintf(path, sizeof(path), "%s/ready", h->dir);
	snprintf((char *)ni, sizeof(ni), "%d\n", (int)getpid());
	return write_file(path, (const char *)ni);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "kernel-cm", no_argument, NULL, 'K' },
		{ "ipoib", required_argument, NULL, 'I' },
		{ "cm-retries", required_argument, NULL, 'R' },
		{ "cm-timeout", required_argument, NULL, 'T' },
		{ "driver", required_argument, NULL, 'D' },
		{ "no-client-rereg", no_argument, NULL, 'N' },
		{ NULL, 0, NULL, 0 },
	};
	static struct host h;
	char *ipoib[KSYSFS_MAX_NETDEVS];
	const char *dir = NULL, *cmd = NULL;
	char path[PATH_MAX + 64];
	int kernel_cm = 0, nipoib = 0, o, ret;
	unsigned long cm_retries = KCM_MAX_RETRIES, cm_timeout = KCM_RESPONSE_TIMEOUT;
	char *end;
	struct sigaction sa;
	sigset_t block;

	while ((o = getopt_long(argc, argv, "n:d:C:v", opts, NULL)) != -1) {
		switch (o) {
		case 'n': h.node = optarg; break;
		case 'd': dir = optarg; break;
		case 'C': cmd = optarg; break;
		case 'v': h.verbose = 1; break;
		case 'K': kernel_cm = 1; break;
		/* bench knobs: ib_cm's max_cm_retries and CM response timeout
		 * (cma.c's 15 and 20), so its bounds are checkable in seconds */
		case 'R':
			cm_retries = strtoul(optarg, &end, 10);
			if (*end || cm_retries > 15)
				usage();
			break;
		case 'T':
			cm_timeout = strtoul(optarg, &end, 10);
			if (*end || cm_timeout > 31)
				usage();
			break;
		/* the port's driver (its async events) and an SM that sets no
		 * ClientReregister on it (OpenSM's no_clients_rereg) */
		case 'D':
			if ((h.driver = kdriver_parse(optarg)) < 0)
				usage();
			break;
		case 'N': h.no_rereg = 1; break;
		case 'I':
			if (nipoib == KSYSFS_MAX_NETDEVS)
				usage();
			ipoib[nipoib++] = optarg;
			break;
		default: usage();
		}
	}
	if (!h.node || !dir || optind != argc || strchr(h.node, '/'))
		usage();
	if (cmd)
		return kadmin_console(dir, h.node, cmd);
	if (snprintf(h.dir, sizeof(h.dir), "%s/%s", dir, h.node) >= (int)sizeof(h.dir))
		usage();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* Delivered only inside ppoll: no wake-up is lost between the
	 * check of stop and the wait. */
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, NULL);
	h.cs.listen_fd = -1;
	h.sc.fd_ctl = h.sc.fd_data = -1;
	ret = setup(&h, kernel_cm, ipoib, nipoib, (uint32_t)cm_retries, (uint8_t)cm_timeout);
	if (ret < 0) {
		logf_(&h, "setup: %s", strerror(-ret));
	} else {
		logf_(&h, "ready (ibsim client %u, driver %s)", h.sc.id,
		      kdriver_name((enum kdriver)h.driver));
		ret = run(&h);
	}
	snprintf(path, sizeof(path), "%s/ready", h.dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/%s", h.dir, SIMHOST_SOCK);
	if (h.cs.listen_fd >= 0)
		unlink(path);
	kconn_fini(&h.cs);
	simclient_fini(&h.sc);
	kucmaio_fini(&h.ucma);
	kumad_fini(&h.um);
	kmod_fini(&h.mod);
	kmad_fini(&h.k);
	return ret ? 1 : 0;
}
