/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* capbench: the capacity bench's load generator (tests/bench/capacity.sh,
 * issue 15). SA requests are pipelined: up to WINDOW outstanding from one
 * port, each built with lib/core's codec and told apart by TID, so that
 * what is measured is what OpenSM (and ibsim) can serve, not one client's
 * round trip. Records are the bulk records of bulk.h.
 *
 *   capbench ports FILE                      the CA ports' GIDs into FILE; with
 *                                            CAPBENCH_GIDS=FILE the others read
 *                                            them there instead of asking the SA
 *                                            (a Get per LID: seconds at 4,000)
 *   capbench cpi SECS WINDOW                 ClassPortInfo Gets
 *   capbench lookup SECS WINDOW COUNT NGIDS  ATS lookups of random records
 *                                            < COUNT: Get by ServiceName,
 *                                            P_Key and ServiceData8 (atsd's)
 *   capbench load FROM TO NGIDS WINDOW PART PARTS
 *                                            Set records FROM..TO-1 whose GID
 *                                            index % PARTS is PART (SA key)
 *   capbench reset SECS WINDOW COUNT NGIDS   re-Set random records < COUNT
 *   capbench table SECS COUNT NGIDS          GetTable of one random GID's
 *                                            records, one at a time (RMPP)
 *   capbench dump SECS                       GetTable of every ATS record
 *                                            (RMPP), SECS the timeout
 *   capbench atsd SECS CLIENTS PATH FIRST COUNT NGIDS
 *                                            CLIENTS threads, one atsd
 *                                            connection each, resolving the
 *                                            addresses of records FIRST..
 *                                            FIRST+COUNT-1 in turn: a small
 *                                            COUNT is hot (cached), a large
 *                                            one cold (each address once)
 *   capbench libibats SECS CLIENTS FIRST COUNT NGIDS
 *                                            the same through one libibats
 *                                            handle all threads share,
 *                                            opened with IBATS_NO_AGENT:
 *                                            every lookup asks the SA;
 *                                            "sa_queries N" follows
 * With CAPBENCH_GO=PATH, atsd, libibats and dump start when PATH exists
 * (go_wait).
 * Prints "name ok seconds per_second p50_us p99_us failed lost [extra]":
 * ok the requests answered with success, failed those answered with an
 * error status, lost those never answered (1 s without any answer). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ibats/ibats.h>

#include "core/ats.h"
#include "host/atsd_client.h"
#include "bulk.h"
#include "clock.h"
#include "core/mport.h"
#include "core/sa.h"
#include "core/sa_client.h"
#include "core/wire.h"

/* run.sh's and sabench's SA key: OpenSM trusts it (sa_key in opensm.conf). */
#define BENCH_SA_KEY 0x5a5aull
/* No answer at all for this long: what is outstanding is lost. */
#define LOST_MS 1000

struct stats {
	double *lat; /* us, of answered requests */
	size_t nlat, cap;
	size_t ok, failed, lost;
};

static void stats_add(struct stats *s, double us)
{
	if (s->nlat == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 4096;
		double *v = realloc(s->lat, cap * sizeof(*v));

		if (!v)
			return; /* the count stays right; only fewer latencies */
		s->lat = v;
		s->cap = cap;
	}
	s->lat[s->nlat++] = us;
}

static void report(const char *name, struct stats *s, double secs, const char *extra)
{
	double p50 = 0, p99 = 0;

	if (s->nlat) {
		qsort(s->lat, s->nlat, sizeof(*s->lat), cmp_us);
		p50 = s->lat[s->nlat / 2];
		p99 = s->lat[s->nlat * 99 / 100];
	}
	printf("%s %zu %.3f %.0f %.1f %.1f %zu %zu%s%s\n", name, s->ok, secs,
	       secs > 0 ? s->ok / secs : 0, p50, p99, s->failed, s->lost,
	       extra ? " " : "", extra ? extra : "");
	free(s->lat);
}

/* The pipeline: slot seq % window holds request seq while it is out. */
struct slot {
	uint64_t seq;
	double t0;
	int busy;
};

struct pipe {
	struct mport *p;
	int agent;
	struct mport_dest dst;
	uint32_t base; /* TID of request 0 (low 32 bits: ibsim rewrites the rest) */
	unsigned window, busy;
	struct slot *slot;
	uint64_t sent;
	struct stats st;
};

/* Fills mad (MAD_SIZE, zeroed) with request seq; the TID is stamped after. */
typedef void (*build_fn)(uint64_t seq, uint8_t *mad, void *ctx);

static int is_sa_resp(const uint8_t *mad, size_t len, void *ctx)
{
	(void)ctx;
	return len >= SA_OFF_DATA && mad[MAD_OFF_MGMT_CLASS] == SA_CLASS &&
	       (mad[MAD_OFF_METHOD] & MAD_METHOD_RESP_BIT);
}

static void pipe_complete(struct pipe *pp, const uint8_t *mad)
{
	uint32_t seq = (uint32_t)wire_get64(mad + MAD_OFF_TID) - pp->base;
	struct slot *s = &pp->slot[seq % pp->window];

	/* A late answer to a request counted as lost has no slot. */
	if (!s->busy || (uint32_t)s->seq != seq)
		return;
	s->busy = 0;
	pp->busy--;
	if (wire_get16(mad + MAD_OFF_STATUS)) {
		pp->st.failed++;
		return;
	}
	pp->st.ok++;
	stats_add(&pp->st, now_us() - s->t0);
}

/* Keeps the window full until limit requests were sent or secs passed,
 * then collects what is out. Returns the seconds from the first send to
 * the last answer, or -1 on a port error. */
static double pipe_run(struct pipe *pp, uint64_t limit, double secs, build_fn build,
		       void *ctx)
{
	double t0 = now_us(), t_end = t0 + secs * 1e6, t_last = t0;
	uint8_t mad[MAD_SIZE];

	for (;;) {
		uint8_t *resp = NULL;
		size_t len;
		int ret;

		while (pp->busy < pp->window && pp->sent < limit && now_us() < t_end) {
			struct slot *s = &pp->slot[pp->sent % pp->window];

			if (s->busy)
				break; /* the oldest is still out: keep the order simple */
			memset(mad, 0, sizeof(mad));
			build(pp->sent, mad, ctx);
			wire_put64(mad + MAD_OFF_TID, (uint32_t)(pp->base + pp->sent));
			s->seq = pp->sent;
			s->t0 = now_us();
			s->busy = 1;
			if (mport_send_req(pp->p, pp->agent, &pp->dst, mad, sizeof(mad), LOST_MS))
				return -1;
			pp->busy++;
			pp->sent++;
		}
		if (!pp->busy)
			break;
		ret = mport_wait(pp->p, LOST_MS, is_sa_resp, NULL, &resp, &len);
		if (ret == -ETIMEDOUT) {
			unsigned i;

			for (i = 0; i < pp->window; i++)
				pp->slot[i].busy = 0;
			pp->st.lost += pp->busy;
			pp->busy = 0;
			continue;
		}
		if (ret)
			return -1;
		pipe_complete(pp, resp);
		free(resp);
		t_last = now_us();
	}
	return (t_last - t0) / 1e6;
}

static int pipe_init(struct pipe *pp, struct mport *p, struct sa_client *sa, unsigned window)
{
	const struct mport_info *info = sa_client_port(sa);

	memset(pp, 0, sizeof(*pp));
	if (!window || !info->sm_lid)
		return -EINVAL;
	pp->p = p;
	pp->agent = sa_client_agent(sa);
	pp->dst = (struct mport_dest){ info->sm_lid, SA_QP, SA_QKEY, info->sm_sl };
	/* TIDs sa_client's own requests (sa_client_ports) will not use. */
	pp->base = mport_new_tids(p, 1u << 30);
	pp->window = window;
	pp->slot = calloc(window, sizeof(*pp->slot));
	return pp->slot ? 0 : -ENOMEM;
}

static void sa_req_hdr(uint8_t *mad, uint8_t method, uint16_t attr, uint64_t mask)
{
	struct sa_hdr h = { 0 };

	h.mad.base_version = MAD_BASE_VERSION;
	h.mad.mgmt_class = SA_CLASS;
	h.mad.class_version = SA_CLASS_VERSION;
	h.mad.method = method;
	h.mad.attr_id = attr;
	h.sm_key = BENCH_SA_KEY;
	h.comp_mask = mask;
	sa_hdr_encode(mad, &h);
}

struct gen {
	size_t count, ngids, from, part, parts;
	const struct sa_client_ca_port *ports;
	unsigned seed;
};

static const uint64_t set_fields = SR_F_ID | SR_F_GID | SR_F_PKEY | SR_F_NAME | SR_F_DATA8;

static void build_cpi(uint64_t seq, uint8_t *mad, void *ctx)
{
	(void)seq;
	(void)ctx;
	sa_req_hdr(mad, SA_METHOD_GET, SA_ATTR_CLASS_PORT_INFO, 0);
}

/* What atsd (and atsctl resolve) ask for an address. */
static void build_lookup(uint64_t seq, uint8_t *mad, void *ctx)
{
	struct gen *g = ctx;
	struct sr_record q;
	struct ats_ip ip;

	(void)seq;
	memset(&q, 0, sizeof(q));
	ats_name_put(q.name);
	q.pkey = ATS_PKEY_DEFAULT;
	bulk_ip((size_t)rand_r(&g->seed) % g->count, g->ngids, &ip);
	ats_ip_encode(&ip, q.data8);
	sa_req_hdr(mad, SA_METHOD_GET, SA_ATTR_SERVICE_RECORD,
		   sr_comp_mask(SR_F_NAME | SR_F_PKEY | SR_F_DATA8));
	sr_encode(mad + SA_OFF_DATA, &q);
}

static void build_set(size_t i, uint8_t *mad, const struct gen *g)
{
	struct sr_record r;

	bulk_rec(i, g->ngids, g->ports, &r);
	sa_req_hdr(mad, SA_METHOD_SET, SA_ATTR_SERVICE_RECORD, sr_comp_mask(set_fields));
	sr_encode(mad + SA_OFF_DATA, &r);
}

/* Request seq of a load: this part's seq-th record from FROM on. Parts
 * split by GID, so that each GID's records come in SID order from one
 * client (the plugin wants a GID's primary first). */
static size_t load_index(const struct gen *g, uint64_t seq)
{
	size_t per = g->ngids / g->parts + (g->part < g->ngids % g->parts);
	size_t first = g->from - g->from % g->ngids, k = (size_t)seq / per;
	size_t gi = g->part + (size_t)(seq % per) * g->parts;
	size_t i = first + k * g->ngids + gi;

	return i;
}

static void build_load(uint64_t seq, uint8_t *mad, void *ctx)
{
	build_set(load_index(ctx, seq), mad, ctx);
}

static void build_reset(uint64_t seq, uint8_t *mad, void *ctx)
{
	struct gen *g = ctx;

	(void)seq;
	build_set((size_t)rand_r(&g->seed) % g->count, mad, g);
}

/* How many of this part's requests fall in FROM..TO-1: load_index walks
 * whole SID rounds from FROM's round, skipping those below FROM. */
static int load(struct pipe *pp, struct gen *g, size_t to)
{
	size_t per = g->ngids / g->parts + (g->part < g->ngids % g->parts);
	uint64_t seq = 0, end;
	double secs;

	if (!per)
		return 0;
	while (load_index(g, seq) < g->from)
		seq++;
	end = seq;
	while (load_index(g, end) < to)
		end++;
	pp->sent = seq;
	secs = pipe_run(pp, end, 1e9, build_load, g);
	if (secs < 0)
		return 3;
	report("load", &pp->st, secs, NULL);
	return pp->st.failed || pp->st.lost ? 3 : 0;
}

/* CAPBENCH_GO=PATH (storm.sh): every node's clients start together. Set
 * up (connected, SA port open), capbench prints "ready" and waits for PATH
 * to exist; its report then ends with "start_ns S end_ns E", the
 * CLOCK_REALTIME of the start and of the last answer, for the time over
 * all nodes. */
static int go_wait(void)
{
	const char *path = getenv("CAPBENCH_GO");
	struct timespec ts = { 0, 100000 };

	if (!path)
		return 0;
	printf("ready\n");
	fflush(stdout);
	while (access(path, F_OK))
		nanosleep(&ts, NULL);
	return 1;
}

static long long real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* RMPP: GetTable answers of many segments (the kernel reassembles them). */
static int table(struct sa_client *sa, double secs, struct gen *g)
{
	const uint64_t mask = sr_comp_mask(SR_F_GID | SR_F_PKEY | SR_F_NAME);
	double t0 = now_us(), t_end = t0 + secs * 1e6;
	struct stats st = { 0 };
	size_t nrec = 0;
	char extra[64];

	while (now_us() < t_end) {
		struct sr_record q, *recs;
		size_t n;
		double t1 = now_us();

		/* Only GIDs that hold records (g < COUNT). */
		bulk_rec((size_t)rand_r(&g->seed) % (g->count < g->ngids ? g->count : g->ngids),
			 g->ngids, g->ports, &q);
		if (sa_client_sr_get_table(sa, &q, mask, &recs, &n)) {
			st.failed++;
			continue;
		}
		stats_add(&st, now_us() - t1);
		st.ok++;
		nrec += n;
		free(recs);
	}
	snprintf(extra, sizeof(extra), "records_per_table %.1f", st.ok ? (double)nrec / st.ok : 0);
	report("table", &st, (now_us() - t0) / 1e6, extra);
	return st.ok ? 0 : 3;
}

static int dump(struct sa_client *sa)
{
	struct stats st = { 0 };
	struct sr_record q, *recs;
	int go = go_wait();
	double t0 = now_us();
	long long s_ns = real_ns();
	size_t n = 0;
	char extra[96];

	memset(&q, 0, sizeof(q));
	ats_name_put(q.name);
	if (sa_client_sr_get_table(sa, &q, sr_comp_mask(SR_F_NAME), &recs, &n))
		st.failed++;
	else
		st.ok++;
	free(recs);
	stats_add(&st, now_us() - t0);
	if (go)
		snprintf(extra, sizeof(extra), "records %zu start_ns %lld end_ns %lld", n, s_ns,
			 real_ns());
	else
		snprintf(extra, sizeof(extra), "records %zu", n);
	report("dump", &st, (now_us() - t0) / 1e6, extra);
	return st.ok ? 0 : 3;
}

/* Local clients resolving addresses: through atsd (path, a connection
 * each) or straight to the SA through one shared libibats handle (h). */
struct clients {
	const char *path;
	struct ibats *h;
	size_t n, first, count, ngids;
	double t_end;
	pthread_barrier_t ready, start;
};

struct client {
	pthread_t th;
	struct clients *cs;
	struct atsd_client_conn *conn;
	size_t id;
	unsigned long sa_queries;
	struct stats st;
};

/* 0: a record; 1: answered without one; -1: no answer. */
static int ask_atsd(struct client *c, const char *ip)
{
	struct atsd_client_reply rep;
	char req[64];
	int ret;

	snprintf(req, sizeof(req), "resolve %s", ip);
	if (atsd_client_ask(c->conn, req, 10000, &rep))
		return -1;
	ret = !rep.ok;
	if (ret) /* why, for the bench's report */
		fprintf(stderr, "capbench: resolve %s: %s %s\n", ip, rep.code, rep.message);
	atsd_client_reply_free(&rep);
	return ret;
}

static int ask_libibats(struct client *c, const char *ip)
{
	struct ibats_record *recs;
	struct ibats_info info;
	size_t n;
	int ret = ibats_resolve(c->cs->h, ip, 0, &recs, &n);

	if (!ibats_lookup_info(c->cs->h, &info))
		c->sa_queries += info.sa_queries;
	if (ret) {
		fprintf(stderr, "capbench: resolve %s: %s\n", ip, strerror(-ret));
		return ret == -ETIMEDOUT ? -1 : 1;
	}
	ibats_records_free(recs);
	return 0;
}

/* One local client: one lookup at a time, as a program linked with
 * libibats does. */
static void *client_run(void *arg)
{
	struct client *c = arg;
	struct clients *cs = c->cs;
	int down = !cs->h && atsd_client_connect(cs->path, &c->conn);
	size_t j;

	pthread_barrier_wait(&cs->ready);
	pthread_barrier_wait(&cs->start);
	if (down) {
		c->st.lost++;
		return NULL;
	}
	for (j = c->id; now_us() < cs->t_end; j += cs->n) {
		char ipbuf[ATS_IP_STRLEN];
		struct ats_ip ip;
		double t0;
		int r;

		/* Cold: each address once, so stop when they run out. */
		if (j >= cs->count && cs->count > cs->n)
			break;
		bulk_ip(cs->first + j % cs->count, cs->ngids, &ip);
		ats_ip_format(&ip, ipbuf, sizeof(ipbuf));
		t0 = now_us();
		r = cs->h ? ask_libibats(c, ipbuf) : ask_atsd(c, ipbuf);
		if (r < 0) {
			c->st.lost++;
			if (c->conn)
				break; /* the connection's state is unknown */
		} else if (r) {
			c->st.failed++;
		} else {
			c->st.ok++;
			stats_add(&c->st, now_us() - t0);
		}
	}
	if (c->conn)
		atsd_client_disconnect(c->conn);
	return NULL;
}

static int clients_run(const char *name, struct clients *cs, double secs)
{
	struct client *c = calloc(cs->n, sizeof(*c));
	struct stats all = { 0 };
	unsigned long q = 0;
	long long s_ns, e_ns;
	char extra[96] = "";
	double t0;
	size_t i, j;
	int go;

	if (!c || !cs->count || !cs->ngids || pthread_barrier_init(&cs->ready, NULL, cs->n + 1) ||
	    pthread_barrier_init(&cs->start, NULL, cs->n + 1))
		return 2;
	for (i = 0; i < cs->n; i++) {
		c[i] = (struct client){ .cs = cs, .id = i };
		if (pthread_create(&c[i].th, NULL, client_run, &c[i])) {
			fprintf(stderr, "capbench: pthread_create failed\n");
			exit(2); /* the barriers would wait for it forever */
		}
	}
	pthread_barrier_wait(&cs->ready);
	go = go_wait();
	t0 = now_us();
	s_ns = real_ns();
	cs->t_end = t0 + secs * 1e6;
	pthread_barrier_wait(&cs->start);
	for (i = 0; i < cs->n; i++) {
		pthread_join(c[i].th, NULL);
		all.ok += c[i].st.ok;
		all.failed += c[i].st.failed;
		all.lost += c[i].st.lost;
		q += c[i].sa_queries;
		for (j = 0; j < c[i].st.nlat; j++)
			stats_add(&all, c[i].st.lat[j]);
		free(c[i].st.lat);
	}
	e_ns = real_ns();
	free(c);
	if (cs->h)
		snprintf(extra, sizeof(extra), "sa_queries %lu", q);
	if (go)
		snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra), "%sstart_ns %lld end_ns %lld",
			 *extra ? " " : "", s_ns, e_ns);
	report(name, &all, (now_us() - t0) / 1e6, *extra ? extra : NULL);
	return all.lost ? 3 : 0;
}

static int local_clients(char **argv)
{
	struct clients cs = { 0 };
	int lib = !strcmp(argv[1], "libibats"), a = lib ? 4 : 5, ret;

	cs.n = strtoul(argv[3], NULL, 0);
	cs.first = strtoul(argv[a], NULL, 0);
	cs.count = strtoul(argv[a + 1], NULL, 0);
	cs.ngids = strtoul(argv[a + 2], NULL, 0);
	if (!cs.n)
		return 2;
	if (!lib) {
		cs.path = argv[4];
	} else {
		/* One handle for every thread, the SA only (IBATS_NO_AGENT). */
		struct ibats_opts o = { .flags = IBATS_NO_AGENT, .sm_key = BENCH_SA_KEY };

		ret = ibats_open(&cs.h, &o);
		if (ret) {
			fprintf(stderr, "capbench: ibats_open: %s\n", strerror(-ret));
			return 2;
		}
	}
	ret = clients_run(argv[1], &cs, atof(argv[2]));
	if (cs.h)
		ibats_close(cs.h);
	return ret;
}

/* The GIDs as the 16 bytes of each, in sa_client_ports' order. */
static int gids_save(struct sa_client *sa, const char *path)
{
	struct sa_client_ca_port *ports;
	size_t n, i;
	FILE *f;

	if (sa_client_ports(sa, SA_CLIENT_PORTS_GAP, &ports, &n))
		return 3;
	f = fopen(path, "w");
	for (i = 0; f && i < n; i++)
		fwrite(ports[i].gid, sizeof(ports[i].gid), 1, f);
	free(ports);
	return !f || fclose(f) ? 3 : 0;
}

static int gids_get(struct sa_client *sa, struct sa_client_ca_port **ports, size_t *n)
{
	const char *path = getenv("CAPBENCH_GIDS");
	struct sa_client_ca_port *v = NULL;
	size_t cap = 0;
	FILE *f;

	if (!path)
		return sa_client_ports(sa, SA_CLIENT_PORTS_GAP, ports, n);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	*n = 0;
	for (;;) {
		if (*n == cap) {
			struct sa_client_ca_port *w = realloc(v, (cap = cap ? 2 * cap : 1024) * sizeof(*v));

			if (!w)
				break;
			v = w;
		}
		memset(&v[*n], 0, sizeof(v[*n]));
		if (fread(v[*n].gid, sizeof(v[*n].gid), 1, f) != 1)
			break;
		(*n)++;
	}
	fclose(f);
	*ports = v;
	return *n ? 0 : -ENOENT;
}

int main(int argc, char **argv)
{
	struct sa_client_opts so = { .timeout_ms = 2000, .retries = 2, .sm_key = BENCH_SA_KEY,
				     .rmpp = SA_CLIENT_RMPP_OFF };
	struct gen g = { .seed = (unsigned)getpid(), .parts = 1 };
	struct sa_client_ca_port *ports = NULL;
	size_t nports = 0;
	struct mport *p;
	struct sa_client *sa;
	struct pipe pp;
	const char *m = argc > 1 ? argv[1] : "";
	double secs = argc > 2 ? atof(argv[2]) : 0, t;
	int need_ports = !strcmp(m, "load") || !strcmp(m, "reset") || !strcmp(m, "table");

	if ((!strcmp(m, "atsd") && argc == 8) || (!strcmp(m, "libibats") && argc == 7))
		return local_clients(argv);
	if (!strcmp(m, "table") || !strcmp(m, "dump")) {
		/* The kernel reassembles; a big table takes many segments. */
		so.rmpp = SA_CLIENT_RMPP_ON;
		so.retries = 0;
		so.timeout_ms = !strcmp(m, "dump") ? (unsigned)(secs * 1000) : 2000;
	}
	if (mport_open(&p, NULL, 0) || sa_client_init(&sa, p, &so))
		return 2;
	if (!strcmp(m, "ports") && argc == 3)
		return gids_save(sa, argv[2]);
	if (!strcmp(m, "dump"))
		return dump(sa);
	if (!strcmp(m, "load") && argc == 8) {
		g.from = strtoul(argv[2], NULL, 0);
		g.ngids = strtoul(argv[4], NULL, 0);
		g.part = strtoul(argv[6], NULL, 0);
		g.parts = strtoul(argv[7], NULL, 0);
	} else if (argc >= 5 && !strcmp(m, "table")) {
		g.count = strtoul(argv[3], NULL, 0);
		g.ngids = strtoul(argv[4], NULL, 0);
	} else if (argc == 6) {
		g.count = strtoul(argv[4], NULL, 0);
		g.ngids = strtoul(argv[5], NULL, 0);
	} else if (strcmp(m, "cpi") || argc != 4) {
		m = "";
	}
	if (!*m || (strcmp(m, "cpi") && strcmp(m, "lookup") && strcmp(m, "reset") &&
		    strcmp(m, "load") && strcmp(m, "table"))) {
		fprintf(stderr, "capbench: bad arguments (see the header of capbench.c)\n");
		return 2;
	}
	if (need_ports) {
		if (gids_get(sa, &ports, &nports) || !g.ngids || g.ngids > nports ||
		    g.part >= g.parts) {
			fprintf(stderr, "capbench: %zu ports on the fabric, %zu asked\n", nports,
				g.ngids);
			return 2;
		}
		g.ports = ports;
	}
	if (!strcmp(m, "table"))
		return table(sa, secs, &g);
	if (pipe_init(&pp, p, sa, (unsigned)strtoul(argv[!strcmp(m, "load") ? 5 : 3], NULL, 0)))
		return 2;
	if (!strcmp(m, "load"))
		return load(&pp, &g, strtoul(argv[3], NULL, 0));
	if (strcmp(m, "cpi") && (!g.count || !g.ngids))
		return 2;
	t = pipe_run(&pp, UINT64_MAX, secs,
		     !strcmp(m, "cpi") ? build_cpi : !strcmp(m, "lookup") ? build_lookup : build_reset,
		     &g);
	if (t < 0)
		return 3;
	report(m, &pp.st, t, NULL);
	return pp.st.ok ? 0 : 3;
}
