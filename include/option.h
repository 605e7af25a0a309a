/*
 * option: how an option is declared, once: its names, its value's kind and
 * bounds, its --help line, its job-file key and where its value goes. The
 * command line's own table is src/cli/options.c's; each engine declares its
 * own options the same way (engine_ops.options). From these tables come
 * getopt_long's options, the --help text and the job-file keys.
 *
 * Messages for a bad value name the option, the value and what is accepted
 * ("--bs: '4q' is not a size (try 4k, 64k, 1m, 2g)").
 */
#ifndef NFSLOAD_OPTION_H
#define NFSLOAD_OPTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum opt_kind {
	OPT_FLAG,	/* no value: sets the bool at off (or the int at off to set_to) */
	OPT_COUNT,	/* unsigned, min..max (min 0 or 1) */
	OPT_ID,		/* unsigned user or group id, 0 to 2^32 - 2 */
	OPT_SIZE,	/* uint64_t bytes, > 0 and <= max when max is set */
	OPT_TIME,	/* uint64_t ns; min..max when max is set */
	OPT_WORD,	/* int (an enum): the index of the value in words */
	OPT_FILE,	/* char[OPT_FILE_MAX]: a file name for an output */
	OPT_CUSTOM,	/* set() does it all */
	OPT_HELP,	/* -h, --help */
	OPT_VERSION,	/* -V, --version */
	OPT_ELSEWHERE,	/* read before config_parse (job.c, main.c): in --help only */
};

#define OPT_FILE_MAX 1024

struct opt {
	const char *name;	/* the long option, without "--" */
	char letter;		/* its short option, 0: none */
	enum opt_kind kind;
	const char *arg;	/* the value's name in --help ("N", "SIZE"), NULL: none */
	const char *help;	/* --help text; '\n' starts a continuation line */
	/* Where the value goes: an offset into the table's struct (struct config for
	 * the command line's, struct engine_opts for an engine's). */
	size_t off;
	uint64_t min, max;		/* COUNT: min..max; TIME: min; SIZE: max, 0 = any */
	const char *const *words;	/* WORD: NULL-terminated */
	const char *noun;		/* WORD: "a format", as in "'x' is not a format" */
	/* COUNT: the message's tail for any bad value ("is not a percentage (0 to 100)");
	 * TIME: for one under min; SIZE: how max is written ("16m"). */
	const char *msg;
	int set_to;			/* FLAG with set_int: the value written */
	bool set_int;			/* FLAG: writes set_to into an int (--live, --quiet) */
	const char *implies;		/* also sets this flag option (--wire-source: wire-time) */
	const char *key;		/* its job-file key: NULL = the long name, "" = none */
	/* OPT_CUSTOM: parses arg into base (the table's struct). 0 or -EINVAL with err. */
	int (*set)(void *base, const struct opt *o, const char *arg, char *err, size_t len);
	/*
	 * For an engine's option given with another engine: the message's tail
	 * ("--direct: only with --engine local (...)"), NULL: the chosen engine's
	 * check() decides. Checked where the option is non-zero.
	 */
	const char *foreign;
};

/* The option's job-file key ("" = none). */
static inline const char *opt_key(const struct opt *o)
{
	if (o->kind == OPT_HELP || o->kind == OPT_VERSION || o->kind == OPT_ELSEWHERE)
		return "";
	return o->key ? o->key : o->name;
}

#endif
