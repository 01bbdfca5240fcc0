#include <errno.h>
#include <string.h>

#include "smp.h"
#include "wire.h"

_Static_assert((int)SMP_OFF_DATA + SMP_DATA_SIZE == (int)SMP_OFF_INITIAL_PATH,
	       "directed-route paths follow the 64-byte SMP data");
_Static_assert((int)SMP_OFF_RETURN_PATH + 64 == (int)MAD_SIZE, "an SMP is one 256-byte MAD");
_Static_assert((int)PI_OFF_SM_SL < (int)SMP_DATA_SIZE, "PortInfo fields fit the SMP data");

size_t smp_refuse(const uint8_t *req, size_t len, uint8_t *resp, size_t cap)
{
	uint8_t cls, method;
	uint16_t status = SMP_STATUS_UNSUPPORTED;

	if (len < MAD_SIZE || cap < MAD_SIZE || req[MAD_OFF_BASE_VERSION] != MAD_BASE_VERSION)
		return 0;
	cls = req[MAD_OFF_MGMT_CLASS];
	method = req[MAD_OFF_METHOD];
	if (cls != SMP_CLASS_LID && cls != SMP_CLASS_DR)
		return 0;
	if (method != MAD_METHOD_GET && method != MAD_METHOD_SET)
		return 0;
	if (cls == SMP_CLASS_DR) {
		/* A packet already on its way back was not sent to us. */
		if (wire_get16(req + SMP_OFF_STATUS) & SMP_DIRECTION)
			return 0;
		status |= SMP_DIRECTION;
	}
	memcpy(resp, req, MAD_SIZE);
	resp[MAD_OFF_METHOD] = MAD_METHOD_RESP_BIT | MAD_METHOD_GET;
	wire_put16(resp + SMP_OFF_STATUS, status);
	memset(resp + SMP_OFF_DATA, 0, SMP_DATA_SIZE);
	return MAD_SIZE;
}

void smp_portinfo_request(uint8_t *mad, int portnum)
{
	memset(mad, 0, MAD_SIZE);
	mad[MAD_OFF_BASE_VERSION] = MAD_BASE_VERSION;
	mad[MAD_OFF_MGMT_CLASS] = SMP_CLASS_DR;
	mad[MAD_OFF_CLASS_VERSION] = 1;
	mad[MAD_OFF_METHOD] = MAD_METHOD_GET;
	wire_put16(mad + MAD_OFF_ATTR_ID, SMP_ATTR_PORTINFO);
	wire_put32(mad + MAD_OFF_ATTR_MOD, (uint32_t)portnum);
	/* Hop count 0: the port's own SMA; both DR LIDs permissive. */
	wire_put16(mad + SMP_OFF_DR_SLID, SMP_PERMISSIVE_LID);
	wire_put16(mad + SMP_OFF_DR_DLID, SMP_PERMISSIVE_LID);
}

int smp_portinfo_parse(const uint8_t *mad, size_t len, struct smp_portinfo *pi)
{
	const uint8_t *d = mad + SMP_OFF_DATA;

	memset(pi, 0, sizeof(*pi));
	if (len < MAD_SIZE)
		return -EMSGSIZE;
	if (mad[MAD_OFF_BASE_VERSION] != MAD_BASE_VERSION ||
	    mad[MAD_OFF_MGMT_CLASS] != SMP_CLASS_DR ||
	    mad[MAD_OFF_METHOD] != (MAD_METHOD_RESP_BIT | MAD_METHOD_GET) ||
	    wire_get16(mad + MAD_OFF_ATTR_ID) != SMP_ATTR_PORTINFO)
		return -EPROTO;
	if (wire_get16(mad + SMP_OFF_STATUS) & ~SMP_DIRECTION)
		return -EREMOTEIO;
	pi->lid = wire_get16(d + PI_OFF_LID);
	pi->sm_lid = wire_get16(d + PI_OFF_SM_LID);
	pi->state = d[PI_OFF_STATE] & 0x0f;
	pi->lmc = d[PI_OFF_LMC] & 0x07;
	pi->sm_sl = d[PI_OFF_SM_SL] & 0x0f;
	return 0;
}
