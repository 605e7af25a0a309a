/*
 * fail: one usage error, as the command line's parsers and the engines'
 * check() report it: a line (no "nfsload: ", no newline) naming the option or
 * URL part, the value and what would be accepted.
 */
#ifndef NFSLOAD_FAIL_H
#define NFSLOAD_FAIL_H

#include <stddef.h>

/* The message (printf-style) into err (size len); returns -EINVAL. */
int config_fail(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
