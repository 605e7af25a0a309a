/*
 * conn: NFS connections through libnfs, the only module that includes
 * <nfsc/libnfs.h>.
 *
 * Owns: libnfs contexts (one TCP connection each), their mount and file
 * handles, the libev watcher of each socket, the libnfs 4.0 / >= 6 API shim,
 * and the synchronous control connection that creates and removes the work
 * directory. Does not own: which operation comes next (workload), timing and
 * statistics (worker), threads.
 *
 * Threads: conn_setup_all runs on the calling thread with a private loop;
 * afterwards a connection is attached to exactly one worker loop and touched
 * only from that thread until conn_free.
 */
#ifndef NFSLOAD_CONN_H
#define NFSLOAD_CONN_H

#include <ev.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "hist.h"
#include "workload.h"

struct conn;

/* Caller-owned request; the caller embeds it in its own per-op slot. */
struct conn_req {
	struct conn *conn;
	/* conn's own state for multi-call metadata operations */
	void *fh;
	int stage;
	enum op_type op;
	uint32_t len;
	const void *buf;
	/* at completion: what a READ returned (valid only inside the callback) */
	const void *data;
};

/*
 * Completion: status is the bytes transferred (>= 0) or a negative errno.
 * Called from inside the loop of the thread the connection is attached to.
 */
typedef void (*conn_done_fn)(void *owner, struct conn_req *req, int status);
/* The connection died (socket error). Requests in flight get no callback. */
typedef void (*conn_fail_fn)(void *owner, struct conn *c);
/* conn_reconnect finished: ok, the connection is ready again, else failed. */
typedef void (*conn_ready_fn)(void *owner, struct conn *c, bool ok);

/*
 * A connection that will open the files named by ids[0..nfiles) (in this
 * order: wl_op.range indexes them). Nothing is sent yet. 0 or -ENOMEM.
 */
int conn_new(const struct config *cfg, unsigned id, const uint32_t *file_ids,
	     uint32_t nfiles, struct conn **out);
/*
 * Closes the connection's files (NFSv4 CLOSE releases the server's open
 * state), synchronously: only once it is detached from its loop. Skips a
 * failed connection and stops at the first error.
 */
void conn_close_files(struct conn *c);
/* Destroys the libnfs context (pending callbacks are dropped). NULL is a no-op. */
void conn_free(struct conn *c);

/*
 * Mounts every connection and opens its files, all in parallel, on a private
 * loop of the calling thread, for at most deadline_ns. Returns 0 when all are
 * ready, else -EIO with err describing how many failed and the first reason.
 * The latency of each MOUNT and each OPEN goes into mount_lat / open_lat;
 * *elapsed_ns receives the time it all took.
 */
int conn_setup_all(struct conn **conns, unsigned n, uint64_t deadline_ns,
		   struct hist *mount_lat, struct hist *open_lat, uint64_t *elapsed_ns,
		   char *err, size_t errlen);

/* Hands the connection to a worker loop. */
void conn_attach(struct conn *c, struct ev_loop *loop, void *owner,
		 conn_done_fn done, conn_fail_fn fail, conn_ready_fn ready);
/*
 * Re-makes a connection on the loop it is attached to: destroys its context
 * (requests in flight get no callback: the caller counts them), then mounts
 * afresh and re-opens its files, in the background; ready() says how it
 * ended. Never call it from inside a conn callback. 0 or -errno (failed at
 * once; the caller retries later).
 */
int conn_reconnect(struct conn *c);
/* Destroys the context for good (no callbacks); the connection stays failed. */
void conn_abandon(struct conn *c);
/* Stops watching the socket (before the loop goes away). */
void conn_detach(struct conn *c);

/*
 * Queues one READ, WRITE or COMMIT (of the whole file); it leaves when the loop next services the socket
 * or at conn_flush. Write data comes from buf (len bytes, copied by libnfs).
 * 0 or a negative errno (the request is not queued then).
 */
int conn_submit(struct conn *c, const struct wl_op *op, const void *buf, struct conn_req *req);
/*
 * Queues one metadata operation of --mix on path (rename: to path2; mkdir,
 * rmdir and readdir: path is the directory). read and write move len bytes
 * of the whole file (open, READ or WRITE, close, timed as one); open is an
 * open and a close. The completion's status is bytes moved or 0, or -errno
 * (a LOOKUP of a missing name reports -ENOENT).
 */
int conn_submit_meta(struct conn *c, enum op_type op, const char *path, const char *path2,
		     uint32_t len, const void *buf, struct conn_req *req);
/* Sends what is queued now, when called outside the socket's own callback. */
void conn_flush(struct conn *c);
/* Lets libnfs check its timeouts: call about once a second. */
void conn_tick(struct conn *c);

unsigned conn_id(const struct conn *c);
bool conn_failed(const struct conn *c);
const char *conn_error(const struct conn *c);

/* Largest WRITE this libnfs can send for an NFS version. */
uint64_t conn_max_write(int nfs_version);
/* Largest READ a connection of this libnfs survives. */
uint64_t conn_max_read(int nfs_version);
/* One line on the libnfs build limits, for the start-up banner ("" if none). */
const char *conn_limits_note(int nfs_version);
const char *conn_libnfs_api(void);

/* The work directory, through a synchronous control connection. */
struct ctl;

struct fileset {
	uint32_t n;
	uint64_t *size;		/* size on the server before layout */
	bool *created;		/* created by this run */
	bool dir_created;
	bool marker_created;
};

/* Mounts the export. 0, or -errno with a one-line reason in err. */
int ctl_open(const struct config *cfg, struct ctl **out, char *err, size_t errlen);
/*
 * Creates (or adopts, when it carries nfsload's marker) the work directory and
 * the files; fills fs. Refuses a directory that is not ours and not empty.
 */
int ctl_prepare(struct ctl *ctl, struct fileset *fs, char *err, size_t errlen);
/* Removes what this run created (files, marker, directory). */
int ctl_cleanup(struct ctl *ctl, const struct fileset *fs, char *err, size_t errlen);
void ctl_free(struct ctl *ctl);
/*
 * --mix: makes every connection's tree afresh (an old one, left by --keep,
 * is removed first): directories, and files of file_size bytes from data.
 */
int ctl_meta_prepare(struct ctl *ctl, const uint8_t *data, bool empty, char *err,
		     size_t errlen);
/* Removes every connection's tree, whatever the run left in it. */
int ctl_meta_cleanup(struct ctl *ctl, char *err, size_t errlen);
void fileset_destroy(struct fileset *fs);

/*
 * Whether libnfs may bind reserved source ports (as the kernel client does;
 * exports marked 'secure' require them). There are fewer than 512: callers
 * turn them off for more connections than that. Process-wide. 0 or -errno.
 */
#define CONN_RESERVED_PORTS_MAX 384
int conn_use_reserved_ports(bool use);

/* "/<dir>/c<conn>/d<d>[/<leaf>]": a --mix path below the mount (leaf may be NULL). */
void conn_meta_path(const struct config *cfg, unsigned conn, unsigned dir, const char *leaf,
		    char *buf, size_t len);

/* "/<dir>/file.<id>": the path of file id below the mount, into buf. */
void conn_file_path(const struct config *cfg, uint32_t id, char *buf, size_t len);

#endif
