/*
 * options unit tests: the option tables themselves (names, letters, help,
 * where values go) and the man page against --help: every option --help
 * lists has an entry (a .TP tag naming it) in man/nfsload.1. Run from the
 * source tree's top directory, as `make unit` does.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/optable.h"
#include "cli/usage.h"
#include "engine.h"

#define MAN_PAGE "man/nfsload.1"
#define NAMES_MAX 128

/* The whole of a FILE, NUL-terminated (the caller frees it). */
static char *slurp(FILE *f)
{
	size_t n = 0, cap = 1 << 16;
	char *buf = malloc(cap);

	assert_non_null(buf);
	while (!feof(f)) {
		if (n + 4096 > cap)
			assert_non_null(buf = realloc(buf, cap *= 2));
		n += fread(buf + n, 1, cap - n - 1, f);
		assert_false(ferror(f));
	}
	buf[n] = '\0';
	return buf;
}

static char *help_text(void)
{
	FILE *f = tmpfile();
	char *text;

	assert_non_null(f);
	config_usage(f);
	rewind(f);
	text = slurp(f);
	fclose(f);
	return text;
}

/* The long names --help lists, one per option line ("  -t, --threads N", "      --rw MODE"). */
static unsigned help_names(const char *help, char names[][64])
{
	unsigned n = 0;

	for (const char *line = help; *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 :
	     line + strlen(line)) {
		const char *p = NULL, *comma = strchr(line, ',');
		size_t k;

		if (strncmp(line, "      --", 8) == 0)
			p = line + 8;
		else if (strncmp(line, "  -", 3) == 0 && comma == line + 4 &&
			 strncmp(comma, ", --", 4) == 0)
			p = comma + 4;
		if (!p)
			continue;
		k = strspn(p, "abcdefghijklmnopqrstuvwxyz-");
		assert_true(k > 0 && k < 64 && n < NAMES_MAX);
		memcpy(names[n], p, k);
		names[n++][k] = '\0';
	}
	return n;
}

/*
 * Whether the man text has an entry for --name: a tag line (the one after
 * .TP) holding "\-\-name" not followed by more of a name ("--verify" is not
 * "--verify-only").
 */
static int man_has(const char *man, const char *name)
{
	char esc[160];
	size_t k = 0;

	for (const char *c = name; *c && k < sizeof(esc) - 3; c++) {
		if (*c == '-')
			esc[k++] = '\\';
		esc[k++] = *c;
	}
	esc[k] = '\0';
	for (const char *tp = strstr(man, "\n.TP\n"); tp; tp = strstr(tp + 1, "\n.TP\n")) {
		const char *tag = tp + 5, *end = strchr(tag, '\n');

		for (const char *p = strstr(tag, "\\-\\-"); p && (!end || p < end);
		     p = strstr(p + 1, "\\-\\-")) {
			const char *after = p + 4 + k;

			if (strncmp(p + 4, esc, k) == 0 && !(*after >= 'a' && *after <= 'z') &&
			    strncmp(after, "\\-", 2) != 0)
				return 1;
		}
	}
	return 0;
}

static void test_man_has_every_help_option(void **state)
{
	static char names[NAMES_MAX][64];
	FILE *f = fopen(MAN_PAGE, "r");
	char *help = help_text(), *man;
	unsigned n = help_names(help, names);
	int bad = 0;

	(void)state;
	assert_non_null(f);
	man = slurp(f);
	fclose(f);
	if (n < 40) {
		print_error("--help lists %u options, expected them all\n", n);
		bad++;
	}
	for (unsigned i = 0; i < n; i++)
		if (!man_has(man, names[i])) {
			print_error("--%s: in --help, no entry in " MAN_PAGE "\n", names[i]);
			bad++;
		}
	free(man);
	free(help);
	assert_int_equal(bad, 0);
}

/* The check itself: an option the page lacks, or only mentions, is found. */
static void test_man_check_finds_a_gap(void **state)
{
	static const char man[] = ".SH OPTIONS\n.TP\n.BR \\-t \", \" \\-\\-threads \" \\fIN\\fP\"\n"
				   "Worker threads; see\n.BR \\-\\-verify\\-only .\n.TP\n"
				   ".B \\-\\-verify\nCheck.\n";

	(void)state;
	assert_true(man_has(man, "threads"));
	assert_true(man_has(man, "verify"));
	assert_false(man_has(man, "verify-only"));	/* in the text, not a tag */
	assert_false(man_has(man, "thread"));
	assert_false(man_has(man, "iodepth"));
}

/* Names and letters unique, help on each, values inside the struct they go to. */
static void test_table(void **state)
{
	struct opt_ref all[OPTIONS_MAX];
	unsigned n = options_all(all), engines = 0;
	int bad = 0;

	(void)state;
	for (unsigned i = 0; i < n; i++) {
		const struct opt *o = all[i].opt;

		for (unsigned j = 0; j < i; j++)
			if (!strcmp(o->name, all[j].opt->name) ||
			    (o->letter && o->letter == all[j].opt->letter)) {
				print_error("--%s and --%s: same name or letter\n", o->name,
					    all[j].opt->name);
				bad++;
			}
		if (!o->help || !*o->help || o->help[strlen(o->help) - 1] == '\n') {
			print_error("--%s: no help line\n", o->name);
			bad++;
		}
		if ((o->kind == OPT_WORD && (!o->words || !o->noun)) ||
		    (o->kind == OPT_CUSTOM && !o->set) || (o->kind == OPT_SIZE && o->max && !o->msg)) {
			print_error("--%s: its kind needs more (words, set, msg)\n", o->name);
			bad++;
		}
		if (all[i].engine) {
			engines++;
			/* check.c reads a value's first word to see that it was given. */
			if (o->off + sizeof(unsigned) > sizeof(struct engine_opts)) {
				print_error("--%s: an engine's value outside struct engine_opts\n",
					    o->name);
				bad++;
			}
		}
	}
	/* uid, gid, connections-per-session, wire-source, sec, keytab, principal, max-load,
	 * batch-wait, direct */
	if (engines != 10) {
		print_error("%u engine options, want 10\n", engines);
		bad++;
	}
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_man_has_every_help_option),
		cmocka_unit_test(test_man_check_finds_a_gap),
		cmocka_unit_test(test_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
