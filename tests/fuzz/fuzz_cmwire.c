/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Every decoder of the simulated kernel's CM message codec
 * (simhost/wire/cmwire.h), and a decoded REQ encoded back. */
#include <stddef.h>
#include <stdint.h>

#include "simhost/wire/cmwire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	union {
		struct cmwire_req req;
		struct cmwire_mra mra;
		struct cmwire_rej rej;
		struct cmwire_rep rep;
		struct cmwire_rtu rtu;
		struct cmwire_dreq dreq;
		struct cmwire_drep drep;
	} m;
	uint8_t out[CMWIRE_DATA_SIZE];

	if (!cmwire_req_decode(data, size, &m.req))
		cmwire_req_encode(out, &m.req);
	cmwire_mra_decode(data, size, &m.mra);
	cmwire_rej_decode(data, size, &m.rej);
	cmwire_rep_decode(data, size, &m.rep);
	cmwire_rtu_decode(data, size, &m.rtu);
	cmwire_dreq_decode(data, size, &m.dreq);
	cmwire_drep_decode(data, size, &m.drep);
	return 0;
}
