/*
 * run: one run's life, from a validated configuration to its report.
 *
 * Owns: the order of things (engine preparation, the work directory, the
 * workers and their connections, the --mix trees, the layout, the measured
 * phase or the small-file passes, the --verify read-back, the report) and
 * the promise that every exit after the work directory exists removes what
 * the run created (unless --keep). Main thread only; one run at a time.
 */
#ifndef NFSLOAD_RUN_H
#define NFSLOAD_RUN_H

#include <stdio.h>

#include "config.h"
#include "exit_status.h"
#include "report.h"
#include "workdir.h"


/* A run's figures for a job's summary, and what it created. */
struct run_result {
	struct job_row row;
	struct fileset fs[CFG_SERVERS_MAX];	/* one per namespace (config_namespaces) */
	unsigned nfs;
};

/*
 * One run of cfg, its report to out. res (or NULL) receives the figures for
 * a job's summary and, moved out, what the run created on the server (the
 * job removes it after its last run; the run itself then keeps it). Returns
 * the exit status.
 */
int run_one(const struct config *cfg, FILE *out, struct run_result *res);

#endif
