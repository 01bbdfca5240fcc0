/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The ats provider's readers: a resolve message as ibacm's core hands it
 * over (any bytes: the core checks little), the answer built from it, and
 * the PathRecord codec of its SA answers. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "acmprov/acmats_msg.h"
#include "core/pr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct acmats_msg_query q;
	struct acm_msg m, out;
	struct pr_record r;
	uint8_t path[PR_SIZE] = { 0 };

	memset(&m, 0, sizeof(m));
	memcpy(&m, data, size < sizeof(m) ? size : sizeof(m));
	memcpy(path, data, size < PR_SIZE ? size : PR_SIZE);
	if (!acmats_msg_question(&m, &q))
		acmats_msg_answer(&m, 0, path, &out);
	acmats_msg_answer(&m, ACM_STATUS_ENODATA, NULL, &out);
	pr_decode(data, size, &r);
	return 0;
}
