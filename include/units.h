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
 * A fraction is accepted when the result is a whole number of bytes.
 * Leading/trailing spaces, signs, empty strings, "4q" -> -EINVAL.
 */
int units_parse_size(const char *s, uint64_t *bytes);

/*
 * "500ms", "30s", "5m", "1h", "100us", "250ns", "1.5s", "90" (bare = seconds)
 * -> nanoseconds.
 */
int units_parse_duration(const char *s, uint64_t *ns);

/* Plain decimal integer in [min, max]; -ERANGE outside it. */
int units_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* "4.00 KiB", "1.50 GiB", "512 B": into buf, returns buf. */
char *units_format_size(uint64_t bytes, char *buf, size_t len);
/* "850 ns", "12.3 us", "4.56 ms", "2.00 s": into buf, returns buf. */
char *units_format_duration(uint64_t ns, char *buf, size_t len);

#endif
