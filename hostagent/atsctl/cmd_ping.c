/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* atsctl ping: liveness requests (vendor class 0x34) to one port named
 * by LID, GID or IP. */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/ats.h"
#include "host/ats_query.h"
#include "core/cfg.h"
#include "cmd_ping.h"
#include "ctl.h"
#include "core/json.h"
#include "core/mono.h"
#include "out.h"
#include "core/sa.h"

struct ping_target {
	uint16_t lid;
	char label[128];        /* how the user named it */
};

static const char *type_name(enum vmad_liv_type t)
{
	return t == VMAD_LIV_TS_REQ ? "timestamp" : t == VMAD_LIV_INFO_REQ ? "info" : "echo";
}

/* Clock offset of the peer in ms: the middle of its receive and transmit
 * against the middle of our send and receive (as ICMP timestamp does). */
static int64_t clock_offset(const struct vmad_liv_reply *r, uint32_t t_back)
{
	int64_t peer = ((int64_t)r->ts_recv + r->ts_xmit) / 2;
	int64_t ours = ((int64_t)r->ts_orig + t_back) / 2;
	int64_t d = peer - ours;

	/* Across midnight UT the counters wrap at 86,400,000. */
	if (d > 43200000)
		d -= 86400000;
	if (d < -43200000)
		d += 86400000;
	return d;
}

/* One ping_run(): where it sends, what it sends, and what came back. */
struct ping_state {
	struct mport *port;
	const struct ping_target *t;
	const struct cmd_ping_opts *o;
	int agent;
	struct mport_dest dst;
	struct mport_rpc_opts ro;
	uint8_t *req, pattern[VMAD_LIV_ECHO_RMPP_MAX];
	size_t req_cap;
	uint16_t ident;
	int64_t min, max, sum, start;
	unsigned sent, recvd;
	struct json j;
};

static size_t echo_size(const struct cmd_ping_opts *o)
{
	return o->type == VMAD_LIV_ECHO_REQ ? o->size : 0;
}

static void print_head(struct ping_state *p)
{
	const struct ping_target *t = p->t;
	const struct cmd_ping_opts *o = p->o;

	if (o->json) {
		json_init(&p->j, stdout, 0);
		json_obj(&p->j, NULL);
		json_str(&p->j, "target", t->label);
		json_u64(&p->j, "lid", t->lid);
		json_str(&p->j, "type", type_name(o->type));
		json_arr(&p->j, "replies");
	} else
		printf("PING %s (LID %u): %s, %zu data bytes\n", t->label, t->lid,
		       type_name(o->type), echo_size(o));
}

/* A good answer to request seq, rtt_us after it was sent. */
static void print_reply(struct ping_state *p, unsigned seq, int64_t rtt,
			const struct vmad_liv_reply *r)
{
	const struct cmd_ping_opts *o = p->o;
	struct json *j = &p->j;

	if (o->json) {
		json_obj(j, NULL);
		json_u64(j, "seq", seq);
		json_i64(j, "rtt_us", rtt);
		if (o->type == VMAD_LIV_TS_REQ)
			json_i64(j, "clock_offset_ms", clock_offset(r, vmad_liv_timestamp()));
		if (o->type == VMAD_LIV_INFO_REQ) {
			json_u64(j, "lid", r->lid);
			json_hex64(j, "port_guid", r->port_guid);
		}
		json_end(j);
	} else {
		printf("reply from LID %u: seq=%u time=%" PRId64 ".%03" PRId64 " ms",
		       p->t->lid, seq, rtt / 1000, rtt % 1000);
		if (o->type == VMAD_LIV_TS_REQ)
			printf(" clock offset %+" PRId64 " ms%s",
			       clock_offset(r, vmad_liv_timestamp()),
			       (r->ts_recv & VMAD_LIV_TS_NONSTANDARD) ? " (peer clock not UT)" : "");
		if (o->type == VMAD_LIV_INFO_REQ)
			printf(" peer LID %u port GUID 0x%016" PRIx64, r->lid, r->port_guid);
		printf("\n");
	}
}

/* Request seq sent and its answer told: 0, or 3 on a local error. */
static int ping_one(struct ping_state *p, unsigned seq)
{
	const struct cmd_ping_opts *o = p->o;
	struct vmad_liv_reply r;
	uint8_t *resp = NULL;
	size_t len = 0;
	int64_t t0, rtt;
	int ret, req_len;

	req_len = vmad_liv_build(p->req, p->req_cap, o->type, p->ident, (uint16_t)seq, p->pattern,
				 echo_size(o), vmad_liv_timestamp());
	if (req_len < 0)
		return 3;
	p->sent++;
	t0 = mono_us();
	ret = mport_rpc(p->port, p->agent, &p->dst, p->req, (size_t)req_len, &p->ro, &resp, &len);
	rtt = mono_us() - t0;
	if (ret) {
		if (!o->json)
			printf("no answer from LID %u: seq=%u (%s)\n", p->t->lid, seq,
			       ret == -ETIMEDOUT ? "timeout" : strerror(-ret));
		return 0;
	}
	ret = vmad_liv_check(resp, len, o->type, (uint16_t)seq, p->pattern, echo_size(o), &r);
	if (ret) {
		if (!o->json)
			printf("bad answer from LID %u: seq=%u status 0x%04x (%s) type %u%s\n",
			       p->t->lid, seq, r.status, mad_status_str(r.status), r.type,
			       ret == -EBADMSG ? ", echo data differs" : "");
		free(resp);
		return 0;
	}
	p->recvd++;
	p->sum += rtt;
	if (p->min < 0 || rtt < p->min)
		p->min = rtt;
	if (rtt > p->max)
		p->max = rtt;
	print_reply(p, seq, rtt, &r);
	free(resp);
	return 0;
}

static void print_summary(struct ping_state *p)
{
	unsigned sent = p->sent, recvd = p->recvd;
	int64_t min = p->min, max = p->max, sum = p->sum;
	struct json *j = &p->j;

	if (p->o->json) {
		json_end(j);
		json_u64(j, "sent", sent);
		json_u64(j, "received", recvd);
		json_u64(j, "loss_pct", sent ? (sent - recvd) * 100 / sent : 0);
		if (recvd) {
			json_obj(j, "rtt_us");
			json_i64(j, "min", min);
			json_i64(j, "avg", sum / recvd);
			json_i64(j, "max", max);
			json_end(j);
		}
		json_end(j);
		json_fini(j);
	} else {
		printf("\n--- %s (LID %u) liveness statistics ---\n", p->t->label, p->t->lid);
		printf("%u sent, %u received, %u%% loss, time %" PRId64 " ms\n", sent, recvd,
		       sent ? (sent - recvd) * 100 / sent : 0, (mono_us() - p->start) / 1000);
		if (recvd)
			printf("rtt min/avg/max = %" PRId64 ".%03" PRId64 "/%" PRId64 ".%03" PRId64
			       "/%" PRId64 ".%03" PRId64 " ms\n", min / 1000, min % 1000,
			       sum / recvd / 1000, sum / recvd % 1000, max / 1000, max % 1000);
	}
}

/* Per-reply lines and a summary. 0 when at least one answer came, 1 on
 * 100% loss, 3 on local errors. */
static int ping_run(struct mport *port, const struct ping_target *t,
		    const struct cmd_ping_opts *o)
{
	struct ping_state p = {
		.port = port, .t = t, .o = o,
		.dst = { t->lid, SA_QP, SA_QKEY, 0 },
		.ro = { o->timeout_ms, 0, 0, 0 },
		.req_cap = VMAD_LIV_OFF_DATA + VMAD_LIV_ECHO_RMPP_MAX,
		.ident = (uint16_t)getpid(),
		.min = -1, .start = mono_us(),
	};
	unsigned i;

	p.agent = mport_register_oui(port, VMAD_CLASS_LIVENESS, VMAD_LIVENESS_VERSION, 1,
				     VMAD_OUI_OPENIB, 0);
	if (p.agent < 0) {
		fprintf(stderr, "atsctl: ping: cannot register vendor class 0x34: %s\n",
			strerror(-p.agent));
		return 3;
	}
	p.req = malloc(p.req_cap);
	if (!p.req)
		return 3;
	for (i = 0; i < sizeof(p.pattern); i++)
		p.pattern[i] = (uint8_t)i;
	print_head(&p);
	for (i = 0; i < o->count; i++) {
		if (i && o->interval_ms)
			usleep(o->interval_ms * 1000u);
		if (ping_one(&p, i + 1)) {
			free(p.req);
			return 3;
		}
	}
	print_summary(&p);
	free(p.req);
	return p.recvd ? 0 : 1;
}

/* TARGET: a decimal LID, an IPv4 address, or IPv6 text: the holder of
 * that address by ATS if there is one, else the GID itself. */
int cmd_ping(struct ctl *c, const struct ctl_args *a)
{
	const char *arg = a->arg[0];
	struct cmd_ping_opts o = a->ping;
	struct sa_client_path_info pi;
	struct ping_target t;
	struct ats_ip ip;
	uint8_t gid[16];
	uint64_t v;
	int ret, have_gid = 0;

	o.json = c->json;
	o.timeout_ms = c->sa_opts.timeout_ms;
	memset(&t, 0, sizeof(t));
	snprintf(t.label, sizeof(t.label), "%s", arg);
	if (strspn(arg, "0123456789") == strlen(arg)) {
		if (cfg_parse_u64(arg, 0xBFFF, &v) || !v)
			return out_usage_err("LID", arg, "not a unicast LID (1..49151)");
		t.lid = (uint16_t)v;
		return ping_run(c->port, &t, &o);
	}
	if (!ats_ip_parse(arg, &ip)) {
		struct ats_query_set s;

		ret = ats_query_forward(c->sa, &ip, a->pkey, &s);
		if (ret && ret != -ENOENT)
			return out_sa_fail(c, "ping: resolve", ret);
		if (!ret && s.n) {
			memcpy(gid, s.recs[0].gid, 16);
			have_gid = 1;
		}
		ats_query_set_free(&s);
		if (!have_gid && ip.family == AF_INET)
			return out_not_found(arg, "no ATS record of that address");
	}
	if (!have_gid && ats_gid_parse(arg, gid))
		return out_usage_err("TARGET", arg, "not a LID, GID or IP address");
	ret = sa_client_path(c->sa, gid, &pi);
	if (ret)
		return out_sa_fail(c, "ping: path to the target", ret);
	t.lid = pi.dlid;
	return ping_run(c->port, &t, &o);
}

int cmd_ping_option(struct cmd_ping_opts *o, int opt, const char *val)
{
	uint64_t v;

	switch (opt) {
	case 'c':
		if (cfg_parse_u64(val, 1000000, &v) || !v)
			return out_usage_err("--count", val, "not a count (1..1000000)");
		o->count = (unsigned)v;
		break;
	case 'i': {
		char *end;
		double sec = strtod(val, &end);

		if (*end || end == val || sec < 0 || sec > 3600)
			return out_usage_err("--interval", val, "not seconds (0..3600)");
		o->interval_ms = (unsigned)(sec * 1000);
		break;
	}
	case 'T':
		if (!strcmp(val, "echo"))
			o->type = VMAD_LIV_ECHO_REQ;
		else if (!strcmp(val, "timestamp"))
			o->type = VMAD_LIV_TS_REQ;
		else if (!strcmp(val, "info"))
			o->type = VMAD_LIV_INFO_REQ;
		else
			return out_usage_err("--type", val, "expected echo, timestamp or info");
		break;
	case 'z':
		if (cfg_parse_u64(val, VMAD_LIV_ECHO_RMPP_MAX, &v))
			return out_usage_err("--size", val,
					     "not an echo size (0..8192 bytes; over 208 needs RMPP)");
		o->size = (size_t)v;
		break;
	}
	return 0;
}
