/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Both config parsers: osmats.conf and atsd.conf. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "host/agent_conf.h"
#include "core/osmats_conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	struct osmats_conf oc;
	struct agent_conf ac;
	char err[600];
	FILE *f;

	if (!path[0])
		snprintf(path, sizeof(path), "/tmp/ibats-fuzz-conf.%d", (int)getpid());
	f = fopen(path, "w");
	if (!f)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	osmats_conf_default(&oc);
	osmats_conf_load(path, &oc, err, sizeof(err));
	agent_conf_default(&ac);
	agent_conf_load(path, &ac, err, sizeof(err));
	return 0;
}
