/*
 * main: a job (--job or --sweep), a merge of results (--merge) or one run,
 * from the command line; under mpirun, one run per rank (cluster_run.c).
 * The data flow from argv to the report is in docs/ARCHITECTURE.md.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "analyze.h"
#include "cluster.h"
#include "config.h"
#include "options.h"
#include "job.h"
#include "jobrun.h"
#include "merge.h"
#include "run.h"
#include "trace.h"

static int one_host(int argc, char **argv)
{
	struct config cfg;
	char err[512];
	FILE *out = stdout;
	int rc;

	if (trace_wanted(argc, argv))
		return trace_main(argc, argv);
	if (analyze_wanted(argc, argv))
		return analyze_main(argc, argv);
	if (merge_wanted(argc, argv))
		return merge_main(argc, argv);
	if (job_wanted(argc, argv))
		return jobrun(argc, argv);
	rc = config_parse(&cfg, argc, argv, err, sizeof(err));
	if (rc == CFG_EXIT_OK)
		return 0;
	if (rc < 0) {
		fprintf(stderr, "nfsload: %s\n", err);
		return EXIT_USAGE;
	}
	if (cfg.output[0] && !(out = fopen(cfg.output, "w"))) {
		fprintf(stderr, "nfsload: --output: cannot write '%s': %s\n", cfg.output,
			strerror(errno));
		return EXIT_USAGE;
	}
	rc = run_one(&cfg, out, NULL);
	if (out != stdout)
		fclose(out);
	return rc;
}

int main(int argc, char **argv)
{
	int rc;

	/* Under mpirun (a build with MPI=1): one run per rank, one report (cluster.h). */
	if (cluster_init(&argc, &argv) < 0)
		return EXIT_RUNTIME;
	rc = cluster_size() > 1 ? cluster_run(argc, argv) : one_host(argc, argv);
	cluster_finish();
	return rc;
}
