/*
 * pattern: write data as a function of file and offset.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "pattern.h"
#include "workload.h"

uint8_t *pattern_new(uint64_t max_bs, unsigned compress_pct)
{
	uint64_t tail = max_bs > PATTERN_PERIOD ? max_bs : PATTERN_PERIOD;
	uint8_t *p = malloc(PATTERN_PERIOD + tail);
	uint64_t state = UINT64_C(0x6e66736c6f6164);	/* "nfsload" */
	size_t fill = (size_t)PATTERN_UNIT * (compress_pct > 100 ? 100 : compress_pct) / 100;

	if (!p)
		return NULL;
	/* Byte by byte, so the data is the same on any host byte order. */
	for (size_t i = 0; i < PATTERN_PERIOD; i += 8) {
		uint64_t r = wl_rand(&state);

		for (int k = 0; k < 8; k++)
			p[i + k] = (uint8_t)(r >> (8 * k));
	}
	for (size_t u = 0; u < PATTERN_PERIOD; u += PATTERN_UNIT)
		memset(p + u, 0, fill);
	for (uint64_t i = 0; i < tail; i++)
		p[PATTERN_PERIOD + i] = p[i % PATTERN_PERIOD];
	return p;
}

const uint8_t *pattern_at(const uint8_t *pattern, uint32_t file, uint64_t offset)
{
	return pattern + (offset + UINT64_C(4099) * file) % PATTERN_PERIOD;
}

static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* The 16 bytes that name (file, block); copy: the block's pattern bytes too. */
static void fill(const uint8_t *pattern, unsigned dedupe_pct, uint32_t file, uint64_t offset,
		 uint8_t *buf, size_t len, bool copy)
{
	while (len > 0) {
		uint64_t block = offset / PATTERN_UNIT, h = mix64(mix64(file) ^ block);
		size_t at = (size_t)(offset % PATTERN_UNIT), n = PATTERN_UNIT - at;
		uint32_t vfile = file;
		uint64_t vblock = block, k;
		uint8_t stamp[PATTERN_STAMP];

		if (n > len)
			n = len;
		/* A repeat: one of the shared blocks, which belong to file 2^32-1. */
		if (h % 100 < dedupe_pct) {
			vfile = UINT32_MAX;
			vblock = (h >> 32) % PATTERN_SHARED;
		}
		if (copy)
			memcpy(buf, pattern_at(pattern, vfile, vblock * PATTERN_UNIT) + at, n);
		if (at < PATTERN_STAMP) {
			k = mix64(mix64(vfile) ^ vblock ^ UINT64_C(0x7374616d70));	/* "stamp" */
			for (size_t j = 0; j < PATTERN_STAMP; j++) {
				if (j == 8)
					k = mix64(k);
				stamp[j] = (uint8_t)(k >> (8 * (j % 8)));
			}
			for (size_t j = at; j < PATTERN_STAMP && j < at + n; j++)
				buf[j - at] = stamp[j];
		}
		buf += n;
		offset += n;
		len -= n;
	}
}

void pattern_fill(const uint8_t *pattern, unsigned dedupe_pct, uint32_t file, uint64_t offset,
		  uint8_t *buf, size_t len)
{
	fill(pattern, dedupe_pct, file, offset, buf, len, true);
}

uint64_t pattern_key(uint32_t file, uint64_t offset)
{
	uint64_t phase = (offset + UINT64_C(4099) * file) % PATTERN_PERIOD;

	return 1 + phase * PATTERN_UNIT + offset % PATTERN_UNIT;
}

void pattern_restamp(uint32_t file, uint64_t offset, uint8_t *buf, size_t len)
{
	fill(NULL, 0, file, offset, buf, len, false);
}
