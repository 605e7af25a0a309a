/*
 * optable: the command line's options, declared once (option.h): name,
 * letter, kind and bounds, --help text, job-file key and where the value
 * goes in struct config; the few with a parser of their own have it here.
 * options_all adds every engine's options, so nothing here names an engine.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "engine.h"
#include "optable.h"
#include "units.h"

#define F(m) offsetof(struct config, m)

static struct config *cfg_of(void *base)
{
	return base;
}

static int set_rw(void *base, const struct opt *o, const char *arg, char *err, size_t len)
{
	(void)o;
	if (wl_mode_parse(arg, &cfg_of(base)->rw))
		return config_fail(err, len, "--rw: '%s' is not a mode (read, write, randread, "
				   "randwrite, readwrite, randrw)", arg);
	return 0;
}

static int set_distrib(void *base, const struct opt *o, const char *arg, char *err, size_t len)
{
	(void)o;
	if (distrib_parse(arg, &cfg_of(base)->distrib))
		return config_fail(err, len, "--random-distribution: '%s' is not a distribution "
				   "(random, zipf:THETA with THETA > 0, pareto:H with 0 < H < 1, "
				   "normal:DEV with 0 < DEV <= 100)", arg);
	return 0;
}

static int set_bssplit(void *base, const struct opt *o, const char *arg, char *err, size_t len)
{
	struct config *cfg = cfg_of(base);
	char why[128];

	(void)o;
	if (bssplit_parse(arg, o->max, &cfg->bssplit, why, sizeof(why)))
		return config_fail(err, len, "--bssplit: '%s' %s (SIZE/PCT pairs joined by ':', "
				   "e.g. 4k/50:64k/30:1m/20, sizes up to 16m, READS,WRITES per "
				   "direction)", arg, why);
	cfg->bssplit_set = true;
	return 0;
}

static int set_dir(void *base, const struct opt *o, const char *arg, char *err, size_t len)
{
	struct config *cfg = cfg_of(base);
	size_t n = strlen(arg);

	(void)o;
	if (n == 0 || n >= sizeof(cfg->dir) || strcmp(arg, ".") == 0 || strcmp(arg, "..") == 0 ||
	    strspn(arg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != n)
		return config_fail(err, len, "--dir: '%s' is not a directory name "
				   "(one path component of letters, digits, '.', '_', '-')", arg);
	memcpy(cfg->dir, arg, n + 1);
	return 0;
}

static int set_seed(void *base, const struct opt *o, const char *arg, char *err, size_t len)
{
	(void)o;
	if (units_parse_uint(arg, 0, UINT64_MAX, &cfg_of(base)->seed))
		return config_fail(err, len, "--seed: '%s' is not a whole number", arg);
	return 0;
}

static int set_interval(void *base, const struct opt *o, const char *arg, char *err, size_t len)
{
	uint64_t *ns = &cfg_of(base)->interval_ns;

	(void)o;
	if (units_parse_duration(arg, ns))
		return config_fail(err, len, "--interval: '%s' is not a duration (try 500ms, 30s, "
				   "5m, 1h)", arg);
	if (*ns < UINT64_C(100000000) || *ns > UINT64_C(3600000000000))
		return config_fail(err, len, "--interval: '%s' is out of range (100ms to 1h)", arg);
	return 0;
}

/* Operations per second: a whole number, 1 to 100 million. */
static int set_rate(void *base, const struct opt *o, const char *arg, char *err, size_t len)
{
	uint64_t v;

	(void)o;
	if (units_parse_uint(arg, 1, 100000000, &v))
		return config_fail(err, len, "--rate: '%s' is not an operation rate "
				   "(whole operations per second, 1 to 100000000)", arg);
	cfg_of(base)->rate = (double)v;
	return 0;
}

static int set_replay_speed(void *base, const struct opt *o, const char *arg, char *err,
			    size_t len)
{
	char *end;
	double v = strtod(arg, &end);

	(void)o;
	if (!strcmp(arg, "max")) {
		cfg_of(base)->replay_speed = 0;
		return 0;
	}
	if (end == arg || *end || !(v >= 0.01 && v <= 1000))
		return config_fail(err, len, "--replay-speed: '%s' is not a speed (a factor from "
				   "0.01 to 1000, e.g. 2 for twice the trace's pace, or max)", arg);
	cfg_of(base)->replay_speed = v;
	return 0;
}

static int set_load_curve(void *base, const struct opt *o, const char *arg, char *err,
			  size_t len)
{
	char why[160];

	(void)o;
	if (curve_parse(arg, &cfg_of(base)->curve, why, sizeof(why)))
		return config_fail(err, len, "--load-curve: '%s' %s (START:STEP[:END], e.g. "
				   "1000:1000:8000 operations per second, or 10m/s:10m/s:80m/s)",
				   arg, why);
	return 0;
}

static int set_latency_target(void *base, const struct opt *o, const char *arg, char *err,
			      size_t len)
{
	char why[160];

	(void)o;
	if (curve_target_parse(arg, &cfg_of(base)->target, why, sizeof(why)))
		return config_fail(err, len, "--latency-target: '%s' %s (pNN=TIME, e.g. p99=2ms, "
				   "p99.9=500us)", arg, why);
	return 0;
}

static int set_servers(void *base, const struct opt *o, const char *arg, char *err, size_t len)
{
	struct config *cfg = cfg_of(base);

	(void)o;
	if (strlen(arg) >= sizeof(cfg->servers_file))
		return config_fail(err, len, "--servers: cannot open '%s': %s", arg,
				   strerror(ENAMETOOLONG));
	memcpy(cfg->servers_file, arg, strlen(arg) + 1);
	return 0;
}

static int set_series_by(void *base, const struct opt *o, const char *arg, char *err, size_t len)
{
	(void)o;
	if (strcmp(arg, "server"))
		return config_fail(err, len, "--series-by: 'server' is what it takes (got '%s')", arg);
	cfg_of(base)->series_by_server = true;
	return 0;
}

static int set_mix(void *base, const struct opt *o, const char *arg, char *err, size_t len)
{
	struct config *cfg = cfg_of(base);
	int rc = meta_mix_parse(arg, &cfg->mix, err, len);

	(void)o;
	cfg->meta = rc == 0;
	snprintf(cfg->mix_str, sizeof(cfg->mix_str), "%s", arg);
	return rc;
}

static int set_engine(void *base, const struct opt *o, const char *arg, char *err, size_t len)
{
	struct config *cfg = cfg_of(base);

	(void)o;
	if (!(cfg->engine = engine_find(arg)))
		return config_fail(err, len, "--engine: '%s' is not an engine (%s)", arg,
				   engine_names());
	return 0;
}

/*
 * In --help's order (also the order of a job's options in each run's argv);
 * the engines' options follow --engine. Bounds checked across options (--bs
 * within --size, --timeout 1s..1h, ...) are check.c's.
 */
static const struct opt core[] = {
	{ .name = "threads", .letter = 't', .kind = OPT_COUNT, .arg = "N",
	  .help = "worker threads, one event loop each (default: CPUs)",
	  .off = F(threads), .min = 1, .max = 1024 },
	{ .name = "connections", .letter = 'c', .kind = OPT_COUNT, .arg = "N",
	  .help = "TCP connections in total, spread over threads (default 1)",
	  .off = F(connections), .min = 1, .max = 65536 },
	{ .name = "iodepth", .letter = 'q', .kind = OPT_COUNT, .arg = "N",
	  .help = "operations in flight per connection (default 1)",
	  .off = F(iodepth), .min = 1, .max = 1024 },
	{ .name = "bs", .letter = 'b', .kind = OPT_SIZE, .arg = "SIZE",
	  .help = "block size, e.g. 4k 64k 1m (default 4k)",
	  .off = F(bs), .max = UINT64_C(16) << 20, .msg = "16m" },
	{ .name = "bssplit", .kind = OPT_CUSTOM, .arg = "BS/PCT:...",
	  .help = "block sizes drawn per op, fio's syntax, e.g. 4k/50:64k/50 (READS,WRITES apart)",
	  .max = UINT64_C(16) << 20, .set = set_bssplit },
	{ .name = "random-distribution", .kind = OPT_CUSTOM, .arg = "DIST",
	  .help = "random offsets: random zipf:THETA pareto:H normal:DEV (default random)",
	  .set = set_distrib },
	{ .name = "rw", .kind = OPT_CUSTOM, .arg = "MODE",
	  .help = "read write randread randwrite readwrite randrw (default randread)",
	  .set = set_rw },
	{ .name = "rwmixread", .kind = OPT_COUNT, .arg = "PCT",
	  .help = "reads in percent for readwrite/randrw (default 50)",
	  .off = F(rwmixread), .min = 0, .max = 100, .msg = "is not a percentage (0 to 100)" },
	{ .name = "buffer-compress-percentage", .kind = OPT_COUNT, .arg = "PCT",
	  .help = "written data compresses to about 100-PCT% (each 4 KiB:\nPCT% zeros; default 0)",
	  .off = F(buffer_compress_percentage), .min = 0, .max = 100,
	  .msg = "is not a percentage (0 to 100)" },
	{ .name = "dedupe-percentage", .kind = OPT_COUNT, .arg = "PCT",
	  .help = "that share of written 4 KiB blocks repeat others; the\nrest are unique "
	  "(default 0: today's data)",
	  .off = F(dedupe_percentage), .min = 0, .max = 100,
	  .msg = "is not a percentage (0 to 100)" },
	{ .name = "size", .kind = OPT_SIZE, .arg = "SIZE",
	  .help = "size of each file (default 64m)",
	  .off = F(size) },
	{ .name = "nrfiles", .kind = OPT_COUNT, .arg = "N",
	  .help = "files in the work directory (default 1)",
	  .off = F(nrfiles), .min = 1, .max = 1000000 },
	{ .name = "dir", .kind = OPT_CUSTOM, .arg = "NAME",
	  .help = "work directory under the URL path (default nfsload.work)",
	  .set = set_dir },
	{ .name = "runtime", .kind = OPT_TIME, .arg = "TIME",
	  .help = "run this long, e.g. 30s 5m (default: one pass)",
	  .off = F(runtime_ns), .min = 1, .msg = "must be greater than 0" },
	{ .name = "io-size", .kind = OPT_SIZE, .arg = "SIZE",
	  .help = "stop after this much data in total",
	  .off = F(io_size) },
	{ .name = "ramp-time", .kind = OPT_TIME, .arg = "TIME",
	  .help = "warm-up excluded from every statistic",
	  .off = F(ramp_ns) },
	{ .name = "timeout", .kind = OPT_TIME, .arg = "TIME",
	  .help = "RPC timeout, 1s to 1h (default 5s; libnfs: whole seconds);\na connection with no reply "
	  "for that long is lost and re-made",
	  .off = F(timeout_ns) },
	{ .name = "seed", .kind = OPT_CUSTOM, .arg = "N",
	  .help = "random seed (default 1)",
	  .set = set_seed },
	{ .name = "skip-layout", .kind = OPT_FLAG,
	  .help = "use the files as they are, do not create or extend them",
	  .off = F(skip_layout) },
	{ .name = "keep", .kind = OPT_FLAG,
	  .help = "leave the files behind",
	  .off = F(keep) },
	{ .name = "live", .kind = OPT_FLAG,
	  .help = "force the once-a-second line on stderr",
	  .off = F(live), .set_to = CFG_LIVE_ON, .set_int = true },
	{ .name = "quiet", .kind = OPT_FLAG,
	  .help = "suppress the once-a-second line on stderr",
	  .off = F(live), .set_to = CFG_LIVE_OFF, .set_int = true },
	{ .name = "output-format", .kind = OPT_WORD, .arg = "F",
	  .help = "text, json or csv (the interval series) (default text)",
	  .off = F(format), .words = (const char *const[]){ "text", "json", "csv", NULL },
	  .noun = "a format" },
	{ .name = "output", .kind = OPT_FILE, .arg = "FILE",
	  .help = "write the report to FILE instead of stdout",
	  .off = F(output) },
	{ .name = "interval", .kind = OPT_CUSTOM, .arg = "TIME",
	  .help = "length of an interval of the series (default 1s)",
	  .set = set_interval },
	{ .name = "rate", .kind = OPT_CUSTOM, .arg = "N",
	  .help = "open loop: N operations per second in all, scheduled\nahead of "
	  "completions; latency from the intended start",
	  .set = set_rate },
	{ .name = "load-curve", .kind = OPT_CUSTOM, .arg = "START:STEP[:END]",
	  .help = "open loop at rising rates, each point for --runtime after\n--ramp-time, "
	  "until END or the knee (ops/s, or 10m/s)",
	  .set = set_load_curve },
	{ .name = "latency-target", .kind = OPT_CUSTOM, .arg = "pNN=TIME",
	  .help = "--load-curve: the highest rate with pNN at most TIME\n(bisected past the "
	  "knee), e.g. p99=2ms",
	  .set = set_latency_target },
	{ .name = "arrival", .kind = OPT_WORD, .arg = "A",
	  .help = "uniform or poisson gaps for --rate (default uniform)",
	  .off = F(arrival), .words = (const char *const[]){ "uniform", "poisson", NULL },
	  .noun = "an arrival process" },
	{ .name = "hdr-log", .kind = OPT_FILE, .arg = "FILE",
	  .help = "interval histograms in HdrHistogram log format 1.3",
	  .off = F(hdr_log) },
	{ .name = "op-log", .kind = OPT_FILE, .arg = "FILE",
	  .help = "a CSV row per operation counted (zstd when FILE ends in\n.zst); "
	  "nfsload --analyze FILE... makes a report of it",
	  .off = F(op_log) },
	{ .name = "report", .kind = OPT_FILE, .arg = "FILE",
	  .help = "a self-contained HTML report with plots",
	  .off = F(html) },
	{ .name = "sync", .kind = OPT_FLAG,
	  .help = "stable writes (FILE_SYNC): files opened with O_SYNC",
	  .off = F(sync) },
	{ .name = "series-buckets", .kind = OPT_FLAG,
	  .help = "JSON series rows with their histogram buckets (--merge\nthen merges the "
	  "interval series exactly too)",
	  .off = F(series_buckets) },
	{ .name = "wire-time", .kind = OPT_FLAG,
	  .help = "native engine: each reply's wire time (request out, reply\nin) beside "
	  "the client's own share",
	  .off = F(wire_time) },
	{ .name = "servers", .kind = OPT_CUSTOM, .arg = "FILE",
	  .help = "more servers, one URL a line (also: several URLs, "
	  "each\nURL[#weight=N]); connections spread by weight",
	  .set = set_servers },
	{ .name = "shared-namespace", .kind = OPT_FLAG,
	  .help = "the servers serve one namespace (laid out once); without,\neach its own "
	  "(laid out on each)",
	  .off = F(shared_namespace) },
	{ .name = "series-by", .kind = OPT_CUSTOM, .arg = "server",
	  .help = "the interval series per server too",
	  .set = set_series_by },
	{ .name = "commit-every", .kind = OPT_COUNT, .arg = "N",
	  .help = "a COMMIT after every N writes on a file (1: after each)",
	  .off = F(commit_every), .min = 1, .max = 1000000 },
	{ .name = "mix", .kind = OPT_CUSTOM, .arg = "OP=W,...",
	  .help = "metadata workload: weighted read, write, getattr, lookup,\naccess, "
	  "setattr, readdir, create, remove, mkdir, rmdir,\nrename, open over each "
	  "connection's own tree; NFSv4.2's\nread_plus, seek, allocate, deallocate, "
	  "io_advise, copy,\nclone, getxattr, setxattr, listxattrs, removexattr on its\n"
	  "data files (--size/--nrfiles)",
	  .set = set_mix },
	{ .name = "dirs", .kind = OPT_COUNT, .arg = "N",
	  .help = "directories per connection for --mix (default 4)",
	  .off = F(dirs), .min = 1, .max = 100000 },
	{ .name = "files-per-dir", .kind = OPT_COUNT, .arg = "N",
	  .help = "files per directory at the start (default 16)",
	  .off = F(files_per_dir), .min = 1, .max = 1000000 },
	{ .name = "file-size", .kind = OPT_SIZE, .arg = "SIZE",
	  .help = "size of those files, read and written whole (default 4k)",
	  .off = F(file_size), .max = UINT64_C(16) << 20, .msg = "16m" },
	{ .name = "small-files", .kind = OPT_COUNT, .arg = "N",
	  .help = "small-file test: create N files of --file-size (written\nwhole), read "
	  "them all, stat them, delete them",
	  .off = F(small_files), .min = 1, .max = 100000000 },
	{ .name = "read-plus", .kind = OPT_FLAG,
	  .help = "NFSv4.2: every read of --rw as a READ_PLUS (holes counted\napart from data)",
	  .off = F(read_plus) },
	{ .name = "sparse", .kind = OPT_FLAG,
	  .help = "the layout writes every 4th --bs block of each file, the\nrest are holes",
	  .off = F(sparse) },
	{ .name = "xattr-count", .kind = OPT_COUNT, .arg = "N",
	  .help = "--mix's xattr ops: names nfsload.0 .. nfsload.N-1 (default 4)",
	  .off = F(xattr_count), .min = 1, .max = 10000 },
	{ .name = "xattr-size", .kind = OPT_SIZE, .arg = "SIZE",
	  .help = "--mix's setxattr: the value's size (default 64, at most 64k)",
	  .off = F(xattr_size), .max = 65536, .msg = "64k" },
	{ .name = "open-files", .kind = OPT_COUNT, .arg = "N",
	  .help = "each connection opens N files of its own and holds them\nfor the run "
	  "(NFSv4.1+, native); --mix's open and close\nwork on them",
	  .off = F(open_files), .min = 1, .max = 1000000 },
	{ .name = "open-owners", .kind = OPT_WORD, .arg = "WHO",
	  .help = "the held files' open-owners: per-file or per-connection\n(default per-file)",
	  .off = F(open_owners), .words = (const char *const[]){ "per-file", "per-connection", NULL },
	  .noun = "a choice" },
	{ .name = "share-deny", .kind = OPT_WORD, .arg = "MODE",
	  .help = "what the held files' OPENs deny others: none, read, write\nor both "
	  "(default none)",
	  .off = F(share_deny), .words = (const char *const[]){ "none", "read", "write", "both", NULL },
	  .noun = "a choice" },
	{ .name = "lock-type", .kind = OPT_WORD, .arg = "TYPE",
	  .help = "--mix's lock, unlock, lockt: write or read locks (default\nwrite)",
	  .off = F(lock_type), .words = (const char *const[]){ "write", "read", NULL },
	  .noun = "a choice" },
	{ .name = "lock-size", .kind = OPT_SIZE, .arg = "SIZE",
	  .help = "bytes a lock covers (default 4k)",
	  .off = F(lock_size), .max = UINT64_C(1) << 40, .msg = "1t" },
	{ .name = "lock-contention", .kind = OPT_COUNT, .arg = "PCT",
	  .help = "that share of the locks on ranges the other connections\non the same "
	  "file lock too (default 0)",
	  .off = F(lock_contention), .min = 0, .max = 100,
	  .msg = "is not a percentage (0 to 100)" },
	{ .name = "on-error", .kind = OPT_WORD, .arg = "MODE",
	  .help = "continue (reconnect lost connections; default for\n--runtime) or stop "
	  "(end the run at the first error)",
	  .off = F(on_error), .words = (const char *const[]){ "continue", "stop", NULL },
	  .noun = "a choice" },
	{ .name = "verify", .kind = OPT_FLAG,
	  .help = "blocks carry a header and checksum; reads check them,\nwritten files "
	  "are read back and checked at the end",
	  .off = F(verify) },
	{ .name = "verify-only", .kind = OPT_FLAG,
	  .help = "no workload: read and check files written earlier",
	  .off = F(verify_only), .implies = "verify" },
	{ .name = "verify-continue", .kind = OPT_FLAG,
	  .help = "count every mismatch instead of stopping at the first",
	  .off = F(verify_continue) },
	{ .name = "engine", .kind = OPT_CUSTOM, .arg = "NAME",
	  .help = "libnfs (default); native: NFSv3 and NFSv4.1 spoken by\nnfsload itself "
	  "over io_uring sockets; local: files in a\ndirectory (a kernel NFS mount) "
	  "through io_uring; or null:\nrequests complete in-process, no server "
	  "(nfsload's cost)",
	  .set = set_engine },
	{ .name = "job", .kind = OPT_ELSEWHERE, .arg = "FILE",
	  .help = "run the phases of an INI job file in order (see nfsload(1))",
	 },
	{ .name = "sweep", .kind = OPT_ELSEWHERE, .arg = "KEY=V1,V2",
	  .help = "run once per value, one summary table (KEY: an option)",
	 },
	{ .name = "compare", .kind = OPT_ELSEWHERE, .arg = "PATH",
	  .help = "the kernel's client first (--engine local on PATH, a mount\nof the "
	  "URL's export), then this command line; one table",
	 },
	{ .name = "merge", .kind = OPT_ELSEWHERE, .arg = "FILE...",
	  .help = "several runs' JSON reports as one result (see nfsload(1))",
	 },
	{ .name = "analyze", .kind = OPT_ELSEWHERE, .arg = "LOG...",
	  .help = "a report from --op-log files, cut by --from/--to SECONDS,\n--conn N, --op NAME "
	  "(see nfsload(1))",
	 },
	{ .name = "replay", .kind = OPT_FILE, .arg = "CAPTURE",
	  .help = "replay an NFS capture's calls (pcap, pcapng, gzip'd), each\nclient "
	  "connection on one of its own, at the trace's pace",
	  .off = F(replay) },
	{ .name = "replay-speed", .kind = OPT_CUSTOM, .arg = "X",
	  .help = "--replay at X times the trace's pace, or max (as fast as\neach "
	  "connection's concurrency in the trace allows) (default 1)",
	  .set = set_replay_speed },
	{ .name = "trace-summary", .kind = OPT_ELSEWHERE, .arg = "CAPTURE",
	  .help = "what an NFS capture (pcap, pcapng, gzip'd) holds: per\noperation "
	  "calls, replies, errors, latency (see nfsload(1))",
	 },
	{ .name = "help", .letter = 'h', .kind = OPT_HELP,
	  .help = "this text",
	 },
	{ .name = "version", .letter = 'V', .kind = OPT_VERSION,
	  .help = "version and what each engine was built with",
	 },
	{ .name = NULL },
};

static bool known(const struct opt_ref *all, unsigned n, const char *name)
{
	for (unsigned i = 0; i < n; i++)
		if (strcmp(all[i].opt->name, name) == 0)
			return true;
	return false;
}

unsigned options_all(struct opt_ref *out)
{
	unsigned n = 0;

	for (const struct opt *o = core; o->name && n < OPTIONS_MAX; o++) {
		out[n++] = (struct opt_ref){ o, false };
		if (strcmp(o->name, "engine"))
			continue;
		for (size_t e = 0; engine_nth(e); e++)
			for (const struct opt *eo = engine_nth(e)->options; eo && eo->name &&
			     n < OPTIONS_MAX; eo++)
				if (!known(out, n, eo->name))
					out[n++] = (struct opt_ref){ eo, true };
	}
	return n;
}

void *options_base(const struct opt_ref *r, struct config *cfg)
{
	return r->engine ? (void *)&cfg->opt : (void *)cfg;
}
