/*
 * merge_read: what every part of --merge reads from a JSON report: counts,
 * histograms from their buckets, one operation's figures.
 */
#ifndef NFSLOAD_MERGE_READ_H
#define NFSLOAD_MERGE_READ_H

#include <jansson.h>
#include <stdint.h>

#include "hist.h"
#include "stats.h"

/*
 * A report's buckets, [[lo, hi, count], ...] (a JSON array), added into h
 * by each lower bound's index, counts and h->count only. The lowest lo and
 * highest hi of the non-empty ones lower *lo and raise *hi (NULL: not
 * wanted). 0, or -EINVAL for anything else than such buckets, or a lo
 * past HIST_MAX_VALUE.
 */
int merge_buckets_add(json_t *b, struct hist *h, uint64_t *lo, uint64_t *hi);
/*
 * An empty h made whole from a report: the buckets b as above, then what
 * buckets cannot hold from lat ({min, max, mean, stdev}): min, max, the sum
 * and the sum of squares. 0 or -EINVAL.
 */
int merge_hist_read(json_t *b, json_t *lat, struct hist *h);
/* A report's non-negative integer o.key, else 0 (a real too is 0). */
uint64_t merge_u64(json_t *o, const char *key);
/* A report's non-negative count o.key (an integer, or a real a report may hold), else 0. */
uint64_t merge_num(json_t *o, const char *key);

/*
 * One operation's JSON ({ops, bytes, errors, lat_ns, buckets}, and its wire
 * time if any) into s. 0, -EINVAL or -ENOMEM.
 */
int merge_read_op(json_t *o, struct op_stats *s);

#endif
