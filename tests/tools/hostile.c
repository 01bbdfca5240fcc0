/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* hostile LID SM_LID [reports]: send malformed MADs, as a broken or
 * malicious host would, to a node (vendor 0x34/0x32, CM 0x07) and to the
 * SA (ServiceRecord Set/Delete/Get with extreme fields). With "reports",
 * only SA Reports (traps 64/65, forged and garbled) to the node, which
 * must refuse them: they do not come from its SA. Prints what it sent and
 * how many answers came; the test then checks that everybody lives.
 *
 * hostile mra TIMEOUT: a CM peer that never answers: serves CM Sends
 * through umad (a node without ib_cm), prints each REQ it receives and
 * answers every REQ seen with an MRA (service timeout TIMEOUT) every
 * 20 ms until SIGTERM, never a REP; then prints how many MRAs it sent.
 *
 * hostile req LID GID SID COUNT IP [as CLAIM_GID] [rtu]: a requester
 * that never completes: COUNT REQs (RC, each its own comm ID) to LID/GID
 * for service SID with an Annex A11 header claiming source IP, the
 * longest CM response timeout and most retries a REQ can ask for (the
 * listener's ib_cm then keeps each REP outstanding for hours), never an
 * RTU; prints each REP and REJ (reason, private data text) until
 * SIGTERM. "as": the REQ's primary path names CLAIM_GID as the
 * requester's (another host's) with this port's own LID, where the REP
 * comes back. "rtu": each REP gets its RTU, and the requester then
 * leaves without a DREQ: established connections nobody uses.
 * "lid CLAIM_LID": the REQ's primary path names CLAIM_LID as the
 * requester's LID (blind: the REP goes there, not here). "every MS": the
 * COUNT REQs again every MS ms, each with a fresh comm ID. "claims FILE":
 * COUNT REQs for each "GID LID" line of FILE (as and lid of each). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/a11.h"
#include "core/ats.h"
#include "simhost/wire/cmwire.h"
#include "core/mono.h"
#include "core/mport.h"
#include "core/notice.h"
#include "core/sa.h"
#include "core/vmad.h"
#include "core/wire.h"

static unsigned sent, answered;

static void hdr(uint8_t *m, uint8_t cls, uint8_t ver, uint8_t method, uint16_t attr)
{
	struct mad_hdr h = { MAD_BASE_VERSION, cls, ver, method, 0, 0, 0, attr, 0 };

	memset(m, 0, MAD_SIZE);
	mad_hdr_encode(m, &h);
}

static void fire(struct mport *p, int agent, uint16_t lid, uint8_t *m, int want)
{
	struct mport_dest d = { lid, SA_QP, SA_QKEY, 0 };
	struct mport_rpc_opts o = { 100, 0, 0, 0 };
	uint8_t *resp = NULL;
	size_t len;

	sent++;
	if (want) {
		if (!mport_rpc(p, agent, &d, m, MAD_SIZE, &o, &resp, &len))
			answered++;
		free(resp);
	} else {
		mport_send(p, agent, &d, m, MAD_SIZE);
	}
}

/* Reports as the SA sends them, from the wrong LID, then garbled ones. */
static void reports(struct mport *p, int asa, uint16_t lid)
{
	uint8_t m[MAD_SIZE], gid[16];
	struct notice n;
	unsigned i, v;

	for (i = 0; i < 16; i++) {
		hdr(m, SA_CLASS, SA_CLASS_VERSION, SA_METHOD_REPORT, SA_ATTR_NOTICE);
		for (v = 0; v < 16; v++)
			gid[v] = (uint8_t)rand();
		notice_gid_trap(&n, i % 2 ? NOTICE_TRAP_GID_OUT : NOTICE_TRAP_GID_IN, 1, gid, gid);
		notice_encode(m + SA_OFF_DATA, &n);
		if (i >= 8)
			for (v = SA_OFF_DATA; v < MAD_SIZE; v++)
				m[v] = (uint8_t)rand();
		fire(p, asa, lid, m, 1);
	}
}

#define STORM_MS 20
#define STORM_PEERS 16

struct storm {
	struct mport *p;
	unsigned n;
	uint32_t comm[STORM_PEERS]; /* the REQs' local comm IDs */
	uint64_t tid[STORM_PEERS];
	struct mport_held from[STORM_PEERS];
};

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

/* Every REQ is printed (a retry is the same comm ID again); the first of
 * each comm ID is kept to be MRAed. Nothing is answered here. */
static size_t storm_req(const uint8_t *req, size_t len, uint8_t *resp, size_t cap, void *ctx)
{
	struct storm *s = ctx;
	struct cmwire_req r;
	unsigned i;

	(void)resp;
	(void)cap;
	if (len < CMWIRE_DATA_OFF + CMWIRE_DATA_SIZE || wire_get16(req + MAD_OFF_ATTR_ID) != CMWIRE_ATTR_REQ ||
	    cmwire_req_decode(req + CMWIRE_DATA_OFF, len - CMWIRE_DATA_OFF, &r))
		return 0;
	for (i = 0; i < s->n && s->comm[i] != r.local_comm_id; i++)
		;
	if (i == s->n && i < STORM_PEERS && !mport_requester(s->p, &s->from[i])) {
		s->comm[i] = r.local_comm_id;
		s->tid[i] = wire_get64(req + MAD_OFF_TID);
		s->n++;
	}
	printf("REQ 0x%08x\n", r.local_comm_id);
	return 0;
}

/* IBTA 12.6.6 (Table 107): MRA of a REQ (MessageMRAed 0), with the REQ's
 * TID as cm.c cm_format_mra does. */
static void storm_mra(struct storm *s, unsigned i, uint8_t timeout)
{
	struct cmwire_mra m = { 0 };
	uint8_t mad[MAD_SIZE];

	hdr(mad, CMWIRE_CLASS, CMWIRE_CLASS_VERSION, 0x03, CMWIRE_ATTR_MRA);
	wire_put64(mad + MAD_OFF_TID, s->tid[i]);
	m.local_comm_id = ~s->comm[i];
	m.remote_comm_id = s->comm[i];
	m.message_mraed = 0;
	m.service_timeout = timeout;
	cmwire_mra_encode(mad + CMWIRE_DATA_OFF, &m);
	if (!mport_answer_held(s->p, &s->from[i], mad, MAD_SIZE))
		sent++;
}

static int storm(uint8_t timeout)
{
	struct storm s = { 0 };
	struct sigaction sa = { 0 };
	int64_t next;
	unsigned i;

	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (mport_open(&s.p, NULL, 0))
		return 3;
	if (mport_register_serve(s.p, CMWIRE_CLASS, CMWIRE_CLASS_VERSION, 0x03) < 0) {
		mport_close(s.p);
		return 3;
	}
	mport_set_responder(s.p, storm_req, &s);
	printf("storming: an MRA (service timeout %u) to every REQ every %d ms\n", timeout,
	       STORM_MS);
	for (next = mono_ms() + STORM_MS; !stop;) {
		int64_t now = mono_ms();

		if (now < next) {
			mport_serve(s.p, (int)(next - now));
			continue;
		}
		for (i = 0; i < s.n; i++)
			storm_mra(&s, i, timeout);
		next = now + STORM_MS;
	}
	printf("sent %u MRAs\n", sent);
	mport_close(s.p);
	return 0;
}

/* Where the REQs go; whether each REP gets its RTU. */
struct req_peer {
	struct mport *p;
	int agent;
	struct mport_dest d;
	int rtu;
};

/* Each answer to our REQs, the REJ's text up to its first NUL. */
static size_t req_answer(const uint8_t *mad, size_t len, uint8_t *resp, size_t cap, void *ctx)
{
	uint16_t attr = wire_get16(mad + MAD_OFF_ATTR_ID);
	struct req_peer *q = ctx;
	struct cmwire_rep rep;
	struct cmwire_rej rej;
	struct cmwire_rtu rtu;
	uint8_t m[MAD_SIZE];

	(void)resp;
	(void)cap;
	if (len < CMWIRE_DATA_OFF + CMWIRE_DATA_SIZE)
		return 0;
	if (attr == CMWIRE_ATTR_REP && !cmwire_rep_decode(mad + CMWIRE_DATA_OFF, len - CMWIRE_DATA_OFF, &rep)) {
		printf("REP 0x%08x\n", rep.remote_comm_id);
		if (!q->rtu)
			return 0;
		memset(&rtu, 0, sizeof(rtu));
		rtu.local_comm_id = rep.remote_comm_id;
		rtu.remote_comm_id = rep.local_comm_id;
		hdr(m, CMWIRE_CLASS, CMWIRE_CLASS_VERSION, 0x03, CMWIRE_ATTR_RTU);
		wire_put64(m + MAD_OFF_TID, 0x5eed100000000000ull | rep.remote_comm_id);
		cmwire_rtu_encode(m + CMWIRE_DATA_OFF, &rtu);
		mport_send(q->p, q->agent, &q->d, m, MAD_SIZE);
	} else if (attr == CMWIRE_ATTR_DREQ) {
		printf("DREQ\n");
	} else if (attr == CMWIRE_ATTR_REJ &&
		 !cmwire_rej_decode(mad + CMWIRE_DATA_OFF, len - CMWIRE_DATA_OFF, &rej))
		printf("REJ 0x%08x reason %u: %.*s\n", rej.remote_comm_id, rej.reason,
		       (int)strnlen((const char *)rej.private_data, CMWIRE_REJ_PDATA), rej.private_data);
	return 0;
}

static int half_open(int argc, char **argv)
{
	struct req_peer q = { NULL, 0, { (uint16_t)strtoul(argv[2], NULL, 0), 1, 0x80010000, 0 }, 0 };
	unsigned i, n = (unsigned)strtoul(argv[5], NULL, 0);
	struct sigaction sa = { 0 };
	struct mport_info pi;
	struct cmwire_req r;
	struct a11_pdata ip;
	uint8_t mad[MAD_SIZE], gid[16], claim[16];
	int a, as = 0;
	long claim_lid = -1, every = 0;
	unsigned round = 0, k, nclaims = 0;
	int64_t next = 0;
	static uint8_t cgid[64][16];
	static long clid[64];
	char line[160], cg[128];
	FILE *f;

	memset(&ip, 0, sizeof(ip));
	if (ats_gid_parse(argv[3], gid) || ats_ip_parse(argv[6], &ip.src))
		return 2;
	for (a = 7; a < argc; a++) {
		if (!strcmp(argv[a], "rtu"))
			q.rtu = 1;
		else if (!strcmp(argv[a], "as") && a + 1 < argc && !ats_gid_parse(argv[a + 1], claim))
			as = ++a;
		else if (!strcmp(argv[a], "lid") && a + 1 < argc)
			claim_lid = strtol(argv[++a], NULL, 0);
		else if (!strcmp(argv[a], "claims") && a + 1 < argc && (f = fopen(argv[++a], "r"))) {
			while (nclaims < 64 && fgets(line, sizeof(line), f))
				if (sscanf(line, "%127s %li", cg, &clid[nclaims]) == 2 &&
				    !ats_gid_parse(cg, cgid[nclaims]))
					nclaims++;
			fclose(f);
		} else if (!strcmp(argv[a], "every") && a + 1 < argc)
			every = strtol(argv[++a], NULL, 0);
		else
			return 2;
	}
	ip.dst = ip.src;
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (mport_open(&q.p, NULL, 0) || mport_query(q.p, &pi))
		return 3;
	q.agent = mport_register_serve(q.p, CMWIRE_CLASS, CMWIRE_CLASS_VERSION, 0x03);
	if (q.agent < 0)
		return 3;
	mport_set_responder(q.p, req_answer, &q);
again:
	for (k = 0; k < (nclaims ? nclaims : 1); k++)
	for (i = 0; i < n; i++) {
		if (nclaims) {
			as = 1;
			memcpy(claim, cgid[k], 16);
			claim_lid = clid[k];
		}
		memset(&r, 0, sizeof(r));
		r.local_comm_id = 0x5eed0000 + (round * 64 + k) * n + i;
		r.service_id = strtoull(argv[4], NULL, 0);
		r.local_ca_guid = pi.port_guid;
		r.local_qpn = 0x100 + i;
		r.starting_psn = i;
		r.local_cm_response_timeout = 31;
		r.remote_cm_response_timeout = 31;
		r.max_cm_retries = 15;
		r.pkey = 0xffff;
		r.path_mtu = 4;
		r.retry_count = 7;
		r.rnr_retry_count = 7;
		r.primary.local_lid = claim_lid >= 0 ? (uint16_t)claim_lid : pi.lid;
		r.primary.remote_lid = q.d.lid;
		memcpy(r.primary.local_gid, as ? claim : pi.gid, 16);
		memcpy(r.primary.remote_gid, gid, 16);
		r.primary.subnet_local = 1;
		r.primary.local_ack_timeout = 14;
		/* the AF_IB form: the listener's kernel takes it whatever
		 * its IPoIB holds (a11.h), as atsd's retry does */
		a11_pdata_encode_ib(r.private_data, &ip);
		hdr(mad, CMWIRE_CLASS, CMWIRE_CLASS_VERSION, 0x03, CMWIRE_ATTR_REQ);
		wire_put64(mad + MAD_OFF_TID, 0x5eed000000000000ull + (round * 64 + k) * n + i);
		cmwire_req_encode(mad + CMWIRE_DATA_OFF, &r);
		mport_send(q.p, q.agent, &q.d, mad, MAD_SIZE);
	}
	printf("sent %u REQs\n", n);
	if (every > 0) {
		round++;
		next = mono_ms() + every;
		while (!stop && mono_ms() < next)
			mport_serve(q.p, 20);
		if (!stop)
			goto again;
	}
	while (!stop)
		mport_serve(q.p, 100);
	mport_close(q.p);
	return 0;
}

int main(int argc, char **argv)
{
	uint16_t lid, sm;
	struct mport *p;
	int a34, a32, acm, asa;
	uint8_t m[MAD_SIZE];
	unsigned i, v;

	if (argc >= 7 && argc <= 14 && !strcmp(argv[1], "req"))
		return half_open(argc, argv);
	if (argc == 3 && !strcmp(argv[1], "mra"))
		return storm((uint8_t)(strtoul(argv[2], NULL, 0) & 0x1f));
	if (argc != 3 && (argc != 4 || strcmp(argv[3], "reports")))
		return 2;
	lid = (uint16_t)strtoul(argv[1], NULL, 0);
	sm = (uint16_t)strtoul(argv[2], NULL, 0);
	srand(42);
	if (mport_open(&p, NULL, 0))
		return 3;
	a34 = mport_register_oui(p, VMAD_CLASS_LIVENESS, VMAD_LIVENESS_VERSION, 1, VMAD_OUI_OPENIB, 0);
	a32 = mport_register_oui(p, VMAD_CLASS_IBPING, 1, 0, VMAD_OUI_OPENIB, 0);
	acm = mport_register(p, CMWIRE_CLASS, CMWIRE_CLASS_VERSION, 0);
	asa = mport_register(p, SA_CLASS, SA_CLASS_VERSION, 1);
	if (a34 < 0 || a32 < 0 || acm < 0 || asa < 0)
		return 3;
	if (argc == 4) {
		reports(p, asa, lid);
		printf("sent %u forged Reports, %u answered\n", sent, answered);
		mport_close(p);
		return 0;
	}

	/* Liveness: every type, every class version 0..3, odd methods. */
	for (i = 0; i < 256; i += 7) {
		vmad_liv_build(m, MAD_SIZE, VMAD_LIV_ECHO_REQ, 1, (uint16_t)i, NULL, 0, 0);
		m[VMAD_LIV_OFF_TYPE] = (uint8_t)i;
		m[MAD_OFF_CLASS_VERSION] = (uint8_t)(i & 3);
		fire(p, a34, lid, m, 1);
	}
	for (v = 0; v < 0x80; v += 5) {
		vmad_liv_build(m, MAD_SIZE, VMAD_LIV_ECHO_REQ, 1, 1, NULL, 0, 0);
		m[MAD_OFF_METHOD] = (uint8_t)v;
		fire(p, a34, lid, m, 1);
	}
	/* ibping with garbage payload. */
	for (i = 0; i < 8; i++) {
		hdr(m, VMAD_CLASS_IBPING, 1, MAD_METHOD_GET, (uint16_t)rand());
		vmad_put_oui(m, VMAD_OUI_OPENIB);
		for (v = VMAD_OFF_DATA; v < MAD_SIZE; v++)
			m[v] = (uint8_t)rand();
		fire(p, a32, lid, m, 1);
	}
	/* CM: every attribute 0x10..0x1f with random bodies, a REQ for an IP
	 * service with garbage private data, versions 0..3. */
	for (i = 0; i < 64; i++) {
		hdr(m, CMWIRE_CLASS, (uint8_t)(i % 4 == 0 ? CMWIRE_CLASS_VERSION : i % 4), 0x03,
		    (uint16_t)(0x10 + i % 16));
		for (v = CMWIRE_DATA_OFF; v < MAD_SIZE; v++)
			m[v] = (uint8_t)rand();
		if (i % 16 == 0)
			wire_put64(m + CMWIRE_DATA_OFF + 8, a11_service_id(A11_PS_TCP, 5001));
		fire(p, acm, lid, m, 0);
	}
	/* SA: ServiceRecord Sets with the ATS name and extreme fields; a Get
	 * and a Delete of the same; a bad class version. */
	for (i = 0; i < 32; i++) {
		uint8_t *r = m + SA_OFF_DATA;

		hdr(m, SA_CLASS, SA_CLASS_VERSION, i % 3 == 2 ? SA_METHOD_DELETE :
		    i % 3 == 1 ? SA_METHOD_GET : SA_METHOD_SET, SA_ATTR_SERVICE_RECORD);
		wire_put64(m + SA_OFF_COMP_MASK, i % 2 ? ~0ull : (uint64_t)rand() << 20 | 3);
		for (v = 0; v < SR_SIZE; v++)
			r[v] = (uint8_t)(i % 4 == 0 ? 0xff : rand());
		ats_name_put(r + SR_OFF_NAME);
		if (i % 5 == 0)
			wire_put64(r + SR_OFF_ID, ATS_SID_PRIMARY);
		fire(p, asa, sm, m, 1);
	}
	hdr(m, SA_CLASS, 7, SA_METHOD_GET, SA_ATTR_SERVICE_RECORD);
	fire(p, asa, sm, m, 1);
	printf("sent %u hostile MADs, %u answered\n", sent, answered);
	mport_close(p);
	return 0;
}
