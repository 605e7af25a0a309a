/*
 * merge_servers: the per-server part of --merge (and of an MPI run's merge):
 * each report's "servers" added by URL (src/merge_servers.c).
 */
#ifndef NFSLOAD_MERGE_SERVERS_H
#define NFSLOAD_MERGE_SERVERS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "stats.h"

struct merge_servers;

struct merge_servers *merge_servers_new(void);
void merge_servers_free(struct merge_servers *m);
/*
 * One report's "servers" array (absent: nothing) and its settings'
 * shared_namespace, each entry's "stats" (with buckets) read as an
 * operation's (merge_read.h). 0, -EINVAL (not such an array) or -ENOMEM.
 */
int merge_servers_add(struct merge_servers *m, json_t *servers, bool shared_ns);
/* Outliers flagged (the run's rule); then the text table and JSON "servers" over
 * a measured time of ns, as a run reports them. Nothing without servers. */
void merge_servers_end(struct merge_servers *m);
/* Whether every input with servers had one namespace (--shared-namespace). */
bool merge_servers_shared(const struct merge_servers *m);
void merge_servers_text(FILE *out, const struct merge_servers *m, uint64_t ns);
void merge_servers_json(FILE *out, const struct merge_servers *m, uint64_t ns);

#endif
