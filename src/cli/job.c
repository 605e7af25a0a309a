/*
 * job: a job file and/or --sweep plus the command line -> one argv per run
 * (format and precedence in job.h). libinih splits the lines; our reader
 * counts them and sees the section headers (so even an empty section has a
 * line); the handler checks each key against the options' job-file keys
 * (optable.h).
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <ini.h>

#include "job.h"
#include "optable.h"
#include "options.h"

#define KEYS_MAX OPTIONS_MAX

/* The options' job-file keys (flags and letters as getopt reads them), then the
 * job's own keys. */
static struct key {
	const char *name;
	bool flag;
	char letter;
} keys[KEYS_MAX];
static int nkeys, nopts, k_url, k_sweep;

/* The keys, from the option tables the first time. */
static void keys_init(void)
{
	struct opt_ref all[OPTIONS_MAX];
	unsigned n;

	if (nkeys)
		return;
	n = options_all(all);
	for (unsigned i = 0; i < n && nkeys < KEYS_MAX - 2; i++) {
		const struct opt *o = all[i].opt;

		if (*opt_key(o))
			keys[nkeys++] = (struct key){ opt_key(o), !o->arg, o->letter };
	}
	nopts = nkeys;
	k_url = nkeys;
	keys[nkeys++] = (struct key){ "url", false, 0 };
	k_sweep = nkeys;
	keys[nkeys++] = (struct key){ "sweep", false, 0 };
}

enum { L_NONE, L_GLOBAL, L_PHASE, L_CLI };	/* where a setting comes from, weakest first */
enum { O_JOB = 1000, O_SWEEP, O_COMPARE };

struct sweep {
	unsigned n, line;	/* n == 0: none */
	int key;
	char *buf, *vals[JOB_SWEEP_MAX];
};

struct scope {			/* [global] or one phase */
	char name[64];
	unsigned line, at[KEYS_MAX];
	char *val[KEYS_MAX];
	struct sweep sw;
	const char *path;		/* --compare's kernel phase: --engine local on it */
};

struct ctx {
	char *err;
	size_t len;
	int rc;
	/* the command line: words passed through, positional words (the URL) */
	const char *job, *sweep, *compare;
	bool help, dashdash, has[KEYS_MAX];
	char **opts, **pos;
	int nopts, npos;
	struct sweep csw;
	/* the job file */
	const char *path;
	FILE *f;
	char *line;
	size_t cap;
	unsigned lineno, nphases;	/* lineno: 0 outside the file's lines */
	int read_errno;
	struct scope global, *phases, *cur;
};

/* The message, after "FILE:LINE: " while a line is being parsed. */
__attribute__((format(printf, 2, 3)))
static int fail(struct ctx *x, const char *fmt, ...)
{
	int n = x->lineno ? snprintf(x->err, x->len, "%s:%u: ", x->path, x->lineno) : 0;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(x->err + n, (size_t)n < x->len ? x->len - (size_t)n : 0, fmt, ap);
	va_end(ap);
	return x->rc = -EINVAL;
}

static char *trim(char *s)
{
	char *e = s + strlen(s);

	while (isspace((unsigned char)*s))
		s++;
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static int key_find(const char *name, size_t n)
{
	for (int k = 0; k < nkeys; k++)
		if (strlen(keys[k].name) == n && strncmp(keys[k].name, name, n) == 0)
			return k;
	return -1;
}

/* 1, 0, or -1 when s is not a flag value. */
static int flag_value(const char *s)
{
	if (!strcasecmp(s, "1") || !strcasecmp(s, "true") || !strcasecmp(s, "yes"))
		return 1;
	return !strcasecmp(s, "0") || !strcasecmp(s, "false") || !strcasecmp(s, "no") ? 0 : -1;
}

/* "KEY=V1,V2,..." into sw; where: "--sweep" or "sweep" (a file line). */
static int sweep_parse(struct ctx *x, const char *s, struct sweep *sw, const char *where)
{
	char *eq, *v, *comma;

	sw->line = x->lineno;	/* 0: the command line */
	if (!(sw->buf = strdup(s)))
		return x->rc = -ENOMEM;
	if (!(eq = strchr(sw->buf, '=')))
		return fail(x, "%s: '%s' is not KEY=V1,V2,... (e.g. iodepth=1,4,16)", where, s);
	*eq = '\0';
	v = trim(sw->buf);
	if ((sw->key = key_find(v, strlen(v))) < 0 || sw->key >= nopts)
		return fail(x, "%s: '%s' is not an option to sweep (a long option name, e.g. bs, "
			    "rw, iodepth)", where, v);
	for (v = eq + 1; v; v = comma ? comma + 1 : NULL) {
		if ((comma = strchr(v, ',')))
			*comma = '\0';
		v = trim(v);
		if (!*v)
			return fail(x, "%s: an empty value in '%s'", where, s);
		if (strlen(v) >= sizeof(((struct job_run *)0)->sweep_value))
			return fail(x, "%s: '%s' is longer than 63 characters", where, v);
		if (keys[sw->key].flag && flag_value(v) < 0)
			return fail(x, "%s: '%s' is not 1, 0, true, false, yes or no", where, v);
		for (unsigned i = 0; i < sw->n; i++)
			if (strcmp(sw->vals[i], v) == 0)
				return fail(x, "%s: '%s' twice", where, v);
		if (sw->n == JOB_SWEEP_MAX)
			return fail(x, "%s: more than %d values", where, JOB_SWEEP_MAX);
		sw->vals[sw->n++] = v;
	}
	return 0;
}

/* A section header, seen by the reader before libinih parses its line. */
static int on_section(struct ctx *x, char *name)
{
	struct scope *ph;
	size_t n;

	if (strcmp(name = trim(name), "global") == 0) {
		x->cur = &x->global;
		return 0;
	}
	if (strncmp(name, "phase", 5) || !isspace((unsigned char)name[5]))
		return fail(x, "unknown section '[%s]' (use [global] or [phase NAME])", name);
	name = trim(name + 5);
	n = strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-");
	if (name[n] || n >= sizeof(ph->name))
		return fail(x, "phase name '%s': letters, digits, '.', '_', '-', at most 63", name);
	for (unsigned i = 0; i < x->nphases; i++)
		if (strcmp(x->phases[i].name, name) == 0)
			return fail(x, "phase '%s' is already on line %u", name, x->phases[i].line);
	if (!(ph = realloc(x->phases, (x->nphases + 1) * sizeof(*ph))))
		return x->rc = -ENOMEM;
	x->phases = ph;
	x->cur = ph = memset(&ph[x->nphases++], 0, sizeof(*ph));
	memcpy(ph->name, name, n + 1);
	ph->line = x->lineno;
	return 0;
}

/* libinih's fgets: one line per call, so x->lineno is the line it parses. */
static char *reader(char *str, int num, void *user)
{
	struct ctx *x = user;
	ssize_t n = getline(&x->line, &x->cap, x->f);
	char *s = x->line, *end;

	if (n < 0 || x->rc) {
		x->read_errno = n < 0 && ferror(x->f) ? errno : 0;
		return NULL;
	}
	x->lineno++;
	if (n >= num) {
		fail(x, "line longer than %d characters", num - 2);
		return NULL;
	}
	memcpy(str, x->line, (size_t)n + 1);
	if (x->lineno == 1 && strncmp(s, "\xEF\xBB\xBF", 3) == 0)
		s += 3;
	while (isspace((unsigned char)*s))
		s++;
	if (*s == '[') {	/* libinih's rule: up to ']', unless a " ;" comment is first */
		for (end = s + 1; *end && *end != ']'; end++)
			if (*end == ';' && isspace((unsigned char)end[-1]))
				break;
		if (*end == ']') {
			*end = '\0';
			on_section(x, s + 1);
		}
	}
	return x->rc ? NULL : str;
}

static int on_key(void *user, const char *section, const char *name, const char *value)
{
	struct ctx *x = user;
	struct scope *s = x->cur;
	int k = key_find(name, strlen(name));

	(void)section;	/* x->cur: the reader's, which also knows empty sections */
	if (!s)
		fail(x, "'%s' is outside a section (put it under [global] or [phase NAME])", name);
	else if (k < 0)
		fail(x, "unknown key '%s' (a long option name, e.g. bs, rw, iodepth, or url, sweep)",
		     name);
	else if (!*value)
		fail(x, "%s: needs a value", name);
	else if (s->val[k] || (s->sw.n && s->sw.key == k))
		fail(x, "%s: already set on line %u", name, s->val[k] ? s->at[k] : s->sw.line);
	else if (keys[k].flag && flag_value(value) < 0)
		fail(x, "%s: '%s' is not 1, 0, true, false, yes or no", name, value);
	else if (k == k_sweep && !sweep_parse(x, value, &s->sw, "sweep") && s->val[s->sw.key])
		fail(x, "sweep: %s is already set on line %u", keys[s->sw.key].name,
		     s->at[s->sw.key]);
	if (!x->rc && !(s->val[k] = strdup(value)))
		x->rc = -ENOMEM;
	else if (!x->rc)
		s->at[k] = x->lineno;
	return !x->rc;
}

static int parse_file(struct ctx *x)
{
	bool multiline = ini_allow_multiline, stop = ini_stop_on_first_error;
	int max_line = ini_max_line, rc;

	if (!(x->f = fopen(x->path, "r")))
		return fail(x, "--job: cannot open '%s': %s", x->path, strerror(errno));
	ini_allow_multiline = false;	/* an indented line is a line, not a continuation */
	ini_stop_on_first_error = true;
	ini_max_line = JOB_LINE_MAX;
	rc = ini_parse_stream(reader, x, on_key, x);
	ini_allow_multiline = multiline;
	ini_stop_on_first_error = stop;
	ini_max_line = max_line;
	fclose(x->f);
	if (x->rc || rc == -2)
		return x->rc ? x->rc : (x->rc = -ENOMEM);
	if ((x->lineno = rc > 0 ? (unsigned)rc : 0))	/* 0: no "FILE:LINE: " below */
		return fail(x, "neither [section] nor key = value");
	if (x->read_errno)
		return fail(x, "--job: cannot read '%s': %s", x->path, strerror(x->read_errno));
	return x->nphases ? 0 : fail(x, "%s: no [phase NAME] section (a job needs one)", x->path);
}

/* Finds --job and --sweep with getopt_long, in order, as config_parse reads argv. */
static int cli_scan(struct ctx *x, int argc, char **argv)
{
	struct option lo[KEYS_MAX + 6] = { { "job", required_argument, NULL, O_JOB },
		{ "sweep", required_argument, NULL, O_SWEEP }, { "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' }, { "compare", required_argument, NULL, O_COMPARE } };
	char **words = calloc((size_t)argc + 1, sizeof(*words));
	char shorts[2 * KEYS_MAX + 8] = "-:hV";	/* the options' letters, as config_parse's */
	size_t ns = strlen(shorts);
	int at = 1, ch;

	x->opts = calloc((size_t)argc + 1, sizeof(*x->opts));
	x->pos = calloc((size_t)argc + 1, sizeof(*x->pos));
	if (!words || !x->opts || !x->pos) {
		free(words);
		return x->rc = -ENOMEM;
	}
	for (int k = 0; k < nopts; k++) {
		lo[5 + k] = (struct option){ keys[k].name, keys[k].flag ? no_argument :
					     required_argument, NULL, 256 + k };
		if (keys[k].letter) {
			shorts[ns++] = keys[k].letter;
			if (!keys[k].flag)
				shorts[ns++] = ':';
		}
	}
	shorts[ns] = '\0';
	memcpy(words, argv, (size_t)argc * sizeof(*words));
	config_expand_abbrev(argc, words);	/* "--conn 4" as config_parse reads it */
	opterr = 0;
	optind = 0;	/* a fresh scan, as in config_parse */
	while (x->rc == 0 && (ch = getopt_long(argc, words, shorts, lo, NULL)) != -1) {
		const char **slot = ch == O_JOB ? &x->job : ch == O_SWEEP ? &x->sweep :
				    ch == O_COMPARE ? &x->compare : NULL;
		int which = ch == ':' ? optopt : ch;
		const char *what = which == O_JOB ? "job" : which == O_SWEEP ? "sweep" : "compare";

		if (ch == ':' && (optopt == O_JOB || optopt == O_SWEEP || optopt == O_COMPARE))
			fail(x, "--%s: needs a value", what);
		else if (slot && *slot)
			fail(x, "--%s: given twice", what);
		else if (slot)
			*slot = optarg;
		else if (ch == 1)
			x->pos[x->npos++] = optarg;
		else {
			x->help |= ch == 'h' || ch == 'V';
			for (int k = 0; k < nopts; k++)
				x->has[k] |= ch == 256 + k || (ch && ch == keys[k].letter);
			for (int i = at; i < optind; i++)	/* a word once its last letter is read */
				x->opts[x->nopts++] = words[i];
		}
		at = optind;
	}
	if (!x->rc && at < argc && strcmp(words[at], "--") == 0)
		x->dashdash = true, at++;
	while (!x->rc && at < argc)	/* after "--" */
		x->pos[x->npos++] = words[at++];
	free(words);
	return x->rc;
}

bool job_wanted(int argc, char **argv)
{
	char err[8];
	struct ctx x = { .err = err, .len = sizeof(err) };
	bool wanted;

	keys_init();
	wanted = cli_scan(&x, argc, argv) || x.job || x.sweep || x.compare;
	free(x.opts);
	free(x.pos);
	return wanted;
}

/* Appends s as it is (k < 0), or "--key=s", "--flag" or nothing (flag = 0). */
static int push(struct job_run *r, int k, const char *s)
{
	bool flag = k >= 0 && keys[k].flag;
	char *a = k < 0 ? strdup(s) : NULL;

	if (flag && !flag_value(s))
		return 0;
	if (k >= 0 && asprintf(&a, "--%s%s%s", keys[k].name, flag ? "" : "=", flag ? "" : s) < 0)
		a = NULL;
	if (!a)
		return -ENOMEM;
	r->argv[r->argc++] = a;
	return 0;
}

/* Appends phase p's runs: one, or one per point of the sweep that wins. */
static int add_phase(struct job *job, const struct ctx *x, const struct scope *p)
{
	const struct scope *g = &x->global, *from[] = { NULL, g, p };
	const struct sweep *sw = x->csw.n ? &x->csw : p->sw.n ? &p->sw : g->sw.n ? &g->sw : NULL;
	int lvl[KEYS_MAX], swl = sw == &x->csw ? L_CLI : sw == &p->sw ? L_PHASE : L_GLOBAL, rc = 0;
	unsigned npoints;
	struct job_run *runs;

	for (int k = 0; k < nkeys; k++)
		lvl[k] = (k < nopts ? x->has[k] : k == k_url && x->npos) ? L_CLI :
			 p->val[k] ? L_PHASE : g->val[k] ? L_GLOBAL : L_NONE;
	if (sw && lvl[sw->key] > swl)	/* set above the sweep's level: not swept */
		sw = NULL;
	else if (sw)
		lvl[sw->key] = L_NONE;
	npoints = sw ? sw->n : 1;
	if (!(runs = realloc(job->runs, (job->nruns + npoints) * sizeof(*runs))))
		return -ENOMEM;
	job->runs = runs;
	memset(&runs[job->nruns], 0, npoints * sizeof(*runs));
	for (unsigned i = 0; i < npoints && rc == 0; i++) {
		struct job_run *r = &job->runs[job->nruns++];
		const struct scope *u = lvl[k_url] == L_PHASE ? p : lvl[k_url] == L_GLOBAL ? g : NULL;

		r->argv = calloc((size_t)(nopts + x->nopts + x->npos + 5), sizeof(*r->argv));
		if (!(r->lines = calloc(nkeys, sizeof(*r->lines))) || !r->argv)
			return -ENOMEM;
		snprintf(r->phase, sizeof(r->phase), "%s", p->name);
		snprintf(r->name, sizeof(r->name), "%s", p->name);
		if (sw) {
			snprintf(r->sweep_key, sizeof(r->sweep_key), "%s", keys[sw->key].name);
			snprintf(r->sweep_value, sizeof(r->sweep_value), "%s", sw->vals[i]);
			snprintf(r->name, sizeof(r->name), "%s %s=%s", p->name, r->sweep_key,
				 r->sweep_value);
		}
		rc = push(r, -1, "nfsload");
		for (int l = L_GLOBAL; l <= L_PHASE; l++)
			for (int k = 0; k < nopts && rc == 0; k++)
				if (lvl[k] == l && !(rc = push(r, k, from[l]->val[k])))
					r->lines[k] = from[l]->at[k];
		if (sw && rc == 0 && !(rc = push(r, sw->key, sw->vals[i])))
			r->lines[sw->key] = sw->line;
		for (int j = 0; j < x->nopts && rc == 0; j++)
			rc = push(r, -1, x->opts[j]);
		if (p->path) {	/* --compare: the kernel's turn, whatever engine the rest has */
			rc = rc ? rc : push(r, -1, "--engine=local");
			rc = rc ? rc : push(r, -1, "--");
			rc = rc ? rc : push(r, -1, p->path);
			continue;
		}
		if (rc == 0 && ((x->npos && x->dashdash) || (u && u->val[k_url][0] == '-')))
			rc = push(r, -1, "--");
		for (int j = 0; j < x->npos && rc == 0; j++)
			rc = push(r, -1, x->pos[j]);
		if (u && rc == 0 && !(rc = push(r, -1, u->val[k_url])))
			r->lines[k_url] = u->at[k_url];
	}
	return rc;
}

static void scope_free(struct scope *s)
{
	for (int k = 0; k < nkeys; k++)
		free(s->val[k]);
	free(s->sw.buf);
}

int job_load(int argc, char **argv, struct job *job, char *err, size_t len)
{
	struct scope run[2] = { { .name = "run" } };
	struct ctx x = { .err = err, .len = len, .path = job->path, .phases = run, .nphases = 1 };

	keys_init();
	memset(job, 0, sizeof(*job));
	if (!cli_scan(&x, argc, argv) && !x.help && x.sweep &&
	    !sweep_parse(&x, x.sweep, &x.csw, "--sweep") && x.has[x.csw.key])
		fail(&x, "--sweep: --%s is also given (one or the other)", keys[x.csw.key].name);
	if (!x.rc && !x.help && x.compare) {
		/* Two implicit phases: the kernel's client on the mount, then the command line. */
		if (x.job || x.sweep)
			fail(&x, "--compare: not with --%s (a job file's phases can set engine and "
			     "url each)", x.job ? "job" : "sweep");
		else if (!x.npos)
			fail(&x, "--compare %s: also give the URL the mount is of (nfsload --compare "
			     "/mnt/nfs [options] nfs://server/export)", x.compare);
		snprintf(run[0].name, sizeof(run[0].name), "kernel");
		run[0].path = x.compare;
		snprintf(run[1].name, sizeof(run[1].name), "nfsload");
		x.nphases = 2;
	}
	if (!x.rc && !x.help && x.job) {
		x.phases = NULL;
		x.nphases = 0;
		if (strlen(x.job) >= sizeof(job->path))
			fail(&x, "--job: the file name is too long");
		else {
			strcpy(job->path, x.job);
			parse_file(&x);
		}
	}
	for (unsigned i = 0; i < x.nphases && !x.rc; i++)
		x.rc = add_phase(job, &x, &x.phases[i]);
	for (unsigned i = 0; i < x.nphases; i++)
		scope_free(&x.phases[i]);
	if (x.phases != run)
		free(x.phases);
	scope_free(&x.global);
	free(x.line);
	free(x.csw.buf);
	free(x.opts);
	free(x.pos);
	if (x.rc == -ENOMEM)
		snprintf(err, len, "out of memory");
	if (x.rc)
		job_free(job);
	return x.rc;
}

void job_locate_error(const struct job *job, unsigned run, char *err, size_t len)
{
	size_t n = strcspn(err, ":");
	char *copy;
	int k;

	keys_init();
	k = strncmp(err, "URL:", 4) == 0 ? k_url :
	    strncmp(err, "--", 2) == 0 && err[n] ? key_find(err + 2, n - 2) : -1;

	if (run >= job->nruns || !job->path[0] || k < 0 || !job->runs[run].lines[k] ||
	    !(copy = strdup(err)))
		return;
	snprintf(err, len, "%s:%u: %s", job->path, job->runs[run].lines[k], copy);
	free(copy);
}

void job_free(struct job *job)
{
	for (unsigned i = 0; i < job->nruns; i++) {
		for (int j = 0; j < job->runs[i].argc; j++)
			free(job->runs[i].argv[j]);
		free(job->runs[i].argv);
		free(job->runs[i].lines);
	}
	free(job->runs);
	memset(job, 0, sizeof(*job));
}
