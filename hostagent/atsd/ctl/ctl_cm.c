/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* CM requests of the control socket (ctl_cm.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/atsd_proto.h"
#include "core/cfg.h"
#include "ctl_cm.h"
#include "ctl_sock.h"
#include "state/own_records.h"

static struct sa_thread *cm_saj;

void ctl_cm_init(struct sa_thread *saj)
{
	cm_saj = saj;
}

static void conn_line(const struct rcm_conn *c, struct atsd_proto_conn_line *l)
{
	l->id = c->id;
	l->active = c->active;
	l->state = rcm_state_name(c->state);
	l->sid = c->service_id;
	memcpy(l->local_gid, c->local_gid, 16);
	memcpy(l->remote_gid, c->remote_gid, 16);
	l->local_lid = c->local_lid;
	l->remote_lid = c->remote_lid;
	l->local_qpn = c->local_qpn;
	l->remote_qpn = c->remote_qpn;
	l->src = c->active ? c->local_ip : c->remote_ip;
	l->dst = c->active ? c->remote_ip : c->local_ip;
	l->src_port = c->src_port;
	l->pkey = c->pkey;
}

static void cm_done(struct saj *j, void *ctx)
{
	struct ctl_sock_ticket *t = ctx;
	struct saj_cm *c = &j->u.cm;
	char buf[RCM_MAX_CONNS * 256 + 16];
	size_t i, used;

	if (!ctl_sock_live(*t)) {
		free(t);
		return;
	}
	if (j->err) {
		ctl_sock_reply_err(t->slot, -j->err, "%s", j->errmsg);
	} else {
		used = (size_t)atsd_proto_ok_format(buf, sizeof(buf), c->nconns);
		for (i = 0; i < c->nconns && used < sizeof(buf); i++) {
			struct atsd_proto_conn_line l;

			conn_line(&c->conns[i], &l);
			used += (size_t)atsd_proto_conn_format(buf + used, sizeof(buf) - used, &l);
		}
		ctl_sock_reply(t->slot, buf);
	}
	ctl_sock_answered(*t);
	free(t);
}

static void cm_submit(int slot, struct saj *j)
{
	struct ctl_sock_ticket *t = malloc(sizeof(*t));

	if (!t) {
		saj_free(j);
		ctl_sock_reply_err(slot, ENOMEM, "out of memory");
		return;
	}
	*t = ctl_sock_defer(slot);
	j->ctx = t;
	sa_thread_submit(cm_saj, j);
}

void ctl_cm_connect(int slot, char **argv, int argc)
{
	struct saj_cm *c;
	struct saj *j;
	char *end;
	unsigned long port;
	int i;

	if (argc < 3 || argc > 5) {
		ctl_sock_reply_err(slot, EINVAL, "usage: connect IP PORT [SERVICE_ID] [pkey=P]");
		return;
	}
	j = saj_new(SAJ_CONNECT, cm_done, NULL);
	if (!j) {
		ctl_sock_reply_err(slot, ENOMEM, "out of memory");
		return;
	}
	c = &j->u.cm;
	port = strtoul(argv[2], &end, 0);
	if (ats_ip_parse(argv[1], &c->ip) || *end || !port || port > 0xffff) {
		ctl_sock_reply_err(slot, EINVAL, "'%s %s' is not an IP address and a port", argv[1], argv[2]);
		saj_free(j);
		return;
	}
	c->port_no = (uint16_t)port;
	c->pkey = ATS_PKEY_DEFAULT;
	for (i = 3; i < argc; i++) {
		int pk = !strncmp(argv[i], "pkey=", 5);

		if (pk ? atsd_proto_pkey_arg(argv[i] + 5, &c->pkey) :
			 cfg_parse_hex64(argv[i], &c->sid)) {
			ctl_sock_reply_err(slot, EINVAL, pk ? "'%s' is not pkey=P (1..0xffff)" :
					   "service ID '%s' is not hex (1..16 digits)", argv[i]);
			saj_free(j);
			return;
		}
	}
	if (own_records_primary(&c->src)) {
		ctl_sock_reply_err(slot, ENOENT, "this host has no primary ATS address to connect from");
		saj_free(j);
		return;
	}
	cm_submit(slot, j);
}

void ctl_cm_conns(int slot, char **argv, int argc)
{
	struct saj *j;
	uint64_t id = 0;

	if (argc == 2 && cfg_parse_u64(argv[1], UINT32_MAX, &id)) {
		ctl_sock_reply_err(slot, EINVAL, "connection ID '%s' is not a number", argv[1]);
		return;
	}
	j = saj_new(argc == 1 ? SAJ_CONNS : SAJ_DISCONNECT, cm_done, NULL);
	if (!j) {
		ctl_sock_reply_err(slot, ENOMEM, "out of memory");
		return;
	}
	j->u.cm.conn_id = (uint32_t)id;
	cm_submit(slot, j);
}

static void lid_done(struct saj *j, void *ctx)
{
	struct ctl_sock_ticket *t = ctx;
	char buf[64];
	int n;

	if (!ctl_sock_live(*t)) {
		free(t);
		return;
	}
	if (j->err) {
		ctl_sock_reply_err(t->slot, -j->err, "%s", j->errmsg);
	} else {
		n = atsd_proto_ok_format(buf, sizeof(buf), 1);
		atsd_proto_lid_format(buf + n, sizeof(buf) - (size_t)n, j->u.lid.port_guid,
				      j->u.lid.base_lid);
		ctl_sock_reply(t->slot, buf);
	}
	ctl_sock_answered(*t);
	free(t);
}

void ctl_cm_lid(int slot, char **argv, int argc)
{
	struct saj *j;
	uint16_t lid;

	(void)argc;
	/* Never asked of the SA: no port holds one, and OpenSM's NodeRecord
	 * match of LID 0 or a multicast LID is nothing to rely on. */
	if (atsd_proto_lid_arg(argv[1], &lid)) {
		ctl_sock_reply_err(slot, EINVAL, "'%.40s' is not a unicast LID (1..0x%04x)",
				   argv[1], ATSD_PROTO_LID_UNICAST_MAX);
		return;
	}
	j = saj_new(SAJ_LID, lid_done, NULL);
	if (!j) {
		ctl_sock_reply_err(slot, ENOMEM, "out of memory");
		return;
	}
	j->u.lid.lid = lid;
	cm_submit(slot, j);
}
