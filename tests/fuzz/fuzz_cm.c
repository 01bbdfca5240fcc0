/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Connecting by IP: Annex A11 service IDs and private data, the
 * listener's passive decision on what they claim, and the IPoIB address
 * formats. The CM messages are the kernel's: the simulated one's codec
 * is fuzz_cmwire's. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/a11.h"
#include "sa/rcm_peer.h"
#include "core/ipoib.h"
#include "core/mcm.h"
#include "core/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct a11_pdata pd;
	struct rcm_conf conf;
	struct ipoib_hwaddr hw;
	struct ipoib_draft_hwaddr dhw;
	struct mcm_record mcm;
	char why[160];
	uint16_t ps, port;

	if (size >= 8)
		a11_service_parse(wire_get64(data), &ps, &port);
	if (!a11_pdata_decode(data, size, &pd)) {
		memset(&conf, 0, sizeof(conf));
		conf.policy = (enum rcm_conf_policy)(size % 3);
		rcm_peer_judge(&conf, &pd.src, size & 8 ? &pd.dst : NULL, why, sizeof(why));
	}
	ipoib_hwaddr_decode(data, size, &hw);
	ipoib_draft_hwaddr_decode(data, size, &dhw);
	mcm_decode(data, size, &mcm);
	return 0;
}
