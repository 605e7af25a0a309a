/*
 * helper_engines DIR URL_A URL_B: two native engine instances side by side
 * in one process, each on a thread of its own with its own loop, driven
 * through the engine's calls as the worker drives them (connect, queue,
 * done, close). Each reads file.000000 of DIR (written by nfsload with
 * --keep) in 4 KiB blocks through 2 connections, checks every byte against
 * the pattern, and says what its instance counted. Prints one line per
 * instance:
 *   engine A: reads 256 ok 256 bad 0 sessions 0 note "..."
 * Exit 0 when both read every block clean at the same time, 1 otherwise,
 * 2 on bad usage.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "options.h"
#include "params.h"
#include "engine/native/native.h"
#include "pattern.h"

#define NCONNS 2
#define DEPTH 4
#define BS 4096u
#define FILE_SIZE (64u << 10)
#define ROUNDS 16		/* each block read this many times */

struct inst {
	char name;
	struct config conf;
	struct engine_params cfg;	/* what the engine is told, from conf */
	struct nat_engine *e;
	struct ev_loop *loop;
	struct engine_thread *t;
	struct engine_conn *c[NCONNS];
	struct engine_req req[NCONNS][DEPTH];
	const uint8_t *pattern;
	unsigned ready, ready_ok, lost;
	unsigned issued, done, ok, bad;
	unsigned total;
	char err[600];
};

static void issue(struct inst *in, struct engine_conn *c, struct engine_req *req)
{
	if (in->issued == in->total)
		return;
	*req = (struct engine_req){ .op = OP_READ, .file = 0,
				    .offset = (uint64_t)(in->issued % (FILE_SIZE / BS)) * BS,
				    .len = BS };
	in->issued++;
	if (nat_queue(c, req) < 0) {
		in->bad++;
		in->done++;
	}
}

static void done_cb(void *owner, struct engine_req *req, int status)
{
	struct inst *in = owner;
	unsigned k = (unsigned)((req - &in->req[0][0]) / DEPTH);
	static _Thread_local uint8_t want[BS];

	in->done++;
	/* What nfsload writes there: the pattern, each 4 KiB block stamped (pattern.h). */
	pattern_fill(in->pattern, 0, 0, req->offset, want, BS);
	if (status == (int)BS && req->data && memcmp(req->data, want, BS) == 0)
		in->ok++;
	else
		in->bad++;
	issue(in, in->c[k], req);
	if (in->done == in->total)
		ev_break(in->loop, EVBREAK_ALL);
}

static void lost_cb(void *owner, struct engine_conn *c)
{
	struct inst *in = owner;

	(void)c;
	in->lost++;
	ev_break(in->loop, EVBREAK_ALL);
}

static void ready_cb(void *owner, struct engine_conn *c, bool ok)
{
	struct inst *in = owner;

	(void)c;
	in->ready++;
	in->ready_ok += ok;
	if (in->ready == NCONNS)
		ev_break(in->loop, EVBREAK_ALL);
}

static const struct engine_cbs cbs = { .done = done_cb, .lost = lost_cb, .ready = ready_cb };

static void *run(void *arg)
{
	struct inst *in = arg;
	static const uint32_t file0[1] = { 0 };
	char note[400];

	if (!(in->e = nat_engine_new()) ||
	    nat_engine_init(in->e, &in->cfg, note, sizeof(note)) < 0 ||
	    !(in->loop = ev_loop_new(EVFLAG_AUTO)) ||
	    !(in->t = nat_thread_new(in->e, &in->cfg, in->loop))) {
		snprintf(in->err, sizeof(in->err), "cannot make the instance: %s", note);
		return NULL;
	}
	for (unsigned i = 0; i < NCONNS; i++)
		if (nat_conn_new(in->e, &in->cfg, i, file0, 1, &in->c[i]) < 0 ||
		    nat_connect(in->c[i], in->t, &cbs, in) < 0) {
			snprintf(in->err, sizeof(in->err), "cannot connect");
			return NULL;
		}
	while (in->ready < NCONNS && !in->lost)
		ev_run(in->loop, 0);
	if (in->ready_ok < NCONNS) {
		snprintf(in->err, sizeof(in->err), "set-up failed: %s", nat_conn_error(in->c[0]));
		return NULL;
	}
	for (unsigned i = 0; i < NCONNS; i++)
		for (unsigned d = 0; d < DEPTH; d++)
			issue(in, in->c[i], &in->req[i][d]);
	while (in->done < in->total && !in->lost)
		ev_run(in->loop, 0);
	return NULL;
}

static void finish(struct inst *in)
{
	for (unsigned i = 0; i < NCONNS; i++) {
		if (!in->c[i])
			continue;
		nat_detach(in->c[i]);
		nat_close(in->c[i]);
		nat_conn_free(in->c[i]);
	}
	nat_thread_free(in->t);
	if (in->loop)
		ev_loop_destroy(in->loop);
}

int main(int argc, char **argv)
{
	static struct inst in[2];
	pthread_t th[2];
	int rc = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: helper_engines DIR URL_A URL_B\n");
		return 2;
	}
	for (int k = 0; k < 2; k++) {
		char *args[] = { "nfsload", "--engine", "native", "--dir", argv[1], "-c", "2",
				 "-q", "4", "--bs", "4k", argv[2 + k], NULL };

		in[k].name = (char)('A' + k);
		in[k].total = ROUNDS * (FILE_SIZE / BS);
		if (config_parse(&in[k].conf, 12, args, in[k].err, sizeof(in[k].err)) != CFG_RUN) {
			fprintf(stderr, "helper_engines: %s\n", in[k].err);
			return 2;
		}
		engine_params_init(&in[k].cfg, &in[k].conf);
		in[k].pattern = pattern_new(BS, 0);
	}
	/* Side by side: both threads run at once, each on its own instance. */
	for (int k = 0; k < 2; k++)
		pthread_create(&th[k], NULL, run, &in[k]);
	for (int k = 0; k < 2; k++)
		pthread_join(th[k], NULL);
	for (int k = 0; k < 2; k++) {
		struct inst *x = &in[k];

		printf("engine %c: reads %u ok %u bad %u lost %u sessions %u note \"%s\"%s%s\n",
		       x->name, x->done, x->ok, x->bad, x->lost,
		       x->e ? x->e->sessions_made : 0, x->e ? nat_engine_note(x->e, &x->cfg) : "",
		       x->err[0] ? " error: " : "", x->err);
		if (x->err[0] || x->ok != x->total || x->bad || x->lost)
			rc = 1;
		finish(x);
		nat_engine_free(x->e);
		free((void *)x->pattern);
	}
	return rc;
}
