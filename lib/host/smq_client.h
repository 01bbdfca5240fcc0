/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Asking the plugin on an SM (lib/core/smq.h) from a host: this port's
 * last refusals, and the plugin's view (`atsctl sm`). Each page is one
 * Get/GetResp to the SM's LID on QP1, as ibping and liveness go. */
#ifndef IBATS_SMQ_CLIENT_H
#define IBATS_SMQ_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "core/mport.h"
#include "core/smq.h"

struct smq_client {
	struct mport *port;
	int agent;
	uint16_t lid;           /* the SM asked */
	unsigned timeout_ms;    /* per attempt */
	unsigned retries;
};

/* Register the class's agent on port (once per port): -errno. */
int smq_client_init(struct smq_client *c, struct mport *port, uint16_t sm_lid,
		    unsigned timeout_ms, unsigned retries);

/* This port's refusals as the SM keeps them, newest first, into
 * out[0..max). -EBUSY: the SM's rate limit; -EPROTONOSUPPORT: the SM
 * does not serve the class (no plugin, or an older one); -ETIMEDOUT. */
int smq_client_refusals(struct smq_client *c, struct smq_refusal *out, size_t max,
			size_t *n);

/* The plugin's view; key the site sa_key (0: none). Errors as above. */
int smq_client_info(struct smq_client *c, uint64_t key, struct smq_info *out);

/* On a master, its standbys (trusted requesters: key as above; others
 * get out->flags 0 and none). Errors as above; -EPROTONOSUPPORT also
 * from a plugin older than the attribute. */
int smq_client_standbys(struct smq_client *c, uint64_t key, struct smq_standbys *out);

/* The newest of v[0..n) that refused a Set or Delete of address data8
 * in pkey's partition for gid, or NULL. */
const struct smq_refusal *smq_client_match(const struct smq_refusal *v, size_t n,
					   uint8_t method, const uint8_t *gid, uint16_t pkey,
					   const uint8_t *data8);

#endif
