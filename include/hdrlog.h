/*
 * hdrlog: interval histograms in the HdrHistogram interval log format
 * (version 1.3), readable by HdrHistogram's own tools (HistogramLogProcessor,
 * HistogramLogReader in Java, C and Python).
 *
 * Owns: the log file, its header, one line per interval and tag, and the
 * compressed V2 histogram encoding with its base64 text.
 * Does not own: the histograms (the caller keeps them), timing, threads (a
 * log belongs to one thread at a time).
 *
 * A struct hist with sub_bits = HIST_PRECISE_BITS has exactly the counts
 * layout of an HdrHistogram with lowestDiscernibleValue 1,
 * numberOfSignificantValueDigits 2 (subBucketCount 256, unitMagnitude 0) and
 * highestTrackableValue HIST_MAX_VALUE: 4608 counts, the same index for every
 * value. So the counts are encoded as they are, with no re-bucketing.
 */
#ifndef NFSLOAD_HDRLOG_H
#define NFSLOAD_HDRLOG_H

#include <stdint.h>

#include "hist.h"

struct hdrlog;

/*
 * Creates (truncates) path and writes the header:
 *   #[Histogram log format version 1.3]
 *   #[StartTime: <secs.ms> (seconds since epoch), <date, UTC>]
 *   #[BaseTime: <secs.ms> (seconds since epoch)]
 *   "StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"
 * start_unix_ns is the wall clock of the run start. BaseTime equals StartTime:
 * interval timestamps are relative to it, and saying so spares readers their
 * "more than a year before StartTime means relative" guess.
 * 0, or -errno (from fopen or the first write); *out is set only on 0.
 */
int hdrlog_open(const char *path, int64_t start_unix_ns, struct hdrlog **out);

/*
 * Appends one interval line and flushes it:
 *   Tag=<tag>,<start s>,<length s>,<max ms>,<base64 compressed histogram>
 * start_ns is relative to the run start (StartTime), len_ns the interval's
 * length; both are written as seconds with 3 decimals. The max is h->max (the
 * exact value, not its bucket's top) in milliseconds with 3 decimals, the
 * Java writer's default maxValueUnitRatio of 1e6 for nanosecond values.
 * tag NULL or "" writes an untagged line; a tag may not hold ',', ' ', '\r'
 * or '\n'. h must have sub_bits == HIST_PRECISE_BITS.
 * 0, -EINVAL (bad tag or histogram; nothing written), -ENOMEM, -ERANGE (see
 * hdrlog_encode), or the -errno of the log's first failed write: once a write
 * failed, every later call returns that error, and so does hdrlog_close.
 */
int hdrlog_write(struct hdrlog *log, const char *tag, uint64_t start_ns, uint64_t len_ns,
		 const struct hist *h);

/* Flushes and closes; NULL is a no-op. 0, or -errno of the first write error
 * seen anywhere in the log's life (or of the final flush and close). */
int hdrlog_close(struct hdrlog *log);

/*
 * h as HdrHistogram's compressed V2 encoding, in standard base64 (padded, no
 * line breaks): *b64 is malloc'd and NUL-terminated; the caller frees it.
 * Counts after the last non-zero one are left out (an empty histogram
 * encodes one zero count, as HdrHistogram does).
 * 0, -EINVAL (sub_bits != HIST_PRECISE_BITS), -ENOMEM, or -ERANGE if a count
 * exceeds INT64_MAX (HdrHistogram's counts are signed 64-bit).
 */
int hdrlog_encode(const struct hist *h, char **b64);

#endif
