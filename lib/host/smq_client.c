/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The SM query from a host (see smq_client.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/sa.h"
#include "smq_client.h"
#include "core/vmad.h"

int smq_client_init(struct smq_client *c, struct mport *port, uint16_t sm_lid,
		    unsigned timeout_ms, unsigned retries)
{
	int agent = mport_register_oui(port, SMQ_CLASS, SMQ_CLASS_VERSION, 0, VMAD_OUI_OPENIB, 0);

	if (agent < 0)
		return agent;
	c->port = port;
	c->agent = agent;
	c->lid = sm_lid;
	c->timeout_ms = timeout_ms;
	c->retries = retries;
	return 0;
}

/* One page of attr: the answer in *resp (malloc'ed). */
static int ask(struct smq_client *c, uint16_t attr, uint32_t page, uint64_t key,
	       uint8_t **resp, size_t *len)
{
	struct mport_dest dst = { c->lid, SA_QP, SA_QKEY, 0 };
	struct mport_rpc_opts o = { c->timeout_ms, c->retries, 0, 0 };
	uint8_t req[MAD_SIZE];

	if (!c->lid)
		return -ENETDOWN;
	smq_request_encode(req, attr, page, key);
	return mport_rpc(c->port, c->agent, &dst, req, sizeof(req), &o, resp, len);
}

/* A MAD status as an error: BUSY is the SM's rate limit; any other, a
 * class, version or attribute it does not serve. */
static int status_err(uint16_t st)
{
	return !st ? 0 : st & MAD_STATUS_BUSY ? -EBUSY : -EPROTONOSUPPORT;
}

/* Every page, while the port's generation stays the one of page 0:
 * *moved when a refusal recorded meanwhile shifted the list. */
static int read_pages(struct smq_client *c, struct smq_refusal *out, size_t max, size_t *n,
		      int *moved)
{
	unsigned total = 1;
	uint32_t page, gen0 = 0, gen = 0;

	*n = 0;
	*moved = 0;
	for (page = 0; *n < total && *n < max; page++) {
		struct smq_refusal r[SMQ_REFUSALS_PER_MAD];
		uint8_t *resp = NULL;
		size_t len = 0, got = 0, i;
		uint16_t st = 0;
		int ret = ask(c, SMQ_ATTR_REFUSALS, page, 0, &resp, &len);

		if (!ret)
			ret = smq_refusals_get(resp, len, &st, &total, &gen, r, &got);
		free(resp);
		if (!ret)
			ret = status_err(st);
		if (ret)
			return ret;
		if (!page)
			gen0 = gen;
		if (gen != gen0) {
			*moved = 1;
			return 0;
		}
		if (!got)
			break;
		for (i = 0; i < got && *n < max; i++)
			out[(*n)++] = r[i];
	}
	return 0;
}

int smq_client_refusals(struct smq_client *c, struct smq_refusal *out, size_t max,
			size_t *n)
{
	unsigned attempt;
	int moved = 0, ret = 0;

	for (attempt = 0; attempt < 3; attempt++) {
		ret = read_pages(c, out, max, n, &moved);
		if (ret || !moved)
			break;
	}
	return ret;
}

int smq_client_info(struct smq_client *c, uint64_t key, struct smq_info *out)
{
	unsigned pages = 1, page;
	int ret;

	memset(out, 0, sizeof(*out));
	for (page = 0; page < pages; page++) {
		uint8_t *resp = NULL;
		size_t len = 0;
		uint16_t st = 0;

		ret = ask(c, SMQ_ATTR_SMINFO, page, key, &resp, &len);
		if (!ret)
			ret = smq_info_get(resp, len, page, &st, &pages, out);
		free(resp);
		if (!ret)
			ret = status_err(st);
		if (ret)
			return ret;
		/* The counters' pages and no more, whatever an SM says. */
		if (pages > 1 + SMQ_MAX_RULES / SMQ_RULES_PER_MAD)
			pages = 1 + SMQ_MAX_RULES / SMQ_RULES_PER_MAD;
	}
	return 0;
}

int smq_client_standbys(struct smq_client *c, uint64_t key, struct smq_standbys *out)
{
	uint32_t page = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	do {
		uint8_t *resp = NULL;
		size_t len = 0;
		uint16_t st = 0;

		ret = ask(c, SMQ_ATTR_STANDBYS, page, key, &resp, &len);
		if (!ret)
			ret = smq_standbys_get(resp, len, page, &st, out);
		free(resp);
		if (!ret)
			ret = status_err(st);
		if (ret)
			return ret;
		page++;
		/* Up to what a host keeps, whatever an SM says. */
	} while (out->n < out->total && out->n == page * SMQ_STANDBYS_PER_MAD &&
		 out->n < SMQ_MAX_STANDBYS);
	return 0;
}

const struct smq_refusal *smq_client_match(const struct smq_refusal *v, size_t n,
					   uint8_t method, const uint8_t *gid, uint16_t pkey,
					   const uint8_t *data8)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].method == method && !memcmp(v[i].gid, gid, 16) &&
		    (v[i].pkey & 0x7fff) == (pkey & 0x7fff) &&
		    (!data8 || !memcmp(v[i].data8, data8, 16)))
			return &v[i];
	return NULL;
}
