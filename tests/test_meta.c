/* Unit tests: the --mix parser and the per-connection tree state (no server). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "meta.h"

static void test_mix_parse(void **state)
{
	static const char *const bad[] = {
		"", "read", "read=", "read=x", "read=-1", "bogus=1", "read=1,read=2", "read=0",
		"read=1,,write=2=3",
	};
	struct meta_mix mix;
	char err[200];

	(void)state;
	assert_int_equal(meta_mix_parse("read=40,write=20,getattr=25,create=5,remove=5,readdir=5",
					&mix, err, sizeof(err)), 0);
	assert_int_equal(mix.total, 100);
	assert_int_equal(mix.weight[OP_GETATTR], 25);
	assert_int_equal(mix.weight[OP_COMMIT], 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (meta_mix_parse(bad[i], &mix, err, sizeof(err)) != -EINVAL ||
		    strncmp(err, "--mix:", 6)) {
			print_error("'%s' accepted or message '%s'\n", bad[i], err);
			fail();
		}
	}
	assert_string_equal(meta_op_name(OP_READDIR), "readdir");
	assert_null(meta_op_name(OP_COMMIT));
}

/* Creates only on free names, removes only on existing ones, nothing twice at once. */
static void test_tree_consistent(void **state)
{
	struct meta_mix mix;
	struct meta_tree t;
	struct meta_target inflight[4];
	char err[200];
	uint64_t creates = 0, removes = 0, n[OP_NTYPES] = { 0 };

	(void)state;
	assert_int_equal(meta_mix_parse("create=30,remove=30,rename=10,getattr=20,mkdir=5,rmdir=5",
					&mix, err, sizeof(err)), 0);
	assert_int_equal(meta_tree_init(&t, 3, 8, 42), 0);
	assert_int_equal(meta_files(&t), 24);
	for (int round = 0; round < 20000; round++) {
		/* four requests in flight, completed in order */
		for (int k = 0; k < 4; k++) {
			assert_true(meta_next(&t, &mix, &inflight[k]));
			if (inflight[k].op == OP_CREATE)
				assert_false(t.state[inflight[k].dir * t.slots + inflight[k].slot] & META_EXISTS);
			if (inflight[k].op == OP_REMOVE || inflight[k].op == OP_RENAME)
				assert_true(t.state[inflight[k].dir * t.slots + inflight[k].slot] & META_EXISTS);
		}
		for (int k = 0; k < 4; k++) {
			creates += inflight[k].op == OP_CREATE;
			removes += inflight[k].op == OP_REMOVE;
			n[inflight[k].op]++;
			meta_done(&t, &inflight[k], true);
		}
		assert_int_equal(meta_files(&t), 24 + creates - removes);
	}
	/* the weights hold roughly (some draws give way when no name fits) */
	assert_true(n[OP_GETATTR] > 12000 && n[OP_GETATTR] < 20000);
	for (size_t i = 0; i < (size_t)t.dirs * t.slots; i++)
		assert_false(t.state[i] & META_BUSY);
	meta_tree_destroy(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mix_parse),
		cmocka_unit_test(test_tree_consistent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
