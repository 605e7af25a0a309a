/*
 * job: `--job FILE` and `--sweep KEY=V1,V2,...` -> one argv per run.
 *
 * Owns: reading the job file (libinih), merging it with the command line and
 * expanding sweeps. Makes argv arrays only: every run's argv is validated
 * later by config_parse, and job_locate_error points its message back at the
 * job file line. No output; not thread-safe (libinih's options are globals).
 *
 * Job file format (INI, read with libinih):
 *   [global]          keys for every phase, wherever the section stands
 *                     (several [global] sections are one scope)
 *   [phase NAME]      one phase; phases run in file order. NAME: letters,
 *                     digits, '.', '_', '-', at most 63, unique in the file.
 *                     A phase may be empty ([global] and the command line).
 *   key = value       (or key: value) a long option name without "--": bs,
 *                     rw, iodepth, runtime, ... (not help, version, job);
 *                     url = nfs://... gives the URL; the flags skip-layout,
 *                     keep, live, quiet, sync take 1/0, true/false, yes/no
 *                     (any case; 1: the flag is given, 0: it is not)
 *   sweep = KEY=V1,V2,...   the phase runs once per value, as points named
 *                     "NAME KEY=V". KEY: an option name (not url, sweep);
 *                     values trimmed, non-empty, distinct, at most 63
 *                     characters, at most JOB_SWEEP_MAX; a flag sweeps 0/1
 *   ; or # first on a line: a comment; after a value, " ;" starts one
 *                     (so "url = nfs://h/e;x" keeps its ';').
 * Keys are case-sensitive; keys and values are trimmed; a value may not be
 * empty; a key needs a section and may be set once per scope (sweep = K=...
 * counts as setting K); an indented line is an ordinary line (no
 * continuation lines); lines up to JOB_LINE_MAX - 2 characters; a UTF-8 BOM
 * is skipped; at least one phase. Values are not checked here: config_parse
 * does that on each run's argv.
 *
 * Precedence, for each option: command line > phase > [global]; a sweep sets
 * its KEY at its own level, and the sweep itself follows the same order
 * (--sweep replaces a phase's sweep, a phase's replaces [global]'s). So a
 * phase that sets the key a [global] sweep varies is not swept, and
 * `--iodepth 1` on the command line collapses a sweep over iodepth to one run
 * (but `--sweep iodepth=...` with `--iodepth` is an error). Options the
 * command line gives (found with getopt_long, so -q and --io prefixes count)
 * are left out of the file's part of argv. A URL on the command line
 * replaces the url key (phase > [global]).
 *
 * Without --job, `--sweep` on the command line makes the plain command line
 * one implicit phase named "run" that is swept.
 */
#ifndef NFSLOAD_JOB_H
#define NFSLOAD_JOB_H

#include <stdbool.h>
#include <stddef.h>

#define JOB_SWEEP_MAX 64	/* points per phase */
#define JOB_LINE_MAX 4096	/* libinih's line buffer while reading a job */
#define JOB_PATH_MAX 4096

struct job_run {
	char name[160];			/* "write", "mix rwmixread=75", "run" */
	char phase[64];			/* the phase it belongs to */
	char sweep_key[32], sweep_value[64];	/* "" when not swept */
	int argc;
	/*
	 * argv[0] = "nfsload", then the job file's options as "--key=value" or
	 * "--flag" ([global]'s, the phase's, the swept one), then the command
	 * line's options verbatim (without --job and --sweep), then the URL last
	 * (after "--" when the command line had one or the url starts with '-');
	 * NULL-terminated. Owned by the job.
	 */
	char **argv;
	unsigned *lines;		/* private: job file line of each option, 0 = not from it */
};

struct job {
	char path[JOB_PATH_MAX];	/* the job file, "" for a command-line sweep */
	unsigned nruns;
	struct job_run *runs;
};

/* Whether argv has --job or --sweep (then main uses job_load, not config_parse). */
bool job_wanted(int argc, char **argv);

/*
 * Builds the runs into job (zeroed by the caller, emptied again on failure).
 * Returns 0, -EINVAL with one line in err ("FILE:LINE: ..." for the job
 * file, "FILE: ..." for the whole file, "--job: ..." / "--sweep: ..." for the
 * command line) or -ENOMEM. With -h/--help/-V/--version on the command line
 * the file is not read: one run, the command line without --job/--sweep,
 * for config_parse to print the text and return CFG_EXIT_OK.
 */
int job_load(int argc, char **argv, struct job *job, char *err, size_t len);

/*
 * After config_parse(runs[run]) failed with err starting "--opt:" (or "URL:"),
 * rewrites err as "FILE:LINE: --opt: ..." when that option (or the URL) came
 * from the job file; else leaves err as it is.
 */
void job_locate_error(const struct job *job, unsigned run, char *err, size_t len);

/* Frees the runs; job is zeroed and may be freed again. */
void job_free(struct job *job);

#endif
