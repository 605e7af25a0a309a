/*
 * replay_run: a --replay's own steps in a run (main thread). Before anything
 * is written: the capture read and decoded, its plan made (replay.h), and
 * the run's settings made from it (connections, their concurrency, the data
 * files). After the run: the replay's counts beside the trace's own
 * latency, for the report.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/check.h"
#include "exit_status.h"
#include "params.h"
#include "run_int.h"
#include "status.h"

/* What the capture could not give, in one line: its non-zero counts ("" if none). */
static void left_out(const struct trace *t, char *buf, size_t len)
{
	const struct trace_left *l = &t->left;
	const struct { uint64_t n; const char *what; } part[] = {
		{ l->lost_bytes, "bytes never captured" },
		{ l->skipped_bytes, "bytes skipped to find a record again" },
		{ l->records, "records dropped at gaps" },
		{ l->cut_packets, "packets cut by the snap length" },
		{ l->undecoded, "records not decoded" },
		{ l->v4_ops, "v4 operations after an unknown one" },
		{ l->orphan_replies, "replies to no call seen" },
		{ l->incomplete, "records unfinished at the end" },
	};
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(part) / sizeof(part[0]) && used < len; i++)
		if (part[i].n)
			used += (size_t)snprintf(buf + used, len - used, "%s%llu %s",
						 used ? ", " : "", (unsigned long long)part[i].n,
						 part[i].what);
}

#define NFS4ERR_DENIED 10010
#define NFS4ERR_SHARE_DENIED 10015

/* The trace's answer to o denied it for a conflict (counted as denied, as a run's are). */
static bool denied(const struct replay_op *o)
{
	return (o->trace_status == NFS4ERR_DENIED && (o->type == OP_LOCK || o->type == OP_LOCKT)) ||
	       (o->trace_status == NFS4ERR_SHARE_DENIED && o->type == OP_OPEN);
}

/* The trace's own latency and statuses, per op type. */
static int trace_side(struct app *a)
{
	struct replay_report *rr = &a->rrep;

	if (op_stats_init_all(rr->trace, HIST_PRECISE_BITS, false))
		return -ENOMEM;
	for (uint32_t i = 0; i < a->plan.nconns; i++)
		for (uint32_t k = 0; k < a->plan.conns[i].nops; k++) {
			const struct replay_op *o = &a->plan.conns[i].ops[k];

			rr->calls_of[o->type]++;
			if (o->trace_status == TRACE_NO_REPLY)
				continue;
			op_stats_record(&rr->trace[o->type], denied(o) ? STATS_DENIED :
					o->trace_status > 0 ? -1 : (int)replay_op_bytes(o),
					o->trace_lat_ns, o->trace_lat_ns);
		}
	return 0;
}

/*
 * The capture's operations on the run's engine and NFS version, as --mix's are
 * (check.c): a capture of a 4.2 client's READ_PLUS, SEEK ... needs version=4.2 or
 * version=4 (then asked for 4.2) and an engine that has them; one line, exit 2, if not.
 */
static int replay_versions(const struct app *a, const struct config *cfg, bool *need42,
			   char *err, size_t len)
{
	bool used[OP_NTYPES] = { false };
	char who[1100];

	*need42 = false;
	for (uint32_t i = 0; i < a->plan.nconns; i++)
		for (uint32_t k = 0; k < a->plan.conns[i].nops; k++) {
			enum op_type t = (enum op_type)a->plan.conns[i].ops[k].type;

			used[t] = true;
			*need42 |= (op_info(t)->versions & OPV_42) &&
				     !(op_info(t)->versions & OPV_41);
		}
	snprintf(who, sizeof(who), "--replay %s", cfg->replay);
	if (config_check_ops(cfg, used, who, err, len))
		return run_complain(EXIT_USAGE, "%s", err);
	return 0;
}

/* The run's engine and NFS version hold state (OPEN that holds, CLOSE, locks: the
 * native engine, NFSv4.1+): then the capture's state ops are replayed; else as before. */
static bool holds_state(const struct config *cfg)
{
	bool used[OP_NTYPES] = { false };
	char err[300];

	used[OP_CLOSE] = used[OP_LOCK] = true;
	return config_check_ops(cfg, used, "", err, sizeof(err)) == 0;
}

int replay_open(struct app *a, const struct config **cfgp)
{
	const struct config *cfg = *cfgp;
	struct config *rc = &a->rcfg;
	struct replay_report *rr = &a->rrep;
	struct engine_params params;
	struct trace t;
	uint64_t max_io, bs = 4096, size = 4096;
	char err[512];
	bool need42;
	int rv;

	rv = trace_load(cfg->replay, &t, err, sizeof(err));
	if (rv == -ENOMEM)
		return run_complain(EXIT_RUNTIME, "--replay: out of memory reading '%s'",
				    cfg->replay);
	if (rv == -EINVAL)
		return run_complain(EXIT_USAGE, "--replay %s: %s", cfg->replay, err);
	if (rv < 0)
		return run_complain(EXIT_USAGE, "--replay: %s", err);
	engine_params_init(&params, cfg);
	max_io = cfg->engine->max_read(&params);
	if (cfg->engine->max_write(&params) < max_io)
		max_io = cfg->engine->max_write(&params);
	rv = replay_plan_build_as(&t, max_io > UINT32_MAX ? UINT32_MAX : (uint32_t)max_io,
				  holds_state(cfg), &a->plan, err, sizeof(err));
	left_out(&t, rr->left_out, sizeof(rr->left_out));
	rr->calls = a->plan.trace_ops;
	trace_free(&t);
	if (rv == -ENOENT)
		return run_complain(EXIT_USAGE, "--replay: '%s': %s", cfg->replay, err);
	if (rv < 0)
		return run_complain(EXIT_RUNTIME, "--replay: %s", err);
	if (rr->left_out[0])
		fprintf(stderr, "nfsload: --replay %s: replaying what could be decoded; left out: "
			"%s\n", cfg->replay, rr->left_out);

	if ((rv = replay_versions(a, cfg, &need42, err, sizeof(err))))
		return rv;
	for (uint32_t i = 0; i < a->plan.nconns; i++)
		for (uint32_t k = 0; k < a->plan.conns[i].nops; k++)
			if (replay_op_bytes(&a->plan.conns[i].ops[k]) > bs)
				bs = replay_op_bytes(&a->plan.conns[i].ops[k]);
	for (uint32_t f = 0; f < a->plan.nfiles; f++)
		if (a->plan.file_size[f] > size)
			size = a->plan.file_size[f];
	*rc = *cfg;
	if (need42 && cfg->nfs_version == 4 && cfg->nfs_minor <= 0)
		rc->nfs_minor = 2;	/* version=4: ask for 4.2 itself, not whatever is granted */
	rc->connections = a->plan.nconns;
	rc->threads = cfg->threads < rc->connections ? cfg->threads : rc->connections;
	rc->iodepth = a->plan.depth;
	rc->nrfiles = a->plan.nfiles;
	rc->bs = bs;
	rc->size = size > bs ? size : bs;
	rc->rw = WL_READWRITE;
	rc->skip_layout = true;
	rc->one_pass = false;
	rc->io_size = 0;
	*cfgp = rc;

	rr->file = cfg->replay;
	rr->ops = a->plan.ops;
	rr->connections = a->plan.nconns;
	rr->trace_span_ns = a->plan.span_ns;
	rr->names = a->plan.nnodes ? a->plan.nnodes - 1 : 0;
	for (uint32_t i = 1; i < a->plan.nnodes; i++)
		rr->made_before += a->plan.nodes[i].before && a->plan.paths[i];
	for (uint32_t i = 0; i < a->plan.nconns; i++)
		for (uint32_t k = 0; k < a->plan.conns[i].nops; k++)
			rr->state_ops += a->plan.conns[i].ops[k].held;
	rr->open_slots = a->plan.open_slots;
	rr->state_left_out = a->plan.skipped[REPLAY_SKIP_STATE];
	for (unsigned k = 0; k < REPLAY_REASONS && k < REPLAY_SKIP_N; k++) {
		rr->skipped[k] = a->plan.skipped[k];
		rr->reasons[k] = replay_skip_name((enum replay_skip)k);
	}
	if (trace_side(a) || !(a->replay_done = calloc(a->plan.nconns, sizeof(*a->replay_done))))
		return run_complain(EXIT_RUNTIME, "out of memory");
	for (uint32_t i = 0; i < a->plan.nconns; i++)
		if (!(a->replay_done[i] = calloc(a->plan.conns[i].nops + 1, 1)))
			return run_complain(EXIT_RUNTIME, "out of memory");
	a->run.replay = &a->plan;
	a->run.replay_done = a->replay_done;
	a->rep.replay = rr;
	return 0;
}

void replay_fill_report(struct app *a)
{
	struct replay_report *rr = &a->rrep;
	struct replay_counts c = { 0 };

	for (unsigned i = 0; i < a->nworkers; i++)
		worker_add_replay(a->workers[i], &c);
	rr->late = c.late;
	rr->both_failed = c.both_failed;
	rr->only_trace_failed = c.only_trace_failed;
	rr->new_errors = c.new_errors;
	rr->not_issued = c.not_issued;
	rr->span_ns = c.last_issue_ns > c.first_issue_ns ? c.last_issue_ns - c.first_issue_ns : 0;
}

void replay_close(struct app *a)
{
	if (a->rrep.trace[0].lat.counts)
		op_stats_destroy_all(a->rrep.trace);
	for (uint32_t i = 0; a->replay_done && i < a->plan.nconns; i++)
		free(a->replay_done[i]);
	free(a->replay_done);
	replay_plan_free(&a->plan);
}
