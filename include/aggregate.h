/*
 * aggregate: what the run's threads measured, merged on the main thread.
 *
 * Owns: the per-connection and per-thread views (and the types they come
 * in), the exact merge of every thread's histograms (counts add, nothing
 * is averaged), outlier and stuck connections, the --verify counts of all
 * threads, and the run's exit status. Reads the workers only once they are
 * idle or joined.
 */
#ifndef NFSLOAD_AGGREGATE_H
#define NFSLOAD_AGGREGATE_H

#include <stdbool.h>
#include <stdint.h>

#include "stats.h"
#include "verify.h"

#define CONN_ERR_KINDS 6
#define CONN_OUTAGES_MAX 8	/* outages kept per connection (all are counted) */

/* Error code of a short transfer (fewer bytes than asked). */
#define CONN_ERR_SHORT 100000
/* A READ whose data failed --verify. */
#define CONN_ERR_VERIFY 100001
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

struct worker;
struct report;
struct server_report;

/* ops[] += every worker's totals of the phase just ended (exact). */
void aggregate_ops(struct worker *const *w, unsigned n, struct op_stats *ops);
/* Every thread's --verify counts; the details of the first mismatches. */
void aggregate_verify(struct worker *const *w, unsigned n, struct verify_counts *v);
/*
 * r->threads, r->conns (allocated), outlier and stuck flags, the open
 * loop's lateness and backlog. 0 or -ENOMEM.
 */
/* Several servers: r->servers[k].st += each worker's phase figures of server k
 * (made on first use; every connection and outage figure comes with aggregate_servers_end). */
int aggregate_servers(struct worker *const *w, unsigned n, struct report *r);
/* Their connections, outages, connections down and outlier flags, after aggregate_conns. */
void aggregate_servers_end(struct report *r);
/* Marks the outliers among n servers (p99 over 3x the median of the others'). */
void aggregate_servers_flag(struct server_report *s, unsigned n);
void aggregate_servers_free(struct report *r);
int aggregate_conns(struct worker *const *w, unsigned n, struct report *r);
/*
 * The exit status of a run that got as far as a report (signal: the one
 * that stopped it, or 0), with a line on stderr on why it is not 0.
 */
int aggregate_status(const struct report *r, int signal);

#endif
