/*
 * cluster_run: one run per MPI rank, one report for all of them (cluster.h).
 * Each rank runs the command line as a single host would, in a work
 * directory of its own (--dir with -rankN appended), its report written as
 * JSON into memory; rank 0 gathers them and prints them merged (merge.c:
 * histograms added, a row per rank), in the format asked for. With --output
 * FILE, every rank also writes its own report to FILE.rankN.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "config.h"
#include "options.h"
#include "job.h"
#include "merge.h"
#include "run.h"

/* What a single host has that the ranks do not share yet: a line, on rank 0. */
static int refuse(const char *what)
{
	if (cluster_rank() == 0)
		fprintf(stderr, "nfsload: with mpirun: %s\n", what);
	return EXIT_USAGE;
}

/* This rank's own report next to the merged one: 0 or -errno. */
static int write_own(const char *output, const char *buf, size_t len)
{
	char path[CFG_URL_MAX + 32];
	FILE *f;
	int rc = 0;

	snprintf(path, sizeof(path), "%s.rank%u", output, cluster_rank());
	if (!(f = fopen(path, "w")))
		return -errno;
	if (fwrite(buf, 1, len, f) != len)
		rc = -EIO;
	if (fclose(f) && !rc)
		rc = -errno;
	return rc;
}

/* --op-log: each rank its own, "ops.csv.zst" -> "ops.rank1.csv.zst" (the rank before the
 * name's first dot, so .zst stays last). 0, or -ENAMETOOLONG. */
static int rank_path(char *path, size_t cap)
{
	char head[CFG_URL_MAX], tail[CFG_URL_MAX], *slash = strrchr(path, '/'), *dot;
	size_t n;

	if (!path[0])
		return 0;
	dot = strchr(slash ? slash + 1 : path, '.');
	n = dot ? (size_t)(dot - path) : strlen(path);
	snprintf(head, sizeof(head), "%.*s", (int)n, path);
	snprintf(tail, sizeof(tail), "%s", path + n);
	if ((size_t)snprintf(path, cap, "%s.rank%u%s", head, cluster_rank(), tail) >= cap)
		return -ENAMETOOLONG;
	return 0;
}

/* Rank 0: the ranks' reports merged onto the user's output. The run's status. */
static int print_merged(const struct config *cfg, char **texts, enum cfg_format fmt,
			const char *hdr_log, const char *html_path, int status)
{
	unsigned n = cluster_size();
	const char **names = calloc(n, sizeof(*names));
	char (*label)[32] = calloc(n, sizeof(*label));
	char err[600];
	FILE *out = stdout;

	if (!names || !label) {
		free(names);
		free(label);
		fprintf(stderr, "nfsload: out of memory merging the ranks' reports\n");
		return EXIT_RUNTIME;
	}
	for (unsigned i = 0; i < n; i++) {
		snprintf(label[i], sizeof(label[i]), "rank %u", i);
		names[i] = label[i];
	}
	if (cfg->output[0] && !(out = fopen(cfg->output, "w"))) {
		fprintf(stderr, "nfsload: --output: cannot write '%s': %s\n", cfg->output,
			strerror(errno));
		status = EXIT_RUNTIME;
	} else {
		struct merge_out o = { .fmt = fmt, .out = out, .hdr_log = hdr_log, .cfg = cfg };

		if (html_path[0] && !(o.html = fopen(html_path, "w"))) {
			fprintf(stderr, "nfsload: --report: cannot write '%s': %s\n", html_path,
				strerror(errno));
			status = EXIT_RUNTIME;
		} else if (merge_reports(names, texts, n, &o, err, sizeof(err)) < 0) {
			fprintf(stderr, "nfsload: merging the ranks' reports: %s\n", err);
			status = EXIT_RUNTIME;
		}
		if (o.html)
			fclose(o.html);
	}
	if (out != stdout)
		fclose(out);
	free(names);
	free(label);
	return status;
}

int cluster_run(int argc, char **argv)
{
	struct config cfg;
	char err[512], *buf = NULL, **texts = NULL, hdr_log[CFG_URL_MAX], html[CFG_URL_MAX];
	enum cfg_format fmt;
	size_t len = 0, n;
	FILE *mem;
	int rc;

	if (merge_wanted(argc, argv) || job_wanted(argc, argv))
		return refuse("one run per rank: --job, --sweep and --merge run without mpirun");
	rc = config_parse(&cfg, argc, argv, err, sizeof(err));
	if (rc == CFG_EXIT_OK)
		return 0;
	if (rc < 0) {
		if (cluster_rank() == 0)
			fprintf(stderr, "nfsload: %s\n", err);
		return EXIT_USAGE;
	}
	/* Each rank would judge its own points and step on alone: no one curve of them all. */
	if (cfg.curve.start > 0)
		return refuse("--load-curve: one host's curve (the ranks do not step together yet)");
	n = strlen(cfg.dir);
	if (snprintf(cfg.dir + n, sizeof(cfg.dir) - n, "-rank%u", cluster_rank()) >=
	    (int)(sizeof(cfg.dir) - n))
		return refuse("--dir: too long to add the rank to it");
	if (rank_path(cfg.op_log, sizeof(cfg.op_log)))
		return refuse("--op-log: too long to add the rank to it");
	/* Each rank's own report is JSON with its series' buckets; rank 0 writes what was asked. */
	fmt = cfg.format;
	snprintf(hdr_log, sizeof(hdr_log), "%s", cfg.hdr_log);
	snprintf(html, sizeof(html), "%s", cfg.html);
	cfg.format = CFG_FORMAT_JSON;
	cfg.series_buckets = true;
	cfg.hdr_log[0] = cfg.html[0] = '\0';
	if (!(mem = open_memstream(&buf, &len))) {
		fprintf(stderr, "nfsload: out of memory\n");
		cluster_start(false);
		return cluster_max_status(EXIT_RUNTIME);
	}
	rc = run_one(&cfg, mem, NULL);
	fclose(mem);
	/* The others wait for this rank at the start: tell them it will not come. */
	if (!cluster_started())
		cluster_start(false);
	if (!cluster_start_ok()) {
		if (!rc)
			rc = EXIT_RUNTIME;
		if (cluster_rank() == 0)
			fprintf(stderr, "nfsload: a rank failed before the measured phase: no "
				"report\n");
		free(buf);
		return cluster_max_status(rc);
	}
	if (cfg.output[0] && write_own(cfg.output, buf, len) < 0)
		fprintf(stderr, "nfsload: rank %u: cannot write its own report next to --output\n",
			cluster_rank());
	if (cluster_gather(buf ? buf : "", buf ? len : 0, &texts) < 0 && cluster_rank() == 0) {
		fprintf(stderr, "nfsload: out of memory gathering the ranks' reports\n");
		rc = EXIT_RUNTIME;
	}
	free(buf);
	if (texts)
		rc = print_merged(&cfg, texts, fmt, hdr_log, html, rc);
	cluster_free_texts(texts);
	return cluster_max_status(rc);
}
