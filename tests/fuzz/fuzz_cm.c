/* Every CM message decoder, Annex A11 private data, the listener's
 * passive decision and the IPoIB address formats. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "a11.h"
#include "cm.h"
#include "rcm.h"
#include "ipoib.h"
#include "mcm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	union {
		struct cm_req req;
		struct cm_mra mra;
		struct cm_rej rej;
		struct cm_rep rep;
		struct cm_rtu rtu;
		struct cm_dreq dreq;
		struct cm_drep drep;
	} m;
	struct a11_pdata pd;
	struct rcm_conf conf;
	struct ipoib_hwaddr hw;
	struct ipoib_draft_hwaddr dhw;
	struct mcm_record mcm;
	uint8_t out[CM_DATA_SIZE];
	char why[160];
	uint16_t ps, port;

	if (!cm_req_decode(data, size, &m.req)) {
		cm_req_encode(out, &m.req);
		if (a11_service_parse(m.req.service_id, &ps, &port) &&
		    !a11_pdata_decode(m.req.private_data, sizeof(m.req.private_data), &pd)) {
			memset(&conf, 0, sizeof(conf));
			conf.policy = (enum rcm_policy)(size % 3);
			rcm_judge(&conf, &pd.src, size & 8 ? &pd.dst : NULL, why, sizeof(why));
		}
	}
	cm_mra_decode(data, size, &m.mra);
	cm_rej_decode(data, size, &m.rej);
	cm_rep_decode(data, size, &m.rep);
	cm_rtu_decode(data, size, &m.rtu);
	cm_dreq_decode(data, size, &m.dreq);
	cm_drep_decode(data, size, &m.drep);
	a11_pdata_decode(data, size, &pd);
	ipoib_hwaddr_decode(data, size, &hw);
	ipoib_draft_hwaddr_decode(data, size, &dhw);
	mcm_decode(data, size, &mcm);
	return 0;
}
