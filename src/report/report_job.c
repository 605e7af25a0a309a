/*
 * report_job: a job's output around its runs' reports (text, JSON, CSV),
 * and its summary table.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ops.h"
#include "report.h"
#include "report_int.h"
#include "units.h"

void report_job_run_begin(FILE *out, enum cfg_format fmt, const char *job_path,
			  const struct job_row *row, unsigned i, unsigned n)
{
	if (fmt == CFG_FORMAT_CSV) {
		fprintf(out, "# run %s\n", row->name);
		return;
	}
	if (fmt == CFG_FORMAT_TEXT) {
		fprintf(out, "%s=== run %u of %u: %s\n", i ? "\n" : "", i + 1, n, row->name);
		return;
	}
	if (i == 0) {
		fputs("{\n\"job\": ", out);
		report_json_str(out, job_path);
		fputs(",\n\"runs\": [\n", out);
	}
	fprintf(out, "%s{\"name\": ", i ? ",\n" : "");
	report_json_str(out, row->name);
	fputs(", \"sweep\": {\"key\": ", out);
	report_json_str(out, row->sweep_key);
	fputs(", \"value\": ", out);
	report_json_str(out, row->sweep_value);
	fputs("},\n\"report\": ", out);
}

void report_job_run_end(FILE *out, enum cfg_format fmt)
{
	if (fmt == CFG_FORMAT_JSON)
		fputc('}', out);
}

/*
 * The job summary table: run, then IOPS, MiB/s and p99 of reads and of
 * writes, the client's CPU per operation (what sets engines and the kernel
 * client apart side by side), errors, status. Columns are as wide as their
 * widest cell, header included, so the headers sit over their numbers
 * whatever the values.
 */
enum { JOB_COL_RUN, JOB_COL_CPU = 7, JOB_COL_ERRORS, JOB_COL_STATUS, JOB_NCOLS };

static const char *const job_heads[JOB_NCOLS] = {
	"run", "read IOPS", "read MiB/s", "read p99", "write IOPS", "write MiB/s", "write p99",
	"CPU us/op", "errors", "status",
};

/* Whether the run issued this op type (completed or failed). */
static bool job_op_issued(const struct job_row *r, int t)
{
	return r->ops[t] > 0 || r->op_errors[t] > 0;
}

/* The run's exit status in words, with the code a script would see. */
static void job_status(int status, char *buf, size_t len)
{
	static const char *const why[] = { "ok", "failed", "usage", "verify" };

	if (status == 0)
		snprintf(buf, len, "ok");
	else if (status == 128 + 2 || status == 128 + 15)	/* SIGINT, SIGTERM */
		snprintf(buf, len, "interrupted");
	else if (status > 128)
		snprintf(buf, len, "signal %d", status - 128);
	else if (status > 0 && status < (int)(sizeof(why) / sizeof(why[0])))
		snprintf(buf, len, "exit %d %s", status, why[status]);
	else
		snprintf(buf, len, "exit %d", status);
}

/* Every cell of a row but the run name, which may be longer than a cell. */
static void job_cells(const struct job_row *r, char cells[JOB_NCOLS][32])
{
	static const int types[] = { OP_READ, OP_WRITE };

	for (size_t k = 0; k < sizeof(types) / sizeof(types[0]); k++) {
		int t = types[k];
		char *iops = cells[1 + 3 * k], *mib = cells[2 + 3 * k], *p99 = cells[3 + 3 * k];

		if (!job_op_issued(r, t)) {
			strcpy(iops, "-");
			strcpy(mib, "-");
			strcpy(p99, "-");
			continue;
		}
		snprintf(iops, 32, "%.0f", r->iops[t]);
		snprintf(mib, 32, "%.1f", r->mib_s[t]);
		units_format_duration(r->p99_ns[t], p99, 32);
	}
	cells[JOB_COL_RUN][0] = '\0';
	if (r->cpu_us_per_op > 0)
		snprintf(cells[JOB_COL_CPU], 32, "%.2f", r->cpu_us_per_op);
	else
		strcpy(cells[JOB_COL_CPU], "-");
	snprintf(cells[JOB_COL_ERRORS], 32, "%" PRIu64, r->errors);
	job_status(r->status, cells[JOB_COL_STATUS], 32);
}

static void text_job_summary(FILE *out, const struct job_row *rows, unsigned n)
{
	char cells[JOB_NCOLS][32];
	int width[JOB_NCOLS];

	for (int c = 0; c < JOB_NCOLS; c++)
		width[c] = (int)strlen(job_heads[c]);
	for (unsigned i = 0; i < n; i++) {
		job_cells(&rows[i], cells);
		for (int c = 0; c < JOB_NCOLS; c++) {
			size_t w = c == JOB_COL_RUN ? strlen(rows[i].name) : strlen(cells[c]);

			if ((int)w > width[c])
				width[c] = (int)w;
		}
	}
	fprintf(out, "\njob summary, %u run%s:\n%-*s", n, n == 1 ? "" : "s", width[0], job_heads[0]);
	for (int c = 1; c < JOB_NCOLS; c++)
		fprintf(out, "  %*s", width[c], job_heads[c]);
	fputc('\n', out);
	for (unsigned i = 0; i < n; i++) {
		job_cells(&rows[i], cells);
		fprintf(out, "%-*s", width[0], rows[i].name);
		for (int c = 1; c < JOB_NCOLS; c++)
			fprintf(out, "  %*s", width[c], cells[c]);
		fputc('\n', out);
	}
}

void report_job_summary(FILE *out, enum cfg_format fmt, const struct job_row *rows, unsigned n)
{
	if (fmt == CFG_FORMAT_TEXT) {
		text_job_summary(out, rows, n);
		return;
	}
	if (fmt != CFG_FORMAT_JSON)
		return;
	fputs("\n],\n\"summary\": [", out);
	for (unsigned i = 0; i < n; i++) {
		const struct job_row *r = &rows[i];

		fprintf(out, "%s\n  {\"name\": ", i ? "," : "");
		report_json_str(out, r->name);
		fputs(", \"sweep_key\": ", out);
		report_json_str(out, r->sweep_key);
		fputs(", \"sweep_value\": ", out);
		report_json_str(out, r->sweep_value);
		for (int t = 0; t < OP_NTYPES; t++) {
			if (op_info(t)->cls != OPC_IO)
				continue;
			fprintf(out, ", \"%s_iops\": ", op_name(t));
			report_json_num(out, r->iops[t]);
			fprintf(out, ", \"%s_mib_s\": ", op_name(t));
			report_json_num(out, r->mib_s[t]);
			fprintf(out, ", \"%s_p99_ns\": %" PRIu64, op_name(t), r->p99_ns[t]);
		}
		fputs(", \"cpu_us_per_op\": ", out);
		report_json_num(out, r->cpu_us_per_op);
		fprintf(out, ", \"errors\": %" PRIu64 ", \"status\": %d}", r->errors, r->status);
	}
	fputs("\n]\n}\n", out);
}

void report_job_row(const struct report *r, struct job_row *row)
{
	double secs = (double)r->duration_ns / 1e9;

	for (int t = 0; t < OP_NTYPES; t++) {
		const struct op_stats *s = &r->ops[t];

		row->ops[t] = s->ops;
		row->op_errors[t] = s->errors;
		row->iops[t] = secs > 0 ? (double)s->ops / secs : 0;
		row->mib_s[t] = secs > 0 ? (double)s->bytes / secs / 1048576.0 : 0;
		row->p99_ns[t] = hist_percentile(&s->lat, 99);
		row->errors += s->errors;
	}
	row->cpu_us_per_op = report_us_per_op(r);
}
