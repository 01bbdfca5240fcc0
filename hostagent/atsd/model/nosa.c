/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Local answers while the SA does not answer (nosa.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "core/ats.h"
#include "core/mad.h"
#include "nosa.h"

int nosa_applies(int err)
{
	/* -EOPNOTSUPP: the SM's port answered "unsupported method/attribute"
	 * for an SA query every SA serves: its kernel has no SA agent (the
	 * SM process is gone, its port up; mad.c generate_unmatched_resp). */
	return err == -ETIMEDOUT || err == -ENETDOWN || err == -EOPNOTSUPP;
}

enum nosa_evidence nosa_evidence(int err, uint16_t sa_status)
{
	if (err == -ETIMEDOUT || err == -ENETDOWN)
		return NOSA_EV_SILENT;
	if (err == -EOPNOTSUPP)
		return MAD_STATUS_CODE(sa_status) ? NOSA_EV_SILENT : NOSA_EV_NONE;
	/* An answer of the SA's own, whatever it says: busy and class
	 * statuses included (sa.c sa_status_to_errno). */
	return !err || sa_status ? NOSA_EV_ANSWERED : NOSA_EV_NONE;
}

enum nosa_route nosa_route(int down, int have_local, int inflight)
{
	/* ATS 5.1: once registration failed, local records "satisfy
	 * translation requests going forward"; one SA lookup at a time
	 * finds out whether the SA is back without piling silent requests
	 * into the window. What the host does not know still goes to the
	 * SA, which alone may answer it. */
	if (!down || !have_local)
		return NOSA_ASK;
	return inflight ? NOSA_LOCAL : NOSA_LOCAL_PROBE;
}

/* PKeys match on the partition number, whatever the membership bit. */
static int same_pkey(uint16_t a, uint16_t b)
{
	return (a & 0x7fff) == (b & 0x7fff);
}

static void fill(struct sr_record *r, uint64_t sid, const uint8_t *gid, uint16_t pkey,
		 const struct ats_ip *ip)
{
	memset(r, 0, sizeof(*r));
	ats_name_put(r->name);
	r->id = sid;
	memcpy(r->gid, gid, 16);
	r->pkey = pkey;
	r->lease = SR_LEASE_INFINITE;
	ats_ip_encode(ip, r->data8);
}

/* A GID under the port's subnet prefix: ATS 5.1, the IPv6 address of a
 * point-to-point peer is its default GID. */
static int under_prefix(const struct nosa_self *self, const uint8_t *gid)
{
	return !memcmp(gid, self->gid, 8);
}

int nosa_answer(const struct ats_query_lookup *q, const struct nosa_self *self,
		struct sr_record **out, size_t *n)
{
	struct sr_record *r = calloc(self->nrecs + 1, sizeof(*r));
	const uint8_t *gid = q->kind == ATS_QUERY_FORWARD ? q->ip.addr : q->gid;
	size_t i, k = 0;

	if (!r)
		return -ENOMEM;
	for (i = 0; i < self->nrecs; i++) {
		const struct plan_held_rec *h = &self->recs[i];

		if (!same_pkey(h->pkey, q->pkey))
			continue;
		if (q->kind == ATS_QUERY_FORWARD ? ats_ip_equal(&h->ip, &q->ip) :
		    !memcmp(q->gid, self->gid, 16) &&
		    (q->kind == ATS_QUERY_REVERSE || h->sid == ATS_SID_PRIMARY))
			fill(&r[k++], h->sid, self->gid, h->pkey, &h->ip);
	}
	if (!k && (q->kind != ATS_QUERY_FORWARD || q->ip.family == AF_INET6) &&
	    under_prefix(self, gid) && memcmp(gid, self->gid, 16)) {
		struct ats_ip ip = { .family = AF_INET6 };

		memcpy(ip.addr, gid, 16);
		fill(&r[k++], ATS_SID_PRIMARY, gid, q->pkey, &ip);
	}
	if (!k) {
		free(r);
		return -ENOENT;
	}
	*out = r;
	*n = k;
	return 0;
}
