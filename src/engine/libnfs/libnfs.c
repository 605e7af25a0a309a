/*
 * The libnfs engine: NFSv3 and NFSv4.0 through libnfs's async API, one
 * libnfs context (one TCP connection) per connection, on libev loops.
 *
 * This file: the engine table and a connection's life (mount, open,
 * attach, drop). This build's limits are in libnfs_limits.c, requests in
 * libnfs_ops.c, the control connection in libnfs_ctl.c.
 *
 * libnfs 4.0 quirks handled here: requests leave only when the socket is
 * serviced with POLLOUT, so commit() services it right away; the fd can
 * change while mounting (v3 talks to mountd first), so it is re-read after
 * every service call; timeouts are only checked inside nfs_service, so
 * tick() services with no events.
 */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdarg.h>
#include <stddef.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/clock.h"
#include "libnfs.h"
#include "units.h"

/* libnfs binds reserved source ports as root; there are fewer than 512. */
#define RESERVED_PORTS_MAX 384

/*
 * Process-wide on purpose: it guards libnfs's own statics, shared by every
 * instance. Recursive: a set-up step's callback, run under it from service(),
 * ends a set-up, and the window starts the next (connect_conn) on this thread.
 */
pthread_mutex_t libnfs_setup_mu = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

enum { STEP_MOUNT, STEP_OPEN };	/* libnfs_limits.c names them */

/*
 * libnfs binds every socket of a root process to a reserved port (512-1023),
 * calling getservbyport() (a scan of /etc/services) for each candidate port.
 * Once the range is used up, each new connection costs ~500 such scans: 600
 * connections took 5.7 s to set up here, 1,000 took 17 s. Lowering
 * CAP_NET_BIND_SERVICE from the effective set makes the first bind() fail
 * with EACCES, and libnfs then takes an ordinary port at once.
 */
static int use_reserved_ports(bool use)
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

static int init(const struct engine_params *cfg, struct engine_inst **inst, char *note, size_t len)
{
	*inst = NULL;
	note[0] = '\0';
	/* libnfs mallocs 4 KiB + count per WRITE: keep those off mmap/munmap. */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	if (cfg->connections >= RESERVED_PORTS_MAX && use_reserved_ports(false) == 0)
		snprintf(note, len, "%u connections: ordinary source ports, not reserved ones "
			 "(fewer than 512 exist; exports marked 'secure' will refuse)",
			 cfg->connections);
	return 0;
}

struct nfs_context *libnfs_context(const struct engine_params *cfg, const char *tag, char *err,
				   size_t len)
{
	struct nfs_context *nfs = nfs_init_context();
	char name[96];

	if (!nfs) {
		snprintf(err, len, "cannot create a libnfs context");
		return NULL;
	}
	nfs_set_timeout(nfs, (int)(cfg->timeout_ns / 1000000));
	/*
	 * libnfs would reconnect forever by default and resend what was in
	 * flight, hiding the outage in stretched latencies: fail the requests.
	 */
	nfs_set_autoreconnect(nfs, 0);
	/* Contexts made in the same second would share a v4 client id. */
	snprintf(name, sizeof(name), "nfsload-%ld-%s-%llx", (long)getpid(), tag,
		 (unsigned long long)now_ns());
	if (cfg->nfs_version == 4)
		nfs4_set_client_name(nfs, name);
	return nfs;
}

void libnfs_set_error(struct engine_conn *c, const char *what, const char *detail)
{
	snprintf(c->error, sizeof(c->error), "%s: %s", what,
		 detail && *detail ? detail : "unknown error");
}

/* libev and poll(2) event bits are not the same numbers. */
static int to_ev(int pollev)
{
	return ((pollev & POLLIN) ? EV_READ : 0) | ((pollev & POLLOUT) ? EV_WRITE : 0);
}

static void watch(struct engine_conn *c)
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

static bool setting_up(const struct engine_conn *c)
{
	return c->state == LCONN_MOUNTING || c->state == LCONN_OPENING;
}

/* Set-up ended: the owner hears of it through ready(). */
static void setup_finished(struct engine_conn *c, bool ok)
{
	if (!ok) {
		c->state = LCONN_DOWN;
		ev_io_stop(c->loop, &c->io);
	} else {
		c->state = LCONN_READY;
	}
	if (c->cbs)
		c->cbs->ready(c->owner, c, ok);
}

void libnfs_conn_die(struct engine_conn *c, const char *what)
{
	if (c->state == LCONN_DOWN)
		return;
	if (!c->error[0] || c->refused) {
		const char *why = nfs_get_error(c->nfs);

		libnfs_set_error(c, what, why && *why ? why : c->last_op_error);
	}
	if (setting_up(c)) {
		setup_finished(c, false);
		return;
	}
	c->state = LCONN_DOWN;
	ev_io_stop(c->loop, &c->io);
	if (c->cbs)
		c->cbs->lost(c->owner, c);
}

/* --max-load (lowat.h): the connection's socket, while libnfs has one. */
static int apply_lowat(struct lowat *l, int bytes)
{
	struct engine_conn *c = (struct engine_conn *)((char *)l - offsetof(struct engine_conn, lw));
	int fd = c->nfs && c->state == LCONN_READY ? nfs_get_fd(c->nfs) : -1;

	return fd < 0 ? -1 : setsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &bytes, sizeof(bytes));
}

static void service(struct engine_conn *c, int revents)
{
	/*
	 * libnfs reads before it writes within one call: with POLLOUT added,
	 * the requests the completion callbacks queue leave in the same call,
	 * without another loop turn and without a second timeout scan (each
	 * nfs_service walks 1024 hash buckets).
	 */
	bool locked = setting_up(c);
	int rc;

	if (c->state == LCONN_READY)
		revents |= POLLOUT;
	if (locked)
		pthread_mutex_lock(&libnfs_setup_mu);
	c->in_service = true;
	rc = nfs_service(c->nfs, revents);
	c->in_service = false;
	if (locked)
		pthread_mutex_unlock(&libnfs_setup_mu);
	if (rc < 0) {
		libnfs_conn_die(c, "connection lost");
		return;
	}
	if (revents & POLLIN)
		c->lw.rx_seen = true;
	if (c->state == LCONN_READY)
		lowat_update(&c->lw, c->inflight, c->cfg->opt.max_load);
	if (c->state != LCONN_DOWN)
		watch(c);
}

static void io_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	(void)loop;
	service(w->data, ((revents & EV_READ) ? POLLIN : 0) | ((revents & EV_WRITE) ? POLLOUT : 0));
}

static int conn_new(struct engine_inst *inst, const struct engine_params *cfg, unsigned id,
		    const uint32_t *file_ids, uint32_t nfiles, struct engine_conn **out)
{
	struct engine_conn *c = calloc(1, sizeof(*c));

	(void)inst;
	if (!c)
		return -ENOMEM;
	c->cfg = cfg;
	c->id = id;
	c->fd = -1;
	c->nfiles = nfiles;
	c->file_ids = malloc(nfiles * sizeof(*c->file_ids) + 1);
	c->fhs = calloc(nfiles + 1, sizeof(*c->fhs));
	if (SHIM_READS_INTO_BUF)
		c->read_buf = malloc(cfg->bs > cfg->file_size ? cfg->bs : cfg->file_size);
	if (!c->file_ids || !c->fhs || (SHIM_READS_INTO_BUF && !c->read_buf)) {
		free(c->fhs);
		free(c->file_ids);
		free(c->read_buf);
		free(c);
		return -ENOMEM;
	}
	memcpy(c->file_ids, file_ids, nfiles * sizeof(*file_ids));
	lowat_init(&c->lw, cfg);
	ev_init(&c->io, io_cb);
	c->io.data = c;
	*out = c;
	return 0;
}

static void step_done(struct engine_conn *c, unsigned step)
{
	if (c->cbs && c->cbs->step)
		c->cbs->step(c->owner, step, now_ns() - c->step_start_ns);
}

static void open_cb(int err, struct nfs_context *nfs, void *data, void *priv);

/*
 * Files open one after another: NFSv4.0 OPENs from one open-owner must not
 * overlap (libnfs uses one owner per context; parallel OPENs fail with
 * BAD_SEQID), and the handles stay in the order of file_ids.
 */
static int open_next(struct engine_conn *c)
{
	char path[300];

	wl_file_name(c->cfg->dir, c->file_ids[c->nfiles - c->opens_pending], path, sizeof(path));
	c->step_start_ns = now_ns();
	if (nfs_open_async(c->nfs, path, O_RDWR | (c->cfg->sync ? O_SYNC : 0), open_cb, c) < 0) {
		libnfs_set_error(c, "open", nfs_get_error(c->nfs));
		return -EIO;
	}
	return 0;
}

static void open_cb(int err, struct nfs_context *nfs, void *data, void *priv)
{
	struct engine_conn *c = priv;

	(void)nfs;
	if (c->dropping || c->state != LCONN_OPENING)
		return;
	if (err < 0) {
		libnfs_set_error(c, "open", data);
		setup_finished(c, false);
		return;
	}
	c->fhs[c->nfiles - c->opens_pending] = data;
	step_done(c, STEP_OPEN);
	if (--c->opens_pending == 0)
		setup_finished(c, true);
	else if (open_next(c) < 0)
		setup_finished(c, false);
}

static void mount_cb(int err, struct nfs_context *nfs, void *data, void *priv)
{
	struct engine_conn *c = priv;
	int one = 1;

	if (c->dropping || c->state != LCONN_MOUNTING)
		return;
	if (err < 0) {
		libnfs_set_error(c, "mount", data);
		setup_finished(c, false);
		return;
	}
	step_done(c, STEP_MOUNT);
	setsockopt(nfs_get_fd(nfs), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	c->state = LCONN_OPENING;
	c->opens_pending = c->nfiles;
	if (c->nfiles == 0)
		setup_finished(c, true);
	else if (open_next(c) < 0)
		setup_finished(c, false);
}

static int start_mount(struct engine_conn *c)
{
	struct nfs_url *url;
	char tag[16];
	int rc;

	snprintf(tag, sizeof(tag), "%u", c->id);
	c->nfs = libnfs_context(c->cfg, tag, c->error, sizeof(c->error));
	if (!c->nfs)
		return -ENOMEM;
	url = nfs_parse_url_dir(c->nfs, c->cfg->server[engine_server_of(c->cfg, c->id)].canon_url);
	if (!url) {
		libnfs_set_error(c, "URL", nfs_get_error(c->nfs));
		return -EINVAL;
	}
	c->state = LCONN_MOUNTING;
	c->step_start_ns = now_ns();
	rc = nfs_mount_async(c->nfs, url->server, url->path, mount_cb, c);
	nfs_destroy_url(url);
	if (rc < 0) {
		libnfs_set_error(c, "mount", nfs_get_error(c->nfs));
		return -EIO;
	}
	return 0;
}

/* Destroys the context without a callback for what it had in flight. */
static void drop(struct engine_conn *c)
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
				nfs_close_async(c->nfs, c->fhs[i], libnfs_ignore_cb, NULL);
		nfs_destroy_context(c->nfs);
		c->dropping = false;
		c->nfs = NULL;
	}
	memset(c->fhs, 0, c->nfiles * sizeof(*c->fhs));
	c->fd = -1;
	c->events = 0;
	c->inflight = 0;
	lowat_reset(&c->lw);
	c->state = LCONN_DOWN;
}

static int connect_conn(struct engine_conn *c, struct engine_thread *t,
			const struct engine_cbs *cbs, void *owner)
{
	int rc;

	drop(c);
	c->loop = t->loop;
	c->cbs = cbs;
	c->owner = owner;
	c->error[0] = c->last_op_error[0] = '\0';
	c->refused = false;
	pthread_mutex_lock(&libnfs_setup_mu);
	rc = start_mount(c);
	pthread_mutex_unlock(&libnfs_setup_mu);
	if (rc < 0) {
		c->state = LCONN_DOWN;
		return rc;
	}
	watch(c);
	return 0;
}

static void attach(struct engine_conn *c, struct engine_thread *t, const struct engine_cbs *cbs,
		   void *owner)
{
	c->loop = t->loop;
	c->cbs = cbs;
	c->owner = owner;
	c->fd = -1;
	c->events = 0;
	if (c->cfg->opt.max_load)
		lowat_watch(&t->lowat, &c->lw);
	if (c->state == LCONN_READY)
		watch(c);
}

static void detach(struct engine_conn *c)
{
	lowat_unwatch(&c->lw);
	if (c->loop)
		ev_io_stop(c->loop, &c->io);
	c->loop = NULL;
	c->cbs = NULL;
	c->owner = NULL;
	c->fd = -1;
	c->events = 0;
}

static void commit(struct engine_conn *c)
{
	if (c->state != LCONN_READY || c->in_service)
		return;
	if (nfs_which_events(c->nfs) & POLLOUT) {
		c->in_service = true;
		if (nfs_service(c->nfs, POLLOUT) < 0) {
			c->in_service = false;
			libnfs_conn_die(c, "connection lost");
			return;
		}
		c->in_service = false;
	}
	lowat_update(&c->lw, c->inflight, c->cfg->opt.max_load);
	watch(c);
}

static void tick(struct engine_conn *c)
{
	if ((c->state == LCONN_READY || setting_up(c)) && c->nfs && !c->in_service)
		service(c, 0);
}

static void close_files(struct engine_conn *c)
{
	if (c->state != LCONN_READY)
		return;
	/* Synchronous: the loop that served this context is gone by now. */
	for (uint32_t i = 0; i < c->nfiles; i++) {
		if (c->fhs[i] && nfs_close(c->nfs, c->fhs[i]) < 0) {
			c->state = LCONN_DOWN;
			return;	/* the server stopped answering: don't wait on each file */
		}
		c->fhs[i] = NULL;
	}
}

static void conn_free(struct engine_conn *c)
{
	if (!c)
		return;
	if (c->loop)
		ev_io_stop(c->loop, &c->io);
	c->cbs = NULL;
	c->dropping = true;	/* pending callbacks return at once */
	if (c->nfs)
		nfs_destroy_context(c->nfs);
	free(c->fhs);
	free(c->file_ids);
	free(c->read_buf);
	free(c);
}

static const char *conn_error(const struct engine_conn *c)
{
	return c->error;
}

static struct engine_thread *thread_new(struct engine_inst *inst, const struct engine_params *cfg,
				       struct ev_loop *loop)
{
	struct engine_thread *t = calloc(1, sizeof(*t));

	(void)inst;
	(void)cfg;
	if (!t)
		return NULL;
	t->loop = loop;
	lowat_set_init(&t->lowat, loop, apply_lowat);
	return t;
}

static void thread_free(struct engine_thread *t)
{
	if (t)
		lowat_set_stop(&t->lowat);
	free(t);
}

static const struct opt options[] = { LOWAT_OPTION, { .name = NULL } };

const struct engine_ops engine_libnfs = {
	.name = "libnfs",
	.op_bit = OPE_LIBNFS,
	.about = SHIM_API,
	.needs_url = true,
	.proto = libnfs_proto,
	.options = options,
	.check = libnfs_check,
	.max_read = libnfs_max_read,
	.max_write = libnfs_max_write,
	.init = init,
	.limits_note = libnfs_limits_note,
	.thread_new = thread_new,
	.thread_free = thread_free,
	.conn_new = conn_new,
	.connect = connect_conn,
	.attach = attach,
	.detach = detach,
	.queue = libnfs_queue,
	.commit = commit,
	.tick = tick,
	.drop = drop,
	.close = close_files,
	.free = conn_free,
	.error = conn_error,
	.ctl = &libnfs_ctl_ops,
};
