/*
 * conn: libnfs connections on libev loops, and the control connection.
 *
 * libnfs 4.0 quirks handled here (see README): requests leave only when the
 * socket is serviced with POLLOUT, so we flush right after each service call
 * instead of waiting a loop turn; the fd can change while mounting (v3 talks
 * to mountd first), so it is re-read after every service call; timeouts are
 * only checked inside nfs_service, so workers call conn_tick.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <poll.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>
#include <nfsc/libnfs.h>

#include "clock.h"
#include "conn.h"

#define SETUP_WINDOW 128	/* connections mounting at once */
#define MARKER ".nfsload-owner"

#ifdef LIBNFS_API_V2
#define LIBNFS_NEEDS_READ_BUF 1
#else
#define LIBNFS_NEEDS_READ_BUF 0
#endif

enum conn_state { CONN_NEW, CONN_MOUNTING, CONN_OPENING, CONN_READY, CONN_FAILED };

struct conn {
	const struct config *cfg;
	unsigned id;
	enum conn_state state;
	struct nfs_context *nfs;
	struct ev_loop *loop;
	ev_io io;
	int fd;
	int events;
	bool in_service;
	uint32_t nfiles;
	uint32_t *file_ids;
	struct nfsfh **fhs;
	uint32_t opens_pending;
	void *owner;
	conn_done_fn done;
	conn_fail_fn fail;
	conn_ready_fn ready;
	bool dropping;		/* the context is being destroyed: ignore its callbacks */
	struct conn_setup *setup;
	uint64_t step_start_ns;	/* set-up: when the MOUNT or OPEN in progress began */
	char *read_buf;		/* libnfs >= 6 reads into a caller buffer */
	char error[160];
	char last_op_error[120];
	unsigned setattrs;	/* --mix: which SETATTR comes next */
};

/* Shared by all connections of one conn_setup_all call. */
struct conn_setup {
	struct ev_loop *loop;
	struct conn **conns;
	unsigned n, next, pending, failed;
	struct hist *mount_lat, *open_lat;
	char first_error[200];
};

/*
 * libnfs 4.0 keeps a few process-wide statics for setting up a context (xid
 * salt, reserved-port search, NFSv4 verifier seed): a worker thread that
 * re-makes a connection sets it up under this lock.
 */
static pthread_mutex_t setup_mu = PTHREAD_MUTEX_INITIALIZER;

uint64_t conn_max_write(int nfs_version)
{
#ifdef LIBNFS_API_V2
	(void)nfs_version;
	return UINT64_MAX;
#else
	return nfs_version == 4 ? CFG_V4_MAX_WRITE : UINT64_MAX;
#endif
}

uint64_t conn_max_read(int nfs_version)
{
#ifdef LIBNFS_API_V2
	(void)nfs_version;
	return UINT64_MAX;
#else
	return nfs_version == 4 ? CFG_V4_MAX_READ : UINT64_MAX;
#endif
}

const char *conn_limits_note(int nfs_version)
{
#ifdef LIBNFS_API_V2
	(void)nfs_version;
	return "";
#else
	return nfs_version == 4 ? "libnfs 4.x NFSv4.0: writes up to 3904 bytes, reads up to 1 MiB, "
				  "layout uses 3584-byte writes" : "";
#endif
}

const char *conn_libnfs_api(void)
{
#ifdef LIBNFS_API_V2
	return "libnfs >= 6 API";
#else
	return "libnfs 4.x API";
#endif
}

/*
 * libnfs binds every socket of a root process to a reserved port (512-1023),
 * calling getservbyport() (a scan of /etc/services) for each candidate port.
 * Once the range is used up, each new connection costs ~500 such scans: 600
 * connections took 5.7 s to set up here, 1,000 took 17 s. Lowering
 * CAP_NET_BIND_SERVICE from the effective set makes the first bind() fail
 * with EACCES, and libnfs then takes an ordinary port at once.
 */
int conn_use_reserved_ports(bool use)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	unsigned bit = 1u << (CAP_NET_BIND_SERVICE % 32);
	unsigned *eff;

	if (syscall(SYS_capget, &hdr, data) < 0)
		return -errno;
	eff = &data[CAP_NET_BIND_SERVICE / 32].effective;
	if (use && (data[CAP_NET_BIND_SERVICE / 32].permitted & bit))
		*eff |= bit;
	else if (!use)
		*eff &= ~bit;
	return syscall(SYS_capset, &hdr, data) < 0 ? -errno : 0;
}

void conn_file_path(const struct config *cfg, uint32_t id, char *buf, size_t len)
{
	snprintf(buf, len, "/%s/file.%06u", cfg->dir, id);
}

static void set_error(struct conn *c, const char *what, const char *detail)
{
	snprintf(c->error, sizeof(c->error), "%s: %s", what,
		 detail && *detail ? detail : "unknown error");
}

/* libev and poll(2) event bits are not the same numbers. */
static int to_ev(int pollev)
{
	return ((pollev & POLLIN) ? EV_READ : 0) | ((pollev & POLLOUT) ? EV_WRITE : 0);
}

static void watch(struct conn *c)
{
	int fd = nfs_get_fd(c->nfs);
	int events = to_ev(nfs_which_events(c->nfs));

	if (fd == c->fd && events == c->events)
		return;
	ev_io_stop(c->loop, &c->io);
	c->fd = fd;
	c->events = events;
	if (fd >= 0 && events) {
		ev_io_set(&c->io, fd, events);
		ev_io_start(c->loop, &c->io);
	}
}

static void setup_finished(struct conn *c, bool ok);

static void conn_die(struct conn *c, const char *what)
{
	if (c->state == CONN_FAILED)
		return;
	if (!c->error[0]) {
		const char *why = nfs_get_error(c->nfs);

		set_error(c, what, why && *why ? why : c->last_op_error);
	}
	if (c->state == CONN_MOUNTING || c->state == CONN_OPENING) {
		setup_finished(c, false);
		return;
	}
	c->state = CONN_FAILED;
	ev_io_stop(c->loop, &c->io);
	if (c->fail)
		c->fail(c->owner, c);
}

static void service(struct conn *c, int revents)
{
	/*
	 * libnfs reads before it writes within one call: with POLLOUT added,
	 * the requests the completion callbacks queue leave in the same call,
	 * without another loop turn and without a second timeout scan (each
	 * nfs_service walks 1024 hash buckets).
	 */
	bool remaking = !c->setup && (c->state == CONN_MOUNTING || c->state == CONN_OPENING);
	int rc;

	if (c->state == CONN_READY)
		revents |= POLLOUT;
	if (remaking)
		pthread_mutex_lock(&setup_mu);
	c->in_service = true;
	rc = nfs_service(c->nfs, revents);
	c->in_service = false;
	if (remaking)
		pthread_mutex_unlock(&setup_mu);
	if (rc < 0) {
		conn_die(c, "connection lost");
		return;
	}
	if (c->state != CONN_FAILED)
		watch(c);
}

static void io_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct conn *c = w->data;

	(void)loop;
	service(c, ((revents & EV_READ) ? POLLIN : 0) | ((revents & EV_WRITE) ? POLLOUT : 0));
}

int conn_new(const struct config *cfg, unsigned id, const uint32_t *file_ids,
	     uint32_t nfiles, struct conn **out)
{
	struct conn *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->cfg = cfg;
	c->id = id;
	c->fd = -1;
	c->nfiles = nfiles;
	c->file_ids = malloc(nfiles * sizeof(*c->file_ids) + 1);
	c->fhs = calloc(nfiles + 1, sizeof(*c->fhs));
#ifdef LIBNFS_API_V2
	c->read_buf = malloc(cfg->bs);
#endif
	if (!c->file_ids || !c->fhs || (LIBNFS_NEEDS_READ_BUF && !c->read_buf)) {
		conn_free(c);
		return -ENOMEM;
	}
	memcpy(c->file_ids, file_ids, nfiles * sizeof(*file_ids));
	ev_init(&c->io, io_cb);
	c->io.data = c;
	*out = c;
	return 0;
}

void conn_close_files(struct conn *c)
{
	if (c->state != CONN_READY)
		return;
	/* Synchronous: the loop that served this context is gone by now. */
	for (uint32_t i = 0; i < c->nfiles; i++) {
		if (c->fhs[i] && nfs_close(c->nfs, c->fhs[i]) < 0) {
			c->state = CONN_FAILED;
			return;	/* the server stopped answering: don't wait on each file */
		}
		c->fhs[i] = NULL;
	}
}

void conn_free(struct conn *c)
{
	if (!c)
		return;
	if (c->loop)
		ev_io_stop(c->loop, &c->io);
	c->done = NULL;
	c->fail = NULL;
	c->ready = NULL;
	c->dropping = true;	/* pending callbacks return at once */
	if (c->nfs)
		nfs_destroy_context(c->nfs);
	free(c->fhs);
	free(c->file_ids);
	free(c->read_buf);
	free(c);
}

unsigned conn_id(const struct conn *c)
{
	return c->id;
}

bool conn_failed(const struct conn *c)
{
	return c->state == CONN_FAILED;
}

const char *conn_error(const struct conn *c)
{
	return c->error;
}

/* ---- parallel set-up: mount, then open every file ---- */

static void setup_start_next(struct conn_setup *s);
static void open_cb(int err, struct nfs_context *nfs, void *data, void *priv);

static void setup_finished(struct conn *c, bool ok)
{
	struct conn_setup *s = c->setup;

	if (!s) {
		/* A connection re-made on its worker's loop. */
		if (!ok) {
			c->state = CONN_FAILED;
			ev_io_stop(c->loop, &c->io);
		}
		if (c->ready)
			c->ready(c->owner, c, ok);
		return;
	}
	if (!ok) {
		s->failed++;
		if (!s->first_error[0])
			snprintf(s->first_error, sizeof(s->first_error), "connection %u: %s",
				 c->id, c->error);
		c->state = CONN_FAILED;
	}
	ev_io_stop(s->loop, &c->io);
	s->pending--;
	setup_start_next(s);
}

/*
 * Files open one after another: NFSv4.0 OPENs from one open-owner must not
 * overlap (libnfs uses one owner per context; parallel OPENs fail with
 * BAD_SEQID), and the handles stay in the order of file_ids.
 */
static int open_next(struct conn *c)
{
	char path[300];

	conn_file_path(c->cfg, c->file_ids[c->nfiles - c->opens_pending], path, sizeof(path));
	c->step_start_ns = now_ns();
	if (nfs_open_async(c->nfs, path, O_RDWR | (c->cfg->sync ? O_SYNC : 0), open_cb, c) < 0) {
		set_error(c, "open", nfs_get_error(c->nfs));
		return -EIO;
	}
	return 0;
}

static void open_cb(int err, struct nfs_context *nfs, void *data, void *priv)
{
	struct conn *c = priv;

	(void)nfs;
	if (c->dropping || c->state != CONN_OPENING)
		return;
	if (err < 0) {
		set_error(c, "open", data);
		setup_finished(c, false);
		return;
	}
	c->fhs[c->nfiles - c->opens_pending] = data;
	if (c->setup)
		hist_record(c->setup->open_lat, now_ns() - c->step_start_ns);
	if (--c->opens_pending == 0) {
		c->state = CONN_READY;
		setup_finished(c, true);
	} else if (open_next(c) < 0) {
		setup_finished(c, false);
	}
}

static void mount_cb(int err, struct nfs_context *nfs, void *data, void *priv)
{
	struct conn *c = priv;
	int one = 1;

	if (c->dropping || c->state != CONN_MOUNTING)
		return;
	if (err < 0) {
		set_error(c, "mount", data);
		setup_finished(c, false);
		return;
	}
	if (c->setup)
		hist_record(c->setup->mount_lat, now_ns() - c->step_start_ns);
	setsockopt(nfs_get_fd(nfs), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	c->state = CONN_OPENING;
	c->opens_pending = c->nfiles;
	if (c->nfiles == 0) {
		c->state = CONN_READY;
		setup_finished(c, true);
	} else if (open_next(c) < 0) {
		setup_finished(c, false);
	}
}

static int conn_start_mount(struct conn *c)
{
	struct nfs_url *url;
	char name[96];
	int rc;

	c->nfs = nfs_init_context();
	if (!c->nfs) {
		snprintf(c->error, sizeof(c->error), "cannot create a libnfs context");
		return -ENOMEM;
	}
	url = nfs_parse_url_dir(c->nfs, c->cfg->libnfs_url);
	if (!url) {
		set_error(c, "URL", nfs_get_error(c->nfs));
		return -EINVAL;
	}
	nfs_set_timeout(c->nfs, (int)(c->cfg->timeout_ns / 1000000));
	/*
	 * libnfs would reconnect forever by default and resend what was in
	 * flight, hiding the outage in stretched latencies: fail the requests.
	 */
	nfs_set_autoreconnect(c->nfs, 0);
	/* Contexts made in the same second would share a v4 client id. */
	snprintf(name, sizeof(name), "nfsload-%ld-%u-%llx", (long)getpid(), c->id,
		 (unsigned long long)now_ns());
	if (c->cfg->nfs_version == 4)
		nfs4_set_client_name(c->nfs, name);
	c->state = CONN_MOUNTING;
	c->step_start_ns = now_ns();
	rc = nfs_mount_async(c->nfs, url->server, url->path, mount_cb, c);
	nfs_destroy_url(url);
	if (rc < 0) {
		set_error(c, "mount", nfs_get_error(c->nfs));
		return -EIO;
	}
	return 0;
}

static void setup_start_next(struct conn_setup *s)
{
	while (s->pending < SETUP_WINDOW && s->next < s->n) {
		struct conn *c = s->conns[s->next++];

		c->setup = s;
		c->loop = s->loop;
		s->pending++;
		if (conn_start_mount(c) < 0) {
			setup_finished(c, false);
			continue;
		}
		watch(c);
	}
	if (s->pending == 0)
		ev_break(s->loop, EVBREAK_ONE);
}

static void setup_deadline_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)w;
	(void)revents;
	ev_break(loop, EVBREAK_ONE);
}

static void setup_tick_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct conn_setup *s = w->data;

	(void)loop;
	(void)revents;
	for (unsigned i = 0; i < s->next; i++) {
		struct conn *c = s->conns[i];

		if (c->state == CONN_MOUNTING || c->state == CONN_OPENING)
			service(c, 0);
	}
}

int conn_setup_all(struct conn **conns, unsigned n, uint64_t deadline_ns,
		   struct hist *mount_lat, struct hist *open_lat, uint64_t *elapsed_ns,
		   char *err, size_t errlen)
{
	struct conn_setup s = {
		.conns = conns, .n = n, .mount_lat = mount_lat, .open_lat = open_lat,
	};
	uint64_t t0 = now_ns();
	ev_timer deadline, tick;
	unsigned stuck = 0;

	s.loop = ev_loop_new(EVBACKEND_EPOLL);
	if (!s.loop) {
		snprintf(err, errlen, "cannot create an event loop");
		return -ENOMEM;
	}
	ev_timer_init(&deadline, setup_deadline_cb, (double)deadline_ns / 1e9, 0.);
	ev_timer_start(s.loop, &deadline);
	ev_timer_init(&tick, setup_tick_cb, 0.5, 0.5);
	tick.data = &s;
	ev_timer_start(s.loop, &tick);
	setup_start_next(&s);
	if (s.pending)
		ev_run(s.loop, 0);
	for (unsigned i = 0; i < n; i++) {
		struct conn *c = conns[i];

		if (c->state != CONN_READY && c->state != CONN_FAILED) {
			stuck++;
			c->state = CONN_FAILED;
			snprintf(c->error, sizeof(c->error), "not ready after %.0f s",
				 (double)deadline_ns / 1e9);
		}
		if (c->loop)
			ev_io_stop(s.loop, &c->io);
		c->loop = NULL;
		c->fd = -1;
		c->events = 0;
		c->setup = NULL;
	}
	ev_loop_destroy(s.loop);
	*elapsed_ns = now_ns() - t0;
	if (s.failed || stuck) {
		snprintf(err, errlen, "%u of %u connections failed to set up%s%s%s",
			 s.failed + stuck, n, s.first_error[0] ? " (" : "",
			 s.first_error[0] ? s.first_error : "", s.first_error[0] ? ")" : "");
		if (!s.first_error[0] && stuck)
			snprintf(err, errlen, "%u of %u connections not ready after %.0f s "
				 "(server too slow, or refusing connections)", stuck, n,
				 (double)deadline_ns / 1e9);
		return -EIO;
	}
	return 0;
}

/* ---- running ---- */

void conn_attach(struct conn *c, struct ev_loop *loop, void *owner,
		 conn_done_fn done, conn_fail_fn fail, conn_ready_fn ready)
{
	c->loop = loop;
	c->owner = owner;
	c->done = done;
	c->fail = fail;
	c->ready = ready;
	c->fd = -1;
	c->events = 0;
	watch(c);
}

void conn_detach(struct conn *c)
{
	if (c->loop)
		ev_io_stop(c->loop, &c->io);
	c->loop = NULL;
	c->done = NULL;
	c->fail = NULL;
	c->ready = NULL;
}

static void close_cb(int status, struct nfs_context *nfs, void *data, void *priv);

/* Destroys the context without a callback for what it had in flight. */
static void drop_context(struct conn *c)
{
	if (c->loop)
		ev_io_stop(c->loop, &c->io);
	if (c->nfs) {
		c->dropping = true;
		/*
		 * libnfs does not free open handles with the context: a close frees
		 * them (NFSv3 at once, NFSv4 when the CLOSE is failed just below).
		 */
		for (uint32_t i = 0; i < c->nfiles; i++)
			if (c->fhs[i])
				nfs_close_async(c->nfs, c->fhs[i], close_cb, NULL);
		nfs_destroy_context(c->nfs);
		c->dropping = false;
		c->nfs = NULL;
	}
	memset(c->fhs, 0, c->nfiles * sizeof(*c->fhs));
	c->fd = -1;
	c->events = 0;
}

int conn_reconnect(struct conn *c)
{
	int rc;

	drop_context(c);
	c->error[0] = c->last_op_error[0] = '\0';
	pthread_mutex_lock(&setup_mu);
	rc = conn_start_mount(c);
	pthread_mutex_unlock(&setup_mu);
	if (rc < 0) {
		c->state = CONN_FAILED;
		return rc;
	}
	watch(c);
	return 0;
}

void conn_abandon(struct conn *c)
{
	drop_context(c);
	c->state = CONN_FAILED;
}

/*
 * libnfs 4.0 ends a timed-out READ or WRITE with -EINTR ("cancelled"; nfsload
 * cancels nothing while it still listens), and both an NFS error status and
 * an RPC or connection failure with -EFAULT, its data then being a reply
 * struct or a string. The context's error tells them apart: "NFS: ... (errno)"
 * for a status.
 */
static int normalize_status(struct nfs_context *nfs, int status)
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

static void rw_cb(int status, struct nfs_context *nfs, void *data, void *priv)
{
	struct conn_req *req = priv;
	struct conn *c = req->conn;

	if (c->dropping)
		return;
	req->data = data;
	if (status < 0) {
		const char *msg = nfs_get_error(nfs);

		/* Kept for the connection's error line should the socket die next. */
		if (msg)
			snprintf(c->last_op_error, sizeof(c->last_op_error), "%s", msg);
		status = normalize_status(nfs, status);
	}
	if (c->done)
		c->done(c->owner, req, status);
}

static void finish(struct conn_req *req, int status)
{
	struct conn *c = req->conn;

	if (c->done)
		c->done(c->owner, req, status);
}

static void close_cb(int status, struct nfs_context *nfs, void *data, void *priv)
{
	(void)status;
	(void)nfs;
	(void)data;
	(void)priv;
}

/* open -> READ/WRITE -> close, reported once: stage 0 opened, 1 transferred. */
static void meta_file_cb(int status, struct nfs_context *nfs, void *data, void *priv)
{
	struct conn_req *req = priv;
	struct conn *c = req->conn;
	int rc;

	if (c->dropping)
		return;
	if (status < 0 || !c->done) {
		if (req->stage == 1 && req->fh)
			nfs_close_async(nfs, req->fh, close_cb, NULL);
		rw_cb(status, nfs, data, priv);
		return;
	}
	if (req->stage == 0) {
		req->fh = data;
		req->stage = 1;
		if (req->op == OP_OPEN) {
			nfs_close_async(nfs, req->fh, close_cb, NULL);
			finish(req, 0);
			return;
		}
#ifdef LIBNFS_API_V2
		rc = req->op == OP_READ ?
			nfs_pread_async(nfs, req->fh, c->read_buf, req->len, 0, meta_file_cb, req) :
			nfs_pwrite_async(nfs, req->fh, req->buf, req->len, 0, meta_file_cb, req);
#else
		rc = req->op == OP_READ ?
			nfs_pread_async(nfs, req->fh, 0, req->len, meta_file_cb, req) :
			nfs_pwrite_async(nfs, req->fh, 0, req->len, req->buf, meta_file_cb, req);
#endif
		if (rc < 0) {
			nfs_close_async(nfs, req->fh, close_cb, NULL);
			finish(req, -EIO);
		}
		return;
	}
	nfs_close_async(nfs, req->fh, close_cb, NULL);
	finish(req, status);
}

/* A directory listing, discarded once read. */
static void readdir_cb(int status, struct nfs_context *nfs, void *data, void *priv)
{
	if (((struct conn_req *)priv)->conn->dropping)
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
	if (((struct conn_req *)priv)->conn->dropping)
		return;
	if (status >= 0) {
		nfs_close_async(nfs, data, close_cb, NULL);
		status = 0;
	}
	rw_cb(status, nfs, NULL, priv);
}

int conn_submit_meta(struct conn *c, enum op_type op, const char *path, const char *path2,
		     uint32_t len, const void *buf, struct conn_req *req)
{
	struct nfs_context *nfs = c->nfs;
	int rc;

	if (c->state != CONN_READY)
		return -ENOTCONN;
	*req = (struct conn_req){ .conn = c, .op = op, .len = len, .buf = buf };
	switch (op) {
	case OP_READ:
		rc = nfs_open_async(nfs, path, O_RDONLY, meta_file_cb, req);
		break;
	case OP_WRITE:
		rc = nfs_open_async(nfs, path, O_WRONLY, meta_file_cb, req);
		break;
	case OP_OPEN:
		rc = nfs_open_async(nfs, path, O_RDONLY, meta_file_cb, req);
		break;
	case OP_GETATTR:
	case OP_LOOKUP:
		rc = nfs_stat64_async(nfs, path, rw_cb, req);
		break;
	case OP_ACCESS:
		rc = nfs_access_async(nfs, path, R_OK | W_OK, rw_cb, req);
		break;
	case OP_SETATTR:
		/* SETATTR in turn: mode, size (to --file-size), times. */
		switch (c->setattrs++ % 3) {
		case 0:
			rc = nfs_chmod_async(nfs, path, 0644, rw_cb, req);
			break;
		case 1:
			rc = nfs_truncate_async(nfs, path, c->cfg->file_size, rw_cb, req);
			break;
		default: {
			struct timeval tv[2];

			gettimeofday(&tv[0], NULL);	/* a file time, not an interval */
			tv[1] = tv[0];
			rc = nfs_utimes_async(nfs, path, tv, rw_cb, req);
		}
		}
		break;
	case OP_READDIR:
		rc = nfs_opendir_async(nfs, path, readdir_cb, req);
		break;
	case OP_CREATE:
		/* With len: create and write the whole file, timed as one (small-file test). */
		rc = nfs_open2_async(nfs, path, O_CREAT | O_EXCL | O_WRONLY, 0644,
				     len ? meta_file_cb : create_cb, req);
		break;
	case OP_REMOVE:
		rc = nfs_unlink_async(nfs, path, rw_cb, req);
		break;
	case OP_MKDIR:
		rc = nfs_mkdir_async(nfs, path, rw_cb, req);
		break;
	case OP_RMDIR:
		rc = nfs_rmdir_async(nfs, path, rw_cb, req);
		break;
	case OP_RENAME:
		rc = nfs_rename_async(nfs, path, path2, rw_cb, req);
		break;
	default:
		return -EINVAL;
	}
	return rc < 0 ? -EIO : 0;
}

int conn_submit(struct conn *c, const struct wl_op *op, const void *buf, struct conn_req *req)
{
	struct nfsfh *fh = c->fhs[op->range];
	int rc;

	if (c->state != CONN_READY)
		return -ENOTCONN;
	req->conn = c;
	if (op->type == OP_COMMIT)
		rc = nfs_fsync_async(c->nfs, fh, rw_cb, req);	/* COMMIT (v3 and v4) */
#ifdef LIBNFS_API_V2
	else if (op->type == OP_READ)
		rc = nfs_pread_async(c->nfs, fh, c->read_buf, op->len, op->offset, rw_cb, req);
	else
		rc = nfs_pwrite_async(c->nfs, fh, buf, op->len, op->offset, rw_cb, req);
#else
	else if (op->type == OP_READ)
		rc = nfs_pread_async(c->nfs, fh, op->offset, op->len, rw_cb, req);
	else
		rc = nfs_pwrite_async(c->nfs, fh, op->offset, op->len, buf, rw_cb, req);
#endif
	return rc < 0 ? -EIO : 0;
}

void conn_flush(struct conn *c)
{
	if (c->state != CONN_READY || c->in_service)
		return;
	if (nfs_which_events(c->nfs) & POLLOUT) {
		c->in_service = true;
		if (nfs_service(c->nfs, POLLOUT) < 0) {
			c->in_service = false;
			conn_die(c, "connection lost");
			return;
		}
		c->in_service = false;
	}
	watch(c);
}

void conn_tick(struct conn *c)
{
	bool remaking = !c->setup && (c->state == CONN_MOUNTING || c->state == CONN_OPENING);

	if ((c->state == CONN_READY || remaking) && c->nfs && !c->in_service)
		service(c, 0);
}

/* ---- the control connection: work directory and files ---- */

struct ctl {
	const struct config *cfg;
	struct nfs_context *nfs;
};

static int ctl_fail(struct ctl *ctl, char *err, size_t len, const char *what, int rc)
{
	const char *why = nfs_get_error(ctl->nfs);

	snprintf(err, len, "%s: %s", what, why && *why ? why : strerror(-rc));
	return rc < 0 ? rc : -EIO;
}

static void ports_note(const struct config *cfg, char *buf, size_t len)
{
	if (cfg->nfs_version == 4)
		snprintf(buf, len, "port %u", cfg->nfsport ? cfg->nfsport : 2049);
	else if (cfg->nfsport && cfg->mountport)
		snprintf(buf, len, "NFS port %u, MOUNT port %u", cfg->nfsport, cfg->mountport);
	else if (cfg->nfsport)
		snprintf(buf, len, "NFS port %u, MOUNT port from rpcbind", cfg->nfsport);
	else
		snprintf(buf, len, "ports from rpcbind");
}

/* A fresh context mounted on the export (also to recover after an outage). */
static int ctl_mount(struct ctl *ctl, char *err, size_t len)
{
	const struct config *cfg = ctl->cfg;
	struct nfs_url *url;
	char name[96];
	int rc;

	if (ctl->nfs)
		nfs_destroy_context(ctl->nfs);
	ctl->nfs = nfs_init_context();
	if (!ctl->nfs) {
		snprintf(err, len, "cannot create a libnfs context");
		return -ENOMEM;
	}
	url = nfs_parse_url_dir(ctl->nfs, cfg->libnfs_url);
	if (!url)
		return ctl_fail(ctl, err, len, "URL", -EINVAL);
	nfs_set_timeout(ctl->nfs, (int)(cfg->timeout_ns / 1000000));
	nfs_set_autoreconnect(ctl->nfs, 0);
	snprintf(name, sizeof(name), "nfsload-%ld-ctl-%llx", (long)getpid(),
		 (unsigned long long)now_ns());
	if (cfg->nfs_version == 4)
		nfs4_set_client_name(ctl->nfs, name);
	rc = nfs_mount(ctl->nfs, url->server, url->path);
	nfs_destroy_url(url);
	if (rc < 0) {
		char what[CFG_URL_MAX + 400], ports[80];

		ports_note(cfg, ports, sizeof(ports));
		snprintf(what, sizeof(what), "cannot mount %s:%s (NFSv%d, %s)", cfg->host, cfg->path,
			 cfg->nfs_version, ports);
		return ctl_fail(ctl, err, len, what, rc);
	}
	return 0;
}

int ctl_open(const struct config *cfg, struct ctl **out, char *err, size_t len)
{
	struct ctl *ctl = calloc(1, sizeof(*ctl));

	if (!ctl) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	ctl->cfg = cfg;
	*out = ctl;
	return ctl_mount(ctl, err, len);
}

/* 1 if the directory has entries besides "." and "..", 0 if not, or -errno. */
static int dir_has_entries(struct ctl *ctl, const char *path)
{
	struct nfsdir *dir;
	struct nfsdirent *e;
	int found = 0;

	if (nfs_opendir(ctl->nfs, path, &dir) < 0)
		return -EIO;
	while ((e = nfs_readdir(ctl->nfs, dir)))
		if (strcmp(e->name, ".") && strcmp(e->name, ".."))
			found = 1;
	nfs_closedir(ctl->nfs, dir);
	return found;
}

static int write_marker(struct ctl *ctl, const char *path)
{
	struct nfsfh *fh;
	char text[160];
	int n, rc;

	n = snprintf(text, sizeof(text), "nfsload work directory: nfsload may create, write "
		     "and delete files here.\npid %ld\n", (long)getpid());
	rc = nfs_open2(ctl->nfs, path, O_CREAT | O_WRONLY, 0644, &fh);
	if (rc < 0)
		return rc;
#ifdef LIBNFS_API_V2
	rc = nfs_write(ctl->nfs, fh, text, (uint64_t)n);
#else
	rc = nfs_write(ctl->nfs, fh, (uint64_t)n, text);
#endif
	nfs_close(ctl->nfs, fh);
	return rc < 0 ? rc : 0;
}

/* --verify-only reads what an earlier run left: it creates nothing, not even the marker. */
static int verify_only_files(struct ctl *ctl, struct fileset *fs, const char *dir,
			     const char *marker, char *err, size_t len)
{
	const struct config *cfg = ctl->cfg;
	struct nfs_stat_64 st;
	char path[320];

	if (nfs_stat64(ctl->nfs, dir, &st) < 0 || nfs_stat64(ctl->nfs, marker, &st) < 0) {
		snprintf(err, len, "--verify-only: no nfsload work directory '%s' to check (write "
			 "the files first with --verify --keep)", cfg->dir);
		return -ENOENT;
	}
	for (uint32_t i = 0; i < fs->n; i++) {
		conn_file_path(cfg, i, path, sizeof(path));
		if (nfs_stat64(ctl->nfs, path, &st) < 0 || !S_ISREG(st.nfs_mode) ||
		    st.nfs_size < cfg->size) {
			snprintf(err, len, "--verify-only: %s is missing or shorter than --size "
				 "(check with the --size and --nrfiles it was written with)", path);
			return -ENOENT;
		}
		fs->size[i] = st.nfs_size;
	}
	return 0;
}

int ctl_prepare(struct ctl *ctl, struct fileset *fs, char *err, size_t len)
{
	const struct config *cfg = ctl->cfg;
	struct nfs_stat_64 st;
	char dir[300], path[320];
	int rc;

	memset(fs, 0, sizeof(*fs));
	fs->n = cfg->nrfiles;
	fs->size = calloc(fs->n, sizeof(*fs->size));
	fs->created = calloc(fs->n, sizeof(*fs->created));
	if (!fs->size || !fs->created) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	snprintf(dir, sizeof(dir), "/%s", cfg->dir);
	snprintf(path, sizeof(path), "%s/" MARKER, dir);
	if (cfg->verify_only)
		return verify_only_files(ctl, fs, dir, path, err, len);
	if (nfs_stat64(ctl->nfs, dir, &st) < 0) {
		rc = nfs_mkdir(ctl->nfs, dir);
		if (rc < 0)
			return ctl_fail(ctl, err, len, "cannot create the work directory", rc);
		fs->dir_created = true;
		fs->marker_created = true;
		rc = write_marker(ctl, path);
		if (rc < 0)
			return ctl_fail(ctl, err, len, "cannot write the work directory marker", rc);
	} else if (!S_ISDIR(st.nfs_mode)) {
		snprintf(err, len, "--dir: '%s' exists on the server and is not a directory", cfg->dir);
		return -EEXIST;
	} else if (nfs_stat64(ctl->nfs, path, &st) < 0) {
		/* Not marked as ours: only an empty directory may be adopted. */
		rc = dir_has_entries(ctl, dir);
		if (rc != 0) {
			snprintf(err, len, "--dir: '%s' exists, is not empty and has no %s marker: "
				 "not nfsload's, refusing to write there (choose another --dir)",
				 cfg->dir, MARKER);
			return -EEXIST;
		}
		fs->marker_created = true;
		rc = write_marker(ctl, path);
		if (rc < 0)
			return ctl_fail(ctl, err, len, "cannot write the work directory marker", rc);
	}

	for (uint32_t i = 0; i < fs->n; i++) {
		struct nfsfh *fh;

		conn_file_path(cfg, i, path, sizeof(path));
		if (nfs_stat64(ctl->nfs, path, &st) == 0) {
			if (!S_ISREG(st.nfs_mode)) {
				snprintf(err, len, "%s exists and is not a regular file", path);
				return -EEXIST;
			}
			fs->size[i] = st.nfs_size;
			continue;
		}
		/* libnfs 4.0 v4 treats O_CREAT as O_EXCL: create only what is missing. */
		rc = nfs_open2(ctl->nfs, path, O_CREAT | O_RDWR, 0644, &fh);
		if (rc < 0) {
			char what[360];

			snprintf(what, sizeof(what), "cannot create %s", path);
			return ctl_fail(ctl, err, len, what, rc);
		}
		nfs_close(ctl->nfs, fh);
		fs->created[i] = true;
	}
	return 0;
}

static int ctl_remove_all(struct ctl *ctl, const struct fileset *fs)
{
	char path[320];

	for (uint32_t i = 0; i < fs->n; i++) {
		if (!fs->created || !fs->created[i])
			continue;
		conn_file_path(ctl->cfg, i, path, sizeof(path));
		if (nfs_unlink(ctl->nfs, path) < 0) {
			struct nfs_stat_64 st;

			/* Gone already (a retry after an outage) is fine. */
			if (nfs_stat64(ctl->nfs, path, &st) != -ENOENT)
				return -EIO;
		}
	}
	if (fs->marker_created) {
		snprintf(path, sizeof(path), "/%s/" MARKER, ctl->cfg->dir);
		nfs_unlink(ctl->nfs, path);
	}
	if (fs->dir_created) {
		snprintf(path, sizeof(path), "/%s", ctl->cfg->dir);
		if (nfs_rmdir(ctl->nfs, path) < 0)
			return -EIO;
	}
	return 0;
}

int ctl_cleanup(struct ctl *ctl, const struct fileset *fs, char *err, size_t len)
{
	uint64_t deadline = now_ns() + ctl->cfg->timeout_ns;

	if (ctl_remove_all(ctl, fs) == 0)
		return 0;
	/*
	 * The control connection sat idle all run: the server may have dropped
	 * it or be restarting. Remount and retry for up to --timeout.
	 */
	do {
		if (ctl_mount(ctl, err, len) == 0 && ctl_remove_all(ctl, fs) == 0)
			return 0;
		usleep(250000);
	} while (now_ns() < deadline);
	return ctl_fail(ctl, err, len, "cannot remove what this run created", -EIO);
}

void ctl_free(struct ctl *ctl)
{
	if (!ctl)
		return;
	if (ctl->nfs)
		nfs_destroy_context(ctl->nfs);
	free(ctl);
}

void fileset_destroy(struct fileset *fs)
{
	free(fs->size);
	free(fs->created);
	fs->size = NULL;
	fs->created = NULL;
}

/* ---- --mix trees ---- */

void conn_meta_path(const struct config *cfg, unsigned conn, unsigned dir, const char *leaf,
		    char *buf, size_t len)
{
	snprintf(buf, len, "/%s/c%u/d%u%s%s", cfg->dir, conn, dir, leaf ? "/" : "", leaf ? leaf : "");
}

/* Empties and removes path, a directory nfsload made, down to depth levels. */
static int remove_tree(struct ctl *ctl, const char *path, int depth)
{
	struct nfsdir *dir;
	struct nfsdirent *e;
	char child[400];
	int rc = 0;

	if (nfs_opendir(ctl->nfs, path, &dir) < 0)
		return -EIO;
	while ((e = nfs_readdir(ctl->nfs, dir))) {
		if (!strcmp(e->name, ".") || !strcmp(e->name, ".."))
			continue;
		snprintf(child, sizeof(child), "%s/%s", path, e->name);
		if (S_ISDIR(e->mode) && depth > 0)
			rc |= remove_tree(ctl, child, depth - 1);
		else if (nfs_unlink(ctl->nfs, child) < 0)
			rc = -EIO;
	}
	nfs_closedir(ctl->nfs, dir);
	if (nfs_rmdir(ctl->nfs, path) < 0)
		rc = -EIO;
	return rc;
}

int ctl_meta_prepare(struct ctl *ctl, const uint8_t *data, bool empty, char *err, size_t len)
{
	const struct config *cfg = ctl->cfg;
	struct nfs_stat_64 st;
	char path[400], leaf[32];

	for (unsigned c = 0; c < cfg->connections; c++) {
		snprintf(path, sizeof(path), "/%s/c%u", cfg->dir, c);
		if (nfs_stat64(ctl->nfs, path, &st) == 0 && remove_tree(ctl, path, 2) < 0)
			return ctl_fail(ctl, err, len, "cannot remove an old tree", -EIO);
		if (nfs_mkdir(ctl->nfs, path) < 0)
			return ctl_fail(ctl, err, len, "cannot make a --mix tree", -EIO);
		for (unsigned d = 0; d < cfg->dirs; d++) {
			conn_meta_path(cfg, c, d, NULL, path, sizeof(path));
			if (nfs_mkdir(ctl->nfs, path) < 0)
				return ctl_fail(ctl, err, len, "cannot make a --mix directory", -EIO);
			for (unsigned f = 0; !empty && f < cfg->files_per_dir; f++) {
				struct nfsfh *fh;
				int rc;

				snprintf(leaf, sizeof(leaf), "f%u", f);
				conn_meta_path(cfg, c, d, leaf, path, sizeof(path));
				if (nfs_open2(ctl->nfs, path, O_CREAT | O_WRONLY, 0644, &fh) < 0)
					return ctl_fail(ctl, err, len, "cannot create a --mix file", -EIO);
#ifdef LIBNFS_API_V2
				rc = nfs_pwrite(ctl->nfs, fh, data, cfg->file_size, 0);
#else
				rc = nfs_pwrite(ctl->nfs, fh, 0, cfg->file_size, data);
#endif
				nfs_close(ctl->nfs, fh);
				if (rc < 0)
					return ctl_fail(ctl, err, len, "cannot write a --mix file", rc);
			}
		}
	}
	return 0;
}

int ctl_meta_cleanup(struct ctl *ctl, char *err, size_t len)
{
	char path[400];
	int rc = 0;

	for (unsigned c = 0; c < ctl->cfg->connections; c++) {
		snprintf(path, sizeof(path), "/%s/c%u", ctl->cfg->dir, c);
		rc |= remove_tree(ctl, path, 2);
	}
	return rc ? ctl_fail(ctl, err, len, "cannot remove a --mix tree", -EIO) : 0;
}
