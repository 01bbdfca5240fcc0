/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <errno.h>
#include <string.h>

#include "pr.h"
#include "wire.h"

uint64_t pr_query(uint8_t *rec, const uint8_t *sgid, const uint8_t *dgid, uint16_t pkey)
{
	memset(rec, 0, PR_SIZE);
	memcpy(rec + PR_OFF_DGID, dgid, 16);
	memcpy(rec + PR_OFF_SGID, sgid, 16);
	/* Reversible, one path: the path both ends use (IBTA 15.2.5.16). */
	rec[PR_OFF_NUMB_PATH] = 0x80 | 1;
	wire_put16(rec + PR_OFF_PKEY, pkey);
	return 1ull << PR_CM_DGID | 1ull << PR_CM_SGID | 1ull << PR_CM_REVERSIBLE |
	       1ull << PR_CM_NUMB_PATH | 1ull << PR_CM_PKEY;
}

int pr_decode(const uint8_t *rec, size_t len, struct pr_record *r)
{
	uint32_t flow;

	if (len < PR_SIZE)
		return -EMSGSIZE;
	memset(r, 0, sizeof(*r));
	memcpy(r->dgid, rec + PR_OFF_DGID, 16);
	memcpy(r->sgid, rec + PR_OFF_SGID, 16);
	r->dlid = wire_get16(rec + PR_OFF_DLID);
	r->slid = wire_get16(rec + PR_OFF_SLID);
	flow = wire_get32(rec + PR_OFF_FLOW);
	r->flow_label = (flow >> 8) & 0xfffff;
	r->hop_limit = (uint8_t)flow;
	r->tclass = rec[PR_OFF_TCLASS];
	r->reversible = rec[PR_OFF_NUMB_PATH] >> 7;
	r->numb_path = rec[PR_OFF_NUMB_PATH] & 0x7f;
	r->pkey = wire_get16(rec + PR_OFF_PKEY);
	r->sl = rec[PR_OFF_QOS_SL + 1] & 0x0f;
	r->mtu = rec[PR_OFF_MTU] & 0x3f;
	r->rate = rec[PR_OFF_RATE] & 0x3f;
	r->life = rec[PR_OFF_LIFE] & 0x3f;
	return 0;
}
