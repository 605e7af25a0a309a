/*
 * report: the report model. What every renderer needs besides the merged
 * figures themselves: the series rows, totals, the outage summary, the
 * settings table, and small helpers shared by the text, JSON, job and HTML
 * renderings (report_text.c, report_json.c, report_job.c, html.c): error
 * names, the servers' outlier rule (--merge's too), the set-up steps'
 * histograms.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "engine.h"
#include "report.h"
#include "report_int.h"
#include "units.h"

const struct report_pct report_pcts[REPORT_NPCTS] = {
	{ "p50", 50 }, { "p90", 90 }, { "p99", 99 }, { "p99.9", 99.9 }, { "p99.99", 99.99 },
};

const enum op_type report_small_passes[REPORT_NPASSES] = { OP_CREATE, OP_READ, OP_GETATTR,
							   OP_REMOVE };

int report_series_get(const struct report *r, uint64_t i, struct interval_row *row)
{
	if (!r->series || i >= r->nseries ||
	    fseek(r->series, (long)(i * sizeof(*row)), SEEK_SET) ||
	    fread(row, sizeof(*row), 1, r->series) != 1)
		return -EIO;
	return 0;
}

int report_series_bucket(const struct report *r, const struct interval_row *row, uint64_t k,
			 struct series_bucket *b)
{
	if (!r->series_buckets || k >= row->nbuckets ||
	    fseek(r->series_buckets, (long)((row->buckets_at + k) * sizeof(*b)), SEEK_SET) ||
	    fread(b, sizeof(*b), 1, r->series_buckets) != 1)
		return -EIO;
	return 0;
}

uint64_t report_total_ops(const struct report *r)
{
	uint64_t n = 0;

	for (int t = 0; t < OP_NTYPES; t++)
		n += r->ops[t].ops + r->ops[t].denied;
	return n;
}

bool report_client_bound(const struct report *r)
{
	for (unsigned i = 0; i < r->nthreads; i++)
		if (r->threads[i].busy_pct >= BUSY_WARN_PCT)
			return true;
	return false;
}

double report_per_sec(uint64_t n, uint64_t ns)
{
	return ns ? (double)n * 1e9 / (double)ns : 0.0;
}

double report_mib_s(uint64_t bytes, uint64_t ns)
{
	return report_per_sec(bytes, ns) / (1024.0 * 1024.0);
}

double report_us_per_op(const struct report *r)
{
	uint64_t n = report_total_ops(r);

	return n ? (r->user_s + r->sys_s) * 1e6 / (double)n : 0.0;
}

double report_sleeps_per_op(const struct report *r)
{
	uint64_t n = report_total_ops(r), sleeps = 0;

	for (unsigned i = 0; i < r->nthreads; i++)
		sleeps += r->threads[i].sleeps;
	return n ? (double)sleeps / (double)n : 0.0;
}


int report_by_p99_desc(const void *a, const void *b)
{
	const struct conn_report *x = a, *y = b;

	return x->p99_ns < y->p99_ns ? 1 : x->p99_ns > y->p99_ns ? -1 : 0;
}

/* "UNSTABLE, COMMIT after every 4 writes per file", "FILE_SYNC (--sync)", ... */
const char *report_write_stability(const struct config *cfg, char *buf, size_t len)
{
	const char *cache = cfg->opt.direct ? "O_DIRECT" : "page cache";

	/* The local engine: what the kernel is asked for, in its words. */
	if (cfg->engine && cfg->engine->takes_path && cfg->sync)
		snprintf(buf, len, "%s, O_SYNC (--sync)", cache);
	else if (cfg->engine && cfg->engine->takes_path && cfg->commit_every)
		snprintf(buf, len, "%s, fsync after every %u write%s per file", cache,
			 cfg->commit_every, cfg->commit_every == 1 ? "" : "s");
	else if (cfg->engine && cfg->engine->takes_path)
		snprintf(buf, len, "%s, no fsync", cache);
	else if (cfg->sync)
		snprintf(buf, len, "FILE_SYNC (--sync)");
	else if (cfg->commit_every)
		snprintf(buf, len, "UNSTABLE, COMMIT after every %u write%s per file",
			 cfg->commit_every, cfg->commit_every == 1 ? "" : "s");
	else
		snprintf(buf, len, "UNSTABLE, no COMMIT");
	return buf;
}

void report_outages(const struct report *r, struct outage_summary *s)
{
	memset(s, 0, sizeof(*s));
	for (unsigned i = 0; i < r->nconns; i++) {
		const struct conn_report *c = &r->conns[i];

		s->reconnects += c->reconnects;
		if (!c->noutages)
			continue;
		s->connections++;
		s->count += c->noutages;
		for (uint64_t k = 0; k < c->noutages && k < CONN_OUTAGES_MAX; k++) {
			const struct conn_outage *o = &c->outages[k];

			s->failed_ops += o->failed_ops;
			s->unrecovered += !o->recovered;
			if (o->stall_ns > s->max_stall_ns)
				s->max_stall_ns = o->stall_ns;
			if (o->reconnect_ns > s->max_reconnect_ns)
				s->max_reconnect_ns = o->reconnect_ns;
			if ((s->connections == 1 && k == 0) || o->start_ns < s->first_ns)
				s->first_ns = o->start_ns;
		}
	}
}


/* Appends one setting; s[*n] is the new one. */
static struct setting *add(struct setting *s, unsigned *n, const char *key, const char *label,
			   enum setting_type type, bool shown, bool header)
{
	struct setting *x = &s[(*n)++];

	*x = (struct setting){ .key = key, .label = label, .type = type, .shown = shown,
			       .header = header };
	return x;
}

static void count(struct setting *s, unsigned *n, const char *key, const char *label,
		  uint64_t v, bool shown, bool header)
{
	add(s, n, key, label, SETTING_COUNT, shown, header)->n = v;
}

static void size(struct setting *s, unsigned *n, const char *key, const char *label,
		 uint64_t v, bool shown, bool header)
{
	add(s, n, key, label, SETTING_SIZE, shown, header)->n = v;
}

static void duration(struct setting *s, unsigned *n, const char *key, const char *label,
		     uint64_t v, bool shown, bool header)
{
	add(s, n, key, label, SETTING_TIME, shown, header)->n = v;
}

static void text(struct setting *s, unsigned *n, const char *key, const char *label,
		 const char *v, bool shown, bool header)
{
	add(s, n, key, label, SETTING_TEXT, shown, header)->text = v;
}

static void flag(struct setting *s, unsigned *n, const char *key, const char *label, bool v,
		 bool header)
{
	add(s, n, key, label, SETTING_FLAG, v, header)->n = v;
}

/* "4k", "1m", "1536": a size as --bs takes it, exactly. */
static const char *fio_size(uint64_t v, char *buf, size_t len)
{
	if (v % (UINT64_C(1) << 20) == 0)
		snprintf(buf, len, "%" PRIu64 "m", v >> 20);
	else if (v % 1024 == 0)
		snprintf(buf, len, "%" PRIu64 "k", v >> 10);
	else
		snprintf(buf, len, "%" PRIu64, v);
	return buf;
}

/* A size mix as fio spells it, each side complete: "4k/50:64k/50" or "4k/100,64k/100". */
static void report_bssplit(const struct config *cfg, char *buf, size_t len)
{
	const struct bssplit *b = &cfg->bssplit;
	size_t at = 0;

	buf[0] = '\0';
	if (!cfg->bssplit_set)
		return;
	for (unsigned k = 0; k < 2; k++) {
		if (k == 1 && memcmp(&b->dir[0], &b->dir[1], sizeof(b->dir[0])) == 0)
			break;
		for (unsigned i = 0; i < b->dir[k].n && at < len; i++) {
			char sz[32];

			at += (size_t)snprintf(buf + at, len - at, "%s%s/%u",
					       i ? ":" : k ? "," : "",
					       fio_size(b->dir[k].bs[i], sz, sizeof(sz)),
					       b->dir[k].pct[i]);
		}
	}
}

unsigned report_settings(const struct report *r, struct setting *s)
{
	const struct config *cfg = r->cfg;
	bool mixed = cfg->rw == WL_READWRITE || cfg->rw == WL_RANDRW;
	bool files = !cfg->meta && !cfg->small_files;
	bool local = cfg->engine && cfg->engine->takes_path;
	bool url = cfg->url[0] != '\0' && !local;
	bool xattrs;
	unsigned n = 0;

	text(s, &n, "engine", "engine", r->engine ? r->engine : "", true, true);
	/* A local directory has no URL and no NFS version: not even as JSON keys. */
	text(s, &n, local ? NULL : "url", "URL", cfg->url, url, true);
	text(s, &n, local ? "path" : NULL, "path", cfg->path, local, true);
	text(s, &n, local ? NULL : "nfs_version", "NFS version", r->nfs_version ? r->nfs_version : "",
	     url && r->nfs_version, true);
	/* The RPC flavour (the native engine's --sec): security costs, so it is always said. */
	text(s, &n, local ? NULL : "sec", "security", engine_sec_name(engine_sec_of(&cfg->opt)),
	     url, true);
	count(s, &n, "threads", "threads", r->nthreads, true, true);
	count(s, &n, "connections", "connections", cfg->connections, true, true);
	count(s, &n, "iodepth", "iodepth", cfg->iodepth, true, true);
	count(s, &n, "connections_per_session", "connections per session", cfg->opt.conns_per_session,
	      cfg->opt.conns_per_session > 1, true);
	count(s, &n, "max_load", "max-load (replies per wake)", cfg->opt.max_load, cfg->opt.max_load > 0,
	      true);
	duration(s, &n, "batch_wait_ns", "batch wait (replies held at most)", cfg->opt.batch_wait_ns,
		 cfg->opt.batch_wait_ns > 0, true);
	text(s, &n, "wire_time", "wire time", !cfg->wire_time ? "off" :
	     cfg->engine && cfg->engine->wire_time ? "on" : "not available with this engine",
	     cfg->wire_time, true);
	count(s, &n, "servers", "servers", cfg->nservers, cfg->nservers > 1, true);
	flag(s, &n, "shared_namespace", "shared namespace", cfg->shared_namespace, true);
	text(s, &n, "rw", "rw", wl_mode_name(cfg->rw), files, true);
	count(s, &n, "rwmixread", "rwmixread %", cfg->rwmixread, files && mixed, true);
	size(s, &n, "bs", "bs", cfg->bs, files, true);
	text(s, &n, "random_distribution", "random distribution", NULL,
	     files && cfg->distrib.kind != DISTRIB_RANDOM, false);
	distrib_format(&cfg->distrib, s[n - 1].own, sizeof(s[n - 1].own));
	text(s, &n, "bssplit", "bssplit", NULL, files && cfg->bssplit_set, false);
	report_bssplit(cfg, s[n - 1].own, sizeof(s[n - 1].own));
	size(s, &n, "size", "size", cfg->size, files, true);
	count(s, &n, "nrfiles", "nrfiles", cfg->nrfiles, files, true);
	text(s, &n, "dir", "work directory", cfg->dir, true, true);
	duration(s, &n, "runtime_ns", "runtime", cfg->runtime_ns, cfg->runtime_ns > 0, false);
	size(s, &n, "io_size", "io-size", cfg->io_size, cfg->io_size && !cfg->one_pass, false);
	text(s, &n, NULL, "amount", "each file once", cfg->one_pass && files, false);
	duration(s, &n, "ramp_time_ns", "ramp", cfg->ramp_ns, cfg->ramp_ns > 0, true);
	duration(s, &n, "timeout_ns", "timeout", cfg->timeout_ns, true, false);
	count(s, &n, "seed", "seed", cfg->seed, true, false);
	duration(s, &n, "interval_ns", "interval", cfg->interval_ns, true, false);
	text(s, &n, "replay", "replay", cfg->replay, cfg->replay[0], true);
	text(s, &n, "replay_speed", "replay speed", NULL, cfg->replay[0], true);
	if (cfg->replay_speed > 0)
		snprintf(s[n - 1].own, sizeof(s[n - 1].own), "%g", cfg->replay_speed);
	else
		snprintf(s[n - 1].own, sizeof(s[n - 1].own), "max");
	add(s, &n, "rate", "rate (ops/s)", SETTING_RATE, cfg->rate > 0, false)->rate = cfg->rate;
	text(s, &n, "load_curve", "load curve (ops/s)", NULL, cfg->curve.start > 0, false);
	curve_spec_format(&cfg->curve, s[n - 1].own, sizeof(s[n - 1].own));
	text(s, &n, "latency_target", "latency target", NULL, cfg->target.pct > 0, false);
	curve_target_format(&cfg->target, s[n - 1].own, sizeof(s[n - 1].own));
	text(s, &n, "mix", "mix", cfg->meta ? cfg->mix_str : "", cfg->meta, true);
	count(s, &n, "dirs", "dirs", cfg->dirs, cfg->meta || cfg->small_files, true);
	count(s, &n, "files_per_dir", "files per dir", cfg->files_per_dir, cfg->meta, true);
	size(s, &n, "file_size", "file size", cfg->file_size, !files, true);
	text(s, &n, "arrival", "arrival", cfg->arrival == CFG_ARRIVAL_POISSON ? "poisson" :
	     "uniform", config_open_loop(cfg), false);
	flag(s, &n, "sync", "sync", cfg->sync, true);
	flag(s, &n, "direct", "direct", cfg->opt.direct, true);
	count(s, &n, "commit_every", "commit every", cfg->commit_every, cfg->commit_every > 0, true);
	text(s, &n, "on_error", "on error", cfg->on_error == CFG_ON_ERROR_STOP ? "stop" : "continue",
	     true, false);
	count(s, &n, "buffer_compress_percentage", "buffer compress %",
	      cfg->buffer_compress_percentage, cfg->buffer_compress_percentage > 0, false);
	count(s, &n, "dedupe_percentage", "dedupe %", cfg->dedupe_percentage,
	      cfg->dedupe_percentage > 0, false);
	flag(s, &n, "verify", "verify", cfg->verify, false);
	flag(s, &n, "verify_only", "verify only", cfg->verify_only, false);
	flag(s, &n, "read_plus", "read plus", cfg->read_plus, false);
	flag(s, &n, "sparse", "sparse", cfg->sparse, false);
	/* The xattr ops of a mix: their names and value (shown when the mix has them). */
	xattrs = cfg->meta && (cfg->mix.weight[OP_GETXATTR] || cfg->mix.weight[OP_SETXATTR] ||
			       cfg->mix.weight[OP_REMOVEXATTR]);
	count(s, &n, "xattr_count", "xattr names", cfg->xattr_count, xattrs, false);
	size(s, &n, "xattr_size", "xattr size", cfg->xattr_size, xattrs, false);
	text(s, &n, "write_stability", "writes", NULL,
	     files && wl_mode_read_pct(cfg->rw, cfg->rwmixread) < 100, true);
	report_write_stability(cfg, s[n - 1].own, sizeof(s[n - 1].own));
	return n;
}

const char *report_setting_str(const struct setting *s)
{
	return s->text ? s->text : s->own;
}

const char *report_setting_text(const struct setting *s, char *buf, size_t len)
{
	switch (s->type) {
	case SETTING_SIZE:
		return units_format_size(s->n, buf, len);
	case SETTING_TIME:
		return units_format_duration(s->n, buf, len);
	case SETTING_TEXT:
		snprintf(buf, len, "%s", report_setting_str(s));
		break;
	case SETTING_FLAG:
		snprintf(buf, len, "%s", s->n ? "yes" : "no");
		break;
	case SETTING_RATE:
		snprintf(buf, len, "%.0f", s->rate);
		break;
	default:
		snprintf(buf, len, "%" PRIu64, s->n);
	}
	return buf;
}

const char *conn_err_name(int code)
{
	const char *name;

	if (code == CONN_ERR_SHORT)
		return "short transfer";
	if (code == CONN_ERR_VERIFY)
		return "verify mismatch";
	if (code == CONN_ERR_NOTSUPP)
		return "NFS4ERR_NOTSUPP";
	if (code == CONN_ERR_OP_ILLEGAL)
		return "NFS4ERR_OP_ILLEGAL";
	name = strerrorname_np(code);
	return name ? name : "unknown";
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* A server is an outlier when its p99 is over 3x the median of the others' p99: with
 * two servers, 3x the other's (the connections' rule, median of all, needs three). */
void report_servers_flag(struct server_report *s, unsigned n)
{
	uint64_t *p99 = calloc(n + 1, sizeof(*p99));

	for (unsigned k = 0; p99 && k < n; k++) {
		unsigned m = 0;
		uint64_t mine = hist_percentile(&s[k].st.lat, 99);

		for (unsigned j = 0; j < n; j++)
			if (j != k && s[j].st.ops)
				p99[m++] = hist_percentile(&s[j].st.lat, 99);
		qsort(p99, m, sizeof(*p99), cmp_u64);
		s[k].outlier = m && s[k].st.ops &&
			       mine > 3 * (m % 2 ? p99[m / 2] : (p99[m / 2 - 1] + p99[m / 2]) / 2);
	}
	free(p99);
}

int setup_times_init(struct setup_times *t, const struct config *cfg)
{
	memset(t, 0, sizeof(*t));
	t->names = cfg->engine->proto ? cfg->engine->proto(cfg->nfs_version, cfg->nfs_minor)->steps :
		   cfg->engine->steps;
	for (unsigned i = 0; i < SETUP_STEPS_MAX; i++)
		if (hist_init(&t->steps[i], HIST_PRECISE_BITS))
			return -ENOMEM;
	return 0;
}

void setup_times_destroy(struct setup_times *t)
{
	for (unsigned i = 0; i < SETUP_STEPS_MAX; i++)
		hist_destroy(&t->steps[i]);
}
