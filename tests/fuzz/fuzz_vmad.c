/* Liveness, ibping and SMP-refusal answers to any MAD, and reply parsing. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "smp.h"
#include "vmad.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct vmad_identity id = { 1, 2, "host", 1, 1 };
	struct liv_reply r;
	struct smp_portinfo pi;
	uint8_t *resp = malloc(size > MAD_SIZE ? size : MAD_SIZE);
	size_t n;

	if (!resp)
		return 0;
	n = vmad_answer(data, size, &id, 0, resp, size > MAD_SIZE ? size : MAD_SIZE);
	if (n && n < MAD_SIZE)
		__builtin_trap(); /* answers are whole MADs */
	n = vmad_answer(data, size, &id, 0, resp, MAD_SIZE);
	liv_parse(data, size, &r);
	n = smp_refuse(data, size, resp, size > MAD_SIZE ? size : MAD_SIZE);
	if (n && (n != MAD_SIZE || !(resp[MAD_OFF_METHOD] & MAD_METHOD_RESP_BIT)))
		__builtin_trap(); /* a refusal is one whole GetResp */
	if (smp_portinfo_parse(data, size, &pi) == 0 && (pi.state > 15 || pi.lmc > 7))
		__builtin_trap();
	free(resp);
	return 0;
}
