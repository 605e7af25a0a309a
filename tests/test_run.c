/*
 * run unit tests: whole runs in-process, without a server, through the
 * engine table. The null engine drives connections through every worker
 * path (closed and open loop, mixes, layout, the small-file test); a test
 * engine wraps it with faults (a connection that cannot be made, a set-up
 * that fails, a worker thread's engine state that cannot be made, a --mix
 * tree that cannot be written, refused requests, links lost under writes)
 * and an in-memory namespace that shows what a run left on the "server".
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "options.h"
#include "engine.h"
#include "run.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* ---- the test engine: null, with faults and a namespace ---- */

/*
 * FAULT_LOSE: a connection's 3rd and 7th WRITE completions are lost with
 * its link instead (lost(), no done()); FAULT_ABORT: they end in
 * ECONNABORTED and ETIMEDOUT, the link up; FAULT_LOSE_ALL: every WRITE
 * completion but the first is lost with the link (not the first: a
 * completion's refill, not the reconnect's, then starts the next batch);
 * FAULT_LOSE_IDLE: when the main thread asks for the limits note after
 * writes were done (as it reads the figures of a phase that is over), it
 * waits 1.1 s, and each connection still up is lost from its worker's next
 * tick (once a second).
 */
enum fault {
	FAULT_NONE, FAULT_CONN_NEW, FAULT_CONNECT, FAULT_THREAD, FAULT_TREE, FAULT_REFUSE,
	FAULT_LOSE, FAULT_ABORT, FAULT_LOSE_ALL, FAULT_LOSE_IDLE,
};

#define NAMES_MAX 4096
#define CHUNK (64u << 10)	/* what the written map marks */
#define FILES_MAX 4
#define CHUNKS_MAX 256

static struct {
	enum fault fault;
	unsigned conns_made, conns_freed, threads_made, threads_freed;
	/* the namespace: every name made and not removed, with its kind */
	char *names[NAMES_MAX];
	bool dir[NAMES_MAX];
	unsigned nnames;
	/* per connection, touched only by the thread that runs it: the callbacks its
	 * owner gave (the engine calls ours), its file ids, WRITE completions */
	struct {
		const struct engine_conn *c;
		unsigned queued;
		bool refused;
		const struct engine_cbs *cbs;
		void *owner;
		uint32_t ids[FILES_MAX];
		unsigned writes;
		bool lost_idle;
	} conn[64];
	/* which CHUNKs of which files a WRITE succeeded on (runs of one thread) */
	bool written[FILES_MAX][CHUNKS_MAX];
	uint64_t timeout_ns;	/* overrides --timeout when not 0 (below its 1 s floor) */
	bool verify;		/* --verify --verify-continue, which the null engine refuses */
	atomic_bool lose_idle;	/* FAULT_LOSE_IDLE: the main thread waits, ticks lose links */
	atomic_uint writes_done;	/* WRITE completions, all threads */
} t;

static int name_find(const char *path)
{
	for (unsigned i = 0; i < t.nnames; i++)
		if (!strcmp(t.names[i], path))
			return (int)i;
	return -1;
}

static int name_add(const char *path, bool dir)
{
	if (name_find(path) >= 0)
		return -EEXIST;
	assert_true(t.nnames < NAMES_MAX);
	t.names[t.nnames] = strdup(path);
	t.dir[t.nnames++] = dir;
	return 0;
}

static int name_remove(const char *path, bool dir)
{
	int i = name_find(path);

	if (i < 0 || t.dir[i] != dir)
		return i < 0 ? -ENOENT : dir ? -ENOTDIR : -EISDIR;
	if (dir) {
		size_t n = strlen(path);

		for (unsigned k = 0; k < t.nnames; k++)
			if (!strncmp(t.names[k], path, n) && t.names[k][n] == '/')
				return -ENOTEMPTY;
	}
	free(t.names[i]);
	t.names[i] = t.names[--t.nnames];
	t.dir[i] = t.dir[t.nnames];
	return 0;
}

static void names_clear(void)
{
	for (unsigned i = 0; i < t.nnames; i++)
		free(t.names[i]);
	t.nnames = 0;
}

static int ctl_open(const struct engine_params *cfg, struct engine_ctl **out, char *err, size_t len)
{
	return engine_null.ctl->open(cfg, out, err, len);
}

static int ctl_stat(struct engine_ctl *ctl, const char *path, struct engine_stat *st)
{
	int i = name_find(path);

	(void)ctl;
	if (i < 0)
		return -ENOENT;
	*st = (struct engine_stat){ .is_dir = t.dir[i], .is_reg = !t.dir[i] };
	return 0;
}

static int ctl_mkdir(struct engine_ctl *ctl, const char *path)
{
	(void)ctl;
	return name_add(path, true);
}

static int ctl_create(struct engine_ctl *ctl, const char *path, const void *data, uint64_t len)
{
	(void)ctl;
	(void)data;
	(void)len;
	/* A --mix tree's files: the tree is half made when this fails. */
	if (t.fault == FAULT_TREE && strstr(path, "/c1/d1/f3"))
		return -ENOSPC;
	return name_add(path, false);
}

static int ctl_unlink(struct engine_ctl *ctl, const char *path)
{
	(void)ctl;
	return name_remove(path, false);
}

static int ctl_rmdir(struct engine_ctl *ctl, const char *path)
{
	(void)ctl;
	return name_remove(path, true);
}

static int ctl_readdir(struct engine_ctl *ctl, const char *path,
		       int (*fn)(void *arg, const char *name, bool is_dir), void *arg)
{
	size_t n = strlen(path);
	char **kids = calloc(t.nnames + 1, sizeof(*kids));
	bool *dirs = calloc(t.nnames + 1, sizeof(*dirs));
	unsigned nkids = 0;

	(void)ctl;
	if (name_find(path) < 0 || !kids || !dirs) {
		free(kids);
		free(dirs);
		return -ENOENT;
	}
	/* A copy: fn may remove what it is handed. */
	for (unsigned i = 0; i < t.nnames; i++) {
		if (strncmp(t.names[i], path, n) || t.names[i][n] != '/' ||
		    strchr(t.names[i] + n + 1, '/'))
			continue;
		dirs[nkids] = t.dir[i];
		kids[nkids++] = strdup(t.names[i] + n + 1);
	}
	for (unsigned i = 0; i < nkids; i++)
		if (fn(arg, kids[i], dirs[i]))
			break;
	for (unsigned i = 0; i < nkids; i++)
		free(kids[i]);
	free(kids);
	free(dirs);
	return 0;
}

static const char *ctl_error(struct engine_ctl *ctl)
{
	(void)ctl;
	return "test namespace";
}

static struct engine_ctl_ops test_ctl;

static int conn_new(struct engine_inst *inst, const struct engine_params *cfg, unsigned id,
		    const uint32_t *ids, uint32_t n, struct engine_conn **out)
{
	int rc;

	if (t.fault == FAULT_CONN_NEW && id == 2)
		return -ENOMEM;
	rc = engine_null.conn_new(inst, cfg, id, ids, n, out);
	if (rc == 0) {
		assert_true(t.conns_made < N(t.conn));
		t.conn[t.conns_made].c = *out;
		for (uint32_t k = 0; k < n && k < FILES_MAX; k++)
			t.conn[t.conns_made].ids[k] = ids[k];
		t.conns_made++;
	}
	return rc;
}

static unsigned conn_index(const struct engine_conn *c)
{
	unsigned i = 0;

	while (i < t.conns_made && t.conn[i].c != c)
		i++;
	assert_true(i < t.conns_made);
	return i;
}

/* The engine's done(): the faults of the link, and what the "server" now holds. */
static void wrap_done(void *owner, struct engine_req *req, int status)
{
	unsigned i = (unsigned)(uintptr_t)owner, n;

	if (req->op == OP_WRITE)
		atomic_fetch_add(&t.writes_done, 1);
	if (req->op == OP_WRITE && status >= 0) {
		n = ++t.conn[i].writes;
		if ((t.fault == FAULT_LOSE_ALL && n > 1) ||
		    (t.fault == FAULT_LOSE && (n == 3 || n == 7))) {
			t.conn[i].cbs->lost(t.conn[i].owner, (struct engine_conn *)t.conn[i].c);
			return;
		}
		if (t.fault == FAULT_ABORT && (n == 3 || n == 7))
			status = n == 3 ? -ECONNABORTED : -ETIMEDOUT;
	}
	if (req->op == OP_WRITE && status >= 0) {
		uint32_t file = t.conn[i].ids[req->file];

		assert_true(file < FILES_MAX && (req->offset + req->len) / CHUNK <= CHUNKS_MAX);
		for (uint64_t o = req->offset; o < req->offset + req->len; o += CHUNK)
			t.written[file][o / CHUNK] = true;
	}
	t.conn[i].cbs->done(t.conn[i].owner, req, status);
}

static void wrap_lost(void *owner, struct engine_conn *c)
{
	unsigned i = (unsigned)(uintptr_t)owner;

	t.conn[i].cbs->lost(t.conn[i].owner, c);
}

static void wrap_ready(void *owner, struct engine_conn *c, bool ok)
{
	unsigned i = (unsigned)(uintptr_t)owner;

	t.conn[i].cbs->ready(t.conn[i].owner, c, ok);
}

static void wrap_step(void *owner, unsigned step, uint64_t ns)
{
	unsigned i = (unsigned)(uintptr_t)owner;

	if (t.conn[i].cbs->step)
		t.conn[i].cbs->step(t.conn[i].owner, step, ns);
}

static const struct engine_cbs wrap_cbs = { wrap_done, wrap_lost, wrap_ready, wrap_step };

/* The owner's callbacks are kept; the engine calls ours, with the connection's index. */
static void *wrap(struct engine_conn *c, const struct engine_cbs *cbs, void *owner)
{
	unsigned i = conn_index(c);

	t.conn[i].cbs = cbs;
	t.conn[i].owner = owner;
	return (void *)(uintptr_t)i;
}

static void attach_conn(struct engine_conn *c, struct engine_thread *th,
			const struct engine_cbs *cbs, void *owner)
{
	engine_null.attach(c, th, &wrap_cbs, wrap(c, cbs, owner));
}

static void conn_free(struct engine_conn *c)
{
	if (c)
		t.conns_freed++;
	engine_null.free(c);
}

static int connect_conn(struct engine_conn *c, struct engine_thread *th,
			const struct engine_cbs *cbs, void *owner)
{
	if (t.fault == FAULT_CONNECT && c == t.conn[1].c)
		return -ECONNREFUSED;
	return engine_null.connect(c, th, &wrap_cbs, wrap(c, cbs, owner));
}

static struct engine_thread *thread_new(struct engine_inst *inst, const struct engine_params *cfg,
				       struct ev_loop *loop)
{
	/* The set-up loop's engine state is the first; a worker's fails. */
	if (t.fault == FAULT_THREAD && t.threads_made > 0)
		return NULL;
	t.threads_made++;
	return engine_null.thread_new(inst, cfg, loop);
}

static void thread_free(struct engine_thread *th)
{
	if (th)
		t.threads_freed++;
	engine_null.thread_free(th);
}

static int queue(struct engine_conn *c, struct engine_req *req)
{
	/* Every connection's 5th request is refused: it stops issuing. */
	for (unsigned i = 0; t.fault == FAULT_REFUSE && i < t.conns_made; i++) {
		if (t.conn[i].c == c && ++t.conn[i].queued % 5 == 0) {
			t.conn[i].refused = true;
			return -EIO;
		}
	}
	return engine_null.queue(c, req);
}

static void tick(struct engine_conn *c)
{
	unsigned i = conn_index(c);

	if (atomic_load(&t.lose_idle) && !t.conn[i].lost_idle) {
		t.conn[i].lost_idle = true;
		t.conn[i].cbs->lost(t.conn[i].owner, c);
		return;
	}
	engine_null.tick(c);
}

static const char *limits_note(struct engine_inst *inst, const struct engine_params *cfg)
{
	/* Asked once before the run and once after set-up too: the one after writes. */
	if (t.fault == FAULT_LOSE_IDLE && atomic_load(&t.writes_done) &&
	    !atomic_exchange(&t.lose_idle, true))
		nanosleep(&(struct timespec){ 1, 100000000 }, NULL);
	return engine_null.limits_note(inst, cfg);
}

static const char *conn_error(const struct engine_conn *c)
{
	for (unsigned i = 0; i < t.conns_made; i++)
		if (t.conn[i].c == c && t.conn[i].refused)
			return "request refused: the test engine said no";
	return engine_null.error(c);
}

static struct engine_ops test_engine;

static void test_engine_init(enum fault fault)
{
	names_clear();
	memset(&t, 0, sizeof(t));
	t.fault = fault;
	test_ctl = *engine_null.ctl;
	test_ctl.open = ctl_open;
	test_ctl.stat = ctl_stat;
	test_ctl.mkdir = ctl_mkdir;
	test_ctl.create = ctl_create;
	test_ctl.unlink = ctl_unlink;
	test_ctl.rmdir = ctl_rmdir;
	test_ctl.readdir = ctl_readdir;
	test_ctl.error = ctl_error;
	test_engine = engine_null;
	test_engine.name = "test";
	test_engine.ctl = &test_ctl;
	test_engine.conn_new = conn_new;
	test_engine.free = conn_free;
	test_engine.connect = connect_conn;
	test_engine.attach = attach_conn;
	test_engine.thread_new = thread_new;
	test_engine.thread_free = thread_free;
	test_engine.queue = queue;
	test_engine.error = conn_error;
	test_engine.tick = tick;
	test_engine.limits_note = limits_note;
}

/* ---- running ---- */

struct result {
	int status;
	char *out;
	size_t len;
};

/* One run of the given options (engine null unless test), its JSON report into r->out. */
static void run(struct result *r, bool test, const char *first, ...)
{
	char *argv[64] = { "nfsload", "--engine", "null", "--quiet", "--output-format", "json" };
	int argc = 6, rc;
	char err[512] = "";
	struct config cfg;
	const char *a;
	va_list ap;
	FILE *out;

	va_start(ap, first);
	for (a = first; a; a = va_arg(ap, const char *))
		argv[argc++] = (char *)a;
	va_end(ap);
	rc = config_parse(&cfg, argc, argv, err, sizeof(err));
	if (rc != CFG_RUN)
		fail_msg("config_parse: %d %s", rc, err);
	if (test)
		cfg.engine = &test_engine;
	if (test && t.timeout_ns)
		cfg.timeout_ns = t.timeout_ns;
	if (test && t.verify)
		cfg.verify = cfg.verify_continue = true;
	out = open_memstream(&r->out, &r->len);
	assert_non_null(out);
	r->status = run_one(&cfg, out, NULL);
	fclose(out);
}

/* The number after "key": in the JSON, the first one after where (or 0 with found false). */
static uint64_t json_u64(const char *json, const char *where, const char *key, bool *found)
{
	char pat[80];
	const char *p = where ? strstr(json, where) : json;

	snprintf(pat, sizeof(pat), "\"%s\": ", key);
	p = p ? strstr(p, pat) : NULL;
	if (found)
		*found = p != NULL;
	return p ? strtoull(p + strlen(pat), NULL, 10) : 0;
}

static void result_free(struct result *r)
{
	free(r->out);
	r->out = NULL;
}

/* Closed loop over the engine table: counts add up, the report names the engine. */
static void test_null_closed_loop(void **state)
{
	struct result r;
	uint64_t ops, reads, writes;

	(void)state;
	run(&r, false, "-c", "4", "-t", "2", "-q", "8", "--rw", "randrw", "--size", "1m",
	    "--nrfiles", "2", "--io-size", "4m", NULL);
	assert_int_equal(r.status, 0);
	ops = json_u64(r.out, "\"total\": {", "ops", NULL);
	reads = json_u64(r.out, "\"read\": {", "ops", NULL);
	writes = json_u64(r.out, "\"write\": {", "ops", NULL);
	assert_int_equal(ops, (4u << 20) / 4096);
	assert_int_equal(reads + writes, ops);
	assert_true(reads > 0 && writes > 0);
	assert_int_equal(json_u64(r.out, "\"total\": {", "errors", NULL), 0);
	assert_non_null(strstr(r.out, "\"engine\": \"null\""));
	/* Each connection's share of --io-size, exactly. */
	assert_int_equal(json_u64(r.out, "{\"id\": 3,", "ops", NULL), 256);
	result_free(&r);
}

/* Open loop, a --mix and the small-file test reach the engine too. */
static void test_null_workloads(void **state)
{
	struct result r;
	uint64_t files;

	(void)state;
	run(&r, false, "-c", "2", "-q", "4", "--rate", "2000", "--runtime", "500ms", NULL);
	assert_int_equal(r.status, 0);
	assert_in_range(json_u64(r.out, "\"total\": {", "ops", NULL), 700, 1100);
	assert_non_null(strstr(r.out, "\"lat_ns_uncorrected\""));
	result_free(&r);

	run(&r, false, "-c", "2", "-q", "4", "--mix", "getattr=50,create=25,remove=25",
	    "--runtime", "300ms", NULL);
	assert_int_equal(r.status, 0);
	assert_true(json_u64(r.out, "\"getattr\": {", "ops", NULL) > 0);
	result_free(&r);

	run(&r, false, "-c", "3", "-q", "2", "--small-files", "100", NULL);
	assert_int_equal(r.status, 0);
	files = json_u64(r.out, "\"pass\": \"create\"", "files", NULL);
	assert_int_equal(files, 100);
	assert_int_equal(json_u64(r.out, "\"pass\": \"remove\"", "files", NULL), 100);
	result_free(&r);
}

/* A healthy run through the test engine leaves nothing behind and frees every connection. */
static void test_engine_clean_run(void **state)
{
	struct result r;

	(void)state;
	test_engine_init(FAULT_NONE);
	run(&r, true, "-c", "4", "-t", "2", "--nrfiles", "3", "--size", "256k", NULL);
	assert_int_equal(r.status, 0);
	assert_int_equal(t.nnames, 0);
	assert_int_equal(t.conns_made, 4);
	assert_int_equal(t.conns_freed, t.conns_made);
	assert_int_equal(t.threads_freed, t.threads_made);
	result_free(&r);
}

/*
 * Every way out after the work directory exists removes what the run made
 * (exit 1, nothing left), and the worker frees every connection it made
 * when one of them cannot be made.
 */
static void test_failures_clean_up(void **state)
{
	static const struct {
		enum fault fault;
		const char *name;
	} faults[] = {
		{ FAULT_CONN_NEW, "connection 2 cannot be made" },
		{ FAULT_CONNECT, "connection 1 refused at set-up" },
		{ FAULT_THREAD, "a worker's engine state cannot be made" },
		{ FAULT_TREE, "a --mix tree cannot be written" },
	};
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < N(faults); i++) {
		struct result r;
		bool mix = faults[i].fault == FAULT_TREE;

		test_engine_init(faults[i].fault);
		if (mix)
			run(&r, true, "-c", "3", "-q", "2", "--mix", "getattr=1", "--runtime", "1s",
			    NULL);
		else
			run(&r, true, "-c", "4", "-t", "2", "--nrfiles", "3", "--size", "256k", NULL);
		if (r.status != EXIT_RUNTIME || t.nnames != 0 || t.conns_freed != t.conns_made ||
		    t.threads_freed != t.threads_made) {
			print_error("%s: exit %d (want 1), %u names left (first: %s), connections "
				    "made %u freed %u, engine threads made %u freed %u\n",
				    faults[i].name, r.status, t.nnames, t.nnames ? t.names[0] : "-",
				    t.conns_made, t.conns_freed, t.threads_made, t.threads_freed);
			bad++;
		}
		result_free(&r);
	}
	assert_int_equal(bad, 0);
}

/*
 * A request the engine refuses counts as the error the engine returned
 * (EIO), not as a lost connection (ENOTCONN), and the report keeps the
 * engine's words.
 */
static void test_refused_request(void **state)
{
	struct result r;

	(void)state;
	test_engine_init(FAULT_REFUSE);
	run(&r, true, "-c", "2", "-q", "1", "--size", "1m", NULL);
	assert_int_equal(r.status, EXIT_RUNTIME);
	assert_non_null(strstr(r.out, "\"errors_by_kind\": {\"EIO\": 1}"));
	assert_null(strstr(r.out, "ENOTCONN"));
	assert_non_null(strstr(r.out, "\"error\": \"request refused: the test engine said no\""));
	assert_int_equal(t.nnames, 0);
	result_free(&r);
	names_clear();
}

/* Chunks of the files' first size bytes that no WRITE succeeded on. */
static unsigned holes(unsigned nfiles, uint64_t size)
{
	unsigned n = 0;

	for (unsigned f = 0; f < nfiles; f++)
		for (uint64_t c = 0; c < size / CHUNK; c++)
			n += !t.written[f][c];
	return n;
}

/*
 * Layout writes lost with their link (in flight when it went, or ended in
 * ECONNABORTED or ETIMEDOUT) are sent again once it is back: every file
 * whole, each failed write re-issued once, the count in the report.
 */
static void test_layout_outage_rewritten(void **state)
{
	static const enum fault faults[] = { FAULT_LOSE, FAULT_ABORT };

	(void)state;
	for (size_t i = 0; i < N(faults); i++) {
		struct result r;
		uint64_t errors, retried;
		bool found;

		test_engine_init(faults[i]);
		/* 1 MiB layout writes, 8 per file, each file one connection's. */
		run(&r, true, "-c", "2", "-t", "2", "-q", "4", "--rw", "read", "--nrfiles", "2",
		    "--size", "8m", "--io-size", "64k", "--on-error", "continue", NULL);
		assert_int_equal(r.status, 0);
		assert_int_equal(holes(2, 8u << 20), 0);
		errors = json_u64(r.out, "\"layout\": {", "errors", NULL);
		retried = json_u64(r.out, "\"layout\": {", "retried", &found);
		assert_true(found);
		assert_true(errors >= 2);	/* at least one per fault per connection */
		assert_int_equal(retried, errors);
		assert_int_equal(json_u64(r.out, "\"layout\": {", "bytes", NULL), 16u << 20);
		if (faults[i] == FAULT_LOSE)
			assert_int_equal(json_u64(r.out, "\"outages\": {", "count", NULL), 4);
		result_free(&r);
	}
	names_clear();
}

/*
 * A link lost again each time it is made, before anything succeeds: the
 * layout gives up after 12 x --timeout (backing off) instead of sending
 * the same writes forever; what was not written is the difference between
 * errors and writes re-issued.
 */
static void test_layout_outage_gives_up(void **state)
{
	struct result r;
	uint64_t errors, retried;

	(void)state;
	test_engine_init(FAULT_LOSE_ALL);
	t.timeout_ns = UINT64_C(100000000);
	run(&r, true, "-c", "1", "-q", "2", "--rw", "read", "--nrfiles", "1", "--size", "8m",
	    "--io-size", "64k", "--on-error", "continue", NULL);
	errors = json_u64(r.out, "\"layout\": {", "errors", NULL);
	retried = json_u64(r.out, "\"layout\": {", "retried", NULL);
	assert_true(retried >= 1 && errors > retried);
	assert_true(holes(1, 8u << 20) > 0);
	assert_int_equal(json_u64(r.out, "\"layout\": {", "bytes", NULL), 1u << 20);
	result_free(&r);
	names_clear();
}

/* Measured writes lost with their link stay errors: none is sent again. */
static void test_measured_outage_not_rewritten(void **state)
{
	struct result r;
	uint64_t ops, errors;

	(void)state;
	test_engine_init(FAULT_LOSE);
	run(&r, true, "-c", "2", "-t", "2", "-q", "4", "--rw", "write", "--bs", "64k", "--nrfiles",
	    "2", "--size", "1m", "--io-size", "2m", "--skip-layout", "--on-error", "continue", NULL);
	assert_int_equal(r.status, 0);
	ops = json_u64(r.out, "\"write\": {", "ops", NULL);
	errors = json_u64(r.out, "\"write\": {", "errors", NULL);
	assert_true(errors >= 2);
	assert_int_equal(ops + errors, (2u << 20) / (64u << 10));
	assert_true(holes(2, 1u << 20) > 0);
	assert_int_equal(json_u64(r.out, "\"layout\": {", "retried", NULL), 0);
	result_free(&r);
	names_clear();
}

/*
 * Links lost once a phase is over, before the --verify pass, while the main
 * thread reads the phase's figures: the workers still handle their sockets,
 * so the figures must be what each worker handed over at the phase's end
 * (read live, ThreadSanitizer saw a race on the connections' state, and the
 * report counted an outage the phase never had). The pass makes the links
 * again and reads every block back (the null engine keeps no data: each
 * block is reported bad, on stderr).
 */
static void test_lost_between_phases(void **state)
{
	struct result r;
	bool found;

	(void)state;
	test_engine_init(FAULT_LOSE_IDLE);
	t.verify = true;
	run(&r, true, "-c", "2", "-t", "2", "-q", "2", "--rw", "write", "--bs", "64k", "--nrfiles",
	    "2", "--size", "1m", "--skip-layout", "--on-error", "continue", NULL);
	assert_int_equal(json_u64(r.out, "\"write\": {", "ops", NULL), 32);
	assert_int_equal(json_u64(r.out, "\"outages\": {", "count", &found), 0);
	assert_true(found);
	assert_int_equal(json_u64(r.out, "\"verify\": {", "blocks_checked", &found), 32);
	assert_true(found);
	result_free(&r);
	names_clear();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null_closed_loop),
		cmocka_unit_test(test_null_workloads),
		cmocka_unit_test(test_engine_clean_run),
		cmocka_unit_test(test_failures_clean_up),
		cmocka_unit_test(test_refused_request),
		cmocka_unit_test(test_layout_outage_rewritten),
		cmocka_unit_test(test_layout_outage_gives_up),
		cmocka_unit_test(test_measured_outage_not_rewritten),
		cmocka_unit_test(test_lost_between_phases),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
