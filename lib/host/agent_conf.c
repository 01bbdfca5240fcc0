/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <errno.h>
#include <grp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/a11.h"
#include "agent_conf.h"
#include "ats_window.h"
#include "core/cfg.h"

enum ac_type {
	AC_STR,
	AC_U32,
	AC_BOOL,
	AC_LEASE,
	AC_LOGLEVEL,
	AC_INTERFACE,
	AC_ADDRESS,
	AC_CM_LISTEN,
	AC_CM_POLICY,
	AC_CM_ACCEPT,
	AC_GROUP,
	AC_MEMBERSHIP,
};

/* restart: the key takes effect only when atsd starts; a SIGHUP that
 * changes it warns and keeps the running value. off/size: the bytes the
 * key sets, compared and kept on SIGHUP (AC_STR: the buffer). */
static const struct ac_key {
	const char *name;
	enum ac_type type;
	size_t off;
	size_t size;
	uint32_t min, max;
	int restart;
	int repeat;
} ac_keys[] = {
#define M(m) offsetof(struct agent_conf, m), sizeof(((struct agent_conf *)0)->m)
#define SPAN(a, b) offsetof(struct agent_conf, a), \
	offsetof(struct agent_conf, b) + sizeof(((struct agent_conf *)0)->b) - \
	offsetof(struct agent_conf, a)
	{ "ca", AC_STR, M(ca), 0, 0, 1, 0 },
	{ "port", AC_U32, M(port), 1, 254, 1, 0 },
	{ "socket", AC_STR, M(socket), 0, 0, 1, 0 },
	{ "liveness", AC_BOOL, M(liveness), 0, 0, 1, 0 },
	{ "ibping", AC_BOOL, M(ibping), 0, 0, 1, 0 },
	{ "verify_interval", AC_U32, M(verify_interval), 1, 86400, 0, 0 },
	{ "sm_poll_interval", AC_U32, M(sm_poll_interval), 1, 3600, 0, 0 },
	{ "cache_ttl", AC_U32, M(cache_ttl), 0, 86400, 0, 0 },
	{ "negative_ttl", AC_U32, M(negative_ttl), 0, 3600, 0, 0 },
	{ "report_grace", AC_U32, M(report_grace), 0, 3600, 0, 0 },
	{ "sa_timeout", AC_U32, M(sa_timeout), 10, 60000, 0, 0 },
	{ "sa_retries", AC_U32, M(sa_retries), 0, 20, 0, 0 },
	{ "sa_depth", AC_U32, M(sa_depth), 1, ATS_WINDOW_DEPTH_MAX, 1, 0 },
	{ "prefetch_max", AC_U32, M(prefetch_max), 0, AGENT_CONF_PREFETCH_MAX, 0, 0 },
	{ "backoff_max", AC_U32, M(backoff_max), 1, 3600, 0, 0 },
	{ "lease", AC_LEASE, M(lease), 1, UINT32_MAX, 0, 0 },
	{ "log_level", AC_LOGLEVEL, M(log_level), 0, 0, 0, 0 },
	{ "interface", AC_INTERFACE, SPAN(ifs, nifs), 0, 0, 0, 1 },
	{ "address", AC_ADDRESS, SPAN(addrs, naddrs), 0, 0, 0, 1 },
	{ "cm_listen", AC_CM_LISTEN, SPAN(cm.listen, cm.nlisten), 0, 0, 1, 1 },
	{ "cm_policy", AC_CM_POLICY, M(cm.policy), 0, 0, 1, 0 },
	{ "cm_accept", AC_CM_ACCEPT, SPAN(cm.accept, cm.naccept), 0, 0, 1, 1 },
	{ "cm_timeout", AC_U32, M(cm_timeout), 10, 60000, 1, 0 },
	{ "cm_idle_timeout", AC_U32, M(cm.idle_timeout), 1, 86400, 1, 0 },
	{ "cm", AC_BOOL, M(cm_active), 0, 0, 1, 0 },
	{ "state_file", AC_STR, M(state_file), 0, 0, 1, 0 },
	{ "metrics_file", AC_STR, M(metrics_file), 0, 0, 0, 0 },
	{ "refused_retry", AC_U32, M(refused_retry), 10, 86400, 0, 0 },
	{ "control_group", AC_GROUP, M(control_group), 0, 0, 0, 0 },
	{ "max_clients_per_uid", AC_U32, M(max_clients_per_uid), 1, 64, 0, 0 },
	{ "client_idle_timeout", AC_U32, M(client_idle_timeout), 0, 86400, 0, 0 },
	{ "ipoib_membership", AC_MEMBERSHIP, M(ipoib_membership), 0, 0, 0, 0 },
#undef SPAN
#undef M
};

#define N_KEYS (sizeof(ac_keys) / sizeof(ac_keys[0]))

/* Keys atsd no longer has: a config that still names one learns what to
 * do instead of meeting "unknown key". */
static const struct {
	const char *name;
	const char *why;
} ac_removed[] = {
	{ "ibsim", "atsd runs the same on the lab's simulated host as on a real host "
		   "and needs no setting for it: delete the line" },
};

#define N_REMOVED (sizeof(ac_removed) / sizeof(ac_removed[0]))

void agent_conf_default(struct agent_conf *c)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->socket, sizeof(c->socket), "%s", AGENT_CONF_SOCKET_DEFAULT);
	c->verify_interval = 60;
	c->sm_poll_interval = 5;
	c->cache_ttl = 30;
	c->negative_ttl = 5;
	c->report_grace = 10;
	c->sa_timeout = 500;
	c->sa_retries = 3;
	c->sa_depth = ATS_WINDOW_DEPTH_DEFAULT;
	c->backoff_max = 60;
	c->lease = SR_LEASE_INFINITE;
	c->log_level = LOG_LVL_INFO;
	c->liveness = 1;
	c->ibping = 1;
	c->cm.policy = RCM_CONF_ACCEPT_AGREE;
	c->cm_timeout = 1000;
	c->cm.idle_timeout = AGENT_CONF_CM_IDLE_DEFAULT;
	snprintf(c->state_file, sizeof(c->state_file), "%s", AGENT_CONF_STATE_DEFAULT);
	c->refused_retry = 600;
	c->max_clients_per_uid = 16;
	c->client_idle_timeout = 60;
}

/* Registrations use the full-member form (membership bit 0x8000). */
static int parse_pkey_full(const char *v, uint16_t *pkey)
{
	int ret = ats_pkey_parse(v, pkey);

	*pkey |= 0x8000;
	return ret;
}

/* "NAME [netns NS] [pkey P] [primary ADDR]" */
static int parse_interface(struct agent_conf *c, char *v, char *msg, size_t len)
{
	struct agent_conf_if *i;
	char *save = NULL, *tok;

	if (c->nifs == AGENT_CONF_MAX_IFS) {
		snprintf(msg, len, "interface: more than %d interfaces", AGENT_CONF_MAX_IFS);
		return -EINVAL;
	}
	i = &c->ifs[c->nifs];
	memset(i, 0, sizeof(*i));
	tok = strtok_r(v, " \t", &save);
	if (!tok || strlen(tok) >= sizeof(i->name)) {
		snprintf(msg, len, "interface: '%s' is not an interface name", tok ? tok : "");
		return -EINVAL;
	}
	snprintf(i->name, sizeof(i->name), "%s", tok);
	while ((tok = strtok_r(NULL, " \t", &save))) {
		char *arg = strtok_r(NULL, " \t", &save);

		if (!arg) {
			snprintf(msg, len, "interface %s: '%s' needs a value", i->name, tok);
			return -EINVAL;
		}
		if (!strcmp(tok, "netns")) {
			if (strlen(arg) >= sizeof(i->netns) || strchr(arg, '/')) {
				snprintf(msg, len, "interface %s: netns '%s' is not a namespace name",
					 i->name, arg);
				return -EINVAL;
			}
			snprintf(i->netns, sizeof(i->netns), "%s", arg);
		} else if (!strcmp(tok, "pkey")) {
			if (parse_pkey_full(arg, &i->pkey)) {
				snprintf(msg, len, "interface %s: pkey '%s' is not a PKey (1..0xFFFF)",
					 i->name, arg);
				return -EINVAL;
			}
			i->have_pkey = 1;
		} else if (!strcmp(tok, "primary")) {
			if (ats_ip_parse(arg, &i->primary)) {
				snprintf(msg, len, "interface %s: primary '%s' is not an IP address",
					 i->name, arg);
				return -EINVAL;
			}
			i->have_primary = 1;
		} else {
			snprintf(msg, len, "interface %s: unknown option '%s' (netns, pkey, primary)",
				 i->name, tok);
			return -EINVAL;
		}
	}
	c->nifs++;
	return 0;
}

/* "ADDR [pkey P] [primary]" */
static int parse_address(struct agent_conf *c, char *v, char *msg, size_t len)
{
	struct agent_conf_static *a;
	char *save = NULL, *tok;
	const char *why;
	size_t i;

	if (c->naddrs == AGENT_CONF_MAX_STATIC) {
		snprintf(msg, len, "address: more than %d addresses", AGENT_CONF_MAX_STATIC);
		return -EINVAL;
	}
	a = &c->addrs[c->naddrs];
	memset(a, 0, sizeof(*a));
	a->pkey = ATS_PKEY_DEFAULT;
	tok = strtok_r(v, " \t", &save);
	if (!tok || ats_ip_parse(tok, &a->ip)) {
		snprintf(msg, len, "address: '%s' is not an IP address", tok ? tok : "");
		return -EINVAL;
	}
	if (ats_ip_check_unicast(&a->ip, &why)) {
		snprintf(msg, len, "address: '%s': %s", tok, why);
		return -EINVAL;
	}
	while ((tok = strtok_r(NULL, " \t", &save))) {
		if (!strcmp(tok, "primary")) {
			a->primary = 1;
		} else if (!strcmp(tok, "pkey")) {
			char *arg = strtok_r(NULL, " \t", &save);

			if (!arg || parse_pkey_full(arg, &a->pkey)) {
				snprintf(msg, len, "address: pkey '%s' is not a PKey (1..0xFFFF)",
					 arg ? arg : "");
				return -EINVAL;
			}
		} else {
			snprintf(msg, len, "address: unknown option '%s' (pkey, primary)", tok);
			return -EINVAL;
		}
	}
	/* A port has one primary address per partition (DAT Collaborative ATS
	 * v1 section 2.2). */
	for (i = 0; a->primary && i < c->naddrs; i++)
		if (c->addrs[i].primary && (c->addrs[i].pkey & 0x7fff) == (a->pkey & 0x7fff)) {
			char ip[ATS_IP_STRLEN];

			snprintf(msg, len, "address: a second primary in PKey 0x%04x (%s is one)",
				 a->pkey, ats_ip_format(&c->addrs[i].ip, ip, sizeof(ip)));
			return -EINVAL;
		}
	c->naddrs++;
	return 0;
}

/* A string key: it fits, and socket, state_file and metrics_file are
 * absolute paths. */
static int parse_string(const struct ac_key *k, char *field, const char *v,
			char *msg, size_t len)
{
	if (strlen(v) >= k->size) {
		snprintf(msg, len, "%s: '%s' is longer than %zu bytes", k->name, v,
			 k->size - 1);
		return -EINVAL;
	}
	if ((!strcmp(k->name, "socket") || !strcmp(k->name, "state_file") ||
	     !strcmp(k->name, "metrics_file")) && v[0] != '/') {
		snprintf(msg, len, "%s: '%s' is not an absolute path", k->name, v);
		return -EINVAL;
	}
	snprintf(field, k->size, "%s", v);
	return 0;
}

static int parse_lease(uint32_t *lease, const char *v, char *msg, size_t len)
{
	uint64_t x;

	if (!strcmp(v, "infinite")) {
		*lease = SR_LEASE_INFINITE;
		return 0;
	}
	if (cfg_parse_u64(v, UINT32_MAX, &x) || !x) {
		snprintf(msg, len, "lease: '%s' is not seconds (1..4294967295) or infinite", v);
		return -EINVAL;
	}
	*lease = (uint32_t)x;
	return 0;
}

/* A TCP port of the RDMA IP CM service, or a whole service ID. */
static int parse_cm_listen(struct agent_conf *c, const char *v, char *msg, size_t len)
{
	uint64_t x;

	if (cfg_parse_u64(v, UINT64_MAX, &x) || !x) {
		snprintf(msg, len, "cm_listen: '%s' is not a port or service ID", v);
		return -EINVAL;
	}
	if (c->cm.nlisten == RCM_CONF_MAX_LISTEN) {
		snprintf(msg, len, "cm_listen: more than %d", RCM_CONF_MAX_LISTEN);
		return -EINVAL;
	}
	c->cm.listen[c->cm.nlisten++] = x <= 0xffff ?
		a11_service_id(A11_PS_TCP, (uint16_t)x) : x;
	c->cm_active = 1;
	return 0;
}

static int parse_cm_accept(struct agent_conf *c, const char *v, char *msg, size_t len)
{
	if (c->cm.naccept == RCM_CONF_MAX_ACCEPT ||
	    ats_ip_parse(v, &c->cm.accept[c->cm.naccept])) {
		snprintf(msg, len, "cm_accept: '%s' is not an IP address", v);
		return -EINVAL;
	}
	c->cm.naccept++;
	return 0;
}

/* Resolved once here: a group that does not exist is a typo, or a
 * machine that is not the host (a configuration server checking the
 * file): CFG_WARN, which atsd's start refuses and a check only reports
 * (agent_conf_check), the gid left at -1. */
static int parse_group(const struct ac_key *k, struct agent_conf *c, char *field,
		       const char *v, char *msg, size_t len)
{
	struct group *g;

	if (strlen(v) >= k->size) {
		snprintf(msg, len, "control_group: '%s' is longer than %zu bytes", v, k->size - 1);
		return -EINVAL;
	}
	snprintf(field, k->size, "%s", v);
	g = getgrnam(v);
	if (!g) {
		c->control_gid = (gid_t)-1;
		snprintf(msg, len, "control_group: no group '%s' on this machine", v);
		return CFG_WARN;
	}
	c->control_gid = g->gr_gid;
	return 0;
}

static int set_value(const struct ac_key *k, struct agent_conf *c, char *v,
		     char *msg, size_t len)
{
	static const char *const levels[] = { "error", "warning", "info", "debug" };
	static const char *const policies[] = { "any", "agree", "list" };
	static const char *const memberships[] = { "auto", "check", "manage" };
	char *field = (char *)c + k->off;
	int choice;

	switch (k->type) {
	case AC_STR:
		return parse_string(k, field, v, msg, len);
	case AC_U32:
		return cfg_set_u32(k->name, v, k->min, k->max, (uint32_t *)field, msg, len);
	case AC_BOOL:
		return cfg_set_bool(k->name, v, (int *)field, msg, len);
	case AC_LEASE:
		return parse_lease((uint32_t *)field, v, msg, len);
	case AC_LOGLEVEL:
		if (cfg_set_choice(k->name, v, levels, 4, &choice, msg, len))
			return -EINVAL;
		*(enum log_level *)field = (enum log_level)choice;
		return 0;
	case AC_CM_LISTEN:
		return parse_cm_listen(c, v, msg, len);
	case AC_CM_POLICY:
		if (cfg_set_choice(k->name, v, policies, 3, &choice, msg, len))
			return -EINVAL;
		c->cm.policy = (enum rcm_conf_policy)choice;
		return 0;
	case AC_MEMBERSHIP:
		if (cfg_set_choice(k->name, v, memberships, 3, &choice, msg, len))
			return -EINVAL;
		c->ipoib_membership = (enum agent_conf_membership)choice;
		return 0;
	case AC_CM_ACCEPT:
		return parse_cm_accept(c, v, msg, len);
	case AC_GROUP:
		return parse_group(k, c, field, v, msg, len);
	case AC_INTERFACE:
		return parse_interface(c, v, msg, len);
	case AC_ADDRESS:
		return parse_address(c, v, msg, len);
	}
	return -EINVAL;
}

/* Table entries N_KEYS.. are the removed keys. */
static const char *key_name(size_t i, int *repeat)
{
	*repeat = i < N_KEYS && ac_keys[i].repeat;
	return i < N_KEYS ? ac_keys[i].name : ac_removed[i - N_KEYS].name;
}

static int key_set(void *ctx, size_t i, char *val, char *msg, size_t len)
{
	if (i < N_KEYS)
		return set_value(&ac_keys[i], ctx, val, msg, len);
	snprintf(msg, len, "%s: this key was removed: %s", ac_removed[i - N_KEYS].name,
		 ac_removed[i - N_KEYS].why);
	return -EINVAL;
}

int agent_conf_instance(struct agent_conf *c, const char *instance)
{
	const char *colon = strrchr(instance, ':');
	size_t calen = colon ? (size_t)(colon - instance) : 0;
	uint64_t port;

	char sock[sizeof(c->socket)], state[sizeof(c->state_file)];
	const char *p;
	int n, m;

	if (!calen || calen >= sizeof(c->ca) || memchr(instance, '/', calen))
		return -EINVAL;
	/* The port in one spelling only (1..254, decimal, no leading zero):
	 * the name is the socket's and state file's, so "mlx5_0:01" or
	 * "mlx5_0:0x1" would be a second atsd on port 1. */
	for (p = colon + 1; *p >= '0' && *p <= '9'; p++)
		;
	if (*p || colon[1] == '0' || cfg_parse_u64(colon + 1, 254, &port) || !port)
		return -EINVAL;
	/* A name too long for a socket path must not be cut to another's. */
	n = snprintf(sock, sizeof(sock), "/run/ibats/atsd@%s.sock", instance);
	m = snprintf(state, sizeof(state), "/var/lib/ibats/atsd@%s.state", instance);
	if (n < 0 || (size_t)n >= sizeof(sock) || m < 0 || (size_t)m >= sizeof(state))
		return -EINVAL;
	memcpy(c->socket, sock, sizeof(sock));
	memcpy(c->state_file, state, sizeof(state));
	memcpy(c->ca, instance, calen);
	c->ca[calen] = '\0';
	c->port = (uint32_t)port;
	return 0;
}

/* metrics_file is replaced every 10 s (by rename): over the state file
 * atsd would lose the list of its records, over the socket every
 * client, over the config its settings. Names are compared as written.
 * What it would replace, or NULL. */
static const char *metrics_clash(const struct agent_conf *c, const char *path)
{
	if (!c->metrics_file[0])
		return NULL;
	if (!strcmp(c->metrics_file, c->state_file))
		return "the state_file";
	if (!strcmp(c->metrics_file, c->socket))
		return "the socket";
	if (path && !strcmp(c->metrics_file, path))
		return "this configuration file";
	return NULL;
}

int agent_conf_instance_check(const struct agent_conf *c, const char *instance,
			      const char *path, char *err, size_t errlen)
{
	struct agent_conf inst;

	if (agent_conf_instance(&inst, instance)) {
		snprintf(err, errlen, "--instance %s: not CA:PORT", instance);
		return -EINVAL;
	}
	if (strcmp(c->ca, inst.ca) || c->port != inst.port) {
		snprintf(err, errlen, "%s: ca %s port %u is not this instance's port (--instance %s)",
			 path, c->ca, c->port, instance);
		return -EINVAL;
	}
	return 0;
}

int agent_conf_load(const char *path, struct agent_conf *c, char *err,
		    size_t errlen)
{
	return agent_conf_check(path, c, err, errlen, NULL, 0);
}

int agent_conf_check(const char *path, struct agent_conf *c, char *err, size_t errlen,
		     char *warn, size_t warnlen)
{
	size_t i, j;
	const char *what;
	int ret = cfg_load_warn(path, N_KEYS + N_REMOVED, key_name, key_set, c, err, errlen,
				warn, warnlen);

	if (ret)
		return ret;
	for (i = 0; i < c->nifs; i++)
		for (j = 0; j < i; j++)
			if (!strcmp(c->ifs[i].name, c->ifs[j].name) &&
			    !strcmp(c->ifs[i].netns, c->ifs[j].netns)) {
				snprintf(err, errlen, "%s: interface %s listed twice", path,
					 c->ifs[i].name);
				return -EINVAL;
			}
	what = metrics_clash(c, path);
	if (what) {
		snprintf(err, errlen, "%s: metrics_file: '%s' is %s", path, c->metrics_file, what);
		return -EINVAL;
	}
	return 0;
}

/* Restart-only keys: a SIGHUP cannot apply them. The comparison is by
 * value: AC_STR bytes after the NUL may differ. */
static int key_differs(const struct ac_key *k, const struct agent_conf *a,
		       const struct agent_conf *b)
{
	const char *x = (const char *)a + k->off, *y = (const char *)b + k->off;

	if (k->type == AC_STR || k->type == AC_GROUP)
		return strcmp(x, y) != 0;
	return memcmp(x, y, k->size) != 0;
}

const char *agent_conf_restart_key(const struct agent_conf *a,
				   const struct agent_conf *b)
{
	size_t i;

	for (i = 0; i < N_KEYS; i++)
		if (ac_keys[i].restart && key_differs(&ac_keys[i], a, b))
			return ac_keys[i].name;
	return NULL;
}

int agent_conf_keep_restart(struct agent_conf *next, const struct agent_conf *cur)
{
	size_t i;

	for (i = 0; i < N_KEYS; i++)
		if (ac_keys[i].restart)
			memcpy((char *)next + ac_keys[i].off, (const char *)cur + ac_keys[i].off,
			       ac_keys[i].size);
	/* The new file's own names were checked by agent_conf_load; these
	 * are the ones kept in force. */
	if (metrics_clash(next, NULL)) {
		memcpy(next->metrics_file, cur->metrics_file, sizeof(next->metrics_file));
		return -EINVAL;
	}
	return 0;
}
