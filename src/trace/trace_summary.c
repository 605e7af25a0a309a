/*
 * trace_summary: what a decoded capture holds, per operation (calls,
 * replies, errors, the capture's own latency reply - call as p50/p99;
 * READ_PLUS: the bytes of data and of holes its replies gave), as text or
 * JSON, and what was left out of it.
 */
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "trace.h"
#include "trace_summary.h"

struct agg {
	char name[48];
	uint32_t code;
	uint64_t calls, replies, errors, not_run;	/* not run: v4, after a failed op */
	uint64_t data_bytes, hole_bytes;		/* v4.2 READ_PLUS's replies */
	struct hist lat;
};

static uint32_t code_of(const struct trace_op *op)
{
	return (uint32_t)op->prog << 24 | (uint32_t)op->version << 16 |
	       (op->compound ? 1u << 15 : 0) | op->proc;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct agg *)a)->name, ((const struct agg *)b)->name);
}

/* One struct agg per operation name, sorted by name: *n of them; NULL on ENOMEM. */
static struct agg *aggregate(const struct trace *t, size_t *n)
{
	struct agg *v = NULL;
	size_t cap = 0;

	*n = 0;
	for (size_t i = 0; i < t->nops; i++) {
		const struct trace_op *op = &t->ops[i];
		uint32_t code = code_of(op);
		char tmp[48];
		size_t k;

		for (k = 0; k < *n && v[k].code != code; k++)
			;
		if (k == *n) {
			if (*n == cap) {
				struct agg *q = realloc(v, (cap = cap ? cap * 2 : 32) * sizeof(*q));

				if (!q)
					goto fail;
				v = q;
			}
			memset(&v[k], 0, sizeof(v[k]));
			v[k].code = code;
			snprintf(v[k].name, sizeof(v[k].name), "%s",
				 trace_op_name(op, tmp, sizeof(tmp)));
			if (hist_init(&v[k].lat, HIST_PRECISE_BITS) < 0)
				goto fail;
			(*n)++;
		}
		v[k].calls++;
		v[k].data_bytes += op->data_bytes;
		v[k].hole_bytes += op->hole_bytes;
		v[k].not_run += op->status == TRACE_NOT_RUN;
		if (op->status == TRACE_NO_REPLY || op->status == TRACE_NOT_RUN)
			continue;
		v[k].replies++;
		v[k].errors += op->status != 0;
		if (op->reply_ns >= op->call_ns)
			hist_record(&v[k].lat, op->reply_ns - op->call_ns);
	}
	if (*n)
		qsort(v, *n, sizeof(*v), by_name);
	return v;
fail:
	for (size_t k = 0; k < *n; k++)
		hist_destroy(&v[k].lat);
	free(v);
	return NULL;
}

static const struct { const char *key; size_t off; } left_keys[] = {
	{ "lost_bytes", offsetof(struct trace_left, lost_bytes) },
	{ "skipped_bytes", offsetof(struct trace_left, skipped_bytes) },
	{ "records", offsetof(struct trace_left, records) },
	{ "cut_packets", offsetof(struct trace_left, cut_packets) },
	{ "undecoded", offsetof(struct trace_left, undecoded) },
	{ "v4_ops", offsetof(struct trace_left, v4_ops) },
	{ "orphan_replies", offsetof(struct trace_left, orphan_replies) },
	{ "incomplete", offsetof(struct trace_left, incomplete) },
};
#define NLEFT (sizeof(left_keys) / sizeof(left_keys[0]))

static uint64_t left_val(const struct trace *t, size_t i)
{
	return *(const uint64_t *)((const char *)&t->left + left_keys[i].off);
}

/* "3 4.1 MOUNT" */
static void versions(const struct trace *t, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = 0;
	if (t->versions & 1)
		o += (size_t)snprintf(buf + o, len - o, "%s3", o ? " " : "");
	for (int m = 0; m < 3 && o < len; m++)
		if (t->versions & 2u << m)
			o += (size_t)snprintf(buf + o, len - o, "%s4.%d", o ? " " : "", m);
	if (t->versions & 1u << 7 && o < len)
		snprintf(buf + o, len - o, "%sMOUNT", o ? " " : "");
}

static int text(FILE *out, const char *file, const struct trace *t, struct agg *v, size_t n)
{
	char ver[64];
	bool any = false;

	versions(t, ver, sizeof(ver));
	fprintf(out, "capture: %s\nspan: %.3f s, %llu packets, %u connections, versions: %s\n",
		file, t->span_ns / 1e9, (unsigned long long)t->packets, t->conns, ver[0] ? ver : "-");
	fprintf(out, "distinct handles: %u, names: %u; v4 compounds: %u, session plumbing ops: %llu\n",
		t->fhs.n, t->names.n, t->compounds, (unsigned long long)t->session_ops);
	fprintf(out, "%-24s %10s %10s %8s %8s %12s %12s\n", "op", "calls", "replies", "errors",
		"not run", "p50 (us)", "p99 (us)");
	for (size_t k = 0; k < n; k++)
		fprintf(out, "%-24s %10llu %10llu %8llu %8llu %12.1f %12.1f\n", v[k].name,
			(unsigned long long)v[k].calls, (unsigned long long)v[k].replies,
			(unsigned long long)v[k].errors, (unsigned long long)v[k].not_run,
			hist_percentile(&v[k].lat, 50) / 1e3,
			hist_percentile(&v[k].lat, 99) / 1e3);
	for (size_t k = 0; k < n; k++)
		if (v[k].data_bytes || v[k].hole_bytes)
			fprintf(out, "%s: %llu bytes of data, %llu bytes of holes\n", v[k].name,
				(unsigned long long)v[k].data_bytes,
				(unsigned long long)v[k].hole_bytes);
	for (size_t i = 0; i < NLEFT; i++) {
		if (!left_val(t, i))
			continue;
		fprintf(out, "%s %s %llu", any ? "," : "left out:", left_keys[i].key,
			(unsigned long long)left_val(t, i));
		any = true;
	}
	if (any)
		fputc('\n', out);
	return 0;
}

static int json(FILE *out, const char *file, const struct trace *t, struct agg *v, size_t n)
{
	json_t *root = json_object(), *ops = json_object(), *left = json_object(), *vers = json_array();
	char ver[64], *tok, *save = NULL;
	int rc;

	versions(t, ver, sizeof(ver));
	for (tok = strtok_r(ver, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		json_array_append_new(vers, json_string(tok));
	json_object_set_new(root, "capture", json_string(file));
	json_object_set_new(root, "span_ns", json_integer((json_int_t)t->span_ns));
	json_object_set_new(root, "packets", json_integer((json_int_t)t->packets));
	json_object_set_new(root, "connections", json_integer(t->conns));
	json_object_set_new(root, "versions", vers);
	json_object_set_new(root, "handles", json_integer(t->fhs.n));
	json_object_set_new(root, "names", json_integer(t->names.n));
	json_object_set_new(root, "compounds", json_integer(t->compounds));
	json_object_set_new(root, "session_ops", json_integer((json_int_t)t->session_ops));
	for (size_t k = 0; k < n; k++) {
		json_t *o = json_object();

		/* the numbers too, for a reader that counts them itself (tests/trace.sh) */
		json_object_set_new(o, "program", json_integer(v[k].code >> 24 ? 100005 : 100003));
		json_object_set_new(o, "version", json_integer(v[k].code >> 16 & 0xff));
		json_object_set_new(o, "proc", json_integer(v[k].code & 0x7fff));
		json_object_set_new(o, "calls", json_integer((json_int_t)v[k].calls));
		json_object_set_new(o, "replies", json_integer((json_int_t)v[k].replies));
		json_object_set_new(o, "errors", json_integer((json_int_t)v[k].errors));
		json_object_set_new(o, "not_run", json_integer((json_int_t)v[k].not_run));
		json_object_set_new(o, "p50_ns",
				    json_integer((json_int_t)hist_percentile(&v[k].lat, 50)));
		json_object_set_new(o, "p99_ns",
				    json_integer((json_int_t)hist_percentile(&v[k].lat, 99)));
		if (v[k].data_bytes || v[k].hole_bytes) {
			json_object_set_new(o, "data_bytes", json_integer((json_int_t)v[k].data_bytes));
			json_object_set_new(o, "hole_bytes", json_integer((json_int_t)v[k].hole_bytes));
		}
		json_object_set_new(ops, v[k].name, o);
	}
	json_object_set_new(root, "ops", ops);
	for (size_t i = 0; i < NLEFT; i++)
		json_object_set_new(left, left_keys[i].key, json_integer((json_int_t)left_val(t, i)));
	json_object_set_new(root, "left_out", left);
	rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', out);
	json_decref(root);
	return rc;
}

int trace_summary(FILE *out, const char *file, const struct trace *t, bool as_json)
{
	size_t n;
	struct agg *v = aggregate(t, &n);
	int rc;

	if (!v && t->nops)
		return -1;
	rc = as_json ? json(out, file, t, v, n) : text(out, file, t, v, n);
	for (size_t k = 0; k < n; k++)
		hist_destroy(&v[k].lat);
	free(v);
	return rc;
}
