/* trace_summary: a decoded capture's summary (trace_main.c's output). */
#ifndef NFSLOAD_TRACE_SUMMARY_H
#define NFSLOAD_TRACE_SUMMARY_H

#include <stdbool.h>
#include <stdio.h>

#include "trace.h"

/* Text or JSON to out. 0, or -1 (out of memory, write error). */
int trace_summary(FILE *out, const char *file, const struct trace *t, bool as_json);

#endif
