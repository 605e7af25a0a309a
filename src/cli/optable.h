/*
 * optable: every option nfsload knows, in --help's order: the command
 * line's own (optable.c) with each engine's (engine_ops.options) after
 * --engine. getopt's table (options.c), --help (usage.c) and the job-file
 * keys (job.c) are all made from this list.
 */
#ifndef NFSLOAD_OPTABLE_H
#define NFSLOAD_OPTABLE_H

#include <stdbool.h>

#include "config.h"
#include "option.h"

#define OPTIONS_MAX 96

struct opt_ref {
	const struct opt *opt;
	bool engine;		/* an engine's: off is into struct engine_opts */
};

/* Fills out[OPTIONS_MAX]; returns how many. An engine's option declared twice: once. */
unsigned options_all(struct opt_ref *out);
/* Where r's off points into: cfg itself or its engines' part. */
void *options_base(const struct opt_ref *r, struct config *cfg);

#endif
