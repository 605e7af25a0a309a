/*
 * cluster: one nfsload per MPI rank (mpirun -np N --host a,b,... nfsload ...),
 * in a build made with `make MPI=1` (Open MPI). Without MPI, or run without
 * mpirun, there is one rank and every call here is a no-op.
 *
 * The ranks lay out their own files (the rank in the work directory's name),
 * wait for each other before the measured phase, so time-based phases start
 * and stop together, and hand their JSON reports to rank 0, which prints one
 * report for all of them through --merge's code (histograms added exactly,
 * a row per rank).
 */
#ifndef NFSLOAD_CLUSTER_H
#define NFSLOAD_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>

/* MPI_Init when built with MPI: 0, or -1 (MPI failed to start; a line on stderr). */
int cluster_init(int *argc, char ***argv);
/* MPI_Finalize. */
void cluster_finish(void);
unsigned cluster_rank(void);
unsigned cluster_size(void);
/* Whether this binary was built with MPI. */
bool cluster_built(void);
/*
 * Every rank waits for all the others here, before the measured phase (once
 * per run), saying whether it got there ready (ok); true if every rank did.
 * A rank that failed earlier calls it with false on its way out, so the
 * others stop instead of waiting, and clean up as after any failed run.
 */
bool cluster_start(bool ok);
/* Whether this rank went through cluster_start(), and what it returned. */
bool cluster_started(void);
bool cluster_start_ok(void);
/*
 * Rank 0 receives every rank's text (its own included, in rank order) into
 * texts[0..size) (allocated; free with cluster_free_texts); the other ranks
 * send theirs and get NULL. 0 or -ENOMEM.
 */
int cluster_gather(const char *mine, size_t len, char ***texts);
void cluster_free_texts(char **texts);
/* The largest status of all ranks, on every rank. */
int cluster_max_status(int status);

/* cluster_run.c: the command line as one run per rank, one merged report (rank 0). */
int cluster_run(int argc, char **argv);

#endif
