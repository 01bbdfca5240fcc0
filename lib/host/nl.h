/* rtnetlink address and link events (libmnl), optionally from inside
 * another network namespace. */
#ifndef IBATS_NL_H
#define IBATS_NL_H

#include <net/if.h>
#include <stddef.h>
#include <stdint.h>

struct nl_addr {
	int ifindex;
	int family;          /* AF_INET or AF_INET6 */
	uint8_t addr[16];
	uint8_t prefixlen;
	uint8_t scope;       /* RT_SCOPE_* */
	uint32_t flags;      /* IFA_F_* (IFA_FLAGS when present) */
};

#define NL_HWADDR_MAX 32

struct nl_link {
	int ifindex;
	char name[IF_NAMESIZE];
	unsigned flags;      /* IFF_* */
	uint16_t type;       /* ARPHRD_* */
	uint8_t hwaddr[NL_HWADDR_MAX];
	size_t hwlen;
};

/* A neighbour table entry (RTM_NEWNEIGH): IP -> link-layer address. */
struct nl_neigh {
	int ifindex;
	int family;
	uint8_t addr[16];
	uint16_t state;      /* NUD_* */
	uint8_t lladdr[NL_HWADDR_MAX];
	size_t lllen;
};

enum nl_event_type {
	NL_EV_NEWADDR,
	NL_EV_DELADDR,
	NL_EV_NEWLINK,
	NL_EV_DELLINK,
	NL_EV_NEWNEIGH,
	NL_EV_DONE,          /* end of a dump */
};

struct nl_event {
	enum nl_event_type type;
	struct nl_addr addr;
	struct nl_link link;
	struct nl_neigh neigh;
};

typedef void (*nl_event_cb)(const struct nl_event *ev, void *arg);

/* Parse a buffer of rtnetlink messages and call cb for each address, link
 * and end-of-dump. Messages of other types are skipped; malformed ones
 * stop the parse with -EBADMSG. */
int nl_parse(const void *buf, size_t len, nl_event_cb cb, void *arg);

struct nl_sock;

/* Open a route socket subscribed to link and IPv4/IPv6 address groups,
 * inside network namespace netns (/run/netns/NAME) or the current one
 * when netns is NULL. The caller stays in its own namespace. */
int nl_open(struct nl_sock **out, const char *netns);
void nl_close(struct nl_sock *s);
int nl_fd(const struct nl_sock *s);
/* Ask for a dump of all links (RTM_GETLINK), addresses (RTM_GETADDR) or
 * neighbours (RTM_GETNEIGH). */
int nl_dump(struct nl_sock *s, int rtm_type);
/* Read what is queued (non-blocking) and hand it to nl_parse. -EAGAIN
 * when nothing was there; -ENOBUFS when the kernel dropped events (the
 * caller should dump again). */
int nl_read(struct nl_sock *s, nl_event_cb cb, void *arg);
/* Dump one table and hand every entry to cb (blocking until done). */
int nl_dump_all(struct nl_sock *s, int rtm_type, nl_event_cb cb, void *arg);

#endif
