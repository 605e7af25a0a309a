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

/*
 * The NFSv4.2 ops of a mix work on the connection's data files: a file and a
 * block inside them, never a name of the tree (no name busy, none freed).
 */
static void test_file_ops(void **state)
{
	struct meta_mix mix;
	struct meta_tree t;
	struct meta_target tg, held;
	char err[200];
	uint64_t n[OP_NTYPES] = { 0 }, cross = 0, same_seeks = 0;
	int last_what = -1;
	unsigned xattr_seen = 0;
	int bad = 0;

	(void)state;
	assert_int_equal(meta_mix_parse("read_plus=1,seek=1,allocate=1,deallocate=1,io_advise=1,"
					"copy=1,clone=1,getxattr=1,setxattr=1,listxattrs=1,"
					"removexattr=1,getattr=1", &mix, err, sizeof(err)), 0);
	assert_true(meta_mix_has_file_ops(&mix));
	assert_int_equal(meta_tree_init(&t, 2, 4, 7), 0);
	meta_tree_files(&t, 3, 10, 4);
	/* A getattr held busy all along: the file ops' completions must leave it busy. */
	do
		assert_true(meta_next(&t, &mix, &held));
	while (held.op != OP_GETATTR);
	for (int i = 0; i < 30000; i++) {
		/* What a draw leaves unset stays the held name's, as a reused target would. */
		tg = held;
		assert_true(meta_next(&t, &mix, &tg));
		n[tg.op]++;
		if (tg.op == OP_GETATTR) {
			meta_done(&t, &tg, true);
			continue;
		}
		if (tg.file >= 3 || tg.block >= 10 || tg.file2 >= 3 || tg.block2 >= 10 ||
		    tg.xattr >= 4) {
			print_error("%s: file %u block %llu file2 %u block2 %llu xattr %u out of "
				    "3 files of 10 blocks, 4 names\n", meta_op_name(tg.op), tg.file,
				    (unsigned long long)tg.block, tg.file2,
				    (unsigned long long)tg.block2, tg.xattr);
			bad++;
		}
		if ((tg.op == OP_COPY || tg.op == OP_CLONE) && tg.file2 == tg.file) {
			print_error("%s from file %u to itself with 3 files\n", meta_op_name(tg.op),
				    tg.file);
			bad++;
		}
		cross += tg.op == OP_COPY || tg.op == OP_CLONE;
		if (tg.op == OP_SEEK) {
			same_seeks += (int)tg.what == last_what || tg.what > 1;
			last_what = (int)tg.what;
		}
		if (tg.op == OP_GETXATTR)
			xattr_seen |= 1u << tg.xattr;
		meta_done(&t, &tg, i % 3 != 0);
	}
	assert_int_equal(bad, 0);
	for (int op = OP_READ_PLUS; op <= OP_REMOVEXATTR; op++)
		if (n[op] < 1500) {
			print_error("%s drawn %llu times of 30000 (weight 1 of 12)\n",
				    meta_op_name((enum op_type)op), (unsigned long long)n[op]);
			bad++;
		}
	assert_int_equal(bad, 0);
	/* SEEK: data and hole in turn. */
	if (same_seeks) {
		print_error("%llu SEEKs of %llu looked for what the one before did\n",
			    (unsigned long long)same_seeks, (unsigned long long)n[OP_SEEK]);
		fail();
	}
	assert_int_equal(xattr_seen, 0xf);
	assert_true(cross > 0);
	assert_true(t.state[held.dir * t.slots + held.slot] & META_BUSY);
	assert_int_equal(meta_files(&t), 8);
	meta_done(&t, &held, true);

	/* One file: COPY and CLONE go to another block of it. */
	meta_tree_files(&t, 1, 5, 4);
	for (int i = 0; i < 2000; i++) {
		assert_true(meta_next(&t, &mix, &tg));
		if ((tg.op == OP_COPY || tg.op == OP_CLONE) &&
		    (tg.file2 != 0 || tg.block2 == tg.block)) {
			print_error("%s in one file of 5 blocks: block %llu to file %u block %llu\n",
				    meta_op_name(tg.op), (unsigned long long)tg.block, tg.file2,
				    (unsigned long long)tg.block2);
			bad++;
		}
		meta_done(&t, &tg, true);
	}
	assert_int_equal(bad, 0);

	/* No data files: a file op gives way to the tree's ops, or no draw at all. */
	meta_tree_files(&t, 0, 0, 4);
	for (int i = 0; i < 200; i++) {
		if (!meta_next(&t, &mix, &tg))
			continue;
		assert_int_equal(tg.op, OP_GETATTR);
		meta_done(&t, &tg, true);
	}
	meta_tree_destroy(&t);
	assert_int_equal(meta_mix_parse("getattr=1,read=1", &mix, err, sizeof(err)), 0);
	assert_false(meta_mix_has_file_ops(&mix));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mix_parse),
		cmocka_unit_test(test_tree_consistent),
		cmocka_unit_test(test_file_ops),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
