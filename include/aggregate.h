/*
 * aggregate: what the run's threads measured, merged on the main thread.
 *
 * Owns: the per-connection and per-thread views (their types are the
 * report's, report.h), the exact merge of every thread's histograms (counts
 * add, nothing is averaged), outlier and stuck connections, and the --verify
 * counts of all threads. Reads the workers only once they are idle or
 * joined.
 */
#ifndef NFSLOAD_AGGREGATE_H
#define NFSLOAD_AGGREGATE_H

#include "report.h"

struct worker;

/* ops[] += every worker's totals of the phase just ended (exact). */
void aggregate_ops(struct worker *const *w, unsigned n, struct op_stats *ops);
/* Every thread's --verify counts; the details of the first mismatches. */
void aggregate_verify(struct worker *const *w, unsigned n, struct verify_counts *v);
/* Several servers: r->servers[k].st += each worker's phase figures of server k
 * (made on first use; every connection and outage figure comes with aggregate_servers_end). */
int aggregate_servers(struct worker *const *w, unsigned n, struct report *r);
/* Their connections, outages, connections down and outlier flags, after aggregate_conns. */
void aggregate_servers_end(struct report *r);
void aggregate_servers_free(struct report *r);
/*
 * r->threads, r->conns (allocated), outlier and stuck flags, the open
 * loop's lateness and backlog. 0 or -ENOMEM.
 */
int aggregate_conns(struct worker *const *w, unsigned n, struct report *r);

#endif
