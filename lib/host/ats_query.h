/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* ATS lookups (ATS 3.2-3.4, 4.1-4.2) with the query strategy: a lookup
 * that can match one record is a SubnAdmGet; a multi-record lookup is a
 * SubnAdmGetTable while RMPP works, else a walk of the SID block with
 * SubnAdmGet from the primary SID upward. */
#ifndef IBATS_ATS_QUERY_H
#define IBATS_ATS_QUERY_H

#include <stddef.h>
#include <stdint.h>

#include "core/ats.h"
#include "core/sa_client.h"

struct ats_query_set {
	struct sr_record *recs; /* ATS records only, primary SIDs first */
	size_t n;
	unsigned queries; /* SA requests it took */
	int walked;       /* answered by a SubnAdmGet walk */
	int by_port;      /* a SID held by several GIDs was read per port of
			   * the fabric: GIDs not on it may be missing */
	int pkeys_missed; /* a SID of one GID in several PKeys was read in
			   * the default PKey only (no PKeys given) */
	int name_cut;     /* without RMPP, records outside the SID block
			   * were seen only in the first MAD of the answer */
	/* ats_query_set_put's key index (1 + position in recs, 0 free), so that
	 * a set of n records costs O(n); rebuilt when recs or n were
	 * changed behind its back. Who reorders recs sets idx_recs NULL. */
	size_t cap, *idx, idx_len, idx_n;
	const struct sr_record *idx_recs;
};

void ats_query_set_free(struct ats_query_set *s);
/* Append r unless a record with its key (SID, GID, PKey) is there. */
int ats_query_set_put(struct ats_query_set *s, const struct sr_record *r);

/* The lookups below match a partition, not a P_Key: pkey and its other
 * membership form (0x7FFF and 0xFFFF) find the same records, as the
 * plugin's rules compare them (plugin/policy.h, POLICY_PKEY_BASE); a
 * record keeps the P_Key it has. The SA compares ServiceP_Key whole
 * when it is in the component mask, so they leave it out and keep the
 * partition's records here: the SA answers only records of partitions
 * the requester shares whatever the mask (OpenSM osm_sa_service_record.c,
 * get_matching_sr(); the plugin's index answers as it does), so this
 * costs no request. */

/* IP -> GIDs. Holders with the IP as primary come first. */
int ats_query_forward(struct sa_client *sa, const struct ats_ip *ip, uint16_t pkey,
		struct ats_query_set *out);
/* GID -> all its records (all-by-GID, ATS 4.2). */
int ats_query_reverse(struct sa_client *sa, const uint8_t *gid, uint16_t pkey,
		struct ats_query_set *out);
/* ats_query_reverse under exactly this P_Key, in the component mask: atsd's
 * sync, whose records carry the one it registers with. */
int ats_query_reverse_exact(struct sa_client *sa, const uint8_t *gid, uint16_t pkey,
		      struct ats_query_set *out);
/* GID -> the primary record; -ENOENT when the GID has none. */
int ats_query_primary(struct sa_client *sa, const uint8_t *gid, uint16_t pkey,
		struct sr_record *out);
/* All records with one SID (ATS 4.1). */
int ats_query_by_sid(struct sa_client *sa, uint64_t sid, uint16_t pkey,
	       struct ats_query_set *out);
/* Every ATS record in the PKey. */
int ats_query_all(struct sa_client *sa, uint16_t pkey, struct ats_query_set *out);

/* One lookup of the three a host asks most: the one type of it for
 * libibats' calls, atsd's control requests, SA jobs and local answers,
 * and the window (host/ats_window.h), which runs it in steps for a
 * caller that keeps several in flight. */
enum ats_query_kind {
	ATS_QUERY_FORWARD,  /* ip -> records */
	ATS_QUERY_REVERSE,  /* gid -> records */
	ATS_QUERY_PRIMARY,  /* gid -> its primary record */
};
struct ats_query_lookup {
	enum ats_query_kind kind;
	struct ats_ip ip;    /* ATS_QUERY_FORWARD */
	uint8_t gid[16];     /* ATS_QUERY_REVERSE, ATS_QUERY_PRIMARY */
	uint16_t pkey;
};
/* The one request that answers l whole, if one does: its method,
 * component mask and record (SR_SIZE bytes at rec). -EAGAIN when l takes
 * a walk (no RMPP): ats_query_lookup does that. */
int ats_query_first(struct sa_client *sa, const struct ats_query_lookup *l, uint8_t *method,
		    uint64_t *mask, uint8_t *rec);
/* What that request's answer ans (err: 0 or its -errno, ans unused then)
 * makes of l in out, as ats_query_lookup would: -ENOENT for a primary
 * that is not there; -EAGAIN when the answer calls for more requests
 * (cut: no RMPP after all; a primary in several partitions). */
int ats_query_finish(struct sa_client *sa, const struct ats_query_lookup *l, int err,
		     const struct sa_client_answer *ans, struct ats_query_set *out);
/* The SubnAdmGet of ip's primary record (the primary SID holding ip,
 * any partition the requester shares): its component mask, its record
 * at rec (SR_SIZE bytes). One MAD answers it, where a forward lookup
 * takes a table (a resolver whose SA answers fit one MAD: ibacm's). */
uint64_t ats_query_forward_primary(const struct ats_ip *ip, uint8_t *rec);
/* l with every strategy, one request after the other: ats_query_forward,
 * _reverse or _primary (its one record in out). */
int ats_query_lookup(struct sa_client *sa, const struct ats_query_lookup *l, struct ats_query_set *out);
/* What l still takes after ats_query_finish said -EAGAIN: a primary
 * asked by P_Key, a walk without RMPP; out as ats_query_lookup's, its
 * queries these requests alone. */
int ats_query_rest(struct sa_client *sa, const struct ats_query_lookup *l, struct ats_query_set *out);

/* Each address of all (ats_query_all's answer) with the answer
 * ats_query_forward would give for it in that partition: a table read
 * once answers every forward lookup it holds (atsd's prefetch). Stops at
 * fn's first non-zero return, which it returns. */
typedef int ats_query_forward_fn(const struct ats_ip *ip, const struct sr_record *recs,
				 size_t n, void *ctx);
int ats_query_forward_each(const struct ats_query_set *all, ats_query_forward_fn *fn, void *ctx);

/* Every record of one GID that claims to be ATS (an ATS SID or the ATS
 * name, in any PKey), for an audit (ats_audit.h); appended to out, in
 * the order found. pkeys: the partitions a SID with records in several
 * is read in. */
int ats_query_gid_claims(struct sa_client *sa, const uint8_t *gid, const uint16_t *pkeys,
		   size_t npkeys, struct ats_query_set *out);

/* Register ip for gid: primary on the primary SID, else on the next SID
 * not in use by that GID. Returns the SID used in *sid. An existing record
 * of the same address is reused. */
int ats_query_register(struct sa_client *sa, const uint8_t *gid, uint16_t pkey,
		 uint32_t lease, const struct ats_ip *ip, int primary,
		 uint64_t *sid);
/* Delete the records of ip on gid; -ENOENT when there are none. */
int ats_query_deregister(struct sa_client *sa, const uint8_t *gid, uint16_t pkey,
		   const struct ats_ip *ip, unsigned *deleted);

#endif
