/*
 * job unit tests: job_load on the files in tests/jobs/ (run from the top
 * directory, as `make unit` does) and on plain command lines with --sweep:
 * each run's exact argv, which must then pass config_parse; precedence
 * (command line > phase > [global]); sweeps; flags; every error with its
 * FILE:LINE; job_locate_error on config_parse's messages.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "cli/optable.h"
#include "options.h"
#include "job.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define J "tests/jobs/"
#define URL "nfs://srv/export"
#define MAXARGS 16

static char err[1024];

/* job_load on "nfsload" and the NULL-terminated args. */
static int load(struct job *job, const char *const *args)
{
	char *argv[MAXARGS + 2];
	int argc = 0;

	argv[argc++] = (char *)"nfsload";
	for (; *args; args++) {
		assert_true(argc <= MAXARGS);
		argv[argc++] = (char *)*args;
	}
	argv[argc] = NULL;
	memset(err, 0, sizeof(err));
	return job_load(argc, argv, job, err, sizeof(err));
}

static bool wanted(const char *const *args)
{
	char *argv[MAXARGS + 2] = { (char *)"nfsload" };
	int argc = 1;

	for (; *args; args++)
		argv[argc++] = (char *)*args;
	return job_wanted(argc, argv);
}

/* A run's argv after argv[0], space-separated. */
static const char *joined(const struct job_run *r)
{
	static char buf[2048];
	size_t n = 0;

	buf[0] = '\0';
	assert_non_null(r->argv);
	assert_null(r->argv[r->argc]);
	assert_string_equal(r->argv[0], "nfsload");
	for (int i = 1; i < r->argc; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", i > 1 ? " " : "", r->argv[i]);
	return buf;
}

/* config_parse on run i, which must succeed. */
static void config_of(struct job *job, unsigned i, struct config *cfg)
{
	char cerr[512] = "";
	int rc = config_parse(cfg, job->runs[i].argc, job->runs[i].argv, cerr, sizeof(cerr));

	if (rc != CFG_RUN)
		fail_msg("run %u (%s): config_parse %d: %s", i, joined(&job->runs[i]), rc, cerr);
}

struct want_run {
	const char *name, *phase, *key, *value, *args;
};

/* The runs must be exactly want, and each a valid command line. */
static void check_runs(struct job *job, const struct want_run *want, unsigned n)
{
	struct config cfg;

	assert_int_equal(job->nruns, n);
	for (unsigned i = 0; i < n; i++) {
		const struct job_run *r = &job->runs[i];

		assert_string_equal(r->name, want[i].name);
		assert_string_equal(r->phase, want[i].phase);
		assert_string_equal(r->sweep_key, want[i].key ? want[i].key : "");
		assert_string_equal(r->sweep_value, want[i].value ? want[i].value : "");
		assert_string_equal(joined(r), want[i].args);
		config_of(job, i, &cfg);
	}
}

static void test_two_phases(void **state)
{
	static const char *const args[] = { "--job", J "two-phase.job", NULL };
	static const struct want_run want[] = {
		{ "write", "write", NULL, NULL, "--iodepth=2 --size=1m --nrfiles=2 --keep "
		  "--bs=64k --rw=write --skip-layout " URL },
		{ "read", "read", NULL, NULL, "--size=1m --nrfiles=2 --iodepth=8 --rw=randread "
		  "--runtime=2s " URL },
	};
	struct job job;
	struct config cfg;

	(void)state;
	assert_int_equal(load(&job, args), 0);
	assert_string_equal(job.path, J "two-phase.job");
	check_runs(&job, want, N(want));
	config_of(&job, 0, &cfg);
	assert_true(cfg.keep && cfg.skip_layout && cfg.rw == WL_WRITE && cfg.bs == 65536);
	assert_true(cfg.iodepth == 2 && cfg.size == 1 << 20 && cfg.nrfiles == 2);
	config_of(&job, 1, &cfg);
	assert_true(!cfg.keep && !cfg.skip_layout && cfg.rw == WL_RANDREAD && cfg.bs == 4096);
	assert_true(cfg.iodepth == 8 && cfg.runtime_ns == 2000000000);
	job_free(&job);
	job_free(&job);		/* twice is harmless */
}

/* Command line > phase > [global]; the command line's words stay as they are. */
static void test_precedence(void **state)
{
	static const char *const args[] = { "-q", "16", "--job=" J "two-phase.job", "-b8k",
					    "--ru", "5s", "--keep", NULL };
	static const struct want_run want[] = {
		{ "write", "write", NULL, NULL, "--size=1m --nrfiles=2 --rw=write "
		  "--skip-layout -q 16 -b8k --ru 5s --keep " URL },
		{ "read", "read", NULL, NULL, "--size=1m --nrfiles=2 --rw=randread "
		  "-q 16 -b8k --ru 5s --keep " URL },
	};
	struct job job;
	struct config cfg;

	(void)state;
	assert_int_equal(load(&job, args), 0);
	check_runs(&job, want, N(want));
	for (unsigned i = 0; i < 2; i++) {
		config_of(&job, i, &cfg);
		assert_int_equal(cfg.iodepth, 16);		/* CLI over phase and global */
		assert_int_equal(cfg.bs, 8192);			/* CLI over phase */
		assert_int_equal(cfg.runtime_ns, 5000000000);	/* CLI (a prefix) over phase */
		assert_int_equal(cfg.size, 1 << 20);		/* global */
		assert_true(cfg.keep);				/* CLI flag over keep = 0 */
	}
	job_free(&job);
}

static void test_url(void **state)
{
	static const char *const file[] = { "--job", J "url.job", NULL };
	static const char *const cli[] = { "--job", J "url.job", "nfs://cli/x", "--bs", "2k", NULL };
	static const char *const dashes[] = { "--job", J "url.job", "--", "nfs://cli/y", NULL };
	static const char *const none[] = { "--job", J "no-url.job", NULL };
	struct job job;
	struct config cfg;
	char cerr[512];

	(void)state;
	assert_int_equal(load(&job, file), 0);
	assert_int_equal(job.nruns, 2);
	assert_string_equal(joined(&job.runs[0]), "--bs=1k nfs://phase/export?version=4");
	assert_string_equal(joined(&job.runs[1]), "nfs://global/export");
	config_of(&job, 0, &cfg);
	assert_int_equal(cfg.nfs_version, 4);
	job_free(&job);

	assert_int_equal(load(&job, cli), 0);
	assert_string_equal(joined(&job.runs[0]), "--bs 2k nfs://cli/x");	/* bs = 1k dropped */
	assert_string_equal(joined(&job.runs[1]), "--bs 2k nfs://cli/x");
	config_of(&job, 0, &cfg);
	assert_string_equal(cfg.host, "cli");
	assert_int_equal(cfg.bs, 2048);
	job_free(&job);

	assert_int_equal(load(&job, dashes), 0);
	assert_string_equal(joined(&job.runs[1]), "-- nfs://cli/y");
	job_free(&job);

	/* No URL anywhere: config_parse says so. */
	assert_int_equal(load(&job, none), 0);
	assert_string_equal(joined(&job.runs[0]), "--bs=8k");
	assert_int_equal(config_parse(&cfg, job.runs[0].argc, job.runs[0].argv, cerr,
				      sizeof(cerr)), -EINVAL);
	assert_string_equal(cerr, "no URL given (nfsload [options] nfs://server/export)");
	job_free(&job);
}

static void test_sweep_in_file(void **state)
{
	static const char *const args[] = { "--job", J "sweep.job", URL, NULL };
	static const struct want_run want[] = {
		{ "mix rwmixread=100", "mix", "rwmixread", "100", "--size=1m --rw=randrw --rwmixread=100 " URL },
		{ "mix rwmixread=75", "mix", "rwmixread", "75", "--size=1m --rw=randrw --rwmixread=75 " URL },
		{ "mix rwmixread=0", "mix", "rwmixread", "0", "--size=1m --rw=randrw --rwmixread=0 " URL },
		{ "deep iodepth=1", "deep", "iodepth", "1", "--size=1m --iodepth=1 " URL },
		{ "deep iodepth=4", "deep", "iodepth", "4", "--size=1m --iodepth=4 " URL },
		{ "fixed", "fixed", NULL, NULL, "--size=1m --iodepth=2 " URL },
		{ "stable sync=0", "stable", "sync", "0", "--size=1m --rw=write " URL },
		{ "stable sync=1", "stable", "sync", "1", "--size=1m --rw=write --sync " URL },
	};
	struct job job;
	struct config cfg;

	(void)state;
	assert_int_equal(load(&job, args), 0);
	check_runs(&job, want, N(want));
	config_of(&job, 1, &cfg);
	assert_int_equal(cfg.rwmixread, 75);
	config_of(&job, 4, &cfg);
	assert_int_equal(cfg.iodepth, 4);
	job_free(&job);
}

/* The command line outranks the file's sweeps too. */
static void test_sweep_overridden(void **state)
{
	static const char *const q8[] = { "--job", J "sweep.job", "-q", "8", URL, NULL };
	static const char *const bs[] = { "--job", J "sweep.job", "--sweep", "bs=4k,8k", URL, NULL };
	struct job job;

	(void)state;
	assert_int_equal(load(&job, q8), 0);
	assert_int_equal(job.nruns, 7);		/* deep is no longer swept */
	assert_string_equal(job.runs[3].name, "deep");
	assert_string_equal(joined(&job.runs[3]), "--size=1m -q 8 " URL);
	assert_string_equal(joined(&job.runs[4]), "--size=1m -q 8 " URL);	/* fixed */
	job_free(&job);

	assert_int_equal(load(&job, bs), 0);
	assert_int_equal(job.nruns, 8);		/* --sweep replaces every phase's */
	assert_string_equal(job.runs[0].name, "mix bs=4k");
	assert_string_equal(joined(&job.runs[0]), "--size=1m --rw=randrw --bs=4k " URL);
	assert_string_equal(job.runs[5].name, "fixed bs=8k");
	assert_string_equal(joined(&job.runs[5]), "--size=1m --iodepth=2 --bs=8k " URL);
	for (unsigned i = 0; i < job.nruns; i++) {
		struct config cfg;

		config_of(&job, i, &cfg);
		assert_int_equal(cfg.bs, i % 2 ? 8192 : 4096);
	}
	job_free(&job);
}

/* Without --job: the command line is one phase named "run", swept. */
static void test_sweep_command_line(void **state)
{
	static const char *const args[] = { "--rw", "randrw", "--sweep", "rwmixread=100,50,0",
					    URL, "-c", "2", NULL };
	static const struct want_run want[] = {
		{ "run rwmixread=100", "run", "rwmixread", "100", "--rwmixread=100 --rw randrw -c 2 " URL },
		{ "run rwmixread=50", "run", "rwmixread", "50", "--rwmixread=50 --rw randrw -c 2 " URL },
		{ "run rwmixread=0", "run", "rwmixread", "0", "--rwmixread=0 --rw randrw -c 2 " URL },
	};
	static const char *const eq[] = { "--sweep= bs = 1m , 2m ", URL, NULL };
	struct job job;

	(void)state;
	assert_int_equal(load(&job, args), 0);
	assert_string_equal(job.path, "");
	check_runs(&job, want, N(want));
	job_free(&job);

	assert_int_equal(load(&job, eq), 0);
	assert_int_equal(job.nruns, 2);
	assert_string_equal(job.runs[1].name, "run bs=2m");
	assert_string_equal(joined(&job.runs[1]), "--bs=2m " URL);
	/* Nothing came from a file: errors stay as they are. */
	strcpy(err, "--bs: 2m is larger than --size 1m");
	job_locate_error(&job, 1, err, sizeof(err));
	assert_string_equal(err, "--bs: 2m is larger than --size 1m");
	job_free(&job);
}

static void test_flags(void **state)
{
	static const char *const args[] = { "--job", J "flags.job", NULL };
	struct job job;
	struct config cfg;

	(void)state;
	assert_int_equal(load(&job, args), 0);
	/* keep and sync: 0 in the phase beats 1 in [global]; skip-layout = no: absent */
	assert_string_equal(joined(&job.runs[0]), "--quiet " URL);
	config_of(&job, 0, &cfg);
	assert_true(!cfg.keep && !cfg.sync && !cfg.skip_layout && cfg.live == CFG_LIVE_OFF);
	job_free(&job);
}

/* --help and --version go to config_parse as they are, the file unread. */
static void test_help(void **state)
{
	static const char *const args[] = { "--job", J "missing.job", "-V", "--sweep", "x", NULL };
	struct job job;
	struct config cfg;
	char cerr[64];

	(void)state;
	assert_int_equal(load(&job, args), 0);
	assert_int_equal(job.nruns, 1);
	assert_string_equal(job.runs[0].name, "run");
	assert_string_equal(joined(&job.runs[0]), "-V");
	assert_int_equal(config_parse(&cfg, job.runs[0].argc, job.runs[0].argv, cerr,
				      sizeof(cerr)), CFG_EXIT_OK);
	job_free(&job);
}

static void test_wanted(void **state)
{
	static const char *const job1[] = { "--job", "x", NULL };
	static const char *const job2[] = { "-q", "4", "--job=x", URL, NULL };
	static const char *const sweep[] = { URL, "--sweep", "bs=4k", NULL };
	static const char *const bad[] = { URL, "--job", NULL };
	static const char *const plain[] = { "-q", "4", "--bs", "8k", URL, NULL };
	static const char *const arg[] = { "--dir", "--job", URL, NULL };	/* a value */
	static const char *const after[] = { "--", "--job", NULL };		/* positional */

	(void)state;
	assert_true(wanted(job1));
	assert_true(wanted(job2));
	assert_true(wanted(sweep));
	assert_true(wanted(bad));
	assert_false(wanted(plain));
	assert_false(wanted(arg));
	assert_false(wanted(after));
}

struct bad_case {
	const char *args[6];
	const char *err;
};

static void test_errors(void **state)
{
	static const struct bad_case cases[] = {
		{ { "--job", J "bad-key.job" }, J "bad-key.job:5: unknown key 'bogus' (a long "
		  "option name, e.g. bs, rw, iodepth, or url, sweep)" },
		{ { "--job", J "job-key.job" }, J "job-key.job:2: unknown key 'job' (a long "
		  "option name, e.g. bs, rw, iodepth, or url, sweep)" },
		{ { "--job", J "bad-section.job" }, J "bad-section.job:3: unknown section "
		  "'[mystery]' (use [global] or [phase NAME])" },
		{ { "--job", J "bad-sweep-key.job" }, J "bad-sweep-key.job:3: sweep: 'url' is not "
		  "an option to sweep (a long option name, e.g. bs, rw, iodepth)" },
		{ { "--job", J "bad-sweep-empty.job" }, J "bad-sweep-empty.job:2: sweep: an empty "
		  "value in 'bs=4k,,8k'" },
		{ { "--job", J "bad-sweep-form.job" }, J "bad-sweep-form.job:2: sweep: 'bs' is not "
		  "KEY=V1,V2,... (e.g. iodepth=1,4,16)" },
		{ { "--job", J "bad-sweep-flag.job" }, J "bad-sweep-flag.job:2: sweep: 'maybe' is "
		  "not 1, 0, true, false, yes or no" },
		{ { "--job", J "bad-sweep-twice.job" }, J "bad-sweep-twice.job:2: sweep: '4k' twice" },
		{ { "--job", J "bad-sweep-many.job" }, J "bad-sweep-many.job:4: sweep: more than "
		  "64 values" },
		{ { "--job", J "sweep-and-key.job" }, J "sweep-and-key.job:3: sweep: bs is already "
		  "set on line 2" },
		{ { "--job", J "key-and-sweep.job" }, J "key-and-sweep.job:3: bs: already set on "
		  "line 2" },
		{ { "--job", J "dup-key.job" }, J "dup-key.job:5: bs: already set on line 2" },
		{ { "--job", J "no-phase.job" }, J "no-phase.job: no [phase NAME] section "
		  "(a job needs one)" },
		{ { "--job", J "missing.job" }, "--job: cannot open '" J "missing.job': "
		  "No such file or directory" },
		{ { "--job", "tests/jobs" }, "--job: cannot read 'tests/jobs': Is a directory" },
		{ { "--job", J "outside.job" }, J "outside.job:1: 'bs' is outside a section (put "
		  "it under [global] or [phase NAME])" },
		{ { "--job", J "bad-name.job" }, J "bad-name.job:1: phase name 'a b': letters, "
		  "digits, '.', '_', '-', at most 63" },
		{ { "--job", J "dup-phase.job" }, J "dup-phase.job:4: phase 'a' is already on line 1" },
		{ { "--job", J "bad-flag.job" }, J "bad-flag.job:2: keep: 'maybe' is not 1, 0, "
		  "true, false, yes or no" },
		{ { "--job", J "syntax.job" }, J "syntax.job:3: neither [section] nor key = value" },
		{ { "--job", J "unclosed.job" }, J "unclosed.job:2: neither [section] nor key = value" },
		{ { "--job", J "empty-value.job" }, J "empty-value.job:2: bs: needs a value" },
		{ { URL, "--job" }, "--job: needs a value" },
		{ { "--job", "a", "--job=b" }, "--job: given twice" },
		{ { URL, "--sweep", "bs" }, "--sweep: 'bs' is not KEY=V1,V2,... (e.g. iodepth=1,4,16)" },
		{ { URL, "--sweep", "job=a,b" }, "--sweep: 'job' is not an option to sweep (a long "
		  "option name, e.g. bs, rw, iodepth)" },
		{ { URL, "--sweep", "bs=" }, "--sweep: an empty value in 'bs='" },
		{ { URL, "--sweep=iodepth=1,2", "-q4" }, "--sweep: --iodepth is also given (one or "
		  "the other)" },
		{ { URL, "--sweep", "bs=1k", "--sweep", "bs=2k" }, "--sweep: given twice" },
		{ { "--job", J "two-phase.job", "--sweep", "dir=a,b,a" }, "--sweep: 'a' twice" },
	};
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		struct job job;
		int rc = load(&job, cases[i].args);

		if (rc != -EINVAL || strcmp(err, cases[i].err) || job.nruns || job.runs) {
			print_error("case %zu: rc %d, err\n  got  '%s'\n  want '%s'\n", i, rc, err,
				    cases[i].err);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

/*
 * Every option of config_parse (but help, version and those read before it)
 * is a job-file key, the engines' own included: job.c's keys and getopt's
 * table are both made from the option tables, and this keeps them in step.
 */
static void test_every_option_is_a_key(void **state)
{
	char path[] = "/tmp/test_job.XXXXXX";
	const char *args[] = { "--job", path, "nfs://srv/e", NULL };
	int fd = mkstemp(path), bad = 0;
	struct job job;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	struct opt_ref all[OPTIONS_MAX];
	unsigned n = options_all(all), keys = 0;

	for (unsigned i = 0; i < n; i++) {
		const struct opt *o = all[i].opt;
		FILE *f;

		if (o->kind == OPT_HELP || o->kind == OPT_VERSION || o->kind == OPT_ELSEWHERE)
			continue;
		keys++;
		assert_non_null(f = fopen(path, "w"));
		fprintf(f, "[phase p]\n%s = 1\n", o->name);
		fclose(f);
		if (load(&job, args) == 0) {
			job_free(&job);
		} else if (strstr(err, "unknown key")) {
			print_error("--%s is not a job-file key: %s\n", o->name, err);
			bad++;
		}
	}
	unlink(path);
	/* The engines' own options are among them. */
	for (const char *const *e = (const char *const[]){ "uid", "gid", "connections-per-session",
			"wire-source", "max-load", "direct", NULL }; *e; e++) {
		unsigned i = 0;

		while (i < n && strcmp(all[i].opt->name, *e))
			i++;
		if (i == n || !*opt_key(all[i].opt)) {
			print_error("--%s is not among the options' keys\n", *e);
			bad++;
		}
	}
	if (keys < 40) {
		print_error("only %u options are job-file keys\n", keys);
		bad++;
	}
	assert_int_equal(bad, 0);
}

/* Lines past libinih's default 200 characters; longer than JOB_LINE_MAX fails. */
static void test_long_lines(void **state)
{
	char path[] = "/tmp/test_job.XXXXXX", url[600], want[700], *big;
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	const char *args[] = { "--job", path, NULL };
	struct job job;

	(void)state;
	assert_non_null(f);
	snprintf(url, sizeof(url), "nfs://srv/export/%0480d", 7);
	fprintf(f, "[phase long]\nurl = %s\n", url);
	fclose(f);
	assert_int_equal(load(&job, args), 0);
	assert_string_equal(joined(&job.runs[0]), url);
	job_free(&job);

	big = malloc(JOB_LINE_MAX + 1);
	assert_non_null(big);
	memset(big, 'x', JOB_LINE_MAX);
	big[JOB_LINE_MAX] = '\0';
	assert_non_null(f = fopen(path, "w"));
	fprintf(f, "[phase long]\n; %s\n", big);
	fclose(f);
	free(big);
	assert_int_equal(load(&job, args), -EINVAL);
	snprintf(want, sizeof(want), "%s:2: line longer than %d characters", path, JOB_LINE_MAX - 2);
	assert_string_equal(err, want);
	unlink(path);
}

/* config_parse's "--opt:" and "URL:" messages, pointed at the job file. */
static void test_locate_error(void **state)
{
	static const char *const value[] = { "--job", J "bad-value.job", URL, NULL };
	static const char *const url[] = { "--job", J "bad-url.job", NULL };
	static const char *const cli[] = { "--job", J "bad-url.job", "--size", "1q", URL, NULL };
	struct job job;
	struct config cfg;
	char cerr[700];

	(void)state;
	assert_int_equal(load(&job, value), 0);
	assert_int_equal(config_parse(&cfg, job.runs[0].argc, job.runs[0].argv, cerr,
				      sizeof(cerr)), -EINVAL);
	job_locate_error(&job, 0, cerr, sizeof(cerr));
	assert_string_equal(cerr, J "bad-value.job:4: --bs: '4q' is not a size (try 4k, 64k, 1m, 2g)");
	strcpy(cerr, "--size: 1m is too small");		/* [global], line 2 */
	job_locate_error(&job, 0, cerr, sizeof(cerr));
	assert_string_equal(cerr, J "bad-value.job:2: --size: 1m is too small");
	strcpy(cerr, "--threads: 8 threads for 2 connections");	/* not in the file */
	job_locate_error(&job, 0, cerr, sizeof(cerr));
	assert_string_equal(cerr, "--threads: 8 threads for 2 connections");
	strcpy(cerr, "URL: not from the file");
	job_locate_error(&job, 0, cerr, sizeof(cerr));
	assert_string_equal(cerr, "URL: not from the file");
	strcpy(cerr, "--bs");					/* not "--opt:" */
	job_locate_error(&job, 0, cerr, sizeof(cerr));
	assert_string_equal(cerr, "--bs");
	job_free(&job);

	assert_int_equal(load(&job, url), 0);
	assert_int_equal(config_parse(&cfg, job.runs[0].argc, job.runs[0].argv, cerr,
				      sizeof(cerr)), -EINVAL);
	job_locate_error(&job, 0, cerr, sizeof(cerr));
	assert_memory_equal(cerr, J "bad-url.job:5: URL: ", strlen(J "bad-url.job:5: URL: "));
	job_free(&job);

	/* From the command line: left alone. */
	assert_int_equal(load(&job, cli), 0);
	assert_int_equal(config_parse(&cfg, job.runs[0].argc, job.runs[0].argv, cerr,
				      sizeof(cerr)), -EINVAL);
	job_locate_error(&job, 0, cerr, sizeof(cerr));
	assert_string_equal(cerr, "--size: '1q' is not a size (try 4k, 64k, 1m, 2g)");
	job_free(&job);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_phases),
		cmocka_unit_test(test_precedence),
		cmocka_unit_test(test_url),
		cmocka_unit_test(test_sweep_in_file),
		cmocka_unit_test(test_sweep_overridden),
		cmocka_unit_test(test_sweep_command_line),
		cmocka_unit_test(test_flags),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_wanted),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_long_lines),
		cmocka_unit_test(test_every_option_is_a_key),
		cmocka_unit_test(test_locate_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
