/*
 * usage: the --help text, made from the option tables (optable.h).
 */
#ifndef NFSLOAD_USAGE_H
#define NFSLOAD_USAGE_H

#include <stdio.h>

/* Prints it to out. */
void config_usage(FILE *out);

#endif
