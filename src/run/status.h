/*
 * status: how a run ends, as the shell sees it (status.c). The run's own
 * files only; the statuses themselves are in include/exit_status.h.
 */
#ifndef NFSLOAD_STATUS_H
#define NFSLOAD_STATUS_H

#include "exit_status.h"
#include "report.h"

/* "nfsload: " and one line (printf-style) on stderr; returns status. */
int run_complain(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The exit status of a run that got as far as a report (signal: the one that stopped
 * it, or 0), with a line on stderr on why it is not 0. */
int run_exit_status(const struct report *r, int signal);

#endif
