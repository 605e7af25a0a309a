/*
 * The worker's private header, shared by its three files and nothing else:
 * worker.c (thread, loop, commands, phases), slots.c (issue, refill,
 * completion) and outage.c (loss, backoff, reconnect, records). Other
 * modules use include/worker.h.
 */
#ifndef NFSLOAD_WORKER_INT_H
#define NFSLOAD_WORKER_INT_H

#include <pthread.h>

#include "interval.h"
#include "meta.h"
#include "schedule.h"
#include "worker.h"

struct slot {
	struct engine_req req;	/* the engine hands it back in done() */
	uint64_t start_ns;	/* intended start: the issue itself unless open loop */
	uint64_t issue_ns;
	enum op_type type;
	uint32_t range;		/* which of the connection's files */
	uint32_t file;
	uint64_t offset;
	uint8_t *buf;		/* --verify: this slot's write data */
	struct meta_target tg;	/* --mix: what and where */
	uint32_t len;
	uint8_t tries;		/* a layout write: times issued (see redo_later) */
	bool busy;
};

/* A layout write to issue again (slots.c). */
struct redo_op {
	struct wl_op op;
	uint8_t tries;		/* times issued so far */
};

/* The link of a connection, as the worker sees it (--on-error continue re-makes it). */
enum wconn_link { LINK_UP, LINK_DOWN, LINK_REMAKING };

struct wconn {
	struct worker *w;
	unsigned idx;		/* in the worker */
	unsigned id;		/* in the run */
	unsigned srv;		/* its server (config_server_of) */
	struct engine_conn *conn;
	struct wl_stream main_stream, layout_stream, verify_stream, *stream;
	struct slot *slots;
	struct slot **free_slots;
	unsigned nfree;
	unsigned inflight;
	bool finished;
	bool refill_pending;
	bool done_issuing;	/* stream spent, or the engine refused a request */
	struct op_stats stats;	/* coarse histogram, all op types */
	uint64_t last_done_ns;
	struct conn_report errs;	/* timeouts and errors by kind, outages */
	unsigned setattrs;	/* --mix: which SETATTR comes next */

	enum wconn_link link;
	ev_timer retry;		/* the next attempt, or the deadline of the one running */
	uint64_t backoff_ns;
	uint64_t last_ok_ns;	/* last success, or when the link came up */
	uint64_t last_reply_ns;	/* last completion that was not a timeout */
	uint64_t errors_since_ok;
	bool lose_pending;	/* no reply for --timeout: lose it outside the engine */
	struct conn_outage *outage;	/* the one not over yet, NULL if none */
	char down_error[160];
	/* What the main thread reads of it (worker_conn_report): taken by the worker when
	 * its phase is done, by the main thread once the worker is joined; the error text
	 * copied, as the engine's changes with the link. */
	struct conn_report view;
	char view_error[320];

	struct meta_tree tree;	/* --mix, --small-files */
	uint64_t pass_next, pass_total;	/* small-file test: this connection's share */

	/* --commit-every: writes completed per file since its last COMMIT */
	uint32_t *writes_since_commit;
	bool *commit_due;
	unsigned ncommits_due;

	/* Layout writes lost with the link, sent again before anything new (iodepth of room). */
	struct redo_op *redo;
	unsigned nredo;
};

struct worker {
	unsigned id;
	struct run *run;
	const struct engine_ops *engine;
	struct engine_thread *eng;
	pthread_t thread;
	bool started;
	struct ev_loop *loop;
	ev_async cmd_async;
	ev_timer tick;
	atomic_uint cmds;
	atomic_bool phase_done;
	struct ival_box box;

	unsigned nconns;
	struct wconn *conns;
	unsigned active;	/* connections still running this phase */
	bool stopping;
	bool open_loop;		/* this phase follows --rate */
	bool ramp_pending;	/* the ramp has not ended yet in this thread */
	unsigned commit_every;	/* this phase's --commit-every, 0 = none */
	bool meta;		/* this phase runs the --mix metadata workload */
	bool wire;		/* --wire-time with an engine that measures it */
	struct schedule sched;	/* open loop */
	uint64_t stop_ns;
	uint64_t max_lag_ns;	/* open loop: worst issue time past the schedule */
	ev_check deferred_check;	/* refills after failed operations */
	struct wconn **deferred;
	unsigned ndeferred;

	struct op_stats total[OP_NTYPES];	/* this phase, measured window */
	struct op_stats *srv;		/* the same per server (several servers), all op types */
	struct op_stats *srv_ival;	/* --series-by server: the interval's, per server */
	struct op_stats ival[OP_NTYPES];	/* since the last hand-over */

	uint64_t rewrites;	/* this phase: writes re-issued after their link was lost */
	bool checking;		/* this phase's reads are verified */
	struct verify_counts verify;	/* over the run */

	uint64_t phase_start_ns, last_done_ns;
	uint64_t cpu_start_ns, cpu_ns;	/* thread CPU: at the phase start, used in it */
};

extern const struct engine_cbs worker_engine_cbs;

/* worker.c */
/* The connection is done with this phase (its stream spent, or stopped). */
void wconn_finish(struct wconn *wc);
/* --on-error stop: the main thread ends the run. */
void worker_abort_run(struct worker *w);
/* The ramp is over: its interval statistics only ever fed the live line. */
void worker_end_ramp(struct worker *w);

/* slots.c */
/* Issues what the connection may (closed loop: fill its slots; open loop: what is due). */
void slots_refill(struct wconn *wc, uint64_t t);
/* The engine's done(). */
void slots_done(void *owner, struct engine_req *req, int status);
/* Requests in flight will never complete: counts them as ECONNABORTED, frees the slots. */
void slots_fail_inflight(struct wconn *wc);
/* Counts an error of kind status (-errno) against the connection. */
void slots_count_error(struct wconn *wc, int status);
/* The open loop's schedule reached connection i. */
void slots_due(void *arg, unsigned i, uint64_t t);

/* outage.c */
/* The connection is gone: an outage opens and, with --on-error continue, it is re-made. */
void outage_link_lost(struct wconn *wc);
/* Records the start of an outage noticed at t (one not over yet is kept). */
void outage_open(struct wconn *wc, uint64_t t);
/* A success at t: an open outage is over. */
void outage_close(struct wconn *wc, uint64_t t);
/* The phase starts with the connection down (lost while the last one drained). */
void outage_retry_now(struct wconn *wc, uint64_t t);
/* The phase stops: no reconnect goes on in the background. */
void outage_stop(struct wconn *wc);
void outage_lost_cb(void *owner, struct engine_conn *c);
void outage_ready_cb(void *owner, struct engine_conn *c, bool ok);
void outage_retry_cb(struct ev_loop *loop, ev_timer *t, int revents);

#endif
