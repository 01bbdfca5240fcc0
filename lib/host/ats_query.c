/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <errno.h>
#include <sys/socket.h>
#include <stdlib.h>
#include <string.h>

#include "ats_query.h"
#include "core/log.h"

void ats_query_set_free(struct ats_query_set *s)
{
	free(s->recs);
	free(s->idx);
	memset(s, 0, sizeof(*s));
}

/* FNV-1a over the key a set keeps records unique by: SID, GID, PKey. */
static size_t rec_hash(const struct sr_record *r)
{
	uint64_t h = 0xcbf29ce484222325ull;
	uint8_t k[8 + 16 + 2];
	size_t i;

	memcpy(k, &r->id, 8);
	memcpy(k + 8, r->gid, 16);
	memcpy(k + 24, &r->pkey, 2);
	for (i = 0; i < sizeof(k); i++)
		h = (h ^ k[i]) * 0x100000001b3ull;
	return (size_t)h;
}

/* The slot of r's key: the one holding it, else the free one it takes. */
static size_t set_slot(const struct ats_query_set *s, const struct sr_record *r)
{
	size_t mask = s->idx_len - 1, i = rec_hash(r) & mask;

	for (; s->idx[i]; i = (i + 1) & mask) {
		const struct sr_record *o = &s->recs[s->idx[i] - 1];

		if (o->id == r->id && o->pkey == r->pkey && !memcmp(o->gid, r->gid, 16))
			break;
	}
	return i;
}

/* An index at most half full for n records, of the records there. */
static int set_reindex(struct ats_query_set *s, size_t n)
{
	size_t len = 16, i;

	while (len < 2 * n)
		len *= 2;
	free(s->idx);
	s->idx = calloc(len, sizeof(*s->idx));
	s->idx_len = s->idx ? len : 0;
	s->idx_n = 0;
	s->idx_recs = NULL;
	if (!s->idx)
		return -ENOMEM;
	for (i = 0; i < s->n; i++) {
		size_t slot = set_slot(s, &s->recs[i]);

		if (!s->idx[slot])
			s->idx[slot] = i + 1;
	}
	s->idx_n = s->n;
	s->idx_recs = s->recs;
	return 0;
}

int ats_query_set_put(struct ats_query_set *s, const struct sr_record *r)
{
	size_t slot;
	int ret;

	/* Records put in place by hand (a lookup's answer handed on): the
	 * allocation is as long as they are. */
	if (s->recs != s->idx_recs || s->n != s->idx_n) {
		if (s->recs != s->idx_recs)
			s->cap = s->n;
		ret = set_reindex(s, s->n + 1);
		if (ret)
			return ret;
	}
	if (2 * (s->n + 1) > s->idx_len && (ret = set_reindex(s, 2 * (s->n + 1))))
		return ret;
	slot = set_slot(s, r);
	if (s->idx[slot])
		return 0;
	if (s->n >= s->cap) {
		size_t ncap = s->n < 8 ? 16 : 2 * s->n;
		struct sr_record *v = realloc(s->recs, ncap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->recs = v;
		s->cap = ncap;
	}
	s->recs[s->n++] = *r;
	s->idx[slot] = s->n;
	s->idx_n = s->n;
	s->idx_recs = s->recs;
	return 0;
}

/* A query: the values in rec, the fields that must match, and what a
 * multi-record answer keeps. */
struct ats_q {
	struct sr_record rec;
	unsigned fields;        /* SR_F_* */
	uint64_t unmask;        /* component-mask bits left out (the IPv4 form) */
	int any;                /* keep an ATS SID or the ATS name, not only both */
	const uint16_t *pkeys;  /* where a SID of one GID in several PKeys is read */
	size_t npkeys;
	int part;               /* keep rec.pkey's partition alone (not in fields) */
};

static int same_part(uint16_t a, uint16_t b)
{
	return !((a ^ b) & ~ATS_PKEY_FULL_BIT);
}

static int ats_set_add(struct ats_query_set *s, const struct ats_q *q, const struct sr_record *r)
{
	int sid = ats_sid_in_block(r->id), name = ats_name_is_ats(r->name);

	/* Spec 3.2/3.3: lookups ignore records outside the block; an audit
	 * wants every record that claims to be ATS. */
	if (q->any ? (!sid && !name) : (!sid || !name))
		return 0;
	if (q->part && !same_part(r->pkey, q->rec.pkey))
		return 0;
	return ats_query_set_put(s, r);
}

static int ats_rec_cmp(const void *a, const void *b)
{
	const struct sr_record *x = a, *y = b;
	unsigned ox = ats_sid_order(x->id), oy = ats_sid_order(y->id);

	if (ox != oy)
		return ox < oy ? -1 : 1;
	return memcmp(x->gid, y->gid, 16);
}

static void ats_query_init(struct ats_q *q, uint16_t pkey, unsigned fields)
{
	memset(q, 0, sizeof(*q));
	ats_name_put(q->rec.name);
	q->rec.pkey = pkey;
	q->fields = fields;
	q->part = 1;
}

/* One SubnAdmGet of k, with more fields, its record kept; -ENOENT when
 * none matches. */
static int ats_get(struct sa_client *sa, const struct ats_q *q, const struct sr_record *k,
		   unsigned more, struct ats_query_set *out)
{
	struct sr_record r;
	int ret;

	ret = sa_client_sr_get(sa, k, sr_comp_mask(q->fields | more) & ~q->unmask, &r);
	return ret ? ret : ats_set_add(out, q, &r);
}

/* A SID of one GID (both in k) that matches several records, one per
 * partition the requester shares (a SubnAdmGet answers one, OpenSM
 * osm_sa_respond(): "C15-0.1.30"): a lookup reads its partition under
 * the P_Key asked and, when that holds none, under the other membership
 * form (the plugin keeps one form of a SID per GID and partition); an
 * audit per PKey it knows, or in the default PKey alone. */
static int ats_split_pkey(struct sa_client *sa, const struct ats_q *q, struct sr_record *k,
			  struct ats_query_set *out)
{
	static const uint16_t dflt = ATS_PKEY_DEFAULT;
	size_t i, n;
	int ret;

	if (q->fields & SR_F_PKEY)
		return -E2BIG;
	if (q->part) {
		k->pkey = q->rec.pkey;
		ret = ats_get(sa, q, k, SR_F_ID | SR_F_GID | SR_F_PKEY, out);
		if (ret == -ENOENT) {
			k->pkey ^= ATS_PKEY_FULL_BIT;
			ret = ats_get(sa, q, k, SR_F_ID | SR_F_GID | SR_F_PKEY, out);
		}
		return ret == -ENOENT ? 0 : ret;
	}
	if (!q->npkeys)
		out->pkeys_missed = 1;
	n = q->npkeys ? q->npkeys : 1;
	for (i = 0; i < n; i++) {
		k->pkey = q->npkeys ? q->pkeys[i] : dflt;
		ret = ats_get(sa, q, k, SR_F_ID | SR_F_GID | SR_F_PKEY, out);
		if (ret && ret != -ENOENT)
			return ret;
	}
	return 0;
}

/* A SID that matches several records: without a GID, one more request
 * per port GID of the fabric; with one, per partition. */
static int ats_split(struct sa_client *sa, const struct ats_q *q, struct sr_record *k,
		     struct sa_client_ca_port **ports, size_t *nports, struct ats_query_set *out)
{
	size_t i;
	int ret;

	if (q->fields & SR_F_GID)
		return ats_split_pkey(sa, q, k, out);
	if (!out->by_port) {
		ret = sa_client_ports(sa, SA_CLIENT_PORTS_GAP, ports, nports);
		if (ret)
			return ret;
		out->by_port = 1;
	}
	for (i = 0; i < *nports; i++) {
		memcpy(k->gid, (*ports)[i].gid, 16);
		ret = ats_get(sa, q, k, SR_F_ID | SR_F_GID, out);
		if (ret == -E2BIG)
			ret = ats_split_pkey(sa, q, k, out);
		if (ret && ret != -ENOENT)
			return ret;
	}
	return 0;
}

/* One SubnAdmGet per SID of the block, split where a SID matches
 * several records. */
static int ats_walk(struct sa_client *sa, const struct ats_q *q,
		    unsigned first, unsigned count, struct ats_query_set *out)
{
	struct sa_client_ca_port *ports = NULL;
	size_t nports = 0;
	unsigned n;
	int ret = 0;

	out->walked = 1;
	for (n = first; n < first + count && !ret; n++) {
		struct sr_record k = q->rec;

		k.id = ats_sid_at(n);
		ret = ats_get(sa, q, &k, SR_F_ID, out);
		if (ret == -ENOENT)
			ret = 0;
		else if (ret == -E2BIG)
			ret = ats_split(sa, q, &k, &ports, &nports, out);
	}
	free(ports);
	return ret;
}

/* Records outside the block only a name query finds; without RMPP its
 * answer holds whole the records of the first MAD (a cut answer is
 * flagged, never taken as complete). */
static int ats_walk_names(struct sa_client *sa, const struct ats_q *q, struct ats_query_set *out)
{
	struct sr_record k = q->rec, *got = NULL;
	const uint64_t mask = sr_comp_mask(q->fields | SR_F_NAME);
	struct sa_table_shape shape;
	uint8_t buf[SR_SIZE];
	struct sa_client_answer ans;
	size_t i;
	int ret;

	ats_name_put(k.name);
	k.id = 0;
	sr_encode(buf, &k);
	ret = sa_client_request(sa, SA_METHOD_GET_TABLE, SA_ATTR_SERVICE_RECORD, mask, buf,
			 sizeof(buf), &ans);
	if (ret == -ENOENT)
		return 0;
	if (ret)
		return ret;
	/* Records at the stride the answer gives (AttributeOffset), each
	 * one the query selects. */
	ret = sa_table_shape(&ans.hdr, ans.data_len, SR_SIZE, &shape);
	if (!ret)
		ret = sr_table_decode(ans.data, shape.nrec, shape.rec_size, buf, mask, &got);
	if (shape.truncated)
		out->name_cut = 1;
	for (i = 0; !ret && i < shape.nrec; i++)
		ret = ats_set_add(out, q, &got[i]);
	free(got);
	sa_client_answer_free(&ans);
	return ret;
}

/* SubnAdmGetTable while RMPP works, else the walk; appends to out. */
static int ats_collect(struct sa_client *sa, const struct ats_q *q, struct ats_query_set *out)
{
	uint64_t sent = sa_client_requests(sa);
	struct sr_record *recs = NULL;
	unsigned first = 0, count = ATS_SID_COUNT;
	size_t n = 0, i;
	int ret = -EMSGSIZE;

	if (q->fields & SR_F_ID) {
		first = ats_sid_order(q->rec.id);
		count = 1;
	}
	if (sa_client_rmpp_state(sa) != 0)
		ret = sa_client_sr_get_table(sa, &q->rec, sr_comp_mask(q->fields) & ~q->unmask,
				      &recs, &n);
	if (ret == -EMSGSIZE) {
		ret = ats_walk(sa, q, first, count, out);
		if (!ret && q->any && !(q->fields & SR_F_NAME))
			ret = ats_walk_names(sa, q, out);
	} else {
		for (i = 0; i < n && !ret; i++)
			ret = ats_set_add(out, q, &recs[i]);
	}
	free(recs);
	out->queries += (unsigned)(sa_client_requests(sa) - sent);
	return ret;
}

/* Primary SIDs first, then by GID. */
static void set_sort(struct ats_query_set *out)
{
	if (out->n > 1) {
		qsort(out->recs, out->n, sizeof(*out->recs), ats_rec_cmp);
		out->idx_recs = NULL; /* the index points at the old order */
	}
}

static int ats_lookup(struct sa_client *sa, const struct ats_q *q, struct ats_query_set *out)
{
	int ret;

	memset(out, 0, sizeof(*out));
	ret = ats_collect(sa, q, out);
	if (ret) {
		ats_query_set_free(out);
		return ret;
	}
	set_sort(out);
	return 0;
}

int ats_query_gid_claims(struct sa_client *sa, const uint8_t *gid, const uint16_t *pkeys,
		   size_t npkeys, struct ats_query_set *out)
{
	struct ats_q q;

	memset(&q, 0, sizeof(q));
	memcpy(q.rec.gid, gid, 16);
	q.fields = SR_F_GID;
	q.any = 1;
	q.pkeys = pkeys;
	q.npkeys = npkeys;
	return ats_collect(sa, &q, out);
}

/* An IPv4 address has two encodings in ServiceData8 (ATS 3.1 "the
 * standard encoding of IPv4 in IPv6"): ::a.b.c.d and ::ffff:a.b.c.d. They
 * differ in octets 10 and 11 only, so one query without those two bits
 * finds both; what else it matches (IPv6 ::xxxx:a.b.c.d) is dropped here.
 * A GID that holds the address in both forms is named once. */
static void forward_q(struct ats_q *q, const struct ats_ip *ip, uint16_t pkey)
{
	ats_query_init(q, pkey, SR_F_NAME | SR_F_DATA8);
	ats_ip_encode(ip, q->rec.data8);
	if (ip->family == AF_INET)
		q->unmask = 3ull << (SR_CM_DATA8 + 10);
}

uint64_t ats_query_forward_primary(const struct ats_ip *ip, uint8_t *rec)
{
	struct ats_q q;

	forward_q(&q, ip, 0);
	q.fields |= SR_F_ID;
	q.rec.id = ATS_SID_PRIMARY;
	sr_encode(rec, &q.rec);
	return sr_comp_mask(q.fields) & ~q.unmask;
}

/* The records of out holding ip itself, one per GID and partition. */
static void forward_keep(struct ats_query_set *out, const struct ats_ip *ip)
{
	size_t i, k, kept = 0;

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
}

int ats_query_forward(struct sa_client *sa, const struct ats_ip *ip, uint16_t pkey,
		struct ats_query_set *out)
{
	struct ats_q q;
	int ret;

	forward_q(&q, ip, pkey);
	ret = ats_lookup(sa, &q, out);
	if (!ret)
		forward_keep(out, ip);
	return ret;
}

static void reverse_q(struct ats_q *q, const uint8_t *gid, uint16_t pkey, unsigned more)
{
	ats_query_init(q, pkey, SR_F_NAME | SR_F_GID | more);
	memcpy(q->rec.gid, gid, 16);
}

static int reverse(struct sa_client *sa, const uint8_t *gid, uint16_t pkey, unsigned more,
		   struct ats_query_set *out)
{
	struct ats_q q;

	reverse_q(&q, gid, pkey, more);
	return ats_lookup(sa, &q, out);
}

int ats_query_reverse(struct sa_client *sa, const uint8_t *gid, uint16_t pkey,
		struct ats_query_set *out)
{
	return reverse(sa, gid, pkey, 0, out);
}

int ats_query_reverse_exact(struct sa_client *sa, const uint8_t *gid, uint16_t pkey,
		      struct ats_query_set *out)
{
	return reverse(sa, gid, pkey, SR_F_PKEY, out);
}

/* SID + GID + PKey is the record's key (ATS 3.4): one SubnAdmGet, no
 * RMPP. Without the P_Key, which is matched by partition here, a GID
 * with a primary in one partition the requester shares, as most have,
 * still takes one; primaries in several are too many for a Get
 * (ERR_REQ_TOO_MANY_RECORDS, OpenSM osm_sa_respond()), and then ours
 * is asked for by P_Key. A GetTable would be one request always, but
 * several records need RMPP, which a Get never does. */
static void primary_q(struct ats_q *q, const uint8_t *gid, uint16_t pkey)
{
	ats_query_init(q, pkey, SR_F_ID | SR_F_GID | SR_F_NAME);
	memcpy(q->rec.gid, gid, 16);
	q->rec.id = ATS_SID_PRIMARY;
}

/* The primary of gid as a set of one record, its requests counted: one
 * SubnAdmGet, by P_Key when that finds primaries in several partitions;
 * split: straight by P_Key (the Get was asked already). */
static int primary_set(struct sa_client *sa, const uint8_t *gid, uint16_t pkey, int split,
		       struct ats_query_set *out)
{
	uint64_t sent = sa_client_requests(sa);
	struct sr_record k;
	struct ats_q q;
	int ret = -E2BIG;

	memset(out, 0, sizeof(*out));
	primary_q(&q, gid, pkey);
	k = q.rec;
	if (!split)
		ret = ats_get(sa, &q, &k, 0, out);
	if (ret == -E2BIG)
		ret = ats_split_pkey(sa, &q, &k, out);
	if (!ret && !out->n)
		ret = -ENOENT;
	if (!ret && out->n > 1)
		out->n = 1;
	out->queries = (unsigned)(sa_client_requests(sa) - sent);
	if (ret)
		ats_query_set_free(out);
	return ret;
}

int ats_query_primary(struct sa_client *sa, const uint8_t *gid, uint16_t pkey,
		struct sr_record *out)
{
	struct ats_query_set s;
	int ret = primary_set(sa, gid, pkey, 0, &s);

	if (!ret)
		*out = s.recs[0];
	ats_query_set_free(&s);
	return ret;
}

int ats_query_by_sid(struct sa_client *sa, uint64_t sid, uint16_t pkey,
	       struct ats_query_set *out)
{
	struct ats_q q;

	if (!ats_sid_in_block(sid))
		return -EINVAL;
	ats_query_init(&q, pkey, SR_F_ID | SR_F_NAME);
	q.rec.id = sid;
	return ats_lookup(sa, &q, out);
}

int ats_query_all(struct sa_client *sa, uint16_t pkey, struct ats_query_set *out)
{
	struct ats_q q;

	ats_query_init(&q, pkey, SR_F_NAME);
	return ats_lookup(sa, &q, out);
}

static void lookup_q(const struct ats_query_lookup *l, struct ats_q *q)
{
	if (l->kind == ATS_QUERY_FORWARD)
		forward_q(q, &l->ip, l->pkey);
	else if (l->kind == ATS_QUERY_REVERSE)
		reverse_q(q, l->gid, l->pkey, 0);
	else
		primary_q(q, l->gid, l->pkey);
}

int ats_query_first(struct sa_client *sa, const struct ats_query_lookup *l, uint8_t *method,
		    uint64_t *mask, uint8_t *rec)
{
	struct ats_q q;

	lookup_q(l, &q);
	if (l->kind == ATS_QUERY_PRIMARY) {
		*method = SA_METHOD_GET;
	} else {
		/* Without RMPP a multi-record lookup is a walk of many. */
		if (sa_client_rmpp_state(sa) == 0)
			return -EAGAIN;
		*method = SA_METHOD_GET_TABLE;
	}
	*mask = sr_comp_mask(q.fields) & ~q.unmask;
	sr_encode(rec, &q.rec);
	return 0;
}

/* A SubnAdmGet's answer: the one record, if the query selects it. */
static int finish_get(const struct ats_q *q, const struct sa_client_answer *ans, const uint8_t *qbuf,
		      uint64_t mask, struct ats_query_set *out)
{
	struct sr_record r;
	int ret;

	if (ans->data_len < SR_SIZE || !sr_answers(ans->data, qbuf, mask) ||
	    sr_decode(ans->data, ans->data_len, &r))
		return -EPROTO;
	ret = ats_set_add(out, q, &r);
	return ret ? ret : out->n ? 0 : -ENOENT;
}

static int finish_table(struct sa_client *sa, const struct ats_q *q, const struct sa_client_answer *ans,
			const uint8_t *qbuf, uint64_t mask, struct ats_query_set *out)
{
	struct sr_record *recs = NULL;
	size_t n = 0, i;
	int ret = sa_client_sr_table(sa, ans, qbuf, mask, &recs, &n);

	if (ret == -EMSGSIZE)
		ret = -EAGAIN;
	for (i = 0; i < n && !ret; i++)
		ret = ats_set_add(out, q, &recs[i]);
	free(recs);
	return ret;
}

int ats_query_finish(struct sa_client *sa, const struct ats_query_lookup *l, int err,
		     const struct sa_client_answer *ans, struct ats_query_set *out)
{
	uint8_t qbuf[SR_SIZE];
	uint64_t mask;
	struct ats_q q;
	int ret;

	memset(out, 0, sizeof(*out));
	out->queries = 1;
	lookup_q(l, &q);
	mask = sr_comp_mask(q.fields) & ~q.unmask;
	sr_encode(qbuf, &q.rec);
	if (l->kind == ATS_QUERY_PRIMARY)
		/* Primaries in several partitions: too many for a Get. */
		ret = err == -E2BIG ? -EAGAIN : err ? err : finish_get(&q, ans, qbuf, mask, out);
	else
		ret = err == -ENOENT ? 0 : err ? err : finish_table(sa, &q, ans, qbuf, mask, out);
	if (ret) {
		ats_query_set_free(out);
		return ret;
	}
	set_sort(out);
	if (l->kind == ATS_QUERY_FORWARD)
		forward_keep(out, &l->ip);
	return 0;
}

/* Records by the address they hold (undecodable ones last). */
static int by_ip(const void *a, const void *b)
{
	const struct sr_record *x = a, *y = b;
	struct ats_ip ix, iy;
	int bx = ats_ip_decode(x->data8, &ix, NULL) != 0, by = ats_ip_decode(y->data8, &iy, NULL) != 0;

	if (bx || by)
		return bx - by;
	if (ix.family != iy.family)
		return ix.family < iy.family ? -1 : 1;
	return memcmp(&ix.addr, &iy.addr, sizeof(ix.addr));
}

int ats_query_forward_each(const struct ats_query_set *all, ats_query_forward_fn *fn, void *ctx)
{
	struct sr_record *v;
	size_t i, k;
	int ret = 0;

	if (!all->n)
		return 0;
	v = malloc(all->n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	memcpy(v, all->recs, all->n * sizeof(*v));
	qsort(v, all->n, sizeof(*v), by_ip);
	for (i = 0; i < all->n && !ret; i = k) {
		struct ats_query_set s = { 0 };
		struct ats_ip ip;

		if (ats_ip_decode(v[i].data8, &ip, NULL))
			break;
		for (k = i + 1; k < all->n && !by_ip(&v[i], &v[k]); k++)
			;
		/* A forward lookup's answer, as ats_query_forward makes it. */
		s.recs = malloc((k - i) * sizeof(*s.recs));
		if (!s.recs) {
			ret = -ENOMEM;
			break;
		}
		memcpy(s.recs, v + i, (k - i) * sizeof(*s.recs));
		s.n = k - i;
		set_sort(&s);
		forward_keep(&s, &ip);
		ret = fn(&ip, s.recs, s.n, ctx);
		ats_query_set_free(&s);
	}
	free(v);
	return ret;
}

int ats_query_rest(struct sa_client *sa, const struct ats_query_lookup *l, struct ats_query_set *out)
{
	/* A primary's Get found primaries in several partitions: by P_Key;
	 * anything else is a walk, RMPP now known missing. */
	if (l->kind == ATS_QUERY_PRIMARY)
		return primary_set(sa, l->gid, l->pkey, 1, out);
	return ats_query_lookup(sa, l, out);
}

int ats_query_lookup(struct sa_client *sa, const struct ats_query_lookup *l, struct ats_query_set *out)
{
	if (l->kind == ATS_QUERY_FORWARD)
		return ats_query_forward(sa, &l->ip, l->pkey, out);
	if (l->kind == ATS_QUERY_REVERSE)
		return ats_query_reverse(sa, l->gid, l->pkey, out);
	return primary_set(sa, l->gid, l->pkey, 0, out);
}

int ats_query_register(struct sa_client *sa, const uint8_t *gid, uint16_t pkey,
		 uint32_t lease, const struct ats_ip *ip, int primary,
		 uint64_t *sid)
{
	struct ats_query_set mine;
	struct sr_record r;
	uint64_t use = ATS_SID_PRIMARY;
	size_t i;
	int ret;

	ret = ats_query_reverse(sa, gid, pkey, &mine);
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
		/* The first record of a GID is its primary (ATS 2.2). */
		for (n = mine.n ? 1 : 0; n < ATS_SID_COUNT && used[n]; n++)
			;
		if (n == ATS_SID_COUNT) {
			ats_query_set_free(&mine);
			return -ENOSPC;
		}
		use = ats_sid_at(n);
	}
found:
	ats_query_set_free(&mine);
	ats_record_init(&r, use, gid, pkey, lease, ip);
	ret = sa_client_sr_set(sa, &r, ats_reg_mask(lease), NULL);
	if (!ret && sid)
		*sid = use;
	return ret;
}

int ats_query_deregister(struct sa_client *sa, const uint8_t *gid, uint16_t pkey,
		   const struct ats_ip *ip, unsigned *deleted)
{
	struct ats_query_set mine;
	struct ats_ip have;
	size_t i;
	int ret;

	*deleted = 0;
	ret = ats_query_reverse(sa, gid, pkey, &mine);
	if (ret)
		return ret;
	/* Secondaries before the primary: the SM may require it. */
	for (i = mine.n; i-- > 0;) {
		if (ats_ip_decode(mine.recs[i].data8, &have, NULL) ||
		    !ats_ip_equal(&have, ip))
			continue;
		ret = sa_client_sr_delete(sa, &mine.recs[i],
				   sr_comp_mask(SR_F_ID | SR_F_GID | SR_F_PKEY |
						SR_F_NAME),
				   NULL);
		if (ret)
			break;
		(*deleted)++;
	}
	ats_query_set_free(&mine);
	if (!ret && !*deleted)
		return -ENOENT;
	return ret;
}
