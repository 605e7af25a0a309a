/*
 * servers: the run's servers from its URLs and --servers FILE, and how
 * connections spread over them (servers.c's top comment).
 */
#ifndef NFSLOAD_SERVERS_H
#define NFSLOAD_SERVERS_H

#include <stddef.h>

#include "config.h"

/* The URLs argv[0..argc) and those of file ("" or NULL: none) as the run's servers,
 * the first also into cfg's url, host and ports. 0 or -EINVAL with one line in err. */
int config_add_servers(struct config *cfg, int argc, char **argv, const char *file, char *err,
		       size_t len);
/* Once every option is known: weights, --shared-namespace, each server's connections. */
int config_servers_validate(struct config *cfg, char *err, size_t len);

#endif
