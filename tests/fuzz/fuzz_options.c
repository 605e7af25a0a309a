/*
 * libFuzzer target: the command line. The input is argv after "nfsload",
 * one word per NUL- or newline-separated piece (at most 32 words).
 *
 * 1. config_parse, twice on fresh copies of argv: the same result both
 *    times (getopt's global state is reset), and a result that passes
 *    fuzz_check_config.
 * 2. The --sweep path: job_wanted and job_load on the same words, then
 *    config_parse (and job_locate_error) on every run, job_free. Words that
 *    could name a job file ("--j...") are left to fuzz_job, so nothing here
 *    opens files.
 */
#include "fuzz_common.h"
#include "job.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_quiet_stdout();
	return 0;
}

static void check_job_runs(struct job *job, int rc, const char *err)
{
	FUZZ_CHECK(rc == 0 || rc == -EINVAL || rc == -ENOMEM);
	if (rc) {
		FUZZ_CHECK(err[0] && !strchr(err, '\n'));
		FUZZ_CHECK(job->nruns == 0 && job->runs == NULL);
		return;
	}
	FUZZ_CHECK(job->nruns >= 1 && job->nruns <= JOB_SWEEP_MAX);
	for (unsigned i = 0; i < job->nruns; i++) {
		struct job_run *r = &job->runs[i];
		static struct config cfg;
		char cerr[FUZZ_ERR_LEN] = "";
		int crc;

		FUZZ_CHECK(r->argc >= 1 && r->argv[r->argc] == NULL);
		FUZZ_CHECK(strcmp(r->argv[0], "nfsload") == 0);
		crc = config_parse(&cfg, r->argc, r->argv, cerr, sizeof(cerr));
		fuzz_check_config(&cfg, crc, cerr);
		if (crc < 0) {
			job_locate_error(job, i, cerr, sizeof(cerr));
			FUZZ_CHECK(fuzz_terminated(cerr, sizeof(cerr)) && cerr[0]);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct config c1, c2;
	char *buf = fuzz_string(data, size);
	char *words[FUZZ_MAX_ARGS + 2], *argv[FUZZ_MAX_ARGS + 2];
	char err1[FUZZ_ERR_LEN], err2[FUZZ_ERR_LEN];
	int argc = fuzz_split(buf, size, words), rc1, rc2;
	bool file_word = false;

	/* getopt_long permutes argv: each parse gets its own copy of the array. */
	memcpy(argv, words, sizeof(words));
	err1[0] = '\0';
	rc1 = config_parse(&c1, argc, argv, err1, sizeof(err1));
	fuzz_check_config(&c1, rc1, err1);

	memcpy(argv, words, sizeof(words));
	err2[0] = '\0';
	rc2 = config_parse(&c2, argc, argv, err2, sizeof(err2));
	FUZZ_CHECK(rc1 == rc2);
	FUZZ_CHECK(strcmp(err1, err2) == 0);
	FUZZ_CHECK(rc1 != CFG_RUN || memcmp(&c1, &c2, sizeof(c1)) == 0);

	for (int i = 1; i < argc; i++)
		file_word |= strstr(words[i], "--j") != NULL;
	if (!file_word) {
		struct job job;

		memcpy(argv, words, sizeof(words));
		(void)job_wanted(argc, argv);
		memcpy(argv, words, sizeof(words));
		err1[0] = '\0';
		rc1 = job_load(argc, argv, &job, err1, sizeof(err1));
		check_job_runs(&job, rc1, err1);
		job_free(&job);
	}
	free(buf);
	return 0;
}
