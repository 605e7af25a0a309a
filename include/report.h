/*
 * report: the run's results as text or JSON.
 *
 * Owns: formatting only. Takes merged statistics (the aggregator's output);
 * does no I/O besides writing to the FILE it is given. Pure enough to be
 * unit-tested with fmemopen.
 */
#ifndef NFSLOAD_REPORT_H
#define NFSLOAD_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "stats.h"
#include "worker.h"

struct thread_report {
	unsigned connections;
	double busy_pct;	/* thread CPU / wall time of the phase */
};

struct report {
	const struct config *cfg;
	const char *limits_note;
	int64_t start_unix_ns;		/* wall clock at the start of measurement */
	uint64_t connect_ns;		/* all connections mounted and opened */
	bool layout_ran;
	uint64_t layout_ns;
	struct op_stats layout;		/* the layout phase's writes */
	uint64_t duration_ns;		/* measured window of the main phase */
	bool interrupted;
	struct op_stats ops[OP_NTYPES];	/* merged over threads */
	double user_s, sys_s;		/* process CPU over the measured window */
	unsigned nthreads;
	struct thread_report *threads;
	unsigned nconns;
	struct conn_report *conns;
};

/* Total operations (completed without error) over every op type. */
uint64_t report_total_ops(const struct report *r);
/* True when some worker thread was busy >= 90% of the time. */
bool report_client_bound(const struct report *r);

void report_text(FILE *out, const struct report *r);
void report_json(FILE *out, const struct report *r);

#endif
