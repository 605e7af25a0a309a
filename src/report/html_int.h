/*
 * The HTML report's private header, shared by its files and nothing else:
 * html.c (the page, its style sheet, the charts and the later sections),
 * html_summary.c (the summary section), html_servers.c (per server), report_curve.c
 * (a load curve) and report_replay.c (a replay). Other modules use report_html()
 * from include/report.h.
 */
#ifndef NFSLOAD_HTML_INT_H
#define NFSLOAD_HTML_INT_H

#include <stdbool.h>
#include <stdio.h>

#include "report.h"

/* An operation type that completed or failed at least once: it gets a row and a line. */
static inline bool html_op_seen(const struct report *r, int t)
{
	return r->ops[t].ops || r->ops[t].errors;
}

/* The summary section (totals, settings, run, client CPU, notes), in a <section>. */
void html_summary(FILE *out, const struct report *r);
/* html_servers.c: several servers only: their bars and table, in a <section>. */
void html_servers(FILE *out, const struct report *r);
/* report_curve.c: a load curve's chart and table, in a <section> (nothing without one). */
void html_curve(FILE *out, const struct report *r);
/* report_replay.c: a --replay's capture beside its replay, in a <section> (nothing without). */
void html_replay(FILE *out, const struct report *r);

#endif
