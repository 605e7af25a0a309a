/*
 * run: one run, start to end. Everything that can fail without the server
 * is done before the work directory is touched; from the moment it is,
 * every way out goes through the cleanup at the end. The phases themselves
 * are in run_phases.c.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "aggregate.h"
#include "oplog_file.h"
#include "engine.h"
#include "pattern.h"
#include "params.h"
#include "run.h"
#include "run_int.h"
#include "setup.h"
#include "status.h"

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

/* Room for every connection's socket, or a clear reason why not. */
static int raise_nofile(unsigned connections)
{
	struct rlimit rl;
	rlim_t need = (rlim_t)connections + 64;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= need)
		return 0;
	if (rl.rlim_max < need) {
		if (setrlimit(RLIMIT_NOFILE, &(struct rlimit){ need, need }) == 0)
			return 0;	/* only root may raise the hard limit */
		getrlimit(RLIMIT_NOFILE, &rl);
		return run_complain(EXIT_RUNTIME, "--connections %u needs %llu open files, the limit "
				"is %llu (raise it with ulimit -n)", connections,
				(unsigned long long)need, (unsigned long long)rl.rlim_max);
	}
	rl.rlim_cur = need;
	setrlimit(RLIMIT_NOFILE, &rl);
	return 0;
}

/*
 * Layout writes are big for speed, but some engines copy each WRITE into a
 * fresh buffer: keep the bytes in flight across all connections near 64
 * MiB. An engine that cannot send 1 MiB gets whole 512-byte sectors.
 */
static uint64_t layout_block_size(const struct config *cfg, const struct engine_params *params)
{
	uint64_t bs = 1u << 20, max = cfg->engine->max_write(params);

	/* --sparse: blocks of --bs, every 4th of them written (slots_issue.c). */
	if (cfg->sparse)
		return cfg->bs;

	if (max < bs)
		return cfg->verify ? cfg->bs : max / 512 * 512;
	while (bs > (64u << 10) && bs * cfg->connections * cfg->iodepth > (64u << 20))
		bs /= 2;
	/* --verify writes whole blocks of --bs, each with its header. */
	if (cfg->verify)
		bs = bs < cfg->bs ? cfg->bs : bs / cfg->bs * cfg->bs;
	return bs;
}

static int64_t realtime_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec;
}

/* The phases' shared state and the report's histograms: all before the server. */
static int prepare(struct app *a)
{
	const struct config *cfg = a->cfg;
	struct report *r = &a->rep;
	uint64_t per_conn, max_bs;

	a->run.cfg = cfg;
	a->run.files = a->fs;
	a->run.pass_op = OP_NTYPES;
	/* A load curve's first point; run_curve sets each next one. */
	a->run.rate = cfg->rate > 0 ? cfg->rate : cfg->curve.start;
	a->run.layout_bs = layout_block_size(cfg, &a->params);
	/* Many connections: fewer layout writes in flight each, not smaller ones. */
	per_conn = (UINT64_C(64) << 20) / (a->run.layout_bs * cfg->connections);
	a->run.layout_depth = per_conn < 1 ? 1 : per_conn < cfg->iodepth ? (unsigned)per_conn :
			      cfg->iodepth;
	if (cfg->verify) {
		/* The generation says when: the Unix time the run began. */
		uint32_t gen = (uint32_t)realtime_s();

		a->verify = (struct verify_params){ .block = (uint32_t)cfg->bs,
						    .generation = gen ? gen : 1, .seed = cfg->seed };
		a->run.verify = &a->verify;
		a->run.verify_bs = a->run.layout_bs;
		/* A namespace of its own per server: blocks written on one are not on another. */
		for (unsigned k = 0; k < config_namespaces(cfg); k++)
			if (!(a->run.written_ns[k] = verify_map_new(cfg->nrfiles, cfg->size,
								    (uint32_t)cfg->bs)))
				return run_complain(EXIT_RUNTIME,
						    "out of memory for the --verify block map");
		a->run.written = a->run.written_ns[0];
		r->verify_generation = a->verify.generation;
	}
	max_bs = cfg->bs > a->run.layout_bs ? cfg->bs : a->run.layout_bs;
	a->run.pattern = pattern_new(max_bs > cfg->file_size ? max_bs : cfg->file_size,
				     cfg->buffer_compress_percentage);
	a->run.dedupe_pct = cfg->dedupe_percentage;
	if (a->run.pattern && cfg->file_size) {
		uint8_t *d = malloc(cfg->file_size);

		if (d)
			pattern_fill(a->run.pattern, 0, 0, 0, d, cfg->file_size);
		a->run.small_data = d;
	}
	if (cfg->buffer_compress_percentage)
		a->verify.pattern = a->run.pattern;
	if (cfg->meta && meta_mix_has_file_ops(&cfg->mix)) {
		/* SETXATTR's value: bytes from the seed, the same every run of it. */
		uint8_t *v = malloc(cfg->xattr_size);
		uint64_t rng = cfg->seed ^ UINT64_C(0x786174747273);	/* "xattrs" */

		if (!v)
			return run_complain(EXIT_RUNTIME, "out of memory");
		for (uint64_t i = 0; i < cfg->xattr_size; i++)
			v[i] = (uint8_t)wl_rand(&rng);
		a->run.xattr_value = v;
	}
	if (!a->run.pattern || (cfg->file_size && !a->run.small_data) ||
	    op_stats_init_all(r->ops, HIST_PRECISE_BITS, config_open_loop(cfg)) ||
	    op_stats_init(&r->layout, HIST_PRECISE_BITS, false) ||
	    op_stats_init(&r->verify_pass, HIST_PRECISE_BITS, false) ||
	    setup_times_init(&r->setup, cfg))
		return run_complain(EXIT_RUNTIME, "out of memory");
	if (control_init(&a->ctl, cfg, &a->run, &a->series))
		return run_complain(EXIT_RUNTIME, "cannot create the main event loop");
	return 0;
}

/* The workers and their connections, set up, threads running. */
static int start_workers(struct app *a)
{
	const struct config *cfg = a->cfg;
	struct engine_conn **all;
	unsigned first = 0, k = 0;
	int rc;

	a->workers = calloc(cfg->threads, sizeof(*a->workers));
	if (!a->workers)
		return run_complain(EXIT_RUNTIME, "out of memory");
	for (unsigned i = 0; i < cfg->threads; i++) {
		/* The remainder goes to the first threads: none dropped. */
		unsigned n = cfg->connections / cfg->threads + (i < cfg->connections % cfg->threads);

		rc = worker_new(i, &a->run, first, n, &a->workers[i]);
		if (rc)
			return run_complain(EXIT_RUNTIME, "cannot set up %u connections: %s",
					cfg->connections, strerror(-rc));
		a->nworkers++;
		first += n;
	}
	control_workers(&a->ctl, a->workers, a->nworkers);
	all = calloc(cfg->connections, sizeof(*all));
	if (!all)
		return run_complain(EXIT_RUNTIME, "out of memory");
	for (unsigned i = 0; i < a->nworkers; i++)
		for (unsigned j = 0; j < cfg->connections / cfg->threads +
		     (i < cfg->connections % cfg->threads); j++)
			all[k++] = worker_conn(a->workers[i], j);
	rc = setup_all(a->run.inst, cfg, &a->params, all, k, UINT64_C(60000000000), &a->rep.setup, a->err,
		       sizeof(a->err));
	free(all);
	if (rc)
		return run_complain(EXIT_RUNTIME, "%s", a->err);
	a->rep.connect_ns = a->rep.setup.elapsed_ns;
	/* What set-up found (the native engine: sessions and slots granted, the minor version). */
	a->rep.limits_note = cfg->engine->limits_note(a->run.inst, &a->params);
	if (cfg->engine->spoken && cfg->engine->spoken(a->run.inst))
		a->rep.nfs_version = cfg->engine->spoken(a->run.inst);
	for (unsigned i = 0; i < a->nworkers; i++)
		if ((rc = worker_start(a->workers[i])))
			return run_complain(EXIT_RUNTIME, "cannot start worker thread %u: %s", i,
					strerror(-rc));
	return 0;
}

/* The report's run-wide figures: CPU, the thread split, every connection. */
static int fill_report(struct app *a)
{
	struct report *r = &a->rep;
	struct control *c = &a->ctl;

	r->interrupted = c->signal != 0;
	r->start_unix_ns = c->start_unix_ns;
	r->limits_note = a->cfg->engine->limits_note(a->run.inst, &a->params);	/* with what the run saw */
	if (a->cfg->engine->state && a->run.inst) {
		r->has_state = true;
		a->cfg->engine->state(a->run.inst, &r->state);
	}
	r->user_s = tv_s(c->ru_end.ru_utime) - tv_s(c->ru_start.ru_utime);
	r->sys_s = tv_s(c->ru_end.ru_stime) - tv_s(c->ru_start.ru_stime);
	r->interval_ns = a->cfg->interval_ns;
	if (!r->curve)
		r->rate = a->run.rate;	/* a curve's: its reported point's (run_curve) */
	if (aggregate_conns(a->workers, a->nworkers, r) || a->servers_rc)
		return run_complain(EXIT_RUNTIME, "out of memory");
	if (a->run.replay)
		replay_fill_report(a);
	aggregate_servers_end(r);
	r->series = a->series.rows;
	r->nseries = a->series.nrows;
	r->series_buckets = a->series.buckets;
	r->srv_series = a->series.srv_rows;
	r->nsrv_series = a->series.nsrv_rows;
	/* A load curve's series is a staircase by design: no steady-state verdict on it. */
	if (!r->curve)
		series_steady(&a->series, &r->steady);
	if (r->rate > 0)
		r->achieved_rate = (double)report_total_ops(r) * 1e9 /
				   (double)(r->duration_ns ? r->duration_ns : 1);
	return 0;
}

static void render(struct app *a)
{
	const struct config *cfg = a->cfg;

	if (series_finish(&a->series))
		fprintf(stderr, "nfsload: --hdr-log: writing '%s' failed\n", cfg->hdr_log);
	if (cfg->format == CFG_FORMAT_JSON)
		report_json(a->out, &a->rep);
	else if (cfg->format == CFG_FORMAT_TEXT)
		report_text(a->out, &a->rep);
	if (a->html)
		report_html(a->html, &a->rep);
	if (fflush(a->out) || (a->html && fflush(a->html)))
		fprintf(stderr, "nfsload: writing the report failed: %s\n", strerror(errno));
}

/* Everything after the work directory exists, up to the report; the status. */
static int run_workload(struct app *a, struct run_result *res)
{
	int status;

	if ((status = start_workers(a)))
		return status;
	/* The trees only for operations on their names (held opens and locks have none). */
	if (((a->cfg->meta && meta_mix_has_name_ops(&a->cfg->mix, a->cfg->open_files > 0)) ||
	     a->cfg->small_files) && (status = run_make_trees(a)))
		return status;
	/* A --mix with NFSv4.2 ops works on the data files too: they are laid out. */
	if ((!a->cfg->meta || meta_mix_has_file_ops(&a->cfg->mix)) && (status = run_layout(a)))
		return status;
	run_measure(a);
	if (a->start_refused)
		return run_complain(EXIT_RUNTIME, "another MPI rank failed before the measured "
				    "phase: this one stops too");
	/* No phase follows: join the workers before reading their connections' figures. An
	 * idle worker still handles its sockets: a connection lost after the phase (the
	 * server killed under --on-error stop) would be written while the report reads it. */
	if (!run_verify_due(a))
		control_join(&a->ctl);
	/* The workers are idle (or joined): the main phase's figures are final. */
	if ((status = fill_report(a)) || (status = run_verify_pass(a)))
		return status;
	control_join(&a->ctl);
	aggregate_verify(a->workers, a->nworkers, &a->rep.verify);
	if (res)
		report_job_row(&a->rep, &res->row);
	render(a);
	status = run_exit_status(&a->rep, a->ctl.signal);
	/* An NFSv4.2 op refused under --on-error stop: its line was said at the stop. */
	if (status == 0 && atomic_load(&a->run.refusal))
		status = EXIT_RUNTIME;
	if (a->ctl.drain_timed_out)
		fprintf(stderr, "nfsload: some operations never completed (server not answering)\n");
	return status;
}

/*
 * Each namespace's work directory and files, through a control connection to its
 * server (several servers: that server's own copy of the settings). With a namespace
 * per server, which of its server's connections each one is.
 */
static int open_workdirs(struct app *a)
{
	const struct config *cfg = a->cfg;
	unsigned seen[CFG_SERVERS_MAX] = { 0 };

	a->nns = config_namespaces(cfg);
	if (cfg->nservers > 1) {
		a->srv_cfg = calloc(a->nns, sizeof(*a->srv_cfg));
		if (!a->srv_cfg)
			return run_complain(EXIT_RUNTIME, "out of memory");
		for (unsigned k = 0; k < a->nns; k++)
			config_for_server(cfg, k, &a->srv_cfg[k]);
	}
	if (a->nns > 1) {
		a->local_id = calloc(cfg->connections, sizeof(*a->local_id));
		if (!a->local_id)
			return run_complain(EXIT_RUNTIME, "out of memory");
		for (unsigned i = 0; i < cfg->connections; i++)
			a->local_id[i] = seen[config_server_of(cfg, i)]++;
		a->run.ns_each = true;
		a->run.local_id = a->local_id;
	}
	for (unsigned k = 0; k < a->nns; k++) {
		const struct config *c = a->srv_cfg ? &a->srv_cfg[k] : cfg;
		int rc = workdir_open(c, &a->wd[k], a->err, sizeof(a->err));

		if (rc) {
			/* Not mounted: nothing of it to clean up. */
			workdir_free(a->wd[k]);
			a->wd[k] = NULL;
		} else {
			rc = workdir_prepare(a->wd[k], &a->fs[k], a->err, sizeof(a->err));
		}
		if (rc == 0 && a->run.replay)
			rc = workdir_replay_make(a->wd[k], a->run.replay, a->err, sizeof(a->err));
		if (rc && a->nns > 1)
			return run_complain(EXIT_RUNTIME, "%.200s: %.380s", cfg->server[k].url,
					    a->err);
		if (rc)
			return run_complain(EXIT_RUNTIME, "%s", a->err);
	}
	a->rep.ports = workdir_ports(a->wd[0]);
	return 0;
}

/* What the run made on the server goes, unless --keep (a job keeps it for its end). */
static void cleanup(struct app *a)
{
	const struct config *cfg = a->cfg;

	if (cfg->keep)
		return;
	for (unsigned k = 0; k < a->nns && a->wd[k]; k++) {
		if ((cfg->meta || cfg->small_files) &&
		    workdir_trees_remove(a->wd[k], a->err, sizeof(a->err)))
			fprintf(stderr, "nfsload: cleanup: %s\n", a->err);
		if (cfg->open_files && workdir_held_remove(a->wd[k], a->err, sizeof(a->err)))
			fprintf(stderr, "nfsload: cleanup: %s\n", a->err);
		if (a->run.replay && workdir_replay_remove(a->wd[k], a->run.replay, a->err,
							   sizeof(a->err)))
			fprintf(stderr, "nfsload: cleanup: %s\n", a->err);
		if (workdir_cleanup(a->wd[k], &a->fs[k], a->err, sizeof(a->err)))
			fprintf(stderr, "nfsload: cleanup: %s\n", a->err);
	}
}

/* Every worker stopped and freed, its files closed unless requests were left hanging. */
static void stop_workers(struct app *a)
{
	for (unsigned i = 0; i < a->nworkers; i++)
		worker_join(a->workers[i]);
	for (unsigned i = 0; i < a->nworkers; i++)
		worker_free(a->workers[i], !a->ctl.drain_timed_out);
	free(a->workers);
	a->workers = NULL;
	a->nworkers = 0;
}

static void app_destroy(struct app *a)
{
	struct report *r = &a->rep;

	stop_workers(a);
	if (a->run.inst && a->cfg->engine->fini)
		a->cfg->engine->fini(a->run.inst);
	a->run.inst = NULL;
	control_destroy(&a->ctl);
	for (unsigned k = 0; k < CFG_SERVERS_MAX; k++) {
		workdir_free(a->wd[k]);
		fileset_destroy(&a->fs[k]);
	}
	free(a->srv_cfg);
	free(a->local_id);
	series_destroy(&a->series);
	if (a->html)
		fclose(a->html);
	oplog_close(a->oplog);	/* a run that failed: what its workers logged */
	op_stats_destroy_all(r->ops);
	op_stats_destroy(&r->layout);
	op_stats_destroy(&r->verify_pass);
	setup_times_destroy(&r->setup);
	for (unsigned k = 0; k < CFG_SERVERS_MAX; k++)
		verify_map_free(a->run.written_ns[k]);
	free(r->threads);
	free(r->conns);
	aggregate_servers_free(r);
	free((void *)a->run.pattern);
	free((void *)a->run.small_data);
	free((void *)a->run.xattr_value);
	replay_close(a);
}

/* The op types with a row in the series. */
static void used_ops(const struct config *cfg, bool used[OP_NTYPES])
{
	unsigned read_pct = wl_mode_read_pct(cfg->rw, cfg->rwmixread);

	memset(used, 0, OP_NTYPES * sizeof(*used));
	used[OP_READ] = read_pct > 0 && !cfg->read_plus;
	used[OP_READ_PLUS] = read_pct > 0 && cfg->read_plus;
	used[OP_WRITE] = read_pct < 100;
	used[OP_COMMIT] = cfg->commit_every > 0;
	for (int t = 0; cfg->meta && t < OP_NTYPES; t++)
		used[t] = cfg->mix.weight[t] > 0;
}

int run_one(const struct config *cfg, FILE *out, struct run_result *res)
{
	struct app *a = calloc(1, sizeof(*a));	/* large: on the heap, one per run */
	bool used[OP_NTYPES];
	char note[200];
	int status, rc;

	if (!a)
		return run_complain(EXIT_RUNTIME, "out of memory");
	a->cfg = cfg;
	if (cfg->replay[0] && (status = replay_open(a, &cfg)))
		goto out;
	a->cfg = cfg;
	engine_params_init(&a->params, cfg);
	a->params.open_slots = a->plan.open_slots;	/* --replay's held opens (0: none) */
	a->run.params = &a->params;
	a->out = out;
	a->rep.cfg = cfg;
	a->rep.engine = cfg->engine->name;
	if (cfg->engine->proto)
		a->rep.nfs_version = cfg->engine->proto(cfg->nfs_version, cfg->nfs_minor)->version;
	a->rep.ports = "";
	a->rep.limits_note = cfg->engine->limits_note(NULL, &a->params);
	used_ops(cfg, used);
	for (uint32_t i = 0; i < a->plan.nconns; i++)
		for (uint32_t k = 0; k < a->plan.conns[i].nops; k++)
			used[a->plan.conns[i].ops[k].type] = true;
	if (cfg->html[0] && !(a->html = fopen(cfg->html, "w"))) {
		status = run_complain(EXIT_USAGE, "--report: cannot write '%s': %s", cfg->html,
				  strerror(errno));
		goto out;
	}
	if (cfg->op_log[0] && (status = oplog_open(cfg->op_log, &a->oplog)) < 0) {
		status = run_complain(EXIT_USAGE, "--op-log: cannot write '%s': %s", cfg->op_log,
				      strerror(-status));
		goto out;
	}
	a->run.oplog = a->oplog;
	if (series_init(&a->series, cfg->interval_ns, used,
			cfg->format == CFG_FORMAT_CSV ? out : NULL,
			cfg->wire_time && cfg->engine->wire_time, cfg->hdr_log, a->err,
			sizeof(a->err))) {
		status = run_complain(EXIT_USAGE, "%s", a->err);
		goto out;
	}
	if (cfg->series_buckets && series_keep_buckets(&a->series) < 0) {
		status = run_complain(EXIT_RUNTIME, "--series-buckets: no temporary file: %s",
				      strerror(errno));
		goto out;
	}
	if ((status = raise_nofile(cfg->connections)) || (status = prepare(a)))
		goto out;
	signal(SIGPIPE, SIG_IGN);
	if (a->rep.limits_note[0])
		fprintf(stderr, "nfsload: note: %s\n", a->rep.limits_note);
	if (cfg->engine->init(&a->params, &a->run.inst, note, sizeof(note)) < 0) {
		status = run_complain(EXIT_RUNTIME, "cannot prepare the %s engine%s%s",
				      cfg->engine->name, note[0] ? ": " : "", note);
		goto out;
	}
	if (note[0])
		fprintf(stderr, "nfsload: note: %s\n", note);

	/* From here a signal waits for the loop: nothing is left half made on the server. */
	if ((status = open_workdirs(a)) == 0)
		status = run_workload(a, res);
	stop_workers(a);
	if (a->oplog && (rc = oplog_close(a->oplog)) < 0) {
		fprintf(stderr, "nfsload: --op-log: writing '%s' failed: %s\n", cfg->op_log,
			strerror(-rc));
		if (status == 0)
			status = EXIT_RUNTIME;
	}
	a->oplog = NULL;
	cleanup(a);
	/* The job cleans up after its last run. */
	for (unsigned k = 0; res && k < a->nns; k++) {
		res->fs[k] = a->fs[k];
		memset(&a->fs[k], 0, sizeof(a->fs[k]));
		res->nfs = k + 1;
	}
out:
	app_destroy(a);
	free(a);
	return status;
}
