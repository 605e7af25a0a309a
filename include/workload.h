/*
 * workload: which operation comes next on a connection.
 *
 * Owns: the file-to-connection mapping, sequential and random offsets, the
 * read/write mix, byte budgets and the per-stream PRNG. Pure: no I/O, no
 * clocks, so it is unit-tested without a server.
 *
 * Mapping (documented in nfsload(1)): with C connections and N files,
 * when N >= C connection i owns files i, i+C, i+2C, ... whole; when N < C
 * connection i works on file i mod N, and the k-th of the s connections that
 * share a file owns its k-th contiguous slice of blocks for sequential I/O
 * (together they cover the file exactly once per pass; a connection left
 * without a block of its own, when sharers outnumber blocks, walks the whole
 * file). Random I/O on a shared file uses the whole file.
 */
#ifndef NFSLOAD_WORKLOAD_H
#define NFSLOAD_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "distrib.h"
#include "ops.h"		/* enum op_type: the op table's */

enum wl_mode {
	WL_READ, WL_WRITE, WL_RANDREAD, WL_RANDWRITE, WL_READWRITE, WL_RANDRW,
};

/* A byte range of one file that a stream walks: [start, end). */
struct wl_range {
	uint32_t file;
	uint64_t start;
	uint64_t end;
};

#define WL_MAX_RANGES_INLINE 4

struct wl_stream {
	bool random;
	unsigned read_pct;	/* 0..100 */
	uint64_t bs;
	uint64_t file_size;
	struct wl_range *ranges;
	uint32_t nranges;
	uint32_t cur;		/* sequential: current range */
	uint64_t pos;		/* sequential: next offset in ranges[cur] */
	uint64_t budget;	/* bytes still to issue; UINT64_MAX = no limit */
	uint64_t rng;		/* splitmix64 state */
	bool own_slice;		/* false: more sharers than blocks, walks the whole file */
	/* wl_stream_shape: a skew and a size mix; both off after wl_stream_init */
	bool skew;
	struct distrib dist;	/* over all the stream's grains (ranges x grains per file) */
	const struct bssplit *split;	/* NULL: every op is bs */
	uint64_t grain;		/* random offsets are drawn in grains: the smallest size */
};

struct wl_op {
	enum op_type type;
	uint32_t range;		/* index into the stream's ranges */
	uint32_t file;
	uint64_t offset;
	uint32_t len;
};


const char *wl_mode_name(enum wl_mode m);
/* -EINVAL for an unknown name. */
int wl_mode_parse(const char *s, enum wl_mode *m);
bool wl_mode_random(enum wl_mode m);
/* Read percentage implied by the mode (rwmixread for the mixed ones). */
unsigned wl_mode_read_pct(enum wl_mode m, unsigned rwmixread);

/*
 * Sets up stream s for connection conn of nconns over nfiles files of
 * file_size bytes. Allocates s->ranges (free with wl_stream_destroy).
 * Returns 0 or -ENOMEM. A connection with no file (impossible by the mapping,
 * kept for safety) gets nranges == 0 and wl_next returns false at once.
 */
int wl_stream_init(struct wl_stream *s, uint32_t conn, uint32_t nconns,
		   uint32_t nfiles, uint64_t file_size, uint64_t bs,
		   bool random, unsigned read_pct, uint64_t seed);
void wl_stream_destroy(struct wl_stream *s);

/*
 * After wl_stream_init: random offsets skewed by spec (NULL or random:
 * uniform), the distribution over all the stream's blocks of the smallest
 * size, its hot blocks scattered by seed; each op's size drawn from split
 * (NULL: bs; an op's direction without sizes: bs), a random offset aligned
 * down to the size drawn. split must outlive the stream.
 */
void wl_stream_shape(struct wl_stream *s, const struct distrib_spec *spec,
		     const struct bssplit *split, uint64_t seed);

/* Bytes one sequential pass of this stream covers (sum of its ranges). */
uint64_t wl_stream_pass_bytes(const struct wl_stream *s);

/*
 * Next operation. Offsets are multiples of bs from the range start (random:
 * from 0); the last block of a file may be shorter (len = what is left).
 * Returns false when the budget is spent or the stream has no range.
 */
bool wl_next(struct wl_stream *s, struct wl_op *op);

/*
 * The name of data file id, the one place it is spelled: "file.000042"
 * when dir is NULL (a name inside the work directory), "/dir/file.000042"
 * otherwise (a path below the export). Truncated to len like snprintf.
 */
void wl_file_name(const char *dir, uint32_t id, char *buf, size_t len);

/*
 * The name of connection conn's held file i (--open-files), spelled as
 * wl_file_name spells a data file's: "held.000003.000042" in the work
 * directory, or "/dir/held.000003.000042".
 */
void wl_held_name(const char *dir, uint32_t conn, uint32_t i, char *buf, size_t len);

/* splitmix64: the stream's PRNG, exposed for tests and seeding. */
uint64_t wl_rand(uint64_t *state);

#endif
