/*
 * The native engine's per-version table (native_proto.h) without a server: a
 * connection gets its version's table when it is made, and a request on data
 * that its version has not (an NFSv4.2 operation over NFSv3 or on a 4.1
 * session, an operation on names) is refused with -EINVAL and an error naming
 * it, before any call is taken: never sent as another operation (native_ops.c
 * once sent any op it did not know as a COMMIT).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "engine/native/native_conn.h"
#include "engine/native/native_life.h"
#include "engine/native/native_ops.h"

static int bad;

static void chk(int line, const char *what, int64_t got, int64_t want)
{
	if (got == want)
		return;
	print_error("line %d: %s: got %" PRId64 ", want %" PRId64 "\n", line, what, got, want);
	bad++;
}
#define CHECK(what, got, want) chk(__LINE__, what, (int64_t)(got), (int64_t)(want))

static void chk_has(int line, const char *what, const char *got, const char *want)
{
	if (strstr(got, want))
		return;
	print_error("line %d: %s: got \"%s\", want it to hold \"%s\"\n", line, what, got, want);
	bad++;
}
#define CHECK_HAS(what, got, want) chk_has(__LINE__, what, got, want)

struct fix {
	struct engine_params cfg;
	struct nat_engine eng;
	struct engine_thread t;
	struct engine_conn *c;
	uint8_t scratch[4096];
};

static int make(void **state, int version)
{
	static const uint32_t one_file[1] = { 0 };
	struct fix *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	f->cfg.nfs_version = version;
	f->cfg.nfs_minor = version == 4 ? ENGINE_MINOR_ANY : 0;
	f->cfg.iodepth = 4;
	f->cfg.connections = 1;
	f->cfg.threads = 1;
	f->cfg.timeout_ns = 1000000000;
	f->t.eng = &f->eng;
	f->t.cfg = &f->cfg;
	f->t.scratch = f->scratch;
	f->t.scratch_len = sizeof(f->scratch);
	if (nat_conn_new(&f->eng, &f->cfg, 0, one_file, 1, &f->c) < 0) {
		free(f);
		return -1;
	}
	f->c->t = &f->t;
	f->c->state = NS_READY;
	f->c->files[0].open = true;
	*state = f;
	return 0;
}

static int setup3(void **state)
{
	return make(state, 3);
}

static int setup4(void **state)
{
	return make(state, 4);
}

static int teardown(void **state)
{
	struct fix *f = *state;

	f->c->t = NULL;
	nat_conn_free(f->c);
	free(f);
	return 0;
}

static void test_v3_table(void **state)
{
	struct fix *f = *state;

	bad = 0;
	CHECK("NFSv3's table", f->c->proto == &nat_proto_v3, 1);
	CHECK("RPC version 3", f->c->proto->rpc_vers, 3);
	CHECK("MNT first", f->c->proto->mount != NULL, 1);
	CHECK("no sessions", f->c->proto->sessions, 0);
	CHECK("no session joined", f->c->sess == NULL, 1);
	CHECK("nothing to close", f->c->proto->close == NULL, 1);
	assert_int_equal(bad, 0);
}

static void test_v4_table(void **state)
{
	struct fix *f = *state;

	bad = 0;
	CHECK("NFSv4's table", f->c->proto == &nat_proto_v4, 1);
	CHECK("RPC version 4", f->c->proto->rpc_vers, 4);
	CHECK("no MNT", f->c->proto->mount == NULL, 1);
	CHECK("sessions", f->c->proto->sessions, 1);
	CHECK("a session joined when made", f->c->sess != NULL, 1);
	CHECK("a tick (the lease)", f->c->proto->tick != NULL, 1);
	assert_int_equal(bad, 0);
}

/* req refused on c: -EINVAL, the error naming want, no call taken. */
static void refused(struct fix *f, enum op_type op, const char *want, const char *want2)
{
	struct engine_req req = { .op = op, .file = 0, .offset = 4096, .len = 4096 };
	uint32_t nfree = f->c->nfree;
	int rc;

	f->c->error[0] = '\0';
	rc = nat_io_queue(f->c, &req);
	CHECK("refused with -EINVAL", rc, -EINVAL);
	CHECK_HAS("the error names the operation", f->c->error, want);
	CHECK_HAS("the error says why", f->c->error, want2);
	CHECK("no call taken", f->c->nfree, nfree);
	CHECK("nothing in flight", f->c->inflight, 0);
}

static void test_v3_refuses(void **state)
{
	struct fix *f = *state;

	bad = 0;
	refused(f, OP_SEEK, "SEEK", "not an NFSv3 operation on a file");
	refused(f, OP_READ_PLUS, "READ_PLUS", "not an NFSv3 operation on a file");
	refused(f, OP_GETATTR, "GETATTR", "not an NFSv3 operation on a file");
	assert_int_equal(bad, 0);
}

static void test_v4_refuses(void **state)
{
	struct fix *f = *state;

	bad = 0;
	f->c->sess->minor = 1;
	refused(f, OP_SEEK, "SEEK", "the session is NFSv4.1");
	refused(f, OP_ALLOCATE, "ALLOCATE", "the session is NFSv4.1");
	f->c->sess->minor = 2;
	refused(f, OP_GETATTR, "GETATTR", "not an NFSv4 operation on a file");
	refused(f, OP_RENAME, "RENAME", "not an NFSv4 operation on a file");
	/* Requests waiting for a slot: refused all the same, not queued behind them (sent
	 * later, a refusal would fail the connection, its error not naming the op). */
	f->c->sess->wait[0] = (struct nat_wait){ NULL, NULL };
	f->c->sess->nwait = 1;
	refused(f, OP_MKDIR, "MKDIR", "not an NFSv4 operation on a file");
	f->c->sess->minor = 1;
	refused(f, OP_DEALLOCATE, "DEALLOCATE", "the session is NFSv4.1");
	CHECK("nothing queued for a slot", f->c->sess->nwait, 1);
	f->c->sess->nwait = 0;
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_v3_table, setup3, teardown),
		cmocka_unit_test_setup_teardown(test_v4_table, setup4, teardown),
		cmocka_unit_test_setup_teardown(test_v3_refuses, setup3, teardown),
		cmocka_unit_test_setup_teardown(test_v4_refuses, setup4, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
