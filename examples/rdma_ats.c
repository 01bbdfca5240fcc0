/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* rdma_ats: connecting by IP address with librdmacm over AF_IB, the
 * address translation done by libibats (the DAT Collaborative ATS).
 *
 *   rdma_ats server [-P PORT]              listen on the IP CM service ID of PORT
 *   rdma_ats client [-P PORT] SRC_IP DST_IP connect to DST_IP from SRC_IP
 *
 * Client: ibats_sockaddr_ib() turns DST_IP into the AF_IB address of its
 * ATS holder (the GID, primary holders first, the service ID of PORT in
 * the TCP port space); rdma_resolve_addr, rdma_resolve_route, and
 * rdma_connect with the IBTA Vol 1 Annex A11 header (ibats_a11_encode)
 * as the private data: with AF_IB the kernel adds none. The server's
 * kernel reads that header all the same (cma.c cma_ib_id_from_event):
 * it passes the request on only when DST_IP is on the server's IPoIB
 * interface at the path's P_Key, else it rejects it itself (reason 28,
 * no private data). atsd then asks again in its AF_IB form (core/a11.h);
 * this example keeps to the standard's one.
 * Server: rdma_listen on AF_IB with the same service ID; on each
 * CONNECT_REQUEST it decodes the A11 header (ibats_a11_decode), checks
 * that the requester's GID is the port that holds the request's LID and
 * has the claimed source address as its ATS primary
 * (ibats_check_peer_lid), and accepts, or rejects with the reason as the
 * reject's private data.
 *
 * It runs on a host with the kernel's rdma_cm (ib_cm, rdma_ucm) and, the
 * same binary, on the simulated host (simhost/RDMACM.md: simhostd
 * plays rdma_ucm and ib_cm for the unmodified librdmacm). Its refusals
 * and its client's errors read as atsd's (hostagent/atsd/sa/rcm.c): the
 * reason text (ibats_check_peer_lid's) prefixed "ibats: ", "rejected (reason
 * N): TEXT", the failed step named. */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/ib.h>
#include <rdma/rdma_cma.h>

#include <ibats/ibats.h>

#define TIMEOUT_MS 2000
#define REJECT_MAX 148 /* IBTA Vol 1 12.6.7: REJ private data */

static int parse_ip(const char *s, uint16_t port, struct sockaddr_storage *ss)
{
	struct sockaddr_in s4 = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6, .sin6_port = htons(port) };

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, s, &s4.sin_addr) == 1) {
		memcpy(ss, &s4, sizeof(s4));
		return 0;
	}
	if (inet_pton(AF_INET6, s, &s6.sin6_addr) == 1) {
		memcpy(ss, &s6, sizeof(s6));
		return 0;
	}
	return -EINVAL;
}

/* Wait for one event of the expected type; anything else is an error. */
static int expect(struct rdma_event_channel *ch, enum rdma_cm_event_type want,
		  struct rdma_cm_event **out)
{
	struct rdma_cm_event *ev;

	if (rdma_get_cm_event(ch, &ev))
		return -errno;
	if (ev->event != want) {
		const char *t = ev->param.conn.private_data;
		int n = 0;

		/* status is the REJ's reason (8: nobody listens, 28: the
		 * listener refused, its text in the private data). */
		while (ev->event == RDMA_CM_EVENT_REJECTED && t &&
		       n < ev->param.conn.private_data_len && t[n])
			n++;
		if (ev->event == RDMA_CM_EVENT_REJECTED)
			fprintf(stderr, "rdma_ats: rejected (reason %d): %.*s\n", ev->status,
				n ? n : (int)sizeof("no reason given") - 1, n ? t : "no reason given");
		else
			fprintf(stderr, "rdma_ats: %s (status %d), expected %s\n",
				rdma_event_str(ev->event), ev->status, rdma_event_str(want));
		rdma_ack_cm_event(ev);
		return -ECONNREFUSED;
	}
	if (out)
		*out = ev;
	else
		rdma_ack_cm_event(ev);
	return 0;
}

/* A queue pair for the connection: the smallest that rdma_connect takes. */
static int make_qp(struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr attr = {
		.cap = { .max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};

	return rdma_create_qp(id, NULL, &attr) ? -errno : 0;
}

static int client(struct ibats *h, uint16_t port, const char *src_s, const char *dst_s)
{
	struct sockaddr_storage src, dst;
	struct rdma_conn_param cp = { .responder_resources = 1, .initiator_depth = 1,
				      .retry_count = 7, .rnr_retry_count = 7 };
	struct rdma_event_channel *ch;
	struct sockaddr_ib sib;
	struct rdma_cm_id *id;
	uint8_t pdata[IBATS_A11_LEN];
	int ret;

	/* The source port is the client's choice (Annex A11 carries it for
	 * the server's information); this example uses the service port. */
	if (parse_ip(src_s, port, &src) || parse_ip(dst_s, 0, &dst)) {
		fprintf(stderr, "rdma_ats: not an IP address\n");
		return 2;
	}
	ret = ibats_sockaddr_ib(h, (struct sockaddr *)&dst, port, 0, &sib);
	if (ret) {
		fprintf(stderr, "rdma_ats: %s has no ATS holder: %s\n", dst_s, strerror(-ret));
		return ibats_exit_code(ret);
	}
	ret = ibats_a11_encode((struct sockaddr *)&src, (struct sockaddr *)&dst, pdata,
			       sizeof(pdata));
	if (ret < 0) {
		fprintf(stderr, "rdma_ats: A11 header: %s\n", strerror(-ret));
		return 2;
	}
	cp.private_data = pdata;
	cp.private_data_len = (uint8_t)ret;
	ch = rdma_create_event_channel();
	if (!ch || rdma_create_id(ch, &id, NULL, RDMA_PS_TCP)) {
		perror("rdma_ats: rdma_create_id");
		return 3;
	}
	ret = rdma_resolve_addr(id, NULL, (struct sockaddr *)&sib, TIMEOUT_MS) ? -errno :
	      expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED, NULL);
	if (!ret)
		ret = rdma_resolve_route(id, TIMEOUT_MS) ? -errno :
		      expect(ch, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL);
	if (!ret)
		ret = make_qp(id);
	if (!ret)
		ret = rdma_connect(id, &cp) ? -errno : expect(ch, RDMA_CM_EVENT_ESTABLISHED, NULL);
	if (!ret) {
		printf("connected to %s\n", dst_s);
		rdma_disconnect(id);
	} else {
		fprintf(stderr, "rdma_ats: connect to %s: %s\n", dst_s, strerror(-ret));
	}
	if (id->qp)
		rdma_destroy_qp(id);
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ch);
	return ret ? 3 : 0;
}

/* One connection request: accept it when the requester's GID is the
 * port that holds the request's LID and owns the A11 source address as
 * its ATS primary, else reject with the reason. On the passive side the
 * kernel puts the REQ's primary local LID (the requester's, where the
 * REP goes) in the path's DLID (cm.c cm_format_paths_from_req).
 * Returns 1 when the id is to be destroyed (after the event is acked:
 * rdma_destroy_id waits for that). */
static int on_request(struct ibats *h, struct rdma_cm_event *ev)
{
	struct rdma_cm_id *id = ev->id;
	struct sockaddr_storage src, dst;
	struct sockaddr_ib peer;
	char why[REJECT_MAX], text[REJECT_MAX];
	int ret;

	ret = ibats_a11_decode(ev->param.conn.private_data, ev->param.conn.private_data_len,
			       &src, &dst);
	if (ret) {
		snprintf(why, sizeof(why), "bad Annex A11 header: %s", strerror(-ret));
	} else if (rdma_get_peer_addr(id)->sa_family != AF_IB) {
		snprintf(why, sizeof(why), "not an AF_IB request");
		ret = -EAFNOSUPPORT;
	} else if (!id->route.path_rec) {
		snprintf(why, sizeof(why), "no path in the request");
		ret = -EINVAL;
	} else {
		memcpy(&peer, rdma_get_peer_addr(id), sizeof(peer));
		ret = ibats_check_peer_lid(h, peer.sib_addr.sib_raw,
					   be16toh(id->route.path_rec->dlid),
					   (struct sockaddr *)&src, why, sizeof(why));
	}
	if (!ret) {
		struct rdma_conn_param cp = { .responder_resources = 1, .initiator_depth = 1 };

		ret = make_qp(id);
		if (!ret && !rdma_accept(id, &cp)) {
			printf("accepted: %s\n", why);
			return 0;
		}
		snprintf(why, sizeof(why), "server error: %s", strerror(ret ? -ret : errno));
		if (id->qp)
			rdma_destroy_qp(id);
	}
	/* The REJ text as atsd's listener words it. */
	snprintf(text, sizeof(text), "ibats: %.*s", (int)sizeof(text) - 8, why);
	printf("rejected: %s\n", text);
	rdma_reject(id, text, (uint8_t)(strlen(text) + 1));
	return 1;
}

static int server(struct ibats *h, uint16_t port)
{
	struct sockaddr_ib sib = { .sib_family = AF_IB };
	struct rdma_event_channel *ch;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *listen_id;

	/* Any local GID, the service ID of port, every bit of it compared. */
	sib.sib_pkey = htobe16(IBATS_PKEY_DEFAULT);
	sib.sib_sid = htobe64(ibats_ip_cm_sid(IBATS_PS_TCP, port));
	sib.sib_sid_mask = htobe64(UINT64_MAX);
	ch = rdma_create_event_channel();
	if (!ch || rdma_create_id(ch, &listen_id, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(listen_id, (struct sockaddr *)&sib) || rdma_listen(listen_id, 8)) {
		perror("rdma_ats: listen");
		return 3;
	}
	printf("listening on service ID 0x%016llx\n",
	       (unsigned long long)ibats_ip_cm_sid(IBATS_PS_TCP, port));
	while (!rdma_get_cm_event(ch, &ev)) {
		struct rdma_cm_id *id = ev->id;
		int done = 0;

		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
			done = on_request(h, ev);
		} else if (ev->event == RDMA_CM_EVENT_DISCONNECTED) {
			if (id->qp)
				rdma_destroy_qp(id);
			done = 1;
		}
		rdma_ack_cm_event(ev);
		if (done)
			rdma_destroy_id(id);
	}
	rdma_destroy_id(listen_id);
	rdma_destroy_event_channel(ch);
	return 0;
}

int main(int argc, char **argv)
{
	struct ibats *h;
	uint16_t port = 7471;
	int c, ret;

	while ((c = getopt(argc, argv, "P:")) != -1) {
		if (c != 'P')
			return 2;
		port = (uint16_t)strtoul(optarg, NULL, 0);
	}
	if (argc - optind < 1 ||
	    (strcmp(argv[optind], "server") && argc - optind != 3)) {
		fprintf(stderr, "usage: rdma_ats server [-P PORT] | client [-P PORT] SRC_IP DST_IP\n");
		return 2;
	}
	/* A line at a time: the server's accepts and refusals are read
	 * while it runs, its output often a file. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = ibats_open(&h, NULL);
	if (ret) {
		fprintf(stderr, "rdma_ats: ibats_open: %s\n", strerror(-ret));
		return ibats_exit_code(ret);
	}
	if (!strcmp(argv[optind], "server"))
		ret = server(h, port);
	else
		ret = client(h, port, argv[optind + 1], argv[optind + 2]);
	ibats_close(h);
	return ret;
}
