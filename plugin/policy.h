/* ATS rules the SM enforces on ServiceRecord Set and Delete. Pure
 * functions: the OpenSM glue gathers the requester's facts and the ATS
 * records already held, so every decision is unit-tested without OpenSM. */
#ifndef IBATS_POLICY_H
#define IBATS_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "ats.h"
#include "sr.h"

/* Numbered rules: the number is in every log line (ERR 7A0n) and names the
 * rule's counter and config switch. */
enum pol_rule {
	POL_PASS = 0,
	POL_SID_BLOCK,       /* ATS name outside the SID block */
	POL_NAME,            /* SID in the block, other or unpadded name */
	POL_ADDR,            /* ServiceData8 is no unicast IPv4/IPv6 */
	POL_KEY,             /* ServiceKey not zero */
	POL_OWNER,           /* requester does not own the ServiceGID */
	POL_PRIMARY_FIRST,   /* secondary without primary, primary removed first */
	POL_PORT_DUP,        /* same address twice on one (GID, PKey) */
	POL_DUP_ADDR,        /* another system's primary address */
	POL_LEASE,           /* lease outside lease_min..lease_max */
	POL_NRULES,
};

enum pol_dup_mode {
	POL_DUP_REJECT = 0,
	POL_DUP_WARN,
	POL_DUP_ALLOW,
};

struct pol_config {
	int enabled[POL_NRULES]; /* per-rule switch; [POL_PASS] unused */
	enum pol_dup_mode dup_mode;
	uint32_t lease_min;
	uint32_t lease_max;
	int lease_clamp;
};

/* An ATS record the SA already holds, with the system image GUID of the
 * port its GID belongs to (0 when the port is not on the fabric). */
struct pol_peer {
	struct sr_record rec;
	uint64_t sys_guid;
};

struct pol_request {
	uint8_t method;       /* SA_METHOD_SET or SA_METHOD_DELETE */
	uint64_t comp_mask;
	uint64_t sm_key;
	struct sr_record rec; /* as received */
	int trusted;          /* SA key or a trusted GUID: skips ownership */
	int owns_gid;         /* requester's port owns the ServiceGID */
	uint64_t sys_guid;    /* system image GUID of the ServiceGID's port */
};

struct pol_decision {
	enum pol_rule rule;  /* POL_PASS: hand the request to OpenSM */
	int is_ats;          /* the request concerns an ATS record */
	int warn;            /* accepted, but rule `warn_rule` asks for a WRN */
	enum pol_rule warn_rule;
	int clamp;           /* accepted with the lease set to `lease` */
	uint32_t lease;
	char why[192];
};

void pol_config_default(struct pol_config *c);

/* Decode a ServiceRecord Set/Delete MAD into req (facts about the
 * requester left zero). -EMSGSIZE when it cannot hold a record. */
int pol_request_decode(const uint8_t *mad, size_t len, struct pol_request *req);

/* Whether a held record is relevant to req: same PKey and same GID or
 * same address; the glue passes only those. */
int pol_peer_relevant(const struct pol_request *req, const struct sr_record *r);

void pol_decide(const struct pol_config *c, const struct pol_request *req,
		const struct pol_peer *peers, size_t npeers,
		struct pol_decision *d);

const char *pol_rule_name(enum pol_rule r);
const char *pol_rule_code(enum pol_rule r);
/* Lease in effect for a Set: OpenSM makes it infinite without the mask bit. */
uint32_t pol_effective_lease(const struct pol_request *req);

#endif
