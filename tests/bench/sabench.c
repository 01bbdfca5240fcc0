/* sabench: timed SA round trips for tests/bench/run.sh.
 *   sabench cpi N                 N ClassPortInfo Gets (the baseline T_cpi)
 *   sabench load NGIDS PERGID     register PERGID ATS records on each of
 *                                 the first NGIDS CA ports (SA key 1)
 *   sabench get N NGIDS PERGID    N random ATS Gets of those records
 *   sabench echo N LID            N liveness echoes (vendor 0x34) to LID
 *   sabench sock N PATH IP        N lookups of IP through atsd's socket
 * Prints "name p50_us p99_us count". */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ats.h"
#include "atsd_client.h"
#include "mport.h"
#include "sa.h"
#include "sa_client.h"
#include "vmad.h"

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void report(const char *name, double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp);
	printf("%s %.1f %.1f %zu\n", name, v[n / 2], v[n * 99 / 100], n);
}

static void ip_of(size_t g, size_t k, struct ats_ip *ip)
{
	memset(ip, 0, sizeof(*ip));
	ip->family = AF_INET;
	ip->addr[0] = 10;
	ip->addr[1] = (uint8_t)(k + 1);
	ip->addr[2] = (uint8_t)(g >> 8);
	ip->addr[3] = (uint8_t)g;
}

int main(int argc, char **argv)
{
	struct sa_client_opts so = { .timeout_ms = 2000, .retries = 2, .sm_key = 1,
				     .rmpp = SA_RMPP_OFF };
	struct sa_port *ports = NULL;
	struct mport *p;
	struct sa_client *sa;
	size_t nports = 0, n, g, k, i, ngids, per;
	double *t;

	if (argc < 3)
		return 2;
	n = strtoul(argv[2], NULL, 0);
	if (!strcmp(argv[1], "sock") && argc == 5) {
		char req[128];

		snprintf(req, sizeof(req), "resolve %s", argv[4]);
		t = calloc(n, sizeof(*t));
		for (i = 0; i < n; i++) {
			struct atsd_reply rep;
			double t0 = now_us();

			if (atsd_request(argv[3], req, 5000, &rep))
				return 3;
			t[i] = now_us() - t0;
			atsd_reply_free(&rep);
		}
		report("sock", t, n);
		return 0;
	}
	if (mport_open(&p, NULL, 0) || sa_client_init(&sa, p, &so))
		return 2;
	if (!strcmp(argv[1], "echo") && argc == 4) {
		struct mport_dest d = { (uint16_t)strtoul(argv[3], NULL, 0), SA_QP, SA_QKEY, 0 };
		struct mport_rpc_opts ro = { 1000, 0 };
		uint8_t req[MAD_SIZE];
		int agent = mport_register_oui(p, VMAD_CLASS_LIVENESS, 1, VMAD_OUI_OPENIB, 0);

		t = calloc(n, sizeof(*t));
		for (i = 0; agent >= 0 && i < n; i++) {
			uint8_t *resp = NULL;
			size_t len;
			double t0;

			liv_build(req, sizeof(req), LIV_ECHO_REQ, 1, (uint16_t)i, NULL, 0, 0);
			t0 = now_us();
			if (mport_rpc(p, agent, &d, req, sizeof(req), &ro, &resp, &len))
				return 3;
			t[i] = now_us() - t0;
			free(resp);
		}
		report("echo", t, n);
		return 0;
	}
	if (!strcmp(argv[1], "cpi")) {
		t = calloc(n, sizeof(*t));
		for (i = 0; i < n; i++) {
			struct sa_answer ans;
			double t0 = now_us();

			if (sa_request(sa, SA_METHOD_GET, SA_ATTR_CLASS_PORT_INFO, 0, NULL, 0, &ans))
				return 3;
			t[i] = now_us() - t0;
			sa_answer_free(&ans);
		}
		report("cpi", t, n);
		return 0;
	}
	if (argc < 4 || sa_ports(sa, SA_PORTS_GAP, &ports, &nports))
		return 3;
	ngids = strtoul(argv[argc == 5 ? 3 : 2], NULL, 0);
	per = strtoul(argv[argc == 5 ? 4 : 3], NULL, 0);
	if (ngids > nports || per > ATS_SID_COUNT) {
		fprintf(stderr, "sabench: %zu ports on the fabric, %zu asked\n", nports, ngids);
		return 2;
	}
	if (!strcmp(argv[1], "load")) {
		t = calloc(ngids * per, sizeof(*t));
		for (k = 0; k < per; k++)
			for (g = 0; g < ngids; g++) {
				struct sr_record r;
				struct ats_ip ip;
				double t0 = now_us();

				ip_of(g, k, &ip);
				ats_record_init(&r, ats_sid_at((unsigned)k), ports[g].gid,
						ATS_PKEY_DEFAULT, ATS_LEASE_INFINITE, &ip);
				if (sa_sr_set(sa, &r, sr_comp_mask(SR_F_ID | SR_F_GID | SR_F_PKEY |
								   SR_F_NAME | SR_F_DATA8), NULL))
					return 3;
				t[k * ngids + g] = now_us() - t0;
			}
		report("set", t, ngids * per);
		return 0;
	}
	if (!strcmp(argv[1], "get")) {
		t = calloc(n, sizeof(*t));
		srand(1);
		for (i = 0; i < n; i++) {
			struct sr_record q, r;
			double t0;

			g = (size_t)rand() % ngids;
			k = (size_t)rand() % per;
			memset(&q, 0, sizeof(q));
			q.id = ats_sid_at((unsigned)k);
			memcpy(q.gid, ports[g].gid, 16);
			q.pkey = ATS_PKEY_DEFAULT;
			ats_name_put(q.name);
			t0 = now_us();
			if (sa_sr_get(sa, &q, sr_comp_mask(SR_F_ID | SR_F_GID | SR_F_PKEY |
							   SR_F_NAME), &r))
				return 3;
			t[i] = now_us() - t0;
		}
		report("get", t, n);
		return 0;
	}
	return 2;
}
