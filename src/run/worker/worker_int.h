/*
 * The worker's private header, shared by its files and nothing else. From
 * the top down, each calling only the ones below it:
 *   worker.c        the thread, its loop, commands and phases
 *   slots_done.c    a completion: status, latency, what follows it
 *   slots_verify.c  --verify: reads checked, written blocks marked
 *   outage.c        a connection lost, backoff, reconnect, outage records
 *   slots_issue.c   what a connection sends next (closed and open loop)
 *   slots_replay.c  --replay's next operations, and replies compared with the trace's
 *   slots_mix.c     --mix and the small-file passes
 *   slots_fail.c    errors counted, refused and lost requests, rewrites
 *   wconn.c         a connection made, begun, finished and freed
 *   slots_log.c     --op-log: a counted request's row
 * What the engine calls (done, lost, ready) is worker.c's table, handed to
 * the engine by pointer (worker->cbs) when a connection is attached or
 * made again. Other modules use include/worker.h.
 */
#ifndef NFSLOAD_WORKER_INT_H
#define NFSLOAD_WORKER_INT_H

#include <pthread.h>
#include <sys/resource.h>
#include <time.h>

#include "interval.h"
#include "oplog_file.h"
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
	uint8_t *buf;		/* this slot's write data, made at its first write */
	uint64_t buf_key;	/* pattern_key of what buf holds (0: anything else) */
	uint32_t buf_len;	/* and how many bytes of it */
	struct meta_target tg;	/* --mix: what and where */
	uint32_t len;
	uint8_t tries;		/* a layout write: times issued (see redo_later) */
	uint32_t rp_idx;	/* --replay: which of the connection's operations */
	bool busy;
};

/* A layout write to issue again (slots_fail.c). */
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

	/* --replay: its operations, the next to issue, and which have completed (run->
	 * replay_done's, atomic) */
	const struct replay_conn *rp;
	uint32_t rp_next;
	uint8_t *rp_done;
};

struct worker {
	unsigned id;
	struct run *run;
	const struct engine_ops *engine;
	struct engine_thread *eng;
	const struct engine_cbs *cbs;	/* what the engine calls back (worker.c's table) */
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
	ev_check deferred_check;	/* refills after failed operations (worker.c) */
	ev_idle deferred_idle;		/* while one waits: the loop's next poll does not block */
	struct wconn **deferred;
	unsigned ndeferred;

	struct op_stats total[OP_NTYPES];	/* this phase, measured window */
	struct op_stats *srv;		/* the same per server (several servers), all op types */
	struct op_stats *srv_ival;	/* --series-by server: the interval's, per server */
	struct op_stats ival[OP_NTYPES];	/* since the last hand-over */
	struct oplog_buf *oplog;	/* --op-log: this thread's rows, else NULL */
	bool logging;			/* this phase's counted operations go to it */

	uint64_t rewrites;	/* this phase: writes re-issued after their link was lost */
	bool checking;		/* this phase's reads are verified */
	struct replay_counts replay;	/* --replay: over the run */
	struct verify_counts verify;	/* over the run */

	uint64_t phase_start_ns, last_done_ns;
	uint64_t cpu_start_ns, cpu_ns;	/* thread CPU: at the phase start, used in it */
	uint64_t sleeps_start, sleeps;	/* its voluntary context switches: the same */
};

/* Thread CPU time, for the share of a phase the thread was busy. */
static inline uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
}

/* The thread's voluntary context switches so far: each is a sleep (and a wake). */
static inline uint64_t thread_sleeps(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) == 0 ? (uint64_t)ru.ru_nvcsw : 0;
}

/* slots_done.c */
/* The engine's done(). */
void slots_done(void *owner, struct engine_req *req, int status);
/* The ramp is over: its interval statistics only ever fed the live line. */
void worker_end_ramp(struct worker *w);

/* slots_verify.c */
/* --verify on a completion of s with data (a READ's): status, or -CONN_ERR_VERIFY. */
int slots_verify(struct wconn *wc, const struct slot *s, const uint8_t *data, int status);

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

/* slots_issue.c */
/* Issues what the connection may (closed loop: fill its slots; open loop: what is due). */
void slots_refill(struct wconn *wc, uint64_t t);
/* The open loop's schedule reached connection i. */
void slots_due(void *arg, unsigned i, uint64_t t);

/* slots_mix.c */
/* --mix or a small-file pass: slots_refill's requests in such a phase. */
void slots_refill_meta(struct wconn *wc, uint64_t t);
/* --mix with --open-files: the tree's held files as the engine has them after a set-up. */
void slots_held_sync(struct wconn *wc);

/* slots_replay.c */
/* --replay: slots_refill's requests: the connection's next operations as they come due. */
void slots_refill_replay(struct wconn *wc, uint64_t t);
/* A replayed operation ended with status: compared with the trace's; the status to record. */
int slots_replay_done(struct wconn *wc, const struct slot *s, int status);

/* slots_fail.c */
/* Counts an error of kind status (-errno) against the connection. */
void slots_count_error(struct wconn *wc, int status);
/* Whether status says a request went down with its link, not what the server made of it. */
bool slots_lost_with_link(int status);
/* A layout write lost with its link: queued to be sent again (if it may be). */
void slots_redo_later(struct wconn *wc, const struct slot *s);
/* Hands s->req to the engine: true, in flight; false, refused (slots_refused done). */
bool slots_queue(struct wconn *wc, struct slot *s, uint64_t t);
/* The engine refused s (rc, at t): an error, and the connection issues nothing more. */
void slots_refused(struct wconn *wc, struct slot *s, int rc, uint64_t t);
/*
 * An NFSv4.2 op (class OPC_FILE) refused as the server does not have it (status
 * -EOPNOTSUPP: NFS4ERR_NOTSUPP, -ENOSYS: NFS4ERR_OP_ILLEGAL): with --on-error stop the
 * run ends (its first refusal's line, exit 1) and the connection issues nothing more.
 * Returns the status to count, -CONN_ERR_NOTSUPP or -CONN_ERR_OP_ILLEGAL.
 */
int slots_file_refused(struct wconn *wc, const struct slot *s, int status);
/* Requests in flight will never complete: counts them as ECONNABORTED, frees the slots. */
void slots_fail_inflight(struct wconn *wc);

/* wconn.c */
/* Everything connection id (the worker's idx-th) needs; on failure wconn_destroy frees
 * what was made. 0 or -errno. */
int wconn_init(struct worker *w, struct wconn *wc, unsigned idx, unsigned id);
void wconn_destroy(struct worker *w, struct wconn *wc);
/* A connection's state at the start of a phase; outages and reconnects are the run's. */
void wconn_begin(struct wconn *wc, enum worker_phase phase, uint64_t t);
/* The connection is done with this phase (its stream spent, or stopped). */
void wconn_finish(struct wconn *wc);
/* Every connection of w as the report shows it, into its view (worker_conn_report):
 * by the worker when its phase is done, by the main thread once it is joined. */
void wconn_views(struct worker *w);

/* slots_log.c */
/* --op-log: a row for s, which the report counts as it completes at t with status
 * (bytes, or -errno). Called only where the totals count it, when w->logging. */
void slots_log(struct wconn *wc, const struct slot *s, int status, uint64_t t);

#endif
