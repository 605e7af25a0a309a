/*
 * check: the defaults of struct config, and the checks across options made
 * once every option and the URL are known (ending with the engine's own).
 */
#ifndef NFSLOAD_CHECK_H
#define NFSLOAD_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"

/* Options whose defaults depend on others: were they given? */
struct check_given {
	bool threads, arrival, on_error, replay_speed;
	const char *shape;	/* the first of -c, -q, --bs, --rw, --size, --nrfiles given */
};

/* Every option's default (no URL, no server). */
void config_defaults(struct config *cfg);
/* 0, or -EINVAL with one line in err. Also settles what depends on several
 * options (threads for the connections, the one-pass io_size, ...). */
int config_check(struct config *cfg, const struct check_given *given, char *err, size_t len);

/*
 * Whether the run's engine and NFS version (the URL's; version=4 on the
 * native engine: any 4.x, negotiated) have every op of used[]: 0, or -EINVAL
 * with one line in err naming who asked (who: "--mix"), the op, what has it
 * and what the run lacks, e.g. "--mix: read_plus needs NFSv4.2 (version=4.2
 * or version=4 in the URL) and the native engine, not version=3".
 */
int config_check_ops(const struct config *cfg, const bool used[OP_NTYPES], const char *who,
		     char *err, size_t len);

#endif
