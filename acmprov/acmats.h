/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The ats provider for ibacm (ibacm_prov(7), provider ABI version 1):
 * librdmacm asks ibacm before every active rdma_getaddrinfo() (acm.c
 * ucma_ib_resolve); this provider answers an IP by ATS (DAT Collaborative
 * ATS v1 sections 3.2 and 4.2: the ServiceRecord holding it, primary
 * holders first) and a PathRecord to that GID, so that unmodified
 * programs connect by IP through the SA's records. The shared state of
 * its modules: the core's objects it was given, its options, its
 * counters. */
#ifndef IBATS_ACMATS_H
#define IBATS_ACMATS_H

#include <pthread.h>
#include <stdint.h>

#include <infiniband/acm_prov.h>

#include "acmats_cache.h"

struct acmats_opts {
	char socket[108];       /* ats_socket: atsd's, tried first */
	unsigned timeout_ms;    /* ats_timeout: atsd's answer at most */
	unsigned cache_ttl;     /* ats_cache_ttl, s: answers and paths kept */
};

struct acmats_port {
	const struct acm_port *port;
	uint8_t gid[16];        /* GID index 0: every path's source */
	struct acmats_cache *cache;
};

struct acmats_ep {
	const struct acm_endpoint *ep;
	struct acmats_port *port;
	pthread_mutex_t lock;   /* counters */
	uint64_t counters[ACM_MAX_COUNTER];
};

extern struct acmats_opts acmats_opts;

/* One more of counter (ACM_CNTR_*) on ep and in the core's total. */
void acmats_count(struct acmats_ep *ep, int counter);
/* Every port's answers forgotten (atsd dropped its own: why). */
void acmats_flush_all(const char *why);

#endif
