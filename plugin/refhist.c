/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The refusal history (see refhist.h). */
#include "refhist.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mono.h"

struct ent {
	struct smq_refusal r; /* age_s unused: at_ms says when */
	int64_t at_ms;
};

struct port {
	uint64_t guid;        /* 0: free */
	uint32_t gen;         /* refusals recorded; the newest is ring[(gen - 1) % N] */
	uint64_t last;        /* order of its last refusal among all ports' */
	struct ent ring[REFHIST_PER_PORT];
};

/* Written by the Set thread, read by the responder's: all under mu. */
static struct {
	pthread_mutex_t mu;
	struct port *ports;
	uint64_t order;  /* refusals recorded, all ports */
} H = { .mu = PTHREAD_MUTEX_INITIALIZER };

int refhist_init(void)
{
	H.ports = calloc(REFHIST_PORTS, sizeof(*H.ports));
	return H.ports ? 0 : -ENOMEM;
}

void refhist_fini(void)
{
	free(H.ports);
	H.ports = NULL;
}

/* mu held: the port's slot, else a free one, else the one whose last
 * refusal is oldest (evicted). */
static struct port *slot_of(uint64_t guid)
{
	struct port *free_slot = NULL, *oldest = NULL, *p;
	size_t i;

	for (i = 0; i < REFHIST_PORTS; i++) {
		p = &H.ports[i];
		if (p->guid == guid)
			return p;
		if (!p->guid) {
			if (!free_slot)
				free_slot = p;
		} else if (!oldest || p->last < oldest->last)
			oldest = p;
	}
	p = free_slot ? free_slot : oldest;
	memset(p, 0, sizeof(*p));
	p->guid = guid;
	return p;
}

/* "7A08" as 0x7A08. */
static uint16_t code_of(enum rule rule)
{
	return (uint16_t)strtoul(rule_code(rule), NULL, 16);
}

void refhist_add(uint64_t port_guid, const struct policy_request *req,
		 const struct policy_decision *d, uint16_t status)
{
	static const uint8_t zero[16];
	struct smq_refusal r;
	struct port *p;
	struct ent *e;

	if (!port_guid)
		return;
	memset(&r, 0, sizeof(r));
	r.code = code_of(d->rule);
	r.method = req->method;
	r.pkey = req->rec.pkey;
	r.status = status;
	r.lease = policy_effective_lease(req);
	r.sid = req->rec.id;
	memcpy(r.gid, req->rec.gid, 16);
	memcpy(r.data8, req->rec.data8, 16);
	r.detail = d->detail;
	snprintf(r.name, sizeof(r.name), "%s", rule_name(d->rule));
	/* The owner is of the request's partition (policy_peer_relevant): only
	 * a member may see it, as only a member's SA query would find it
	 * (IBTA Vol 1 15.2.5.14). */
	if (d->rule == RULE_DUP_ADDR && memcmp(d->other_gid, zero, 16)) {
		if (req->req_has_pkey) {
			memcpy(r.owner, d->other_gid, 16);
			r.flags = SMQ_OWNER_SHOWN;
		} else
			r.flags = SMQ_OWNER_WITHHELD;
	}
	pthread_mutex_lock(&H.mu);
	if (H.ports) {
		p = slot_of(port_guid);
		e = &p->ring[p->gen % REFHIST_PER_PORT];
		e->r = r;
		e->at_ms = mono_ms();
		p->last = ++H.order;
		p->gen++;
	}
	pthread_mutex_unlock(&H.mu);
}

size_t refhist_get(uint64_t port_guid, struct smq_refusal *out, size_t max, uint32_t *gen)
{
	int64_t now = mono_ms();
	size_t i, n = 0;

	*gen = 0;
	pthread_mutex_lock(&H.mu);
	for (i = 0; H.ports && port_guid && i < REFHIST_PORTS; i++) {
		const struct port *p = &H.ports[i];
		uint32_t k;

		if (p->guid != port_guid)
			continue;
		*gen = p->gen;
		for (k = 0; k < REFHIST_PER_PORT && k < p->gen && n < max; k++) {
			const struct ent *e = &p->ring[(p->gen - 1 - k) % REFHIST_PER_PORT];

			out[n] = e->r;
			out[n++].age_s = (uint32_t)((now - e->at_ms) / 1000);
		}
		break;
	}
	pthread_mutex_unlock(&H.mu);
	return n;
}
