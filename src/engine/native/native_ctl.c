/*
 * The native engine's control connection for the work directory (workdir.c
 * says what to do with it): an engine connection with no files, on a loop,
 * an epoll transport and an engine instance of its own (its server's
 * addresses), driven until each request's done(); its requests are the
 * engine's operations on names (native_meta.c). Its configuration is the run's without the work
 * directory, so its set-up stops at the export (the work directory may not
 * exist yet). After a while idle (an NFSv4.1 lease runs out unrenewed) or a
 * lost connection it is made afresh before the next request.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "native_ctl.h"
#include "native_gss.h"
#include "native_known.h"
#include "native_life.h"
#include "native_names.h"
#include "native_pmap.h"

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
	struct nat_engine eng;		/* its server's addresses */
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
	nat_tick(ctl->c);
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

/* "NFS port 2049 (given), MOUNT port 20048 (given)" */
static void describe_ports(struct engine_ctl *ctl)
{
	const struct engine_params *cfg = &ctl->cfg;
	socklen_t len;
	size_t n;

	n = (size_t)snprintf(ctl->ports, sizeof(ctl->ports), "NFS port %u (%s)",
			     nat_addr_port(nat_addr(&ctl->eng, cfg->srv_index, false, &len)),
			     cfg->nfsport ? "given" : cfg->nfs_version == 4 ? "the default" :
			     "from rpcbind");
	if (cfg->nfs_version == 3 && n < sizeof(ctl->ports))
		snprintf(ctl->ports + n, sizeof(ctl->ports) - n, ", MOUNT port %u (%s)",
			 nat_addr_port(nat_addr(&ctl->eng, cfg->srv_index, true, &len)),
			 cfg->mountport ? "given" : "from rpcbind");
}

/* Why the set-up failed, in words a newcomer can act on (most hints come with c->error). */
static void mount_error(struct engine_ctl *ctl, char *err, size_t len)
{
	const struct engine_params *cfg = &ctl->cfg;
	const char *why = ctl->c->error[0] ? ctl->c->error : "set-up failed";
	const char *root = "LOOKUP of the work directory failed: ", *cut;
	char head[ENGINE_URL_MAX + 300];

	snprintf(head, sizeof(head), "cannot mount %s:%s (NFSv%s)", cfg->host, cfg->path,
		 cfg->nfs_version == 3 ? "3" : cfg->nfs_minor == 1 ? "4.1" :
		 cfg->nfs_minor == 2 ? "4.2" : "4");
	/* With no work directory, NFSv4.1's set-up LOOKUPs are the export path's. */
	if (strncmp(why, root, strlen(root)) == 0) {
		why += strlen(root);
		char hint[160] = "";

		if (strstr(why, "No such file"))
			snprintf(hint, sizeof(hint), " (no such path in the server's NFSv4 namespace: "
				 "check the export path)");
		else if (strstr(why, "not permitted"))	/* WRONGSEC, WRONG_CRED */
			snprintf(hint, sizeof(hint), " (NFS4ERR_WRONGSEC: the export does not take "
				 "sec=%s; try another of sys, krb5, krb5i, krb5p)",
				 engine_sec_name(ctl->eng.sec));
		snprintf(err, len, "%s: LOOKUP of the export path failed: %s%s", head, why, hint);
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
	rc = nat_connect(ctl->c, &ctl->t, &ctl_cbs, ctl);
	if (rc == 0 && !run_until(ctl, &ctl->ready, ctl->cfg.timeout_ns + UINT64_C(1000000000))) {
		nat_drop(ctl->c);
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
	ctl->mounted = ctl->c->proto->mount != NULL;
	return 0;
}

/* Ends the connection: an NFSv4.1 session and client are destroyed, not left to expire. */
static void ctl_close(struct engine_ctl *ctl)
{
	struct engine_conn *c = ctl->c;

	if (c->state == NS_READY && c->proto->close) {
		nat_detach(c);
		nat_close(c);
	}
	nat_drop(c);
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
			nat_umnt(&ctl->eng, &ctl->cfg, &ctl->c->cred);
		nat_conn_free(ctl->c);
	}
	if (ctl->loop)
		ev_timer_stop(ctl->loop, &ctl->tick);
	nat_known_free(&ctl->t);
	xport_free(ctl->t.xp);
	free(ctl->t.scratch);
	if (ctl->loop)
		ev_loop_destroy(ctl->loop);
	nat_gss_fini(&ctl->eng);
	free(ctl);
}

static int ctl_open(const struct engine_params *cfg, struct engine_ctl **out, char *err, size_t len)
{
	static const uint32_t no_files[1];
	struct engine_ctl *ctl = calloc(1, sizeof(*ctl));
	struct nat_meta *m;
	int rc;

	*out = ctl;
	if (!ctl) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	ctl->cfg = *cfg;
	ctl->cfg.dir[0] = '\0';
	ctl->cfg.open_files = ctl->cfg.open_slots = 0;	/* it holds no file open */
	if ((rc = nat_resolve(&ctl->eng, &ctl->cfg, ctl->cfg.srv_index, err, len)) < 0 ||
	    (rc = nat_gss_init(&ctl->eng, &ctl->cfg, err, len)) < 0)
		return rc;
	ctl->loop = ev_loop_new(EVBACKEND_EPOLL);
	ctl->t.eng = &ctl->eng;
	ctl->t.cfg = &ctl->cfg;
	ctl->t.loop = ctl->loop;
	ctl->t.scratch_len = nat_scratch_len(&ctl->eng, CTL_SCRATCH);
	ctl->t.scratch = malloc(ctl->t.scratch_len);
	ctl->t.xp = ctl->loop ? xport_new(ctl->loop, false, 1) : NULL;
	if (!ctl->t.scratch || !ctl->t.xp ||
	    nat_conn_new(&ctl->eng, &ctl->cfg, 0, no_files, 0, &ctl->c) < 0 ||
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

	if ((rc == -EBADMSG || rc == -ECONNRESET || ctl->lost ||
	     (rc == -EACCES && ctl->c->tooweak)) && ctl->c->error[0])
		why = ctl->c->error;
	snprintf(ctl->error, sizeof(ctl->error), "%s of %s: %s", op_procedure(op),
		 path[0] ? path : "/", why);
	return rc;
}

/* One request, waited for; a lost connection is made afresh and the request sent again once. */
static int ctl_req(struct engine_ctl *ctl, const struct engine_req *base)
{
	enum op_type op = base->op;
	const char *path = base->path;
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
		req = *base;
		ctl->done = ctl->lost = false;
		c->error[0] = '\0';
		if ((rc = nat_queue(c, &req)) < 0) {
			snprintf(ctl->error, sizeof(ctl->error), "%s", c->error);
			return rc;
		}
		run_until(ctl, &ctl->done, 0);
		if (ctl->done)
			return ctl->status < 0 ? ctl_fail(ctl, op, path, ctl->status) : 0;
		if (attempt > 0)
			return ctl_fail(ctl, op, path, -ECONNRESET);
		nat_drop(c);	/* forgets the request: sent again below */
	}
}

static int ctl_do(struct engine_ctl *ctl, enum op_type op, const char *path, const void *data,
		  uint32_t len)
{
	return ctl_req(ctl, &(struct engine_req){ .op = op, .path = path, .len = len, .buf = data });
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

static int ctl_truncate(struct engine_ctl *ctl, const char *path, uint64_t size)
{
	return ctl_req(ctl, &(struct engine_req){ .op = OP_SETATTR, .path = path, .offset = size,
						  .setattr = ENGINE_SETATTR_SIZE });
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
	.truncate = ctl_truncate,
	.unlink = ctl_unlink,
	.rmdir = ctl_rmdir,
	.readdir = ctl_readdir,
	.error = ctl_error,
	.ports = ctl_ports,
};
