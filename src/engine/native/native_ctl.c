/*
 * The native engine's synchronous side: rpcbind lookups at start, and the
 * control connection for the work directory (workdir.c says what to do with
 * it). The control connection is an engine connection with no files, on a
 * loop and an epoll transport of its own, driven until each request's
 * done(); its requests are the engine's operations on names
 * (native_meta.c). Its configuration is the run's without the work
 * directory, so its set-up stops at the export (the work directory may not
 * exist yet). After a while idle (an NFSv4.1 lease runs out unrenewed) or a
 * lost connection it is made afresh before the next request.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "native_meta.h"

#define PMAP_PROGRAM 100000
#define PMAP_VERS 2
#define PMAP_GETPORT 3
#define PMAP_TIMEOUT_MS 3000

/* Waits for fd to be ready for events until deadline: 0, or -ETIMEDOUT/-errno. */
static int wait_fd(int fd, short events, uint64_t deadline)
{
	struct pollfd p = { .fd = fd, .events = events };
	uint64_t now = now_ns();
	int rc;

	if (now >= deadline)
		return -ETIMEDOUT;
	rc = poll(&p, 1, (int)((deadline - now) / 1000000) + 1);
	if (rc < 0)
		return errno == EINTR ? 0 : -errno;
	return rc == 0 ? -ETIMEDOUT : 0;
}

struct one_reply {
	uint8_t buf[512];
	size_t len;
	bool done;
};

static int keep_reply(void *arg, const uint8_t *rec, size_t len)
{
	struct one_reply *r = arg;

	if (len > sizeof(r->buf))
		return -EBADMSG;
	memcpy(r->buf, rec, len);
	r->len = len;
	r->done = true;
	return 1;
}

/*
 * One call on a connection of its own, synchronously: out[0..n) (a whole
 * record) to sa, its reply's record into reply; 0 or -errno (-ETIMEDOUT
 * past deadline).
 */
static int sync_call(const struct sockaddr *sa, socklen_t len, const uint8_t *out, size_t n,
		     struct one_reply *reply, uint64_t deadline)
{
	struct rpc_rec rec;
	uint8_t in[512];
	size_t sent = 0;
	int fd, rc;

	fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	rpc_rec_init(&rec, sizeof(reply->buf));
	rc = connect(fd, sa, len) < 0 && errno != EINPROGRESS ? -errno : 0;
	while (rc == 0 && sent < n) {
		ssize_t w;

		if ((rc = wait_fd(fd, POLLOUT, deadline)) < 0)
			break;
		w = send(fd, out + sent, n - sent, MSG_NOSIGNAL);
		if (w < 0 && errno != EAGAIN && errno != EINTR)
			rc = -errno;
		else if (w > 0)
			sent += (size_t)w;
	}
	while (rc == 0 && !reply->done) {
		ssize_t r;

		if ((rc = wait_fd(fd, POLLIN, deadline)) < 0)
			break;
		r = recv(fd, in, sizeof(in), 0);
		if (r == 0)
			rc = -ECONNRESET;
		else if (r < 0 && errno != EAGAIN && errno != EINTR)
			rc = -errno;
		else if (r > 0 && (rc = rpc_rec_feed(&rec, in, (size_t)r, keep_reply, reply)) > 0)
			rc = 0;
	}
	close(fd);
	rpc_rec_destroy(&rec);
	return rc;
}

int nat_pmap_getport(const struct sockaddr *sa, socklen_t len, uint32_t prog, uint32_t vers,
		     unsigned *port, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	uint64_t deadline = now_ns() + (uint64_t)PMAP_TIMEOUT_MS * 1000000;
	struct one_reply reply = { .len = 0 };
	struct rpc_reply rh;
	uint8_t out[128];
	uint32_t p = 0, prot = IPPROTO_TCP, zero = 0;
	size_t n;
	int rc;
	XDR x;

	memcpy(&ss, sa, len);
	if (ss.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&ss)->sin6_port = htons(111);
	else
		((struct sockaddr_in *)&ss)->sin_port = htons(111);
	if (!rpc_start_call(&x, out, sizeof(out), 1, PMAP_PROGRAM, PMAP_VERS, PMAP_GETPORT, NULL) ||
	    !xdr_u_int(&x, &prog) || !xdr_u_int(&x, &vers) || !xdr_u_int(&x, &prot) ||
	    !xdr_u_int(&x, &zero))
		return -EINVAL;
	n = rpc_finish_call(&x, out, 0);
	xdr_destroy(&x);
	rc = sync_call((struct sockaddr *)&ss, len, out, n, &reply, deadline);
	if (rc < 0) {
		snprintf(err, errlen, "rpcbind (port 111): %s (give nfsport= and mountport= in the "
			 "URL, or start rpcbind)", strerror(-rc));
		return rc;
	}
	xdrmem_create(&x, (char *)reply.buf, (u_int)reply.len, XDR_DECODE);
	rc = rpc_decode_reply(&x, &rh);
	if (rc == 0)
		rc = rpc_reply_errno(&rh);
	if (rc == 0 && !xdr_u_int(&x, &p))
		rc = -EBADMSG;
	xdr_destroy(&x);
	if (rc == 0 && p == 0)
		rc = -EPROTONOSUPPORT;
	if (rc < 0) {
		snprintf(err, errlen, "rpcbind knows no %s version %u over TCP (%s)",
			 prog == MOUNT_PROGRAM ? "MOUNT" : "NFS", vers, strerror(-rc));
		return rc;
	}
	*port = p;
	return 0;
}

/*
 * UMNT of the export, as a kernel client sends it at umount: one for the
 * run (every connection's MNT named the same export from this host). Its
 * answer changes nothing for the run: 0 or -errno, said nowhere else.
 */
static int send_umnt(const struct engine_params *cfg, const struct rpc_cred *cred)
{
	uint64_t deadline = now_ns() + (uint64_t)PMAP_TIMEOUT_MS * 1000000;
	struct one_reply reply = { .len = 0 };
	const struct sockaddr *sa;
	struct rpc_reply rh;
	uint8_t out[1200];
	socklen_t len;
	size_t n;
	int rc;
	XDR x;

	sa = nat_addr(cfg->srv_index, true, &len);
	if (!rpc_start_call(&x, out, sizeof(out), 1, MOUNT_PROGRAM, MOUNT_V3, MNT3_UMNT, cred) ||
	    !mnt3_enc_mnt(&x, cfg->path))
		return -EINVAL;
	n = rpc_finish_call(&x, out, 0);
	xdr_destroy(&x);
	if ((rc = sync_call(sa, len, out, n, &reply, deadline)) < 0)
		return rc;
	xdrmem_create(&x, (char *)reply.buf, (u_int)reply.len, XDR_DECODE);
	rc = rpc_decode_reply(&x, &rh);
	if (rc == 0)
		rc = rpc_reply_errno(&rh);
	xdr_destroy(&x);
	return rc;
}

#define CTL_SCRATCH 65536
#define CTL_IDLE_NS (UINT64_C(15) * 1000000000)	/* idle this long: made afresh first */

struct ctl_name {
	char *name;
	bool is_dir;
};

/* A READDIR's entries, gathered before anyone sees them (fn may call back in). */
struct ctl_names {
	struct ctl_name *v;
	size_t n, cap;
	bool oom;
};

struct engine_ctl {
	struct engine_params cfg;		/* the run's, with no work directory */
	struct ev_loop *loop;
	struct engine_thread t;
	struct engine_conn *c;
	ev_timer tick;
	bool ready, ok, done, lost;
	bool mounted;			/* NFSv3: MNT went through (UMNT at the end) */
	int status;
	struct ctl_names *names;	/* the READDIR in flight's */
	char ports[160];
	char error[400];
};

static void ctl_done_cb(void *owner, struct engine_req *req, int status)
{
	struct engine_ctl *ctl = owner;

	(void)req;
	ctl->done = true;
	ctl->status = status;
}

static void ctl_lost_cb(void *owner, struct engine_conn *c)
{
	(void)c;
	((struct engine_ctl *)owner)->lost = true;
}

static void ctl_ready_cb(void *owner, struct engine_conn *c, bool ok)
{
	struct engine_ctl *ctl = owner;

	(void)c;
	ctl->ready = true;
	ctl->ok = ok;
}

static const struct engine_cbs ctl_cbs = {
	.done = ctl_done_cb, .lost = ctl_lost_cb, .ready = ctl_ready_cb,
};

/* Timeouts are checked once a second, as on a worker's loop. */
static void tick_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct engine_ctl *ctl = w->data;

	(void)loop;
	(void)revents;
	engine_native.tick(ctl->c);
}

/* Runs the loop until *flag or a lost connection; false if limit_ns (0: none) ran out. */
static bool run_until(struct engine_ctl *ctl, const bool *flag, uint64_t limit_ns)
{
	uint64_t deadline = now_ns() + limit_ns;

	while (!*flag && !ctl->lost) {
		if (limit_ns && now_ns() >= deadline)
			return false;
		ev_run(ctl->loop, EVRUN_ONCE);
	}
	return true;
}

static unsigned port_of(const struct sockaddr *sa)
{
	return ntohs(sa->sa_family == AF_INET6 ? ((const struct sockaddr_in6 *)sa)->sin6_port :
		     ((const struct sockaddr_in *)sa)->sin_port);
}

/* "NFS port 2049 (given), MOUNT port 20048 (given)" */
static void describe_ports(struct engine_ctl *ctl)
{
	const struct engine_params *cfg = &ctl->cfg;
	socklen_t len;
	size_t n;

	n = (size_t)snprintf(ctl->ports, sizeof(ctl->ports), "NFS port %u (%s)",
			     port_of(nat_addr(cfg->srv_index, false, &len)), cfg->nfsport ? "given" :
			     cfg->nfs_version == 4 ? "the default" : "from rpcbind");
	if (cfg->nfs_version == 3 && n < sizeof(ctl->ports))
		snprintf(ctl->ports + n, sizeof(ctl->ports) - n, ", MOUNT port %u (%s)",
			 port_of(nat_addr(cfg->srv_index, true, &len)), cfg->mountport ? "given" :
			 "from rpcbind");
}

/* Why the set-up failed, in words a newcomer can act on (most hints come with c->error). */
static void mount_error(struct engine_ctl *ctl, char *err, size_t len)
{
	const struct engine_params *cfg = &ctl->cfg;
	const char *why = ctl->c->error[0] ? ctl->c->error : "set-up failed";
	const char *root = "LOOKUP of the work directory failed: ", *cut;
	char head[ENGINE_URL_MAX + 300];

	snprintf(head, sizeof(head), "cannot mount %s:%s (NFSv%s)", cfg->host, cfg->path,
		 cfg->nfs_version == 4 ? "4.1" : "3");
	/* With no work directory, NFSv4.1's set-up LOOKUPs are the export path's. */
	if (strncmp(why, root, strlen(root)) == 0) {
		why += strlen(root);
		snprintf(err, len, "%s: LOOKUP of the export path failed: %s%s", head, why,
			 strstr(why, "No such file") ? " (no such path in the server's NFSv4 "
			 "namespace: check the export path)" : "");
		return;
	}
	/* nfs-ganesha refuses an export it does not have with MNT3ERR_ACCES, not NOENT. */
	if (strncmp(why, "MOUNT of ", 9) == 0 && (cut = strstr(why, " (is "))) {
		snprintf(err, len, "%s: %.*s (the export path may not exist, or not be exported to "
			 "this host)", head, (int)(cut - why), why);
		return;
	}
	snprintf(err, len, "%s: %s", head, why);
}

static int ctl_connect(struct engine_ctl *ctl, char *err, size_t len)
{
	int rc;

	ctl->ready = ctl->ok = ctl->lost = false;
	ctl->c->error[0] = '\0';
	rc = engine_native.connect(ctl->c, &ctl->t, &ctl_cbs, ctl);
	if (rc == 0 && !run_until(ctl, &ctl->ready, ctl->cfg.timeout_ns + UINT64_C(1000000000))) {
		engine_native.drop(ctl->c);
		nat_set_error(ctl->c, "no answer within --timeout");
		rc = -ETIMEDOUT;
	} else if (rc == 0 && !ctl->ok) {
		rc = -EIO;
	}
	if (rc < 0) {
		mount_error(ctl, err, len);
		snprintf(ctl->error, sizeof(ctl->error), "%s", err);
		return rc;
	}
	describe_ports(ctl);
	ctl->mounted = !nat_v4(ctl->c);
	return 0;
}

/* Ends the connection: an NFSv4.1 session and client are destroyed, not left to expire. */
static void ctl_close(struct engine_ctl *ctl)
{
	struct engine_conn *c = ctl->c;

	if (c->state == NS_READY && nat_v4(c)) {
		engine_native.detach(c);
		engine_native.close(c);
	}
	engine_native.drop(c);
}

static int ctl_reopen(struct engine_ctl *ctl, char *err, size_t len)
{
	ctl_close(ctl);
	return ctl_connect(ctl, err, len);
}

static void ctl_free(struct engine_ctl *ctl)
{
	if (!ctl)
		return;
	if (ctl->c) {
		ctl_close(ctl);
		if (ctl->mounted)
			send_umnt(&ctl->cfg, &ctl->c->cred);
		engine_native.free(ctl->c);
	}
	if (ctl->loop)
		ev_timer_stop(ctl->loop, &ctl->tick);
	nat_known_free(&ctl->t);
	xport_free(ctl->t.xp);
	free(ctl->t.scratch);
	if (ctl->loop)
		ev_loop_destroy(ctl->loop);
	free(ctl);
}

static int ctl_open(const struct engine_params *cfg, struct engine_ctl **out, char *err, size_t len)
{
	static const uint32_t no_files[1];
	struct engine_ctl *ctl = calloc(1, sizeof(*ctl));
	struct nat_meta *m;

	*out = ctl;
	if (!ctl) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	ctl->cfg = *cfg;
	ctl->cfg.dir[0] = '\0';
	ctl->loop = ev_loop_new(EVBACKEND_EPOLL);
	ctl->t.cfg = &ctl->cfg;
	ctl->t.loop = ctl->loop;
	ctl->t.scratch_len = CTL_SCRATCH;
	ctl->t.scratch = malloc(CTL_SCRATCH);
	ctl->t.xp = ctl->loop ? xport_new(ctl->loop, false, 1) : NULL;
	if (!ctl->t.scratch || !ctl->t.xp ||
	    engine_native.conn_new(&ctl->cfg, 0, no_files, 0, &ctl->c) < 0 ||
	    !(m = nat_meta_of(ctl->c))) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	m->ctl = true;
	ev_timer_init(&ctl->tick, tick_cb, 1., 1.);
	ctl->tick.data = ctl;
	ev_timer_start(ctl->loop, &ctl->tick);
	return ctl_connect(ctl, err, len);
}

static void names_clear(struct ctl_names *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].name);
	l->n = 0;
	l->oom = false;
}

/* "MKDIR of /dir: Permission denied" into error(); returns rc. */
static int ctl_fail(struct engine_ctl *ctl, enum op_type op, const char *path, int rc)
{
	const char *why = rc == -ETIMEDOUT ? "no answer within --timeout" : strerror(-rc);

	if ((rc == -EBADMSG || rc == -ECONNRESET || ctl->lost) && ctl->c->error[0])
		why = ctl->c->error;
	snprintf(ctl->error, sizeof(ctl->error), "%s of %s: %s", op_procedure(op),
		 path[0] ? path : "/", why);
	return rc;
}

/* One request, waited for; a lost connection is made afresh and the request sent again once. */
static int ctl_do(struct engine_ctl *ctl, enum op_type op, const char *path, const void *data,
		  uint32_t len)
{
	struct engine_conn *c = ctl->c;
	struct engine_req req;
	char why[sizeof(ctl->error)];
	int rc;

	for (int attempt = 0;; attempt++) {
		if (c->state != NS_READY || now_ns() - c->last_send_ns > CTL_IDLE_NS) {
			ctl_close(ctl);
			if ((rc = ctl_connect(ctl, why, sizeof(why))) < 0)
				return rc;	/* error() has why */
		}
		if (ctl->names)
			names_clear(ctl->names);
		req = (struct engine_req){ .op = op, .path = path, .len = len, .buf = data };
		ctl->done = ctl->lost = false;
		c->error[0] = '\0';
		if ((rc = engine_native.queue(c, &req)) < 0) {
			snprintf(ctl->error, sizeof(ctl->error), "%s", c->error);
			return rc;
		}
		run_until(ctl, &ctl->done, 0);
		if (ctl->done)
			return ctl->status < 0 ? ctl_fail(ctl, op, path, ctl->status) : 0;
		if (attempt > 0)
			return ctl_fail(ctl, op, path, -ECONNRESET);
		engine_native.drop(c);	/* forgets the request: sent again below */
	}
}

static int ctl_stat(struct engine_ctl *ctl, const char *path, struct engine_stat *st)
{
	struct nat_meta *m = ctl->c->meta;
	int rc;

	m->attr.type = 0;
	if ((rc = ctl_do(ctl, OP_GETATTR, path, NULL, 0)) < 0)
		return rc;
	st->is_dir = m->attr.type == NFS3_DIR;
	st->is_reg = m->attr.type == NFS3_REG;
	st->size = m->attr.size;
	return 0;
}

static int ctl_mkdir(struct engine_ctl *ctl, const char *path)
{
	return ctl_do(ctl, OP_MKDIR, path, NULL, 0);
}

static int ctl_create(struct engine_ctl *ctl, const char *path, const void *data, uint64_t len)
{
	if (len > META_IO_MAX) {
		snprintf(ctl->error, sizeof(ctl->error), "CREATE of %s: %llu bytes, more than the "
			 "native engine writes at once (%u)", path, (unsigned long long)len,
			 META_IO_MAX);
		return -EFBIG;
	}
	return ctl_do(ctl, OP_CREATE, path, data, (uint32_t)len);
}

static int ctl_unlink(struct engine_ctl *ctl, const char *path)
{
	return ctl_do(ctl, OP_REMOVE, path, NULL, 0);
}

static int ctl_rmdir(struct engine_ctl *ctl, const char *path)
{
	return ctl_do(ctl, OP_RMDIR, path, NULL, 0);
}

static void collect(void *arg, const char *name, uint32_t namelen, bool is_dir)
{
	struct ctl_names *l = arg;

	if ((namelen == 1 && name[0] == '.') || (namelen == 2 && memcmp(name, "..", 2) == 0))
		return;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		struct ctl_name *v = realloc(l->v, cap * sizeof(*v));

		if (!v) {
			l->oom = true;
			return;
		}
		l->v = v;
		l->cap = cap;
	}
	if (!(l->v[l->n].name = strndup(name, namelen))) {
		l->oom = true;
		return;
	}
	l->v[l->n++].is_dir = is_dir;
}

static int ctl_readdir(struct engine_ctl *ctl, const char *path,
		       int (*fn)(void *arg, const char *name, bool is_dir), void *arg)
{
	struct ctl_names l = { 0 };
	struct engine_conn *c = ctl->c;
	int rc;

	ctl->names = &l;
	c->meta_hook = collect;
	c->meta_hook_arg = &l;
	rc = ctl_do(ctl, OP_READDIR, path, NULL, 0);
	c->meta_hook = NULL;
	c->meta_hook_arg = NULL;
	ctl->names = NULL;
	if (rc == 0 && l.oom)
		rc = ctl_fail(ctl, OP_READDIR, path, -ENOMEM);
	/* The listing is complete before fn runs: fn may remove what it names. */
	for (size_t i = 0; rc == 0 && i < l.n; i++)
		if (fn(arg, l.v[i].name, l.v[i].is_dir))
			break;
	names_clear(&l);
	free(l.v);
	return rc;
}

static const char *ctl_error(struct engine_ctl *ctl)
{
	return ctl->error;
}

static const char *ctl_ports(struct engine_ctl *ctl)
{
	return ctl->ports;
}

const struct engine_ctl_ops nat_ctl_ops = {
	.open = ctl_open,
	.reopen = ctl_reopen,
	.free = ctl_free,
	.stat = ctl_stat,
	.mkdir = ctl_mkdir,
	.create = ctl_create,
	.unlink = ctl_unlink,
	.rmdir = ctl_rmdir,
	.readdir = ctl_readdir,
	.error = ctl_error,
	.ports = ctl_ports,
};
