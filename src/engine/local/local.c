/*
 * The local engine: the same workloads on files in a local directory, most
 * usefully a kernel NFS mount, so that the kernel's client can be measured
 * with the same worker, workloads and reports as nfsload's own clients.
 *
 * A connection is a set of open files (its share of --nrfiles, opened
 * O_RDWR, plus O_SYNC for --sync and O_DIRECT for --direct); COMMIT is an
 * fsync. The I/O goes through one io_uring per loop (local_ring.c), the
 * directory and the work directory's control table through plain syscalls
 * (local_ctl.c). The metadata operations of --mix are refused: io_uring
 * has no READDIR, ACCESS or SETATTR to run them as requests.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "local.h"

static const char *const steps[] = { "open", NULL };

static int check(const struct engine_params *cfg, char *err, size_t len)
{
	if (cfg->meta || cfg->small_files)
		return config_fail(err, len, "%s: not with --engine local (io_uring has no READDIR, "
			    "ACCESS or SETATTR; run it with --engine native or libnfs on the URL)",
			    cfg->meta ? "--mix" : "--small-files");
	if (cfg->opt.max_load)
		return config_fail(err, len, "--max-load: the local engine has no sockets to wake");
	if (cfg->wire_time)
		return config_fail(err, len, "--wire-time: the local engine has no wire (use "
			    "--engine native on the URL)");
	if (cfg->opt.conns_per_session > 1)
		return config_fail(err, len, "--connections-per-session: NFSv4.1 sessions (native "
			    "engine), not --engine local");
	return local_check_dir(cfg, err, len);
}

static uint64_t no_limit(const struct engine_params *cfg)
{
	(void)cfg;
	return UINT64_MAX;
}

static int init(const struct engine_params *cfg, struct engine_inst **inst, char *note, size_t len)
{
	*inst = NULL;
	(void)cfg;
	(void)len;
	note[0] = '\0';
	return 0;
}

static const char *limits_note(struct engine_inst *inst, const struct engine_params *cfg)
{
	(void)inst;
	(void)cfg;
	return local_ring_note();
}

static void ready_cb(struct ev_loop *loop, ev_idle *w, int revents)
{
	struct engine_thread *t = w->data;
	struct engine_conn *c = t->readying;

	(void)revents;
	/* A ready() may connect again: that one waits for the next turn. */
	t->readying = NULL;
	while (c) {
		struct engine_conn *next = c->next_ready;

		c->up = c->ok;
		if (c->ok && c->cbs && c->cbs->step)
			c->cbs->step(c->owner, 0, c->open_ns);
		if (c->cbs)
			c->cbs->ready(c->owner, c, c->ok);
		c = next;
	}
	if (!t->readying)
		ev_idle_stop(loop, w);
}

static struct engine_thread *thread_new(struct engine_inst *inst, const struct engine_params *cfg,
				       struct ev_loop *loop)
{
	struct engine_thread *t = calloc(1, sizeof(*t));

	(void)inst;
	if (!t)
		return NULL;
	t->cfg = cfg;
	t->loop = loop;
	ev_idle_init(&t->ready_w, ready_cb);
	t->ready_w.data = t;
	return t;
}

static void thread_free(struct engine_thread *t)
{
	if (!t)
		return;
	ev_idle_stop(t->loop, &t->ready_w);
	local_ring_free(t->ring);
	free(t);
}

static int conn_new(struct engine_inst *inst, const struct engine_params *cfg, unsigned id,
		    const uint32_t *file_ids, uint32_t nfiles, struct engine_conn **out)
{
	struct engine_conn *c = calloc(1, sizeof(*c));

	(void)inst;
	*out = NULL;
	if (!c)
		return -ENOMEM;
	c->cfg = cfg;
	c->id = id;
	c->nfiles = nfiles;
	c->file_ids = calloc(nfiles + 1, sizeof(*c->file_ids));
	c->fds = calloc(nfiles + 1, sizeof(*c->fds));
	if (!c->file_ids || !c->fds) {
		free(c->file_ids);
		free(c->fds);
		free(c);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < nfiles; i++) {
		c->file_ids[i] = file_ids[i];
		c->fds[i] = -1;
	}
	*out = c;
	return 0;
}

static void close_files(struct engine_conn *c)
{
	/* Queued requests name these descriptors: they go to the kernel first. */
	if (c->t)
		local_ring_flush(c->t->ring);
	for (uint32_t i = 0; i < c->nfiles; i++) {
		if (c->fds[i] >= 0)
			close(c->fds[i]);
		c->fds[i] = -1;
	}
}

static int open_files(struct engine_conn *c)
{
	const struct engine_params *cfg = c->cfg;
	int flags = O_RDWR | O_NOFOLLOW | O_CLOEXEC | (cfg->sync ? O_SYNC : 0) |
		    (cfg->opt.direct ? O_DIRECT : 0);
	char path[320];
	int dirfd = local_dir_open(cfg, c->error, sizeof(c->error));

	if (dirfd < 0)
		return dirfd;
	for (uint32_t i = 0; i < c->nfiles; i++) {
		wl_file_name(cfg->dir, c->file_ids[i], path, sizeof(path));
		c->fds[i] = openat(dirfd, local_rel(path), flags);
		if (c->fds[i] < 0) {
			int rc = -errno;

			snprintf(c->error, sizeof(c->error), "open %.200s%.100s: %s%s", cfg->path, path,
				 strerror(-rc), rc == -EINVAL && cfg->opt.direct ?
				 " (--direct: the filesystem refuses O_DIRECT)" : "");
			close(dirfd);
			return rc;
		}
	}
	close(dirfd);
	return 0;
}

static void attach(struct engine_conn *c, struct engine_thread *t, const struct engine_cbs *cbs,
		   void *owner)
{
	c->t = t;
	c->cbs = cbs;
	c->owner = owner;
}

/* The files open now (a directory's syscalls); ready() on the loop's next turn. */
static int connect_conn(struct engine_conn *c, struct engine_thread *t,
			const struct engine_cbs *cbs, void *owner)
{
	uint64_t t0 = now_ns();

	attach(c, t, cbs, owner);
	c->error[0] = '\0';
	close_files(c);
	c->ok = open_files(c) == 0;
	if (!c->ok)
		close_files(c);
	c->open_ns = now_ns() - t0;
	c->next_ready = t->readying;
	t->readying = c;
	ev_idle_start(t->loop, &t->ready_w);
	return 0;
}

/* No callbacks for c from here on: not its ready(), not its requests' done(). */
static void forget(struct engine_conn *c)
{
	struct engine_thread *t = c->t;

	if (!t)
		return;
	for (struct engine_conn **p = &t->readying; *p; p = &(*p)->next_ready) {
		if (*p == c) {
			*p = c->next_ready;
			break;
		}
	}
	local_ring_flush(t->ring);
	local_ring_forget(t->ring, c);
	c->inflight = 0;
}

/* Leaves the loop; a ready connection stays ready, its files open. */
static void detach(struct engine_conn *c)
{
	forget(c);
	c->t = NULL;
	c->cbs = NULL;
	c->owner = NULL;
}

static int queue(struct engine_conn *c, struct engine_req *req)
{
	struct engine_thread *t = c->t;
	int rc;

	if (!c->up)
		return -ENOTCONN;
	if (req->file >= c->nfiles)
		return -EINVAL;
	if (!t->ring && (rc = local_ring_new(t, &t->ring, c->error, sizeof(c->error))) < 0)
		return rc;
	rc = local_ring_queue(t->ring, c, c->fds[req->file], req);
	if (rc < 0) {
		snprintf(c->error, sizeof(c->error), "cannot queue a request: %s", strerror(-rc));
		return rc;
	}
	c->inflight++;
	return 0;
}

static void commit(struct engine_conn *c)
{
	if (c->t && c->t->ring)
		local_ring_commit(c->t->ring);
}

/* A request the kernel has not finished in --timeout (a hung NFS mount) ends as -ETIMEDOUT. */
static void tick(struct engine_conn *c)
{
	if (c->t && c->t->ring && c->inflight)
		local_ring_expire(c->t->ring, c, c->cfg->timeout_ns);
}

static void drop(struct engine_conn *c)
{
	forget(c);
	c->up = false;
	close_files(c);
}

static void conn_free(struct engine_conn *c)
{
	if (!c)
		return;
	drop(c);
	free(c->file_ids);
	free(c->fds);
	free(c);
}

static const char *conn_error(const struct engine_conn *c)
{
	return c->error;
}

/* --direct: given with another engine, the message is the table's. */
static const struct opt options[] = {
	{ .name = "direct", .kind = OPT_FLAG,
	  .help = "local engine: O_DIRECT, past the page cache (--bs a\nmultiple of the "
	  "filesystem's logical block size)",
	  .off = offsetof(struct engine_opts, direct),
	  .foreign = "only with --engine local (the NFS engines have no client page cache to "
	  "bypass)" },
	{ .name = NULL },
};

const struct engine_ops engine_local = {
	.name = "local",
	.op_bit = OPE_LOCAL,
	.about = "io_uring on a local directory (liburing)",
	.needs_url = false,
	.takes_path = true,
	.steps = steps,
	.options = options,
	.check = check,
	.max_read = no_limit,
	.max_write = no_limit,
	.init = init,
	.limits_note = limits_note,
	.thread_new = thread_new,
	.thread_free = thread_free,
	.conn_new = conn_new,
	.connect = connect_conn,
	.attach = attach,
	.detach = detach,
	.queue = queue,
	.commit = commit,
	.tick = tick,
	.drop = drop,
	.close = close_files,
	.free = conn_free,
	.error = conn_error,
	.ctl = &local_ctl_ops,
};
