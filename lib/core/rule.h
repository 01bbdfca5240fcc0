/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The ATS rules the SM enforces on ServiceRecord Set and Delete, by
 * number, name and log code, and what osmats.conf sets about them. The
 * plugin decides with them (plugin/policy.c); the state file names its
 * counters after them (state_file.c), and atsctl reads both, so the
 * table lives here, below both. */
#ifndef IBATS_RULE_H
#define IBATS_RULE_H

#include <stdint.h>

/* Numbered rules: the number is in every log line (WRN 7A0n) and names the
 * rule's counter and config switch. */
enum rule {
	RULE_PASS = 0,
	RULE_SID_BLOCK,       /* ATS name outside the SID block */
	RULE_NAME,            /* SID in the block, other or unpadded name */
	RULE_ADDR,            /* ServiceData8 is no unicast IPv4/IPv6 */
	RULE_KEY,             /* ServiceKey not zero */
	RULE_OWNER,           /* requester does not own the ServiceGID */
	RULE_PRIMARY_FIRST,   /* secondary without primary, primary removed first */
	RULE_PORT_DUP,        /* same address twice on one (GID, PKey) */
	RULE_DUP_ADDR,        /* another system's primary address */
	RULE_LEASE,           /* lease outside lease_min..lease_max */
	RULE_PKEY,            /* invalid P_Key, or a partition a port lacks */
	RULE_CAP,             /* the ServiceGID's port holds too many records */
	RULE_COUNT,
};

enum rule_dup_mode {
	RULE_DUP_REJECT = 0,
	RULE_DUP_WARN,
	RULE_DUP_ALLOW,
};

/* ServiceRecords one port may hold (IBTA leaves it to the SA: status
 * ERR_NO_RESOURCES, Vol 1 Table 193). */
#define RULE_MAX_RECORDS_DEFAULT 4096u

struct rule_config {
	int enabled[RULE_COUNT]; /* per-rule switch; [RULE_PASS] unused */
	enum rule_dup_mode dup_mode;
	uint32_t lease_min;
	uint32_t lease_max;
	int lease_clamp;
	uint32_t max_records_per_port; /* RULE_CAP; 0 = no cap */
};

/* Every rule on, duplicates rejected, any lease, RULE_MAX_RECORDS_DEFAULT. */
void rule_config_default(struct rule_config *c);

/* "sid-block", ...; "?" for a number that is no rule. */
const char *rule_name(enum rule r);
/* "7A01", ...; "7AFF" for a number that is no rule. */
const char *rule_code(enum rule r);

#endif
