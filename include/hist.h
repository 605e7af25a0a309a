/*
 * hist: log-linear latency histograms (HdrHistogram's bucket scheme).
 *
 * Owns: bucket math, recording, exact merge, percentiles, bucket iteration.
 * Does not own: threads or locking (a histogram belongs to one thread at a
 * time; the caller hands it over), reporting.
 *
 * Values are unsigned integers (nanoseconds in nfsload). Values below
 * 2^sub_bits are exact; above, each power of two is split into 2^(sub_bits-1)
 * linear buckets, so a bucket's width is at most 1/2^(sub_bits-1) of its lower
 * bound. sub_bits = HIST_PRECISE_BITS gives <= 0.79% relative error;
 * HIST_COARSE_BITS (per-connection views) about 6.3%, in a tenth of the memory.
 * Values above HIST_MAX_VALUE (about 73 minutes in ns) are recorded as
 * HIST_MAX_VALUE and counted in `clamped`.
 */
#ifndef NFSLOAD_HIST_H
#define NFSLOAD_HIST_H

#include <stddef.h>
#include <stdint.h>

#define HIST_MAX_BITS 42
#define HIST_MAX_VALUE ((UINT64_C(1) << HIST_MAX_BITS) - 1)
#define HIST_PRECISE_BITS 8
#define HIST_COARSE_BITS 5

struct hist {
	int sub_bits;
	int nbuckets;         /* (HIST_MAX_BITS - sub_bits + 2) << (sub_bits - 1) */
	uint64_t *counts;
	uint64_t count;
	uint64_t clamped;
	uint64_t min;       /* UINT64_MAX while empty */
	uint64_t max;
	uint64_t sum;
	double sumsq;
};

/* Allocates the bucket array (zeroed). 0, -EINVAL (sub_bits outside 2..12) or -ENOMEM. */
int hist_init(struct hist *h, int sub_bits);
/* Frees the bucket array; safe on a zeroed or destroyed struct. */
void hist_destroy(struct hist *h);
/* Empties the histogram, keeps its allocation. */
void hist_reset(struct hist *h);

/* Bucket index for a value (value already clamped to HIST_MAX_VALUE). */
static inline int hist_index(int sub_bits, uint64_t v)
{
	uint64_t half = UINT64_C(1) << (sub_bits - 1);
	int msb, shift;

	if (v < (half << 1))
		return (int)v;
	msb = 63 - __builtin_clzll(v);
	shift = msb - sub_bits + 1;
	return (int)((uint64_t)shift * half + (v >> shift));
}

/* Records one value. No allocation, no lock: O(1), a few ns. */
static inline void hist_record(struct hist *h, uint64_t v)
{
	if (v > HIST_MAX_VALUE) {
		v = HIST_MAX_VALUE;
		h->clamped++;
	}
	h->counts[hist_index(h->sub_bits, v)]++;
	h->count++;
	h->sum += v;
	h->sumsq += (double)v * (double)v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

/* dst += src, bucket by bucket (exact). -EINVAL if sub_bits differ. */
int hist_add(struct hist *dst, const struct hist *src);

/*
 * Value at percentile pct (0 < pct <= 100), nearest-rank definition: the
 * smallest recorded value with at least ceil(pct/100 * count) values <= it,
 * reported as its bucket's midpoint clamped to [min, max]. 0 when empty.
 */
uint64_t hist_percentile(const struct hist *h, double pct);
double hist_mean(const struct hist *h);
double hist_stdev(const struct hist *h);

/* Lowest and highest value that land in bucket i (0 <= i < nbuckets). */
void hist_bucket_range(const struct hist *h, int i, uint64_t *lo, uint64_t *hi);

#endif
