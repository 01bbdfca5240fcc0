/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Report subscriptions on the main thread (subs.h). */
#include <inttypes.h>
#include <string.h>

#include "core/ats.h"
#include "core/log.h"
#include "core/notice.h"
#include "subs.h"

/* Reports remembered to spot repeats: the SA resends one whose
 * ReportResp it missed (13.4.8.2), with the same TID, within its MAD
 * timeouts and retries (OpenSM: a few seconds). A restarted SA numbers
 * its Reports from the start again (OpenSM: 0x02DAB001), so what is
 * remembered is forgotten after SUBS_SEEN_MS, and at a new subscription
 * after a lapse or to another SA. */
#define SUBS_SEEN 32
#define SUBS_SEEN_MS 10000

struct seen {
	uint64_t tid;
	int64_t rx_ms;
	uint16_t trap;
	uint8_t gid[16];
};

static struct {
	struct sa_thread *saj;
	struct subs_hooks hooks;
	int running;                /* a subscribe or unsubscribe is out */
	int again;                  /* subscribe once the running one is back */
	int active;
	int stopping;
	int last_err;               /* the last outcome logged: one line a change */
	int lapsed;                 /* a subscribe failed since the last success */
	uint16_t last_sa_lid;
	struct seen seen[SUBS_SEEN];
	size_t nseen, next_seen;
	struct subs_stats st;
} sb;

void subs_init(const struct subs_hooks *hooks)
{
	memset(&sb, 0, sizeof(sb));
	sb.hooks = *hooks;
}

void subs_start(struct sa_thread *saj)
{
	sb.saj = saj;
}

static void note_outcome(const struct saj *j)
{
	int subscribe = j->u.inform.subscribe;

	if (j->err) {
		sb.st.failures++;
		sb.lapsed = 1;
		if (!subscribe)
			log_warn("cannot unsubscribe from SA reports (SA LID %u): %s",
				 j->u.inform.sa_lid, j->errmsg);
		else if (j->err != sb.last_err || j->u.inform.sa_lid != sb.last_sa_lid)
			log_warn("cannot subscribe to SA reports (SA LID %u): %s; cached "
				 "answers last their TTL until it works", j->u.inform.sa_lid,
				 j->errmsg);
	} else if (!subscribe) {
		log_info("unsubscribed from SA reports (SA LID %u)", j->u.inform.sa_lid);
	} else {
		sb.st.subscriptions++;
		if (sb.last_err || j->u.inform.sa_lid != sb.last_sa_lid)
			log_info("subscribed to SA reports of traps 64/65 (SA LID %u)",
				 j->u.inform.sa_lid);
		if (sb.lapsed || j->u.inform.sa_lid != sb.last_sa_lid) {
			sb.nseen = 0;
			sb.next_seen = 0;
		}
		if (sb.lapsed)
			sb.hooks.lapsed();
		sb.lapsed = 0;
	}
	sb.last_err = j->err;
	sb.last_sa_lid = j->u.inform.sa_lid;
}

static void submit(int subscribe);

static void inform_done(struct saj *j, void *ctx)
{
	(void)ctx;
	sb.running = 0;
	note_outcome(j);
	if (j->u.inform.subscribe)
		sb.active = !j->err;
	else if (!j->err)
		sb.active = 0;
	if (sb.again && !sb.stopping) {
		sb.again = 0;
		submit(1);
	}
}

static void submit(int subscribe)
{
	struct saj *j;

	if (!sb.saj)
		return;
	j = saj_new(SAJ_INFORM, inform_done, NULL);
	if (!j) {
		log_warn("SA reports: out of memory");
		return;
	}
	j->u.inform.subscribe = subscribe;
	sb.running = 1;
	sa_thread_submit(sb.saj, j);
}

void subs_request(const char *why)
{
	if (sb.stopping)
		return;
	log_debug("subscribing to SA reports: %s", why);
	if (sb.running)
		sb.again = 1;
	else
		submit(1);
}

int subs_active(void)
{
	return sb.active;
}

int subs_pending(void)
{
	return sb.running;
}

void subs_shutdown(void)
{
	sb.stopping = 1;
	if (sb.active || sb.running)
		submit(0);
}

static int seen_before(const struct saj_report *r, const uint8_t *gid)
{
	struct seen *s;
	size_t i;

	for (i = 0; i < sb.nseen; i++) {
		s = &sb.seen[i];
		if (s->tid == r->tid && s->trap == r->notice.trap_or_dev &&
		    !memcmp(s->gid, gid, 16) && r->rx_ms - s->rx_ms < SUBS_SEEN_MS)
			return 1;
	}
	s = &sb.seen[sb.next_seen];
	s->tid = r->tid;
	s->rx_ms = r->rx_ms;
	s->trap = r->notice.trap_or_dev;
	memcpy(s->gid, gid, 16);
	sb.next_seen = (sb.next_seen + 1) % SUBS_SEEN;
	if (sb.nseen < SUBS_SEEN)
		sb.nseen++;
	return 0;
}

void subs_report(struct saj *j, void *ctx)
{
	const struct saj_report *r = &j->u.report;
	char text[ATS_IP_STRLEN];
	uint8_t gid[16];
	size_t n;

	(void)ctx;
	if (r->refused) {
		sb.st.refused++;
		log_debug("SA Report (TID 0x%016" PRIx64 ") from LID %u refused: not the SA "
			  "we subscribed with", r->tid, r->slid);
		return;
	}
	if (r->forwarded) {
		sb.st.refused++;
		ats_gid_format(r->notice.issuer_gid, text, sizeof(text));
		log_debug("SA Report (TID 0x%016" PRIx64 ") of trap %u refused: issued by "
			  "%s, not the SM", r->tid, r->notice.trap_or_dev, text);
		return;
	}
	if (notice_trap_gid(&r->notice, gid))
		memset(gid, 0, sizeof(gid));
	if (seen_before(r, gid)) {
		sb.st.duplicates++;
		return;
	}
	sb.st.reports++;
	ats_gid_format(gid, text, sizeof(text));
	switch (r->notice.is_generic ? r->notice.trap_or_dev : 0) {
	case NOTICE_TRAP_GID_OUT:
		n = sb.hooks.gone(gid);
		log_info("SA report: %s out of service, %zu cached answer(s) dropped", text, n);
		break;
	case NOTICE_TRAP_GID_IN:
		n = sb.hooks.back(gid);
		log_info("SA report: %s in service, %zu negative answer(s) dropped", text, n);
		break;
	default:
		n = 0;
		log_debug("SA report of trap %u ignored", r->notice.trap_or_dev);
		break;
	}
	sb.st.invalidations += n;
}

void subs_stats(struct subs_stats *st)
{
	*st = sb.st;
	st->active = sb.active;
}
