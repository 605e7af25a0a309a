/*
 * units: parsing and printing of sizes, durations and counts.
 *
 * Pure functions, no I/O. Sizes are binary (k = 1024). Parsers return 0 or
 * -EINVAL (not a number of this kind) / -ERANGE (does not fit); they never
 * print, so the caller names the option in its own message.
 */
#ifndef NFSLOAD_UNITS_H
#define NFSLOAD_UNITS_H

#include <stddef.h>
#include <stdint.h>

/*
 * "4096", "4k", "4K", "4KiB", "4kb", "1m", "1.5g", "2t": bytes. Suffixes
 * k m g t p (case-insensitive), optionally followed by "i" and/or "b".
 * A bare "b" ("512b") is bytes. A fraction needs digits on both sides of
 * the point and is accepted when the result is a whole number of bytes
 * ("1.5k" ok, "1.3" -EINVAL). Leading/trailing spaces, signs, hex, exponents,
 * empty strings, "4q" -> -EINVAL; more than 2^64 - 1 bytes -> -ERANGE.
 */
int units_parse_size(const char *s, uint64_t *bytes);

/*
 * "500ms", "30s", "5m", "1h", "100us", "250ns", "1.5s", "90" (bare = seconds)
 * -> nanoseconds. Suffixes are case-sensitive ("M" is not minutes); a
 * fraction must come out as whole nanoseconds ("1.5ns" -> -EINVAL).
 */
int units_parse_duration(const char *s, uint64_t *ns);

/* Plain decimal integer in [min, max]; -ERANGE outside it. */
int units_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/*
 * "4.00 KiB", "1.50 GiB", "512 B": into buf (truncated to len), returns buf.
 * Below 1 KiB exact; above, two decimals in the unit that puts the printed
 * number in [1.00, 1024.00) (1048575 -> "1.00 MiB", not "1024.00 KiB").
 */
char *units_format_size(uint64_t bytes, char *buf, size_t len);
/*
 * "850 ns", "12.3 us", "4.56 ms", "2.00 s": into buf (truncated to len),
 * returns buf. Below 1 us exact; above, three significant digits in the
 * unit that puts the printed number in [1.00, 1000) (999500 -> "1.00 ms");
 * seconds are the largest unit ("3600 s").
 */
char *units_format_duration(uint64_t ns, char *buf, size_t len);

#endif
