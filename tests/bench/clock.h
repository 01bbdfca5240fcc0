/* The benchmarks' clock and latency sort (sabench, capbench). */
#ifndef IBATS_BENCH_CLOCK_H
#define IBATS_BENCH_CLOCK_H

#include <time.h>

/* Monotonic microseconds. */
static inline double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* qsort order of doubles (latencies), for percentiles. */
static inline int cmp_us(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

#endif
