/*
 * local: the local engine's private contract between its files.
 *
 *   local.c       the engine table: limits, connections (a connection is a
 *                 set of open files), requests, timeouts
 *   local_ring.c  one io_uring per loop (the only file that includes
 *                 liburing): registered read buffers, request records,
 *                 one submit per loop turn, completions from an eventfd
 *   local_ctl.c   the directory: checks made before anything is written
 *                 (--direct included) and the control table over syscalls
 *
 * Threads: a local_ring belongs to one loop (engine_thread) and is used from
 * the thread that runs it; local_ring_free runs after that thread is gone.
 */
#ifndef NFSLOAD_LOCAL_H
#define NFSLOAD_LOCAL_H

#include <ev.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"

struct local_ring;

struct engine_thread {
	const struct engine_params *cfg;
	struct ev_loop *loop;
	struct local_ring *ring;	/* made at the first request, on the loop's thread */
	ev_idle ready_w;		/* connect(): ready() on the next turn */
	struct engine_conn *readying;
};

struct engine_conn {
	const struct engine_params *cfg;
	unsigned id;
	uint32_t nfiles;
	uint32_t *file_ids;
	int *fds;			/* -1: closed */
	struct engine_thread *t;
	const struct engine_cbs *cbs;
	void *owner;
	bool up;
	bool ok;			/* connect(): the files opened */
	uint64_t open_ns;		/* connect(): how long the opens took */
	unsigned inflight;		/* queued, no done() yet */
	struct engine_conn *next_ready;
	char error[512];
};

/* A ring for t's loop, or -errno with the reason in why. */
int local_ring_new(struct engine_thread *t, struct local_ring **out, char *why, size_t len);
/* Cancels what is in flight, waits a while for it, frees. NULL: no-op. */
void local_ring_free(struct local_ring *r);
/* Prepares req on fd (not sent until the loop turn ends). 0 or -errno. */
int local_ring_queue(struct local_ring *r, struct engine_conn *c, int fd,
		     struct engine_req *req);
/* Sends what was queued when this loop turn ends (one submit per turn). */
void local_ring_commit(struct local_ring *r);
/* Sends what is queued now: before files it names are closed. */
void local_ring_flush(struct local_ring *r);
/* c's requests in flight end silently: no done() for them, ever. */
void local_ring_forget(struct local_ring *r, const struct engine_conn *c);
/* c's requests in flight for longer than age_ns end now as -ETIMEDOUT. */
void local_ring_expire(struct local_ring *r, struct engine_conn *c, uint64_t age_ns);
/* Reads this process could not give a registered buffer ("" when none): for the report. */
const char *local_ring_note(void);

/* --direct and the directory, before anything is written: 0 or -EINVAL with one line. */
int local_check_dir(const struct engine_params *cfg, char *err, size_t len);
/* Opens the directory (O_PATH): an fd, or -errno with one line in err. */
int local_dir_open(const struct engine_params *cfg, char *err, size_t len);
/* "/dir/file" below the directory, as openat() takes it. */
const char *local_rel(const char *path);

extern const struct engine_ctl_ops local_ctl_ops;

#endif
