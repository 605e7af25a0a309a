/*
 * worker: one thread, one libev loop, a share of the connections.
 *
 * Owns: its connections' streams and operation slots, the per-thread and
 * per-connection statistics, the refill loop (iodepth ops in flight per
 * connection) and the phase state. Nothing in the hot path locks: the only
 * mutex guards the once-an-interval hand-over of interval statistics.
 *
 * The main thread drives workers with worker_command (through an ev_async)
 * and learns of a finished phase through run->wake.
 */
#ifndef NFSLOAD_WORKER_H
#define NFSLOAD_WORKER_H

#include <ev.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "conn.h"
#include "meta.h"
#include "stats.h"
#include "verify.h"
#include "workload.h"

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
	const struct fileset *files;
	const uint8_t *pattern;		/* write data, see run_write_data */
	enum worker_phase phase;
	enum op_type pass_op;		/* small-file test: this pass's op; OP_NTYPES: none */
	uint64_t layout_bs;
	unsigned layout_depth;		/* layout and read-back requests in flight per connection */
	uint64_t measure_start_ns;	/* ops issued earlier are not recorded */
	struct ev_loop *main_loop;
	ev_async *wake;			/* a worker finished its phase */
	atomic_bool abort;		/* --on-error stop: a connection was lost */
	/* --verify (else NULL): the block format, and which blocks this run wrote */
	const struct verify_params *verify;
	struct verify_map *written;
	uint64_t verify_bs;		/* reads of the verify pass: whole blocks */
	atomic_bool verify_failed;	/* a mismatch, without --verify-continue */
};

/* Mismatches a worker keeps the details of (all are counted). */
#define WORKER_MISMATCHES_KEPT 8

struct verify_counts {
	uint64_t blocks;		/* checked */
	uint64_t bad;
	uint64_t by_kind[VERIFY_CHECKSUM + 1];
	unsigned nkept;
	struct verify_mismatch kept[WORKER_MISMATCHES_KEPT];
};

#define RUN_PATTERN_PERIOD 65536
/* Write data for file/offset: a pure function of both, see nfsload(1). */
const uint8_t *run_write_data(const struct run *run, uint32_t file, uint64_t offset);
/* Fills the shared pattern buffer (RUN_PATTERN_PERIOD + max block bytes). */
uint8_t *run_pattern_new(uint64_t max_bs);

struct wconn;

struct worker {
	unsigned id;
	struct run *run;
	pthread_t thread;
	bool started;
	struct ev_loop *loop;
	ev_async cmd_async;
	ev_timer tick;
	atomic_uint cmds;
	atomic_bool phase_done;
	atomic_uint swap_req, swap_ack;	/* interval hand-over sequence */

	unsigned nconns;
	struct wconn *conns;
	unsigned active;	/* connections still running this phase */
	bool stopping;
	bool open_loop;		/* this phase follows --rate */
	bool ramp_pending;	/* the ramp has not ended yet in this thread */
	unsigned commit_every;	/* this phase's --commit-every, 0 = none */
	bool meta;		/* this phase runs the --mix metadata workload */
	int due_fd;		/* open loop: timerfd for the soonest intended start */
	ev_io due_io;
	struct wconn **due_heap;
	unsigned nheap;
	uint64_t stop_ns;
	uint64_t max_lag_ns;	/* open loop: worst issue time past the schedule */
	ev_check deferred_check;	/* refills after failed operations */
	struct wconn **deferred;
	unsigned ndeferred;

	struct op_stats total[OP_NTYPES];	/* this phase, measured window */
	struct op_stats ival[OP_NTYPES];	/* since the last tick */
	pthread_mutex_t snap_mu;
	struct op_stats snap[OP_NTYPES];	/* handed to the main thread */

	bool checking;		/* this phase's reads are verified */
	struct verify_counts verify;	/* over the run */

	uint64_t phase_start_ns, last_done_ns;
	uint64_t cpu_start_ns, cpu_ns;	/* thread CPU: at the phase start, used in it */
};

#define CONN_ERR_KINDS 6
#define CONN_OUTAGES_MAX 8	/* outages kept per connection (all are counted) */

/*
 * One outage of a connection: from its last successful operation (start)
 * through the loss being noticed (detected) and the connection re-made, to
 * the first success after it (start + stall). Times since the measured
 * window began (negative: earlier, e.g. during the layout).
 */
struct conn_outage {
	int64_t start_ns, detected_ns;
	uint64_t stall_ns;		/* 0: nothing succeeded after it (yet) */
	uint64_t reconnect_ns;		/* detected -> ready again; 0 if never */
	uint64_t failed_ops;		/* operations that failed from start to recovery */
	uint32_t attempts;		/* reconnects tried */
	bool recovered;
};

/* Per-connection view for the report, read after the phase. */
struct conn_report {
	unsigned id;
	unsigned worker;
	uint64_t ops, bytes, errors;
	uint64_t p50_ns, p99_ns;
	uint64_t timeouts;		/* operations that hit --timeout */
	uint64_t reconnects;		/* successful ones */
	uint64_t noutages;		/* all of them; the first CONN_OUTAGES_MAX are kept */
	struct conn_outage outages[CONN_OUTAGES_MAX];
	bool down;			/* not connected at the end */
	uint64_t last_done_ns;		/* since the measured window began; 0 = none */
	bool done_issuing;		/* its stream was spent (or it failed) */
	uint64_t backlog_ops;		/* open loop: due but not issued at the stop */
	bool outlier;			/* p99 > 3x the median connection's p99 */
	bool stuck;			/* nothing completed in the last 2 intervals */
	/* errors by kind: errno (positive) or CONN_ERR_SHORT; count 0 = unused */
	struct { int code; uint64_t count; } err_kinds[CONN_ERR_KINDS];
	uint64_t err_other;		/* errors of kinds past the table */
	const char *error;	/* "" unless the connection failed */
};

/* Error code of a short transfer (fewer bytes than asked). */
#define CONN_ERR_SHORT 100000
/* A READ whose data failed --verify. */
#define CONN_ERR_VERIFY 100001
/* "ETIMEDOUT", "EIO", "short transfer", ...: the name of an error kind. */
const char *conn_err_name(int code);

/*
 * Creates connections first_id .. first_id + nconns - 1 and their streams.
 * The connections are not set up yet: see worker_conn.
 */
int worker_init(struct worker *w, unsigned id, struct run *run, unsigned first_id,
		unsigned nconns);
struct conn *worker_conn(struct worker *w, unsigned i);
/* Starts the thread and its loop (connections must be set up). */
int worker_start(struct worker *w);
/* EXIT, then pthread_join; worker_destroy then only frees. */
void worker_join(struct worker *w);
void worker_command(struct worker *w, enum worker_cmd cmd);
/*
 * Adds and clears the interval statistics handed over by the last
 * WORKER_CMD_SWAP (set swap_req first; swap_ack == swap_req once done).
 */
void worker_take_interval(struct worker *w, struct op_stats *out);
void worker_conn_report(const struct worker *w, unsigned i, struct conn_report *r);
/*
 * Joins the thread (after WORKER_CMD_EXIT) and frees everything; with
 * close_files, closes the files of healthy connections first.
 */
void worker_destroy(struct worker *w, bool close_files);

#endif
