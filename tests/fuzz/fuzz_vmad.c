/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Liveness and ibping answers to any MAD, and reply parsing. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/vmad.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct vmad_identity id = { 1, 2, "host", 1, 1 };
	struct vmad_liv_reply r;
	uint8_t *resp = malloc(size > MAD_SIZE ? size : MAD_SIZE);
	size_t n;

	if (!resp)
		return 0;
	n = vmad_answer(data, size, &id, 0, resp, size > MAD_SIZE ? size : MAD_SIZE);
	if (n && n < MAD_SIZE)
		__builtin_trap(); /* answers are whole MADs */
	if (vmad_answer(data, size, &id, 0, resp, MAD_SIZE) > MAD_SIZE)
		__builtin_trap(); /* never past the buffer it was given */
	vmad_liv_parse(data, size, &r);
	free(resp);
	return 0;
}
