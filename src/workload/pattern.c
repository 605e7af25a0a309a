/*
 * pattern: write data as a function of file and offset.
 */
#include <stdlib.h>

#include "pattern.h"
#include "workload.h"

uint8_t *pattern_new(uint64_t max_bs)
{
	uint8_t *p = malloc(PATTERN_PERIOD + max_bs);
	uint64_t state = UINT64_C(0x6e66736c6f6164);	/* "nfsload" */

	if (!p)
		return NULL;
	/* Byte by byte, so the data is the same on any host byte order. */
	for (size_t i = 0; i < PATTERN_PERIOD; i += 8) {
		uint64_t r = wl_rand(&state);

		for (int k = 0; k < 8; k++)
			p[i + k] = (uint8_t)(r >> (8 * k));
	}
	for (uint64_t i = 0; i < max_bs; i++)
		p[PATTERN_PERIOD + i] = p[i % PATTERN_PERIOD];
	return p;
}

const uint8_t *pattern_at(const uint8_t *pattern, uint32_t file, uint64_t offset)
{
	return pattern + (offset + UINT64_C(4099) * file) % PATTERN_PERIOD;
}
