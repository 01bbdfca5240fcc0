/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* rtnetlink address, link and neighbour messages as the kernel might
 * send them (or not). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/ifev.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void cb(const struct ifev_event *ev, void *arg)
{
	(void)ev;
	(*(unsigned *)arg)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* libmnl wants aligned headers, as recv() buffers are. */
	void *buf = malloc(size ? size : 1);
	unsigned n = 0;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	ifev_parse(buf, size, cb, &n);
	free(buf);
	return 0;
}
