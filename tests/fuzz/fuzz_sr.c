/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* ServiceRecord, SA header and the plugin's decision on any Set/Delete. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/ats.h"
#include "core/nr.h"
#include "plugin/policy.h"
#include "core/sa.h"
#include "core/sa_client.h"
#include "core/sr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct policy_request req;
	struct policy_decision d;
	struct rule_config c;
	struct policy_peer peer;
	struct sa_table_shape shape;
	struct sa_hdr h;
	struct sr_record r;
	const char *why;
	uint8_t enc[SR_SIZE];

	/* A GetTable answer: its shape, then its records against a query
	 * (the input's first record, or zeros) under the SA header's mask. */
	if (!sa_hdr_decode(data, size, &h) &&
	    !sa_table_shape(&h, size - SA_OFF_DATA, SR_SIZE, &shape)) {
		struct sr_record *recs;

		memset(enc, 0, sizeof(enc));
		if (size >= SA_OFF_DATA + SR_SIZE)
			memcpy(enc, data + SA_OFF_DATA, SR_SIZE);
		if (!sr_table_decode(data + SA_OFF_DATA, shape.nrec, shape.rec_size, enc,
				     h.comp_mask, &recs))
			free(recs);
	}
	/* ... or a PathRecord table (sa_client_path), for the GID of its first. */
	if (size >= SA_OFF_DATA + 24) {
		struct sa_client_path_info pi;

		sa_client_path_decode(data + SA_OFF_DATA, size - SA_OFF_DATA, data + SA_OFF_DATA + 8, &pi);
	}
	/* ... or a NodeRecord table (sa_client_ports). */
	if (!sa_hdr_decode(data, size, &h) &&
	    !sa_table_shape(&h, size - SA_OFF_DATA, NR_SIZE, &shape)) {
		struct sa_client_ca_port *ports;
		size_t n;

		if (!sa_client_ports_decode(data, data + SA_OFF_DATA, shape.nrec, shape.rec_size,
				     &ports, &n))
			free(ports);
	}
	if (size >= NR_SIZE) {
		uint8_t nenc[NR_SIZE], want[NR_SIZE];
		struct nr_record nr;

		nr_decode(data, size, &nr);
		nr_encode(nenc, &nr);
		memcpy(want, data, NR_SIZE);
		memset(want + NR_OFF_LID + 2, 0, 2); /* reserved: encoded as 0 */
		if (memcmp(nenc, want, NR_SIZE))
			__builtin_trap(); /* decode/encode must round-trip */
	}
	if (!sr_decode(data, size, &r)) {
		ats_record_check(&r, &why);
		sr_encode(enc, &r);
		if (memcmp(enc, data, SR_SIZE))
			__builtin_trap(); /* decode/encode must round-trip */
		sr_match(data, enc, ~0ull);
	}
	rule_config_default(&c);
	if (!policy_request_decode(data, size, &req)) {
		req.owns_gid = size & 1;
		req.trusted = size & 2;
		peer.rec = req.rec;
		peer.rec.id = ATS_SID_PRIMARY;
		peer.sys_guid = 1;
		policy_decide(&c, &req, &peer, 1, &d);
		c.lease_clamp = 1;
		c.lease_max = 60;
		policy_decide(&c, &req, NULL, 0, &d);
	}
	return 0;
}
