/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libmnl/libmnl.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <poll.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ifev.h"

struct ifev_sock {
	struct mnl_socket *mnl;
	uint32_t seq;
};

struct parse_ctx {
	ifev_event_cb cb;
	void *arg;
};

/* One attribute table size serves links, addresses and neighbours. */
#define NL_TB_MAX IFLA_MAX
_Static_assert(IFA_MAX <= NL_TB_MAX && NDA_MAX <= NL_TB_MAX, "attribute table too small");

static int attr_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;

	if (mnl_attr_type_valid(a, NL_TB_MAX) > 0)
		tb[mnl_attr_get_type(a)] = a;
	return MNL_CB_OK;
}

/* A link-layer address attribute into dst[IFEV_HWADDR_MAX]; -EMSGSIZE if
 * longer than any link layer we know. */
static int attr_hwaddr(const struct nlattr *a, uint8_t *dst, size_t *len)
{
	size_t n = mnl_attr_get_payload_len(a);

	if (n > IFEV_HWADDR_MAX)
		return -EMSGSIZE;
	memcpy(dst, mnl_attr_get_payload(a), n);
	*len = n;
	return 0;
}

static int parse_addr(const struct nlmsghdr *nlh, struct parse_ctx *ctx)
{
	const struct ifaddrmsg *ifa = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *tb[NL_TB_MAX + 1] = { 0 };
	const struct nlattr *a;
	struct ifev_event ev;
	size_t alen;

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*ifa)))
		return MNL_CB_ERROR;
	if (mnl_attr_parse(nlh, sizeof(*ifa), attr_cb, tb) < 0)
		return MNL_CB_ERROR;
	if (ifa->ifa_family != AF_INET && ifa->ifa_family != AF_INET6)
		return MNL_CB_OK;
	memset(&ev, 0, sizeof(ev));
	ev.type = nlh->nlmsg_type == RTM_NEWADDR ? IFEV_EV_NEWADDR : IFEV_EV_DELADDR;
	ev.addr.ifindex = (int)ifa->ifa_index;
	ev.addr.family = ifa->ifa_family;
	ev.addr.prefixlen = ifa->ifa_prefixlen;
	ev.addr.scope = ifa->ifa_scope;
	ev.addr.flags = ifa->ifa_flags;
	if (tb[IFA_FLAGS] && mnl_attr_get_payload_len(tb[IFA_FLAGS]) >= 4)
		ev.addr.flags = mnl_attr_get_u32(tb[IFA_FLAGS]);
	/* IFA_LOCAL is the host's own address on point-to-point links;
	 * IFA_ADDRESS everywhere else. */
	a = tb[IFA_LOCAL] ? tb[IFA_LOCAL] : tb[IFA_ADDRESS];
	alen = ifa->ifa_family == AF_INET ? 4 : 16;
	if (!a || mnl_attr_get_payload_len(a) != alen)
		return MNL_CB_ERROR;
	memcpy(ev.addr.addr, mnl_attr_get_payload(a), alen);
	ctx->cb(&ev, ctx->arg);
	return MNL_CB_OK;
}

static int parse_link(const struct nlmsghdr *nlh, struct parse_ctx *ctx)
{
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *tb[NL_TB_MAX + 1] = { 0 };
	struct ifev_event ev;

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*ifi)))
		return MNL_CB_ERROR;
	if (mnl_attr_parse(nlh, sizeof(*ifi), attr_cb, tb) < 0)
		return MNL_CB_ERROR;
	memset(&ev, 0, sizeof(ev));
	ev.type = nlh->nlmsg_type == RTM_NEWLINK ? IFEV_EV_NEWLINK : IFEV_EV_DELLINK;
	ev.link.ifindex = ifi->ifi_index;
	ev.link.flags = ifi->ifi_flags;
	ev.link.type = ifi->ifi_type;
	if (tb[IFLA_IFNAME]) {
		if (mnl_attr_validate(tb[IFLA_IFNAME], MNL_TYPE_NUL_STRING) < 0)
			return MNL_CB_ERROR;
		snprintf(ev.link.name, sizeof(ev.link.name), "%s",
			 mnl_attr_get_str(tb[IFLA_IFNAME]));
	}
	if (tb[IFLA_ADDRESS] && attr_hwaddr(tb[IFLA_ADDRESS], ev.link.hwaddr, &ev.link.hwlen))
		return MNL_CB_ERROR;
	ctx->cb(&ev, ctx->arg);
	return MNL_CB_OK;
}

static int parse_neigh(const struct nlmsghdr *nlh, struct parse_ctx *ctx)
{
	const struct ndmsg *nd = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *tb[NL_TB_MAX + 1] = { 0 };
	struct ifev_event ev;
	size_t n;

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*nd)))
		return MNL_CB_ERROR;
	if (mnl_attr_parse(nlh, sizeof(*nd), attr_cb, tb) < 0)
		return MNL_CB_ERROR;
	if ((nd->ndm_family != AF_INET && nd->ndm_family != AF_INET6) || !tb[NDA_DST])
		return MNL_CB_OK;
	memset(&ev, 0, sizeof(ev));
	ev.type = IFEV_EV_NEWNEIGH;
	ev.neigh.ifindex = nd->ndm_ifindex;
	ev.neigh.family = nd->ndm_family;
	ev.neigh.state = nd->ndm_state;
	n = mnl_attr_get_payload_len(tb[NDA_DST]);
	if (n != (nd->ndm_family == AF_INET ? 4u : 16u))
		return MNL_CB_ERROR;
	memcpy(ev.neigh.addr, mnl_attr_get_payload(tb[NDA_DST]), n);
	if (tb[NDA_LLADDR] && attr_hwaddr(tb[NDA_LLADDR], ev.neigh.lladdr, &ev.neigh.lllen))
		return MNL_CB_ERROR;
	ctx->cb(&ev, ctx->arg);
	return MNL_CB_OK;
}

static int msg_cb(const struct nlmsghdr *nlh, void *data)
{
	struct parse_ctx *ctx = data;

	switch (nlh->nlmsg_type) {
	case RTM_NEWADDR:
	case RTM_DELADDR:
		return parse_addr(nlh, ctx);
	case RTM_NEWLINK:
	case RTM_DELLINK:
		return parse_link(nlh, ctx);
	case RTM_NEWNEIGH:
		return parse_neigh(nlh, ctx);
	default:
		return MNL_CB_OK;
	}
}

/* How much of buf is a well-formed chain of netlink headers. libmnl
 * trusts nlmsg_len (as an int) and walks off the buffer on a huge one. */
static size_t valid_prefix(const uint8_t *buf, size_t len, int *bad)
{
	size_t off = 0;

	*bad = 0;
	while (len - off >= sizeof(struct nlmsghdr)) {
		uint32_t n;

		memcpy(&n, buf + off + offsetof(struct nlmsghdr, nlmsg_len), sizeof(n));
		/* libmnl reads attributes up to the aligned end. Align in
		 * size_t: NLMSG_ALIGN of a 32-bit 0xfffffffd wraps to 0. */
		size_t aligned = ((size_t)n + NLMSG_ALIGNTO - 1) & ~(size_t)(NLMSG_ALIGNTO - 1);

		if (n < sizeof(struct nlmsghdr) || aligned > len - off) {
			*bad = 1;
			break;
		}
		off += aligned;
	}
	if (off < len && !*bad)
		*bad = 1;
	return off;
}

int ifev_parse(const void *buf, size_t len, ifev_event_cb cb, void *arg)
{
	struct parse_ctx ctx = { cb, arg };
	int ret, bad;

	len = valid_prefix(buf, len, &bad);
	ret = mnl_cb_run(buf, len, 0, 0, msg_cb, &ctx);
	if (ret >= 0 && bad && ret != MNL_CB_STOP)
		return -EBADMSG;
	if (ret == MNL_CB_STOP) {
		struct ifev_event ev;

		memset(&ev, 0, sizeof(ev));
		ev.type = IFEV_EV_DONE;
		cb(&ev, arg);
		return 0;
	}
	if (ret < 0)
		return errno == ENOBUFS ? -ENOBUFS : -EBADMSG;
	return 0;
}

/* Open a route socket with the calling thread inside netns, then come
 * back to the thread's own namespace. */
static int in_netns(const char *netns, struct mnl_socket **out)
{
	char path[256];
	int self, target, ret = 0;

	snprintf(path, sizeof(path), "/run/netns/%s", netns);
	target = open(path, O_RDONLY | O_CLOEXEC);
	if (target < 0)
		return -errno;
	self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self < 0) {
		ret = -errno;
		close(target);
		return ret;
	}
	if (setns(target, CLONE_NEWNET)) {
		ret = -errno;
		goto out;
	}
	/* A socket keeps the namespace it was created in. */
	*out = mnl_socket_open(NETLINK_ROUTE);
	if (!*out)
		ret = -errno;
	if (setns(self, CLONE_NEWNET)) {
		/* Cannot return to our own namespace: fatal for the caller. */
		ret = -errno;
		if (*out)
			mnl_socket_close(*out);
		*out = NULL;
	}
out:
	close(self);
	close(target);
	return ret;
}

int ifev_open(struct ifev_sock **out, const char *netns)
{
	struct ifev_sock *s = calloc(1, sizeof(*s));
	unsigned groups = RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR;
	int ret, fl;

	if (!s)
		return -ENOMEM;
	if (netns) {
		ret = in_netns(netns, &s->mnl);
		if (ret) {
			free(s);
			return ret;
		}
	} else {
		s->mnl = mnl_socket_open(NETLINK_ROUTE);
		if (!s->mnl) {
			ret = -errno;
			free(s);
			return ret;
		}
	}
	if (mnl_socket_bind(s->mnl, groups, MNL_SOCKET_AUTOPID) < 0) {
		ret = -errno;
		ifev_close(s);
		return ret;
	}
	fl = fcntl(mnl_socket_get_fd(s->mnl), F_GETFL);
	fcntl(mnl_socket_get_fd(s->mnl), F_SETFL, fl | O_NONBLOCK);
	fcntl(mnl_socket_get_fd(s->mnl), F_SETFD, FD_CLOEXEC);
	s->seq = (uint32_t)time(NULL);
	*out = s;
	return 0;
}

void ifev_close(struct ifev_sock *s)
{
	if (!s)
		return;
	if (s->mnl)
		mnl_socket_close(s->mnl);
	free(s);
}

int ifev_fd(const struct ifev_sock *s)
{
	return mnl_socket_get_fd(s->mnl);
}

int ifev_dump(struct ifev_sock *s, int rtm_type)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct rtgenmsg *g;

	nlh->nlmsg_type = (uint16_t)rtm_type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = ++s->seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->rtgen_family = AF_UNSPEC;
	if (mnl_socket_sendto(s->mnl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	return 0;
}

int ifev_read(struct ifev_sock *s, ifev_event_cb cb, void *arg)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	ssize_t n;
	int got = 0, ret;

	for (;;) {
		n = mnl_socket_recvfrom(s->mnl, buf, sizeof(buf));
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return got ? 0 : -EAGAIN;
			if (errno == EINTR)
				continue;
			return -errno;
		}
		got = 1;
		ret = ifev_parse(buf, (size_t)n, cb, arg);
		if (ret)
			return ret;
	}
}

struct dump_ctx {
	ifev_event_cb cb;
	void *arg;
	int done;
};

static void dump_cb(const struct ifev_event *ev, void *arg)
{
	struct dump_ctx *d = arg;

	if (ev->type == IFEV_EV_DONE)
		d->done = 1;
	else
		d->cb(ev, d->arg);
}

int ifev_dump_all(struct ifev_sock *s, int rtm_type, ifev_event_cb cb, void *arg)
{
	struct dump_ctx d = { cb, arg, 0 };
	int ret = ifev_dump(s, rtm_type);

	while (!ret && !d.done) {
		ret = ifev_read(s, dump_cb, &d);
		if (ret == -EAGAIN) {
			struct pollfd p = { ifev_fd(s), POLLIN, 0 };

			/* More parts are on their way. */
			ret = poll(&p, 1, 1000) > 0 ? 0 : -ETIMEDOUT;
		}
	}
	return ret;
}
