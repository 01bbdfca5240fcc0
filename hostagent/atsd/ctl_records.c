/* Control socket requests about this host's own records: hold, release
 * and status (doc/atsd-protocol.md). */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "log.h"

/* Owner names end up in the log: no control bytes (log injection). */
static int owner_ok(const char *o)
{
	for (; *o; o++)
		if ((unsigned char)*o < 0x20 || *o == 0x7f)
			return 0;
	return 1;
}

void ctl_cmd_hold(struct agent *a, int slot, char **argv, int argc)
{
	struct client *c = &a->clients[slot];
	int hold = argv[0][0] == 'h';
	struct ats_ip ip;
	uint16_t pkey;
	const char *why;
	int ret;

	if (argc < 3 || argc > 4) {
		resolver_reply_err(a, slot, EINVAL, "usage: %s OWNER IP [PKEY]", argv[0]);
		return;
	}
	if (strlen(argv[1]) >= SRC_OWNER_LEN) {
		resolver_reply_err(a, slot, EINVAL, "owner name longer than %d bytes", SRC_OWNER_LEN - 1);
		return;
	}
	if (!owner_ok(argv[1])) {
		resolver_reply_err(a, slot, EINVAL, "owner name contains control bytes");
		return;
	}
	if (ats_ip_parse(argv[2], &ip) || ats_ip_check_unicast(&ip, &why)) {
		resolver_reply_err(a, slot, EINVAL, "'%s' is not a unicast IP address", argv[2]);
		return;
	}
	if (resolver_parse_pkey(argc == 4 ? argv[3] : NULL, &pkey)) {
		resolver_reply_err(a, slot, EINVAL, "'%s' is not a PKey", argv[3]);
		return;
	}
	pkey |= 0x8000;
	ret = hold ? sources_hold(&a->src, argv[1], &ip, pkey, c->uid) :
		     sources_release(&a->src, argv[1], &ip, pkey, c->uid, c->uid == 0);
	if (ret) {
		resolver_reply_err(a, slot, -ret, "%s", ret == -EEXIST ? "already held by this owner" :
			  ret == -ENOENT ? "not held by this owner" :
			  ret == -EPERM ? "held by another user: only they or root may release it" :
			  "too many holds");
		return;
	}
	log_info("%s %s by %s (uid %u)", hold ? "hold of" : "release of", argv[2], argv[1],
		 (unsigned)c->uid);
	agent_request_sync(a, 0);
	resolver_reply(a, slot, "OK 0\n");
}

/* One status line: "SID GID PKEY LEASE IP STATE [REASON]". */
static size_t status_line(struct agent *a, char *buf, size_t len, uint64_t sid,
			  uint16_t pkey, const struct ats_ip *ip, const char *state,
			  const char *reason)
{
	char gid[ATS_IP_STRLEN], ips[ATS_IP_STRLEN], sids[24];
	int n;

	if (sid)
		snprintf(sids, sizeof(sids), "0x%016" PRIx64, sid);
	else
		snprintf(sids, sizeof(sids), "-");
	n = snprintf(buf, len, "%s %s 0x%04x %" PRIu32 " %s %s%s%s\n", sids,
		     ats_gid_format(a->port.gid, gid, sizeof(gid)), pkey, a->conf.lease,
		     ats_ip_format(ip, ips, sizeof(ips)), state, reason ? " " : "",
		     reason ? reason : "");
	return n < 0 ? 0 : (size_t)n >= len ? len - 1 : (size_t)n;
}

/* Per address what the SA holds, as the last Set answer or verify read
 * confirmed it: registered, pending, refused (with the SA's reason),
 * other (carried by a record atsd did not make), removing. */
void ctl_cmd_status(struct agent *a, int slot, char **argv, int argc)
{
	struct want_addr *w = NULL;
	size_t nw = 0, i, k, n = 0, cap, used;
	char *buf;

	(void)argv;
	(void)argc;
	if (sources_want(&a->src, &w, &nw)) {
		resolver_reply_err(a, slot, ENOMEM, "out of memory");
		return;
	}
	cap = 32 + (nw + a->nowned) * 320;
	buf = malloc(cap);
	if (!buf) {
		free(w);
		resolver_reply_err(a, slot, ENOMEM, "out of memory");
		return;
	}
	used = 24; /* room for the "OK N" line, written last */
	for (i = 0; i < nw; i++) {
		const struct plan_refused *r;

		for (k = 0; k < a->nowned; k++)
			if (a->owned[k].pkey == w[i].pkey && ats_ip_equal(&a->owned[k].ip, &w[i].ip))
				break;
		if (k < a->nowned) {
			used += status_line(a, buf + used, cap - used, a->owned[k].sid, w[i].pkey,
					    &w[i].ip, "registered", NULL);
		} else if ((r = agent_refused(a, &w[i].ip, w[i].pkey))) {
			used += status_line(a, buf + used, cap - used, r->sid, w[i].pkey, &w[i].ip,
					    "refused", sa_status_str(r->sa_status));
		} else {
			for (k = 0; k < a->nforeign; k++)
				if (a->foreign[k].pkey == w[i].pkey &&
				    ats_ip_equal(&a->foreign[k].ip, &w[i].ip))
					break;
			if (k < a->nforeign)
				used += status_line(a, buf + used, cap - used, a->foreign[k].sid,
						    w[i].pkey, &w[i].ip, "other", NULL);
			else
				used += status_line(a, buf + used, cap - used, 0, w[i].pkey,
						    &w[i].ip, "pending", NULL);
		}
		n++;
	}
	for (k = 0; k < a->nowned; k++) {
		for (i = 0; i < nw; i++)
			if (a->owned[k].pkey == w[i].pkey && ats_ip_equal(&a->owned[k].ip, &w[i].ip))
				break;
		if (i < nw)
			continue;
		used += status_line(a, buf + used, cap - used, a->owned[k].sid, a->owned[k].pkey,
				    &a->owned[k].ip, "removing", NULL);
		n++;
	}
	{
		char head[24];
		int hl = snprintf(head, sizeof(head), "OK %zu\n", n);

		memcpy(buf + 24 - hl, head, (size_t)hl);
		buf[used] = '\0';
		resolver_reply(a, slot, buf + 24 - hl);
	}
	free(buf);
	free(w);
}
