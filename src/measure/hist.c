/*
 * hist: log-linear latency histograms. Recording is inline in hist.h; this
 * file holds what is too large or too rare to inline: allocation, merge,
 * percentiles and the inverse bucket mapping.
 */
#include "hist.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int hist_init(struct hist *h, int sub_bits)
{
	memset(h, 0, sizeof(*h));
	/* Below 2 the linear half of a power of two is empty; above 12 the
	 * bucket array (64K+ entries) stops being worth the precision. */
	if (sub_bits < 2 || sub_bits > 12)
		return -EINVAL;
	h->sub_bits = sub_bits;
	h->nbuckets = (HIST_MAX_BITS - sub_bits + 2) << (sub_bits - 1);
	h->counts = calloc((size_t)h->nbuckets, sizeof(*h->counts));
	if (!h->counts) {
		h->nbuckets = 0;
		return -ENOMEM;
	}
	h->min = UINT64_MAX;
	return 0;
}

void hist_destroy(struct hist *h)
{
	free(h->counts);
	h->counts = NULL;
	h->nbuckets = 0;
}

void hist_reset(struct hist *h)
{
	if (h->counts)
		memset(h->counts, 0, (size_t)h->nbuckets * sizeof(*h->counts));
	h->count = 0;
	h->clamped = 0;
	h->min = UINT64_MAX;
	h->max = 0;
	h->sum = 0;
	h->sumsq = 0;
}

int hist_add(struct hist *dst, const struct hist *src)
{
	int i;

	if (dst->sub_bits != src->sub_bits || dst->nbuckets != src->nbuckets)
		return -EINVAL;
	for (i = 0; i < dst->nbuckets; i++)
		dst->counts[i] += src->counts[i];
	dst->count += src->count;
	dst->clamped += src->clamped;
	dst->sum += src->sum;
	dst->sumsq += src->sumsq;
	/* An empty src has min = UINT64_MAX, max = 0, so it changes neither. */
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	return 0;
}

/*
 * 1-based nearest rank for pct. Multiplying before dividing keeps
 * pct * count exact for the usual percentiles (99.9 * 1000 is 99900, while
 * 0.999 * 1000 is not 999), so ceil() does not jump one rank too far.
 */
static uint64_t nearest_rank(double pct, uint64_t count)
{
	double r;

	if (!(pct > 0))         /* also catches NaN */
		return 1;
	if (pct >= 100)
		return count;
	r = ceil(pct * (double)count / 100.0);
	if (r < 1)
		return 1;
	if (r >= (double)count)
		return count;
	return (uint64_t)r;
}

uint64_t hist_percentile(const struct hist *h, double pct)
{
	uint64_t rank, seen = 0, lo, hi, mid;
	int i;

	if (h->count == 0)
		return 0;
	rank = nearest_rank(pct, h->count);
	for (i = 0; i < h->nbuckets; i++) {
		seen += h->counts[i];
		if (seen >= rank)
			break;
	}
	if (i == h->nbuckets)   /* counts disagree with count: report the max */
		return h->max;
	hist_bucket_range(h, i, &lo, &hi);
	mid = lo + (hi - lo) / 2;
	/* The true value lies in [min, max]; never report outside it, so a
	 * single sample reads back exactly. */
	if (mid < h->min)
		mid = h->min;
	if (mid > h->max)
		mid = h->max;
	return mid;
}

double hist_mean(const struct hist *h)
{
	if (h->count == 0)
		return 0;
	return (double)h->sum / (double)h->count;
}

double hist_stdev(const struct hist *h)
{
	double mean, var;

	if (h->count == 0)
		return 0;
	mean = hist_mean(h);
	var = h->sumsq / (double)h->count - mean * mean;
	/* E[x^2] - E[x]^2 cancels badly when the spread is tiny next to the
	 * mean and can come out slightly negative: that means zero. */
	if (!(var > 0))
		return 0;
	return sqrt(var);
}

void hist_bucket_range(const struct hist *h, int i, uint64_t *lo, uint64_t *hi)
{
	int half = 1 << (h->sub_bits - 1);
	int shift;

	/* Exact region: bucket i holds the value i alone. */
	if (i < 2 * half) {
		*lo = *hi = (uint64_t)i;
		return;
	}
	/* Inverse of hist_index: i = shift * half + (v >> shift), where
	 * v >> shift is in [half, 2 * half), so i / half = shift + 1. */
	shift = i / half - 1;
	*lo = (uint64_t)(i - shift * half) << shift;
	*hi = *lo + (UINT64_C(1) << shift) - 1;
}
