/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The SM query MADs (lib/core/smq.h) from any bytes: requests as the
 * plugin decodes them, answers as a host decodes them, every page. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/smq.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct smq_refusal r[SMQ_REFUSALS_PER_MAD];
	static struct smq_info info;
	static struct smq_standbys sb;
	char buf[320];
	unsigned total, pages;
	uint32_t page, gen;
	uint64_t key;
	uint16_t attr, st;
	size_t n, i;

	smq_request_decode(data, size, &attr, &page, &key);
	if (!smq_refusals_get(data, size, &st, &total, &gen, r, &n))
		for (i = 0; i < n; i++)
			if (strlen(smq_refusal_str(&r[i], buf, sizeof(buf))) >= sizeof(buf))
				__builtin_trap();
	for (page = 0; page < 8; page++)
		smq_info_get(data, size, page, &st, &pages, &info);
	if (info.nrules > SMQ_MAX_RULES)
		__builtin_trap(); /* never past its table */
	for (page = 0; page < 2; page++)
		smq_standbys_get(data, size, page, &st, &sb);
	if (sb.n > SMQ_MAX_STANDBYS)
		__builtin_trap();
	for (i = 0; i < sb.n; i++)
		if (sb.s[i].acked + sb.s[i].behind > sb.head && sb.s[i].behind)
			__builtin_trap(); /* behind never past the head */
	return 0;
}
