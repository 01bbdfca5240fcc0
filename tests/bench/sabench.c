/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* sabench: timed round trips for tests/bench/run.sh, on the bulk records
 * of bulk.h.
 *
 *   sabench cpi N                   N ClassPortInfo Gets (T_cpi)
 *   sabench grow FROM TO NGIDS      Set records FROM..TO-1 (SA key)
 *   sabench get N COUNT NGIDS       N Gets of random records < COUNT by RID
 *   sabench resolve N COUNT NGIDS   ... by address, as atsctl resolve asks
 *   sabench storm SECS COUNT NGIDS  re-Set random records < COUNT for SECS
 *   sabench echo N LID              N liveness echoes (vendor 0x34) to LID
 *   sabench sock N PATH IP          N resolves of IP on one atsd connection
 *   sabench sockc N PATH IP         ... with a new connection each
 *   sabench cache N                 N lookups in an atsd cache of 1024
 *                                   entries, in process
 *   sabench restore SECS IP...      after an SM restart: time until every
 *                                   IP resolves through the SA
 *   sabench reset N COUNT NGIDS     N timed re-Sets of random records < COUNT
 *                                   (also the slowest and those over 10 ms)
 *   sabench takeover SECS COUNT NGIDS PID SAMPLE WAIT IP...
 *                                   SIGKILL the master SM (PID), then time
 *                                   until the ports name a new SM LID, its
 *                                   SA answers, it holds record COUNT-1 and
 *                                   SAMPLE random ones (WAIT 0: one pass,
 *                                   count what is there) and every IP
 *                                   resolves (failover.sh)
 * Prints "name p50_us p99_us count [per_second]". */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/ats.h"
#include "host/atsd_client.h"
#include "bulk.h"
#include "clock.h"
#include "state/cache.h"
#include "core/mport.h"
#include "core/sa.h"
#include "core/sa_client.h"
#include "core/vmad.h"

/* total_us: wall time of the run, for a rate. */
static void report(const char *name, double *v, size_t n, double total_us)
{
	if (!n)
		return;
	qsort(v, n, sizeof(*v), cmp_us);
	printf("%s %.2f %.2f %zu", name, v[n / 2], v[n * 99 / 100], n);
	if (total_us > 0)
		printf(" %.0f", n / (total_us / 1e6));
	printf("\n");
}

static struct sa_client_ca_port *ports;
static size_t nports;

static const uint64_t set_mask_fields = SR_F_ID | SR_F_GID | SR_F_PKEY | SR_F_NAME | SR_F_DATA8;

static int grow(struct sa_client *sa, size_t from, size_t to, size_t ngids)
{
	double *t = calloc(to - from, sizeof(*t)), t_all = now_us();
	size_t i;

	for (i = from; i < to; i++) {
		struct sr_record r;
		double t0 = now_us();

		bulk_rec(i, ngids, ports, &r);
		if (sa_client_sr_set(sa, &r, sr_comp_mask(set_mask_fields), NULL)) {
			fprintf(stderr, "sabench: Set of record %zu refused (status 0x%04x)\n",
				i, sa_client_last_status(sa));
			return 3;
		}
		t[i - from] = now_us() - t0;
	}
	report("set", t, to - from, now_us() - t_all);
	free(t);
	return 0;
}

static int get(struct sa_client *sa, size_t n, size_t count, size_t ngids,
	       int by_ip)
{
	const uint64_t mask = by_ip ? sr_comp_mask(SR_F_NAME | SR_F_PKEY | SR_F_DATA8) :
			      sr_comp_mask(SR_F_ID | SR_F_GID | SR_F_PKEY | SR_F_NAME);
	double *t = calloc(n, sizeof(*t));
	size_t i;

	srand(1);
	for (i = 0; i < n; i++) {
		struct sr_record q, r;
		double t0;

		bulk_rec((size_t)rand() % count, ngids, ports, &q);
		t0 = now_us();
		if (sa_client_sr_get(sa, &q, mask, &r))
			return 3;
		t[i] = now_us() - t0;
	}
	report(by_ip ? "resolve" : "get", t, n, 0);
	free(t);
	return 0;
}

static int storm(struct sa_client *sa, double secs, size_t count, size_t ngids)
{
	double t_end = now_us() + secs * 1e6, t0 = now_us();
	size_t n = 0;

	srand(2);
	printf("storm started\n");
	fflush(stdout);
	while (now_us() < t_end) {
		struct sr_record r;

		bulk_rec((size_t)rand() % count, ngids, ports, &r);
		if (sa_client_sr_set(sa, &r, sr_comp_mask(set_mask_fields), NULL))
			return 3;
		n++;
	}
	printf("storm %zu Sets %.0f per_second\n", n, n / ((now_us() - t0) / 1e6));
	return 0;
}

static int sock(const char *path, const char *ip, size_t n, int reconnect)
{
	double *t = calloc(n, sizeof(*t));
	struct atsd_client_conn *c = NULL;
	char req[128];
	size_t i;

	snprintf(req, sizeof(req), "resolve %s", ip);
	for (i = 0; i < n; i++) {
		struct atsd_client_reply rep;
		double t0 = now_us();

		if ((!c && atsd_client_connect(path, &c)) || atsd_client_ask(c, req, 5000, &rep) || !rep.ok)
			return 3;
		if (reconnect) {
			atsd_client_disconnect(c);
			c = NULL;
		}
		t[i] = now_us() - t0;
		atsd_client_reply_free(&rep);
	}
	atsd_client_disconnect(c);
	report(reconnect ? "sockc" : "sock", t, n, 0);
	free(t);
	return 0;
}

/* What atsd does for a cached resolve between reading the request line and
 * writing the answer: parse, canonical key, hash lookup. */
static int cache(size_t n)
{
	double *t = calloc(n, sizeof(*t));
	struct sr_record r;
	struct cache *c;
	char key[CACHE_KEY_MAX], text[32];
	size_t i, nrecs;

	memset(&r, 0, sizeof(r));
	if (cache_init(&c, 1024))
		return 3;
	for (i = 0; i < 1024; i++) {
		snprintf(key, sizeof(key), "0 10.9.%zu.%zu ffff", i / 256, i % 256);
		cache_put(c, key, &r, 1, INT64_MAX);
	}
	for (i = 0; i < n; i++) {
		char ipbuf[ATS_IP_STRLEN];
		struct ats_ip ip;
		const struct cache_ent *e;
		double t0;

		snprintf(text, sizeof(text), "10.9.%zu.%zu", (i * 7) % 4, (i * 13) % 256);
		t0 = now_us();
		if (ats_ip_parse(text, &ip))
			return 3;
		snprintf(key, sizeof(key), "0 %s ffff", ats_ip_format(&ip, ipbuf, sizeof(ipbuf)));
		e = cache_find(c, key, 0);
		if (!e || !cache_records(e, &nrecs))
			return 3;
		t[i] = now_us() - t0;
	}
	cache_fini(c);
	report("cache", t, n, 0);
	free(t);
	return 0;
}

static int restore(struct sa_client *sa, double secs, char **ips, int nips)
{
	double t0 = now_us(), t_end = t0 + secs * 1e6;
	int left = nips, i;
	char *done = calloc((size_t)nips, 1);

	while (left && now_us() < t_end) {
		for (i = 0; i < nips; i++) {
			struct sr_record q;
			struct ats_ip ip;

			if (done[i] || ats_ip_parse(ips[i], &ip))
				continue;
			memset(&q, 0, sizeof(q));
			ats_name_put(q.name);
			ats_ip_encode(&ip, q.data8);
			if (!sa_client_sr_get(sa, &q, sr_comp_mask(SR_F_NAME | SR_F_DATA8), NULL)) {
				done[i] = 1;
				left--;
			}
		}
	}
	printf("restore %d of %d records in %.0f ms\n", nips - left, nips, (now_us() - t0) / 1e3);
	free(done);
	return left ? 3 : 0;
}

/* Re-Set random existing records: what a Set costs at this level, with
 * or without a standby SM to wait for. */
static int reset(struct sa_client *sa, size_t n, size_t count, size_t ngids)
{
	double *t = calloc(n, sizeof(*t)), t_all = now_us();
	/* SABENCH_SLOW_MS: name each Set slower than that on stderr. */
	double slow_ms = getenv("SABENCH_SLOW_MS") ? atof(getenv("SABENCH_SLOW_MS")) : 0;
	size_t i;

	if (!t || !n)
		return 2;
	srand(4);
	for (i = 0; i < n; i++) {
		struct sr_record r;
		double t0;

		bulk_rec((size_t)rand() % count, ngids, ports, &r);
		t0 = now_us();
		if (sa_client_sr_set(sa, &r, sr_comp_mask(set_mask_fields), NULL)) {
			fprintf(stderr, "sabench: re-Set %zu refused (status 0x%04x)\n", i,
				sa_client_last_status(sa));
			return 3;
		}
		t[i] = now_us() - t0;
		if (slow_ms > 0 && t[i] > slow_ms * 1e3) {
			struct timespec ts;

			clock_gettime(CLOCK_REALTIME, &ts);
			fprintf(stderr, "sabench: re-Set %zu took %.1f ms, done at %lld.%06ld\n", i,
				t[i] / 1e3, (long long)ts.tv_sec, ts.tv_nsec / 1000);
		}
	}
	t_all = now_us() - t_all;
	qsort(t, n, sizeof(*t), cmp_us);
	/* report()'s fields, then the slowest Set and how many took > 10 ms. */
	for (i = 0; i < n && t[n - 1 - i] > 10000; i++)
		;
	printf("reset %.2f %.2f %zu %.0f max_us %.0f over_10ms %zu\n", t[n / 2], t[n * 99 / 100], n,
	       n / (t_all / 1e6), t[n - 1], i);
	free(t);
	return 0;
}

static double ms_since(double t0)
{
	return (now_us() - t0) / 1e3;
}

static int ip_resolves(struct sa_client *sa, const char *text)
{
	struct sr_record q;
	struct ats_ip ip;

	if (ats_ip_parse(text, &ip))
		return 0;
	memset(&q, 0, sizeof(q));
	ats_name_put(q.name);
	ats_ip_encode(&ip, q.data8);
	return !sa_client_sr_get(sa, &q, sr_comp_mask(SR_F_NAME | SR_F_DATA8), NULL);
}

/* The master's SIGKILL and what a client sees after it. The new SM LID
 * is the port's sysfs one, as a host's kernel keeps it. */
static int takeover(struct mport *p, struct sa_client *sa, double secs, size_t count,
		    size_t ngids, pid_t pid, size_t nsample, int wait_all, char **ips, int nips)
{
	const uint64_t mask = sr_comp_mask(SR_F_ID | SR_F_GID | SR_F_PKEY | SR_F_NAME);
	double t0, t_end, lid_ms = -1, up_ms = -1, rec_ms = -1, ip_ms = -1;
	struct mport_info info;
	struct timespec kill_ts;
	size_t *sample = calloc(nsample + 1, sizeof(*sample)), i, found = 0;
	char *rdone = calloc(nsample + 1, 1), *idone = calloc((size_t)nips + 1, 1);
	int j, ileft = nips, passes = 0;
	uint16_t old_lid;

	if (mport_query(p, &info))
		return 2;
	old_lid = info.sm_lid;
	srand(5);
	sample[0] = count - 1;
	for (i = 1; i <= nsample; i++)
		sample[i] = (size_t)rand() % count;
	printf("takeover ready sm_lid %u\n", old_lid);
	fflush(stdout);
	clock_gettime(CLOCK_REALTIME, &kill_ts);
	t0 = now_us();
	t_end = t0 + secs * 1e6;
	if (kill(pid, SIGKILL))
		return 2;
	/* A new SM LID in the port, then the SA there answering at all. */
	while (up_ms < 0 && now_us() < t_end) {
		struct sa_client_answer ans;

		if (mport_query(p, &info) || info.sm_lid == old_lid) {
			usleep(2000);
			continue;
		}
		if (lid_ms < 0)
			lid_ms = ms_since(t0);
		if (!sa_client_request(sa, SA_METHOD_GET, SA_ATTR_CLASS_PORT_INFO, 0, NULL, 0, &ans)) {
			up_ms = ms_since(t0);
			sa_client_answer_free(&ans);
		}
	}
	/* The records: the registrar's (nobody registers them again) and the
	 * agents' (they do, when they must). */
	while (up_ms >= 0 && now_us() < t_end &&
	       (ileft || (rec_ms < 0 && (wait_all || !passes)))) {
		if (rec_ms < 0 && (wait_all || !passes)) {
			for (i = 0; i <= nsample; i++) {
				struct sr_record q, r;

				if (rdone[i])
					continue;
				bulk_rec(sample[i], ngids, ports, &q);
				if (!sa_client_sr_get(sa, &q, mask, &r)) {
					rdone[i] = 1;
					found++;
				}
			}
			passes++;
			if (found == nsample + 1)
				rec_ms = ms_since(t0);
		}
		for (j = 0; j < nips; j++)
			if (!idone[j] && ip_resolves(sa, ips[j])) {
				idone[j] = 1;
				if (!--ileft)
					ip_ms = ms_since(t0);
			}
	}
	printf("takeover kill_ns %lld%09ld lid_ms %.0f up_ms %.0f records_ms %.0f found %zu of %zu "
	       "agents_ms %.0f agent_records %d of %d\n",
	       (long long)kill_ts.tv_sec, kill_ts.tv_nsec, lid_ms, up_ms, rec_ms, found,
	       nsample + 1, ip_ms, nips - ileft, nips);
	free(sample);
	free(rdone);
	free(idone);
	return up_ms < 0 ? 3 : 0;
}

/* The sa_key run.sh gives OpenSM: a non-default one, since OpenSM's
 * default (0x1) earns no trust from the plugin. */
#define BENCH_SA_KEY 0x5a5aull

int main(int argc, char **argv)
{
	struct sa_client_opts so = { .timeout_ms = 2000, .retries = 2, .sm_key = BENCH_SA_KEY,
				     .rmpp = SA_CLIENT_RMPP_OFF };
	struct mport *p;
	struct sa_client *sa;
	size_t n, i;
	double *t;

	if (argc < 3)
		return 2;
	n = strtoul(argv[2], NULL, 0);
	if ((!strcmp(argv[1], "sock") || !strcmp(argv[1], "sockc")) && argc == 5)
		return sock(argv[3], argv[4], n, argv[1][4] == 'c');
	if (!strcmp(argv[1], "cache"))
		return cache(n);
	if (mport_open(&p, NULL, 0) || sa_client_init(&sa, p, &so))
		return 2;
	if (!strcmp(argv[1], "restore") && argc > 3) {
		so.timeout_ms = 200;
		so.retries = 0;
		sa_client_fini(sa);
		if (sa_client_init(&sa, p, &so))
			return 2;
		return restore(sa, (double)n, argv + 3, argc - 3);
	}
	if (!strcmp(argv[1], "echo") && argc == 4) {
		struct mport_dest d = { (uint16_t)strtoul(argv[3], NULL, 0), SA_QP, SA_QKEY, 0 };
		struct mport_rpc_opts ro = { 1000, 0, 0, 0 };
		uint8_t req[MAD_SIZE];
		int agent = mport_register_oui(p, VMAD_CLASS_LIVENESS, VMAD_LIVENESS_VERSION, 1,
					       VMAD_OUI_OPENIB, 0);

		t = calloc(n, sizeof(*t));
		for (i = 0; agent >= 0 && i < n; i++) {
			uint8_t *resp = NULL;
			size_t len;
			double t0;

			vmad_liv_build(req, sizeof(req), VMAD_LIV_ECHO_REQ, 1, (uint16_t)i, NULL, 0, 0);
			t0 = now_us();
			if (mport_rpc(p, agent, &d, req, sizeof(req), &ro, &resp, &len))
				return 3;
			t[i] = now_us() - t0;
			free(resp);
		}
		report("echo", t, n, 0);
		return 0;
	}
	if (!strcmp(argv[1], "cpi")) {
		t = calloc(n, sizeof(*t));
		for (i = 0; i < n; i++) {
			struct sa_client_answer ans;
			double t0 = now_us();

			if (sa_client_request(sa, SA_METHOD_GET, SA_ATTR_CLASS_PORT_INFO, 0, NULL, 0, &ans))
				return 3;
			t[i] = now_us() - t0;
			sa_client_answer_free(&ans);
		}
		report("cpi", t, n, 0);
		return 0;
	}
	if (!strcmp(argv[1], "takeover") && argc >= 8) {
		size_t a = strtoul(argv[3], NULL, 0), ngids = strtoul(argv[4], NULL, 0);

		if (sa_client_ports(sa, SA_CLIENT_PORTS_GAP, &ports, &nports) || !a || !ngids || ngids > nports)
			return 2;
		/* Short attempts: the time the SA starts answering is measured. */
		so.timeout_ms = 100;
		so.retries = 0;
		sa_client_fini(sa);
		if (sa_client_init(&sa, p, &so))
			return 2;
		return takeover(p, sa, (double)n, a, ngids, (pid_t)strtol(argv[5], NULL, 0),
				strtoul(argv[6], NULL, 0), atoi(argv[7]), argv + 8, argc - 8);
	}
	if (argc != 5 || sa_client_ports(sa, SA_CLIENT_PORTS_GAP, &ports, &nports))
		return 2;
	{
		size_t a = strtoul(argv[3], NULL, 0), ngids = strtoul(argv[4], NULL, 0);

		if (!ngids || ngids > nports || (ngids * ATS_SID_COUNT) < a) {
			fprintf(stderr, "sabench: %zu ports on the fabric, %zu asked\n", nports, ngids);
			return 2;
		}
		if (!strcmp(argv[1], "grow"))
			return grow(sa, n, a, ngids);
		if (!strcmp(argv[1], "get") || !strcmp(argv[1], "resolve"))
			return get(sa, n, a, ngids, argv[1][0] == 'r');
		if (!strcmp(argv[1], "storm"))
			return storm(sa, (double)n, a, ngids);
		if (!strcmp(argv[1], "reset"))
			return reset(sa, n, a, ngids);
	}
	return 2;
}
