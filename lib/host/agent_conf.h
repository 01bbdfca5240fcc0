/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* atsd.conf: strict, table-driven configuration of the host agent. In
 * lib/host, not hostagent/atsd, so atsctl check-config runs atsd's own
 * parser without linking atsd code. */
#ifndef IBATS_AGENT_CONF_H
#define IBATS_AGENT_CONF_H

#include <net/if.h>
#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>

#include "core/ats.h"
#include "atsd_proto.h"
#include "core/log.h"
#include "rcm_conf.h"

/* The configured sysconfdir (Makefile.am): the file the installed units
 * name, /etc/ibats/atsd.conf in the packages' and the system install. */
#define AGENT_CONF_DEFAULT SYSCONFDIR "/ibats/atsd.conf"
#define AGENT_CONF_SOCKET_DEFAULT ATSD_PROTO_SOCKET_DEFAULT
/* state_file: the records atsd registered (agent_state.c keeps them). */
#define AGENT_CONF_STATE_DEFAULT "/var/lib/ibats/atsd.state"
#define AGENT_CONF_MAX_IFS 16
#define AGENT_CONF_MAX_STATIC 64

struct agent_conf_if {
	char name[IF_NAMESIZE];
	char netns[64];          /* "" = the agent's own namespace */
	int have_pkey;           /* else from sysfs, else 0xFFFF */
	uint16_t pkey;
	int have_primary;
	struct ats_ip primary;
};

struct agent_conf_static {
	struct ats_ip ip;
	uint16_t pkey;
	int primary;
};

/* Who joins and leaves the IPoIB broadcast groups. On a real host the
 * kernel's IPoIB driver does, and OpenSM drops a port's FullMember state
 * on a leave from that port whoever joined: atsd must not leave then. */
enum agent_conf_membership {
	AGENT_CONF_MEMBERSHIP_AUTO = 0, /* check for kernel IPoIB interfaces, else manage */
	AGENT_CONF_MEMBERSHIP_CHECK,    /* never join or leave: read and report */
	AGENT_CONF_MEMBERSHIP_MANAGE,   /* join, rejoin after SM loss, leave at exit */
};

/* The most records prefetch_max may name: the lookup cache's size. */
#define AGENT_CONF_PREFETCH_MAX 16384
/* cm_idle_timeout's default, s: atsd moves no data over a connection, so
 * a passive one is closed this long after it is established, and
 * requesters that leave without a DREQ cannot hold the listener's table
 * (IB CM has no keepalive). */
#define AGENT_CONF_CM_IDLE_DEFAULT 120

struct agent_conf {
	char ca[64];
	uint32_t port;
	char socket[108];
	uint32_t verify_interval;   /* s */
	uint32_t sm_poll_interval;  /* s */
	uint32_t cache_ttl;         /* s */
	uint32_t negative_ttl;      /* s */
	uint32_t report_grace;      /* s: no caching of what a report made stale */
	uint32_t sa_timeout;        /* ms */
	uint32_t sa_retries;
	uint32_t sa_depth;          /* SA lookups in flight at once */
	uint32_t prefetch_max;      /* read the ATS table ahead up to this size */
	uint32_t backoff_max;       /* s */
	uint32_t lease;             /* s, 0xFFFFFFFF infinite */
	int liveness;               /* answer vendor class 0x34 */
	int ibping;                 /* answer infiniband-diags ibping (0x32) */
	enum log_level log_level;
	struct agent_conf_if ifs[AGENT_CONF_MAX_IFS];
	size_t nifs;
	struct agent_conf_static addrs[AGENT_CONF_MAX_STATIC];
	size_t naddrs;
	struct rcm_conf cm;         /* connections by IP: on with cm or cm_listen */
	uint32_t cm_timeout;        /* ms per CM attempt */
	int cm_active;              /* atsctl connect may use the endpoint */
	char state_file[256];       /* what atsd registered, across restarts */
	char metrics_file[256];     /* "" off: Prometheus text, see host_metrics.h */
	uint32_t refused_retry;     /* s: retry of an address the SA refused */
	char control_group[64];     /* "" none: only root changes state */
	gid_t control_gid;
	uint32_t max_clients_per_uid;
	uint32_t client_idle_timeout; /* s, 0: never */
	enum agent_conf_membership ipoib_membership;
};

void agent_conf_default(struct agent_conf *c);
/* "CA:PORT" of a per-port instance (atsd@.service): sets c's CA and port
 * and the instance's own socket and state file, which a config file may
 * still set otherwise. 0 or -EINVAL. */
int agent_conf_instance(struct agent_conf *c, const char *instance);
/* c, loaded from path, keeps the instance's CA and port (a file naming
 * another would serve one port under another's socket): 0 or -EINVAL
 * with err. */
int agent_conf_instance_check(const struct agent_conf *c, const char *instance,
			      const char *path, char *err, size_t errlen);
/* 0; -ENOENT (defaults kept); -EINVAL with err = "path:line: what". */
int agent_conf_load(const char *path, struct agent_conf *c, char *err,
		    size_t errlen);
/* agent_conf_load for a check that may run off the host (atsctl
 * check-config, atsd --check-config): what only this machine lacks (a
 * control_group; control_gid -1 then) is a "path:line: what" line in
 * warn, not an error. warn NULL: agent_conf_load. */
int agent_conf_check(const char *path, struct agent_conf *c, char *err, size_t errlen,
		     char *warn, size_t warnlen);
/* Name of a key that differs and cannot change without a restart. */
const char *agent_conf_restart_key(const struct agent_conf *a,
				   const struct agent_conf *b);
/* A reload: next takes cur's values of every restart-only key. -EINVAL
 * when next's metrics_file then names the kept state_file or socket:
 * next keeps cur's metrics_file. */
int agent_conf_keep_restart(struct agent_conf *next, const struct agent_conf *cur);

#endif
