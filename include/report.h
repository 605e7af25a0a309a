/*
 * report: the run's results as text or JSON.
 *
 * Owns: formatting only, and the types of what it shows (connections and
 * their outages, threads, servers, set-up steps, --verify counts), which the
 * run fills (aggregate.h). Does no I/O besides writing to the FILE it is
 * given. Pure enough to be unit-tested with fmemopen.
 */
#ifndef NFSLOAD_REPORT_H
#define NFSLOAD_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "curve.h"
#include "engine_state.h"
#include "hist.h"
#include "series.h"
#include "stats.h"
#include "verify.h"

#define CONN_ERR_KINDS 6
#define CONN_OUTAGES_MAX 8	/* outages kept per connection (all are counted) */

/* Error code of a short transfer (fewer bytes than asked). */
#define CONN_ERR_SHORT 100000
/* A READ whose data failed --verify. */
#define CONN_ERR_VERIFY 100001
/* An NFSv4.2 op (class OPC_FILE) the server does not have: NFS4ERR_NOTSUPP (the
 * engine's -EOPNOTSUPP), NFS4ERR_OP_ILLEGAL (-ENOSYS). Named as the server said. */
#define CONN_ERR_NOTSUPP 100002
#define CONN_ERR_OP_ILLEGAL 100003
/* "ETIMEDOUT", "EIO", "short transfer", ...: the name of an error kind. */
const char *conn_err_name(int code);

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
	uint64_t unanswered_at_stop;	/* in flight at the stop, ended with no reply */
	bool outlier;			/* p99 > 3x the median connection's p99 */
	bool stuck;			/* nothing completed in the last 2 intervals */
	/* errors by kind: errno (positive) or CONN_ERR_SHORT; count 0 = unused */
	struct { int code; uint64_t count; } err_kinds[CONN_ERR_KINDS];
	uint64_t err_other;		/* errors of kinds past the table */
	const char *error;	/* "" unless the connection failed */
};

struct thread_report {
	unsigned connections;
	double busy_pct;	/* thread CPU / wall time of the phase */
	uint64_t sleeps;	/* its voluntary context switches in the phase */
};

/* Mismatches a thread keeps the details of (all are counted). */
#define VERIFY_KEPT 8

struct verify_counts {
	uint64_t blocks;		/* checked */
	uint64_t bad;
	uint64_t by_kind[VERIFY_CHECKSUM + 1];
	unsigned nkept;
	struct verify_mismatch kept[VERIFY_KEPT];
};

#define SETUP_STEPS_MAX 4	/* set-up steps an engine may time */

/* What the connections' set-up measured: its wall time and each step's latency. */
struct setup_times {
	uint64_t elapsed_ns;
	const char *const *names;	/* the engine's steps, NULL-terminated */
	struct hist steps[SETUP_STEPS_MAX];
};

/* Histograms for cfg's engine's steps. 0 or -ENOMEM. */
int setup_times_init(struct setup_times *t, const struct config *cfg);
void setup_times_destroy(struct setup_times *t);

/* Several servers (--servers, or several URLs): one per server. */
struct server_report {
	const char *url;		/* as given */
	unsigned conns;			/* connections it carries */
	struct op_stats st;		/* every op type, the measured window, exact */
	uint64_t outages;		/* its connections' outages */
	unsigned down;			/* its connections not connected at the end */
	bool outlier;			/* p99 > 3x the median of the other servers' p99 */
};

/* Marks the outliers among n servers (p99 over 3x the median of the others'; with two,
 * 3x the other's). */
void report_servers_flag(struct server_report *s, unsigned n);

/* --replay: the capture beside its replay (replay_run.c fills it). */
#define REPLAY_REASONS 4
struct replay_report {
	const char *file;		/* the capture */
	uint64_t calls;			/* v3 calls and v4 COMPOUNDs decoded */
	uint64_t ops;			/* operations replayed */
	uint64_t skipped[REPLAY_REASONS];	/* not replayed, by reason */
	const char *reasons[REPLAY_REASONS];
	unsigned connections;		/* the trace's client connections replayed */
	uint64_t names, made_before;	/* names the replay uses, made before it */
	uint64_t state_ops;		/* of ops: OPENs that hold, CLOSE, LOCK ... (replay.h) */
	unsigned open_slots;		/* most opens a connection holds at once */
	uint64_t state_left_out;	/* of skipped: state ops on an open never seen */
	uint64_t trace_span_ns;		/* first to last replayed call, in the trace */
	uint64_t span_ns;		/* first to last issue, on replay */
	uint64_t late;			/* issued more than 1 ms after their time */
	uint64_t both_failed;		/* failed in the trace and on replay: not errors */
	uint64_t only_trace_failed;	/* failed in the trace, succeeded on replay */
	uint64_t new_errors;		/* succeeded in the trace, failed on replay */
	uint64_t not_issued;		/* left when the run stopped */
	uint64_t calls_of[OP_NTYPES];	/* replayed operations by type (replies or not) */
	struct op_stats trace[OP_NTYPES];	/* the trace's own latency and statuses (with replies) */
	char left_out[240];		/* what the capture could not give, in words; "" */
};

struct report {
	const struct config *cfg;
	/* NULL for a run; else what the report was rebuilt from ("op logs a.csv, b.csv"):
	 * the renderings then leave out what such a source does not hold (the settings,
	 * set-up, layout and the client's CPU) */
	const char *source;
	const char *engine;		/* its name */
	const char *nfs_version;	/* the NFS version spoken ("3", "4.0", "4.1"), NULL: none */
	const char *ports;		/* the server ports reached, in words ("" if none) */
	const char *limits_note;
	bool has_state;			/* the engine counts state (engine_ops.state) ... */
	struct engine_state_counts state;	/* ... and what it counted */
	int64_t start_unix_ns;		/* wall clock at the start of measurement */
	uint64_t connect_ns;		/* all connections mounted and opened */
	bool layout_ran;
	uint64_t layout_ns;
	struct op_stats layout;		/* the layout phase's writes */
	uint64_t layout_retried;	/* its writes re-issued after their link was lost */
	unsigned nservers;		/* 0 with one server */
	struct server_report *servers;
	uint64_t duration_ns;		/* measured window of the main phase */
	uint64_t pass_ns[OP_NTYPES];	/* small-file test: each pass's time, by op type */
	bool interrupted;
	struct op_stats ops[OP_NTYPES];	/* merged over threads */
	double user_s, sys_s;		/* process CPU over the measured window */
	unsigned nthreads;
	struct thread_report *threads;
	unsigned nconns;
	struct conn_report *conns;

	/* interval series: interval_row records in a temporary file (constant memory) */
	uint64_t interval_ns;
	FILE *series;
	uint64_t nseries;
	FILE *series_buckets;		/* struct series_bucket records, or NULL */
	FILE *srv_series;		/* --series-by server: its rows, or NULL */
	uint64_t nsrv_series;
	struct steady_state steady;

	/* open loop (--rate); ops[].lat is then corrected for coordinated omission */
	double rate;			/* requested ops/s, 0 = closed loop (a curve: its point's) */
	double achieved_rate;
	uint64_t backlog_ops;		/* due but not yet issued at the end */
	/* the connections' unanswered_at_stop added (a merge: the inputs') */
	uint64_t unanswered_at_stop;
	uint64_t max_lag_ns;		/* worst lateness of an issue vs its schedule */
	/* --load-curve: its points and verdicts (NULL: none); ops[] and the figures above are
	 * then the best point's (none met: the first's), the connections the last point's */
	const struct curve *curve;

	/* connection set-up: each step the engine timed, one sample per connection and step */
	struct setup_times setup;

	/* --verify: the checks of the whole run (reads of every phase) */
	bool verify_pass_ran;		/* the written files were read back */
	uint64_t verify_pass_ns;
	struct op_stats verify_pass;	/* its reads */
	uint32_t verify_generation;
	struct verify_counts verify;	/* kept: the first mismatches of all threads */
	const struct replay_report *replay;	/* --replay, else NULL */
};

/*
 * One setting of the run, as every rendering shows it (the text report's
 * "settings:" line and header, the JSON "settings" object, the HTML table).
 */
enum setting_type { SETTING_COUNT, SETTING_SIZE, SETTING_TIME, SETTING_TEXT, SETTING_FLAG,
		    SETTING_RATE };

struct setting {
	const char *key;	/* JSON key */
	const char *label;	/* in words; NULL: JSON only */
	enum setting_type type;
	uint64_t n;		/* COUNT, SIZE (bytes), TIME (ns), FLAG (0 or 1) */
	double rate;		/* RATE: per second */
	const char *text;	/* TEXT, or NULL: own */
	char own[80];
	bool shown;		/* worth a line in words: set, or not the default */
	bool header;		/* the text report's header lines already say it */
};

#define REPORT_SETTINGS_MAX 58
/* The run's settings, in order, into s[REPORT_SETTINGS_MAX]; returns how many. */
unsigned report_settings(const struct report *r, struct setting *s);
/* A TEXT setting's string. */
const char *report_setting_str(const struct setting *s);
/* A setting's value in words ("4.00 KiB", "30.0 s", "yes"), into buf. */
const char *report_setting_text(const struct setting *s, char *buf, size_t len);

/* Row i of the series (0 <= i < nseries). 0 or -EIO. */
int report_series_get(const struct report *r, uint64_t i, struct interval_row *row);
/* Bucket k of a row's (k < row->nbuckets). 0 or -EIO. */
int report_series_bucket(const struct report *r, const struct interval_row *row, uint64_t k,
			 struct series_bucket *b);

/* One run of a job (phases, sweep points) in the job's summary table. */
struct job_row {
	const char *name;
	const char *sweep_key, *sweep_value;	/* "" when not swept */
	int status;				/* the run's exit status */
	uint64_t ops[OP_NTYPES], op_errors[OP_NTYPES];
	double iops[OP_NTYPES], mib_s[OP_NTYPES];
	uint64_t p99_ns[OP_NTYPES];
	uint64_t errors;
	double cpu_us_per_op;			/* client CPU (user + system) per operation */
};

/*
 * A job's output around its runs' reports: before run i (0-based) of n, after
 * it, and the summary at the end (a table; in JSON the document's "summary").
 * CSV gets a "# run NAME" line before each run's series and no summary.
 */
void report_job_run_begin(FILE *out, enum cfg_format fmt, const char *job_path,
			  const struct job_row *row, unsigned i, unsigned n);
void report_job_run_end(FILE *out, enum cfg_format fmt);
void report_job_summary(FILE *out, enum cfg_format fmt, const struct job_row *rows, unsigned n);
/* A run's figures for the summary (name, sweep and status are the job's). */
void report_job_row(const struct report *r, struct job_row *row);

/* Total operations answered over every op type: completed without error, or denied for
 * a conflict (a lock or share reservation the server refused: an answer, and the client's
 * work all the same; the exit status and CPU per operation count them). */
uint64_t report_total_ops(const struct report *r);
/* True when some worker thread was busy >= 90% of the time. */
bool report_client_bound(const struct report *r);

/* Every connection's outages, summed up. */
struct outage_summary {
	uint64_t count;			/* outages in all */
	unsigned connections;		/* connections with at least one */
	uint64_t failed_ops;
	uint64_t unrecovered;		/* outages not over at the end */
	uint64_t reconnects;
	uint64_t max_stall_ns, max_reconnect_ns;
	int64_t first_ns;		/* the earliest start */
};
void report_outages(const struct report *r, struct outage_summary *s);

void report_text(FILE *out, const struct report *r);
void report_json(FILE *out, const struct report *r);
/*
 * One self-contained HTML page (inline SVG and CSS, no script, no network):
 * throughput and IOPS over time, p50/p99/p99.9 over time, the percentile
 * spectrum per op type, per-connection p99 with outliers marked, settings
 * and totals. Implemented in src/html.c.
 */
void report_html(FILE *out, const struct report *r);

#endif
