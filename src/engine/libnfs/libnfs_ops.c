/*
 * The libnfs engine's requests: READ, WRITE and COMMIT on a connection's
 * open files, and the metadata operations of --mix on names, some of which
 * are several libnfs calls timed as one (open, READ or WRITE, close).
 *
 * A request's priv[0] is its connection, priv[1] a file it opened.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "libnfs.h"

/*
 * libnfs 4.0 ends a timed-out READ or WRITE with -EINTR ("cancelled"; nfsload
 * cancels nothing while it still listens), and both an NFS error status and
 * an RPC or connection failure with -EFAULT, its data then being a reply
 * struct or a string. The context's error tells them apart: "NFS: ... (errno)"
 * for a status.
 */
int libnfs_status(struct nfs_context *nfs, int status)
{
	const char *msg = nfs_get_error(nfs), *p;
	int code;

	if (status == -EINTR)
		return -ETIMEDOUT;
	if (status != -EFAULT)
		return status;
	if (msg && strncmp(msg, "NFS", 3) == 0 && (p = strrchr(msg, '(')) &&
	    sscanf(p, "(%d)", &code) == 1 && code < 0)
		return code;
	return -ECONNABORTED;
}

void libnfs_ignore_cb(int status, struct nfs_context *nfs, void *data, void *priv)
{
	(void)status;
	(void)nfs;
	(void)data;
	(void)priv;
}

static void finish(struct engine_req *req, int status)
{
	struct engine_conn *c = req->priv[0];

	c->inflight--;
	if (c->cbs)
		c->cbs->done(c->owner, req, status);
}

static void rw_cb(int status, struct nfs_context *nfs, void *data, void *priv)
{
	struct engine_req *req = priv;
	struct engine_conn *c = req->priv[0];

	if (c->dropping)
		return;
	req->data = data;
	if (status < 0) {
		const char *msg = nfs_get_error(nfs);

		/* Kept for the connection's error line should the socket die next. */
		if (msg)
			snprintf(c->last_op_error, sizeof(c->last_op_error), "%s", msg);
		status = libnfs_status(nfs, status);
	}
	finish(req, status);
}

/* open -> READ/WRITE -> close, reported once: stage 0 opened, 1 transferred. */
static void meta_file_cb(int status, struct nfs_context *nfs, void *data, void *priv)
{
	struct engine_req *req = priv;
	struct engine_conn *c = req->priv[0];
	struct nfsfh *fh;
	int rc;

	if (c->dropping)
		return;
	if (status < 0 || !c->cbs) {
		if (req->stage == 1 && req->priv[1])
			nfs_close_async(nfs, req->priv[1], libnfs_ignore_cb, NULL);
		rw_cb(status, nfs, data, priv);
		return;
	}
	if (req->stage == 1) {
		nfs_close_async(nfs, req->priv[1], libnfs_ignore_cb, NULL);
		finish(req, status);
		return;
	}
	fh = req->priv[1] = data;
	req->stage = 1;
	if (req->op == OP_OPEN) {
		nfs_close_async(nfs, fh, libnfs_ignore_cb, NULL);
		finish(req, 0);
		return;
	}
	rc = req->op == OP_READ ?
		shim_pread_async(nfs, fh, c->read_buf, 0, req->len, meta_file_cb, req) :
		shim_pwrite_async(nfs, fh, req->buf, 0, req->len, meta_file_cb, req);
	if (rc < 0) {
		nfs_close_async(nfs, fh, libnfs_ignore_cb, NULL);
		finish(req, -EIO);
	}
}

/* A directory listing, discarded once read. */
static void readdir_cb(int status, struct nfs_context *nfs, void *data, void *priv)
{
	struct engine_conn *c = ((struct engine_req *)priv)->priv[0];

	if (c->dropping)
		return;
	if (status >= 0) {
		nfs_closedir(nfs, data);
		status = 0;
	}
	rw_cb(status, nfs, NULL, priv);
}

/* A create hands back an open file: close it, the create is what counts. */
static void create_cb(int status, struct nfs_context *nfs, void *data, void *priv)
{
	struct engine_conn *c = ((struct engine_req *)priv)->priv[0];

	if (c->dropping)
		return;
	if (status >= 0) {
		nfs_close_async(nfs, data, libnfs_ignore_cb, NULL);
		status = 0;
	}
	rw_cb(status, nfs, NULL, priv);
}

static int setattr(struct engine_conn *c, struct engine_req *req)
{
	struct nfs_context *nfs = c->nfs;
	struct timeval tv[2];

	switch (req->setattr) {
	case ENGINE_SETATTR_MODE:
		return nfs_chmod_async(nfs, req->path, 0644, rw_cb, req);
	case ENGINE_SETATTR_SIZE:
		return nfs_truncate_async(nfs, req->path, req->offset, rw_cb, req);
	default:
		gettimeofday(&tv[0], NULL);	/* a file time, not an interval */
		tv[1] = tv[0];
		return nfs_utimes_async(nfs, req->path, tv, rw_cb, req);
	}
}

static int queue_meta(struct engine_conn *c, struct engine_req *req)
{
	struct nfs_context *nfs = c->nfs;

	switch (req->op) {
	case OP_READ:
	case OP_OPEN:
		return nfs_open_async(nfs, req->path, O_RDONLY, meta_file_cb, req);
	case OP_WRITE:
		return nfs_open_async(nfs, req->path, O_WRONLY, meta_file_cb, req);
	case OP_GETATTR:
	case OP_LOOKUP:
		return nfs_stat64_async(nfs, req->path, rw_cb, req);
	case OP_ACCESS:
		return nfs_access_async(nfs, req->path, R_OK | W_OK, rw_cb, req);
	case OP_SETATTR:
		return setattr(c, req);
	case OP_READDIR:
		return nfs_opendir_async(nfs, req->path, readdir_cb, req);
	case OP_CREATE:
		/* With len: create and write the whole file, timed as one (small-file test). */
		return nfs_open2_async(nfs, req->path, O_CREAT | (req->unchecked ? 0 : O_EXCL) | O_WRONLY, 0644,
				       req->len ? meta_file_cb : create_cb, req);
	case OP_REMOVE:
		return nfs_unlink_async(nfs, req->path, rw_cb, req);
	case OP_MKDIR:
		return nfs_mkdir_async(nfs, req->path, rw_cb, req);
	case OP_RMDIR:
		return nfs_rmdir_async(nfs, req->path, rw_cb, req);
	case OP_RENAME:
		return nfs_rename_async(nfs, req->path, req->path2, rw_cb, req);
	default:
		return -1;	/* COMMIT takes a file, not a name */
	}
}

int libnfs_queue(struct engine_conn *c, struct engine_req *req)
{
	struct nfsfh *fh;
	int rc;

	if (c->state != LCONN_READY)
		return -ENOTCONN;
	req->priv[0] = c;
	req->priv[1] = NULL;
	req->stage = 0;
	if (req->path) {
		rc = queue_meta(c, req);
	} else {
		fh = c->fhs[req->file];
		if (req->op == OP_COMMIT)
			rc = nfs_fsync_async(c->nfs, fh, rw_cb, req);	/* COMMIT (v3 and v4) */
		else if (req->op == OP_READ)
			rc = shim_pread_async(c->nfs, fh, c->read_buf, req->offset, req->len, rw_cb, req);
		else if (req->op == OP_WRITE)
			rc = shim_pwrite_async(c->nfs, fh, req->buf, req->offset, req->len, rw_cb, req);
		else	/* never another op sent as a WRITE (check.c refuses them at the start) */
			return -EOPNOTSUPP;
	}
	if (rc < 0) {
		/* libnfs says why in words only: error() hands them to the report. */
		libnfs_set_error(c, "request refused", nfs_get_error(c->nfs));
		c->refused = true;
		return -EIO;
	}
	c->inflight++;
	return 0;
}
