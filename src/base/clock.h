/* clock: CLOCK_MONOTONIC in nanoseconds; every latency and interval uses it. */
#ifndef NFSLOAD_CLOCK_H
#define NFSLOAD_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
}

#endif
