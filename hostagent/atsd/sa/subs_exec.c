/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Report subscriptions on the SA thread (subs_exec.h). Its state belongs
 * to the SA thread, the only one that reads the port. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/log.h"
#include "core/mono.h"
#include "core/notice.h"
#include "core/sa.h"
#include "subs_exec.h"

static struct {
	struct mport *port;
	subs_exec_post_fn *post;
	void *ctx;
	uint16_t sa_lid;            /* the SA we are subscribed with, or 0 */
	uint64_t sa_guid;           /* its port GUID: the issuer of its own traps */
} se;

/* The traps whose reports keep the cache true. */
static const uint16_t traps[] = { NOTICE_TRAP_GID_IN, NOTICE_TRAP_GID_OUT };

void subs_exec_init(struct mport *port, subs_exec_post_fn *post, void *ctx)
{
	se.port = port;
	se.post = post;
	se.ctx = ctx;
}

static int set_one(struct sa_client *sa, uint16_t trap, int subscribe)
{
	struct notice_inform ii, back;
	struct sa_client_answer ans;
	uint8_t rec[NOTICE_INFORM_SIZE];
	int ret;

	notice_inform_for_trap(&ii, trap, subscribe);
	notice_inform_encode(rec, &ii);
	ret = sa_client_request(sa, SA_METHOD_SET, SA_ATTR_INFORM_INFO, 0, rec, sizeof(rec), &ans);
	/* An SA that holds no such subscription (it restarted since)
	 * rejects the unsubscribe as invalid (13.4.8.3): nothing to drop. */
	if (ret == -EINVAL && !subscribe)
		return 0;
	if (ret)
		return ret;
	/* An SA that refuses a subscription clears Subscribe in its answer
	 * (13.4.8.3, o13-13.1.1), whatever the status says. */
	if (notice_inform_decode(ans.data, ans.data_len, &back))
		ret = -EPROTO;
	else if (back.subscribe != ii.subscribe)
		ret = -EREMOTEIO;
	sa_client_answer_free(&ans);
	return ret;
}

void subs_exec_run(struct sa_client *sa, struct saj *j)
{
	struct saj_inform *in = &j->u.inform;
	uint64_t guid = 0;
	size_t i = 0;
	int ret = 0;

	/* Which reports the SM issued itself (notice_from_sm) needs its
	 * port GUID; without it no subscription is worth making. */
	if (in->subscribe) {
		ret = sa_client_port_guid(sa, j->port.sm_lid, &guid);
		j->queries++;
		if (ret) {
			j->err = ret;
			j->sa_status = sa_client_last_status(sa);
			snprintf(j->errmsg, sizeof(j->errmsg), "NodeRecord of LID %u: %s",
				 j->port.sm_lid, j->sa_status ? sa_status_str(j->sa_status) :
				 strerror(-ret));
			in->sa_lid = j->port.sm_lid;
			return;
		}
	}
	for (i = 0; i < sizeof(traps) / sizeof(traps[0]) && !ret; i++) {
		ret = set_one(sa, traps[i], in->subscribe);
		j->queries++;
	}
	j->err = ret;
	j->sa_status = ret ? sa_client_last_status(sa) : 0;
	if (ret)
		snprintf(j->errmsg, sizeof(j->errmsg), "InformInfo Set (trap %u): %s",
			 traps[i - 1], j->sa_status ? sa_status_str(j->sa_status) :
			 ret == -EREMOTEIO ? "the SA cleared Subscribe" : strerror(-ret));
	/* Half a subscription still brings reports: keep accepting them
	 * from that SA until an unsubscribe succeeds. */
	if (in->subscribe && (!ret || i > 1)) {
		se.sa_lid = j->port.sm_lid;
		se.sa_guid = guid;
	} else if (!in->subscribe && !ret)
		se.sa_lid = 0;
	in->sa_lid = j->port.sm_lid;
}

size_t subs_exec_answer(const uint8_t *req, size_t len, uint8_t *resp, size_t cap)
{
	struct mport_held from;
	struct saj_report r;
	struct sa_hdr h;

	if (sa_hdr_decode(req, len, &h) || h.mad.method != SA_METHOD_REPORT ||
	    h.mad.attr_id != SA_ATTR_NOTICE || cap < len)
		return 0;
	memset(&r, 0, sizeof(r));
	r.tid = h.mad.tid;
	r.rx_ms = mono_ms();
	if (!mport_requester(se.port, &from))
		r.slid = from.slid;
	/* Only the SA we subscribed with reports to us (13.4.8.2): anyone
	 * else could empty the cache, or fill it through trap 64. */
	r.refused = !se.sa_lid || r.slid != se.sa_lid ||
		    notice_decode(req + SA_OFF_DATA, len - SA_OFF_DATA, &r.notice);
	/* A trap an endport sent the SM comes forwarded: answered, so that
	 * the SA stops resending it, and not acted on. */
	r.forwarded = !r.refused && !notice_from_sm(&r.notice, se.sa_guid);
	if (se.post)
		se.post(&r, se.ctx);
	if (r.refused)
		return 0;
	/* ReportResp: the Report with the response method, status 0. */
	memcpy(resp, req, len);
	resp[MAD_OFF_METHOD] = SA_METHOD_REPORT_RESP;
	resp[MAD_OFF_STATUS] = 0;
	resp[MAD_OFF_STATUS + 1] = 0;
	return len;
}
