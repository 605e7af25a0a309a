/*
 * The null engine: every request completes in-process on the next turn of
 * its loop, with the bytes it asked for, and nothing is sent anywhere (like
 * fio's null engine). What a run with it costs in CPU is nfsload's own
 * overhead per operation; it also lets tests drive the worker without a
 * server.
 *
 * Its control connection has no namespace: nothing exists, and creating or
 * removing anything succeeds.
 *
 * The NFSv4.2 operations complete as a server with them would: READ_PLUS
 * with its bytes and no hole, SEEK finding data (or a hole) where it looked,
 * GETXATTR with the value's size, the others with 0. For tests of the
 * worker's refusal path, NFSLOAD_NULL_REFUSE="copy:ENOSYS,getxattr:EOPNOTSUPP"
 * makes those ops fail as a server without them answers (NFS4ERR_OP_ILLEGAL:
 * -ENOSYS, NFS4ERR_NOTSUPP: -EOPNOTSUPP, as the native engine maps them);
 * "copy:ENOSYS:queue" refuses them at queue() instead, as an engine that knows
 * beforehand.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "ops.h"

struct engine_thread {
	struct ev_loop *loop;
	ev_idle idle;			/* completes the batch on the next loop turn */
	struct engine_req **next, **batch;	/* swapped each turn, each with its capacity */
	unsigned nnext, next_cap, batch_cap;
	unsigned pos, nbatch;		/* the batch being completed */
	struct engine_conn *readying;	/* connect() called: ready() next turn */
	uint8_t *zeros;			/* what every READ returns */
	int refuse[OP_NTYPES];		/* NFSLOAD_NULL_REFUSE: -errno, 0: completes */
	bool refuse_queue[OP_NTYPES];	/* ... at queue(), not in done() */
};

struct engine_conn {
	unsigned id;
	struct engine_thread *t;
	const struct engine_cbs *cbs;
	void *owner;
	bool up;
	unsigned inflight;
	struct engine_conn *next_ready;
	char error[80];
};

struct engine_ctl {
	char ports[8];
};

static const char *const steps[] = { NULL };

static int check(const struct engine_params *cfg, char *err, size_t len)
{
	if (cfg->verify)
		return config_fail(err, len, "--engine null: moves no data, nothing to --verify");
	if (cfg->opt.max_load)
		return config_fail(err, len, "--max-load: the null engine has no sockets to wake");
	if (cfg->wire_time)
		return config_fail(err, len, "--wire-time: the null engine has no wire");
	return 0;
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
	note[0] = '\0';
	(void)len;
	return 0;
}

static const char *limits_note(struct engine_inst *inst, const struct engine_params *cfg)
{
	(void)inst;
	(void)cfg;
	return "";
}

static void idle_cb(struct ev_loop *loop, ev_idle *w, int revents)
{
	struct engine_thread *t = w->data;
	struct engine_req **batch;
	struct engine_conn *c;
	unsigned cap;

	(void)revents;
	while ((c = t->readying)) {
		t->readying = c->next_ready;
		c->up = true;
		if (c->cbs)
			c->cbs->ready(c->owner, c, true);
	}
	/* Only now: a ready() may queue requests, and growing the list moves it. */
	batch = t->next;
	/* What these completions queue goes in the other list: the next turn's. */
	t->next = t->batch;
	t->batch = batch;
	cap = t->next_cap;
	t->next_cap = t->batch_cap;
	t->batch_cap = cap;
	t->nbatch = t->nnext;
	t->nnext = 0;
	for (t->pos = 0; t->pos < t->nbatch; t->pos++) {
		struct engine_req *req = batch[t->pos];
		bool moves;

		if (!req)
			continue;	/* its connection was dropped */
		c = req->priv[0];
		moves = req->op == OP_READ || req->op == OP_WRITE || req->op == OP_READ_PLUS ||
			req->op == OP_GETXATTR || (req->op == OP_CREATE && req->len);
		c->inflight--;
		req->data = t->zeros;
		/* READ_PLUS: no hole; SEEK: what it looked for is where it looked. */
		req->holes = 0;
		req->found = req->offset;
		if (c->cbs)
			c->cbs->done(c->owner, req, t->refuse[req->op] ? t->refuse[req->op] :
				     moves ? (int)req->len : 0);
	}
	t->nbatch = 0;
	if (t->nnext == 0 && !t->readying)
		ev_idle_stop(loop, w);
}

/* NFSLOAD_NULL_REFUSE: "op:ENOSYS,op:EOPNOTSUPP:queue,lock:DENIED,..." (unknown words
 * are ignored). */
static void refusals(int refuse[OP_NTYPES], bool at_queue[OP_NTYPES])
{
	const char *env = getenv("NFSLOAD_NULL_REFUSE");
	char buf[512], *tok, *save;

	if (!env || strlen(env) >= sizeof(buf))
		return;
	snprintf(buf, sizeof(buf), "%s", env);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':'), *when;
		enum op_type op;

		if (!colon)
			continue;
		*colon = '\0';
		if ((when = strchr(colon + 1, ':')))
			*when++ = '\0';
		if ((op = op_by_name(tok)) == OP_NTYPES)
			continue;
		at_queue[op] = when && !strcmp(when, "queue");
		refuse[op] = !strcmp(colon + 1, "ENOSYS") ? -ENOSYS :
			     !strcmp(colon + 1, "EOPNOTSUPP") ? -EOPNOTSUPP :
			     !strcmp(colon + 1, "DENIED") ? -ENGINE_DENIED : 0;
	}
}

static struct engine_thread *thread_new(struct engine_inst *inst, const struct engine_params *cfg,
				       struct ev_loop *loop)
{
	struct engine_thread *t = calloc(1, sizeof(*t));
	uint64_t biggest = cfg->bs > cfg->file_size ? cfg->bs : cfg->file_size;

	(void)inst;
	if (!t)
		return NULL;
	t->loop = loop;
	t->zeros = calloc(1, biggest > (1u << 20) ? biggest : (1u << 20));
	if (!t->zeros) {
		free(t);
		return NULL;
	}
	refusals(t->refuse, t->refuse_queue);
	ev_idle_init(&t->idle, idle_cb);
	t->idle.data = t;
	return t;
}

static void thread_free(struct engine_thread *t)
{
	if (!t)
		return;
	ev_idle_stop(t->loop, &t->idle);
	free(t->next);
	free(t->batch);
	free(t->zeros);
	free(t);
}

static int conn_new(struct engine_inst *inst, const struct engine_params *cfg, unsigned id,
		    const uint32_t *file_ids, uint32_t nfiles, struct engine_conn **out)
{
	(void)inst;
	(void)cfg;
	(void)file_ids;
	(void)nfiles;
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	(*out)->id = id;
	return 0;
}

static void attach(struct engine_conn *c, struct engine_thread *t, const struct engine_cbs *cbs,
		   void *owner)
{
	c->t = t;
	c->cbs = cbs;
	c->owner = owner;
}

/* Ready on the next loop turn: the owner hears of it from the loop, as from any engine. */
static int connect_conn(struct engine_conn *c, struct engine_thread *t,
			const struct engine_cbs *cbs, void *owner)
{
	attach(c, t, cbs, owner);
	c->error[0] = '\0';
	c->next_ready = t->readying;
	t->readying = c;
	ev_idle_start(t->loop, &t->idle);
	return 0;
}

static void drop(struct engine_conn *c);

/* Leaves the thread (its requests with it); a ready connection stays ready. */
static void detach(struct engine_conn *c)
{
	bool up = c->up;

	drop(c);
	c->up = up;
	c->t = NULL;
	c->cbs = NULL;
	c->owner = NULL;
}

/* Only the next list grows: the batch may be being walked. */
static int grow(struct engine_thread *t)
{
	unsigned cap = t->next_cap ? 2 * t->next_cap : 256;
	struct engine_req **a = realloc(t->next, cap * sizeof(*a));

	if (!a)
		return -ENOMEM;
	t->next = a;
	t->next_cap = cap;
	return 0;
}

static int queue(struct engine_conn *c, struct engine_req *req)
{
	struct engine_thread *t = c->t;

	if (!c->up)
		return -ENOTCONN;
	if (t->refuse_queue[req->op] && t->refuse[req->op]) {
		snprintf(c->error, sizeof(c->error), "%s refused (NFSLOAD_NULL_REFUSE)",
			 op_name(req->op));
		return t->refuse[req->op];
	}
	if (t->nnext == t->next_cap && grow(t) < 0)
		return -ENOMEM;
	req->priv[0] = c;
	t->next[t->nnext++] = req;
	c->inflight++;
	return 0;
}

static void commit(struct engine_conn *c)
{
	if (c->t->nnext)
		ev_idle_start(c->t->loop, &c->t->idle);
}

static void tick(struct engine_conn *c)
{
	(void)c;
}

/* Forgets this connection's requests, queued or in the batch being completed. */
static void drop(struct engine_conn *c)
{
	struct engine_thread *t = c->t;
	unsigned k = 0;

	c->up = false;
	if (!t)
		return;
	for (struct engine_conn **p = &t->readying; *p; p = &(*p)->next_ready) {
		if (*p == c) {
			*p = c->next_ready;
			break;
		}
	}
	if (!c->inflight)
		return;
	for (unsigned i = 0; i < t->nnext; i++)
		if (t->next[i]->priv[0] != c)
			t->next[k++] = t->next[i];
	t->nnext = k;
	for (unsigned i = t->pos + 1; i < t->nbatch; i++)
		if (t->batch[i] && t->batch[i]->priv[0] == c)
			t->batch[i] = NULL;
	c->inflight = 0;
}

static void close_files(struct engine_conn *c)
{
	(void)c;
}

static void conn_free(struct engine_conn *c)
{
	if (c && c->t)
		drop(c);
	free(c);
}

static const char *conn_error(const struct engine_conn *c)
{
	return c->error;
}

static int ctl_open(const struct engine_params *cfg, struct engine_ctl **out, char *err, size_t len)
{
	(void)cfg;
	*out = calloc(1, sizeof(**out));
	if (!*out) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

static int ctl_reopen(struct engine_ctl *ctl, char *err, size_t len)
{
	(void)ctl;
	(void)err;
	(void)len;
	return 0;
}

static void ctl_free(struct engine_ctl *ctl)
{
	free(ctl);
}

static int ctl_stat(struct engine_ctl *ctl, const char *path, struct engine_stat *st)
{
	(void)ctl;
	(void)path;
	(void)st;
	return -ENOENT;
}

static int ctl_path(struct engine_ctl *ctl, const char *path)
{
	(void)ctl;
	(void)path;
	return 0;
}

static int ctl_create(struct engine_ctl *ctl, const char *path, const void *data, uint64_t len)
{
	(void)data;
	(void)len;
	return ctl_path(ctl, path);
}

static int ctl_readdir(struct engine_ctl *ctl, const char *path,
		       int (*fn)(void *arg, const char *name, bool is_dir), void *arg)
{
	(void)ctl;
	(void)path;
	(void)fn;
	(void)arg;
	return 0;
}

static int ctl_truncate(struct engine_ctl *ctl, const char *path, uint64_t size)
{
	(void)ctl;
	(void)path;
	(void)size;
	return 0;
}

static const char *ctl_error(struct engine_ctl *ctl)
{
	(void)ctl;
	return "";
}

static const char *ctl_ports(struct engine_ctl *ctl)
{
	return ctl->ports;
}

static const struct engine_ctl_ops null_ctl = {
	.open = ctl_open,
	.reopen = ctl_reopen,
	.free = ctl_free,
	.stat = ctl_stat,
	.mkdir = ctl_path,
	.create = ctl_create,
	.truncate = ctl_truncate,
	.unlink = ctl_path,
	.rmdir = ctl_path,
	.readdir = ctl_readdir,
	.error = ctl_error,
	.ports = ctl_ports,
};

const struct engine_ops engine_null = {
	.name = "null",
	.op_bit = OPE_NULL,
	.about = "no I/O",
	.needs_url = false,
	.steps = steps,
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
	.ctl = &null_ctl,
};
