/*
 * aggregate: the threads' figures merged on the main thread, exactly.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate.h"
#include "worker.h"

void aggregate_ops(struct worker *const *w, unsigned n, struct op_stats *ops)
{
	for (unsigned i = 0; i < n; i++)
		worker_add_totals(w[i], ops);
}

void aggregate_verify(struct worker *const *w, unsigned n, struct verify_counts *v)
{
	for (unsigned i = 0; i < n; i++) {
		const struct verify_counts *t = worker_verify(w[i]);

		v->blocks += t->blocks;
		v->bad += t->bad;
		for (int k = 0; k <= VERIFY_CHECKSUM; k++)
			v->by_kind[k] += t->by_kind[k];
		for (unsigned j = 0; j < t->nkept && v->nkept < VERIFY_KEPT; j++)
			v->kept[v->nkept++] = t->kept[j];
	}
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
static void flag_connections(struct report *r)
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
		/* Completions stamped after the stop (drain) count as at the stop. */
		uint64_t last = c->last_done_ns < r->duration_ns ? c->last_done_ns : r->duration_ns;

		c->outlier = n >= 3 && c->ops && c->p99_ns > 3 * median;
		c->stuck = !c->error[0] && !c->done_issuing && r->duration_ns > 3 * r->interval_ns &&
			   r->duration_ns - last > 2 * r->interval_ns;
	}
}

int aggregate_conns(struct worker *const *w, unsigned n, struct report *r)
{
	unsigned k = 0;

	r->nthreads = n;
	r->threads = calloc(n, sizeof(*r->threads));
	r->nconns = r->cfg->connections;
	r->conns = calloc(r->nconns, sizeof(*r->conns));
	if (!r->threads || !r->conns)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++) {
		struct worker_figures f;
		uint64_t wall;

		worker_figures(w[i], &f);
		wall = f.last_done_ns - f.phase_start_ns;
		r->threads[i].connections = f.nconns;
		r->threads[i].busy_pct = wall ? 100.0 * (double)f.cpu_ns / (double)wall : 0;
		r->threads[i].sleeps = f.sleeps;
		for (unsigned j = 0; j < f.nconns; j++)
			worker_conn_report(w[i], j, &r->conns[k++]);
		if (f.max_lag_ns > r->max_lag_ns)
			r->max_lag_ns = f.max_lag_ns;
	}
	flag_connections(r);
	for (unsigned i = 0; r->rate > 0 && i < r->nconns; i++)
		r->backlog_ops += r->conns[i].backlog_ops;
	for (unsigned i = 0; i < r->nconns; i++)
		r->unanswered_at_stop += r->conns[i].unanswered_at_stop;
	return 0;
}

int aggregate_servers(struct worker *const *w, unsigned n, struct report *r)
{
	const struct config *cfg = r->cfg;

	if (cfg->nservers <= 1)
		return 0;
	if (!r->servers) {
		r->servers = calloc(cfg->nservers, sizeof(*r->servers));
		if (!r->servers)
			return -ENOMEM;
		r->nservers = cfg->nservers;
		for (unsigned k = 0; k < r->nservers; k++) {
			r->servers[k].url = cfg->server[k].url;
			r->servers[k].conns = cfg->server[k].conns;
			if (op_stats_init(&r->servers[k].st, HIST_PRECISE_BITS, false))
				return -ENOMEM;
		}
	}
	for (unsigned i = 0; i < n; i++)
		for (unsigned k = 0; k < r->nservers; k++)
			worker_add_server_total(w[i], k, &r->servers[k].st);
	return 0;
}

void aggregate_servers_end(struct report *r)
{
	for (unsigned i = 0; i < r->nconns; i++) {
		struct server_report *s;

		if (!r->servers)
			break;
		s = &r->servers[config_server_of(r->cfg, r->conns[i].id)];
		s->outages += r->conns[i].noutages;
		s->down += r->conns[i].down;
	}
	if (r->servers)
		report_servers_flag(r->servers, r->nservers);
}

void aggregate_servers_free(struct report *r)
{
	for (unsigned k = 0; r->servers && k < r->nservers; k++)
		op_stats_destroy(&r->servers[k].st);
	free(r->servers);
	r->servers = NULL;
	r->nservers = 0;
}
