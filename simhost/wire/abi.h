/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The rdma_ucm ABI's integers as a process writes them: host order (the
 * process is this machine), at any alignment. Wire data uses wire.h. */
#ifndef IBATS_SIMHOST_ABI_H
#define IBATS_SIMHOST_ABI_H

#include <stdint.h>
#include <string.h>

static inline uint16_t abi_get16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

static inline uint32_t abi_get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static inline uint64_t abi_get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static inline void abi_put16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, 2);
}

static inline void abi_put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static inline void abi_put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

#endif
