/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg.h"
#include "osmats_conf.h"

enum conf_type {
	CT_BOOL,
	CT_U32,
	CT_DUP_MODE,
	CT_GUIDS,
	CT_PATH,
	CT_FILE,  /* an absolute path, no "none" */
};

static const struct conf_key {
	const char *name;
	enum conf_type type;
	size_t off, size;  /* the value's bytes in struct osmats_conf */
	uint32_t min, max; /* CT_U32 */
	int reloadable;    /* else a change waits for OpenSM's restart */
} conf_keys[] = {
#define F(m) offsetof(struct osmats_conf, m), sizeof(((struct osmats_conf *)0)->m)
#define RULE(n, r) { n, CT_BOOL, F(pol.enabled[r]), 0, 0, 1 }
	RULE("enforce_sid_block", RULE_SID_BLOCK),
	RULE("enforce_service_name", RULE_NAME),
	RULE("enforce_address", RULE_ADDR),
	RULE("enforce_service_key", RULE_KEY),
	RULE("enforce_ownership", RULE_OWNER),
	RULE("enforce_primary_first", RULE_PRIMARY_FIRST),
	RULE("enforce_port_duplicate", RULE_PORT_DUP),
	RULE("enforce_lease", RULE_LEASE),
	RULE("enforce_partition", RULE_PKEY),
#undef RULE
	{ "duplicate_address", CT_DUP_MODE, F(pol.dup_mode), 0, 0, 1 },
	{ "lease_min", CT_U32, F(pol.lease_min), 0, UINT32_MAX, 1 },
	{ "lease_max", CT_U32, F(pol.lease_max), 1, UINT32_MAX, 1 },
	{ "lease_clamp", CT_BOOL, F(pol.lease_clamp), 0, 0, 1 },
	{ "max_records_per_port", CT_U32, F(pol.max_records_per_port), 0, UINT32_MAX, 1 },
	{ "trusted_guids", CT_GUIDS, F(trusted), 0, 0, 1 },
	{ "flush_departed", CT_BOOL, F(flush_departed), 0, 0, 1 },
	{ "flush_grace_sweeps", CT_U32, F(flush_grace_sweeps), 0, 1000, 1 },
	{ "state_file", CT_PATH, F(state_file), 0, 0, 0 },
	{ "liveness", CT_BOOL, F(liveness), 0, 0, 0 },
	{ "indexed_queries", CT_BOOL, F(indexed_queries), 0, 0, 1 },
	/* The change log is allocated, and the class registered, at start. */
	{ "replication", CT_BOOL, F(replication), 0, 0, 0 },
	{ "replication_ack_timeout", CT_U32, F(replication_ack_timeout), 0, 600000, 1 },
	{ "replication_log", CT_U32, F(replication_log), 64, 1048576, 0 },
	/* Read once, at start: the key is the replauth module's. */
	{ "replication_key_file", CT_FILE, F(replication_key_file), 0, 0, 0 },
#undef F
};

#define N_KEYS (sizeof(conf_keys) / sizeof(conf_keys[0]))

static const char *const dup_modes[] = { "reject", "warn", "allow" };

void osmats_conf_default(struct osmats_conf *c)
{
	memset(c, 0, sizeof(*c));
	rule_config_default(&c->pol);
	c->flush_departed = 1;
	c->liveness = 1;
	c->indexed_queries = 1;
	c->replication = 1;
	c->replication_log = 65536;
}

static int set_value(const struct conf_key *k, struct osmats_conf *c,
		     char *v, char *err, size_t errlen)
{
	char *field = (char *)c + k->off;
	uint64_t x;
	int choice;

	switch (k->type) {
	case CT_BOOL:
		return cfg_set_bool(k->name, v, (int *)field, err, errlen);
	case CT_U32:
		return cfg_set_u32(k->name, v, k->min, k->max, (uint32_t *)field, err, errlen);
	case CT_DUP_MODE:
		if (cfg_set_choice(k->name, v, dup_modes, 3, &choice, err, errlen))
			return -EINVAL;
		*(enum rule_dup_mode *)field = (enum rule_dup_mode)choice;
		return 0;
	case CT_GUIDS: {
		char *save = NULL, *tok;

		c->ntrusted = 0;
		for (tok = strtok_r(v, ", \t", &save); tok;
		     tok = strtok_r(NULL, ", \t", &save)) {
			if (cfg_parse_u64(tok, UINT64_MAX, &x) || !x) {
				snprintf(err, errlen, "%s: '%s' is not a port GUID", k->name, tok);
				return -EINVAL;
			}
			if (c->ntrusted == OSMATS_CONF_MAX_TRUSTED) {
				snprintf(err, errlen, "%s: more than %d GUIDs", k->name,
					 OSMATS_CONF_MAX_TRUSTED);
				return -EINVAL;
			}
			c->trusted[c->ntrusted++] = x;
		}
		return 0;
	}
	case CT_PATH:
		if (strlen(v) >= OSMATS_CONF_PATH_MAX || (v[0] != '/' && strcmp(v, "none"))) {
			snprintf(err, errlen, "%s: '%s' is not an absolute path or none",
				 k->name, v);
			return -EINVAL;
		}
		/* The metrics file, beside it, would replace it. */
		if (!strncmp(strrchr(v, '/') ? strrchr(v, '/') + 1 : v, OSMATS_CONF_METRICS_NAME,
			     strlen(OSMATS_CONF_METRICS_NAME))) {
			snprintf(err, errlen, "%s: '%s' is the name of the metrics file",
				 k->name, v);
			return -EINVAL;
		}
		snprintf(field, OSMATS_CONF_PATH_MAX, "%s", v);
		return 0;
	case CT_FILE:
		if (strlen(v) >= OSMATS_CONF_PATH_MAX || v[0] != '/') {
			snprintf(err, errlen, "%s: '%s' is not an absolute path", k->name, v);
			return -EINVAL;
		}
		snprintf(field, OSMATS_CONF_PATH_MAX, "%s", v);
		return 0;
	}
	return -EINVAL;
}

static const char *key_name(size_t i, int *repeat)
{
	*repeat = 0;
	return conf_keys[i].name;
}

static int key_set(void *ctx, size_t i, char *val, char *msg, size_t len)
{
	return set_value(&conf_keys[i], ctx, val, msg, len);
}

int osmats_conf_load(const char *path, struct osmats_conf *c, char *err, size_t errlen)
{
	int ret = cfg_load(path, N_KEYS, key_name, key_set, c, err, errlen);

	if (ret)
		return ret;
	if (c->pol.lease_min > c->pol.lease_max) {
		snprintf(err, errlen, "%s: lease_min %" PRIu32 " is above lease_max %" PRIu32,
			 path, c->pol.lease_min, c->pol.lease_max);
		return -EINVAL;
	}
	return 0;
}

int osmats_conf_restart_needed(const struct osmats_conf *a,
			const struct osmats_conf *b, const char **key)
{
	size_t i;

	for (i = 0; i < N_KEYS; i++) {
		const struct conf_key *k = &conf_keys[i];

		if (k->reloadable)
			continue;
		if (k->type == CT_PATH || k->type == CT_FILE ?
		    strcmp((const char *)a + k->off, (const char *)b + k->off) :
		    memcmp((const char *)a + k->off, (const char *)b + k->off, k->size)) {
			*key = k->name;
			return 1;
		}
	}
	return 0;
}

void osmats_conf_keep_restart_keys(struct osmats_conf *to, const struct osmats_conf *from)
{
	size_t i;

	for (i = 0; i < N_KEYS; i++)
		if (!conf_keys[i].reloadable)
			memcpy((char *)to + conf_keys[i].off,
			       (const char *)from + conf_keys[i].off, conf_keys[i].size);
}

int osmats_conf_is_trusted(const struct osmats_conf *c, uint64_t guid)
{
	size_t i;

	for (i = 0; i < c->ntrusted; i++)
		if (c->trusted[i] == guid)
			return 1;
	return 0;
}

const char *osmats_conf_path_from_options(const char *options, char *buf, size_t len)
{
	static const char opt[] = "osmats_config=";
	const char *p = options;

	snprintf(buf, len, "%s", OSMATS_CONF_DEFAULT_PATH);
	/* The option string is shared by every plugin: look for ours only. */
	while (p && *p) {
		size_t n;

		p += strspn(p, " \t");
		n = strcspn(p, " \t");
		if (n > sizeof(opt) - 1 && !strncmp(p, opt, sizeof(opt) - 1)) {
			snprintf(buf, len, "%.*s", (int)(n - (sizeof(opt) - 1)),
				 p + sizeof(opt) - 1);
			break;
		}
		p += n;
	}
	return buf;
}

void osmats_conf_describe(const struct osmats_conf *c, char *buf, size_t len)
{
	size_t i, j, used = 0;

	buf[0] = '\0';
	for (i = 0; i < N_KEYS && used < len; i++) {
		const struct conf_key *k = &conf_keys[i];
		const char *field = (const char *)c + k->off;
		int n = 0;

		switch (k->type) {
		case CT_BOOL:
			n = snprintf(buf + used, len - used, "%s=%s ", k->name,
				     *(const int *)field ? "yes" : "no");
			break;
		case CT_U32:
			n = snprintf(buf + used, len - used, "%s=%" PRIu32 " ", k->name,
				     *(const uint32_t *)field);
			break;
		case CT_DUP_MODE:
			n = snprintf(buf + used, len - used, "%s=%s ", k->name,
				     dup_modes[*(const enum rule_dup_mode *)field]);
			break;
		case CT_GUIDS:
			n = snprintf(buf + used, len - used, "%s=", k->name);
			for (j = 0; j < c->ntrusted && used + (size_t)n < len; j++)
				n += snprintf(buf + used + n, len - used - n,
					      "%s0x%016" PRIx64, j ? "," : "", c->trusted[j]);
			if (used + (size_t)n < len)
				n += snprintf(buf + used + n, len - used - n, " ");
			break;
		case CT_PATH:
			n = snprintf(buf + used, len - used, "%s=%s ", k->name,
				     *field ? field : "(default)");
			break;
		case CT_FILE:
			n = snprintf(buf + used, len - used, "%s=%s ", k->name,
				     *field ? field : "(none)");
			break;
		}
		if (n < 0)
			break;
		used += (size_t)n;
	}
	if (used && used < len && buf[used - 1] == ' ')
		buf[used - 1] = '\0';
}
