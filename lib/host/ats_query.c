#include <errno.h>
#include <sys/socket.h>
#include <stdlib.h>
#include <string.h>

#include "ats_query.h"
#include "log.h"

void ats_set_free(struct ats_set *s)
{
	free(s->recs);
	memset(s, 0, sizeof(*s));
}

int ats_set_put(struct ats_set *s, const struct sr_record *r)
{
	struct sr_record *v;
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->recs[i].id == r->id && s->recs[i].pkey == r->pkey &&
		    !memcmp(s->recs[i].gid, r->gid, 16))
			return 0;
	v = realloc(s->recs, (s->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	s->recs = v;
	s->recs[s->n++] = *r;
	return 0;
}

static int ats_set_add(struct ats_set *s, const struct sr_record *r)
{
	if (!ats_sid_in_block(r->id) || !ats_name_is_ats(r->name))
		return 0; /* spec 3.2/3.3: ignore records outside the block */
	return ats_set_put(s, r);
}

static int ats_rec_cmp(const void *a, const void *b)
{
	const struct sr_record *x = a, *y = b;
	unsigned ox = ats_sid_order(x->id), oy = ats_sid_order(y->id);

	if (ox != oy)
		return ox < oy ? -1 : 1;
	return memcmp(x->gid, y->gid, 16);
}

static void ats_query_init(struct sr_record *q, uint16_t pkey)
{
	memset(q, 0, sizeof(*q));
	ats_name_put(q->name);
	q->pkey = pkey;
}

/* One SubnAdmGet per SID of the block; when a SID matches several
 * records, one more per known port GID. */
static int ats_walk(struct sa_client *sa, const struct sr_record *q,
		    unsigned fields, uint64_t unmask, unsigned first, unsigned count,
		    struct ats_set *out)
{
	struct sa_port *ports = NULL;
	size_t nports = 0, g;
	unsigned n;
	int ret = 0, have_gids = 0;

	out->walked = 1;
	fields &= ~SR_F_ID;
	for (n = first; n < first + count; n++) {
		struct sr_record k = *q, r;

		k.id = ats_sid_at(n);
		out->queries++;
		ret = sa_sr_get(sa, &k, sr_comp_mask(fields | SR_F_ID) & ~unmask, &r);
		if (ret == -ENOENT)
			continue;
		if (ret == 0) {
			ret = ats_set_add(out, &r);
			if (ret)
				break;
			continue;
		}
		if (ret != -E2BIG || (fields & SR_F_GID))
			break;
		if (!have_gids) {
			ret = sa_ports(sa, SA_PORTS_GAP, &ports, &nports);
			if (ret)
				break;
			out->queries += (unsigned)nports;
			have_gids = 1;
			out->by_port = 1;
		}
		for (g = 0; g < nports; g++) {
			memcpy(k.gid, ports[g].gid, 16);
			out->queries++;
			ret = sa_sr_get(sa, &k,
					sr_comp_mask(fields | SR_F_ID | SR_F_GID) & ~unmask, &r);
			if (ret == -ENOENT)
				continue;
			if (ret)
				goto done;
			ret = ats_set_add(out, &r);
			if (ret)
				goto done;
		}
		ret = 0;
	}
done:
	free(ports);
	if (ret && ret != -ENOENT)
		return ret;
	return 0;
}

/* unmask: component-mask bits left out of fields' (the IPv4 form). */
static int ats_lookup(struct sa_client *sa, const struct sr_record *q,
		      unsigned fields, uint64_t unmask, struct ats_set *out)
{
	struct sr_record *recs = NULL;
	unsigned first = 0, count = ATS_SID_COUNT;
	size_t n = 0, i;
	int ret = -EMSGSIZE;

	memset(out, 0, sizeof(*out));
	if (fields & SR_F_ID) {
		first = ats_sid_order(q->id);
		count = 1;
	}
	if (sa_client_rmpp_state(sa) != 0) {
		out->queries++;
		ret = sa_sr_get_table(sa, q, sr_comp_mask(fields) & ~unmask, &recs, &n);
	}
	if (ret == -EMSGSIZE)
		ret = ats_walk(sa, q, fields, unmask, first, count, out);
	else
		for (i = 0; i < n && !ret; i++)
			ret = ats_set_add(out, &recs[i]);
	free(recs);
	if (ret) {
		ats_set_free(out);
		return ret;
	}
	if (out->n > 1)
		qsort(out->recs, out->n, sizeof(*out->recs), ats_rec_cmp);
	return 0;
}

/* An IPv4 address has two encodings in ServiceData8 (ATS 3.1 "the
 * standard encoding of IPv4 in IPv6"): ::a.b.c.d and ::ffff:a.b.c.d. They
 * differ in octets 10 and 11 only, so one query without those two bits
 * finds both; what else it matches (IPv6 ::xxxx:a.b.c.d) is dropped here.
 * A GID that holds the address in both forms is named once. */
int ats_forward(struct sa_client *sa, const struct ats_ip *ip, uint16_t pkey,
		struct ats_set *out)
{
	uint64_t unmask = 0;
	struct sr_record q;
	size_t i, k, kept = 0;
	int ret;

	ats_query_init(&q, pkey);
	ats_ip_encode(ip, q.data8);
	if (ip->family == AF_INET)
		unmask = 3ull << (SR_CM_DATA8 + 10);
	ret = ats_lookup(sa, &q, SR_F_NAME | SR_F_PKEY | SR_F_DATA8, unmask, out);
	if (ret)
		return ret;
	for (i = 0; i < out->n; i++) {
		struct ats_ip have;

		if (ats_ip_decode(out->recs[i].data8, &have, NULL) || !ats_ip_equal(&have, ip))
			continue;
		/* Sorted primary SIDs first: the first of a GID is kept. */
		for (k = 0; k < kept; k++)
			if (!memcmp(out->recs[k].gid, out->recs[i].gid, 16) &&
			    (out->recs[k].pkey & 0x7fff) == (out->recs[i].pkey & 0x7fff))
				break;
		if (k == kept)
			out->recs[kept++] = out->recs[i];
	}
	out->n = kept;
	return 0;
}

int ats_reverse(struct sa_client *sa, const uint8_t *gid, uint16_t pkey,
		struct ats_set *out)
{
	struct sr_record q;

	ats_query_init(&q, pkey);
	memcpy(q.gid, gid, 16);
	return ats_lookup(sa, &q, SR_F_NAME | SR_F_PKEY | SR_F_GID, 0, out);
}

int ats_primary(struct sa_client *sa, const uint8_t *gid, uint16_t pkey,
		struct sr_record *out)
{
	struct sr_record q;

	ats_query_init(&q, pkey);
	memcpy(q.gid, gid, 16);
	q.id = ATS_SID_PRIMARY;
	/* SID + GID + PKey is the record's key: one MAD, no RMPP (spec 3.4). */
	return sa_sr_get(sa, &q,
			 sr_comp_mask(SR_F_ID | SR_F_GID | SR_F_PKEY | SR_F_NAME),
			 out);
}

int ats_by_sid(struct sa_client *sa, uint64_t sid, uint16_t pkey,
	       struct ats_set *out)
{
	struct sr_record q;

	if (!ats_sid_in_block(sid))
		return -EINVAL;
	ats_query_init(&q, pkey);
	q.id = sid;
	return ats_lookup(sa, &q, SR_F_ID | SR_F_NAME | SR_F_PKEY, 0, out);
}

int ats_all(struct sa_client *sa, uint16_t pkey, struct ats_set *out)
{
	struct sr_record q;

	ats_query_init(&q, pkey);
	return ats_lookup(sa, &q, SR_F_NAME | SR_F_PKEY, 0, out);
}

int ats_register(struct sa_client *sa, const uint8_t *gid, uint16_t pkey,
		 uint32_t lease, const struct ats_ip *ip, int primary,
		 uint64_t *sid)
{
	struct ats_set mine;
	struct sr_record r;
	uint64_t use = ATS_SID_PRIMARY;
	size_t i;
	int ret;

	ret = ats_reverse(sa, gid, pkey, &mine);
	if (ret)
		return ret;
	if (!primary) {
		uint8_t used[ATS_SID_COUNT] = { 0 };
		struct ats_ip have;
		unsigned n;

		for (i = 0; i < mine.n; i++) {
			used[ats_sid_order(mine.recs[i].id)] = 1;
			if (!ats_ip_decode(mine.recs[i].data8, &have, NULL) &&
			    ats_ip_equal(&have, ip)) {
				/* Same address already registered: refresh it. */
				use = mine.recs[i].id;
				goto found;
			}
		}
		/* The first record of a GID is its primary (spec 2.2). */
		for (n = mine.n ? 1 : 0; n < ATS_SID_COUNT && used[n]; n++)
			;
		if (n == ATS_SID_COUNT) {
			ats_set_free(&mine);
			return -ENOSPC;
		}
		use = ats_sid_at(n);
	}
found:
	ats_set_free(&mine);
	ats_record_init(&r, use, gid, pkey, lease, ip);
	ret = sa_sr_set(sa, &r,
			ats_reg_mask(lease),
			NULL);
	if (!ret && sid)
		*sid = use;
	return ret;
}

int ats_deregister(struct sa_client *sa, const uint8_t *gid, uint16_t pkey,
		   const struct ats_ip *ip, unsigned *deleted)
{
	struct ats_set mine;
	struct ats_ip have;
	size_t i, k;
	int ret;

	*deleted = 0;
	ret = ats_reverse(sa, gid, pkey, &mine);
	if (ret)
		return ret;
	/* Secondaries before the primary: the SM may require it. */
	for (k = mine.n; k-- > 0;) {
		i = k;
		if (ats_ip_decode(mine.recs[i].data8, &have, NULL) ||
		    !ats_ip_equal(&have, ip))
			continue;
		ret = sa_sr_delete(sa, &mine.recs[i],
				   sr_comp_mask(SR_F_ID | SR_F_GID | SR_F_PKEY |
						SR_F_NAME),
				   NULL);
		if (ret)
			break;
		(*deleted)++;
	}
	ats_set_free(&mine);
	if (!ret && !*deleted)
		return -ENOENT;
	return ret;
}
