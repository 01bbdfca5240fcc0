/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Control socket requests about this host's own records (ctl_records.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/atsd_proto.h"
#include "ctl_records.h"
#include "ctl_sock.h"
#include "core/log.h"
#include "state/own_records.h"
#include "main/port_poll.h"
#include "core/sa.h"

/* A resync waiting for the end of full sync seq. */
struct resync_wait {
	struct ctl_sock_ticket t;
	uint64_t seq;
};

static struct {
	const struct agent_conf *conf;
	struct sources *src;
	struct resync_wait wait[CTL_SOCK_MAX_CLIENTS];
	size_t nwait;
} cr;

void ctl_records_init(const struct agent_conf *conf, struct sources *src)
{
	cr.conf = conf;
	cr.src = src;
}

/* Owner names end up in the log: no control bytes (log injection). */
static int owner_ok(const char *o)
{
	for (; *o; o++)
		if ((unsigned char)*o < 0x20 || *o == 0x7f)
			return 0;
	return 1;
}

void ctl_records_hold(int slot, char **argv, int argc)
{
	uid_t uid = ctl_sock_uid(slot);
	int hold = argv[0][0] == 'h';
	struct ats_ip ip;
	uint16_t pkey;
	const char *why;
	int ret;

	if (argc < 3 || argc > 4) {
		ctl_sock_reply_err(slot, EINVAL, "usage: %s OWNER IP [PKEY]", argv[0]);
		return;
	}
	if (strlen(argv[1]) >= SOURCES_OWNER_LEN) {
		ctl_sock_reply_err(slot, EINVAL, "owner name longer than %d bytes", SOURCES_OWNER_LEN - 1);
		return;
	}
	if (!owner_ok(argv[1])) {
		ctl_sock_reply_err(slot, EINVAL, "owner name contains control bytes");
		return;
	}
	if (ats_ip_parse(argv[2], &ip) || ats_ip_check_unicast(&ip, &why)) {
		ctl_sock_reply_err(slot, EINVAL, "'%s' is not a unicast IP address", argv[2]);
		return;
	}
	if (atsd_proto_pkey_arg(argc == 4 ? argv[3] : NULL, &pkey)) {
		ctl_sock_reply_err(slot, EINVAL, "'%s' is not a PKey", argv[3]);
		return;
	}
	pkey |= 0x8000; /* registrations are full members */
	ret = hold ? sources_hold(cr.src, argv[1], &ip, pkey, uid) :
		     sources_release(cr.src, argv[1], &ip, pkey, uid, uid == 0);
	if (ret) {
		ctl_sock_reply_err(slot, -ret, "%s", ret == -EEXIST ? "already held by this owner" :
				   ret == -ENOENT ? "not held by this owner" :
				   ret == -EPERM ? "held by another user: only they or root may release it" :
				   "too many holds");
		return;
	}
	log_info("%s %s by %s (uid %u)", hold ? "hold of" : "release of", argv[2], argv[1],
		 (unsigned)uid);
	own_records_request_sync(0);
	ctl_sock_reply(slot, "OK 0\n");
}

void ctl_records_holds(int slot, char **argv, int argc)
{
	size_t n = sources_nholds(cr.src), k, used;
	char *buf = malloc(32 + n * 160);

	(void)argv;
	(void)argc;
	if (!buf) {
		ctl_sock_reply_err(slot, ENOMEM, "out of memory");
		return;
	}
	used = (size_t)atsd_proto_ok_format(buf, 32, n);
	for (k = 0; k < n; k++) {
		struct ats_ip ip;
		uint16_t pkey;
		uid_t uid;
		const char *owner = sources_hold_at(cr.src, k, &ip, &pkey, &uid);

		used += (size_t)atsd_proto_hold_format(buf + used, 160, owner, (unsigned long)uid, &ip, pkey);
	}
	ctl_sock_reply(slot, buf);
	free(buf);
}

/* Drop the waits of clients gone: one that connects, asks and leaves
 * again and again must not fill the table while a sync takes long. */
static void resync_prune(void)
{
	size_t i, n = 0;

	for (i = 0; i < cr.nwait; i++) {
		if (ctl_sock_live(cr.wait[i].t))
			cr.wait[n++] = cr.wait[i];
		else
			ctl_sock_answered(cr.wait[i].t);
	}
	cr.nwait = n;
}

void ctl_records_resync(int slot, char **argv, int argc)
{
	(void)argv;
	(void)argc;
	/* One waiting request per live client (ctl_sock holds its next
	 * ones): after pruning there is room. */
	if (cr.nwait == CTL_SOCK_MAX_CLIENTS)
		resync_prune();
	cr.wait[cr.nwait].seq = own_records_resync();
	cr.wait[cr.nwait].t = ctl_sock_defer(slot);
	cr.nwait++;
}

/* One status line, kept inside buf; its length. */
static size_t status_line(char *buf, size_t len, uint64_t sid, uint16_t pkey,
			  const struct ats_ip *ip, const char *state, const char *reason)
{
	int known;
	const struct mport_info *port = port_poll_info(&known);
	int n = atsd_proto_status_format(buf, len, sid, port->gid, pkey, cr.conf->lease, ip,
				   state, reason);

	return n < 0 ? 0 : (size_t)n >= len ? len - 1 : (size_t)n;
}

/* The states status shows, and the metrics count: an owned address no
 * longer wanted is being removed. */
const char *const ctl_records_state_names[CTL_RECORDS_STATES] = {
	[OWN_RECORDS_REGISTERED] = "registered",
	[OWN_RECORDS_REFUSED] = "refused",
	[OWN_RECORDS_OTHER] = "other",
	[OWN_RECORDS_UNSAVED] = "unsaved",
	[OWN_RECORDS_PENDING] = "pending",
	[CTL_RECORDS_REMOVING] = "removing",
};

/* The SA's status, and the SM's reason when it gave one: status and
 * resync both show it. */
static const char *refused_reason(const struct ats_ip *ip, uint16_t pkey, uint16_t st,
				  char *buf, size_t len)
{
	const char *why = own_records_refused_why(ip, pkey);

	snprintf(buf, len, "%s%s%s", sa_status_str(st), why ? "; " : "", why ? why : "");
	return buf;
}

static void resync_answer(int slot, const struct own_records_resync *r)
{
	struct atsd_proto_resync a = { r->checked, r->sets, r->deletes, r->nrefused };
	size_t cap = 128 + r->nrefused * 512, used, i;
	char *buf, why[256];

	if (r->err) {
		ctl_sock_reply_err(slot, EIO, "the sync failed: %s", r->errmsg);
		return;
	}
	buf = malloc(cap);
	if (!buf) {
		ctl_sock_reply_err(slot, ENOMEM, "out of memory");
		return;
	}
	used = (size_t)atsd_proto_ok_format(buf, 24, 1 + r->nrefused);
	used += (size_t)atsd_proto_resync_format(buf + used, cap - used, &a);
	for (i = 0; i < r->nrefused; i++)
		used += status_line(buf + used, cap - used, r->refused[i].sid, r->refused[i].pkey,
				    &r->refused[i].ip, ctl_records_state_names[OWN_RECORDS_REFUSED],
				    refused_reason(&r->refused[i].ip, r->refused[i].pkey,
						   r->refused[i].sa_status, why, sizeof(why)));
	ctl_sock_reply(slot, buf);
	free(buf);
}

void ctl_records_full_done(uint64_t seq, const struct own_records_resync *r)
{
	size_t i, n = 0;

	for (i = 0; i < cr.nwait; i++) {
		struct resync_wait *w = &cr.wait[i];

		if (w->seq > seq) {
			cr.wait[n++] = *w;
			continue;
		}
		if (ctl_sock_live(w->t))
			resync_answer(w->t.slot, r);
		ctl_sock_answered(w->t);
	}
	cr.nwait = n;
}

/* Owned records no wanted address has. */
static int is_wanted(const struct plan_held_rec *o, const struct plan_want_addr *w, size_t nw)
{
	size_t i;

	for (i = 0; i < nw; i++)
		if (o->pkey == w[i].pkey && ats_ip_equal(&o->ip, &w[i].ip))
			return 1;
	return 0;
}

int ctl_records_count(uint64_t n[CTL_RECORDS_STATES])
{
	struct plan_want_addr *w = NULL;
	const struct plan_held_rec *owned;
	size_t nw = 0, nowned, i;

	memset(n, 0, CTL_RECORDS_STATES * sizeof(n[0]));
	owned = own_records_list(&nowned);
	if (sources_want(cr.src, &w, &nw))
		return -ENOMEM;
	for (i = 0; i < nw; i++) {
		uint64_t sid;
		uint16_t st;

		n[own_records_addr_state(&w[i].ip, w[i].pkey, &sid, &st)]++;
	}
	for (i = 0; i < nowned; i++)
		n[CTL_RECORDS_REMOVING] += !is_wanted(&owned[i], w, nw);
	free(w);
	return 0;
}


/* Per address what the SA holds, as the last Set answer or verify read
 * confirmed it: registered, pending, refused (with the SA's reason),
 * unsaved (not registered: the state file cannot list it; its error as
 * the reason), other (carried by a record atsd did not make), removing. */
void ctl_records_status(int slot, char **argv, int argc)
{
	const char *const *state_name = ctl_records_state_names;
	struct plan_want_addr *w = NULL;
	const struct plan_held_rec *owned;
	size_t nw = 0, nowned, i, k, n = 0, cap, used;
	char *buf, unsaved[320], why[256];

	(void)argv;
	(void)argc;
	owned = own_records_list(&nowned);
	if (sources_want(cr.src, &w, &nw)) {
		ctl_sock_reply_err(slot, ENOMEM, "out of memory");
		return;
	}
	cap = 32 + (nw + nowned) * 512;
	buf = malloc(cap);
	if (!buf) {
		free(w);
		ctl_sock_reply_err(slot, ENOMEM, "out of memory");
		return;
	}
	snprintf(unsaved, sizeof(unsaved), "state file %s: %s", cr.conf->state_file,
		 strerror(-own_records_state_error()));
	used = 24; /* room for the "OK N" line, written last */
	for (i = 0; i < nw; i++) {
		uint64_t sid;
		uint16_t st;
		enum own_records_addr s = own_records_addr_state(&w[i].ip, w[i].pkey, &sid, &st);

		used += status_line(buf + used, cap - used, sid, w[i].pkey, &w[i].ip,
				    state_name[s], s == OWN_RECORDS_REFUSED ? refused_reason(&w[i].ip, w[i].pkey, st, why, sizeof(why)) :
				    s == OWN_RECORDS_UNSAVED ? unsaved : NULL);
		n++;
	}
	for (k = 0; k < nowned; k++) {
		if (is_wanted(&owned[k], w, nw))
			continue;
		used += status_line(buf + used, cap - used, owned[k].sid, owned[k].pkey,
				    &owned[k].ip, state_name[CTL_RECORDS_REMOVING], NULL);
		n++;
	}
	{
		char head[24];
		int hl = atsd_proto_ok_format(head, sizeof(head), n);

		memcpy(buf + 24 - hl, head, (size_t)hl);
		buf[used] = '\0';
		ctl_sock_reply(slot, buf + 24 - hl);
	}
	free(buf);
	free(w);
}
