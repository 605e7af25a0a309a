/*
 * run's private header (run.c and run_phases.c): one run's state, and the
 * phases run.c calls in order. Main thread only.
 */
#ifndef NFSLOAD_RUN_INT_H
#define NFSLOAD_RUN_INT_H

#include <stdio.h>

#include "config.h"
#include "control.h"
#include "report.h"
#include "series.h"
#include "workdir.h"
#include "worker.h"

struct app {
	const struct config *cfg;
	struct engine_params params;	/* the engine's view of cfg, made once */
	FILE *out;
	FILE *html;			/* --report, or NULL */
	struct oplog *oplog;		/* --op-log, or NULL (also run.oplog) */
	struct series series;
	/* The work directory and its files, per namespace (config_namespaces: one, or one
	 * per server), each through its own control connection (srv_cfg, several servers). */
	unsigned nns;
	struct workdir *wd[CFG_SERVERS_MAX];
	struct fileset fs[CFG_SERVERS_MAX];
	struct config *srv_cfg;
	unsigned *local_id;		/* namespaces of their own: see struct run */
	struct run run;
	struct verify_params verify;
	struct worker **workers;
	unsigned nworkers;
	int servers_rc;			/* aggregate_servers or a load curve's figures: no memory */
	struct control ctl;
	struct report rep;
	struct curve curve;		/* --load-curve: its points so far */
	bool start_refused;		/* under mpirun: another rank failed before the start */
	char err[600];
	/* --replay: the settings made from the capture (cfg points here), its plan, and
	 * what the report shows of it */
	struct config rcfg;
	struct replay_plan plan;
	uint8_t **replay_done;		/* per connection, per op (struct run's) */
	struct replay_report rrep;
};

/* replay_run.c: --replay's capture read and its plan made, *cfg then the settings made
 * from it; 0 or the exit status (2: not a capture, nothing to replay). */
int replay_open(struct app *a, const struct config **cfg);
/* The workers' counts into the report (after the phase). */
void replay_fill_report(struct app *a);
void replay_close(struct app *a);

/* --mix and the small-file test: the trees are the layout of a --mix run. */
int run_make_trees(struct app *a);
/* The layout phase, if some file is short of --size: 0 or the exit status. */
int run_layout(struct app *a);
/* The measured phase, or the small-file test's four passes, each timed on its own. */
void run_measure(struct app *a);
/* Whether the verify pass follows the measured phase (see run_verify_pass). */
bool run_verify_due(struct app *a);
/* --verify after a phase that wrote: read every block back, unless the run is ending
 * badly. 0 or the exit status. */
int run_verify_pass(struct app *a);

#endif
