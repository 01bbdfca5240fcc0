/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The host's addresses as the agent sees them: configured interfaces
 * followed through rtnetlink (possibly in other network namespaces),
 * static addresses from the config, and holds taken by local programs. */
#ifndef IBATS_SOURCES_H
#define IBATS_SOURCES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "host/agent_conf.h"
#include "host/ifev.h"
#include "model/plan.h"

#define SOURCES_OWNER_LEN 64

struct sources;

/* Open one netlink socket per configured interface and dump its state
 * (c stays the caller's). 0 or -errno. */
int sources_open(struct sources **out, const struct agent_conf *c,
		 const uint8_t *port_gid);
void sources_close(struct sources *s);
/* Reopen the interfaces of a new config, keeping the holds; on failure
 * the old ones stay. */
int sources_reload(struct sources *s, const struct agent_conf *c);

/* The configured interfaces: how many, each one's netlink fd to poll and
 * its PKey. */
size_t sources_count(const struct sources *s);
int sources_fd(const struct sources *s, size_t ifidx);
uint16_t sources_pkey(const struct sources *s, size_t ifidx);
/* Whether the interface is an IPoIB one (ARPHRD_INFINIBAND): a kernel's,
 * whose broadcast group membership is the kernel's to keep. */
int sources_ipoib(const struct sources *s, size_t ifidx);
/* The GID of the port atsd serves. */
const uint8_t *sources_port_gid(const struct sources *s);
/* Process whatever an interface's socket has queued. */
int sources_read(struct sources *s, size_t ifidx);

/* The wanted set may differ from the one last taken (sources_seen). */
int sources_changed(const struct sources *s);
void sources_seen(struct sources *s);
size_t sources_nholds(const struct sources *s);
/* Hold k (< sources_nholds): its owner name (valid until the holds
 * change), address, PKey and the uid that took it. */
const char *sources_hold_at(const struct sources *s, size_t k, struct ats_ip *ip,
			    uint16_t *pkey, uid_t *uid);

/* Holds, by (uid, owner, address): 0, -EEXIST (already held by that
 * owner of that uid), -ENOENT (release of nothing), -EPERM (release of
 * another uid's hold, unless any), -ENOSPC. */
int sources_hold(struct sources *s, const char *owner, const struct ats_ip *ip,
		 uint16_t pkey, uid_t uid);
int sources_release(struct sources *s, const char *owner,
		    const struct ats_ip *ip, uint16_t pkey, uid_t uid, int any);

/* Everything wanted now, primaries chosen. */
int sources_want(const struct sources *s, struct plan_want_addr **out, size_t *n);

#endif
