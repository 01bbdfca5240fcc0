/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The benchmarks' clock and latency sort (sabench, capbench). */
#ifndef IBATS_BENCH_CLOCK_H
#define IBATS_BENCH_CLOCK_H

#include "core/mono.h"

/* Monotonic microseconds, fractional (lib/core/mono.h's clock). */
static inline double now_us(void)
{
	return (double)mono_ns() / 1e3;
}

/* qsort order of doubles (latencies), for percentiles. */
static inline int cmp_us(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

#endif
