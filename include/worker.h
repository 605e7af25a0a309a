/*
 * worker: one thread, one libev loop, a share of the connections.
 *
 * Owns: its connections' streams and operation slots, the per-thread and
 * per-connection statistics, the refill loop (iodepth operations in flight
 * per connection, or the open loop's schedule), outages and reconnects, and
 * the phase state. Nothing in the hot path locks: interval statistics cross
 * to the main thread through the worker's ival_box (interval.h).
 *
 * The main thread drives workers with worker_command (through an ev_async)
 * and learns of a finished phase through run->wake. Everything read from a
 * worker besides worker_phase_done and its box is read only while the
 * worker is idle (its phase done) or joined.
 */
#ifndef NFSLOAD_WORKER_H
#define NFSLOAD_WORKER_H

#include <ev.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "report.h"
#include "config.h"
#include "engine.h"
#include "replay.h"
#include "stats.h"
#include "verify.h"
#include "workload.h"
#include "workdir.h"

/* PHASE_VERIFY: --verify reads back and checks every block after a phase that wrote. */
enum worker_phase { PHASE_LAYOUT, PHASE_MAIN, PHASE_VERIFY };

enum worker_cmd {
	WORKER_CMD_PHASE = 1 << 0,	/* start run->phase */
	WORKER_CMD_STOP = 1 << 1,	/* stop issuing, drain, report done */
	WORKER_CMD_EXIT = 1 << 2,	/* leave the loop */
	WORKER_CMD_SWAP = 1 << 3,	/* hand the interval statistics over */
};

/* Shared, read-only while a phase runs (set by the main thread before it). */
struct run {
	const struct config *cfg;
	const struct engine_params *params;	/* what the engine is told (params.h) */
	struct engine_inst *inst;	/* the engine's instance (engine_ops.init) */
	/* The files as found: one set, or with servers of a namespace each, one per server
	 * (files[server]), each server's connections then covering every file among
	 * themselves: local_id[conn] is the connection's rank among its server's. */
	const struct fileset *files;
	bool ns_each;
	const unsigned *local_id;
	const uint8_t *pattern;		/* write data, see pattern.h */
	/* A small file's whole content (--mix, the small-file test, their trees; NULL
	 * without --file-size): file 0 from offset 0, stamped as every write is (pattern_fill) */
	const uint8_t *small_data;
	unsigned dedupe_pct;		/* --dedupe-percentage: writes made by pattern_fill */
	enum worker_phase phase;
	double rate;			/* open loop: this phase's ops/s (--rate or a curve's point) */
	enum op_type pass_op;		/* small-file test: this pass's op; OP_NTYPES: none */
	uint64_t layout_bs;
	unsigned layout_depth;		/* layout and read-back requests in flight per connection */
	uint64_t measure_start_ns;	/* ops issued earlier are not recorded */
	/* --op-log (else NULL): the file, and its times' origin, the first measured
	 * window's start (the small-file test's passes go on from it) */
	struct oplog *oplog;
	uint64_t oplog_origin_ns;
	struct ev_loop *main_loop;
	ev_async *wake;			/* a worker finished its phase, or answered */
	atomic_bool abort;		/* --on-error stop: a connection was lost */
	/* --on-error stop: the first NFSv4.2 op the server refused (report_refusal_code:
	 * (op + 1) | code << 16, code CONN_ERR_NOTSUPP or CONN_ERR_OP_ILLEGAL), 0: none */
	atomic_uint refusal;
	const uint8_t *xattr_value;	/* --mix's SETXATTR: --xattr-size bytes from the seed */
	/* --verify (else NULL): the block format, and which blocks this run wrote */
	const struct verify_params *verify;
	struct verify_map *written;
	struct verify_map *written_ns[CFG_SERVERS_MAX];	/* ns_each: one per server */
	uint64_t verify_bs;		/* reads of the verify pass: whole blocks */
	atomic_bool verify_failed;	/* a mismatch, without --verify-continue */
	/* --replay (else NULL): connection id replays replay->conns[id], each op at
	 * measure_start_ns + its time / cfg->replay_speed */
	const struct replay_plan *replay;
	/* Per connection, per op: completed (1), written by the owner's thread, read by any
	 * (atomic: another connection's op may wait for it) */
	uint8_t *const *replay_done;
};

/* --replay: how the replay's statuses compare with the trace's, and its pace. */
struct replay_counts {
	uint64_t late;			/* issued more than 1 ms after their time */
	uint64_t both_failed;		/* failed in the trace too: not an error */
	uint64_t only_trace_failed;	/* failed in the trace, succeeded on replay */
	uint64_t new_errors;		/* succeeded in the trace, failed on replay */
	uint64_t not_issued;		/* left when the run stopped */
	uint64_t first_issue_ns, last_issue_ns;
};

/* What a worker did in the phase just ended. */
struct worker_figures {
	unsigned nconns;
	uint64_t phase_start_ns, last_done_ns;
	uint64_t cpu_ns;		/* thread CPU used in the phase */
	uint64_t sleeps;		/* the thread's voluntary context switches in it */
	uint64_t max_lag_ns;		/* open loop: worst issue past the schedule */
	uint64_t rewrites;		/* layout: writes re-issued after their link was lost */
};

struct worker;

/*
 * A worker for connections first_id .. first_id + nconns - 1, their streams
 * and engine connections (not set up yet: see worker_conn). 0 or -errno;
 * on failure nothing is left allocated.
 */
int worker_new(unsigned id, struct run *run, unsigned first_id, unsigned nconns,
	       struct worker **out);
/* Connection i of the worker, for set-up before worker_start. */
struct engine_conn *worker_conn(struct worker *w, unsigned i);
/* Starts the thread and its loop (connections must be set up). 0 or -errno. */
int worker_start(struct worker *w);
void worker_command(struct worker *w, enum worker_cmd cmd);
/* The phase started by the last WORKER_CMD_PHASE is over on this worker. */
bool worker_phase_done(const struct worker *w);
/* Marks the phase not done (before WORKER_CMD_PHASE). */
void worker_phase_begin(struct worker *w);
/* Its interval hand-over box (interval.h). */
struct ival_box *worker_ival_box(struct worker *w);
/* EXIT, then pthread_join. */
void worker_join(struct worker *w);

/* After the phase (idle or joined): */
void worker_figures(const struct worker *w, struct worker_figures *f);
/* ops[] += the phase's totals by op type (exact). */
void worker_add_totals(const struct worker *w, struct op_stats *ops);
/* Several servers: dst += the phase's figures of server k. */
void worker_add_server_total(const struct worker *w, unsigned k, struct op_stats *dst);
void worker_conn_report(const struct worker *w, unsigned i, struct conn_report *r);
const struct verify_counts *worker_verify(const struct worker *w);
/* --replay: c += the worker's counts. */
void worker_add_replay(const struct worker *w, struct replay_counts *c);

/*
 * Joins the thread if needed and frees everything; with close_files, closes
 * the files of healthy connections first. NULL is a no-op.
 */
void worker_free(struct worker *w, bool close_files);

#endif
