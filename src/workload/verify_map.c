/*
 * verify_map: the blocks a run wrote, one bit each, per file. Set by the
 * workers as their writes complete (atomically: several threads write to
 * one map), tested when a read is checked.
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "verify.h"

struct verify_map {
	uint32_t nfiles;
	uint32_t block;
	uint64_t nblocks;	/* per file, the last one possibly short */
	uint64_t words;		/* per file */
	_Atomic uint64_t bits[];
};

struct verify_map *verify_map_new(uint32_t nfiles, uint64_t file_size, uint32_t block)
{
	struct verify_map *m;
	uint64_t nblocks, words;

	if (block == 0 || nfiles == 0)
		return NULL;
	nblocks = file_size / block + (file_size % block != 0);
	words = nblocks / 64 + (nblocks % 64 != 0);
	if (words > (SIZE_MAX - sizeof(*m)) / sizeof(m->bits[0]) / nfiles)
		return NULL;
	/* calloc's zero bytes are a valid zero for lock-free atomics. */
	m = calloc(1, sizeof(*m) + (size_t)words * nfiles * sizeof(m->bits[0]));
	if (!m)
		return NULL;
	m->nfiles = nfiles;
	m->block = block;
	m->nblocks = nblocks;
	m->words = words;
	return m;
}

void verify_map_set(struct verify_map *m, uint32_t file, uint64_t offset, uint64_t len)
{
	_Atomic uint64_t *w;
	uint64_t first, last;

	if (!m || file >= m->nfiles || len == 0 || offset / m->block >= m->nblocks)
		return;
	first = offset / m->block;
	last = (len - 1 > UINT64_MAX - offset ? UINT64_MAX : offset + len - 1) / m->block;
	if (last >= m->nblocks)
		last = m->nblocks - 1;
	w = m->bits + (size_t)file * m->words;
	for (uint64_t i = first / 64; i <= last / 64; i++) {
		uint64_t lo = i == first / 64 ? first % 64 : 0;
		uint64_t hi = i == last / 64 ? last % 64 : 63;
		uint64_t mask = (UINT64_MAX >> (63 - hi)) & (UINT64_MAX << lo);

		/* Skip the locked RMW when another write already marked these blocks. */
		if ((atomic_load_explicit(&w[i], memory_order_relaxed) & mask) != mask)
			atomic_fetch_or_explicit(&w[i], mask, memory_order_release);
	}
}

bool verify_map_test(const struct verify_map *m, uint32_t file, uint64_t offset)
{
	uint64_t b;

	if (!m || file >= m->nfiles || offset / m->block >= m->nblocks)
		return false;
	b = offset / m->block;
	return atomic_load_explicit(&m->bits[(size_t)file * m->words + b / 64],
				    memory_order_acquire) >> (b % 64) & 1;
}

void verify_map_free(struct verify_map *m)
{
	free(m);
}
