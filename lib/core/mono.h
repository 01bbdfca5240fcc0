/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The one clock for timeouts, deadlines and latencies: CLOCK_MONOTONIC,
 * which wall-clock changes (NTP, an admin's date) do not move. */
#ifndef IBATS_MONO_H
#define IBATS_MONO_H

#include <stdint.h>
#include <time.h>

static inline int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline int64_t mono_us(void)
{
	return mono_ns() / 1000;
}

static inline int64_t mono_ms(void)
{
	return mono_ns() / 1000000;
}

/* A monotonic time in ms as the deadline of a timed wait on a condition
 * variable set to CLOCK_MONOTONIC. */
static inline struct timespec mono_ms_timespec(int64_t ms)
{
	struct timespec ts = { .tv_sec = (time_t)(ms / 1000),
			       .tv_nsec = (long)(ms % 1000) * 1000000 };

	return ts;
}

#endif
