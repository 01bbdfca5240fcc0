/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* rtnetlink address and link events (libmnl), optionally from inside
 * another network namespace. */
#ifndef IBATS_IFEV_H
#define IBATS_IFEV_H

#include <net/if.h>
#include <stddef.h>
#include <stdint.h>

struct ifev_addr {
	int ifindex;
	int family;          /* AF_INET or AF_INET6 */
	uint8_t addr[16];
	uint8_t prefixlen;
	uint8_t scope;       /* RT_SCOPE_* */
	uint32_t flags;      /* IFA_F_* (IFA_FLAGS when present) */
};

#define IFEV_HWADDR_MAX 32

struct ifev_link {
	int ifindex;
	char name[IF_NAMESIZE];
	unsigned flags;      /* IFF_* */
	uint16_t type;       /* ARPHRD_* */
	uint8_t hwaddr[IFEV_HWADDR_MAX];
	size_t hwlen;
};

/* A neighbour table entry (RTM_NEWNEIGH): IP -> link-layer address. */
struct ifev_neigh {
	int ifindex;
	int family;
	uint8_t addr[16];
	uint16_t state;      /* NUD_* */
	uint8_t lladdr[IFEV_HWADDR_MAX];
	size_t lllen;
};

enum ifev_event_type {
	IFEV_EV_NEWADDR,
	IFEV_EV_DELADDR,
	IFEV_EV_NEWLINK,
	IFEV_EV_DELLINK,
	IFEV_EV_NEWNEIGH,
	IFEV_EV_DONE,          /* end of a dump */
};

struct ifev_event {
	enum ifev_event_type type;
	struct ifev_addr addr;
	struct ifev_link link;
	struct ifev_neigh neigh;
};

typedef void (*ifev_event_cb)(const struct ifev_event *ev, void *arg);

/* Parse a buffer of rtnetlink messages and call cb for each address, link
 * and end-of-dump. Messages of other types are skipped; malformed ones
 * stop the parse with -EBADMSG. */
int ifev_parse(const void *buf, size_t len, ifev_event_cb cb, void *arg);

struct ifev_sock;

/* Open a route socket subscribed to link and IPv4/IPv6 address groups,
 * inside network namespace netns (/run/netns/NAME) or the current one
 * when netns is NULL. The caller stays in its own namespace. */
int ifev_open(struct ifev_sock **out, const char *netns);
void ifev_close(struct ifev_sock *s);
int ifev_fd(const struct ifev_sock *s);
/* Ask for a dump of all links (RTM_GETLINK), addresses (RTM_GETADDR) or
 * neighbours (RTM_GETNEIGH). */
int ifev_dump(struct ifev_sock *s, int rtm_type);
/* Read what is queued (non-blocking) and hand it to ifev_parse. -EAGAIN
 * when nothing was there; -ENOBUFS when the kernel dropped events (the
 * caller should dump again). */
int ifev_read(struct ifev_sock *s, ifev_event_cb cb, void *arg);
/* Dump one table and hand every entry to cb (blocking until done). */
int ifev_dump_all(struct ifev_sock *s, int rtm_type, ifev_event_cb cb, void *arg);

#endif
