/*
 * check: defaults, and every check across options that needs no server;
 * the engine's own limits last (engine_ops.check, on the engine's params).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "engine.h"
#include "optable.h"
#include "params.h"
#include "units.h"
#include "verify.h"

void config_defaults(struct config *cfg)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	memset(cfg, 0, sizeof(*cfg));
	cfg->engine = engine_default();
	cfg->nfs_version = 3;
	cfg->threads = ncpu > 0 ? (unsigned)ncpu : 1;
	cfg->connections = 1;
	cfg->iodepth = 1;
	cfg->rw = WL_RANDREAD;
	cfg->rwmixread = 50;
	cfg->bs = 4096;
	cfg->size = 64 << 20;
	cfg->nrfiles = 1;
	snprintf(cfg->dir, sizeof(cfg->dir), "nfsload.work");
	cfg->timeout_ns = UINT64_C(5000000000);
	cfg->interval_ns = UINT64_C(1000000000);
	cfg->dirs = 4;
	cfg->files_per_dir = 16;
	cfg->file_size = 4096;
	cfg->xattr_count = 4;
	cfg->xattr_size = 64;
	cfg->lock_size = 4096;
	cfg->seed = 1;
	cfg->replay_speed = 1;
}

/* --verify: whole blocks of --bs, each with its header, at block offsets. */
static int check_verify(struct config *cfg, char *err, size_t len)
{
	if (cfg->verify_continue && !cfg->verify)
		return config_fail(err, len, "--verify-continue: only with --verify or --verify-only");
	if (!cfg->verify)
		return 0;
	if (cfg->meta || cfg->small_files)
		return config_fail(err, len, "--verify: checks the files of --size/--nrfiles "
			    "(not with --mix or --small-files)");
	if (cfg->bs < VERIFY_MIN_BLOCK)
		return config_fail(err, len, "--bs: at least %d bytes with --verify (a block holds a "
			    "%d-byte header)", VERIFY_MIN_BLOCK, VERIFY_HDR_SIZE);
	if (cfg->size % cfg->bs)
		return config_fail(err, len, "--size: a multiple of --bs with --verify (whole blocks)");
	if (cfg->verify_only && (cfg->runtime_ns || cfg->io_size || cfg->rate > 0))
		return config_fail(err, len, "--verify-only: reads every file once (not with --runtime, "
			    "--io-size or --rate)");
	if (cfg->verify_only && cfg->skip_layout)
		return config_fail(err, len, "--verify-only: never lays files out (--skip-layout is implied)");
	if (cfg->verify_only) {
		cfg->skip_layout = true;
		cfg->rw = WL_READ;
	}
	return 0;
}

/*
 * --bssplit: a direction without sizes draws --bs; --bs becomes the largest
 * size an op may draw, so buffers and every limit of --bs (the engine's too)
 * hold for each size.
 */
static int check_bssplit(struct config *cfg, unsigned read_pct, char *err, size_t len)
{
	uint64_t max = 0;

	if (!cfg->bssplit_set)
		return 0;
	if (cfg->verify)
		return config_fail(err, len, "--bssplit: not with --verify (its blocks are all of --bs)");
	if (cfg->meta || cfg->small_files)
		return config_fail(err, len, "--bssplit: sizes for the files of --size "
				   "(not with --mix or --small-files)");
	/* --max-load wakes a socket once K replies of --bs are in: smaller ones would wait
	 * for its 10 ms timer (a run went from 28,514 reads to 844). */
	if (cfg->opt.max_load)
		return config_fail(err, len, "--bssplit: not with --max-load (it counts replies "
				   "of one size)");
	for (unsigned k = 0; k < 2; k++) {
		struct bssplit_dir *d = &cfg->bssplit.dir[k];
		bool used = k == 0 ? read_pct > 0 : read_pct < 100;

		if (d->n == 0)
			*d = (struct bssplit_dir){ .n = 1, .bs = { cfg->bs }, .pct = { 100 } };
		if (used && bssplit_max(d) > max)
			max = bssplit_max(d);
	}
	cfg->bs = max;
	return 0;
}

/* --replay: the trace says what runs; what would say otherwise is refused. */
static int check_replay(struct config *cfg, const struct check_given *given, char *err,
			size_t len)
{
	const char *other = cfg->meta ? "--mix" : cfg->small_files ? "--small-files" :
			    cfg->rate > 0 ? "--rate" : cfg->verify || cfg->verify_only ? "--verify" :
			    cfg->commit_every ? "--commit-every" : cfg->io_size ? "--io-size" :
			    cfg->bssplit_set ? "--bssplit" : cfg->nservers > 1 ? "several servers" :
			    cfg->curve.start > 0 ? "--load-curve" : NULL;

	if (!cfg->replay[0]) {
		if (given->replay_speed)
			return config_fail(err, len, "--replay-speed: only with --replay CAPTURE");
		return 0;
	}
	if (other)
		return config_fail(err, len, "--replay: not with %s (the capture says what runs)",
				   other);
	if (!cfg->engine->proto)
		return config_fail(err, len, "--replay: needs an engine that speaks NFS (native or "
				   "libnfs), not %s", cfg->engine->name);
	if (given->shape)
		return config_fail(err, len, "--replay: not with --%s (the capture's connections, "
				   "their concurrency and files are replayed as they were)",
				   given->shape);
	if (cfg->ramp_ns)
		return config_fail(err, len, "--replay: not with --ramp-time (every call of the "
				   "capture is measured)");
	return 0;
}

static bool declares(const struct engine_ops *e, const char *name)
{
	for (const struct opt *o = e->options; o && o->name; o++)
		if (strcmp(o->name, name) == 0)
			return true;
	return false;
}

/* An engine's option that another engine was given, where its table says why not. */
static int check_foreign(struct config *cfg, char *err, size_t len)
{
	struct opt_ref all[OPTIONS_MAX];
	unsigned n = options_all(all);

	for (unsigned i = 0; i < n; i++) {
		const struct opt *o = all[i].opt;
		const unsigned char *v;

		if (!all[i].engine || !o->foreign || declares(cfg->engine, o->name))
			continue;
		/* An engine's value: a bool flag, else a number or an enum. */
		v = (const unsigned char *)options_base(&all[i], cfg) + o->off;
		if (o->kind == OPT_FLAG && !o->set_int ? *(const bool *)v : *(const unsigned *)v != 0)
			return config_fail(err, len, "--%s: %s", o->name, o->foreign);
	}
	return 0;
}

/* --load-curve and --latency-target; the curve's rates in operations per second. */
static int check_curve(struct config *cfg, char *err, size_t len)
{
	struct curve_spec ops;

	if (cfg->target.pct > 0 && cfg->curve.start <= 0)
		return config_fail(err, len, "--latency-target: only with --load-curve");
	if (cfg->curve.start <= 0)
		return 0;
	if (cfg->rate > 0)
		return config_fail(err, len, "--load-curve: sets the rate of each point itself "
			    "(not with --rate)");
	if (cfg->op_log[0])
		return config_fail(err, len, "--op-log: not with --load-curve (the report's "
			    "operations are one point's; log a point with --rate)");
	if (cfg->meta || cfg->small_files || cfg->verify_only)
		return config_fail(err, len, "--load-curve: an open-loop read/write workload "
			    "(not with --mix, --small-files or --verify-only)");
	if (!cfg->runtime_ns)
		return config_fail(err, len, "--load-curve: needs --runtime (each point runs for it)");
	if (cfg->io_size)
		return config_fail(err, len, "--load-curve: each point runs for --runtime "
			    "(not with --io-size)");
	if (cfg->curve.bytes && cfg->bssplit_set)
		return config_fail(err, len, "--load-curve: a rate in bytes per second needs one "
			    "block size (not with --bssplit; give operations per second)");
	if (curve_rates(&cfg->curve, cfg->bs, &ops))
		return config_fail(err, len, "--load-curve: every rate must come to 1 to %.0f "
			    "operations per second of --bs", CURVE_RATE_MAX);
	cfg->curve = ops;
	return 0;
}

/*
 * The NFS versions a run's connections may speak: the URL's; version=4 on an
 * engine that negotiates (native: the highest the server grants, 4.2 first)
 * any 4.x, the engine refusing at queue what the granted one lacks; libnfs's
 * version=4 is 4.0. An engine that talks to no NFS server: any.
 */
static unsigned run_versions(const struct config *cfg)
{
	if (!cfg->engine->proto)
		return OPV_ALL;
	if (cfg->nfs_version == 3)
		return OPV_3;
	if (cfg->nfs_minor > 0)
		return op_version_bit(4, cfg->nfs_minor);
	return cfg->engine->op_bit & OPE_NATIVE ? OPV_4 : OPV_40;
}

/* "NFSv4.2 (version=4.2 or version=4 in the URL) and the native engine": what has op t. */
static void what_has(enum op_type t, char *buf, size_t len)
{
	static const char *const vname[] = { "NFSv3", "NFSv4.0", "NFSv4.1", "NFSv4.2" };
	const struct op_info *oi = op_info(t);
	const struct engine_ops *e;
	size_t n = 0;
	unsigned k, seen = 0;

	buf[0] = '\0';
	for (k = 0; k < 4 && oi->versions != OPV_ALL; k++)
		if (oi->versions & 1u << k)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", seen++ ? " or " : "",
					      vname[k]);
	if ((oi->versions & OPV_42) && !(oi->versions & OPV_41) && n < len)
		n += (size_t)snprintf(buf + n, len - n, " (version=4.2 or version=4 in the URL)");
	seen = 0;
	for (k = 0; (e = engine_nth(k)) && n < len; k++)
		if ((oi->engines & e->op_bit) && e->proto)	/* engines of NFS servers */
			n += (size_t)snprintf(buf + n, len - n, "%s%s", seen++ ? " or " :
					      n ? " and the " : "the ", e->name);
	if (seen && n < len)
		snprintf(buf + n, len - n, " engine");
}

int config_check_ops(const struct config *cfg, const bool used[OP_NTYPES], const char *who,
		     char *err, size_t len)
{
	unsigned versions = run_versions(cfg);

	for (int t = 0; t < OP_NTYPES; t++) {
		const struct op_info *oi = op_info((enum op_type)t);
		bool engine = oi->engines & cfg->engine->op_bit, version = oi->versions & versions;
		char has[200], ver[48];

		if (!used[t] || (engine && version))
			continue;
		what_has((enum op_type)t, has, sizeof(has));
		if (cfg->nfs_version == 3 || cfg->nfs_minor > 0)
			snprintf(ver, sizeof(ver), "version=%d%s", cfg->nfs_version,
				 cfg->nfs_version == 3 ? "" : cfg->nfs_minor == 1 ? ".1" : ".2");
		else
			snprintf(ver, sizeof(ver), "version=4 (NFSv4.0 on %s)", cfg->engine->name);
		return config_fail(err, len, "%s: %s needs %s, not %s%s%s%s", who, oi->name, has,
				   version ? "" : ver, version || engine ? "" : " with ",
				   engine ? "" : "--engine ", engine ? "" : cfg->engine->name);
	}
	return 0;
}

/*
 * State: held opens need an engine and version with CLOSE (the native engine,
 * NFSv4.1 or 4.2; the null engine); --mix's close closes a held file.
 */
static int check_state(const struct config *cfg, char *err, size_t len)
{
	const struct op_info *close = op_info(OP_CLOSE);

	if (cfg->open_files && (!(close->engines & cfg->engine->op_bit) ||
				!(close->versions & run_versions(cfg))))
		return config_fail(err, len, "--open-files: held opens need NFSv4.1 or 4.2 "
				   "(version=4.1, 4.2 or 4 in the URL) and the native engine");
	if (cfg->meta && cfg->mix.weight[OP_CLOSE] && !cfg->open_files)
		return config_fail(err, len, "--mix: close closes a held file: it needs "
				   "--open-files N");
	return 0;
}

/* --mix's operations (and --read-plus's READ_PLUS), before anything is written. */
static int check_mix_ops(const struct config *cfg, char *err, size_t len)
{
	bool used[OP_NTYPES] = { false };

	for (int t = 0; cfg->meta && t < OP_NTYPES; t++)
		used[t] = cfg->mix.weight[t] > 0;
	if (cfg->read_plus) {
		bool rp[OP_NTYPES] = { [OP_READ_PLUS] = true };
		int rc = config_check_ops(cfg, rp, "--read-plus", err, len);

		if (rc)
			return rc;
	}
	int rc = check_state(cfg, err, len);

	return rc ? rc : config_check_ops(cfg, used, "--mix", err, len);
}

/* The engine's limits, on the params it would be given. */
static int check_engine(const struct config *cfg, char *err, size_t len)
{
	struct engine_params *p = malloc(sizeof(*p));
	int rc;

	if (!p)
		return config_fail(err, len, "out of memory");
	engine_params_init(p, cfg);
	rc = cfg->engine->check(p, err, len);
	free(p);
	return rc;
}

int config_check(struct config *cfg, const struct check_given *given, char *err, size_t len)
{
	char a[32], b[32];
	int rc;
	unsigned read_pct = wl_mode_read_pct(cfg->rw, cfg->rwmixread);

	/* A --replay's connections are the capture's, known once it is read (replay_run
	 * then puts at most one thread per connection): not --connections' 1 here. */
	if (!cfg->replay[0] && !given->threads && cfg->threads > cfg->connections)
		cfg->threads = cfg->connections;
	if (!cfg->replay[0] && cfg->threads > cfg->connections)
		return config_fail(err, len, "--threads: %u threads for %u connections would leave "
			    "threads with nothing to do (at most --connections)",
			    cfg->threads, cfg->connections);
	if (cfg->size > UINT64_MAX / cfg->nrfiles)
		return config_fail(err, len, "--size: %u files of that size are more than 16 EiB",
			    cfg->nrfiles);
	if ((rc = check_bssplit(cfg, read_pct, err, len)))
		return rc;
	if (cfg->distrib.kind != DISTRIB_RANDOM && !wl_mode_random(cfg->rw))
		return config_fail(err, len, "--random-distribution: only with a random --rw "
			    "(randread, randwrite, randrw), not %s", wl_mode_name(cfg->rw));
	if (cfg->bs > cfg->size)
		return config_fail(err, len, "--bs: %s is larger than --size %s (a block must fit in a file)",
			    units_format_size(cfg->bs, a, sizeof(a)),
			    units_format_size(cfg->size, b, sizeof(b)));
	if (cfg->runtime_ns && cfg->ramp_ns >= cfg->runtime_ns)
		return config_fail(err, len, "--ramp-time: must be shorter than --runtime");
	if (cfg->timeout_ns < UINT64_C(1000000000))
		return config_fail(err, len, "--timeout: at least 1s (timeouts are checked once a second)");
	if (cfg->timeout_ns > UINT64_C(3600000000000))
		return config_fail(err, len, "--timeout: at most 1h");
	if (cfg->commit_every && read_pct == 100)
		return config_fail(err, len, "--commit-every: --rw %s writes nothing to commit",
			    wl_mode_name(cfg->rw));
	if ((rc = check_foreign(cfg, err, len)))
		return rc;
	if (cfg->commit_every && cfg->sync)
		return config_fail(err, len, "--commit-every: writes are already stable with --sync "
			    "(use one or the other)");
	if (cfg->small_files && (cfg->meta || cfg->rate > 0 || cfg->commit_every))
		return config_fail(err, len, "--small-files: a test of its own (not with --mix, --rate "
			    "or --commit-every)");
	if (cfg->small_files) {
		/* Each pass runs to its end (a job's runtime may apply); each connection's
		 * share of the files, spread over its directories. */
		unsigned per_conn = (cfg->small_files + cfg->connections - 1) / cfg->connections;

		cfg->runtime_ns = 0;
		cfg->files_per_dir = (per_conn + cfg->dirs - 1) / cfg->dirs;
	}
	if (cfg->read_plus && (cfg->meta || cfg->small_files))
		return config_fail(err, len, "--read-plus: the reads of --rw (with --mix: read_plus=W "
				   "in the mix)");
	if (cfg->meta && !cfg->runtime_ns)
		return config_fail(err, len, "--mix: needs --runtime (a metadata mix has no pass to end)");
	if (cfg->meta && (cfg->rate > 0 || cfg->commit_every))
		return config_fail(err, len, "--mix: not with --rate or --commit-every (not yet)");
	if (given->arrival && !config_open_loop(cfg))
		return config_fail(err, len, "--arrival: only with --rate or --load-curve (open loop)");
	if ((rc = check_curve(cfg, err, len)))
		return rc;
	if ((rc = check_replay(cfg, given, err, len)))
		return rc;
	if ((rc = check_mix_ops(cfg, err, len)))
		return rc;
	rc = check_verify(cfg, err, len);
	if (rc)
		return rc;
	if (!cfg->runtime_ns && !cfg->io_size) {
		cfg->one_pass = true;
		cfg->io_size = cfg->size * cfg->nrfiles;
	}
	/* Last: the engine's limits, on a configuration that is otherwise valid. */
	return check_engine(cfg, err, len);
}
