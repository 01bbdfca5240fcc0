/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* srdiff: a reproducible stream of ServiceRecord requests for the
 * differential test (t_sr_diff): the same seed gives the same requests,
 * and each answer is printed as one line (status, attribute offset and
 * every returned byte), so that two SMs can be compared with cmp.
 *
 *   srdiff load SEED N    N Sets and Deletes (SA key 1) of ATS and other
 *                         records on the fabric's ports and one absent GID
 *   srdiff query SEED NLOAD N
 *                         N Gets and GetTables, alternately with SM_Key 1
 *                         and 0, of shapes the SA sees in practice plus
 *                         random and reserved mask bits, for the records
 *                         of "load SEED NLOAD" and random ones
 *   srdiff fill N         N Sets (SA key 1) of distinct records (up to
 *                         80 per port): ATS SIDs 1..40 above the block's
 *                         base in PKey 0xffff, then in 0x8001, port after
 *                         port, the three names in turn (for tables of
 *                         several hundred records)
 *   srdiff tables         GetTables with SM_Key 1 and 0 of every record
 *                         (empty mask), and by each GID, name, SID and
 *                         PKey the load uses
 *   srdiff gone SID       exit 0 once a Get by SID finds no record
 *
 * Every answer is printed whole: one MAD, or an RMPP message the kernel
 * put back together, with its record count.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ats.h"
#include "core/mport.h"
#include "core/sa.h"
#include "core/sa_client.h"
#include "core/wire.h"

#define SHORT_LEASE_SID 0x10000ce1004154eeull
#define MAX_GIDS 64
#define MAX_SET 4096

static uint64_t rng;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

static uint8_t gids[MAX_GIDS][16];
static size_t ngids;
static uint8_t set_recs[MAX_SET][SR_SIZE];
static size_t nset;

static int by_gid(const void *a, const void *b)
{
	return memcmp(((const struct sa_client_ca_port *)a)->gid, ((const struct sa_client_ca_port *)b)->gid, 16);
}

static int load_gids(struct sa_client *sa)
{
	struct sa_client_ca_port *ports;
	size_t n, i;

	if (sa_client_ports(sa, SA_CLIENT_PORTS_GAP, &ports, &n))
		return -1;
	qsort(ports, n, sizeof(*ports), by_gid);
	for (i = 0; i < n && ngids < MAX_GIDS - 1; i++)
		memcpy(gids[ngids++], ports[i].gid, 16);
	free(ports);
	/* A port that is not on the fabric. */
	memcpy(gids[ngids], gids[0], 8);
	wire_put64(gids[ngids++] + 8, 0x0002c903dead0001ull);
	return 0;
}

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static const uint64_t pool_sids[] = {
	ATS_SID_PRIMARY, ATS_SID_BASE, ATS_SID_BASE + 0x54, ATS_SID_BASE + 0xff,
	0x1234, ATS_SID_BASE + 0x100,
};
static const uint16_t pool_pkeys[] = { 0xffff, 0x7fff, 0x8001, 0x0001, 0x8002, 0x0000 };

/* The service names of the pool: 0 another service, 1 the ATS name
 * padded with spaces (not zeros), else the ATS name. */
static void put_name(uint8_t *name, unsigned kind)
{
	switch (kind) {
	case 0:
		memcpy(name, "x-service", 9);
		break;
	case 1:
		ats_name_put(name);
		memset(name + strlen((char *)name), ' ', 8);
		break;
	default:
		ats_name_put(name);
	}
}

static void random_rec(uint8_t *r)
{
	struct sr_record s;
	struct ats_ip ip;

	memset(&s, 0, sizeof(s));
	s.id = pool_sids[rnd(N_OF(pool_sids))];
	memcpy(s.gid, gids[rnd((uint32_t)ngids)], 16);
	s.pkey = pool_pkeys[rnd(N_OF(pool_pkeys))];
	s.lease = rnd(5) ? SR_LEASE_INFINITE : 3600;
	if (!rnd(6))
		s.key[rnd(16)] = (uint8_t)(1 + rnd(255));
	put_name(s.name, rnd(5));
	memset(&ip, 0, sizeof(ip));
	ip.family = rnd(4) ? AF_INET : AF_INET6;
	if (ip.family == AF_INET) {
		ip.addr[0] = 10;
		ip.addr[3] = (uint8_t)(1 + rnd(6));
	} else {
		ip.addr[0] = 0xfd;
		ip.addr[15] = (uint8_t)(1 + rnd(6));
	}
	ats_ip_encode(&ip, s.data8);
	if (ip.family == AF_INET && !rnd(3))
		ats_ip_other_form(s.data8, s.data8); /* IPv4-mapped */
	if (!rnd(10))
		memset(s.data8, 0, 16);
	s.data16[0] = (uint16_t)rnd(3);
	s.data32[3] = rnd(2);
	s.data64[0] = rnd(2);
	sr_encode(r, &s);
}

static void print_answer(unsigned op, uint8_t method, uint64_t mask, int ret,
			 struct sa_client *sa, const struct sa_client_answer *ans)
{
	size_t i;

	printf("%u %02x %016llx status 0x%04x", op, method, (unsigned long long)mask,
	       ret ? sa_client_last_status(sa) : 0);
	if (ret == -ETIMEDOUT)
		printf(" timeout");
	if (!ret) {
		size_t n = ans->data_len;

		if (ans->mad_len > MAD_SIZE && ans->hdr.attr_offset)
			printf(" n %zu", n / (8u * ans->hdr.attr_offset));
		printf(" off %u len %zu ", ans->hdr.attr_offset, ans->data_len);
		for (i = 0; i < n; i++)
			printf("%02x", ans->data[i]);
	}
	printf("\n");
}

/* sa NULL: only replay the generator (query rebuilds the load's pool). */
static void send_one(struct sa_client *sa, unsigned op, uint8_t method,
		     uint64_t mask, const uint8_t *rec)
{
	struct sa_client_answer ans;
	int ret;

	if (!sa)
		return;
	ret = sa_client_request(sa, method, SA_ATTR_SERVICE_RECORD, mask, rec, SR_SIZE, &ans);

	print_answer(op, method, mask, ret, sa, &ans);
	if (!ret)
		sa_client_answer_free(&ans);
}

static void do_load(struct sa_client *sa, unsigned n)
{
	const uint64_t all = sr_comp_mask(SR_F_ID | SR_F_GID | SR_F_PKEY | SR_F_LEASE |
					  SR_F_KEY | SR_F_NAME | SR_F_DATA8 |
					  SR_F_DATA16 | SR_F_DATA32 | SR_F_DATA64);
	const uint64_t rid = sr_comp_mask(SR_F_ID | SR_F_GID | SR_F_PKEY);
	unsigned op;

	for (op = 0; op < n; op++) {
		uint8_t r[SR_SIZE];
		uint64_t mask = all;
		uint32_t pick = rnd(100);

		if (pick < 20 && nset) {
			memcpy(r, set_recs[rnd((uint32_t)nset)], SR_SIZE);
			send_one(sa, op, SA_METHOD_DELETE, rnd(4) ? rid : 0, r);
			continue;
		}
		random_rec(r);
		if (pick < 25) {
			/* Leases that run out during the test, always visible. */
			wire_put64(r + SR_OFF_ID, SHORT_LEASE_SID);
			wire_put16(r + SR_OFF_PKEY, 0xffff);
			wire_put32(r + SR_OFF_LEASE, 2);
		} else if (pick < 35) {
			mask &= ~sr_comp_mask(SR_F_PKEY);
		} else if (pick < 45) {
			mask &= ~sr_comp_mask(SR_F_LEASE);
		} else if (pick < 48) {
			mask &= ~sr_comp_mask(SR_F_GID);
		} else if (pick < 52) {
			mask = ~0ull;
		} else if (pick < 60) {
			mask = sr_comp_mask(SR_F_ID | SR_F_GID);
		}
		/* Short-lease records stay out of the pool: whether one is still
		 * there when a later request names it depends on timing. */
		if (nset < MAX_SET && pick >= 25)
			memcpy(set_recs[nset++], r, SR_SIZE);
		send_one(sa, op, SA_METHOD_SET, mask, r);
	}
}

static void do_fill(struct sa_client *sa, unsigned n)
{
	const uint64_t mask = sr_comp_mask(SR_F_ID | SR_F_GID | SR_F_PKEY | SR_F_LEASE |
					   SR_F_NAME | SR_F_DATA8);
	unsigned i;

	for (i = 0; i < n; i++) {
		struct sr_record s;
		struct ats_ip ip;
		uint8_t r[SR_SIZE];

		memset(&s, 0, sizeof(s));
		s.id = ATS_SID_BASE + 1 + i % 40;
		s.pkey = i / 40 % 2 ? 0x8001 : 0xffff;
		memcpy(s.gid, gids[i / 80 % ngids], 16);
		s.lease = SR_LEASE_INFINITE;
		put_name(s.name, i % 3);
		memset(&ip, 0, sizeof(ip));
		ip.family = AF_INET;
		ip.addr[0] = 10;
		ip.addr[1] = 1;
		ip.addr[2] = (uint8_t)(i >> 8);
		ip.addr[3] = (uint8_t)i;
		ats_ip_encode(&ip, s.data8);
		sr_encode(r, &s);
		send_one(sa, i, SA_METHOD_SET, mask, r);
	}
}

static void do_query(struct sa_client *keyed, struct sa_client *plain, unsigned n)
{
	static const uint64_t shapes[] = {
		0x7, 0x47, 0x2, 0x6, 0x42, 0x43, 0x46,
		0x7fff80, 0x7fff84, 0x7fffc0, 0x7fffc4,
		0x40, 0x41, 0x1, 0x0, 0x4,
		0x18, 0x20, 0x800000, 0x800000000ull, 0x7ffffffc0ull,
	};
	unsigned op;

	for (op = 0; op < n; op++) {
		uint64_t mask = shapes[rnd(sizeof(shapes) / sizeof(shapes[0]))];
		uint8_t q[SR_SIZE];

		if (rnd(10) < 7 && nset)
			memcpy(q, set_recs[rnd((uint32_t)nset)], SR_SIZE);
		else
			random_rec(q);
		if (!rnd(4))
			mask |= 1ull << rnd(64);
		send_one(op & 1 ? plain : keyed, op,
			 rnd(2) ? SA_METHOD_GET : SA_METHOD_GET_TABLE, mask, q);
	}
}

/* One GetTable per value of one field (mask, the field at off of len
 * bytes), from both requesters. */
static unsigned tables_by(struct sa_client *keyed, struct sa_client *plain, unsigned op,
			  uint64_t mask, size_t off, const uint8_t *vals, size_t len, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		uint8_t q[SR_SIZE] = { 0 };

		memcpy(q + off, vals + i * len, len);
		send_one(keyed, op++, SA_METHOD_GET_TABLE, mask, q);
		send_one(plain, op++, SA_METHOD_GET_TABLE, mask, q);
	}
	return op;
}

static void do_tables(struct sa_client *keyed, struct sa_client *plain)
{
	uint8_t names[3][SR_NAME_LEN] = { { 0 } };
	uint8_t sids[N_OF(pool_sids)][8], pkeys[N_OF(pool_pkeys)][2];
	unsigned op, k;

	for (k = 0; k < 3; k++)
		put_name(names[k], k);
	for (k = 0; k < N_OF(pool_sids); k++)
		wire_put64(sids[k], pool_sids[k]);
	for (k = 0; k < N_OF(pool_pkeys); k++)
		wire_put16(pkeys[k], pool_pkeys[k]);
	/* Component mask 0: every record the requester may see. */
	op = tables_by(keyed, plain, 0, 0, 0, names[0], 0, 1);
	op = tables_by(keyed, plain, op, 1ull << SR_CM_GID, SR_OFF_GID, gids[0], 16, ngids);
	op = tables_by(keyed, plain, op, 1ull << SR_CM_NAME, SR_OFF_NAME, names[0],
		       SR_NAME_LEN, 3);
	op = tables_by(keyed, plain, op, 1ull << SR_CM_ID, SR_OFF_ID, sids[0], 8,
		       N_OF(pool_sids));
	tables_by(keyed, plain, op, 1ull << SR_CM_PKEY, SR_OFF_PKEY, pkeys[0], 2,
		  N_OF(pool_pkeys));
}

static int run(struct sa_client *keyed, struct sa_client *plain, int argc, char **argv)
{
	unsigned n;

	if (!strcmp(argv[1], "gone") && argc == 3) {
		struct sr_record q;

		memset(&q, 0, sizeof(q));
		q.id = strtoull(argv[2], NULL, 0);
		return sa_client_sr_get(keyed, &q, sr_comp_mask(SR_F_ID), NULL) == -ENOENT ? 0 : 1;
	}
	if (!strcmp(argv[1], "tables") && argc == 2) {
		if (load_gids(keyed))
			return 2;
		do_tables(keyed, plain);
		return 0;
	}
	if (!strcmp(argv[1], "fill") && argc == 3) {
		if (load_gids(keyed))
			return 2;
		do_fill(keyed, (unsigned)strtoul(argv[2], NULL, 0));
		return 0;
	}
	if (argc < 4 || load_gids(keyed))
		return 2;
	rng = strtoull(argv[2], NULL, 0) | 1;
	n = (unsigned)strtoul(argv[3], NULL, 0);
	if (!strcmp(argv[1], "load") && argc == 4) {
		do_load(keyed, n);
	} else if (!strcmp(argv[1], "query") && argc == 5) {
		do_load(NULL, n);
		do_query(keyed, plain, (unsigned)strtoul(argv[4], NULL, 0));
	} else {
		return 2;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sa_client_opts ko = { .timeout_ms = 1000, .retries = 3, .sm_key = 1,
				     .rmpp = SA_CLIENT_RMPP_OFF };
	struct sa_client_opts po = ko;
	struct sa_client *keyed = NULL, *plain = NULL;
	struct mport *port;
	int ret = 2;

	if (argc < 2 || argc > 5)
		return 2;
	po.sm_key = 0;
	if (mport_open(&port, NULL, 0))
		return 2;
	if (!sa_client_init(&keyed, port, &ko) && !sa_client_init(&plain, port, &po))
		ret = run(keyed, plain, argc, argv);
	if (plain)
		sa_client_fini(plain);
	if (keyed)
		sa_client_fini(keyed);
	mport_close(port);
	return ret;
}
