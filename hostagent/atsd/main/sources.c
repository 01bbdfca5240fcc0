/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <errno.h>
#include <linux/if_addr.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/ibsys.h"
#include "core/ipoib.h"
#include "core/log.h"
#include "sources.h"

#define SRC_MAX_ADDRS 256
#define SRC_MAX_HOLDS 256

struct src_if {
	const struct agent_conf_if *cfg;
	struct ifev_sock *nl;
	int ifindex;          /* 0 until the link is seen */
	unsigned flags;       /* IFF_* */
	uint16_t pkey;
	int ipoib;            /* an IPoIB link (ARPHRD_INFINIBAND) */
	int foreign;          /* an IPoIB link of another CA port: ignored */
	struct ifev_addr addrs[SRC_MAX_ADDRS];
	size_t naddrs;
};

struct src_hold {
	char owner[SOURCES_OWNER_LEN];
	uid_t uid;            /* of the program that took the hold */
	struct ats_ip ip;
	uint16_t pkey;
};

struct sources {
	struct src_if ifs[AGENT_CONF_MAX_IFS];
	size_t nifs;
	const struct agent_conf *conf;
	uint8_t port_gid[16];  /* to recognise our own IPoIB links */
	struct src_hold holds[SRC_MAX_HOLDS];
	size_t nholds;
	int changed;           /* the wanted set may differ */
};

/* An IPoIB interface's partition, in the full-member form registrations
 * use; the default partition when sysfs cannot say. */
static uint16_t sysfs_pkey(const char *ifname)
{
	struct ibsys_netdev nd;

	if (ibsys_netdev_read(NULL, ifname, &nd))
		return ATS_PKEY_DEFAULT;
	return (uint16_t)(nd.pkey | 0x8000);
}

static void addr_del(struct src_if *i, const struct ifev_addr *a)
{
	size_t k;

	for (k = 0; k < i->naddrs; k++)
		if (i->addrs[k].family == a->family &&
		    !memcmp(i->addrs[k].addr, a->addr, 16) &&
		    i->addrs[k].prefixlen == a->prefixlen) {
			memmove(&i->addrs[k], &i->addrs[k + 1],
				(i->naddrs - k - 1) * sizeof(i->addrs[0]));
			i->naddrs--;
			return;
		}
}

/* Apply one rtnetlink event to an interface. */
static void sources_apply(struct sources *s, struct src_if *i, const struct ifev_event *ev)
{
	switch (ev->type) {
	case IFEV_EV_NEWLINK:
		if (strcmp(ev->link.name, i->cfg->name))
			return;
		if (i->ifindex != ev->link.ifindex)
			i->naddrs = 0; /* a new device under the old name */
		i->ifindex = ev->link.ifindex;
		i->flags = ev->link.flags;
		{
			struct ipoib_hwaddr hw;
			int foreign;

			/* An IPoIB link names its port by the GID in its
			 * hardware address: links of other ports are not ours. */
			i->ipoib = ev->link.type == ARPHRD_INFINIBAND;
			foreign = i->ipoib &&
				  !ipoib_hwaddr_decode(ev->link.hwaddr, ev->link.hwlen, &hw) &&
				  memcmp(hw.gid, s->port_gid, 16);
			if (foreign && !i->foreign) {
				char g[ATS_IP_STRLEN], mine[ATS_IP_STRLEN];

				log_err("interface %s is IPoIB on another port (GID %s; this atsd serves %s): its addresses are not registered here; run one atsd per port (atsd@CA:PORT)",
					i->cfg->name, ats_gid_format(hw.gid, g, sizeof(g)),
					ats_gid_format(s->port_gid, mine, sizeof(mine)));
			}
			i->foreign = foreign;
		}
		if (!i->cfg->have_pkey)
			i->pkey = ev->link.type == ARPHRD_INFINIBAND && !i->cfg->netns[0] ?
				  sysfs_pkey(i->cfg->name) : ATS_PKEY_DEFAULT;
		s->changed = 1;
		return;
	case IFEV_EV_DELLINK:
		if (ev->link.ifindex != i->ifindex)
			return;
		i->ifindex = 0;
		i->flags = 0;
		i->naddrs = 0;
		s->changed = 1;
		return;
	case IFEV_EV_NEWADDR:
		if (!i->ifindex || ev->addr.ifindex != i->ifindex)
			return;
		addr_del(i, &ev->addr); /* an update replaces the old flags */
		if (i->naddrs < SRC_MAX_ADDRS)
			i->addrs[i->naddrs++] = ev->addr;
		s->changed = 1;
		return;
	case IFEV_EV_DELADDR:
		if (!i->ifindex || ev->addr.ifindex != i->ifindex)
			return;
		addr_del(i, &ev->addr);
		s->changed = 1;
		return;
	case IFEV_EV_NEWNEIGH:
	case IFEV_EV_DONE:
		return;
	}
}

struct apply_ctx {
	struct sources *s;
	struct src_if *i;
};

static void apply_cb(const struct ifev_event *ev, void *arg)
{
	struct apply_ctx *c = arg;

	sources_apply(c->s, c->i, ev);
}

int sources_read(struct sources *s, size_t ifidx)
{
	struct src_if *i = &s->ifs[ifidx];
	struct apply_ctx c = { s, i };
	int ret = ifev_read(i->nl, apply_cb, &c);

	if (ret == -ENOBUFS) {
		/* Events were lost: start over from a fresh dump. */
		log_warn("interface %s: netlink overrun, reading its state again",
			 i->cfg->name);
		i->naddrs = 0;
		ret = ifev_dump(i->nl, RTM_GETLINK);
		s->changed = 1;
	}
	return ret == -EAGAIN ? 0 : ret;
}

/* Link dump first so the ifindex is known when the addresses arrive. */
static int initial_dump(struct sources *s, struct src_if *i)
{
	static const int types[] = { RTM_GETLINK, RTM_GETADDR };
	struct apply_ctx c = { s, i };
	size_t t;
	int ret;

	for (t = 0; t < 2; t++) {
		ret = ifev_dump(i->nl, types[t]);
		if (ret)
			return ret;
		/* Dumps are answered at once; read until it is all in. */
		do {
			ret = ifev_read(i->nl, apply_cb, &c);
		} while (ret == 0);
		if (ret != -EAGAIN)
			return ret;
	}
	return 0;
}

static void sources_fini(struct sources *s)
{
	size_t k;

	for (k = 0; k < s->nifs; k++)
		ifev_close(s->ifs[k].nl);
	s->nifs = 0;
}

static int sources_init(struct sources *s, const struct agent_conf *c,
			const uint8_t *port_gid)
{
	size_t k;
	int ret;

	memset(s, 0, sizeof(*s));
	s->conf = c;
	memcpy(s->port_gid, port_gid, 16);
	for (k = 0; k < c->nifs; k++) {
		struct src_if *i = &s->ifs[k];

		i->cfg = &c->ifs[k];
		i->pkey = i->cfg->have_pkey ? i->cfg->pkey : ATS_PKEY_DEFAULT;
		ret = ifev_open(&i->nl, i->cfg->netns[0] ? i->cfg->netns : NULL);
		if (ret == -EPERM && i->cfg->netns[0]) {
			/* setns(2) into another network namespace needs
			 * CAP_SYS_ADMIN, which atsd's units do not grant. */
			log_err("interface %s in netns %s: not allowed to enter the namespace "
				"(setns: %s): netns needs CAP_SYS_ADMIN; under systemd, the "
				"drop-in in atsd(8), SYSTEMD", i->cfg->name, i->cfg->netns,
				strerror(-ret));
			sources_fini(s);
			return ret;
		}
		if (ret) {
			log_err("interface %s%s%s: cannot open netlink: %s", i->cfg->name,
				i->cfg->netns[0] ? " in netns " : "", i->cfg->netns,
				strerror(-ret));
			sources_fini(s);
			return ret;
		}
		s->nifs++;
		ret = initial_dump(s, i);
		if (ret) {
			log_err("interface %s: netlink dump failed: %s", i->cfg->name,
				strerror(-ret));
			sources_fini(s);
			return ret;
		}
		if (!i->ifindex)
			log_warn("interface %s%s%s does not exist (yet)", i->cfg->name,
				 i->cfg->netns[0] ? " in netns " : "", i->cfg->netns);
	}
	s->changed = 1;
	return 0;
}

int sources_open(struct sources **out, const struct agent_conf *c,
		 const uint8_t *port_gid)
{
	/* On the heap: a struct sources is large (every interface's addresses). */
	struct sources *s = malloc(sizeof(*s));
	int ret;

	if (!s)
		return -ENOMEM;
	ret = sources_init(s, c, port_gid);
	if (ret) {
		free(s);
		return ret;
	}
	*out = s;
	return 0;
}

void sources_close(struct sources *s)
{
	if (!s)
		return;
	sources_fini(s);
	free(s);
}

size_t sources_count(const struct sources *s)
{
	return s->nifs;
}

int sources_fd(const struct sources *s, size_t ifidx)
{
	return ifev_fd(s->ifs[ifidx].nl);
}

uint16_t sources_pkey(const struct sources *s, size_t ifidx)
{
	return s->ifs[ifidx].pkey;
}

int sources_ipoib(const struct sources *s, size_t ifidx)
{
	return s->ifs[ifidx].ipoib;
}

const uint8_t *sources_port_gid(const struct sources *s)
{
	return s->port_gid;
}

int sources_changed(const struct sources *s)
{
	return s->changed;
}

void sources_seen(struct sources *s)
{
	s->changed = 0;
}

size_t sources_nholds(const struct sources *s)
{
	return s->nholds;
}

const char *sources_hold_at(const struct sources *s, size_t k, struct ats_ip *ip,
			    uint16_t *pkey, uid_t *uid)
{
	*ip = s->holds[k].ip;
	*pkey = s->holds[k].pkey;
	*uid = s->holds[k].uid;
	return s->holds[k].owner;
}

int sources_reload(struct sources *s, const struct agent_conf *c)
{
	struct sources *n = malloc(sizeof(*n));
	int ret;

	if (!n)
		return -ENOMEM;
	ret = sources_init(n, c, s->port_gid);
	if (ret) {
		free(n);
		return ret;
	}
	memcpy(n->holds, s->holds, s->nholds * sizeof(s->holds[0]));
	n->nholds = s->nholds;
	sources_fini(s);
	memcpy(s, n, sizeof(*s));
	free(n);
	return 0;
}

int sources_hold(struct sources *s, const char *owner, const struct ats_ip *ip,
		 uint16_t pkey, uid_t uid)
{
	size_t k;

	for (k = 0; k < s->nholds; k++)
		if (!strcmp(s->holds[k].owner, owner) && s->holds[k].pkey == pkey &&
		    s->holds[k].uid == uid && ats_ip_equal(&s->holds[k].ip, ip))
			return -EEXIST;
	if (s->nholds == SRC_MAX_HOLDS)
		return -ENOSPC;
	snprintf(s->holds[s->nholds].owner, SOURCES_OWNER_LEN, "%s", owner);
	s->holds[s->nholds].ip = *ip;
	s->holds[s->nholds].pkey = pkey;
	s->holds[s->nholds].uid = uid;
	s->nholds++;
	s->changed = 1;
	return 0;
}

int sources_release(struct sources *s, const char *owner,
		    const struct ats_ip *ip, uint16_t pkey, uid_t uid, int any)
{
	size_t k;
	int other = 0;

	/* Own holds first: root releasing its own leaves another's alone. */
	for (k = 0; k < s->nholds; k++)
		if (!strcmp(s->holds[k].owner, owner) && s->holds[k].pkey == pkey &&
		    ats_ip_equal(&s->holds[k].ip, ip)) {
			if (s->holds[k].uid != uid) {
				other = 1;
				continue;
			}
			s->holds[k] = s->holds[--s->nholds];
			s->changed = 1;
			return 0;
		}
	for (k = 0; any && k < s->nholds; k++)
		if (!strcmp(s->holds[k].owner, owner) && s->holds[k].pkey == pkey &&
		    ats_ip_equal(&s->holds[k].ip, ip)) {
			s->holds[k] = s->holds[--s->nholds];
			s->changed = 1;
			return 0;
		}
	return other ? -EPERM : -ENOENT;
}

static int usable_addr(const struct ifev_addr *a, struct ats_ip *ip)
{
	memset(ip, 0, sizeof(*ip));
	ip->family = a->family;
	memcpy(ip->addr, a->addr, a->family == AF_INET ? 4 : 16);
	if (ats_ip_check_unicast(ip, NULL))
		return 0;
	if (a->family == AF_INET6)
		/* Global and unique-local; not link-local, not unusable. */
		return a->scope == RT_SCOPE_UNIVERSE &&
		       !(a->flags & (IFA_F_TENTATIVE | IFA_F_DADFAILED | IFA_F_DEPRECATED));
	return 1;
}

int sources_want(const struct sources *s, struct plan_want_addr **out, size_t *n)
{
	struct plan_want_cand *c;
	size_t nc = 0, cap, k, a;
	int ret;

	cap = s->nholds + s->conf->naddrs;
	for (k = 0; k < s->nifs; k++)
		cap += s->ifs[k].naddrs;
	c = calloc(cap + 1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	for (k = 0; k < s->nifs; k++) {
		const struct src_if *i = &s->ifs[k];
		int v4_primary_seen = 0;

		if (!i->ifindex || i->foreign ||
		    (i->flags & (IFF_UP | IFF_RUNNING)) != (IFF_UP | IFF_RUNNING))
			continue;
		for (a = 0; a < i->naddrs; a++) {
			struct plan_want_cand *w = &c[nc];

			if (!usable_addr(&i->addrs[a], &w->ip))
				continue;
			w->pkey = i->pkey;
			w->prio = PLAN_WANT_OTHER;
			if (i->cfg->have_primary && ats_ip_equal(&i->cfg->primary, &w->ip))
				w->prio = PLAN_WANT_FORCED;
			else if (w->ip.family == AF_INET && !v4_primary_seen &&
				 !(i->addrs[a].flags & IFA_F_SECONDARY)) {
				w->prio = PLAN_WANT_IF_PRIMARY;
				v4_primary_seen = 1;
			}
			nc++;
		}
	}
	for (k = 0; k < s->conf->naddrs; k++, nc++) {
		c[nc].ip = s->conf->addrs[k].ip;
		c[nc].pkey = s->conf->addrs[k].pkey;
		c[nc].prio = s->conf->addrs[k].primary ? PLAN_WANT_FORCED : PLAN_WANT_OTHER;
	}
	for (k = 0; k < s->nholds; k++, nc++) {
		c[nc].ip = s->holds[k].ip;
		c[nc].pkey = s->holds[k].pkey;
		c[nc].prio = PLAN_WANT_OTHER;
	}
	ret = plan_want_build(c, nc, out, n);
	free(c);
	return ret;
}
