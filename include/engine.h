/*
 * engine: the seam between the worker (what to issue, when, and what it
 * cost) and the wire (how a request reaches a server and comes back).
 *
 * An engine owns its connections' sockets (or rings) on the loop it is
 * given, maps its timeouts to -ETIMEDOUT and its statuses to -errno, and
 * never decides what comes next. The worker owns slots, iodepth, schedules,
 * histograms, outages and verification, and never sees the wire.
 *
 * Threads: an engine_thread belongs to one libev loop and is used only from
 * the thread that runs it. A connection is driven from one loop at a time:
 * the set-up loop first (setup.c), then a worker's (attach). Engine
 * callbacks run inside that loop, never from inside queue().
 *
 * Adding an engine: docs/ARCHITECTURE.md, "How to add an engine".
 */
#ifndef NFSLOAD_ENGINE_H
#define NFSLOAD_ENGINE_H

#include <errno.h>
#include <ev.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine_opts.h"
#include "engine_state.h"
#include "fail.h"
#include "meta.h"
#include "ops.h"
#include "option.h"
#include "workload.h"

/* One server of the run. */
struct engine_server {
	char host[256];
	char canon_url[ENGINE_URL_MAX];
	unsigned nfsport, mountport;	/* 0 = ask rpcbind */
};

/*
 * What an engine is told of the run: made once from the command line's
 * settings (params.h), read-only, shared by all threads. Members mean what
 * the options of the same name say (nfsload(1)).
 */
struct engine_params {
	/* Where: the first (or only) server; a local engine's directory is path. */
	char host[256];
	char path[ENGINE_URL_MAX];	/* export path and subdirectory, or the local directory */
	char canon_url[ENGINE_URL_MAX];	/* "nfs://host/path?version=N&...": for libnfs */
	int nfs_version;		/* 3 or 4 */
	int nfs_minor;			/* version 4: 0, 1, 2 as asked, or ENGINE_MINOR_ANY */
	unsigned nfsport, mountport;	/* 0 = ask rpcbind */
	/* Several servers: connection id -> server by engine_server_of(). */
	unsigned nservers;		/* 1 with one URL (0: no server) */
	struct engine_server server[ENGINE_SERVERS_MAX];
	unsigned char cycle[ENGINE_CYCLE_MAX];	/* server of each group of connections, in turn */
	unsigned ncycle;
	unsigned srv_index;		/* made for one server's control connection: which */
	/* What and how much. */
	unsigned threads, connections, iodepth;
	enum wl_mode rw;
	unsigned rwmixread;
	uint64_t bs, size;
	char dir[256];			/* the work directory under path */
	uint64_t timeout_ns;
	bool sync;			/* stable writes */
	bool verify;
	bool wire_time;			/* the worker wants engine_req.wire_ns */
	bool meta;			/* --mix */
	struct meta_mix mix;
	uint64_t file_size;		/* --mix and small files: whole-file size */
	unsigned small_files;		/* 0 = off */
	/* State: --open-files held by each connection (names wl_held_name), their
	 * open-owners (one per file, or one per connection), --share-deny */
	unsigned open_files;
	unsigned open_slots;		/* held slots opened only by name (a replay's), after them */
	bool owner_per_file;
	unsigned share_deny;		/* ENGINE_DENY_* */
	struct engine_opts opt;		/* the engines' own options */
};

/* The server (index) connection conn goes to: whole session groups, in the cycle's turn. */
static inline unsigned engine_server_of(const struct engine_params *p, unsigned conn)
{
	unsigned per = p->opt.conns_per_session > 1 ? p->opt.conns_per_session : 1;

	if (p->nservers <= 1 || p->ncycle == 0)
		return p->srv_index;
	return p->cycle[(conn / per) % p->ncycle];
}

struct engine_inst;	/* one instance of an engine (init's): what its threads and connections share */
struct engine_conn;	/* one connection of an engine, opaque to the worker */
struct engine_thread;	/* an engine's state for one loop */
struct engine_ctl;	/* the synchronous control connection */

/* A lock's type (engine_req.what): NFSv4's READ_LT and WRITE_LT. */
enum { ENGINE_LOCK_READ = 1, ENGINE_LOCK_WRITE = 2 };

/*
 * done()'s status when the server denied a request for a conflict, an answer
 * and no failure: LOCK and LOCKT NFS4ERR_DENIED (NLM4_DENIED), OPEN
 * NFS4ERR_SHARE_DENIED. Counted as denied, with a latency of its own.
 */
#define ENGINE_DENIED EDEADLK	/* stats.h's STATS_DENIED */

/* --share-deny (engine_params.share_deny): OPEN4_SHARE_DENY_* */
enum { ENGINE_DENY_NONE = 0, ENGINE_DENY_READ = 1, ENGINE_DENY_WRITE = 2, ENGINE_DENY_BOTH = 3 };
/* An OPEN's or OPEN_DOWNGRADE's share access (OPEN4_SHARE_ACCESS_READ 1, WRITE 2, BOTH 3)
 * and deny (ENGINE_DENY_*) in engine_req.what. */
#define ENGINE_SHARE(access, deny) ((uint32_t)(access) | (uint32_t)(deny) << 8)

/* Which SETATTR a --mix setattr sends (the worker takes them in turn). */
enum engine_setattr { ENGINE_SETATTR_MODE, ENGINE_SETATTR_SIZE, ENGINE_SETATTR_TIMES };

/*
 * One request, owned by the worker (embedded in its slot) from queue() to
 * done(). READ, WRITE and COMMIT work on the connection's files by index;
 * the metadata operations of --mix on names below the export.
 */
struct engine_req {
	enum op_type op;
	uint32_t file;		/* index into the files given to conn_new */
	uint64_t offset;
	uint32_t len;		/* bytes to move; metadata read, write and create: the whole file */
	const void *buf;	/* data to write (stays valid until done) */
	const char *path;	/* metadata: the name (valid during queue() only) */
	const char *path2;	/* rename: the new name */
	enum engine_setattr setattr;	/* SETATTR: which; ENGINE_SETATTR_SIZE to offset */
	bool unchecked;		/* CREATE: an existing file is no error (UNCHECKED, not GUARDED) */
	/* NFSv4.2 (ops of class OPC_FILE, ops.h): on file by index, at offset, len bytes */
	uint32_t file2;		/* COPY, CLONE: the destination file */
	uint64_t offset2;	/* COPY, CLONE: the destination offset */
	uint32_t what;		/* SEEK: 0 data, 1 hole; IO_ADVISE: the hint bits */
	const char *xname;	/* xattrs: the name, without "user." (valid during queue() only) */
	/*
	 * State (OPC_HELD, OPC_LOCK), with held: on held slot `file` of the connection
	 * (engine_params.open_files + open_slots of them): OPEN (path NULL: the held
	 * file's own name, wl_held_name; else the name path, a replay's), CLOSE,
	 * OPEN_DOWNGRADE; what: ENGINE_SHARE(access, deny), 0: both, --share-deny.
	 * LOCK, LOCKU, LOCKT on data file `file` (held: on held slot `file`'s open),
	 * range bytes at offset; what: ENGINE_LOCK_READ or ENGINE_LOCK_WRITE.
	 */
	bool held;
	uint64_t range;		/* locks: the range's length (UINT64_MAX: to the end) */
	uint64_t holes;		/* in done(): READ_PLUS: bytes of holes in what it returned
				 * (0 for every other op) */
	uint64_t found;		/* in done(): SEEK: the offset found (UINT64_MAX: end of file) */
	const void *data;	/* in done(): what a READ returned, valid inside done() only */
	void *priv[2];		/* the engine's, from queue() to done() */
	uint64_t wire_ns;	/* in done(): the reply's wire time (--wire-time), 0: none */
	int stage;		/* the engine's */
};

/*
 * What an engine calls back, with the owner given to connect() or attach().
 *   done:  a request ended: bytes moved (>= 0) or -errno (-ETIMEDOUT: no
 *          reply within --timeout, the connection may still be fine)
 *   lost:  the connection is gone (socket error); requests in flight get no
 *          done(): the owner counts them
 *   ready: connect() ended: ok, or failed (error() says why)
 *   step:  a set-up step (engine_ops.steps[step]) took ns; may be NULL
 */
struct engine_cbs {
	void (*done)(void *owner, struct engine_req *req, int status);
	void (*lost)(void *owner, struct engine_conn *c);
	void (*ready)(void *owner, struct engine_conn *c, bool ok);
	void (*step)(void *owner, unsigned step, uint64_t ns);
};

/* What the control connection's stat says of a name. */
struct engine_stat {
	bool is_dir, is_reg;
	uint64_t size;
};

/*
 * Synchronous operations for the work directory (workdir.c), on paths below
 * the export ("/dir/file"). Each returns 0 or -errno (-ENOENT: no such
 * name); error() has the last failure in words.
 */
struct engine_ctl_ops {
	/* Mounts the export: 0 or -errno with one line in err. */
	int (*open)(const struct engine_params *cfg, struct engine_ctl **out, char *err, size_t len);
	/* Mounts again on the same ctl (after an outage). */
	int (*reopen)(struct engine_ctl *ctl, char *err, size_t len);
	void (*free)(struct engine_ctl *ctl);
	int (*stat)(struct engine_ctl *ctl, const char *path, struct engine_stat *st);
	int (*mkdir)(struct engine_ctl *ctl, const char *path);
	/* Creates a file and writes len bytes of data at offset 0. */
	int (*create)(struct engine_ctl *ctl, const char *path, const void *data, uint64_t len);
	/* Sets a file's size (SETATTR): a sparse extension writes nothing. */
	int (*truncate)(struct engine_ctl *ctl, const char *path, uint64_t size);
	int (*unlink)(struct engine_ctl *ctl, const char *path);
	int (*rmdir)(struct engine_ctl *ctl, const char *path);
	/* fn for every entry but "." and ".."; stops early when fn returns non-zero. */
	int (*readdir)(struct engine_ctl *ctl, const char *path,
		       int (*fn)(void *arg, const char *name, bool is_dir), void *arg);
	const char *(*error)(struct engine_ctl *ctl);
	/* Where the control connection went, for the report ("NFS port 2049 (from rpcbind)"). */
	const char *(*ports)(struct engine_ctl *ctl);
};

/*
 * What an engine speaks to a server, for the report: data, so that no code
 * outside the engines compares engine names.
 */
/* nfs_minor of version=4: the highest minor version the engine and the server have. */
#define ENGINE_MINOR_ANY (-1)

struct engine_proto {
	const char *version;		/* the NFS version spoken: "3", "4.0", "4.1", "4.2" */
	const char *const *steps;	/* the set-up steps it times, NULL-terminated */
};

struct engine_ops {
	const char *name;
	const char *about;		/* for --version: what it was built with */
	bool needs_url;			/* false: talks to no server (no URL allowed) */
	bool wire_time;			/* sets engine_req.wire_ns (--wire-time) */
	bool takes_path;		/* a local directory instead of a URL (cfg->path) */
	unsigned op_bit;		/* its OPE_* bit (ops.h): the ops it has are the op
					 * table's, refused at the start otherwise (check.c) */
	/* Set-up steps step() reports, NULL-terminated, at most SETUP_STEPS_MAX (setup.h). */
	const char *const *steps;
	/* Its own options (option.h; off into struct engine_opts), NULL-name-ended, or NULL.
	 * Several engines may declare one option alike: the first declaration is used. */
	const struct opt *options;
	/*
	 * What it speaks for a URL's version= (3 or 4, minor 0 or 1), its steps
	 * replacing .steps; NULL for an engine that talks to no NFS server.
	 */
	const struct engine_proto *(*proto)(int version, int minor);
	/* After set-up, the version its connections negotiated ("4.2"), or NULL: proto()'s. */
	const char *(*spoken)(struct engine_inst *inst);
	/* What its connections did with state so far (after the run: with teardown's), or
	 * NULL: an engine that holds none. */
	void (*state)(struct engine_inst *inst, struct engine_state_counts *out);
	/* With --open-files: whether c's held slot i holds an open now. After a set-up its
	 * OPEN may have been denied (another client's share reservation) or a re-made one
	 * lost: the worker's view of its held files follows (after each set-up). NULL: all. */
	bool (*held_open)(struct engine_conn *c, unsigned i);

	/* The engine's limits as usage errors: 0 or -EINVAL with one line in err (config_fail). */
	int (*check)(const struct engine_params *cfg, char *err, size_t len);
	/* The largest READ and WRITE a connection can carry (UINT64_MAX: no limit). */
	uint64_t (*max_read)(const struct engine_params *cfg);
	uint64_t (*max_write)(const struct engine_params *cfg);
	/* An instance, before any of its threads and connections: *out (NULL for an
	 * engine with nothing to share); a note for stderr or "". fini (NULL: nothing
	 * to free) after the last of them is freed. */
	int (*init)(const struct engine_params *cfg, struct engine_inst **out, char *note, size_t len);
	void (*fini)(struct engine_inst *inst);
	/* One line on this build's limits for the report, "" for none (inst NULL: before init). */
	const char *(*limits_note)(struct engine_inst *inst, const struct engine_params *cfg);

	struct engine_thread *(*thread_new)(struct engine_inst *inst, const struct engine_params *cfg,
					    struct ev_loop *loop);
	void (*thread_free)(struct engine_thread *t);

	/* A connection that will open files file_ids[0..nfiles) in order. Sends nothing. */
	int (*conn_new)(struct engine_inst *inst, const struct engine_params *cfg, unsigned id,
			const uint32_t *file_ids, uint32_t nfiles, struct engine_conn **out);
	/*
	 * Sets the connection up on t's loop (mount, or session set-up, then
	 * the files), in the background: ready() says how it ended. Also
	 * re-makes a connection after drop(). 0, or -errno when it failed at once.
	 */
	int (*connect)(struct engine_conn *c, struct engine_thread *t,
		       const struct engine_cbs *cbs, void *owner);
	/* Moves a ready connection to t's loop, calling back cbs from now on. */
	void (*attach)(struct engine_conn *c, struct engine_thread *t,
		       const struct engine_cbs *cbs, void *owner);
	/* Stops watching the loop (before it goes away); no more callbacks. */
	void (*detach)(struct engine_conn *c);
	/* Queues a request: 0, or -errno (not queued; error() may say more). */
	int (*queue)(struct engine_conn *c, struct engine_req *req);
	/* Sends what was queued; called after each batch of queue(). */
	void (*commit)(struct engine_conn *c);
	/* About once a second: timeouts. */
	void (*tick)(struct engine_conn *c);
	/* Forgets everything in flight without callbacks; down until connect(). */
	void (*drop)(struct engine_conn *c);
	/* Closes the files synchronously (detached, healthy connections only). */
	void (*close)(struct engine_conn *c);
	void (*free)(struct engine_conn *c);
	/* Why the connection failed, or why the last request was refused; "" if neither. */
	const char *(*error)(const struct engine_conn *c);

	const struct engine_ctl_ops *ctl;
};

extern const struct engine_ops engine_libnfs;
extern const struct engine_ops engine_local;
extern const struct engine_ops engine_native;
extern const struct engine_ops engine_null;

/* The engine called name, or NULL. */
const struct engine_ops *engine_find(const char *name);
/* The engine a run has without --engine. */
const struct engine_ops *engine_default(void);
/* The i-th engine --engine knows, NULL past the last. */
const struct engine_ops *engine_nth(size_t i);
/* "libnfs, null": the names engine_find knows. */
const char *engine_names(void);

#endif
