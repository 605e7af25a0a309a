/*
 * setup: makes every connection ready before the first phase, many at once.
 *
 * Owns: the set-up window (at most SETUP_WINDOW connections being set up at
 * a time, the next one starting as one ends), the deadline, and the timing
 * of each set-up step the engine reports. Engine-neutral: it only calls
 * the engine's connect, tick, drop and detach. Runs on the calling thread,
 * on a private loop; afterwards the connections are detached, ready to be
 * attached to the workers' loops.
 */
#ifndef NFSLOAD_SETUP_H
#define NFSLOAD_SETUP_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "report.h"

#define SETUP_WINDOW 128	/* connections being set up at once */

struct engine_conn;
struct engine_inst;

/*
 * Connects conns[0..n) for at most deadline_ns. 0 when all are ready; else
 * -EIO with err saying how many failed and the first reason (the failed
 * ones are dropped).
 */
int setup_all(struct engine_inst *inst, const struct config *cfg,
	      const struct engine_params *params, struct engine_conn **conns, unsigned n,
	      uint64_t deadline_ns, struct setup_times *times, char *err, size_t errlen);

#endif
