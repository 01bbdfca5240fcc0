/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <string.h>

#include "rule.h"
#include "sr.h"

static const struct {
	const char *name;
	const char *code;
} rule_table[RULE_COUNT] = {
	[RULE_PASS] = { "pass", "" },
	[RULE_SID_BLOCK] = { "sid-block", "7A01" },
	[RULE_NAME] = { "service-name", "7A02" },
	[RULE_ADDR] = { "address", "7A03" },
	[RULE_KEY] = { "service-key", "7A04" },
	[RULE_OWNER] = { "ownership", "7A05" },
	[RULE_PRIMARY_FIRST] = { "primary-first", "7A06" },
	[RULE_PORT_DUP] = { "port-duplicate", "7A07" },
	[RULE_DUP_ADDR] = { "duplicate-address", "7A08" },
	[RULE_LEASE] = { "lease", "7A09" },
	[RULE_PKEY] = { "partition", "7A0A" },
	[RULE_CAP] = { "record-cap", "7A0B" },
};

const char *rule_name(enum rule r)
{
	return r < RULE_COUNT ? rule_table[r].name : "?";
}

const char *rule_code(enum rule r)
{
	return r < RULE_COUNT ? rule_table[r].code : "7AFF";
}

void rule_config_default(struct rule_config *c)
{
	unsigned r;

	memset(c, 0, sizeof(*c));
	for (r = 1; r < RULE_COUNT; r++)
		c->enabled[r] = 1;
	c->dup_mode = RULE_DUP_REJECT;
	c->lease_min = 0;
	c->lease_max = SR_LEASE_INFINITE;
	c->max_records_per_port = RULE_MAX_RECORDS_DEFAULT;
}
