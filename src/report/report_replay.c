/*
 * report_replay: a --replay's section of the text and JSON reports: the
 * capture beside its replay (calls, what was left out and why, the pace
 * kept, the statuses compared) and each operation's latency in the trace
 * and on replay; and the same as a section of the HTML report.
 */
#include <inttypes.h>
#include <stdio.h>

#include "html_int.h"
#include "report.h"
#include "report_int.h"
#include "svg.h"
#include "units.h"

static const char *const reason_keys[REPLAY_REASONS] = { "setup", "no_op", "name", "state" };

static const char *speed_words(const struct config *cfg, char *buf, size_t len)
{
	if (cfg->replay_speed == 0)
		snprintf(buf, len, "as fast as each connection's concurrency allows (max)");
	else if (cfg->replay_speed == 1)
		snprintf(buf, len, "at the trace's pace");
	else
		snprintf(buf, len, "at %g times the trace's pace", cfg->replay_speed);
	return buf;
}

void report_text_replay(FILE *out, const struct report *r)
{
	const struct replay_report *rr = r->replay;
	char a[32], b[32], c[96];

	if (!rr)
		return;
	fprintf(out, "\nreplay of %s, %s\n", rr->file, speed_words(r->cfg, c, sizeof(c)));
	fprintf(out, "  trace: %" PRIu64 " calls on %u connections over %s; %" PRIu64
		" replayed", rr->calls, rr->connections,
		units_format_duration(rr->trace_span_ns, a, sizeof(a)), rr->ops);
	for (unsigned k = 0; k < REPLAY_REASONS; k++)
		if (rr->skipped[k])
			fprintf(out, "; %" PRIu64 " not: %s", rr->skipped[k], rr->reasons[k]);
	fputc('\n', out);
	if (rr->left_out[0])
		fprintf(out, "  the capture left out: %s\n", rr->left_out);
	fprintf(out, "  namespace: %" PRIu64 " names, %" PRIu64 " made before the replay\n",
		rr->names, rr->made_before);
	if (rr->state_ops || rr->state_left_out)
		fprintf(out, "  state: %" PRIu64 " OPENs that hold, CLOSEs, OPEN_DOWNGRADEs and locks "
			"replayed on the connections' own opens (at most %u held at once by one), %"
			PRIu64 " left out: their open began before the capture\n", rr->state_ops,
			rr->open_slots, rr->state_left_out);
	fprintf(out, "  pace: issued over %s (the trace's calls: %s), %" PRIu64 " late by more "
		"than 1 ms, worst %s; %" PRIu64 " not issued\n",
		units_format_duration(rr->span_ns, a, sizeof(a)),
		units_format_duration(rr->trace_span_ns, b, sizeof(b)), rr->late,
		units_format_duration(r->max_lag_ns, c, sizeof(c)), rr->not_issued);
	fprintf(out, "  statuses: %" PRIu64 " new errors (succeeded in the trace), %" PRIu64
		" failed in both (not errors), %" PRIu64 " failed only in the trace\n",
		rr->new_errors, rr->both_failed, rr->only_trace_failed);
	fprintf(out, "  %-14s %10s %7s %10s %10s   %10s %7s %10s %10s\n", "op", "trace ops",
		"failed", "p50", "p99", "replay ops", "errors", "p50", "p99");
	fprintf(out, "  (trace ops: the calls replayed; failed, p50 and p99: of those with a reply)\n");
	for (int t = 0; t < OP_NTYPES; t++) {
		const struct op_stats *tr = &rr->trace[t], *rp = &r->ops[t];
		char p[4][32];

		if (!rr->calls_of[t] && !rp->ops && !rp->errors)
			continue;
		fprintf(out, "  %-14s %10" PRIu64 " %7" PRIu64 " %10s %10s   %10" PRIu64 " %7" PRIu64
			" %10s %10s\n", op_name(t), rr->calls_of[t], tr->errors,
			units_format_duration(hist_percentile(&tr->lat, 50), p[0], sizeof(p[0])),
			units_format_duration(hist_percentile(&tr->lat, 99), p[1], sizeof(p[1])),
			rp->ops + rp->errors, rp->errors,
			units_format_duration(hist_percentile(&rp->lat, 50), p[2], sizeof(p[2])),
			units_format_duration(hist_percentile(&rp->lat, 99), p[3], sizeof(p[3])));
	}
}

void report_json_replay(FILE *out, const struct report *r)
{
	const struct replay_report *rr = r->replay;
	bool first = true;

	if (!rr)
		return;
	fputs("\"replay\": {\"file\": ", out);
	report_json_str(out, rr->file);
	fputs(", \"speed\": ", out);
	if (r->cfg->replay_speed == 0)
		report_json_str(out, "max");
	else
		report_json_num(out, r->cfg->replay_speed);
	fprintf(out, ", \"trace\": {\"calls\": %" PRIu64 ", \"connections\": %u, \"span_ns\": %"
		PRIu64 ", \"left_out\": ", rr->calls, rr->connections, rr->trace_span_ns);
	report_json_str(out, rr->left_out);
	fprintf(out, "}, \"replayed\": %" PRIu64 ", \"skipped\": {", rr->ops);
	for (unsigned k = 0; k < REPLAY_REASONS; k++)
		fprintf(out, "%s\"%s\": %" PRIu64, k ? ", " : "", reason_keys[k], rr->skipped[k]);
	fprintf(out, "}, \"state\": {\"ops\": %" PRIu64 ", \"open_slots\": %u, \"left_out\": %" PRIu64
		"}", rr->state_ops, rr->open_slots, rr->state_left_out);
	fprintf(out, ", \"names\": %" PRIu64 ", \"made_before\": %" PRIu64 ", \"span_ns\": %"
		PRIu64 ", \"late\": %" PRIu64 ", \"max_lag_ns\": %" PRIu64 ", \"not_issued\": %"
		PRIu64 ", \"new_errors\": %" PRIu64 ", \"both_failed\": %" PRIu64
		", \"only_trace_failed\": %" PRIu64 ",\n  \"ops\": {", rr->names, rr->made_before,
		rr->span_ns, rr->late, r->max_lag_ns, rr->not_issued, rr->new_errors,
		rr->both_failed, rr->only_trace_failed);
	for (int t = 0; t < OP_NTYPES; t++) {
		const struct op_stats *tr = &rr->trace[t], *rp = &r->ops[t];

		if (!rr->calls_of[t] && !rp->ops && !rp->errors)
			continue;
		fprintf(out, "%s\n  \"%s\": {\"calls\": %" PRIu64 ", \"trace\": ", first ? "" : ",",
			op_name(t), rr->calls_of[t]);
		report_json_op(out, tr, rr->trace_span_ns, NULL);
		fputs(", \"replay\": ", out);
		report_json_op(out, rp, r->duration_ns, NULL);
		fputc('}', out);
		first = false;
	}
	fputs("}},\n", out);
}

void html_replay(FILE *out, const struct report *r)
{
	const struct replay_report *rr = r->replay;
	char a[32], b[32], c[96];

	if (!rr)
		return;
	fputs("<section id=\"replay\"><h2>Replay</h2>\n<p>", out);
	svg_esc(out, rr->file);
	fprintf(out, ", %s: %" PRIu64 " calls on %u connections over %s in the capture, %"
		PRIu64 " replayed, issued over %s; %" PRIu64 " late by more than 1 ms.</p>\n",
		speed_words(r->cfg, c, sizeof(c)), rr->calls, rr->connections,
		svg_fmt_lat((double)rr->trace_span_ns, a, sizeof(a)), rr->ops,
		svg_fmt_lat((double)rr->span_ns, b, sizeof(b)), rr->late);
	fprintf(out, "<p class=\"%s\">Statuses: %" PRIu64 " new errors (succeeded in the "
		"capture), %" PRIu64 " failed in both (not errors), %" PRIu64 " failed only in the "
		"capture.</p>\n", rr->new_errors ? "warn" : "info", rr->new_errors, rr->both_failed,
		rr->only_trace_failed);
	if (rr->left_out[0]) {
		fputs("<p class=\"warn\">The capture left out: ", out);
		svg_esc(out, rr->left_out);
		fputs("</p>\n", out);
	}
	fputs("<table><tr><th>op</th><th>capture calls</th><th>failed</th><th>p50</th>"
	      "<th>p99</th><th>replayed</th><th>errors</th><th>p50</th><th>p99</th></tr>\n", out);
	for (int t = 0; t < OP_NTYPES; t++) {
		const struct op_stats *tr = &rr->trace[t], *rp = &r->ops[t];
		char p[4][32];

		if (!rr->calls_of[t] && !rp->ops && !rp->errors)
			continue;
		fprintf(out, "<tr><td>%s</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td><td>%s</td>"
			"<td>%s</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td><td>%s</td><td>%s</td>"
			"</tr>\n", op_name(t), rr->calls_of[t], tr->errors,
			svg_fmt_lat((double)hist_percentile(&tr->lat, 50), p[0], sizeof(p[0])),
			svg_fmt_lat((double)hist_percentile(&tr->lat, 99), p[1], sizeof(p[1])),
			rp->ops + rp->errors, rp->errors,
			svg_fmt_lat((double)hist_percentile(&rp->lat, 50), p[2], sizeof(p[2])),
			svg_fmt_lat((double)hist_percentile(&rp->lat, 99), p[3], sizeof(p[3])));
	}
	fputs("</table>\n<p class=\"info\">Capture latency: its reply time minus its call "
	      "time; replay latency: from each call's time in the capture (scaled), as --rate "
	      "measures it.</p></section>\n", out);
}
