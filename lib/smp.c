#include <string.h>

#include "smp.h"
#include "wire.h"

_Static_assert((int)SMP_OFF_DATA + SMP_DATA_SIZE == (int)SMP_OFF_INITIAL_PATH,
	       "directed-route paths follow the 64-byte SMP data");
_Static_assert((int)SMP_OFF_RETURN_PATH + 64 == (int)MAD_SIZE, "an SMP is one 256-byte MAD");

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
