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

/*
 * --on-error stop and an NFSv4.2 op the server refused (struct run's refusal):
 * (op + 1) | code << 8, code 1 for CONN_ERR_NOTSUPP, 2 for CONN_ERR_OP_ILLEGAL.
 */
static inline unsigned run_refusal_code(enum op_type op, int code)
{
	return (unsigned)(op + 1) | (code == CONN_ERR_OP_ILLEGAL ? 2u : 1u) << 8;
}
/* Its line, without "nfsload: " ("copy: the server answered NFS4ERR_OP_ILLEGAL (it
 * does not have COPY)"). */
void run_refusal_line(unsigned refusal, char *buf, size_t len);

#endif
