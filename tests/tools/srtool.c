/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* srtool: send one raw ServiceRecord Set or Delete, any field value, for
 * tests that need records atsctl refuses to build. Prints the SA status
 * as "status 0xNNNN" and exits 0 on success, 3 on an SA error.
 *   --mask HEX   the component mask instead of the usual one
 *   --smkey N    the SM_Key of the request
 *   --count N    N Sets (Deletes), the SID counting up from --sid; stops
 *                at the first error and prints "set K" ("deleted K")
 *   --lease S    a finite ServiceLease in seconds (the usual Set mask
 *                then includes the lease)
 *   --repeat N   send the request N times whatever the answers; prints
 *                "failed K"
 *   --window W   with --repeat: up to W of them outstanding at once (a
 *                flood, as issue 35's red team sent it); prints "ok K
 *                refused R failed F lost L" (refused: NO_RESOURCES;
 *                lost: no answer within FLOOD_LOST_MS)
 * get: one SubnAdmGet (SID, GID, PKey unless --mask) and the record as
 * "sid .. gid .. pkey .. lease .. name .. ip .."; exit 1 when none. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ats.h"
#include "core/mad.h"
#include "core/mport.h"
#include "core/sa.h"
#include "core/sa_client.h"
#include "core/wire.h"

/* A flood's request without an answer this long is lost: longer than a
 * master holds an answer for a standby that acks nothing (its ack
 * timeout, 4 s in the tests, and half a second). */
#define FLOOD_LOST_MS 6000

struct flood {
	uint32_t tid0;
	unsigned long n;
	uint8_t *out; /* by TID - tid0: 1 while outstanding */
};

static int flood_match(const uint8_t *mad, size_t len, void *ctx)
{
	const struct flood *f = ctx;
	uint32_t i = (uint32_t)wire_get64(mad + MAD_OFF_TID) - f->tid0;

	return len >= SA_OFF_DATA && mad[MAD_OFF_MGMT_CLASS] == SA_CLASS &&
	       (mad[MAD_OFF_METHOD] & MAD_METHOD_RESP_BIT) && i < f->n && f->out[i];
}

/* n Sets of r, up to window outstanding; 0, or -errno of the port. */
static int flood(struct sa_client *sa, struct mport *port, const struct sr_record *r,
		 uint64_t mask, unsigned long n, unsigned long window)
{
	unsigned long sent = 0, busy = 0, ok = 0, refused = 0, failed = 0, lost = 0, i;
	struct flood f = { .n = n };
	struct mport_dest d;
	uint8_t req[MAD_SIZE], rec[SR_SIZE];
	int ret = 0;

	f.out = calloc(n ? n : 1, 1);
	if (!f.out)
		return -ENOMEM;
	f.tid0 = mport_new_tids(port, (unsigned)n);
	sr_encode(rec, r);
	while (!ret && (sent < n || busy)) {
		uint8_t *resp;
		uint16_t st;
		size_t len;

		while (!ret && sent < n && busy < window) {
			ret = sa_client_encode(sa, SA_METHOD_SET, SA_ATTR_SERVICE_RECORD, mask, rec,
					       sizeof(rec), req, &d);
			wire_put64(req + MAD_OFF_TID, (uint32_t)(f.tid0 + sent));
			if (!ret)
				ret = mport_send_req(port, sa_client_agent(sa), &d, req, sizeof(req),
						     FLOOD_LOST_MS);
			f.out[sent++] = 1;
			busy++;
		}
		if (ret)
			break;
		ret = mport_wait(port, FLOOD_LOST_MS, flood_match, &f, &resp, &len);
		if (ret == -ETIMEDOUT) {
			for (i = 0; i < sent; i++)
				f.out[i] = 0;
			lost += busy;
			busy = 0;
			ret = 0;
			continue;
		}
		if (ret)
			break;
		f.out[(uint32_t)wire_get64(resp + MAD_OFF_TID) - f.tid0] = 0;
		busy--;
		st = wire_get16(resp + MAD_OFF_STATUS);
		if (!st)
			ok++;
		else if (((st >> 8) & 0xff) == SA_STATUS_NO_RESOURCES)
			refused++;
		else
			failed++;
		free(resp);
	}
	printf("ok %lu refused %lu failed %lu lost %lu\n", ok, refused, failed, lost);
	free(f.out);
	return ret;
}

static int hex16(const char *s, uint8_t *out)
{
	unsigned i, v;

	if (strlen(s) != 32)
		return -EINVAL;
	for (i = 0; i < 16; i++) {
		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return -EINVAL;
		out[i] = (uint8_t)v;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "sid", required_argument, NULL, 's' },
		{ "gid", required_argument, NULL, 'g' },
		{ "pkey", required_argument, NULL, 'p' },
		{ "name", required_argument, NULL, 'n' },
		{ "data8", required_argument, NULL, 'd' },
		{ "ip", required_argument, NULL, 'i' },
		{ "key", required_argument, NULL, 'k' },
		{ "mask", required_argument, NULL, 'm' },
		{ "smkey", required_argument, NULL, 'K' },
		{ "count", required_argument, NULL, 'c' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "lease", required_argument, NULL, 'L' },
		{ "window", required_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 },
	};
	struct sa_client_opts so = { .timeout_ms = 500, .retries = 3 };
	struct sr_record r;
	struct mport *port;
	struct sa_client *sa;
	struct ats_ip ip;
	int opt, ret, have_gid = 0, have_mask = 0;
	uint64_t mask = 0;
	unsigned long count = 1, done = 0, repeat = 0, failed = 0, window = 0;
	const char *op;

	memset(&r, 0, sizeof(r));
	r.id = ATS_SID_PRIMARY;
	r.pkey = ATS_PKEY_DEFAULT;
	r.lease = SR_LEASE_INFINITE;
	ats_name_put(r.name);
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			r.id = strtoull(optarg, NULL, 0);
			break;
		case 'g':
			if (ats_gid_parse(optarg, r.gid))
				return 2;
			have_gid = 1;
			break;
		case 'p':
			r.pkey = (uint16_t)strtoul(optarg, NULL, 0);
			break;
		case 'n':
			memset(r.name, 0, sizeof(r.name));
			memcpy(r.name, optarg, strnlen(optarg, sizeof(r.name)));
			break;
		case 'd':
			if (hex16(optarg, r.data8))
				return 2;
			break;
		case 'i':
			if (ats_ip_parse(optarg, &ip))
				return 2;
			ats_ip_encode(&ip, r.data8);
			break;
		case 'k':
			r.key[15] = (uint8_t)strtoul(optarg, NULL, 0);
			break;
		case 'm':
			mask = strtoull(optarg, NULL, 16);
			have_mask = 1;
			break;
		case 'K':
			so.sm_key = strtoull(optarg, NULL, 0);
			break;
		case 'c':
			count = strtoul(optarg, NULL, 0);
			break;
		case 'r':
			repeat = strtoul(optarg, NULL, 0);
			break;
		case 'L':
			r.lease = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'w':
			window = strtoul(optarg, NULL, 0);
			break;
		default:
			return 2;
		}
	}
	if (optind != argc - 1)
		return 2;
	op = argv[optind];
	if (mport_open(&port, NULL, 0) || sa_client_init(&sa, port, &so)) {
		fprintf(stderr, "srtool: cannot open the port\n");
		return 3;
	}
	if (!have_gid)
		memcpy(r.gid, sa_client_port(sa)->gid, 16);
	if (!strcmp(op, "set")) {
		if (!have_mask)
			mask = sr_comp_mask(SR_F_ID | SR_F_GID | SR_F_PKEY | SR_F_NAME | SR_F_DATA8 |
					    (r.lease != SR_LEASE_INFINITE ? SR_F_LEASE : 0));
		if (repeat && window) {
			ret = flood(sa, port, &r, mask, repeat, window);
			if (ret)
				fprintf(stderr, "srtool: flood: %s\n", strerror(-ret));
			sa_client_fini(sa);
			mport_close(port);
			return ret ? 3 : 0;
		}
		for (done = 0; done < repeat; done++)
			failed += sa_client_sr_set(sa, &r, mask, NULL) != 0;
		if (repeat) {
			printf("failed %lu\n", failed);
			sa_client_fini(sa);
			mport_close(port);
			return 0;
		}
		do
			ret = sa_client_sr_set(sa, &r, mask, NULL);
		while (!ret && ++done < count && (r.id++, 1));
		if (count > 1)
			printf("set %lu\n", done);
	} else if (!strcmp(op, "delete")) {
		if (!have_mask)
			mask = sr_comp_mask(SR_F_ID | SR_F_GID | SR_F_PKEY);
		do
			ret = sa_client_sr_delete(sa, &r, mask, NULL);
		while (!ret && ++done < count && (r.id++, 1));
		if (count > 1)
			printf("deleted %lu\n", done);
	} else if (!strcmp(op, "get")) {
		struct sr_record out;
		char g[64], d[64];

		if (!have_mask)
			mask = sr_comp_mask(SR_F_ID | SR_F_GID | SR_F_PKEY);
		ret = sa_client_sr_get(sa, &r, mask, &out);
		if (!ret)
			printf("sid 0x%016llx gid %s pkey 0x%04x lease %u name %.*s ip %s\n",
			       (unsigned long long)out.id, ats_gid_format(out.gid, g, sizeof(g)),
			       out.pkey, out.lease, (int)strnlen((const char *)out.name, SR_NAME_LEN),
			       (const char *)out.name, ats_data8_str(out.data8, d, sizeof(d)));
		if (ret == -ENOENT) {
			printf("no record\n");
			sa_client_fini(sa);
			mport_close(port);
			return 1;
		}
	} else {
		return 2;
	}
	printf("status 0x%04x\n", sa_client_last_status(sa));
	if (ret)
		fprintf(stderr, "srtool: %s: %s\n", op,
			sa_client_last_status(sa) ?
			sa_status_str(sa_client_last_status(sa)) : strerror(-ret));
	sa_client_fini(sa);
	mport_close(port);
	return ret ? 3 : 0;
}
