/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sr.h"
#include "wire.h"

_Static_assert(SR_OFF_DATA64 + 2 * 8 == SR_SIZE, "ServiceRecord is 176 bytes");
_Static_assert(SR_OFF_NAME + SR_NAME_LEN == SR_OFF_DATA8, "name before data");
_Static_assert(SR_CM_DATA64 + 2 == SR_CM_NBITS, "37 component bits");

/* Table 207/208: each group of component-mask bits covers count elements
 * of elem_len bytes starting at offset. */
static const struct sr_cm_group {
	const char *name;
	unsigned field;
	unsigned bit;
	unsigned offset;
	unsigned elem_len;
	unsigned count;
} sr_cm_groups[] = {
	{ "ServiceID", SR_F_ID, SR_CM_ID, SR_OFF_ID, 8, 1 },
	{ "ServiceGID", SR_F_GID, SR_CM_GID, SR_OFF_GID, 16, 1 },
	{ "ServiceP_Key", SR_F_PKEY, SR_CM_PKEY, SR_OFF_PKEY, 2, 1 },
	{ "Reserved", 0, SR_CM_RESV, SR_OFF_RESV, 2, 1 },
	{ "ServiceLease", SR_F_LEASE, SR_CM_LEASE, SR_OFF_LEASE, 4, 1 },
	{ "ServiceKey", SR_F_KEY, SR_CM_KEY, SR_OFF_KEY, 16, 1 },
	{ "ServiceName", SR_F_NAME, SR_CM_NAME, SR_OFF_NAME, SR_NAME_LEN, 1 },
	{ "ServiceData8", SR_F_DATA8, SR_CM_DATA8, SR_OFF_DATA8, 1, 16 },
	{ "ServiceData16", SR_F_DATA16, SR_CM_DATA16, SR_OFF_DATA16, 2, 8 },
	{ "ServiceData32", SR_F_DATA32, SR_CM_DATA32, SR_OFF_DATA32, 4, 4 },
	{ "ServiceData64", SR_F_DATA64, SR_CM_DATA64, SR_OFF_DATA64, 8, 2 },
};

#define N_GROUPS (sizeof(sr_cm_groups) / sizeof(sr_cm_groups[0]))

void sr_encode(uint8_t *buf, const struct sr_record *r)
{
	unsigned i;

	wire_put64(buf + SR_OFF_ID, r->id);
	memcpy(buf + SR_OFF_GID, r->gid, 16);
	wire_put16(buf + SR_OFF_PKEY, r->pkey);
	wire_put16(buf + SR_OFF_RESV, r->resv);
	wire_put32(buf + SR_OFF_LEASE, r->lease);
	memcpy(buf + SR_OFF_KEY, r->key, 16);
	memcpy(buf + SR_OFF_NAME, r->name, SR_NAME_LEN);
	memcpy(buf + SR_OFF_DATA8, r->data8, 16);
	for (i = 0; i < 8; i++)
		wire_put16(buf + SR_OFF_DATA16 + 2 * i, r->data16[i]);
	for (i = 0; i < 4; i++)
		wire_put32(buf + SR_OFF_DATA32 + 4 * i, r->data32[i]);
	for (i = 0; i < 2; i++)
		wire_put64(buf + SR_OFF_DATA64 + 8 * i, r->data64[i]);
}

int sr_decode(const uint8_t *buf, size_t len, struct sr_record *r)
{
	unsigned i;

	if (len < SR_SIZE)
		return -EMSGSIZE;
	r->id = wire_get64(buf + SR_OFF_ID);
	memcpy(r->gid, buf + SR_OFF_GID, 16);
	r->pkey = wire_get16(buf + SR_OFF_PKEY);
	r->resv = wire_get16(buf + SR_OFF_RESV);
	r->lease = wire_get32(buf + SR_OFF_LEASE);
	memcpy(r->key, buf + SR_OFF_KEY, 16);
	memcpy(r->name, buf + SR_OFF_NAME, SR_NAME_LEN);
	memcpy(r->data8, buf + SR_OFF_DATA8, 16);
	for (i = 0; i < 8; i++)
		r->data16[i] = wire_get16(buf + SR_OFF_DATA16 + 2 * i);
	for (i = 0; i < 4; i++)
		r->data32[i] = wire_get32(buf + SR_OFF_DATA32 + 4 * i);
	for (i = 0; i < 2; i++)
		r->data64[i] = wire_get64(buf + SR_OFF_DATA64 + 8 * i);
	return 0;
}

uint64_t sr_comp_mask(unsigned fields)
{
	uint64_t mask = 0;
	unsigned g, i;

	for (g = 0; g < N_GROUPS; g++) {
		if (!(fields & sr_cm_groups[g].field))
			continue;
		for (i = 0; i < sr_cm_groups[g].count; i++)
			mask |= 1ull << (sr_cm_groups[g].bit + i);
	}
	return mask;
}

int sr_match(const uint8_t *rec, const uint8_t *query, uint64_t mask)
{
	unsigned g, i, off;

	for (g = 0; g < N_GROUPS; g++) {
		const struct sr_cm_group *cg = &sr_cm_groups[g];

		for (i = 0; i < cg->count; i++) {
			if (!(mask & (1ull << (cg->bit + i))))
				continue;
			off = cg->offset + i * cg->elem_len;
			if (memcmp(rec + off, query + off, cg->elem_len))
				return 0;
		}
	}
	return 1;
}

int sr_answers(const uint8_t *rec, const uint8_t *query, uint64_t mask)
{
	return sr_match(rec, query, mask & ~(1ull << SR_CM_RESV | 1ull << SR_CM_LEASE |
					     1ull << SR_CM_KEY));
}

int sr_table_decode(const uint8_t *data, size_t n, size_t rec_size, const uint8_t *query,
		    uint64_t mask, struct sr_record **recs)
{
	struct sr_record *v;
	size_t i;

	*recs = NULL;
	if (!n)
		return 0;
	if (rec_size < SR_SIZE)
		return -EPROTO;
	v = calloc(n, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const uint8_t *d = data + i * rec_size;

		if (!sr_answers(d, query, mask)) {
			free(v);
			return -EPROTO;
		}
		sr_decode(d, rec_size, &v[i]);
	}
	*recs = v;
	return 0;
}

const char *sr_cm_field_name(unsigned bit, char *buf, size_t len)
{
	unsigned g;

	for (g = 0; g < N_GROUPS; g++) {
		const struct sr_cm_group *cg = &sr_cm_groups[g];

		if (bit < cg->bit || bit >= cg->bit + cg->count)
			continue;
		if (cg->count == 1)
			snprintf(buf, len, "%s", cg->name);
		else
			snprintf(buf, len, "%s[%u]", cg->name, bit - cg->bit);
		return buf;
	}
	snprintf(buf, len, "reserved bit %u", bit);
	return buf;
}
