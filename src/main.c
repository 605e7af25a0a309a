/*
 * main: parse, prepare the work directory, connect, run the phases (layout,
 * then the workload), merge the per-thread statistics, report, clean up.
 *
 * The main thread owns its own libev loop: signals, the live line, the end
 * of a time-based run and the workers' "phase done" notices all arrive there.
 */
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <ev.h>

#include "config.h"
#include "conn.h"
#include "job.h"
#include "report.h"
#include "series.h"
#include "units.h"
#include "worker.h"

/* 128 + signal when stopped by one */
enum { EXIT_RUNTIME = 1, EXIT_USAGE = 2, EXIT_VERIFY = 3 };

/* A run's figures for a job's summary, and what it created. */
struct run_result {
	struct job_row row;
	struct fileset fs;
};

/* Per work directory, what a job's runs created: removed after the last run. */
struct job_dir {
	struct config cfg;	/* a run's, to reach the server */
	struct fileset fs;	/* what any run created there */
	bool keep;
	bool trees;		/* a --mix or small-file run made trees: tree_cfg's */
	struct config tree_cfg;
};

struct app {
	struct config cfg;
	FILE *out;
	FILE *html;			/* --report, or NULL */
	struct series series;
	struct ctl *ctl;
	struct fileset fs;
	struct run run;
	struct verify_params verify;
	struct worker *workers;
	unsigned nworkers;

	struct ev_loop *loop;
	ev_async wake;
	ev_signal sigint, sigterm;
	ev_timer tick_timer, ramp_timer, end_timer, drain_timer;
	bool live, live_tty;
	bool stopping, drain_timed_out;
	int signal;			/* SIGINT/SIGTERM that stopped the run */
	unsigned swap_seq;		/* interval hand-over in progress */
	bool swap_pending, swap_waiting;
	uint64_t swap_prev_ns, swap_ns;
	uint64_t row_start_ns;		/* where the next row of the series begins */
	uint64_t phase_start_ns, stop_ns;
	int64_t start_unix_ns;
	struct rusage ru_start, ru_end;
	struct op_stats ival[OP_NTYPES];	/* the interval just handed over */
	struct hist live_hist;		/* reads and writes together, for the live line */
	uint64_t end_ns;		/* a time-based phase's planned end, else 0 */
};

static void die(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void die(int status, const char *fmt, ...)
{
	va_list ap;

	fputs("nfsload: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(status);
}

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static int64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Room for every connection's socket, or a clear reason why not. */
static void raise_nofile(unsigned connections)
{
	struct rlimit rl;
	rlim_t need = (rlim_t)connections + 64;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= need)
		return;
	if (rl.rlim_max < need) {
		rl.rlim_max = need;	/* only root may raise the hard limit */
		if (setrlimit(RLIMIT_NOFILE, &(struct rlimit){ need, need }) == 0)
			return;
		getrlimit(RLIMIT_NOFILE, &rl);
		die(EXIT_RUNTIME, "--connections %u needs %llu open files, the limit is %llu "
		    "(raise it with ulimit -n)", connections, (unsigned long long)need,
		    (unsigned long long)rl.rlim_max);
	}
	rl.rlim_cur = need;
	setrlimit(RLIMIT_NOFILE, &rl);
}

static bool all_done(const struct app *app)
{
	for (unsigned i = 0; i < app->nworkers; i++)
		if (!atomic_load(&app->workers[i].phase_done))
			return false;
	return true;
}

static void begin_stop(struct app *app)
{
	if (app->stopping)
		return;
	app->stopping = true;
	app->stop_ns = now_ns();
	getrusage(RUSAGE_SELF, &app->ru_end);
	ev_timer_stop(app->loop, &app->tick_timer);	/* final_interval cuts the rest */
	for (unsigned i = 0; i < app->nworkers; i++)
		worker_command(&app->workers[i], WORKER_CMD_STOP);
	/* Operations stuck on a dead server time out in libnfs; don't wait longer. */
	ev_timer_set(&app->drain_timer, (double)app->cfg.timeout_ns / 1e9 + 2.0, 0.);
	ev_timer_start(app->loop, &app->drain_timer);
}

/* The live line for the interval in app->ival. */
static void live_print(struct app *app, uint64_t ns)
{
	const struct op_stats *s = app->ival;
	struct hist *both = &app->live_hist;
	uint64_t ops = 0, bytes = 0, errors = 0;
	char p99[32];

	for (int t = 0; t < OP_NTYPES; t++) {
		ops += s[t].ops;
		bytes += s[t].bytes;
		errors += s[t].errors;
	}
	hist_reset(both);
	hist_add(both, &s[OP_READ].lat);
	hist_add(both, &s[OP_WRITE].lat);
	fprintf(stderr, "%s[%6.1fs] %s %9.0f IOPS %9.1f MiB/s  p99 %9s  errors %llu%s",
		app->live_tty ? "\r" : "", (double)(app->swap_ns - app->phase_start_ns) / 1e9,
		app->run.phase == PHASE_LAYOUT ? "layout" : "run   ",
		ns ? (double)ops * 1e9 / (double)ns : 0.,
		ns ? (double)bytes * 1e9 / (double)ns / 1048576.0 : 0.,
		units_format_duration(hist_percentile(both, 99), p99, sizeof(p99)),
		(unsigned long long)errors, app->live_tty ? "   " : "\n");
	fflush(stderr);
}

/* Every thread handed the interval over: one row per op type, the live line. */
static void interval_done(struct app *app)
{
	uint64_t end = app->swap_ns, start = app->row_start_ns;
	bool in_window = app->run.phase == PHASE_MAIN && end > app->run.measure_start_ns;

	for (unsigned i = 0; i < app->nworkers; i++)
		worker_take_interval(&app->workers[i], app->ival);
	if (app->live && !app->swap_waiting && end > app->swap_prev_ns)
		live_print(app, end - app->swap_prev_ns);
	/*
	 * Rows tile the measured window from its start (the interval the ramp
	 * ends in holds measured operations only, see worker). A sliver, such as
	 * a cut just after the ramp, is carried into the next row; only the last
	 * one, at the stop, may be short.
	 */
	if (in_window && end > start) {
		if ((end - start) * 100 < app->cfg.interval_ns && !app->swap_waiting)
			return;
		if (series_add(&app->series, start, end, app->ival))
			fprintf(stderr, "nfsload: cannot write the interval series\n");
		app->row_start_ns = end;
	}
	op_stats_reset_all(app->ival);
}

/* Asks every thread to cut its interval at t; false while one is pending. */
static bool request_swap(struct app *app, uint64_t t)
{
	if (app->swap_pending)
		return false;
	app->swap_seq++;
	app->swap_pending = true;
	app->swap_prev_ns = app->swap_ns;
	app->swap_ns = t;
	for (unsigned i = 0; i < app->nworkers; i++) {
		atomic_store(&app->workers[i].swap_req, app->swap_seq);
		worker_command(&app->workers[i], WORKER_CMD_SWAP);
	}
	return true;
}

static bool swap_done(const struct app *app)
{
	for (unsigned i = 0; i < app->nworkers; i++)
		if (atomic_load(&app->workers[i].swap_ack) != app->swap_seq)
			return false;
	return true;
}

static void wake_cb(struct ev_loop *loop, ev_async *w, int revents)
{
	struct app *app = w->data;

	(void)revents;
	if (atomic_load(&app->run.abort) && !app->stopping) {
		fprintf(stderr, "nfsload: a connection was lost: stopping the run (--on-error stop)\n");
		begin_stop(app);
	}
	if (atomic_load(&app->run.verify_failed) && !app->stopping) {
		fprintf(stderr, "nfsload: --verify: data mismatch: stopping the run "
			"(--verify-continue counts them all)\n");
		begin_stop(app);
	}
	if (app->swap_pending && swap_done(app)) {
		app->swap_pending = false;
		interval_done(app);
		if (app->swap_waiting) {
			ev_break(loop, EVBREAK_ONE);
			return;
		}
	}
	if (!all_done(app))
		return;
	if (!app->stopping) {
		/* Size-based end: the measured window closes at the last completion. */
		uint64_t last = 0;

		for (unsigned i = 0; i < app->nworkers; i++)
			if (app->workers[i].last_done_ns > last)
				last = app->workers[i].last_done_ns;
		app->stopping = true;
		app->stop_ns = last;
		ev_timer_stop(loop, &app->tick_timer);
		getrusage(RUSAGE_SELF, &app->ru_end);
	}
	ev_break(loop, EVBREAK_ONE);
}

static void signal_cb(struct ev_loop *loop, ev_signal *w, int revents)
{
	struct app *app = w->data;

	(void)revents;
	if (app->stopping) {
		ev_break(loop, EVBREAK_ONE);	/* a second ^C: stop waiting */
		return;
	}
	app->signal = w->signum;
	begin_stop(app);
}

static void end_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)loop;
	(void)revents;
	begin_stop(w->data);
}

static void drain_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct app *app = w->data;

	(void)revents;
	app->drain_timed_out = true;
	ev_break(loop, EVBREAK_ONE);
}

static void ramp_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct app *app = w->data;

	(void)loop;
	(void)revents;
	getrusage(RUSAGE_SELF, &app->ru_start);
	app->start_unix_ns = realtime_ns();
}

/*
 * Cuts an interval (the row follows in wake_cb once every thread answered)
 * and schedules the next cut: every --interval from the start of the
 * measured window, and during a ramp also at its end.
 */
static void tick_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct app *app = w->data;
	uint64_t t = now_ns(), m = app->run.measure_start_ns, d = app->cfg.interval_ns, next;

	(void)revents;
	request_swap(app, t);	/* a thread still busy with the last one: a longer interval */
	if (t < m)
		next = t + d < m ? t + d : m;
	else
		next = m + ((t - m) / d + 1) * d;
	/* The stop cuts the last interval: none just before it, to leave no sliver. */
	if (app->end_ns && next + d / 10 >= app->end_ns)
		return;
	ev_timer_set(w, (double)(next - t) / 1e9, 0.);
	ev_timer_start(loop, w);
}

/* The last, partial interval: from the last cut to the stop. */
static void final_interval(struct app *app)
{
	app->swap_waiting = true;
	ev_timer_set(&app->drain_timer, (double)app->cfg.timeout_ns / 1e9 + 2.0, 0.);
	ev_timer_start(app->loop, &app->drain_timer);
	while (app->swap_pending && !app->drain_timed_out)
		ev_run(app->loop, 0);
	if (app->stop_ns > app->swap_ns && request_swap(app, app->stop_ns))
		while (app->swap_pending && !app->drain_timed_out)
			ev_run(app->loop, 0);
	ev_timer_stop(app->loop, &app->drain_timer);
	app->swap_waiting = false;
}

/* Runs one phase on every worker until it ends; returns its wall time. */
static uint64_t run_phase(struct app *app, enum worker_phase phase)
{
	const struct config *cfg = &app->cfg;
	double ramp = phase == PHASE_MAIN ? (double)cfg->ramp_ns / 1e9 : 0.;

	/* The loop's clock is stale after set-up: timers must count from now. */
	ev_now_update(app->loop);
	app->stopping = false;
	app->phase_start_ns = now_ns();
	app->swap_ns = app->phase_start_ns;
	app->swap_pending = false;
	app->run.phase = phase;
	app->run.measure_start_ns = app->phase_start_ns + (phase == PHASE_MAIN ? cfg->ramp_ns : 0);
	app->row_start_ns = app->run.measure_start_ns;
	getrusage(RUSAGE_SELF, &app->ru_start);
	app->start_unix_ns = realtime_ns();
	for (unsigned i = 0; i < app->nworkers; i++) {
		atomic_store(&app->workers[i].phase_done, false);
		worker_command(&app->workers[i], WORKER_CMD_PHASE);
	}
	if (ramp > 0) {
		ev_timer_set(&app->ramp_timer, ramp, 0.);
		ev_timer_start(app->loop, &app->ramp_timer);
	}
	app->end_ns = 0;
	if (phase == PHASE_MAIN && cfg->runtime_ns) {
		app->end_ns = app->run.measure_start_ns + cfg->runtime_ns;
		ev_timer_set(&app->end_timer, ramp + (double)cfg->runtime_ns / 1e9, 0.);
		ev_timer_start(app->loop, &app->end_timer);
	}
	if (phase == PHASE_MAIN)
		series_begin(&app->series, app->run.measure_start_ns);
	if (app->live || phase == PHASE_MAIN) {
		ev_timer_set(&app->tick_timer, (double)(ramp > 0 && cfg->ramp_ns < cfg->interval_ns ?
						cfg->ramp_ns : cfg->interval_ns) / 1e9, 0.);
		ev_timer_start(app->loop, &app->tick_timer);
	}
	ev_run(app->loop, 0);
	ev_timer_stop(app->loop, &app->end_timer);
	ev_timer_stop(app->loop, &app->ramp_timer);
	ev_timer_stop(app->loop, &app->drain_timer);
	ev_timer_stop(app->loop, &app->tick_timer);
	if (phase == PHASE_MAIN && !app->drain_timed_out)
		final_interval(app);
	if (app->live && app->live_tty)
		fputc('\n', stderr);
	return app->stop_ns > app->run.measure_start_ns ? app->stop_ns - app->run.measure_start_ns : 0;
}

/*
 * Layout writes are big for speed, but libnfs copies each WRITE into a fresh
 * buffer: keep the bytes in flight across all connections near 64 MiB.
 */
static uint64_t layout_block_size(const struct config *cfg)
{
	uint64_t bs = 1u << 20;

	if (conn_max_write(cfg->nfs_version) < bs)
		return cfg->verify ? cfg->bs : 3584;	/* 7 sectors, under libnfs 4.0's NFSv4 limit */
	while (bs > (64u << 10) && bs * cfg->connections * cfg->iodepth > (64u << 20))
		bs /= 2;
	/* --verify writes whole blocks of --bs, each with its header. */
	if (cfg->verify)
		bs = bs < cfg->bs ? cfg->bs : bs / cfg->bs * cfg->bs;
	return bs;
}

/* --verify after a phase that wrote: read every block back, unless the run is ending badly. */
static bool wants_verify_pass(const struct app *app)
{
	const struct config *cfg = &app->cfg;

	return cfg->verify && !cfg->verify_only && wl_mode_read_pct(cfg->rw, cfg->rwmixread) < 100 &&
	       !app->signal && !app->drain_timed_out && all_done(app) &&
	       !atomic_load(&app->run.abort) && !atomic_load(&app->run.verify_failed);
}

static void collect(struct app *app, struct op_stats *ops);
static void settle_workers(struct app *app);

static void verify_pass(struct app *app, struct report *r)
{
	struct op_stats ops[OP_NTYPES];
	uint64_t measure_start = app->run.measure_start_ns;

	if (app->live)
		fprintf(stderr, "nfsload: reading every block back to check it\n");
	r->verify_pass_ns = run_phase(app, PHASE_VERIFY);
	settle_workers(app);
	app->run.measure_start_ns = measure_start;	/* outage times stay the main phase's */
	if (op_stats_init_all(ops, HIST_PRECISE_BITS, false))
		die(EXIT_RUNTIME, "out of memory");
	collect(app, ops);
	op_stats_add(&r->verify_pass, &ops[OP_READ]);
	op_stats_destroy_all(ops);
	r->verify_pass_ran = true;
}

/* Every thread's verify counts; the details of the first mismatches. */
static void collect_verify(struct app *app, struct report *r)
{
	struct verify_counts *v = &r->verify;

	for (unsigned i = 0; i < app->nworkers; i++) {
		const struct verify_counts *w = &app->workers[i].verify;

		v->blocks += w->blocks;
		v->bad += w->bad;
		for (int k = 0; k <= VERIFY_CHECKSUM; k++)
			v->by_kind[k] += w->by_kind[k];
		for (unsigned j = 0; j < w->nkept && v->nkept < WORKER_MISMATCHES_KEPT; j++)
			v->kept[v->nkept++] = w->kept[j];
	}
}

/* The aggregator: exact merge of every thread's histograms for the phase. */
static void collect(struct app *app, struct op_stats *ops)
{
	for (unsigned i = 0; i < app->nworkers; i++)
		op_stats_add_all(ops, app->workers[i].total);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Outliers: p99 over 3x the median connection's p99. Stuck: still meant to
 * issue, yet nothing completed in the last 2 intervals of the window.
 */
static void flag_connections(struct report *r, uint64_t interval_ns)
{
	uint64_t *p99 = calloc(r->nconns + 1, sizeof(*p99)), median;
	unsigned n = 0;

	for (unsigned i = 0; p99 && i < r->nconns; i++)
		if (r->conns[i].ops)
			p99[n++] = r->conns[i].p99_ns;
	qsort(p99, n, sizeof(*p99), cmp_u64);
	median = n ? p99[n / 2] : 0;
	free(p99);
	for (unsigned i = 0; i < r->nconns; i++) {
		struct conn_report *c = &r->conns[i];

		c->outlier = n >= 3 && c->ops && c->p99_ns > 3 * median;
		/* Completions stamped after the stop (drain) count as at the stop. */
		uint64_t last = c->last_done_ns < r->duration_ns ? c->last_done_ns : r->duration_ns;

		c->stuck = !c->error[0] && !c->done_issuing && r->duration_ns > 3 * interval_ns &&
			   r->duration_ns - last > 2 * interval_ns;
	}
}

/* The report's run-wide figures: CPU, the thread split, every connection. */
static void fill_report(struct app *app, struct report *r)
{
	r->interrupted = app->signal != 0;
	r->start_unix_ns = app->start_unix_ns;
	r->user_s = tv_s(app->ru_end.ru_utime) - tv_s(app->ru_start.ru_utime);
	r->sys_s = tv_s(app->ru_end.ru_stime) - tv_s(app->ru_start.ru_stime);
	r->nthreads = app->nworkers;
	r->threads = calloc(app->nworkers, sizeof(*r->threads));
	r->nconns = app->cfg.connections;
	r->conns = calloc(r->nconns, sizeof(*r->conns));
	if (!r->threads || !r->conns)
		die(EXIT_RUNTIME, "out of memory");
	for (unsigned i = 0, k = 0; i < app->nworkers; i++) {
		struct worker *w = &app->workers[i];
		uint64_t wall = w->last_done_ns - w->phase_start_ns;

		r->threads[i].connections = w->nconns;
		r->threads[i].busy_pct = wall ? 100.0 * (double)w->cpu_ns / (double)wall : 0;
		for (unsigned j = 0; j < w->nconns; j++)
			worker_conn_report(w, j, &r->conns[k++]);
		if (w->max_lag_ns > r->max_lag_ns)
			r->max_lag_ns = w->max_lag_ns;
	}
	flag_connections(r, app->cfg.interval_ns);
	r->interval_ns = app->cfg.interval_ns;
	r->series = app->series.rows;
	r->nseries = app->series.nrows;
	series_steady(&app->series, &r->steady);
	r->rate = app->cfg.rate;
	if (r->rate > 0) {
		r->achieved_rate = (double)report_total_ops(r) * 1e9 / (double)(r->duration_ns ? r->duration_ns : 1);
		for (unsigned i = 0; i < r->nconns; i++)
			r->backlog_ops += r->conns[i].backlog_ops;
	}
}

/* Exit status of a run that got as far as a report, with a line on why not 0. */
static int finish_status(const struct app *app, const struct report *r)
{
	unsigned failed = 0;
	const char *first = "";

	for (unsigned i = 0; i < r->nconns; i++) {
		if (r->conns[i].error[0] && !failed++)
			first = r->conns[i].error;
	}
	if (failed)
		fprintf(stderr, "nfsload: %u of %u connections failed during the run (first: %s)\n",
			failed, r->nconns, first);
	if (r->verify.bad) {
		char line[600];

		fprintf(stderr, "nfsload: --verify: %" PRIu64 " bad block%s of %" PRIu64 " checked\n",
			r->verify.bad, r->verify.bad == 1 ? "" : "s", r->verify.blocks);
		for (unsigned i = 0; i < r->verify.nkept; i++) {
			verify_describe(&r->verify.kept[i], line, sizeof(line));
			fprintf(stderr, "nfsload: verify: %s\n", line);
		}
		if (r->verify.by_kind[VERIFY_MAGIC] == r->verify.bad && !r->layout_ran)
			fprintf(stderr, "nfsload: hint: every bad block lacks a header and this run "
				"laid nothing out: were the files written without --verify? (use "
				"another --dir, or remove them)\n");
	}
	if (app->signal)
		return 128 + app->signal;
	if (r->verify.bad)
		return EXIT_VERIFY;
	if (failed || report_total_ops(r) == 0)
		return EXIT_RUNTIME;
	return 0;
}

static void setup_loop(struct app *app)
{
	/*
	 * signalfd: SIGINT/SIGTERM stay blocked in this thread, so they never
	 * interrupt a synchronous libnfs call (set-up, closing, cleanup): libnfs
	 * 4.0 gives up on EINTR and leaves the request pointing at a dead stack frame.
	 */
	app->loop = ev_default_loop(EVBACKEND_EPOLL | EVFLAG_SIGNALFD);
	if (!app->loop)
		die(EXIT_RUNTIME, "cannot create the main event loop");
	ev_async_init(&app->wake, wake_cb);
	app->wake.data = app;
	ev_async_start(app->loop, &app->wake);
	ev_signal_init(&app->sigint, signal_cb, SIGINT);
	ev_signal_init(&app->sigterm, signal_cb, SIGTERM);
	app->sigint.data = app->sigterm.data = app;
	ev_signal_start(app->loop, &app->sigint);
	ev_signal_start(app->loop, &app->sigterm);
	ev_init(&app->end_timer, end_cb);
	ev_init(&app->drain_timer, drain_cb);
	ev_init(&app->ramp_timer, ramp_cb);
	ev_init(&app->tick_timer, tick_cb);
	app->end_timer.data = app->drain_timer.data = app->ramp_timer.data = app;
	app->tick_timer.data = app;
	app->run.main_loop = app->loop;
	app->run.wake = &app->wake;
}

/*
 * Stops the worker threads: after a second signal or a drain timeout they may
 * still be completing operations, and their figures are only ours to read
 * once they are joined.
 */
static void join_workers(struct app *app)
{
	for (unsigned i = 0; i < app->nworkers; i++)
		worker_join(&app->workers[i]);
}

/* After a phase: a phase left early (workers still draining) ends the workers. */
static void settle_workers(struct app *app)
{
	if (!all_done(app))
		join_workers(app);
}

static void start_workers(struct app *app)
{
	const struct config *cfg = &app->cfg;
	unsigned first = 0;

	app->nworkers = cfg->threads;
	app->workers = calloc(app->nworkers, sizeof(*app->workers));
	if (!app->workers)
		die(EXIT_RUNTIME, "out of memory");
	for (unsigned i = 0; i < app->nworkers; i++) {
		/* The remainder goes to the first threads: none dropped. */
		unsigned n = cfg->connections / app->nworkers + (i < cfg->connections % app->nworkers);

		if (worker_init(&app->workers[i], i, &app->run, first, n))
			die(EXIT_RUNTIME, "out of memory setting up %u connections", cfg->connections);
		first += n;
	}
}

static uint64_t connect_all(struct app *app, struct report *r)
{
	struct conn **all = calloc(app->cfg.connections, sizeof(*all));
	unsigned k = 0;
	uint64_t elapsed;
	char err[400];
	int rc;

	if (!all)
		die(EXIT_RUNTIME, "out of memory");
	for (unsigned i = 0; i < app->nworkers; i++)
		for (unsigned j = 0; j < app->workers[i].nconns; j++)
			all[k++] = worker_conn(&app->workers[i], j);
	rc = conn_setup_all(all, k, UINT64_C(60000000000), &r->setup_mount, &r->setup_open,
			    &elapsed, err, sizeof(err));
	free(all);
	if (rc) {
		fprintf(stderr, "nfsload: %s\n", err);
		return UINT64_MAX;
	}
	return elapsed;
}

static void summarize(const struct report *r, struct run_result *res)
{
	double secs = (double)r->duration_ns / 1e9;

	for (int t = 0; t < OP_NTYPES; t++) {
		const struct op_stats *s = &r->ops[t];

		res->row.iops[t] = secs > 0 ? (double)s->ops / secs : 0;
		res->row.mib_s[t] = secs > 0 ? (double)s->bytes / secs / 1048576.0 : 0;
		res->row.p99_ns[t] = hist_percentile(&s->lat, 99);
		res->row.errors += s->errors;
	}
}

/*
 * One run of a validated configuration, its report to out. res (or NULL)
 * receives the figures for a job's summary and, moved out, what the run
 * created on the server. Returns the exit status.
 */
static int run_one(const struct config *config, FILE *out, struct run_result *res)
{
	static struct app app;
	struct config *cfg = &app.cfg;
	struct report rep = { 0 };
	char err[512];
	int rc, status = 0;
	uint64_t max_bs;

	memset(&app, 0, sizeof(app));
	*cfg = *config;
	app.out = out;
	if (cfg->html[0] && !(app.html = fopen(cfg->html, "w")))
		die(EXIT_USAGE, "--report: cannot write '%s': %s", cfg->html, strerror(errno));
	{
		unsigned read_pct = wl_mode_read_pct(cfg->rw, cfg->rwmixread);
		bool used[OP_NTYPES] = {
			[OP_READ] = read_pct > 0, [OP_WRITE] = read_pct < 100,
			[OP_COMMIT] = cfg->commit_every > 0,
		};

		for (int t = 0; cfg->meta && t < OP_NTYPES; t++)
			used[t] = cfg->mix.weight[t] > 0;

		if (series_init(&app.series, cfg->interval_ns, used,
				cfg->format == CFG_FORMAT_CSV ? app.out : NULL, cfg->hdr_log, err,
				sizeof(err)))
			die(EXIT_USAGE, "%s", err);
	}
	app.live_tty = isatty(STDERR_FILENO);
	app.live = cfg->live == CFG_LIVE_ON || (cfg->live == CFG_LIVE_AUTO && app.live_tty);

	/* libnfs mallocs 4 KiB + count per WRITE: keep those off mmap/munmap. */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	raise_nofile(cfg->connections);
	signal(SIGPIPE, SIG_IGN);

	rep.cfg = cfg;
	rep.limits_note = conn_limits_note(cfg->nfs_version);
	if (rep.limits_note[0])
		fprintf(stderr, "nfsload: note: %s\n", rep.limits_note);

	if (cfg->connections >= CONN_RESERVED_PORTS_MAX && conn_use_reserved_ports(false) == 0)
		fprintf(stderr, "nfsload: note: %u connections: ordinary source ports, not reserved "
			"ones (fewer than 512 exist; exports marked 'secure' will refuse)\n",
			cfg->connections);

	/* From here a signal waits for the loop: nothing is left half made on the server. */
	setup_loop(&app);
	rc = ctl_open(cfg, &app.ctl, err, sizeof(err));
	if (rc)
		die(EXIT_RUNTIME, "%s", err);
	rc = ctl_prepare(app.ctl, &app.fs, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "nfsload: %s\n", err);
		status = EXIT_RUNTIME;
		goto cleanup;
	}

	app.run.cfg = cfg;
	app.run.files = &app.fs;
	app.run.layout_bs = layout_block_size(cfg);
	{
		/* Many connections: fewer layout writes in flight each, not smaller ones. */
		uint64_t per_conn = (UINT64_C(64) << 20) / (app.run.layout_bs * cfg->connections);

		app.run.layout_depth = per_conn < 1 ? 1 : per_conn < cfg->iodepth ?
			(unsigned)per_conn : cfg->iodepth;
	}
	if (cfg->verify) {
		/* The generation says when: the Unix time the run began. */
		uint32_t gen = (uint32_t)(realtime_ns() / 1000000000);

		app.verify = (struct verify_params){ .block = (uint32_t)cfg->bs,
						     .generation = gen ? gen : 1, .seed = cfg->seed };
		app.run.verify = &app.verify;
		app.run.verify_bs = app.run.layout_bs;
		app.run.written = verify_map_new(cfg->nrfiles, cfg->size, (uint32_t)cfg->bs);
		rep.verify_generation = app.verify.generation;
		if (!app.run.written)
			die(EXIT_RUNTIME, "out of memory for the --verify block map");
	}
	max_bs = cfg->bs > app.run.layout_bs ? cfg->bs : app.run.layout_bs;
	app.run.pattern = run_pattern_new(max_bs);
	if (op_stats_init_all(app.ival, HIST_PRECISE_BITS, false) ||
	    op_stats_init_all(rep.ops, HIST_PRECISE_BITS, cfg->rate > 0) ||
	    op_stats_init(&rep.layout, HIST_PRECISE_BITS, false) || !app.run.pattern ||
	    op_stats_init(&rep.verify_pass, HIST_PRECISE_BITS, false) ||
	    hist_init(&rep.setup_mount, HIST_PRECISE_BITS) ||
	    hist_init(&rep.setup_open, HIST_PRECISE_BITS) ||
	    hist_init(&app.live_hist, HIST_PRECISE_BITS))
		die(EXIT_RUNTIME, "out of memory");
	start_workers(&app);
	rep.connect_ns = connect_all(&app, &rep);
	if (rep.connect_ns == UINT64_MAX) {
		status = EXIT_RUNTIME;
		goto stop_workers;
	}
	for (unsigned i = 0; i < app.nworkers; i++)
		if (worker_start(&app.workers[i]))
			die(EXIT_RUNTIME, "cannot start worker thread %u", i);

	app.run.pass_op = OP_NTYPES;
	if (cfg->meta || cfg->small_files) {
		/* The trees are the layout of a --mix run; the small-file test starts empty. */
		uint64_t t0 = now_ns();

		if (app.live)
			fprintf(stderr, "nfsload: making %u trees of %u x %u files\n", cfg->connections,
				cfg->dirs, cfg->small_files ? 0 : cfg->files_per_dir);
		if (ctl_meta_prepare(app.ctl, app.run.pattern, cfg->small_files > 0, err,
				     sizeof(err))) {
			fprintf(stderr, "nfsload: %s\n", err);
			status = EXIT_RUNTIME;
			goto stop_workers;
		}
		rep.layout_ran = !cfg->small_files;
		rep.layout_ns = now_ns() - t0;
		rep.layout.ops = cfg->small_files ? 0 :
			(uint64_t)cfg->connections * cfg->dirs * cfg->files_per_dir;
		rep.layout.bytes = rep.layout.ops * cfg->file_size;
	}
	for (uint32_t i = 0; i < app.fs.n && !cfg->skip_layout && !cfg->meta; i++)
		rep.layout_ran |= app.fs.size[i] < cfg->size;
	if (rep.layout_ran && !cfg->meta) {
		struct op_stats layout[OP_NTYPES];

		if (app.live) {
			char size[32];

			fprintf(stderr, "nfsload: laying out %u file%s of %s\n", cfg->nrfiles,
				cfg->nrfiles == 1 ? "" : "s",
				units_format_size(cfg->size, size, sizeof(size)));
		}
		rep.layout_ns = run_phase(&app, PHASE_LAYOUT);
		settle_workers(&app);
		if (op_stats_init_all(layout, HIST_PRECISE_BITS, false))
			die(EXIT_RUNTIME, "out of memory");
		collect(&app, layout);
		op_stats_add(&rep.layout, &layout[OP_WRITE]);
		op_stats_destroy_all(layout);
	}
	if (cfg->small_files) {
		/* Four passes over every file, each timed on its own. */
		static const enum op_type passes[] = { OP_CREATE, OP_READ, OP_GETATTR, OP_REMOVE };

		for (size_t p = 0; p < sizeof(passes) / sizeof(passes[0]) && !app.signal &&
		     !app.drain_timed_out && !atomic_load(&app.run.abort); p++) {
			app.run.pass_op = passes[p];
			rep.pass_ns[passes[p]] = run_phase(&app, PHASE_MAIN);
			settle_workers(&app);
			rep.duration_ns += rep.pass_ns[passes[p]];
			collect(&app, rep.ops);
		}
	} else if (!app.signal && !app.drain_timed_out && !atomic_load(&app.run.abort)) {
		rep.duration_ns = run_phase(&app, PHASE_MAIN);
		settle_workers(&app);
		collect(&app, rep.ops);
	}
	/* The workers are idle (or joined): the main phase's figures are final. */
	fill_report(&app, &rep);
	if (wants_verify_pass(&app))
		verify_pass(&app, &rep);
	join_workers(&app);
	collect_verify(&app, &rep);
	if (res)
		summarize(&rep, res);
	if (series_finish(&app.series))
		fprintf(stderr, "nfsload: --hdr-log: writing '%s' failed\n", cfg->hdr_log);
	if (cfg->format == CFG_FORMAT_JSON)
		report_json(app.out, &rep);
	else if (cfg->format == CFG_FORMAT_TEXT)
		report_text(app.out, &rep);
	if (app.html)
		report_html(app.html, &rep);
	if (fflush(app.out) || (app.html && fflush(app.html)))
		fprintf(stderr, "nfsload: writing the report failed: %s\n", strerror(errno));
	status = finish_status(&app, &rep);
	if (app.drain_timed_out)
		fprintf(stderr, "nfsload: some operations never completed (server not answering)\n");

stop_workers:
	for (unsigned i = 0; i < app.nworkers; i++)
		if (app.workers[i].started)
			worker_command(&app.workers[i], WORKER_CMD_EXIT);
	for (unsigned i = 0; i < app.nworkers; i++)
		worker_destroy(&app.workers[i], !app.drain_timed_out);
	free(app.workers);
cleanup:
	/* Also on the early exits: a job's next run makes a fresh default loop. */
	ev_loop_destroy(app.loop);
	if (!cfg->keep && (cfg->meta || cfg->small_files) &&
	    ctl_meta_cleanup(app.ctl, err, sizeof(err)))
		fprintf(stderr, "nfsload: cleanup: %s\n", err);
	if (!cfg->keep && ctl_cleanup(app.ctl, &app.fs, err, sizeof(err)))
		fprintf(stderr, "nfsload: cleanup: %s\n", err);
	ctl_free(app.ctl);
	if (res) {
		res->fs = app.fs;	/* the job cleans up after its last run */
		memset(&app.fs, 0, sizeof(app.fs));
	}
	fileset_destroy(&app.fs);
	op_stats_destroy_all(app.ival);
	hist_destroy(&app.live_hist);
	series_destroy(&app.series);
	if (app.html)
		fclose(app.html);
	op_stats_destroy_all(rep.ops);
	op_stats_destroy(&rep.layout);
	op_stats_destroy(&rep.verify_pass);
	verify_map_free(app.run.written);
	free(rep.threads);
	free(rep.conns);
	hist_destroy(&rep.setup_mount);
	hist_destroy(&rep.setup_open);
	free((void *)app.run.pattern);
	return status;
}

/* "r.html" -> "r-2.html": each run of a job its own file. */
static void number_path(char *path, size_t len, unsigned i)
{
	char head[CFG_URL_MAX], tail[CFG_URL_MAX], *dot = strrchr(path, '.');
	char *slash = strrchr(path, '/');
	size_t n = dot && (!slash || dot > slash) ? (size_t)(dot - path) : strlen(path);

	if (!path[0])
		return;
	snprintf(head, sizeof(head), "%.*s", (int)n, path);
	snprintf(tail, sizeof(tail), "%s", path + n);
	if ((size_t)snprintf(path, len, "%s-%u%s", head, i, tail) >= len)
		die(EXIT_USAGE, "'%s-%u%s': file name too long", head, i, tail);
}

static void fileset_merge(struct fileset *dst, const struct fileset *src)
{
	if (src->n > dst->n) {
		bool *c = realloc(dst->created, src->n * sizeof(*c));

		if (!c)
			die(EXIT_RUNTIME, "out of memory");
		memset(c + dst->n, 0, (src->n - dst->n) * sizeof(*c));
		dst->created = c;
		dst->n = src->n;
	}
	for (uint32_t i = 0; i < src->n; i++)
		dst->created[i] |= src->created[i];
	dst->dir_created |= src->dir_created;
	dst->marker_created |= src->marker_created;
}

/* The job's runs share work directories: what any created goes at the end. */
static struct job_dir *job_dir_of(struct job_dir *dirs, unsigned *ndirs, const struct config *cfg)
{
	for (unsigned i = 0; i < *ndirs; i++)
		if (!strcmp(dirs[i].cfg.libnfs_url, cfg->libnfs_url) && !strcmp(dirs[i].cfg.dir, cfg->dir))
			return &dirs[i];
	dirs[*ndirs].cfg = *cfg;
	return &dirs[(*ndirs)++];
}

/* The trees of --mix and small-file runs: their own config says how many. */
static int ctl_cleanup_trees(const struct job_dir *d, char *err, size_t len)
{
	struct ctl *tc = NULL;
	int rc;

	if (!d->trees)
		return 0;
	rc = ctl_open(&d->tree_cfg, &tc, err, len);
	if (rc == 0)
		rc = ctl_meta_cleanup(tc, err, len);
	ctl_free(tc);
	return rc;
}

static void job_cleanup(struct job_dir *dirs, unsigned ndirs)
{
	char err[512];

	for (unsigned i = 0; i < ndirs; i++) {
		struct ctl *ctl = NULL;

		if (!dirs[i].keep && (ctl_open(&dirs[i].cfg, &ctl, err, sizeof(err)) ||
				      ctl_cleanup_trees(&dirs[i], err, sizeof(err)) ||
				      ctl_cleanup(ctl, &dirs[i].fs, err, sizeof(err))))
			fprintf(stderr, "nfsload: cleanup of /%s: %s\n", dirs[i].cfg.dir, err);
		ctl_free(ctl);
		fileset_destroy(&dirs[i].fs);
	}
}

/*
 * --job FILE and --sweep: every run is checked before the first one touches
 * the server; the runs go in order, the files stay between them, and the job
 * stops at the first run that does not end with 0.
 */
static int run_job(int argc, char **argv)
{
	struct job job = { 0 };
	struct config *cfgs;
	struct run_result *res;
	struct job_dir *dirs;
	unsigned ndirs = 0, done = 0;
	char err[700];
	FILE *out = stdout;
	int status = 0, rc;

	if (job_load(argc, argv, &job, err, sizeof(err)))
		die(EXIT_USAGE, "%s", err);
	cfgs = calloc(job.nruns, sizeof(*cfgs));
	res = calloc(job.nruns, sizeof(*res));
	dirs = calloc(job.nruns, sizeof(*dirs));
	if (!cfgs || !res || !dirs)
		die(EXIT_RUNTIME, "out of memory");
	for (unsigned i = 0; i < job.nruns; i++) {
		rc = config_parse(&cfgs[i], job.runs[i].argc, job.runs[i].argv, err, sizeof(err));
		if (rc == CFG_EXIT_OK)
			return 0;
		if (rc < 0) {
			job_locate_error(&job, i, err, sizeof(err));
			die(EXIT_USAGE, "%s", err);
		}
		if (strcmp(cfgs[i].output, cfgs[0].output) || cfgs[i].format != cfgs[0].format)
			die(EXIT_USAGE, "%s: --output and --output-format must be the same in every "
			    "run of a job", job.runs[i].name);
		if (job.nruns > 1) {
			number_path(cfgs[i].html, sizeof(cfgs[i].html), i + 1);
			number_path(cfgs[i].hdr_log, sizeof(cfgs[i].hdr_log), i + 1);
		}
	}
	if (cfgs[0].output[0] && !(out = fopen(cfgs[0].output, "w")))
		die(EXIT_USAGE, "--output: cannot write '%s': %s", cfgs[0].output, strerror(errno));
	for (unsigned i = 0; i < job.nruns && status == 0; i++, done++) {
		struct job_dir *d = job_dir_of(dirs, &ndirs, &cfgs[i]);
		struct job_row *row = &res[i].row;

		row->name = job.runs[i].name;
		row->sweep_key = job.runs[i].sweep_key;
		row->sweep_value = job.runs[i].sweep_value;
		d->keep |= cfgs[i].keep;
		if (cfgs[i].meta || cfgs[i].small_files) {
			d->trees = true;
			d->tree_cfg = cfgs[i];
		}
		cfgs[i].keep = true;
		report_job_run_begin(out, cfgs[i].format, job.path, row, i, job.nruns);
		status = row->status = run_one(&cfgs[i], out, &res[i]);
		report_job_run_end(out, cfgs[i].format);
		fileset_merge(&d->fs, &res[i].fs);
		fileset_destroy(&res[i].fs);
	}
	{
		struct job_row rows[done];

		for (unsigned i = 0; i < done; i++)
			rows[i] = res[i].row;
		report_job_summary(out, cfgs[0].format, rows, done);
	}
	job_cleanup(dirs, ndirs);
	if (out != stdout)
		fclose(out);
	free(cfgs);
	free(res);
	free(dirs);
	job_free(&job);
	return status;
}

int main(int argc, char **argv)
{
	struct config cfg;
	char err[512];
	FILE *out = stdout;
	int rc;

	if (job_wanted(argc, argv))
		return run_job(argc, argv);
	rc = config_parse(&cfg, argc, argv, err, sizeof(err));
	if (rc == CFG_EXIT_OK)
		return 0;
	if (rc < 0)
		die(EXIT_USAGE, "%s", err);
	if (cfg.output[0] && !(out = fopen(cfg.output, "w")))
		die(EXIT_USAGE, "--output: cannot write '%s': %s", cfg.output, strerror(errno));
	rc = run_one(&cfg, out, NULL);
	if (out != stdout)
		fclose(out);
	return rc;
}
