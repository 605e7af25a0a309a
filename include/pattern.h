/*
 * pattern: the bytes nfsload writes without --verify.
 *
 * Owns: one buffer of pseudo-random bytes (PATTERN_PERIOD, then repeated
 * for as long as the largest block), and the rule that makes the data of
 * any write a pure function of file number and offset (see nfsload(1)), so
 * that files on the server can be checked byte by byte. Pure, read-only
 * once made: shared by all threads.
 *
 * Data reduction (--buffer-compress-percentage C, --dedupe-percentage D,
 * nfsload(1) DATA WRITTEN): with C > 0 the buffer itself is reduced, the
 * first C% of every 4 KiB unit of the period being zero bytes, so writes
 * still take a pointer into it. Every 4 KiB block of a file is either its
 * own (stamped with 16 bytes naming file and block, so no two are alike and
 * a block misplaced by a multiple of PATTERN_PERIOD is seen) or, with D > 0,
 * one of PATTERN_SHARED shared blocks, chosen by a hash of (file, block):
 * writes are made in a buffer by pattern_fill (pattern_at alone is the
 * unstamped pattern, for what needs no file's data).
 */
#ifndef NFSLOAD_PATTERN_H
#define NFSLOAD_PATTERN_H

#include <stddef.h>
#include <stdint.h>

#define PATTERN_PERIOD 65536
#define PATTERN_UNIT 4096	/* the unit of --buffer-compress-percentage and --dedupe-percentage */
#define PATTERN_SHARED 16	/* the blocks --dedupe-percentage's repeats are drawn from */
#define PATTERN_STAMP 16	/* bytes at the start of each block that make it unique */

/*
 * The shared buffer, long enough for blocks up to max_bs (and at least
 * PATTERN_PERIOD beyond the period), the first compress_pct percent of each
 * 4 KiB unit zero (0: today's pseudo-random bytes only). NULL: out of memory.
 */
uint8_t *pattern_new(uint64_t max_bs, unsigned compress_pct);
/* Where the data to write at file/offset starts in pattern (any length up to max_bs). */
const uint8_t *pattern_at(const uint8_t *pattern, uint32_t file, uint64_t offset);
/*
 * The data to write at file/offset with --dedupe-percentage dedupe_pct, len
 * bytes into buf (any offset and length). dedupe_pct 0 still stamps every
 * block, making each unique.
 */
void pattern_fill(const uint8_t *pattern, unsigned dedupe_pct, uint32_t file, uint64_t offset,
		  uint8_t *buf, size_t len);
/*
 * What pattern_fill's bytes (dedupe_pct 0) depend on besides the stamps: two
 * writes of the same key hold the same bytes but for their stamps, at the
 * same places. Never 0, so 0 can mean "nothing filled".
 */
uint64_t pattern_key(uint32_t file, uint64_t offset);
/*
 * Rewrites only the stamps of len bytes for file/offset (dedupe_pct 0) in buf,
 * which pattern_fill filled for a write of the same pattern_key and at least
 * len bytes: the same bytes as pattern_fill, for 16 of every 4096.
 */
void pattern_restamp(uint32_t file, uint64_t offset, uint8_t *buf, size_t len);

#endif
