/*
 * usage: the --help text (stdout, exit 0), made from the option tables
 * (optable.h): each option's names, value and help lines. The reference
 * stays in man/nfsload.1, which has an entry for every option listed here.
 */
#include <stdio.h>
#include <string.h>

#include "optable.h"
#include "usage.h"

#define HELP_COLUMN 25	/* where the help text starts */

static void print_option(FILE *out, const struct opt *o)
{
	char left[80];
	int n;
	const char *line = o->help;

	if (o->letter)
		n = snprintf(left, sizeof(left), "  -%c, --%s%s%s", o->letter, o->name,
			     o->arg ? " " : "", o->arg ? o->arg : "");
	else
		n = snprintf(left, sizeof(left), "      --%s%s%s", o->name, o->arg ? " " : "",
			     o->arg ? o->arg : "");
	fprintf(out, "%s%*s", left, n < HELP_COLUMN ? HELP_COLUMN - n : 2, "");
	for (;;) {
		size_t k = strcspn(line, "\n");

		fprintf(out, "%.*s\n", (int)k, line);
		if (!line[k])
			break;
		line += k + 1;
		fprintf(out, "%*s", HELP_COLUMN, "");
	}
}

void config_usage(FILE *out)
{
	struct opt_ref all[OPTIONS_MAX];
	unsigned n = options_all(all);

	fputs("usage: nfsload [options] nfs://server[:port]/export[/dir][?args]\n"
	      "       nfsload --engine local [options] /some/dir\n"
	      "       nfsload --engine null [options]\n"
	      "\n", out);
	for (unsigned i = 0; i < n; i++)
		print_option(out, all[i].opt);
	fputs("\n"
	      "URL arguments: version=3|4 nfsport=N mountport=N nlmport=N uid=N gid=N tcp-syncnt=N if=NAME debug=N\n"
	      "Example: nfsload -c 16 -q 4 --rw randread --runtime 30s 'nfs://10.0.0.5/vol1?version=3'\n",
	      out);
}
