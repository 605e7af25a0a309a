/*
 * fail: the usage-error line every parser below the command line writes
 * (fail.h). Calls nothing of ours.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "fail.h"

int config_fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}
