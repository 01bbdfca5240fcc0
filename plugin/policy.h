/* ATS rules the SM enforces on ServiceRecord Set. Pure functions on the
 * request bytes, so they are unit-tested without OpenSM. */
#ifndef IBATS_POLICY_H
#define IBATS_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "ats.h"
#include "sr.h"

/* Numbered rules; the number is in every log line about the rule. */
enum pol_rule {
	POL_PASS = 0,      /* not an ATS record, or a valid one */
	POL_SID_BLOCK = 1, /* ATS name outside the SID block */
	POL_NAME = 2,      /* SID in the block, other or unpadded name */
	POL_ADDR = 3,      /* ServiceData8 is no unicast IPv4/IPv6 */
	POL_NRULES,
};

struct pol_decision {
	enum pol_rule rule;
	const char *why;     /* detail for the log */
	int is_ats;          /* request is about an ATS record */
	struct sr_record rec;
};

/* Decide about a ServiceRecord Set whose MAD is mad[0..len). A MAD too
 * short to hold a record passes: OpenSM answers it itself. */
void pol_check_set(const uint8_t *mad, size_t len, struct pol_decision *d);

/* Stable names and OpenSM log codes of the rules. */
const char *pol_rule_name(enum pol_rule r);
const char *pol_rule_code(enum pol_rule r);

#endif
