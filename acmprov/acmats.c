/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acmats.h"
#include "acmats_req.h"
#include "host/atsd_proto.h"

#define ACMATS_EXPORT __attribute__((visibility("default")))

struct acmats_opts acmats_opts = {
	.socket = ATSD_PROTO_SOCKET_DEFAULT,
	.timeout_ms = 1500,
	.cache_ttl = 30,
};

/* ibacm_opts.cfg is the core's and every provider's (acm.c
 * acm_set_options, acmp.c acmp_set_options): each reads its own keys
 * and passes over the others', so ours carry the prefix ats_. */
static void read_opts(void)
{
	const char *path = acm_get_opts_file();
	char line[256], key[64], val[160];
	FILE *f = path ? fopen(path, "r") : NULL;
	unsigned long n;
	char *end;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || sscanf(line, "%63s %159s", key, val) != 2)
			continue;
		if (!strcmp(key, "ats_socket")) {
			if (strlen(val) < sizeof(acmats_opts.socket))
				strcpy(acmats_opts.socket, val);
			else
				acm_log(0, "ats_socket %s: longer than a socket path\n", val);
			continue;
		}
		if (strcmp(key, "ats_timeout") && strcmp(key, "ats_cache_ttl"))
			continue;
		n = strtoul(val, &end, 0);
		if (*end || !n || n > 86400000) {
			acm_log(0, "%s %s: not a positive number, ignored\n", key, val);
			continue;
		}
		if (!strcmp(key, "ats_timeout"))
			acmats_opts.timeout_ms = (unsigned)n;
		else
			acmats_opts.cache_ttl = (unsigned)n;
	}
	fclose(f);
	acm_log(1, "ats_socket %s ats_timeout %u ms ats_cache_ttl %u s\n", acmats_opts.socket,
		acmats_opts.timeout_ms, acmats_opts.cache_ttl);
}

/* The ports open, for acmats_flush_all. */
#define ACMATS_MAX_PORTS 64
static struct {
	pthread_mutex_t lock;
	struct acmats_port *p[ACMATS_MAX_PORTS];
	size_t n;
} ports = { .lock = PTHREAD_MUTEX_INITIALIZER };

void acmats_flush_all(const char *why)
{
	size_t i;

	pthread_mutex_lock(&ports.lock);
	for (i = 0; i < ports.n; i++)
		acmats_cache_flush(ports.p[i]->cache);
	pthread_mutex_unlock(&ports.lock);
	acm_log(1, "%s: answers forgotten\n", why);
}

/* The core counts RESOLVE, NODATA and ERROR itself (acm.c
 * acm_svr_resolve, acm_client_resolve_resp); a provider adds its
 * queries and cache hits to the global counters, as acmp does, and
 * all of them to its endpoint's. */
void acmats_count(struct acmats_ep *ep, int counter)
{
	if (counter != ACM_CNTR_RESOLVE && counter != ACM_CNTR_NODATA &&
	    counter != ACM_CNTR_ERROR)
		acm_increment_counter(counter);
	pthread_mutex_lock(&ep->lock);
	ep->counters[counter]++;
	pthread_mutex_unlock(&ep->lock);
}

static int open_device(const struct acm_device *device, void **ctx)
{
	int ret = acmats_req_init();

	*ctx = (void *)device;
	return ret ? -1 : 0;
}

static void close_device(void *ctx)
{
	(void)ctx;
}

static int open_port(const struct acm_port *port, void *dev_ctx, void **ctx)
{
	struct acmats_port *p = calloc(1, sizeof(*p));
	union ibv_gid gid;

	(void)dev_ctx;
	if (!p)
		return -1;
	p->port = port;
	if (acm_get_gid((struct acm_port *)port, 0, &gid) ||
	    acmats_cache_init(&p->cache, acmats_opts.cache_ttl)) {
		free(p);
		return -1;
	}
	memcpy(p->gid, gid.raw, 16);
	pthread_mutex_lock(&ports.lock);
	if (ports.n == ACMATS_MAX_PORTS) {
		pthread_mutex_unlock(&ports.lock);
		acmats_cache_fini(p->cache);
		free(p);
		return -1;
	}
	ports.p[ports.n++] = p;
	pthread_mutex_unlock(&ports.lock);
	*ctx = p;
	return 0;
}

static void close_port(void *ctx)
{
	struct acmats_port *p = ctx;
	size_t i;

	pthread_mutex_lock(&ports.lock);
	for (i = 0; i < ports.n; i++)
		if (ports.p[i] == p)
			ports.p[i] = ports.p[--ports.n];
	pthread_mutex_unlock(&ports.lock);
	acmats_cache_fini(p->cache);
	free(p);
}

static int open_endpoint(const struct acm_endpoint *endpoint, void *port_ctx, void **ctx)
{
	struct acmats_ep *ep = calloc(1, sizeof(*ep));

	if (!ep)
		return -1;
	ep->ep = endpoint;
	ep->port = port_ctx;
	pthread_mutex_init(&ep->lock, NULL);
	*ctx = ep;
	return 0;
}

static void close_endpoint(void *ctx)
{
	struct acmats_ep *ep = ctx;

	pthread_mutex_destroy(&ep->lock);
	free(ep);
}

/* An address is the endpoint's: answers go by endpoint. */
static int add_address(const struct acm_address *addr, void *ep_ctx, void **ctx)
{
	(void)addr;
	*ctx = ep_ctx;
	return 0;
}

static void remove_address(void *ctx)
{
	(void)ctx;
}

static int resolve(void *addr_ctx, struct acm_msg *msg, uint64_t id)
{
	return acmats_req_resolve(addr_ctx, msg, id);
}

static int query(void *addr_ctx, struct acm_msg *msg, uint64_t id)
{
	return acmats_req_query(addr_ctx, msg, id);
}

/* What the port knew may be wrong after these (ibv_event_type): a new
 * SM, a reregister (the SA's records to be registered again), new LIDs
 * or P_Keys. */
static int handle_event(void *port_ctx, enum ibv_event_type type)
{
	struct acmats_port *p = port_ctx;

	switch (type) {
	case IBV_EVENT_CLIENT_REREGISTER:
	case IBV_EVENT_SM_CHANGE:
	case IBV_EVENT_LID_CHANGE:
	case IBV_EVENT_PKEY_CHANGE:
	case IBV_EVENT_PORT_ACTIVE:
	case IBV_EVENT_PORT_ERR:
		acmats_cache_flush(p->cache);
		acm_log(1, "port %u: %s: answers forgotten\n", p->port->port_num,
			ibv_event_type_str(type));
		break;
	default:
		break;
	}
	return 0;
}

static void query_perf(void *ep_ctx, uint64_t *values, uint8_t *cnt)
{
	struct acmats_ep *ep = ep_ctx;
	int i;

	pthread_mutex_lock(&ep->lock);
	for (i = 0; i < ACM_MAX_COUNTER; i++)
		values[i] = htobe64(ep->counters[i]);
	pthread_mutex_unlock(&ep->lock);
	*cnt = ACM_MAX_COUNTER;
}

static struct acm_provider prov = {
	.size = sizeof(struct acm_provider),
	.version = ACM_PROV_VERSION,
	.name = "ats",
	.open_device = open_device,
	.close_device = close_device,
	.open_port = open_port,
	.close_port = close_port,
	.open_endpoint = open_endpoint,
	.close_endpoint = close_endpoint,
	.add_address = add_address,
	.remove_address = remove_address,
	.resolve = resolve,
	.query = query,
	.handle_event = handle_event,
	.query_perf = query_perf,
};

ACMATS_EXPORT int provider_query(struct acm_provider **info, uint32_t *version)
{
	static int once;

	if (!once++)
		read_opts();
	if (info)
		*info = &prov;
	if (version)
		*version = ACM_PROV_VERSION;
	return 0;
}

static void __attribute__((destructor)) acmats_fini(void)
{
	acmats_req_fini();
}
