/*
 * The libnfs engine's private header, shared by its three files:
 * libnfs.c (the table, limits, connection life), libnfs_ops.c (requests)
 * and libnfs_ctl.c (the control connection). Nothing outside src/engine/
 * includes it.
 */
#ifndef NFSLOAD_ENGINE_LIBNFS_H
#define NFSLOAD_ENGINE_LIBNFS_H

#include <pthread.h>

#include "engine.h"
#include "../lowat.h"
#include "libnfs_shim.h"

/* libnfs 4.0 cannot encode an NFSv4 WRITE larger than this (fixed in 5.0). */
#define LIBNFS_V4_MAX_WRITE 3904
/* libnfs drops an NFSv4 connection on a READ reply larger than this. */
#define LIBNFS_V4_MAX_READ (1024 * 1024)

enum lconn_state { LCONN_NEW, LCONN_MOUNTING, LCONN_OPENING, LCONN_READY, LCONN_DOWN };

struct engine_thread {
	struct ev_loop *loop;
	struct lowat_set lowat;		/* --max-load */
};

struct engine_conn {
	const struct engine_params *cfg;
	unsigned id;
	enum lconn_state state;
	struct nfs_context *nfs;
	struct ev_loop *loop;
	ev_io io;
	int fd;
	int events;
	bool in_service;
	bool dropping;		/* the context is being destroyed: ignore its callbacks */
	uint32_t nfiles;
	uint32_t *file_ids;
	struct nfsfh **fhs;
	uint32_t opens_pending;
	const struct engine_cbs *cbs;
	void *owner;
	uint64_t step_start_ns;	/* set-up: when the MOUNT or OPEN in progress began */
	char *read_buf;		/* libnfs >= 6 reads into a caller buffer */
	char error[160];	/* why it failed, or why a request was refused */
	bool refused;		/* error is a refused request's: a loss overrides it */
	char last_op_error[120];
	uint32_t inflight;	/* requests */
	struct lowat lw;	/* --max-load */
};

/*
 * libnfs 4.0 keeps a few process-wide statics for setting up a context (xid
 * salt, reserved-port search, NFSv4 verifier seed): every set-up step runs
 * under this lock, whichever thread makes the connection.
 */
extern pthread_mutex_t libnfs_setup_mu;

extern const struct engine_ctl_ops libnfs_ctl_ops;

/*
 * A context for cfg's server with nfsload's settings (timeout, no
 * autoreconnect, a unique NFSv4 client name from tag). NULL on failure,
 * with err set.
 */
struct nfs_context *libnfs_context(const struct engine_params *cfg, const char *tag, char *err,
				   size_t len);
/* libnfs's status of a finished call as -errno (see libnfs_ops.c). */
int libnfs_status(struct nfs_context *nfs, int status);
/* Sets the connection's error line: "what: detail". */
void libnfs_set_error(struct engine_conn *c, const char *what, const char *detail);
/* The connection is gone: tells the owner (or ends a set-up that failed). */
void libnfs_conn_die(struct engine_conn *c, const char *what);

/* libnfs_limits.c: engine_ops' proto, check, max_read, max_write and limits_note. */
const struct engine_proto *libnfs_proto(int version, int minor);
int libnfs_check(const struct engine_params *cfg, char *err, size_t len);
uint64_t libnfs_max_read(const struct engine_params *cfg);
uint64_t libnfs_max_write(const struct engine_params *cfg);
const char *libnfs_limits_note(struct engine_inst *inst, const struct engine_params *cfg);

int libnfs_queue(struct engine_conn *c, struct engine_req *req);
/* A call made for libnfs's sake whose result nobody needs (closing). */
void libnfs_ignore_cb(int status, struct nfs_context *nfs, void *data, void *priv);

#endif
