/*
 * jobrun: a job's runs, one after another, and its clean-up.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job.h"
#include "jobrun.h"
#include "options.h"
#include "run.h"
#include "status.h"

/* Per work directory, what a job's runs created: removed after the last run. */
struct job_dir {
	struct config cfg;	/* a run's, to reach the servers (the most namespaces') */
	struct fileset fs[CFG_SERVERS_MAX];	/* what any run created there, per namespace */
	unsigned nfs;
	bool keep;
	bool trees;		/* a --mix or small-file run made trees: tree_cfg's */
	struct config tree_cfg;
	bool held;		/* a run held files (--open-files): held_cfg's connections and
				 * open_files are the most any run had */
	struct config held_cfg;
};

/* "r.html" -> "r-2.html", "ops.csv.zst" -> "ops-2.csv.zst": each run of a job its own
 * file. -ENAMETOOLONG if it does not fit. */
static int number_path(char *path, size_t len, unsigned i)
{
	char head[CFG_URL_MAX], tail[CFG_URL_MAX], *dot = strrchr(path, '.');
	char *slash = strrchr(path, '/');
	size_t n;

	/* A compressed file's name keeps its two suffixes together. */
	if (dot && !strcmp(dot, ".zst") && dot > path) {
		char *prev = dot - 1;

		while (prev > path && *prev != '.' && *prev != '/')
			prev--;
		if (*prev == '.')
			dot = prev;
	}
	n = dot && (!slash || dot > slash) ? (size_t)(dot - path) : strlen(path);

	if (!path[0])
		return 0;
	snprintf(head, sizeof(head), "%.*s", (int)n, path);
	snprintf(tail, sizeof(tail), "%s", path + n);
	if ((size_t)snprintf(path, len, "%s-%u%s", head, i, tail) >= len)
		return run_complain(-ENAMETOOLONG, "'%s-%u%s': file name too long", head, i, tail);
	return 0;
}

/* The job's runs share work directories: what any created goes at the end. */
static struct job_dir *job_dir_of(struct job_dir *dirs, unsigned *ndirs, const struct config *cfg)
{
	for (unsigned i = 0; i < *ndirs; i++)
		if (!strcmp(dirs[i].cfg.canon_url, cfg->canon_url) && !strcmp(dirs[i].cfg.dir, cfg->dir) &&
		    dirs[i].cfg.engine == cfg->engine)
			return &dirs[i];
	dirs[*ndirs].cfg = *cfg;
	return &dirs[(*ndirs)++];
}

/* Namespace k of cfg: a server's own settings when each has its own. */
static void ns_cfg(const struct config *cfg, unsigned k, struct config *out)
{
	if (config_namespaces(cfg) > 1)
		config_for_server(cfg, k, out);
	else
		*out = *cfg;
}

static void dir_cleanup(struct job_dir *d)
{
	struct config *c = malloc(2 * sizeof(*c));

	for (unsigned k = 0; c && (k < d->nfs || k == 0); k++) {
		struct workdir *wd = NULL, *tw = NULL;
		char err[600];
		int rc;

		ns_cfg(&d->cfg, k, &c[0]);
		ns_cfg(&d->tree_cfg, k, &c[1]);
		rc = workdir_open(&c[0], &wd, err, sizeof(err));
		/* The trees of --mix and small-file runs: their own config says how many. */
		if (rc == 0 && d->trees && (rc = workdir_open(&c[1], &tw, err, sizeof(err))) == 0)
			rc = workdir_trees_remove(tw, err, sizeof(err));
		/* The held files of --open-files runs (their names: connection and index). */
		if (rc == 0 && d->held) {
			workdir_free(tw);
			tw = NULL;
			ns_cfg(&d->held_cfg, k, &c[1]);
			/* Every connection's names, on each server (as run.c's cleanup does). */
			c[1].connections = d->held_cfg.connections;
			if ((rc = workdir_open(&c[1], &tw, err, sizeof(err))) == 0)
				rc = workdir_held_remove(tw, err, sizeof(err));
		}
		if (rc == 0)
			rc = workdir_cleanup(wd, &d->fs[k], err, sizeof(err));
		if (rc)
			fprintf(stderr, "nfsload: cleanup of /%s on %s: %s\n", d->cfg.dir, c[0].url, err);
		workdir_free(tw);
		workdir_free(wd);
	}
	if (!c)
		fprintf(stderr, "nfsload: cleanup of /%s: out of memory\n", d->cfg.dir);
	free(c);
}

/* Each run's config, checked, with its outputs numbered. 0, or the exit status. */
static int parse_runs(struct job *job, struct config *cfgs, int *done_ok)
{
	char err[700];
	int rc;

	for (unsigned i = 0; i < job->nruns; i++) {
		rc = config_parse(&cfgs[i], job->runs[i].argc, job->runs[i].argv, err, sizeof(err));
		if (rc == CFG_EXIT_OK) {
			*done_ok = 1;
			return 0;
		}
		if (rc < 0) {
			job_locate_error(job, i, err, sizeof(err));
			return run_complain(EXIT_USAGE, "%s", err);
		}
		if (strcmp(cfgs[i].output, cfgs[0].output) || cfgs[i].format != cfgs[0].format)
			return run_complain(EXIT_USAGE, "%s: --output and --output-format must be the "
					"same in every run of a job", job->runs[i].name);
		if (job->nruns > 1 &&
		    (number_path(cfgs[i].html, sizeof(cfgs[i].html), i + 1) ||
		     number_path(cfgs[i].hdr_log, sizeof(cfgs[i].hdr_log), i + 1) ||
		     number_path(cfgs[i].op_log, sizeof(cfgs[i].op_log), i + 1)))
			return EXIT_USAGE;
	}
	return 0;
}

static int run_all(struct job *job, struct config *cfgs, FILE *out)
{
	struct run_result *res = calloc(job->nruns, sizeof(*res));
	struct job_dir *dirs = calloc(job->nruns, sizeof(*dirs));
	struct job_row *rows = calloc(job->nruns, sizeof(*rows));
	unsigned ndirs = 0, done = 0;
	int status = 0;

	if (!res || !dirs || !rows) {
		free(res);
		free(dirs);
		free(rows);
		return run_complain(EXIT_RUNTIME, "out of memory");
	}
	for (unsigned i = 0; i < job->nruns && status == 0; i++, done++) {
		struct job_dir *d = job_dir_of(dirs, &ndirs, &cfgs[i]);
		struct job_row *row = &res[i].row;

		row->name = job->runs[i].name;
		row->sweep_key = job->runs[i].sweep_key;
		row->sweep_value = job->runs[i].sweep_value;
		d->keep |= cfgs[i].keep;
		if (config_namespaces(&cfgs[i]) > config_namespaces(&d->cfg))
			d->cfg = cfgs[i];
		if (cfgs[i].meta || cfgs[i].small_files) {
			d->trees = true;
			d->tree_cfg = cfgs[i];
		}
		if (cfgs[i].open_files) {
			unsigned conns = d->held ? d->held_cfg.connections : 0;
			unsigned files = d->held ? d->held_cfg.open_files : 0;

			d->held_cfg = cfgs[i];
			if (conns > d->held_cfg.connections)
				d->held_cfg.connections = conns;
			if (files > d->held_cfg.open_files)
				d->held_cfg.open_files = files;
			d->held = true;
		}
		cfgs[i].keep = true;
		report_job_run_begin(out, cfgs[i].format, job->path, row, i, job->nruns);
		status = row->status = run_one(&cfgs[i], out, &res[i]);
		report_job_run_end(out, cfgs[i].format);
		for (unsigned k = 0; k < res[i].nfs; k++) {
			if (fileset_merge(&d->fs[k], &res[i].fs[k]) && !status)
				status = run_complain(EXIT_RUNTIME, "out of memory");
			fileset_destroy(&res[i].fs[k]);
		}
		if (res[i].nfs > d->nfs)
			d->nfs = res[i].nfs;
	}
	for (unsigned i = 0; i < done; i++)
		rows[i] = res[i].row;
	report_job_summary(out, cfgs[0].format, rows, done);
	for (unsigned i = 0; i < ndirs; i++) {
		if (!dirs[i].keep)
			dir_cleanup(&dirs[i]);
		for (unsigned k = 0; k < dirs[i].nfs; k++)
			fileset_destroy(&dirs[i].fs[k]);
	}
	free(res);
	free(dirs);
	free(rows);
	return status;
}

int jobrun(int argc, char **argv)
{
	struct job job = { 0 };
	struct config *cfgs = NULL;
	FILE *out = stdout;
	char err[700];
	int status, help = 0;

	if (job_load(argc, argv, &job, err, sizeof(err)))
		return run_complain(EXIT_USAGE, "%s", err);
	cfgs = calloc(job.nruns, sizeof(*cfgs));
	if (!cfgs)
		status = run_complain(EXIT_RUNTIME, "out of memory");
	else
		status = parse_runs(&job, cfgs, &help);
	if (status == 0 && !help && cfgs[0].output[0] && !(out = fopen(cfgs[0].output, "w")))
		status = run_complain(EXIT_USAGE, "--output: cannot write '%s': %s", cfgs[0].output,
				  strerror(errno));
	if (status == 0 && !help)
		status = run_all(&job, cfgs, out);
	if (out && out != stdout)
		fclose(out);
	free(cfgs);
	job_free(&job);
	return status;
}
