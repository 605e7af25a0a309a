/*
 * merge_servers: the per-server part of --merge (and of an MPI run's merge).
 * Each report's "servers" entries are added by URL: connections, outages and
 * connections down summed, the histograms exactly (each entry's stats carry
 * their buckets), the outlier rule the run's (aggregate.c). Printed by the
 * run's own printers (report_servers.c) from a report made for them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "merge_read.h"
#include "merge_servers.h"
#include "report.h"
#include "../report/report_int.h"

struct merge_servers {
	struct config cfg;		/* what the printers read: nservers, weights, namespace */
	struct server_report s[CFG_SERVERS_MAX];
	unsigned n;
	bool any_apart;			/* an input with a namespace per server */
};

struct merge_servers *merge_servers_new(void)
{
	return calloc(1, sizeof(struct merge_servers));
}

void merge_servers_free(struct merge_servers *m)
{
	if (!m)
		return;
	for (unsigned k = 0; k < m->n; k++)
		op_stats_destroy(&m->s[k].st);
	free(m);
}

/* The entry for url, made if new; NULL: more than CFG_SERVERS_MAX, or no memory. */
static struct server_report *entry(struct merge_servers *m, const char *url, unsigned weight)
{
	struct cfg_server *c;
	unsigned k;

	for (k = 0; k < m->n; k++)
		if (!strcmp(m->cfg.server[k].url, url))
			return &m->s[k];
	if (m->n == CFG_SERVERS_MAX || op_stats_init(&m->s[k].st, HIST_PRECISE_BITS, false) < 0)
		return NULL;
	c = &m->cfg.server[k];
	snprintf(c->url, sizeof(c->url), "%s", url);
	c->weight = weight;
	m->s[k].url = c->url;
	m->cfg.nservers = ++m->n;
	return &m->s[k];
}

int merge_servers_add(struct merge_servers *m, json_t *servers, bool shared_ns)
{
	json_t *o;
	size_t i;

	if (!servers)
		return 0;
	if (!json_is_array(servers))
		return -EINVAL;
	m->any_apart |= !shared_ns;
	json_array_foreach(servers, i, o) {
		json_t *url = json_object_get(o, "url");
		struct server_report *s;
		struct op_stats st;
		int rc;

		if (!json_is_string(url))
			return -EINVAL;
		if (!(s = entry(m, json_string_value(url), (unsigned)merge_num(o, "weight"))))
			return -ENOMEM;
		memset(&st, 0, sizeof(st));
		if (op_stats_init(&st, HIST_PRECISE_BITS, false) < 0)
			return -ENOMEM;
		rc = merge_read_op(json_object_get(o, "stats"), &st);
		if (rc == 0)
			op_stats_add(&s->st, &st);
		op_stats_destroy(&st);
		if (rc < 0)
			return rc;
		s->conns += (unsigned)merge_num(o, "connections");
		s->outages += merge_num(o, "outages");
		s->down += (unsigned)merge_num(o, "down");
	}
	return 0;
}

void merge_servers_end(struct merge_servers *m)
{
	m->cfg.shared_namespace = !m->any_apart;
	report_servers_flag(m->s, m->n);
}

bool merge_servers_shared(const struct merge_servers *m)
{
	return m->n && !m->any_apart;
}

/* A report as the printers read it: the servers and the measured time. */
static struct report as_report(const struct merge_servers *m, uint64_t ns)
{
	struct report r;

	memset(&r, 0, sizeof(r));
	r.cfg = &m->cfg;
	r.nservers = m->n;
	r.servers = (struct server_report *)m->s;
	r.duration_ns = ns;
	return r;
}

void merge_servers_text(FILE *out, const struct merge_servers *m, uint64_t ns)
{
	struct report r = as_report(m, ns);

	if (m->n)
		report_text_servers(out, &r);
}

void merge_servers_json(FILE *out, const struct merge_servers *m, uint64_t ns)
{
	struct report r = as_report(m, ns);

	if (m->n)
		report_json_servers(out, &r);
}
