/*
 * libFuzzer target: the job file. The input is the file's content, kept in
 * a memfd (no files on disk) and read through /proc/self/fd/N. Each input
 * is loaded twice:
 *   nfsload --job FILE nfs://h1/e     (the command line's URL wins)
 *   nfsload --job FILE                (the file's url keys are used)
 * then every run's argv goes through config_parse (and job_locate_error
 * when it fails), and job_free. A first line "#! WORD WORD..." (a comment
 * to the job file) adds the words to both command lines after --job FILE,
 * for the command line's precedence and --sweep (at most 8; words with
 * "--j", -h, -V or "--h"/"--v" prefixes are dropped: no other file, no
 * --help text).
 *
 * Checks: job_load returns 0, -EINVAL or -ENOMEM, one line in err, an empty
 * job on failure; on success at least one run, each argv "nfsload"-first
 * and NULL-terminated, names that fit; config_parse results pass
 * fuzz_check_config; a located error still names the file.
 */
#include <stdbool.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "job.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fd = -1;
static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_quiet_stdout();
	fd = memfd_create("fuzz_job", 0);
	if (fd < 0)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return 0;
}

static void load(int argc, char **argv)
{
	struct job job;
	char err[FUZZ_ERR_LEN] = "";
	int rc = job_load(argc, argv, &job, err, sizeof(err));

	FUZZ_CHECK(rc == 0 || rc == -EINVAL || rc == -ENOMEM);
	FUZZ_CHECK(fuzz_terminated(err, sizeof(err)));
	if (rc) {
		FUZZ_CHECK(err[0] && !strchr(err, '\n'));
		FUZZ_CHECK(job.nruns == 0 && job.runs == NULL);
		job_free(&job);
		return;
	}
	FUZZ_CHECK(strcmp(job.path, path) == 0);
	FUZZ_CHECK(job.nruns >= 1);
	for (unsigned i = 0; i < job.nruns; i++) {
		struct job_run *r = &job.runs[i];
		static struct config cfg;
		char cerr[FUZZ_ERR_LEN] = "";
		int crc;

		FUZZ_CHECK(fuzz_terminated(r->name, sizeof(r->name)) &&
			   fuzz_terminated(r->phase, sizeof(r->phase)) &&
			   fuzz_terminated(r->sweep_key, sizeof(r->sweep_key)) &&
			   fuzz_terminated(r->sweep_value, sizeof(r->sweep_value)));
		FUZZ_CHECK(r->phase[0] && strncmp(r->name, r->phase, strlen(r->phase)) == 0);
		FUZZ_CHECK(!r->sweep_key[0] == !r->sweep_value[0]);
		FUZZ_CHECK(r->argc >= 1 && r->argv[r->argc] == NULL);
		FUZZ_CHECK(strcmp(r->argv[0], "nfsload") == 0);
		crc = config_parse(&cfg, r->argc, r->argv, cerr, sizeof(cerr));
		fuzz_check_config(&cfg, crc, cerr);
		FUZZ_CHECK(crc != CFG_EXIT_OK);	/* no -h/-V anywhere */
		if (crc < 0) {
			job_locate_error(&job, i, cerr, sizeof(cerr));
			FUZZ_CHECK(fuzz_terminated(cerr, sizeof(cerr)) && cerr[0]);
		}
	}
	job_free(&job);
	FUZZ_CHECK(job.nruns == 0 && job.runs == NULL);
}

/* True for words that would open another file or print --help/--version. */
static bool skipped(const char *w)
{
	return strstr(w, "--j") || (w[0] == '-' && w[1] != '-' && strpbrk(w, "hV")) ||
	       strncmp(w, "--h", 3) == 0 || strncmp(w, "--v", 3) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum { MAX_WORDS = 8 };
	char *with_url[MAX_WORDS + 5] = { (char *)"nfsload", (char *)"--job", path };
	char *file_only[MAX_WORDS + 4] = { (char *)"nfsload", (char *)"--job", path };
	char *line = NULL, *save, *w;
	int nw = 0;

	if (ftruncate(fd, 0) || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		abort();
	if (size > 2 && data[0] == '#' && data[1] == '!') {
		const uint8_t *nl = memchr(data, '\n', size);

		line = fuzz_string(data + 2, nl ? (size_t)(nl - data) - 2 : size - 2);
		for (w = strtok_r(line, " \t", &save); w && nw < MAX_WORDS;
		     w = strtok_r(NULL, " \t", &save))
			if (!skipped(w))
				with_url[3 + nw] = file_only[3 + nw] = w, nw++;
	}
	with_url[3 + nw] = (char *)"nfs://h1/e";
	load(4 + nw, with_url);
	load(3 + nw, file_only);
	free(line);
	return 0;
}
