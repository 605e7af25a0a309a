/*
 * The native engine's call table (native_call.c) without a server: a reply
 * goes to the handler its call was started with, with the call's context;
 * a reply whose xid matches no call in flight (its call timed out and the
 * entry was reused, or never was) is dropped; a call past its deadline goes
 * to its handler's timeout; freed entries are reused with new xids; a full
 * table refuses a call. Replies are fed as the socket would (nat_data).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "engine/native/native_call.h"
#include "engine/native/native_life.h"

static int bad;

static void chk(int line, const char *what, int64_t got, int64_t want)
{
	if (got == want)
		return;
	print_error("line %d: %s: got %" PRId64 ", want %" PRId64 "\n", line, what, got, want);
	bad++;
}
#define CHECK(what, got, want) chk(__LINE__, what, (int64_t)(got), (int64_t)(want))

/* What the handlers saw, in order. */
struct seen {
	char who;		/* 'a' or 'b': which handler; 't': a timeout */
	uint32_t xid, arg, result;
	int status;
};

struct fix {
	struct engine_params cfg;
	struct nat_engine eng;
	struct engine_thread t;
	struct engine_conn *c;
	uint8_t scratch[4096];
	struct seen seen[64];
	unsigned nseen;
};

static struct fix *cur;

static void note(char who, struct nat_call *call, XDR *x, int status)
{
	struct seen *s = &cur->seen[cur->nseen++ % 64];
	uint32_t result = 0;

	if (x && status == 0 && !xdr_u_int(x, &result))
		result = UINT32_MAX;
	*s = (struct seen){ who, call->xid, call->arg, result, status };
}

static void reply_a(struct engine_conn *c, struct nat_call *call, XDR *x, int status)
{
	note('a', call, x, status);
	nat_call_free(c, call);
}

static void reply_b(struct engine_conn *c, struct nat_call *call, XDR *x, int status)
{
	note('b', call, x, status);
	nat_call_free(c, call);
}

static void timeout(struct engine_conn *c, struct nat_call *call)
{
	note('t', call, NULL, -ETIMEDOUT);
	nat_call_free(c, call);
}

static const struct nat_handler handler_a = { .reply = reply_a, .timeout = timeout };
static const struct nat_handler handler_b = { .reply = reply_b, .timeout = timeout };

static int setup(void **state)
{
	static const uint32_t no_files[1];
	struct fix *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	f->cfg.nfs_version = 3;
	f->cfg.iodepth = 4;		/* a table of 16 (iodepth + 8, a power of two) */
	f->cfg.timeout_ns = 1000;
	f->t.eng = &f->eng;
	f->t.cfg = &f->cfg;
	f->t.scratch = f->scratch;
	f->t.scratch_len = sizeof(f->scratch);
	if (nat_conn_new(&f->eng, &f->cfg, 0, no_files, 0, &f->c) < 0) {
		free(f);
		return -1;
	}
	f->c->t = &f->t;
	f->c->state = NS_READY;
	cur = f;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fix *f = *state;

	f->c->t = NULL;
	nat_conn_free(f->c);
	free(f);
	return 0;
}

/* A call started and counted in flight as nat_call_send does, without a socket. */
static struct nat_call *issue(struct fix *f, const struct nat_handler *h, uint32_t arg,
			      uint64_t deadline)
{
	struct nat_call *call;
	XDR x;

	call = nat_call_start(f->c, &x, 100003, 3, 0, NK_REQ, h);
	if (!call)
		return NULL;
	xdr_destroy(&x);
	call->arg = arg;
	call->deadline_ns = deadline;
	f->c->inflight++;
	return call;
}

/* An accepted, successful reply to xid carrying one word, fed as the socket would. */
static int feed_reply(struct fix *f, uint32_t xid, uint32_t result)
{
	uint32_t w[] = { htonl(0x80000000u | 28), htonl(xid), htonl(1), htonl(0), htonl(0),
			 htonl(0), htonl(0), htonl(result) };

	return nat_data(f->c, (const uint8_t *)w, sizeof(w));
}

static void test_reply_to_its_handler(void **state)
{
	struct fix *f = *state;
	struct nat_call *a = issue(f, &handler_a, 7, UINT64_MAX);
	struct nat_call *b = issue(f, &handler_b, 9, UINT64_MAX);
	uint32_t xa, xb;

	bad = 0;
	assert_non_null(a);
	assert_non_null(b);
	xa = a->xid;
	xb = b->xid;
	CHECK("two calls, two xids", xa != xb, 1);
	CHECK("in flight", f->c->inflight, 2);
	/* Out of order: each reply finds its own call and handler. */
	CHECK("feed b", feed_reply(f, xb, 222), 0);
	CHECK("feed a", feed_reply(f, xa, 111), 0);
	CHECK("replies seen", f->nseen, 2);
	CHECK("first: handler b", f->seen[0].who, 'b');
	CHECK("first: its xid", f->seen[0].xid, xb);
	CHECK("first: its arg", f->seen[0].arg, 9);
	CHECK("first: its result", f->seen[0].result, 222);
	CHECK("first: status", f->seen[0].status, 0);
	CHECK("second: handler a", f->seen[1].who, 'a');
	CHECK("second: its arg", f->seen[1].arg, 7);
	CHECK("second: its result", f->seen[1].result, 111);
	CHECK("nothing in flight", f->c->inflight, 0);
	CHECK("every entry free", f->c->nfree, f->c->ncalls);
	assert_int_equal(bad, 0);
}

static void test_stale_dropped(void **state)
{
	struct fix *f = *state;
	struct nat_call *a = issue(f, &handler_a, 1, 100);
	uint32_t old, idx;
	struct nat_call *again;

	bad = 0;
	assert_non_null(a);
	old = a->xid;
	idx = (uint32_t)(a - f->c->calls);
	/* Past its deadline: to the timeout, the entry free again. */
	nat_calls_tick(f->c, 50);
	CHECK("not yet", f->nseen, 0);
	nat_calls_tick(f->c, 200);
	CHECK("timed out", f->nseen, 1);
	CHECK("to the timeout", f->seen[0].who, 't');
	CHECK("its xid", f->seen[0].xid, old);
	CHECK("nothing in flight", f->c->inflight, 0);
	/* Its late reply matches nothing: dropped, no handler, the connection fine. */
	CHECK("late reply", feed_reply(f, old, 5), 0);
	CHECK("no handler for it", f->nseen, 1);
	CHECK("still up", f->c->state, NS_READY);
	/* The entry is reused first, under a new xid; the old xid still matches nothing. */
	again = issue(f, &handler_b, 2, UINT64_MAX);
	assert_non_null(again);
	CHECK("same entry", (uint32_t)(again - f->c->calls), idx);
	CHECK("same low bits", again->xid & f->c->mask, old & f->c->mask);
	CHECK("new xid", again->xid != old, 1);
	CHECK("late reply again", feed_reply(f, old, 5), 0);
	CHECK("still not delivered", f->nseen, 1);
	CHECK("the new call's reply", feed_reply(f, again->xid, 6), 0);
	CHECK("delivered", f->nseen, 2);
	CHECK("to handler b", f->seen[1].who, 'b');
	CHECK("with its result", f->seen[1].result, 6);
	/* An xid never issued: dropped too. */
	CHECK("unknown xid", feed_reply(f, 0x12345678u, 1), 0);
	CHECK("nothing more", f->nseen, 2);
	assert_int_equal(bad, 0);
}

static void test_table_full_and_reused(void **state)
{
	struct fix *f = *state;
	struct nat_call *calls[64];
	uint32_t xids[64], n = f->c->ncalls;

	bad = 0;
	CHECK("table size", n, 16);
	for (uint32_t i = 0; i < n; i++) {
		calls[i] = issue(f, &handler_a, i, UINT64_MAX);
		assert_non_null(calls[i]);
		xids[i] = calls[i]->xid;
		CHECK("xid never 0", xids[i] != 0, 1);
	}
	CHECK("full: refused", issue(f, &handler_a, 99, UINT64_MAX) == NULL, 1);
	CHECK("in flight", f->c->inflight, n);
	/* Every reply delivered once, to its own call. */
	for (uint32_t i = 0; i < n; i++)
		CHECK("feed", feed_reply(f, xids[n - 1 - i], n - 1 - i), 0);
	CHECK("all delivered", f->nseen, n);
	for (uint32_t i = 0; i < n; i++) {
		CHECK("arg", f->seen[i].arg, n - 1 - i);
		CHECK("result", f->seen[i].result, n - 1 - i);
	}
	CHECK("all free", f->c->nfree, n);
	/* A second round reuses the entries with xids not seen before. */
	for (uint32_t i = 0; i < n; i++) {
		struct nat_call *call = issue(f, &handler_b, i, UINT64_MAX);

		assert_non_null(call);
		for (uint32_t j = 0; j < n; j++)
			CHECK("new xid", call->xid != xids[j], 1);
	}
	nat_calls_reset(f->c);
	CHECK("reset: all free", f->c->nfree, n);
	CHECK("reset: none in flight", f->c->inflight, 0);
	assert_int_equal(bad, 0);
}

static void test_bad_record_fails(void **state)
{
	struct fix *f = *state;
	uint32_t w[] = { htonl(0x80000000u | 2), 0 };

	bad = 0;
	/* Too short for an xid: not an RPC record, the connection fails. */
	CHECK("bad record", nat_data(f->c, (const uint8_t *)w, 6), -EBADMSG);
	CHECK("down", f->c->state, NS_DOWN);
	CHECK("says why", strstr(f->c->error, "bad reply") != NULL, 1);
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_reply_to_its_handler, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale_dropped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_table_full_and_reused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_record_fails, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
