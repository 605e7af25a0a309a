/*
 * url: a run's one positional argument, split and checked: an nfs:// URL, or
 * a local engine's directory. Pure parsers: they call nothing above them.
 */
#ifndef NFSLOAD_URL_H
#define NFSLOAD_URL_H

#include <stddef.h>

#include "config.h"

/* Validates and splits an nfs:// URL into cfg. 0 or -EINVAL with one line in err. */
int config_parse_url(struct config *cfg, const char *url, char *err, size_t errlen);
/* An engine on a local directory (engine_ops.takes_path): argv[0..argc) holds its path
 * (cfg->path; also cfg->url and canon_url, for reports and jobs). 0 or -EINVAL. */
int config_parse_path(struct config *cfg, int argc, char **argv, char *err, size_t len);

#endif
