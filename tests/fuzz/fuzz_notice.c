/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* InformInfo and Notice decoding of any bytes: decode, re-encode, and
 * the trap GID of any notice. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/notice.h"
#include "core/sa.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct notice_inform ii, ii2;
	struct notice n, n2;
	struct sa_hdr h;
	uint8_t enc[NOTICE_SIZE], gid[16];

	if (!notice_inform_decode(data, size, &ii)) {
		notice_inform_encode(enc, &ii);
		if (notice_inform_decode(enc, NOTICE_INFORM_SIZE, &ii2) || memcmp(&ii, &ii2, sizeof(ii)))
			__builtin_trap(); /* decode/encode must round-trip */
	}
	if (!notice_decode(data, size, &n)) {
		notice_encode(enc, &n);
		if (notice_decode(enc, NOTICE_SIZE, &n2) || memcmp(&n, &n2, sizeof(n)))
			__builtin_trap();
		notice_trap_gid(&n, gid);
	}
	/* A whole Report MAD: the notice after the SA header. */
	if (!sa_hdr_decode(data, size, &h) && !notice_decode(data + SA_OFF_DATA,
							    size - SA_OFF_DATA, &n))
		notice_trap_gid(&n, gid);
	return 0;
}
