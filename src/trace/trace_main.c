/*
 * trace_main: nfsload --trace-summary CAPTURE [--output-format text|json],
 * a mode of its own recognised before the run's options (like --merge).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "exit_status.h"
#include "trace.h"
#include "trace_summary.h"

int trace_wanted(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--trace-summary"))
			return 1;
	return 0;
}

int trace_main(int argc, char **argv)
{
	const char *file = NULL, *fmt = "text";
	struct trace t;
	char err[512];
	int rc;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(a, "--trace-summary") && strcmp(a, "--output-format")) {
			fprintf(stderr, "nfsload: --trace-summary: unknown argument '%s' (takes "
				"CAPTURE and --output-format text|json)\n", a);
			return EXIT_USAGE;
		}
		if (!v) {
			fprintf(stderr, "nfsload: %s: needs a value\n", a);
			return EXIT_USAGE;
		}
		if (!strcmp(a, "--trace-summary"))
			file = v;
		else
			fmt = v;
		i++;
	}
	if (strcmp(fmt, "text") && strcmp(fmt, "json")) {
		fprintf(stderr, "nfsload: --output-format: '%s' is not text or json\n", fmt);
		return EXIT_USAGE;
	}
	rc = trace_load(file, &t, err, sizeof(err));
	if (rc == -EINVAL) {
		fprintf(stderr, "nfsload: --trace-summary %s: %s\n", file, err);
		return EXIT_USAGE;
	}
	if (rc < 0) {
		fprintf(stderr, "nfsload: --trace-summary: %s\n", err);
		return EXIT_RUNTIME;
	}
	rc = trace_summary(stdout, file, &t, !strcmp(fmt, "json"));
	trace_free(&t);
	return rc < 0 ? EXIT_RUNTIME : 0;
}
