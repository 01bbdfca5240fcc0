/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* cmbench: connect time by GID and by IP through ATS, with librdmacm over
 * AF_IB (tests/bench/connect.sh), the way examples/rdma_ats connects.
 *
 *   cmbench server CHECK N PORT [SOCK]
 *       listen on the IP CM service ID of PORT (TCP port space), accept N
 *       connections, report once all N are disconnected. CHECK: none
 *       (accept at once), agent (Annex A11 decode and ibats_check_peer
 *       through the atsd at SOCK), sa (the same straight to the SA).
 *   cmbench client MODE N PORT SRC_IP DST_IP GID|SOCK
 *       N connections to DST_IP, one at a time. MODE gid: to GID, no
 *       ATS; agent: ibats_sockaddr_ib through the atsd at SOCK; sa: the
 *       same straight to the SA (cold: libibats keeps no cache); acm:
 *       rdma_getaddrinfo(DST_IP) as unmodified programs do, answered by
 *       the node's ibacm with the ats provider (the first lookup cold,
 *       printed alone as "ats_acm_cold us"), then the same connect.
 *
 * A connection is timed from rdma_resolve_addr to ESTABLISHED
 * (rdma_resolve_route, rdma_create_qp, rdma_connect with the Annex A11
 * header as private data, in every mode so that only ATS differs); by IP
 * the ATS lookup comes first and is in the total. rdma_create_id and the
 * disconnect are outside. The server's accept time runs from the
 * CONNECT_REQUEST event to rdma_accept's return: the A11 check (a reverse
 * lookup) and rdma_create_qp.
 * Prints "name p50_us p99_us count" lines: connect_MODE, ats_MODE (client),
 * accept_CHECK and check_CHECK (server); and "sa_ats_MODE" and
 * "sa_check_CHECK" lines "name sa_requests lookups" (ibats_lookup_info). */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/ib.h>
#include <rdma/rdma_cma.h>

#include <ibats/ibats.h>

#include "clock.h"

#define TIMEOUT_MS 5000
#define REJECT_MAX 148 /* IBTA Vol 1 12.6.7: REJ private data */

static void report(const char *name, const char *mode, double *v, size_t n)
{
	if (!n)
		return;
	qsort(v, n, sizeof(*v), cmp_us);
	printf("%s_%s %.2f %.2f %zu\n", name, mode, v[n / 2], v[n * 99 / 100], n);
}

/* SA requests of the calling thread's last lookup on h (0: atsd answered). */
static unsigned sa_queries(const struct ibats *h)
{
	struct ibats_info info;

	return ibats_lookup_info(h, &info) ? 0 : info.sa_queries;
}

/* "sa_NAME_MODE queries lookups": SA requests over the lookups timed. */
static void report_sa(const char *name, const char *mode, unsigned long q, size_t n)
{
	printf("sa_%s_%s %lu %zu\n", name, mode, q, n);
}

/* The next event, or -ETIMEDOUT: a lost peer must not hang the bench. */
static int next_event(struct rdma_event_channel *ch, struct rdma_cm_event **ev)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };
	int r = poll(&p, 1, TIMEOUT_MS);

	if (r <= 0)
		return r ? -errno : -ETIMEDOUT;
	return rdma_get_cm_event(ch, ev) ? -errno : 0;
}

static int expect(struct rdma_event_channel *ch, enum rdma_cm_event_type want)
{
	struct rdma_cm_event *ev;
	int ret = next_event(ch, &ev);

	if (ret) {
		fprintf(stderr, "cmbench: waiting for %s: %s\n", rdma_event_str(want),
			strerror(-ret));
		return ret;
	}
	if (ev->event != want) {
		fprintf(stderr, "cmbench: %s (status %d), expected %s\n",
			rdma_event_str(ev->event), ev->status, rdma_event_str(want));
		ret = -ECONNREFUSED;
	}
	rdma_ack_cm_event(ev);
	return ret;
}

static int make_qp(struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr attr = {
		.cap = { .max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};

	return rdma_create_qp(id, NULL, &attr) ? -errno : 0;
}

static int parse_ip(const char *s, uint16_t port, struct sockaddr_storage *ss)
{
	struct sockaddr_in s4 = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6, .sin6_port = htons(port) };

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, s, &s4.sin_addr) == 1)
		memcpy(ss, &s4, sizeof(s4));
	else if (inet_pton(AF_INET6, s, &s6.sin6_addr) == 1)
		memcpy(ss, &s6, sizeof(s6));
	else
		return -EINVAL;
	return 0;
}

/* One connection: ESTABLISHED, then closed (DISCONNECTED awaited, so the
 * next one starts on a quiet fabric). */
static int connect_one(struct rdma_event_channel *ch, const struct sockaddr_ib *sib,
		       const uint8_t *pdata, double *cm_end)
{
	struct rdma_conn_param cp = { .responder_resources = 1, .initiator_depth = 1,
				      .retry_count = 7, .rnr_retry_count = 7,
				      .private_data = pdata, .private_data_len = IBATS_A11_LEN };
	struct rdma_cm_id *id;
	int ret;

	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
		return -errno;
	ret = rdma_resolve_addr(id, NULL, (struct sockaddr *)sib, TIMEOUT_MS) ? -errno :
	      expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED);
	if (!ret)
		ret = rdma_resolve_route(id, TIMEOUT_MS) ? -errno :
		      expect(ch, RDMA_CM_EVENT_ROUTE_RESOLVED);
	if (!ret)
		ret = make_qp(id);
	if (!ret)
		ret = rdma_connect(id, &cp) ? -errno : expect(ch, RDMA_CM_EVENT_ESTABLISHED);
	*cm_end = now_us();
	if (!ret)
		ret = rdma_disconnect(id) ? -errno : expect(ch, RDMA_CM_EVENT_DISCONNECTED);
	if (id->qp)
		rdma_destroy_qp(id);
	rdma_destroy_id(id);
	return ret;
}

static int open_ats(struct ibats **h, const char *mode, const char *sock)
{
	struct ibats_opts o = { .socket_path = sock };

	if (!strcmp(mode, "sa"))
		o.flags = IBATS_NO_AGENT;
	else if (!strcmp(mode, "agent"))
		o.flags = IBATS_NO_SA; /* a miss must not fall back to the SA */
	else
		return -EINVAL;
	return ibats_open(h, &o);
}

/* What an unmodified program does (mode acm): rdma_getaddrinfo() of the
 * destination IP from our source, which librdmacm asks the node's ibacm
 * (acm.c ucma_ib_resolve); its AF_IB answer, with the route, in *sib. */
static int acm_lookup(const char *src_s, const char *dst_s, uint16_t port,
		      struct sockaddr_ib *sib)
{
	struct rdma_addrinfo hints, *res = NULL;
	struct sockaddr_storage src;
	char service[8];
	int ret = 0;

	if (parse_ip(src_s, 0, &src))
		return -EINVAL;
	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = RDMA_PS_TCP;
	hints.ai_src_addr = (struct sockaddr *)&src;
	hints.ai_src_len = src.ss_family == AF_INET ? sizeof(struct sockaddr_in) :
			   sizeof(struct sockaddr_in6);
	snprintf(service, sizeof(service), "%u", port);
	if (rdma_getaddrinfo(dst_s, service, &hints, &res))
		return -errno ? -errno : -EHOSTUNREACH;
	if (res->ai_family != AF_IB || !res->ai_route_len)
		ret = -ENODATA; /* ibacm gave no path: librdmacm fell back to IP */
	else
		memcpy(sib, res->ai_dst_addr, sizeof(*sib));
	rdma_freeaddrinfo(res);
	return ret;
}

static int client(const char *mode, size_t n, uint16_t port, const char *src_s,
		  const char *dst_s, const char *arg)
{
	struct sockaddr_storage src, dst;
	struct sockaddr_ib sib = { .sib_family = AF_IB };
	struct rdma_event_channel *ch;
	struct ibats *h = NULL;
	uint8_t pdata[IBATS_A11_LEN];
	double *tc = calloc(n, sizeof(*tc)), *ta = calloc(n, sizeof(*ta));
	int by_gid = !strcmp(mode, "gid"), by_acm = !strcmp(mode, "acm"), ret;
	unsigned long q = 0;
	size_t i;

	if (!tc || !ta)
		return 2;
	/* The A11 header is sent in every mode: only ATS differs. */
	if (parse_ip(src_s, port, &src) || parse_ip(dst_s, 0, &dst)) {
		fprintf(stderr, "cmbench: not an IP address\n");
		return 2;
	}
	if (by_gid) {
		sib.sib_pkey = htobe16(IBATS_PKEY_DEFAULT);
		sib.sib_sid = htobe64(ibats_ip_cm_sid(IBATS_PS_TCP, port));
		sib.sib_sid_mask = htobe64(UINT64_MAX);
		if (!arg || inet_pton(AF_INET6, arg, &sib.sib_addr) != 1) {
			fprintf(stderr, "cmbench: %s: not a GID\n", arg ? arg : "(none)");
			return 2;
		}
	} else if (!by_acm && (ret = open_ats(&h, mode, arg))) {
		fprintf(stderr, "cmbench: ibats_open: %s\n", strerror(-ret));
		return 3;
	}
	if (ibats_a11_encode((struct sockaddr *)&src, (struct sockaddr *)&dst, pdata,
			     sizeof(pdata)) < 0)
		return 2;
	ch = rdma_create_event_channel();
	if (!ch) {
		perror("cmbench: rdma_create_event_channel");
		return 3;
	}
	for (i = 0, ret = 0; i < n && !ret; i++) {
		double t0 = now_us(), t1 = t0, t2 = t0;

		if (by_acm) {
			ret = acm_lookup(src_s, dst_s, port, &sib);
			t1 = now_us();
			if (ret) {
				fprintf(stderr, "cmbench: %s: no path from ibacm: %s\n", dst_s,
					strerror(-ret));
				break;
			}
		} else if (!by_gid) {
			ret = ibats_sockaddr_ib(h, (struct sockaddr *)&dst, port, 0, &sib);
			t1 = now_us();
			q += sa_queries(h);
			if (ret) {
				fprintf(stderr, "cmbench: %s: no ATS holder: %s\n", dst_s,
					strerror(-ret));
				break;
			}
		}
		ret = connect_one(ch, &sib, pdata, &t2);
		ta[i] = t1 - t0;
		tc[i] = t2 - t0;
	}
	if (ret)
		fprintf(stderr, "cmbench: connection %zu: %s\n", i, strerror(-ret));
	else {
		report("connect", mode, tc, n);
		if (by_acm) {
			/* the first lookup is cold: one ATS request, one PathRecord */
			printf("ats_acm_cold %.1f\n", ta[0]);
			report("ats", mode, ta + (n > 1), n - (n > 1));
		} else if (!by_gid) {
			report("ats", mode, ta, n);
			report_sa("ats", mode, q, n);
		}
	}
	rdma_destroy_event_channel(ch);
	if (h)
		ibats_close(h);
	free(tc);
	free(ta);
	return ret ? 3 : 0;
}

/* The A11 check of examples/rdma_ats: 0 accepted, else why in why. */
static int check_peer(struct ibats *h, struct rdma_cm_event *ev, char *why, size_t len)
{
	struct sockaddr_storage src, dst;
	struct sockaddr_ib peer;
	int ret;

	ret = ibats_a11_decode(ev->param.conn.private_data, ev->param.conn.private_data_len,
			       &src, &dst);
	if (ret) {
		snprintf(why, len, "bad Annex A11 header");
		return ret;
	}
	if (rdma_get_peer_addr(ev->id)->sa_family != AF_IB) {
		snprintf(why, len, "not an AF_IB request");
		return -EAFNOSUPPORT;
	}
	memcpy(&peer, rdma_get_peer_addr(ev->id), sizeof(peer));
	return ibats_check_peer(h, peer.sib_addr.sib_raw, (struct sockaddr *)&src, why, len);
}

static int on_request(struct ibats *h, struct rdma_cm_event *ev, double *tk,
		      unsigned long *q)
{
	struct rdma_conn_param cp = { .responder_resources = 1, .initiator_depth = 1 };
	char why[REJECT_MAX] = "";
	double t0 = now_us();
	int ret = h ? check_peer(h, ev, why, sizeof(why)) : 0;

	*tk = now_us() - t0;
	if (h)
		*q += sa_queries(h);
	if (ret) {
		fprintf(stderr, "cmbench: rejected: %s\n", why);
		rdma_reject(ev->id, why, (uint8_t)(strlen(why) + 1));
		return ret;
	}
	ret = make_qp(ev->id);
	if (!ret && rdma_accept(ev->id, &cp))
		ret = -errno;
	return ret;
}

static int server(const char *check, size_t n, uint16_t port, const char *sock)
{
	struct sockaddr_ib sib = { .sib_family = AF_IB };
	struct rdma_event_channel *ch;
	struct rdma_cm_id *listen_id;
	struct ibats *h = NULL;
	double *ta = calloc(n, sizeof(*ta)), *tk = calloc(n, sizeof(*tk));
	size_t accepted = 0, closed = 0;
	unsigned long q = 0;
	int ret = 0;

	if (!ta || !tk)
		return 2;
	if (strcmp(check, "none") && (ret = open_ats(&h, check, sock))) {
		fprintf(stderr, "cmbench: ibats_open: %s\n", strerror(-ret));
		return 3;
	}
	sib.sib_pkey = htobe16(IBATS_PKEY_DEFAULT);
	sib.sib_sid = htobe64(ibats_ip_cm_sid(IBATS_PS_TCP, port));
	sib.sib_sid_mask = htobe64(UINT64_MAX);
	ch = rdma_create_event_channel();
	if (!ch || rdma_create_id(ch, &listen_id, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(listen_id, (struct sockaddr *)&sib) || rdma_listen(listen_id, 8)) {
		perror("cmbench: listen");
		return 3;
	}
	printf("listening\n");
	fflush(stdout);
	while (closed < n && !ret) {
		struct rdma_cm_event *ev;
		struct rdma_cm_id *id;
		int done = 0;

		ret = next_event(ch, &ev);
		if (ret)
			break;
		id = ev->id;
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST && accepted < n) {
			double t0 = now_us();

			ret = on_request(h, ev, &tk[accepted], &q);
			ta[accepted++] = now_us() - t0;
			done = ret != 0;
		} else if (ev->event == RDMA_CM_EVENT_DISCONNECTED) {
			if (id->qp)
				rdma_destroy_qp(id);
			done = 1;
			closed++;
		}
		rdma_ack_cm_event(ev);
		if (done)
			rdma_destroy_id(id);
	}
	if (ret)
		fprintf(stderr, "cmbench: server after %zu connections: %s\n", accepted,
			strerror(-ret));
	else {
		report("accept", check, ta, n);
		if (h) {
			report("check", check, tk, n);
			report_sa("check", check, q, n);
		}
	}
	rdma_destroy_id(listen_id);
	rdma_destroy_event_channel(ch);
	if (h)
		ibats_close(h);
	free(ta);
	free(tk);
	return ret ? 3 : 0;
}

int main(int argc, char **argv)
{
	size_t n = argc > 3 ? strtoul(argv[3], NULL, 0) : 0;
	uint16_t port = argc > 4 ? (uint16_t)strtoul(argv[4], NULL, 0) : 0;

	if (n && port && argc >= 5 && argc <= 6 && !strcmp(argv[1], "server"))
		return server(argv[2], n, port, argc == 6 ? argv[5] : NULL);
	if (n && port && argc >= 7 && argc <= 8 && !strcmp(argv[1], "client"))
		return client(argv[2], n, port, argv[5], argv[6], argc == 8 ? argv[7] : NULL);
	fprintf(stderr, "usage: cmbench server none|agent|sa N PORT [SOCK]\n"
			"       cmbench client gid|agent|sa N PORT SRC_IP DST_IP [GID|SOCK]\n");
	return 2;
}
