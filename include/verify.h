/*
 * verify: the data format of --verify and the map of blocks a run wrote.
 *
 * Owns: the block format (a 32-byte header naming the block, then a payload
 * that is a pure function of seed, file, offset and generation), filling
 * buffers with it, checking buffers read back and describing the first bad
 * block in one line, and a bitmap of written blocks shared by the workers.
 * Does not own: I/O, which blocks to read or when, counting or reporting
 * mismatches (the workers and the report do that).
 *
 * Block format, little-endian on every host (man nfsload(1), DATA
 * VERIFICATION):
 *   0  u32 magic 0x564c464e ("NFLV")   16 u32 generation
 *   4  u32 file id                     20 u32 seed32, the low 32 bits of seed
 *   8  u64 byte offset of the block    24 u64 checksum
 *   32 .. block-1: payload
 * checksum = XXH3_64bits of the whole block with bytes 24..31 taken as zero.
 * Payload byte i (32 <= i < block) = P[(s + i - 32) mod 65536] xor K[i mod 8],
 * P the 64 KiB pattern of DATA WRITTEN (reduced with --buffer-compress-percentage:
 * its zero runs become K repeated, which compresses alike), k = mix(mix(mix(file << 32 | seed32)
 * xor offset) xor generation) with mix the splitmix64 finalizer, s = k >> 48,
 * K[j] byte j of k, least significant first.
 *
 * No I/O; every function may be called from any thread. The pattern is
 * built on first use under pthread_once: there is nothing to initialise.
 * Generations start at 1: 0 means "any" to verify_check.
 */
#ifndef NFSLOAD_VERIFY_H
#define NFSLOAD_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VERIFY_HDR_SIZE 32	/* bytes at the start of every block */
#define VERIFY_BLOCK_MAGIC UINT32_C(0x564c464e)	/* "NFLV" in little-endian */
#define VERIFY_MIN_BLOCK 64	/* smallest block size --verify accepts */

struct verify_params {
	uint32_t block;		/* block size in bytes, >= VERIFY_MIN_BLOCK */
	uint32_t generation;	/* what verify_fill writes, >= 1 */
	uint64_t seed;		/* --seed; only its low 32 bits are used */
	/* P itself, at least 2 x 65536 bytes (pattern_new): with
	 * --buffer-compress-percentage the reduced one; NULL: the plain P. */
	const uint8_t *pattern;
};

struct verify_hdr {
	uint32_t magic;
	uint32_t file;
	uint64_t offset;
	uint32_t generation;
	uint32_t seed32;
	uint64_t checksum;
};

enum verify_kind {
	VERIFY_OK,
	VERIFY_MAGIC,		/* not a block of ours: a hole, never written, overwritten */
	VERIFY_FILE,		/* a block of another file */
	VERIFY_OFFSET,		/* a block of this file from another offset */
	VERIFY_GENERATION,	/* an older (or newer) write of this block */
	VERIFY_CHECKSUM,	/* right place, wrong content (or another --seed) */
};

struct verify_mismatch {
	enum verify_kind kind;
	uint32_t file;		/* the block's place: file id ... */
	uint64_t offset;	/* ... and byte offset of the block */
	uint32_t block;		/* block size, for the block number */
	/* Decoded headers. expected.generation 0: any was accepted and the found
	 * one was not plausible; expected.checksum is then 0 (unknown). */
	struct verify_hdr expected, found;
	uint64_t first_diff;	/* byte within the block; UINT64_MAX if none */
	uint8_t expected_byte, found_byte;
};

/*
 * Fills buf with the blocks of file from offset on, generation and seed
 * from p. offset and len must be multiples of p->block; a partial block at
 * the end of len is left untouched.
 */
void verify_fill(const struct verify_params *p, uint32_t file, uint64_t offset, uint8_t *buf,
		 size_t len);

/*
 * Checks len bytes read from file at offset. offset and len must be
 * multiples of p->block (a partial block at the end is not examined).
 * want_gen 0 accepts any generation. Each block is judged in this order:
 * magic, file, offset, generation, then seed32 and the checksum over what
 * was read. Returns the number of bad blocks; when first is not NULL it
 * describes the first of them (kind VERIFY_OK and first_diff UINT64_MAX when
 * none), found by regenerating that block and comparing byte by byte.
 */
uint64_t verify_check(const struct verify_params *p, uint32_t file, uint64_t offset,
		      const uint8_t *buf, size_t len, uint32_t want_gen,
		      struct verify_mismatch *first);

/*
 * One line, no newline, into buf (truncated to len, always terminated):
 * "file 3 offset 40960 (block 10): checksum mismatch; expected magic=NFLV
 * file=3 offset=40960 gen=7 seed=0x0000002a checksum=0x...; found ...;
 * first differing byte at +17 (file offset 40977): expected 0x4a, found 0x4b".
 */
void verify_describe(const struct verify_mismatch *m, char *buf, size_t len);

/* "ok", "magic", "file", "offset", "generation", "checksum": for counters and JSON. */
const char *verify_kind_name(enum verify_kind k);

/*
 * Which blocks this run wrote: one bit per block of each file, the last
 * block of a file possibly short. verify_map_set may be called from several
 * threads at once (atomic OR, release); verify_map_test sees a bit set by
 * another thread once that set happened before (acquire).
 */
struct verify_map;

/* NULL if block is 0, nfiles is 0 or memory is short. */
struct verify_map *verify_map_new(uint32_t nfiles, uint64_t file_size, uint32_t block);
/* Marks every block overlapping [offset, offset+len); what lies past the file size or
 * file ids >= nfiles are ignored. */
void verify_map_set(struct verify_map *m, uint32_t file, uint64_t offset, uint64_t len);
/* Whether the block holding offset was marked; false outside the map. */
bool verify_map_test(const struct verify_map *m, uint32_t file, uint64_t offset);
/* verify_map_free(NULL) is a no-op. */
void verify_map_free(struct verify_map *m);

#endif
