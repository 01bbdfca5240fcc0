/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The IPoIB broadcast groups (ipoib_groups.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "host/ibsys.h"
#include "core/ipoib.h"
#include "ipoib_groups.h"
#include "core/log.h"
#include "model/nosa.h"
#include "core/sa.h"

static struct {
	struct sa_thread *saj;
	const struct agent_conf *conf;
	const struct sources *src;
	void (*left)(void);
	int started;            /* the first join (or read) went out */
	int joined;             /* a join went out: leave at shutdown */
	struct saj_group groups[SAJ_PKEYS_MAX];
	size_t ngroups;
	/* The partitions whose groups a join or check of ours may have
	 * joined: left at exit even when a SIGHUP took their interface away. */
	uint16_t ours[SAJ_PKEYS_MAX];
	size_t nours;
} gr;

void ipoib_groups_init(struct sa_thread *saj, const struct agent_conf *conf,
		       const struct sources *src, void (*left)(void))
{
	gr.saj = saj;
	gr.conf = conf;
	gr.src = src;
	gr.left = left;
}

int ipoib_groups_joined(void)
{
	return gr.joined;
}

int ipoib_groups_started(void)
{
	return gr.started;
}

/* Whether atsd joins and leaves the group of interface i's partition:
 * auto leaves a kernel IPoIB interface's group to the kernel (ib_ipoib
 * joins it). The kernel's interface need not be the one configured: one
 * not yet there at start, or named otherwise (ib0 become ibp59s0), or
 * not listed at all holds the port's membership just the same, and a
 * leave from the port would cut it. */
static int manages(size_t i)
{
	char name[IBSYS_NAME_MAX];

	switch (gr.conf->ipoib_membership) {
	case AGENT_CONF_MEMBERSHIP_CHECK:
		return 0;
	case AGENT_CONF_MEMBERSHIP_MANAGE:
		return 1;
	case AGENT_CONF_MEMBERSHIP_AUTO:
		break;
	}
	return !sources_ipoib(gr.src, i) &&
	       !ibsys_ipoib_on_port(NULL, sources_port_gid(gr.src), sources_pkey(gr.src, i),
				    name, sizeof(name));
}

const struct saj_group *ipoib_groups_list(size_t *n)
{
	*n = gr.ngroups;
	return gr.groups;
}

/* The result of the last join or check for pkey, or NULL. */
static const struct saj_group *last_group(uint16_t pkey)
{
	size_t i;

	for (i = 0; i < gr.ngroups; i++)
		if (gr.groups[i].pkey == pkey)
			return &gr.groups[i];
	return NULL;
}

/* A group atsd only reads: say when the membership appears, changes or
 * goes, with the likely cause when it is missing. */
static void kernel_group_log(const struct saj_group *g, const struct saj_group *last,
			     const char *mgid)
{
	if (!g->err && (!last || last->err || last->manage))
		log_info("IPoIB broadcast group %s: this port is a member (the kernel's; ipoib_membership check): PKey 0x%04x Q_Key 0x%08x MLID 0x%04x MTU %u SL %u rate %u",
			 mgid, g->rec.pkey, g->rec.qkey, g->rec.mlid,
			 mcm_mtu_bytes(g->rec.mtu), g->rec.sl, g->rec.rate);
	else if (g->err == -ENOENT && (!last || last->err != g->err))
		log_warn("IPoIB broadcast group %s (PKey 0x%04x): this port is not a member, so the host gets no IPoIB broadcast (ARP) in that partition; the kernel's IPoIB driver joins when its interface is up and after SM changes: check the interface (ip link), that OpenSM's partitions.conf gives the partition the ipoib flag, and the SM's log (atsd never joins or leaves this group: ipoib_membership check)",
			 mgid, g->pkey);
	else if (g->err && (!last || last->err != g->err))
		log_err("cannot read IPoIB broadcast group %s (PKey 0x%04x): %s", mgid, g->pkey,
			g->sa_status ? sa_status_str(g->sa_status) : strerror(-g->err));
}

static void ipoib_done(struct saj *j, void *ctx)
{
	struct saj_ipoib *p = &j->u.ipoib;
	char mgid[ATS_IP_STRLEN];
	size_t i;

	(void)ctx;
	for (i = 0; i < p->ngroups; i++) {
		struct saj_group *g = &p->groups[i];
		const struct saj_group *last = last_group(g->pkey);
		uint8_t m[16];

		ipoib_bcast_mgid(g->pkey, m);
		ats_gid_format(m, mgid, sizeof(mgid));
		if (p->op == SAJ_CHECK && last &&
		    nosa_applies(g->err)) {
			/* No SA to ask: the failing sync says so; keep what we knew. */
			*g = *last;
			continue;
		}
		if (!g->manage && p->op != SAJ_LEAVE) {
			kernel_group_log(g, last, mgid);
			continue;
		}
		if (p->op == SAJ_LEAVE) {
			if (!g->manage)
				continue;
			if (!g->err)
				log_info("left IPoIB broadcast group %s", mgid);
			else if (!last || !last->err)
				log_warn("could not leave IPoIB broadcast group %s: %s", mgid,
					 g->sa_status ? sa_status_str(g->sa_status) :
					 strerror(-g->err));
		} else if (!g->err) {
			/* A check that found the membership in place says nothing. */
			if (p->op == SAJ_JOIN || g->joined)
				log_info("joined IPoIB broadcast group %s%s: PKey 0x%04x Q_Key 0x%08x MLID 0x%04x MTU %u SL %u rate %u",
					 mgid, g->joined ? " again (the SA had lost our membership)" : "",
					 g->rec.pkey, g->rec.qkey, g->rec.mlid,
					 mcm_mtu_bytes(g->rec.mtu), g->rec.sl, g->rec.rate);
		} else if (p->op == SAJ_JOIN || !last || last->err != g->err) {
			/* Checks repeat an error only when it changes. */
			log_err("cannot join IPoIB broadcast group %s (PKey 0x%04x): %s; does OpenSM's partitions.conf give this partition the ipoib flag, and does the port hold the PKey?",
				mgid, g->pkey, g->sa_status ? sa_status_str(g->sa_status) :
				strerror(-g->err));
		}
	}
	if (p->op != SAJ_LEAVE) {
		memcpy(gr.groups, p->groups, sizeof(p->groups));
		gr.ngroups = p->ngroups;
	} else {
		gr.ngroups = 0;
		gr.joined = 0;
		gr.nours = 0;
		gr.left();
	}
}

void ipoib_groups_submit(enum saj_ipoib_op op)
{
	struct saj_ipoib *p;
	struct saj *j;
	size_t i, k;

	j = saj_new(SAJ_IPOIB, ipoib_done, NULL);
	if (!j)
		return;
	p = &j->u.ipoib;
	p->op = op;
	for (i = 0; i < sources_count(gr.src); i++) {
		uint16_t pk = sources_pkey(gr.src, i);

		for (k = 0; k < p->ngroups && p->groups[k].pkey != pk; k++)
			;
		if (k == p->ngroups && k < SAJ_PKEYS_MAX) {
			p->groups[p->ngroups++].pkey = pk;
			p->groups[k].manage = manages(i);
		} else if (k < p->ngroups && !manages(i)) {
			p->groups[k].manage = 0; /* a kernel interface's partition */
		}
	}
	/* A group we joined whose interface went: ours to leave where no
	 * kernel can hold it (manage). Not in check mode (never a leave), nor
	 * in auto: the interface that went may have been the kernel's, which
	 * shares the port's membership. */
	for (i = 0; op == SAJ_LEAVE && i < gr.nours; i++) {
		if (gr.conf->ipoib_membership == AGENT_CONF_MEMBERSHIP_CHECK ||
		    gr.conf->ipoib_membership == AGENT_CONF_MEMBERSHIP_AUTO)
			break;
		for (k = 0; k < p->ngroups && p->groups[k].pkey != gr.ours[i]; k++)
			;
		if (k == p->ngroups && k < SAJ_PKEYS_MAX) {
			p->groups[p->ngroups].pkey = gr.ours[i];
			p->groups[p->ngroups++].manage = 1;
		}
	}
	for (k = 0; op != SAJ_LEAVE && k < p->ngroups; k++) {
		size_t o;

		if (!p->groups[k].manage)
			continue;
		for (o = 0; o < gr.nours && gr.ours[o] != p->groups[k].pkey; o++)
			;
		if (o == gr.nours && o < SAJ_PKEYS_MAX)
			gr.ours[gr.nours++] = p->groups[k].pkey;
	}
	if (!p->ngroups) {
		saj_free(j);
		if (op == SAJ_LEAVE) {
			/* Nothing to leave: the shutdown must not wait for it. */
			gr.ngroups = 0;
			gr.joined = 0;
			gr.nours = 0;
			gr.left();
		}
		return;
	}
	if (op == SAJ_JOIN) {
		gr.started = 1;
		for (k = 0; k < p->ngroups; k++)
			gr.joined |= p->groups[k].manage;
	}
	sa_thread_submit(gr.saj, j);
}
