/*
 * config: argv and URL -> struct config, with every check that needs no
 * server. Messages name the option, the value and what would be accepted.
 * The --help text is usage.c's.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "engine.h"
#include "units.h"
#include "verify.h"
#include "version.h"

#define MAX_CONNECTIONS 65536
#define MAX_THREADS 1024
#define MAX_IODEPTH 1024
#define MAX_NRFILES 1000000
#define MAX_BS (UINT64_C(16) << 20)

enum {
	OPT_RW = 256, OPT_RWMIXREAD, OPT_SIZE, OPT_NRFILES, OPT_DIR, OPT_RUNTIME,
	OPT_IO_SIZE, OPT_RAMP, OPT_TIMEOUT, OPT_SEED, OPT_SKIP_LAYOUT, OPT_KEEP,
	OPT_LIVE, OPT_QUIET, OPT_FORMAT, OPT_OUTPUT, OPT_INTERVAL, OPT_RATE, OPT_ARRIVAL,
	OPT_HDR_LOG, OPT_REPORT, OPT_SYNC, OPT_COMMIT_EVERY, OPT_MIX, OPT_DIRS,
	OPT_FILES_PER_DIR, OPT_FILE_SIZE, OPT_SMALL_FILES, OPT_ON_ERROR, OPT_VERIFY,
	OPT_VERIFY_ONLY, OPT_VERIFY_CONTINUE, OPT_ENGINE, OPT_UID, OPT_GID,
	OPT_CONNS_PER_SESSION, OPT_MAX_LOAD, OPT_DIRECT, OPT_SERIES_BUCKETS, OPT_WIRE_TIME,
	OPT_WIRE_SOURCE,
	OPT_SERVERS, OPT_SHARED_NS, OPT_SERIES_BY,
};

static const struct option long_opts[] = {
	{ "threads", required_argument, NULL, 't' },
	{ "connections", required_argument, NULL, 'c' },
	{ "iodepth", required_argument, NULL, 'q' },
	{ "bs", required_argument, NULL, 'b' },
	{ "rw", required_argument, NULL, OPT_RW },
	{ "rwmixread", required_argument, NULL, OPT_RWMIXREAD },
	{ "size", required_argument, NULL, OPT_SIZE },
	{ "nrfiles", required_argument, NULL, OPT_NRFILES },
	{ "dir", required_argument, NULL, OPT_DIR },
	{ "runtime", required_argument, NULL, OPT_RUNTIME },
	{ "io-size", required_argument, NULL, OPT_IO_SIZE },
	{ "ramp-time", required_argument, NULL, OPT_RAMP },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "skip-layout", no_argument, NULL, OPT_SKIP_LAYOUT },
	{ "keep", no_argument, NULL, OPT_KEEP },
	{ "live", no_argument, NULL, OPT_LIVE },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "output-format", required_argument, NULL, OPT_FORMAT },
	{ "output", required_argument, NULL, OPT_OUTPUT },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "rate", required_argument, NULL, OPT_RATE },
	{ "arrival", required_argument, NULL, OPT_ARRIVAL },
	{ "hdr-log", required_argument, NULL, OPT_HDR_LOG },
	{ "report", required_argument, NULL, OPT_REPORT },
	{ "sync", no_argument, NULL, OPT_SYNC },
	{ "direct", no_argument, NULL, OPT_DIRECT },
	{ "series-buckets", no_argument, NULL, OPT_SERIES_BUCKETS },
	{ "wire-time", no_argument, NULL, OPT_WIRE_TIME },
	{ "wire-source", required_argument, NULL, OPT_WIRE_SOURCE },
	{ "servers", required_argument, NULL, OPT_SERVERS },
	{ "shared-namespace", no_argument, NULL, OPT_SHARED_NS },
	{ "series-by", required_argument, NULL, OPT_SERIES_BY },
	{ "commit-every", required_argument, NULL, OPT_COMMIT_EVERY },
	{ "mix", required_argument, NULL, OPT_MIX },
	{ "dirs", required_argument, NULL, OPT_DIRS },
	{ "files-per-dir", required_argument, NULL, OPT_FILES_PER_DIR },
	{ "file-size", required_argument, NULL, OPT_FILE_SIZE },
	{ "small-files", required_argument, NULL, OPT_SMALL_FILES },
	{ "on-error", required_argument, NULL, OPT_ON_ERROR },
	{ "verify", no_argument, NULL, OPT_VERIFY },
	{ "verify-only", no_argument, NULL, OPT_VERIFY_ONLY },
	{ "verify-continue", no_argument, NULL, OPT_VERIFY_CONTINUE },
	{ "engine", required_argument, NULL, OPT_ENGINE },
	{ "connections-per-session", required_argument, NULL, OPT_CONNS_PER_SESSION },
	{ "max-load", required_argument, NULL, OPT_MAX_LOAD },
	{ "uid", required_argument, NULL, OPT_UID },
	{ "gid", required_argument, NULL, OPT_GID },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

const struct option *config_options(void)
{
	return long_opts;
}

int config_fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int parse_count(const char *opt, const char *s, uint64_t max, unsigned *out,
		       char *err, size_t len)
{
	uint64_t v;
	int rc = units_parse_uint(s, 1, max, &v);

	if (rc == -EINVAL)
		return config_fail(err, len, "%s: '%s' is not a whole number (try 1 to %llu)", opt, s,
			    (unsigned long long)max);
	if (rc)
		return config_fail(err, len, "%s: %s is out of range (1 to %llu)", opt, s,
			    (unsigned long long)max);
	*out = (unsigned)v;
	return 0;
}

/* A user or group id for AUTH_SYS: 0 to 2^32 - 2. */
static int parse_id(const char *opt, const char *s, unsigned *out, char *err, size_t len)
{
	uint64_t v;

	if (units_parse_uint(s, 0, UINT32_MAX - 1, &v))
		return config_fail(err, len, "%s: '%s' is not an id (0 to %u)", opt, s,
				   UINT32_MAX - 1);
	*out = (unsigned)v;
	return 0;
}

static int parse_size(const char *opt, const char *s, uint64_t *out, char *err, size_t len)
{
	if (units_parse_size(s, out))
		return config_fail(err, len, "%s: '%s' is not a size (try 4k, 64k, 1m, 2g)", opt, s);
	if (*out == 0)
		return config_fail(err, len, "%s: must be greater than 0", opt);
	return 0;
}

static int parse_time(const char *opt, const char *s, uint64_t *out, char *err, size_t len)
{
	if (units_parse_duration(s, out))
		return config_fail(err, len, "%s: '%s' is not a duration (try 500ms, 30s, 5m, 1h)", opt, s);
	return 0;
}

/* arg as one of words (NULL-ended): its index in *out, or "OPT: 'arg' is not
 * NOUN (w1, w2, ...)". */
static int parse_word(const char *opt, const char *arg, const char *const *words,
		      const char *noun, int *out, char *err, size_t len)
{
	char list[128] = "";
	size_t n = 0;

	for (int i = 0; words[i]; i++) {
		if (strcmp(arg, words[i]) == 0) {
			*out = i;
			return 0;
		}
		n += (size_t)snprintf(list + n, n < sizeof(list) ? sizeof(list) - n : 0, "%s%s",
				      i ? ", " : "", words[i]);
	}
	return config_fail(err, len, "%s: '%s' is not %s (%s)", opt, arg, noun, list);
}

/* A file name for an output: non-empty, fits. */
static int parse_path(const char *opt, const char *s, char *dst, char *err, size_t len)
{
	if (*s == '\0' || strlen(s) >= CFG_URL_MAX)
		return config_fail(err, len, "%s: needs a file name", opt);
	memcpy(dst, s, strlen(s) + 1);
	return 0;
}

/* Operations per second: a whole number, 1 to 100 million. */
static int parse_rate(const char *s, double *rate, char *err, size_t len)
{
	uint64_t v;

	if (units_parse_uint(s, 1, 100000000, &v))
		return config_fail(err, len, "--rate: '%s' is not an operation rate "
			    "(whole operations per second, 1 to 100000000)", s);
	*rate = (double)v;
	return 0;
}

static int parse_dir(const char *s, struct config *cfg, char *err, size_t len)
{
	size_t n = strlen(s);

	if (n == 0 || n >= sizeof(cfg->dir) || strcmp(s, ".") == 0 || strcmp(s, "..") == 0 ||
	    strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != n)
		return config_fail(err, len, "--dir: '%s' is not a directory name "
			    "(one path component of letters, digits, '.', '_', '-')", s);
	memcpy(cfg->dir, s, n + 1);
	return 0;
}

static void set_defaults(struct config *cfg)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	memset(cfg, 0, sizeof(*cfg));
	cfg->engine = &engine_libnfs;
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
	cfg->seed = 1;
}

/* --verify: whole blocks of --bs, each with its header, at block offsets. */
static int validate_verify(struct config *cfg, char *err, size_t len)
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

/* Cross-option checks, once every option is known. */
static int validate(struct config *cfg, bool threads_set, bool arrival_set, char *err,
		    size_t len)
{
	char a[32], b[32];
	int rc;
	unsigned read_pct = wl_mode_read_pct(cfg->rw, cfg->rwmixread);

	if (!threads_set && cfg->threads > cfg->connections)
		cfg->threads = cfg->connections;
	if (cfg->threads > cfg->connections)
		return config_fail(err, len, "--threads: %u threads for %u connections would leave "
			    "threads with nothing to do (at most --connections)",
			    cfg->threads, cfg->connections);
	if (cfg->size > UINT64_MAX / cfg->nrfiles)
		return config_fail(err, len, "--size: %u files of that size are more than 16 EiB",
			    cfg->nrfiles);
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
	if (cfg->direct && !cfg->engine->takes_path)
		return config_fail(err, len, "--direct: only with --engine local (the NFS engines "
			    "have no client page cache to bypass)");
	if (cfg->commit_every && cfg->sync)
		return config_fail(err, len, "--commit-every: writes are already stable with --sync "
			    "(use one or the other)");
	if (cfg->small_files && (cfg->meta || cfg->rate > 0 || cfg->commit_every))
		return config_fail(err, len, "--small-files: a test of its own (not with --mix, --rate "
			    "or --commit-every)");
	if (cfg->small_files)
		cfg->runtime_ns = 0;	/* each pass runs to its end (a job's runtime may apply) */
	if (cfg->small_files) {
		/* Each connection's share, spread over its directories. */
		unsigned per_conn = (cfg->small_files + cfg->connections - 1) / cfg->connections;

		cfg->files_per_dir = (per_conn + cfg->dirs - 1) / cfg->dirs;
	}
	if (cfg->meta && !cfg->runtime_ns)
		return config_fail(err, len, "--mix: needs --runtime (a metadata mix has no pass to end)");
	if (cfg->meta && (cfg->rate > 0 || cfg->commit_every))
		return config_fail(err, len, "--mix: not with --rate or --commit-every (not yet)");
	if (arrival_set && cfg->rate == 0)
		return config_fail(err, len, "--arrival: only with --rate (open loop)");
	rc = validate_verify(cfg, err, len);
	if (rc)
		return rc;
	if (!cfg->runtime_ns && !cfg->io_size) {
		cfg->one_pass = true;
		cfg->io_size = cfg->size * cfg->nrfiles;
	}
	/* Last: the engine's limits, on a configuration that is otherwise valid. */
	return cfg->engine->check(cfg, err, len);
}

/*
 * The option getopt did not know: glibc sets optopt to the letter of an
 * unknown short option (argv[optind - 1] may still be the previous word when
 * the letter sits inside "-xyz") and to 0 for an unknown long one.
 */
static const char *unknown_opt(char **argv)
{
	static __thread char buf[3];

	if (optopt > 0 && optopt < 128) {
		buf[0] = '-';
		buf[1] = (char)optopt;
		return buf;
	}
	return argv[optind - 1];
}

/*
 * "--conn" has meant --connections since the start; --connections-per-session
 * would make it ambiguous to getopt_long. An abbreviation of "--connections"
 * (without "=") still means it.
 */
void config_expand_abbrev(int argc, char **argv)
{
	static char full[] = "--connections";

	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		size_t n = strlen(argv[i]);

		if (n >= 6 && n < sizeof(full) - 1 && strncmp(argv[i], full, n) == 0)
			argv[i] = full;
	}
}

static int parse_args(struct config *cfg, int argc, char **argv, char *err, size_t len)
{
	bool threads_set = false, arrival_set = false, on_error_set = false;
	const char *servers_file = NULL;
	uint64_t v;
	int c, rc = 0, word;

	set_defaults(cfg);
	config_expand_abbrev(argc, argv);
	opterr = 0;
	optind = 0;	/* 0, not 1: glibc then also drops state left by an earlier parse */
	while (rc == 0 && (c = getopt_long(argc, argv, ":t:c:q:b:hV", long_opts, NULL)) != -1) {
		const char *arg = optarg;

		switch (c) {
		case 't':
			threads_set = true;
			rc = parse_count("--threads", arg, MAX_THREADS, &cfg->threads, err, len);
			break;
		case 'c':
			rc = parse_count("--connections", arg, MAX_CONNECTIONS, &cfg->connections, err, len);
			break;
		case 'q':
			rc = parse_count("--iodepth", arg, MAX_IODEPTH, &cfg->iodepth, err, len);
			break;
		case 'b':
			rc = parse_size("--bs", arg, &cfg->bs, err, len);
			if (rc == 0 && cfg->bs > MAX_BS)
				rc = config_fail(err, len, "--bs: '%s' is larger than 16m", arg);
			break;
		case OPT_RW:
			if (wl_mode_parse(arg, &cfg->rw))
				rc = config_fail(err, len, "--rw: '%s' is not a mode (read, write, randread, "
					  "randwrite, readwrite, randrw)", arg);
			break;
		case OPT_RWMIXREAD:
			if (units_parse_uint(arg, 0, 100, &v))
				rc = config_fail(err, len, "--rwmixread: '%s' is not a percentage (0 to 100)", arg);
			else
				cfg->rwmixread = (unsigned)v;
			break;
		case OPT_SIZE:
			rc = parse_size("--size", arg, &cfg->size, err, len);
			break;
		case OPT_NRFILES:
			rc = parse_count("--nrfiles", arg, MAX_NRFILES, &cfg->nrfiles, err, len);
			break;
		case OPT_DIR:
			rc = parse_dir(arg, cfg, err, len);
			break;
		case OPT_RUNTIME:
			rc = parse_time("--runtime", arg, &cfg->runtime_ns, err, len);
			if (rc == 0 && cfg->runtime_ns == 0)
				rc = config_fail(err, len, "--runtime: must be greater than 0");
			break;
		case OPT_IO_SIZE:
			rc = parse_size("--io-size", arg, &cfg->io_size, err, len);
			break;
		case OPT_RAMP:
			rc = parse_time("--ramp-time", arg, &cfg->ramp_ns, err, len);
			break;
		case OPT_TIMEOUT:
			rc = parse_time("--timeout", arg, &cfg->timeout_ns, err, len);
			break;
		case OPT_SEED:
			if (units_parse_uint(arg, 0, UINT64_MAX, &cfg->seed))
				rc = config_fail(err, len, "--seed: '%s' is not a whole number", arg);
			break;
		case OPT_SYNC:
			cfg->sync = true;
			break;
		case OPT_DIRECT:
			cfg->direct = true;
			break;
		case OPT_SERIES_BUCKETS:
			cfg->series_buckets = true;
			break;
		case OPT_WIRE_TIME:
			cfg->wire_time = true;
			break;
		case OPT_WIRE_SOURCE:
			cfg->wire_time = true;
			if ((rc = parse_word("--wire-source", arg, (const char *const[]){ "auto", "tap",
					  "stamps", NULL }, "a source", &word, err, len)) == 0)
				cfg->wire_source = (enum cfg_wire)word;
			break;
		case OPT_SERVERS:
			servers_file = arg;
			break;
		case OPT_SHARED_NS:
			cfg->shared_namespace = true;
			break;
		case OPT_SERIES_BY:
			if (strcmp(arg, "server") == 0)
				cfg->series_by_server = true;
			else
				rc = config_fail(err, len, "--series-by: 'server' is what it takes (got "
						 "'%s')", arg);
			break;
		case OPT_COMMIT_EVERY:
			rc = parse_count("--commit-every", arg, 1000000, &cfg->commit_every, err, len);
			break;
		case OPT_MIX:
			rc = meta_mix_parse(arg, &cfg->mix, err, len);
			cfg->meta = rc == 0;
			snprintf(cfg->mix_str, sizeof(cfg->mix_str), "%s", arg);
			break;
		case OPT_DIRS:
			rc = parse_count("--dirs", arg, 100000, &cfg->dirs, err, len);
			break;
		case OPT_FILES_PER_DIR:
			rc = parse_count("--files-per-dir", arg, 1000000, &cfg->files_per_dir, err, len);
			break;
		case OPT_FILE_SIZE:
			rc = parse_size("--file-size", arg, &cfg->file_size, err, len);
			if (rc == 0 && cfg->file_size > MAX_BS)
				rc = config_fail(err, len, "--file-size: '%s' is larger than 16m", arg);
			break;
		case OPT_SMALL_FILES:
			rc = parse_count("--small-files", arg, 100000000, &cfg->small_files, err, len);
			break;
		case OPT_ON_ERROR:
			on_error_set = true;
			if ((rc = parse_word("--on-error", arg, (const char *const[]){ "continue", "stop",
					  NULL }, "a choice", &word, err, len)) == 0)
				cfg->on_error = (enum cfg_on_error)word;
			break;
		case OPT_VERIFY:
			cfg->verify = true;
			break;
		case OPT_VERIFY_ONLY:
			cfg->verify = cfg->verify_only = true;
			break;
		case OPT_VERIFY_CONTINUE:
			cfg->verify_continue = true;
			break;
		case OPT_ENGINE:
			if (!(cfg->engine = engine_find(arg)))
				rc = config_fail(err, len, "--engine: '%s' is not an engine (%s)", arg,
					  engine_names());
			break;
		case OPT_MAX_LOAD:
			rc = parse_count("--max-load", arg, 1024, &cfg->max_load, err, len);
			break;
		case OPT_CONNS_PER_SESSION:
			rc = parse_count("--connections-per-session", arg, 255,
					 &cfg->conns_per_session, err, len);
			break;
		case OPT_UID:
			rc = parse_id("--uid", arg, &cfg->uid, err, len);
			break;
		case OPT_GID:
			rc = parse_id("--gid", arg, &cfg->gid, err, len);
			break;
		case OPT_SKIP_LAYOUT:
			cfg->skip_layout = true;
			break;
		case OPT_KEEP:
			cfg->keep = true;
			break;
		case OPT_LIVE:
			cfg->live = CFG_LIVE_ON;
			break;
		case OPT_QUIET:
			cfg->live = CFG_LIVE_OFF;
			break;
		case OPT_FORMAT:
			if ((rc = parse_word("--output-format", arg, (const char *const[]){ "text", "json",
					  "csv", NULL }, "a format", &word, err, len)) == 0)
				cfg->format = (enum cfg_format)word;
			break;
		case OPT_OUTPUT:
			rc = parse_path("--output", arg, cfg->output, err, len);
			break;
		case OPT_HDR_LOG:
			rc = parse_path("--hdr-log", arg, cfg->hdr_log, err, len);
			break;
		case OPT_REPORT:
			rc = parse_path("--report", arg, cfg->html, err, len);
			break;
		case OPT_INTERVAL:
			rc = parse_time("--interval", arg, &cfg->interval_ns, err, len);
			if (rc == 0 && (cfg->interval_ns < UINT64_C(100000000) ||
					cfg->interval_ns > UINT64_C(3600000000000)))
				rc = config_fail(err, len, "--interval: '%s' is out of range (100ms to 1h)", arg);
			break;
		case OPT_RATE:
			rc = parse_rate(arg, &cfg->rate, err, len);
			break;
		case OPT_ARRIVAL:
			arrival_set = true;
			if ((rc = parse_word("--arrival", arg, (const char *const[]){ "uniform", "poisson",
					  NULL }, "an arrival process", &word, err, len)) == 0)
				cfg->arrival = (enum cfg_arrival)word;
			break;
		case 'h':
			config_usage(stdout);
			return CFG_EXIT_OK;
		case 'V':
			printf("nfsload %s (built for the %s)\n", NFSLOAD_VERSION, engine_libnfs.about);
			printf("engines: %s\n", engine_names());
			return CFG_EXIT_OK;
		case ':':
			rc = config_fail(err, len, "%s: needs a value (see nfsload --help)", argv[optind - 1]);
			break;
		default:
			rc = config_fail(err, len, "unknown or ambiguous option '%s' (see nfsload "
					 "--help)", unknown_opt(argv));
			break;
		}
	}
	if (rc)
		return rc;
	if (cfg->engine->takes_path &&
	    (rc = config_parse_path(cfg, argc - optind, argv + optind, err, len)))
		return rc;
	if (!cfg->engine->needs_url && !cfg->engine->takes_path && optind < argc)
		return config_fail(err, len, "--engine %s: talks to no server, no URL wanted (got '%s')",
			    cfg->engine->name, argv[optind]);
	if (!cfg->engine->needs_url && servers_file)
		return config_fail(err, len, "--servers: --engine %s talks to no NFS server",
			    cfg->engine->name);
	if (cfg->engine->takes_path && optind + 1 < argc)
		return config_fail(err, len, "one path expected, also got '%s'", argv[optind + 1]);
	if (cfg->engine->needs_url)
		rc = config_add_servers(cfg, argc - optind, argv + optind, servers_file, err, len);
	if (rc == 0 && !on_error_set)
		cfg->on_error = cfg->runtime_ns ? CFG_ON_ERROR_CONTINUE : CFG_ON_ERROR_STOP;
	if (rc == 0)
		rc = validate(cfg, threads_set, arrival_set, err, len);
	return rc ? rc : config_servers_validate(cfg, err, len);
}

int config_parse(struct config *cfg, int argc, char **argv, char *err, size_t len)
{
	/* Our own copy of the words' pointers: getopt_long permutes them, and
	 * config_expand_abbrev points one at a string of ours, which the caller
	 * (a job, whose words are its own) must never see or free. */
	char **words = calloc((size_t)argc + 1, sizeof(*words));
	int rc;

	if (!words)
		return config_fail(err, len, "out of memory");
	memcpy(words, argv, (size_t)argc * sizeof(*words));
	rc = parse_args(cfg, argc, words, err, len);
	free(words);
	return rc;
}
