/*
 * options: argv -> struct config through the option tables (optable.h):
 * getopt_long's table is made from them, each value parsed by its kind, then
 * the URL or directory (url.c, servers.c) and the checks across options
 * (check.c). Messages name the option, the value and what would be accepted.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "config.h"
#include "engine.h"
#include "optable.h"
#include "options.h"
#include "servers.h"
#include "units.h"
#include "url.h"
#include "usage.h"
#include "version.h"

static int parse_count(const char *name, const struct opt *o, const char *s, unsigned *out,
		       char *err, size_t len)
{
	uint64_t v;
	int rc = units_parse_uint(s, o->min, o->max, &v);

	if (rc && o->msg)
		return config_fail(err, len, "%s: '%s' %s", name, s, o->msg);
	if (rc == -EINVAL)
		return config_fail(err, len, "%s: '%s' is not a whole number (try %llu to %llu)", name,
				   s, (unsigned long long)o->min, (unsigned long long)o->max);
	if (rc)
		return config_fail(err, len, "%s: %s is out of range (%llu to %llu)", name, s,
				   (unsigned long long)o->min, (unsigned long long)o->max);
	*out = (unsigned)v;
	return 0;
}

static int parse_size(const char *name, const struct opt *o, const char *s, uint64_t *out,
		      char *err, size_t len)
{
	if (units_parse_size(s, out))
		return config_fail(err, len, "%s: '%s' is not a size (try 4k, 64k, 1m, 2g)", name, s);
	if (*out == 0)
		return config_fail(err, len, "%s: must be greater than 0", name);
	if (o->max && *out > o->max)
		return config_fail(err, len, "%s: '%s' is larger than %s", name, s, o->msg);
	return 0;
}

static int parse_time(const char *name, const struct opt *o, const char *s, uint64_t *out,
		      char *err, size_t len)
{
	if (units_parse_duration(s, out))
		return config_fail(err, len, "%s: '%s' is not a duration (try 500ms, 30s, 5m, 1h)",
				   name, s);
	if (*out < o->min || (o->max && *out > o->max))
		return config_fail(err, len, "%s: %s", name, o->msg);
	return 0;
}

/* arg as one of o->words: its index, or "OPT: 'arg' is not NOUN (w1, w2, ...)". */
static int parse_word(const char *name, const struct opt *o, const char *arg, int *out,
		      char *err, size_t len)
{
	char list[128] = "";
	size_t n = 0;

	for (int i = 0; o->words[i]; i++) {
		if (strcmp(arg, o->words[i]) == 0) {
			*out = i;
			return 0;
		}
		n += (size_t)snprintf(list + n, n < sizeof(list) ? sizeof(list) - n : 0, "%s%s",
				      i ? ", " : "", o->words[i]);
	}
	return config_fail(err, len, "%s: '%s' is not %s (%s)", name, arg, o->noun, list);
}

/* The option's value from arg into base (the struct its off is into). */
static int opt_set(const struct opt *o, void *base, const char *arg, char *err, size_t len)
{
	unsigned char *dst = (unsigned char *)base + o->off;
	char name[64];
	uint64_t v;

	snprintf(name, sizeof(name), "--%s", o->name);
	switch (o->kind) {
	case OPT_FLAG:
		if (o->set_int)
			*(int *)dst = o->set_to;
		else
			*(bool *)dst = true;
		return 0;
	case OPT_COUNT:
		return parse_count(name, o, arg, (unsigned *)dst, err, len);
	case OPT_ID:
		if (units_parse_uint(arg, 0, UINT32_MAX - 1, &v))
			return config_fail(err, len, "%s: '%s' is not an id (0 to %u)", name, arg,
					   UINT32_MAX - 1);
		*(unsigned *)dst = (unsigned)v;
		return 0;
	case OPT_SIZE:
		return parse_size(name, o, arg, (uint64_t *)dst, err, len);
	case OPT_TIME:
		return parse_time(name, o, arg, (uint64_t *)dst, err, len);
	case OPT_WORD:
		return parse_word(name, o, arg, (int *)dst, err, len);
	case OPT_FILE:
		if (*arg == '\0' || strlen(arg) >= OPT_FILE_MAX)
			return config_fail(err, len, "%s: needs a file name", name);
		memcpy(dst, arg, strlen(arg) + 1);
		return 0;
	case OPT_CUSTOM:
		return o->set(base, o, arg, err, len);
	default:
		return 0;
	}
}

/*
 * The option getopt did not know: glibc sets optopt to the letter of an
 * unknown short option (argv[optind - 1] may still be the previous word when
 * the letter sits inside "-xyz") and to 0 for an unknown long one.
 */
static const char *unknown_opt(char **argv, char *buf)
{
	if (optopt > 0 && optopt < 128) {
		buf[0] = '-';
		buf[1] = (char)optopt;
		buf[2] = '\0';
		return buf;
	}
	return argv[optind - 1];
}

/*
 * "--conn" has meant --connections since the start; --connections-per-session
 * would make it ambiguous to getopt_long. An abbreviation of "--connections"
 * (without "=") still means it.
 */
void config_expand_abbrev(int argc, char **argv)
{
	static char full[] = "--connections";

	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		size_t n = strlen(argv[i]);

		if (n >= 6 && n < sizeof(full) - 1 && strncmp(argv[i], full, n) == 0)
			argv[i] = full;
	}
}

/* getopt_long's tables from the options: val = the letter, or 256 + index. */
static void getopt_tables(const struct opt_ref *all, unsigned n, struct option *lo, char *shorts)
{
	unsigned k = 0;
	size_t s = 0;

	shorts[s++] = ':';
	for (unsigned i = 0; i < n; i++) {
		const struct opt *o = all[i].opt;
		int has_arg = o->arg ? required_argument : no_argument;

		if (o->kind == OPT_ELSEWHERE)
			continue;
		lo[k++] = (struct option){ o->name, has_arg, NULL, o->letter ? o->letter :
					   256 + (int)i };
		if (o->letter) {
			shorts[s++] = o->letter;
			if (has_arg == required_argument)
				shorts[s++] = ':';
		}
	}
	lo[k] = (struct option){ NULL, 0, NULL, 0 };
	shorts[s] = '\0';
}

static int find(const struct opt_ref *all, unsigned n, int c)
{
	for (unsigned i = 0; i < n; i++)
		if (c == 256 + (int)i || (c > 0 && c == all[i].opt->letter))
			return (int)i;
	return -1;
}

static int by_name(const struct opt_ref *all, unsigned n, const char *name)
{
	for (unsigned i = 0; i < n; i++)
		if (strcmp(all[i].opt->name, name) == 0)
			return (int)i;
	return -1;
}

static int print_version(void)
{
	printf("nfsload %s (built for the %s)\n", NFSLOAD_VERSION, engine_default()->about);
	printf("engines: %s\n", engine_names());
	return CFG_EXIT_OK;
}

/* After the options: the URL(s) or directory, then every check across options. */
static int parse_target(struct config *cfg, const struct check_given *given, int argc,
			char **argv, char *err, size_t len)
{
	const struct engine_ops *e = cfg->engine;
	int rc = 0;

	if (e->takes_path && (rc = config_parse_path(cfg, argc, argv, err, len)))
		return rc;
	if (!e->needs_url && !e->takes_path && argc > 0)
		return config_fail(err, len, "--engine %s: talks to no server, no URL wanted (got "
				   "'%s')", e->name, argv[0]);
	if (!e->needs_url && cfg->servers_file[0])
		return config_fail(err, len, "--servers: --engine %s talks to no NFS server", e->name);
	if (e->takes_path && argc > 1)
		return config_fail(err, len, "one path expected, also got '%s'", argv[1]);
	if (e->needs_url)
		rc = config_add_servers(cfg, argc, argv, cfg->servers_file, err, len);
	if (rc == 0 && !given->on_error)
		cfg->on_error = cfg->runtime_ns ? CFG_ON_ERROR_CONTINUE : CFG_ON_ERROR_STOP;
	if (rc == 0)
		rc = config_check(cfg, given, err, len);
	return rc ? rc : config_servers_validate(cfg, err, len);
}

static int parse_args(struct config *cfg, int argc, char **argv, char *err, size_t len)
{
	struct opt_ref all[OPTIONS_MAX];
	struct option lo[OPTIONS_MAX + 1];
	char shorts[2 * OPTIONS_MAX + 2], unknown[3];
	struct check_given given = { false };
	unsigned n = options_all(all);
	int c, rc = 0;

	getopt_tables(all, n, lo, shorts);
	config_defaults(cfg);
	config_expand_abbrev(argc, argv);
	opterr = 0;
	optind = 0;	/* 0, not 1: glibc then also drops state left by an earlier parse */
	while (rc == 0 && (c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		int i = find(all, n, c);
		const struct opt *o = i >= 0 ? all[i].opt : NULL;

		if (c == ':')
			return config_fail(err, len, "%s: needs a value (see nfsload --help)",
					   argv[optind - 1]);
		if (!o)
			return config_fail(err, len, "unknown or ambiguous option '%s' (see nfsload "
					   "--help)", unknown_opt(argv, unknown));
		if (o->kind == OPT_HELP) {
			config_usage(stdout);
			return CFG_EXIT_OK;
		}
		if (o->kind == OPT_VERSION)
			return print_version();
		rc = opt_set(o, options_base(&all[i], cfg), optarg, err, len);
		if (rc == 0 && o->implies && (i = by_name(all, n, o->implies)) >= 0)
			rc = opt_set(all[i].opt, options_base(&all[i], cfg), NULL, err, len);
		given.threads |= strcmp(o->name, "threads") == 0;
		given.arrival |= strcmp(o->name, "arrival") == 0;
		given.on_error |= strcmp(o->name, "on-error") == 0;
		given.replay_speed |= strcmp(o->name, "replay-speed") == 0;
		if (!given.shape && (!strcmp(o->name, "connections") || !strcmp(o->name, "iodepth") ||
				     !strcmp(o->name, "bs") || !strcmp(o->name, "rw") ||
				     !strcmp(o->name, "size") || !strcmp(o->name, "nrfiles")))
			given.shape = o->name;
	}
	return rc ? rc : parse_target(cfg, &given, argc - optind, argv + optind, err, len);
}

int config_parse(struct config *cfg, int argc, char **argv, char *err, size_t len)
{
	/* Our own copy of the words' pointers: getopt_long permutes them, and
	 * config_expand_abbrev points one at a string of ours, which the caller
	 * (a job, whose words are its own) must never see or free. */
	char **words = calloc((size_t)argc + 1, sizeof(*words));
	int rc;

	if (!words)
		return config_fail(err, len, "out of memory");
	memcpy(words, argv, (size_t)argc * sizeof(*words));
	rc = parse_args(cfg, argc, words, err, len);
	free(words);
	return rc;
}
