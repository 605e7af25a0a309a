/*
 * pattern: the bytes nfsload writes without --verify.
 *
 * Owns: one buffer of pseudo-random bytes (PATTERN_PERIOD, then repeated
 * for as long as the largest block), and the rule that makes the data of
 * any write a pure function of file number and offset (see nfsload(1)), so
 * that files on the server can be checked byte by byte. Pure, read-only
 * once made: shared by all threads.
 */
#ifndef NFSLOAD_PATTERN_H
#define NFSLOAD_PATTERN_H

#include <stdint.h>

#define PATTERN_PERIOD 65536

/* The shared buffer, long enough for blocks up to max_bs. NULL: out of memory. */
uint8_t *pattern_new(uint64_t max_bs);
/* Where the data to write at file/offset starts in pattern (any length up to max_bs). */
const uint8_t *pattern_at(const uint8_t *pattern, uint32_t file, uint64_t offset);

#endif
