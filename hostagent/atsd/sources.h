/* The host's addresses as the agent sees them: configured interfaces
 * followed through rtnetlink (possibly in other network namespaces),
 * static addresses from the config, and holds taken by local programs. */
#ifndef IBATS_SOURCES_H
#define IBATS_SOURCES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "agent_conf.h"
#include "nl.h"
#include "plan.h"

#define SRC_MAX_ADDRS 256
#define SRC_MAX_HOLDS 256
#define SRC_OWNER_LEN 64

struct src_if {
	const struct agent_if *cfg;
	struct nl_sock *nl;
	int ifindex;          /* 0 until the link is seen */
	unsigned flags;       /* IFF_* */
	uint16_t pkey;
	int foreign;          /* an IPoIB link of another CA port: ignored */
	struct nl_addr addrs[SRC_MAX_ADDRS];
	size_t naddrs;
};

struct src_hold {
	char owner[SRC_OWNER_LEN];
	uid_t uid;            /* of the program that took the hold */
	struct ats_ip ip;
	uint16_t pkey;
};

struct sources {
	struct src_if ifs[AGENT_MAX_IFS];
	size_t nifs;
	const struct agent_conf *conf;
	uint8_t port_gid[16];  /* to recognise our own IPoIB links */
	struct src_hold holds[SRC_MAX_HOLDS];
	size_t nholds;
	int changed;           /* the wanted set may differ */
};

/* Open one netlink socket per configured interface and dump its state. */
int sources_init(struct sources *s, const struct agent_conf *c,
		 const uint8_t *port_gid);
void sources_fini(struct sources *s);
/* Reopen the interfaces of a new config, keeping the holds; on failure
 * the old ones stay. */
int sources_reload(struct sources *s, const struct agent_conf *c);
/* Process whatever an interface's socket has queued. */
int sources_read(struct sources *s, size_t ifidx);

/* Apply one rtnetlink event to an interface (exported for unit tests). */
void sources_apply(struct sources *s, struct src_if *i, const struct nl_event *ev);

/* Holds, by (uid, owner, address): 0, -EEXIST (already held by that
 * owner of that uid), -ENOENT (release of nothing), -EPERM (release of
 * another uid's hold, unless any), -ENOSPC. */
int sources_hold(struct sources *s, const char *owner, const struct ats_ip *ip,
		 uint16_t pkey, uid_t uid);
int sources_release(struct sources *s, const char *owner,
		    const struct ats_ip *ip, uint16_t pkey, uid_t uid, int any);

/* Everything wanted now, primaries chosen. */
int sources_want(const struct sources *s, struct want_addr **out, size_t *n);

#endif
