/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The benchmarks' bulk records (sabench, capbench): record i is SID
 * ats_sid_at(i / NGIDS) on the (i % NGIDS)-th CA port, address
 * 10.(k+1).(g>>8).(g&255). Every GID gets its primary first and no
 * address repeats, so the plugin's rules accept a trusted bulk load. */
#ifndef IBATS_BENCH_BULK_H
#define IBATS_BENCH_BULK_H

#include <arpa/inet.h>
#include <stddef.h>
#include <string.h>

#include "core/ats.h"
#include "core/sa_client.h"

static inline void bulk_ip(size_t i, size_t ngids, struct ats_ip *ip)
{
	size_t g = i % ngids, k = i / ngids;

	memset(ip, 0, sizeof(*ip));
	ip->family = AF_INET;
	ip->addr[0] = 10;
	ip->addr[1] = (uint8_t)(k + 1);
	ip->addr[2] = (uint8_t)(g >> 8);
	ip->addr[3] = (uint8_t)g;
}

static inline void bulk_rec(size_t i, size_t ngids, const struct sa_client_ca_port *ports,
			    struct sr_record *r)
{
	struct ats_ip ip;

	bulk_ip(i, ngids, &ip);
	ats_record_init(r, ats_sid_at((unsigned)(i / ngids)), ports[i % ngids].gid,
			ATS_PKEY_DEFAULT, SR_LEASE_INFINITE, &ip);
}

#endif
