/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The SM query class (see smquery.h); on the responder thread alone. */
#include "smquery.h"

#include "glue.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nettle/memops.h>

#include "core/mono.h"
#include "lidlim.h"
#include "ratelim.h"
#include "refhist.h"
#include "refusal.h"
#include "replica.h"
#include "settings.h"
#include "core/smq.h"
#include "sr_handler.h"
#include "core/vmad.h"
#include "core/wire.h"
#include "worker.h"

static struct {
	struct mport *port;
	struct lidlim answers; /* per requesting port: SMQUERY_BURST per interval */
	struct ratelim warned;    /* per requester: one WRN 7A51 per interval */
} Q;

void smquery_init(void)
{
	lidlim_init(&Q.answers, SMQUERY_BURST, SMQUERY_INTERVAL_S);
	ratelim_init(&Q.warned, 1, SMQUERY_INTERVAL_S * 1000000000ull);
}

static int limited(struct ratelim *r, uint64_t guid)
{
	struct ratelim_summary sum;
	int have;

	return !ratelim_event(r, guid, 0, (uint64_t)mono_ns(), &sum, &have);
}

/* Whether key is the site's sa_key (not 0, not OpenSM's default one,
 * policy_key_trusted's rule), compared in constant time. */
static int key_trusted(uint64_t key)
{
	uint64_t sa = glue_sa_key();
	uint8_t a[8], b[8];

	wire_put64(a, sa);
	wire_put64(b, key);
	return memeql_sec(a, b, sizeof(a)) && policy_key_trusted(sa, sa);
}

/* guid 0: a port OpenSM does not know (a standby SM's tables hold
 * none): it has no refusals here. */
static void answer_refusals(uint64_t guid, uint32_t page, uint8_t *resp)
{
	struct smq_refusal r[REFHIST_PER_PORT];
	uint8_t gid[16];
	uint32_t gen;
	size_t n = refhist_get(guid, r, REFHIST_PER_PORT, &gen), i, first;

	/* Membership now, not only at the refusal: a port that left the
	 * partition since sees its owner no more. */
	wire_put64(gid, glue_subnet_prefix());
	wire_put64(gid + 8, guid);
	glue_lock_shared();
	for (i = 0; i < n; i++)
		if ((r[i].flags & SMQ_OWNER_SHOWN) && !glue_gid_has_pkey(gid, r[i].pkey)) {
			r[i].flags = SMQ_OWNER_WITHHELD;
			memset(r[i].owner, 0, sizeof(r[i].owner));
		}
	glue_unlock();
	first = (size_t)page * SMQ_REFUSALS_PER_MAD;
	smq_refusals_put(resp, (unsigned)n, gen, first < n ? r + first : r,
			 first >= n ? 0 : n - first < SMQ_REFUSALS_PER_MAD ? n - first :
			 SMQ_REFUSALS_PER_MAD);
}

static uint8_t role_of(const char *role)
{
	return !strcmp(role, "master") ? SMQ_ROLE_MASTER :
	       !strcmp(role, "standby") ? SMQ_ROLE_STANDBY :
	       !strcmp(role, "error") ? SMQ_ROLE_ERROR : SMQ_ROLE_OFF;
}

/* SMQ_INFO_TRUSTED for a port in trusted_guids or the site sa_key, else
 * 0. guid 0: a port OpenSM does not know (trusted by the key alone); who
 * the rate limit's key. */
static uint8_t trust(uint64_t guid, uint64_t who, uint16_t lid, uint64_t key)
{
	struct osmats_conf conf;

	settings_get(&conf);
	if ((guid && osmats_conf_is_trusted(&conf, guid)) || key_trusted(key))
		return SMQ_INFO_TRUSTED;
	if (key && !limited(&Q.warned, who))
		GLUE_LOG(GLUE_LOG_INFO,
			 "WRN 7A51: SM query from LID %u port GUID 0x%016" PRIx64 " with a key that "
			 "is not the site sa_key: answered its public part only\n", lid, guid);
	return 0;
}

static void answer_info(uint8_t flags, uint32_t page, uint8_t *resp)
{
	struct state_file_counters cnt;
	struct state_file_repl repl;
	struct smq_info in;
	unsigned r;

	memset(&in, 0, sizeof(in));
	in.flags = flags;
	replica_state(&repl);
	in.role = role_of(repl.role);
	in.sm_state = glue_sm_state();
	worker_counts(&in.ats, &in.other, &in.absent);
	snprintf(in.version, sizeof(in.version), "%s", IBATS_VERSION);
	snprintf(in.opensm, sizeof(in.opensm), "%s", glue_osm_version());
	if (in.flags & SMQ_INFO_TRUSTED) {
		in.in_sync = (uint8_t)repl.in_sync;
		in.standbys_in_sync = (uint32_t)repl.standbys_in_sync;
		in.head = repl.head;
		in.applied = repl.applied;
		in.lag_ms = repl.lag_ms;
		in.copy = repl.copy;
		in.epoch = repl.epoch;
		sr_handler_counters(&cnt);
		in.accepted = cnt.accepted;
		in.clamped = cnt.clamped;
		in.flushed = worker_flushed();
		for (r = 1; r < RULE_COUNT && in.nrules < SMQ_MAX_RULES; r++, in.nrules++) {
			struct smq_rule_count *c = &in.rules[in.nrules];

			snprintf(c->name, sizeof(c->name), "%s", rule_name((enum rule)r));
			c->code = (uint16_t)strtoul(rule_code((enum rule)r), NULL, 16);
			c->rejected = cnt.rejected[r];
			c->warned = cnt.warned[r];
		}
	}
	smq_info_put(resp, page, &in);
}

_Static_assert(STATE_FILE_MAX_STANDBYS <= SMQ_MAX_STANDBYS, "a host reads every standby");

/* The master's standbys, to trusted requesters only (the public part of
 * SMINFO has no replication either); none on a standby or while off. */
static void answer_standbys(uint8_t flags, uint32_t page, uint8_t *resp)
{
	struct state_file_repl repl;
	struct smq_standbys in;
	size_t i;

	memset(&in, 0, sizeof(in));
	in.flags = flags;
	if (flags & SMQ_INFO_TRUSTED) {
		replica_state(&repl);
		in.epoch = repl.epoch;
		in.head = repl.head;
		for (i = 0; i < repl.nstandbys; i++, in.n++) {
			in.s[i].guid = repl.standbys[i].guid;
			in.s[i].acked = repl.standbys[i].acked;
			in.s[i].seen_ms = repl.standbys[i].last_seen_ms > UINT32_MAX ? UINT32_MAX :
					  (uint32_t)repl.standbys[i].last_seen_ms;
			in.s[i].in_sync = repl.standbys[i].in_sync;
		}
	}
	smq_standbys_put(resp, page, &in);
}

static size_t on_query(void *ctx, const uint8_t *req, size_t len, uint8_t *resp, size_t cap)
{
	struct mport_held h;
	uint16_t attr;
	uint32_t page;
	uint64_t key, guid, who;

	(void)ctx;
	if (cap < MAD_SIZE || smq_request_decode(req, len, &attr, &page, &key) ||
	    mport_requester(Q.port, &h))
		return 0;
	/* Limited by source LID before OpenSM's lock: a flood costs it
	 * nothing past the burst. A port's 2^lmc LIDs are one requester
	 * (osm_lid_mgr.c aligns them), not that many slots of the limiter. */
	who = REFUSAL_LID | (h.slid & ~((1u << glue_lmc()) - 1) & 0xffff);
	if (!lidlim_allow(&Q.answers, (uint16_t)who, (uint64_t)mono_ns())) {
		smq_answer_init(resp, req, MAD_STATUS_BUSY);
		return MAD_SIZE;
	}
	/* The requester is the port the fabric says sent it. Only the master
	 * keeps OpenSM's LID table current (osm_lid_mgr.c alone fills it): a
	 * standby's, left from when it was master, may name a port that left
	 * and whose LID another now holds, so there a port is known by its
	 * LID alone (no refusals, trust by key only). */
	guid = glue_is_master() ? glue_port_of_lid(h.slid) : 0;
	smq_answer_init(resp, req, 0);
	if (attr == SMQ_ATTR_REFUSALS)
		answer_refusals(guid, page, resp);
	else if (attr == SMQ_ATTR_SMINFO)
		answer_info(trust(guid, who, h.slid, key), page, resp);
	else if (attr == SMQ_ATTR_STANDBYS)
		answer_standbys(trust(guid, who, h.slid, key), page, resp);
	else
		smq_answer_init(resp, req, VMAD_STATUS_BAD_ATTR);
	return MAD_SIZE;
}

static void on_attach(void *ctx, struct mport *port, int agent)
{
	(void)ctx;
	(void)agent;
	Q.port = port;
}

static const struct responder_ext ext = {
	.mgmt_class = SMQ_CLASS,
	.class_version = SMQ_CLASS_VERSION,
	.attach = on_attach,
	.answer = on_query,
};

const struct responder_ext *smquery_ext(void)
{
	return &ext;
}
