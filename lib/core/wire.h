/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Big-endian field access for MADs. IB wire data is big-endian
 * (IBTA Vol 1 13.4.1); every codec reads and writes through these helpers
 * at named offsets instead of overlaying structs on received bytes. */
#ifndef IBATS_WIRE_H
#define IBATS_WIRE_H

#include <stdint.h>

static inline uint16_t wire_get16(const uint8_t *p)
{
	return (uint16_t)((uint16_t)p[0] << 8 | p[1]);
}

static inline uint32_t wire_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t wire_get64(const uint8_t *p)
{
	return (uint64_t)wire_get32(p) << 32 | wire_get32(p + 4);
}

static inline void wire_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void wire_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline void wire_put64(uint8_t *p, uint64_t v)
{
	wire_put32(p, (uint32_t)(v >> 32));
	wire_put32(p + 4, (uint32_t)v);
}

#endif
