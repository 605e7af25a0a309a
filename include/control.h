/*
 * control: the main thread's loop while a run goes on.
 *
 * Owns: the phases' clock (ramp, planned end, the drain after the stop),
 * SIGINT/SIGTERM (through a signalfd: a signal never interrupts a
 * synchronous server call of the main thread), the interval ticks and the
 * rows of the series they cut, the live line, and the wait for the workers.
 * Main thread only.
 */
#ifndef NFSLOAD_CONTROL_H
#define NFSLOAD_CONTROL_H

#include <ev.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>

#include "config.h"
#include "interval.h"
#include "series.h"
#include "worker.h"

/* The interval cuts (interval.h's protocol, the main thread's side). */
struct ival_swap {
	unsigned seq;
	bool pending;			/* a cut asked for, not yet answered by all */
	uint64_t prev_ns, ns;		/* the cut before, and this one */
};

struct control {
	const struct config *cfg;
	struct run *run;
	struct series *series;
	struct worker **workers;
	unsigned nworkers;

	struct ev_loop *loop;
	ev_async wake;
	ev_signal sigint, sigterm;
	ev_timer tick_timer, ramp_timer, end_timer, drain_timer;
	bool live, live_tty;
	bool stopping, drain_timed_out;
	bool refusal_said;	/* the run's refusal (struct run's) has had its line */
	int signal;			/* SIGINT/SIGTERM that stopped the run, or 0 */
	struct ival_swap swap;
	bool swap_waiting;		/* the last cut: the loop runs until it is answered */
	uint64_t row_start_ns;		/* where the next row of the series begins */
	uint64_t phase_start_ns, stop_ns;
	int64_t start_unix_ns;		/* wall clock when measuring began */
	struct rusage ru_start, ru_end;	/* process CPU over the measured window */
	struct op_stats ival[OP_NTYPES];	/* the interval just handed over */
	struct op_stats *srv_ival;		/* --series-by server: per server, else NULL */
	struct hist live_hist;		/* reads and writes together, for the live line */
	uint64_t end_ns;		/* a time-based phase's planned end, else 0 */
	bool series_begun;		/* a measured phase set the series' origin */
};

/*
 * The main thread's loop (libev's default loop, with a signalfd), its
 * watchers, and run->main_loop / run->wake. 0 or -ENOMEM.
 */
int control_init(struct control *c, const struct config *cfg, struct run *run,
		 struct series *series);
void control_destroy(struct control *c);
/* The workers the phases run on. */
void control_workers(struct control *c, struct worker **w, unsigned n);
/*
 * Runs one phase on every worker until it ends (its size is spent, its
 * time is up, a signal, --on-error stop or a --verify mismatch), with the
 * series' rows cut on schedule. Returns the measured window's length.
 */
uint64_t control_run_phase(struct control *c, enum worker_phase phase);
/* Every worker finished the phase (else some are still draining). */
bool control_all_done(const struct control *c);
/* After a phase: a phase left early (workers still draining) ends the workers. */
void control_settle(struct control *c);
/* Stops and joins every worker thread. */
void control_join(struct control *c);
/* Whether the run is over early: a signal, a drain timeout, --on-error stop. */
bool control_cut_short(const struct control *c);

#endif
