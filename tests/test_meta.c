/* Unit tests: the --mix parser and the per-connection tree state (no server). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <limits.h>
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

/* Counts the held files open now, from their flags. */
static unsigned held_open(const struct meta_tree *t)
{
	unsigned n = 0;

	for (unsigned i = 0; i < t->nheld; i++)
		n += !!(t->held[i] & META_OPEN);
	return n;
}

/*
 * Held files (--open-files): all open at the start; close picks an open one,
 * open a closed one, each the other when none is; a busy file is never drawn
 * twice; meta_done keeps nopen equal to the files flagged open, and a failed
 * OPEN or CLOSE changes nothing but the busy flag.
 */
static void test_held(void **state)
{
	struct meta_mix mix;
	struct meta_tree t;
	struct meta_target tg[4], extra;
	char err[200];
	unsigned seen = 0;
	int bad = 0;

	(void)state;
	assert_int_equal(meta_mix_parse("open=1,close=1", &mix, err, sizeof(err)), 0);
	assert_int_equal(meta_tree_init(&t, 1, 2, 11), 0);
	assert_int_equal(meta_tree_state(&t, 4, 4096, 0, 0, 1), 0);
	assert_int_equal(t.nopen, 4);
	assert_int_equal(held_open(&t), 4);
	/* All open: every draw, open or close, is a CLOSE of a distinct held file. */
	for (int k = 0; k < 4; k++) {
		assert_true(meta_next(&t, &mix, &tg[k]));
		if (tg[k].op != OP_CLOSE || !tg[k].held || tg[k].slot >= 4 || (seen & (1u << tg[k].slot))) {
			print_error("draw %d with all 4 open: %s held %d slot %u (seen %#x)\n", k,
				    meta_op_name(tg[k].op), tg[k].held, tg[k].slot, seen);
			bad++;
		}
		seen |= 1u << (tg[k].slot & 31);
	}
	assert_int_equal(bad, 0);
	/* All four busy: nothing to draw. */
	if (meta_next(&t, &mix, &extra)) {
		print_error("a draw with every held file busy: %s slot %u\n", meta_op_name(extra.op),
			    extra.slot);
		fail();
	}
	/* Two CLOSEs succeed, one fails, one succeeds: three closed. */
	meta_done(&t, &tg[0], true);
	meta_done(&t, &tg[1], true);
	meta_done(&t, &tg[2], false);
	assert_int_equal(t.nopen, 2);
	assert_int_equal(held_open(&t), 2);
	assert_true(t.held[tg[2].slot] & META_OPEN);
	assert_false(t.held[tg[2].slot] & META_BUSY);
	meta_done(&t, &tg[3], true);
	assert_int_equal(t.nopen, 1);
	/* One open (tg[2]'s): a close draws it; an open draws a closed one. */
	for (int i = 0; i < 200; i++) {
		assert_true(meta_next(&t, &mix, &extra));
		if ((extra.op == OP_CLOSE) != (extra.slot == tg[2].slot) ||
		    !!(t.held[extra.slot] & META_OPEN) != (extra.op == OP_CLOSE)) {
			print_error("%s of held file %u (open: %d)\n", meta_op_name(extra.op), extra.slot,
				    !!(t.held[extra.slot] & META_OPEN));
			bad++;
		}
		meta_done(&t, &extra, false);
	}
	assert_int_equal(bad, 0);
	assert_int_equal(t.nopen, 1);
	meta_tree_destroy(&t);

	/* Three in flight, completions failing now and then: the count follows the flags. */
	assert_int_equal(meta_tree_init(&t, 1, 2, 5), 0);
	assert_int_equal(meta_tree_state(&t, 6, 4096, 0, 0, 1), 0);
	for (int round = 0; round < 5000; round++) {
		for (int k = 0; k < 3; k++) {
			assert_true(meta_next(&t, &mix, &tg[k]));
			if (!!(t.held[tg[k].slot] & META_OPEN) != (tg[k].op == OP_CLOSE)) {
				print_error("round %d: %s of held file %u whose open flag is %d\n", round,
					    meta_op_name(tg[k].op), tg[k].slot,
					    !!(t.held[tg[k].slot] & META_OPEN));
				bad++;
			}
		}
		for (int k = 0; k < 3; k++)
			meta_done(&t, &tg[k], (round + k) % 5 != 0);
		if (t.nopen != held_open(&t)) {
			print_error("round %d: nopen %u, %u flagged open\n", round, t.nopen, held_open(&t));
			bad++;
		}
	}
	assert_int_equal(bad, 0);
	for (unsigned i = 0; i < t.nheld; i++)
		assert_false(t.held[i] & META_BUSY);
	meta_tree_destroy(&t);

	/* Without held files: open is the mix's OPEN of a name, close has nothing to do. */
	assert_int_equal(meta_tree_init(&t, 1, 2, 5), 0);
	assert_int_equal(meta_tree_state(&t, 0, 4096, 0, 0, 1), 0);
	assert_int_equal(meta_mix_parse("open=1", &mix, err, sizeof(err)), 0);
	assert_true(meta_next(&t, &mix, &extra));
	assert_int_equal(extra.op, OP_OPEN);
	assert_false(extra.held);
	assert_true(t.state[extra.dir * t.slots + extra.slot] & META_BUSY);
	meta_done(&t, &extra, true);
	assert_int_equal(meta_mix_parse("close=1", &mix, err, sizeof(err)), 0);
	assert_false(meta_next(&t, &mix, &extra));
	meta_tree_destroy(&t);
}

/* The lock table's entries in use, and whether two of them are of one range. */
static unsigned locks_used(const struct meta_tree *t, bool *dup)
{
	unsigned n = 0;

	*dup = false;
	for (unsigned i = 0; i < META_LOCKS_MAX; i++) {
		if (!t->locks[i].used)
			continue;
		n++;
		for (unsigned j = i + 1; j < META_LOCKS_MAX; j++)
			if (t->locks[j].used && t->locks[j].file == t->locks[i].file &&
			    t->locks[j].range == t->locks[i].range)
				*dup = true;
	}
	return n;
}

/*
 * The lock table: a lock adds a busy entry; granted, it is held (not busy);
 * denied or failed, it is gone. An unlock picks a held lock, never a busy one,
 * and removes it (an unlock with none held is a lock); a lock with the table
 * full is an unlock; lockt touches nothing. Never two entries of one range.
 */
static void test_locks(void **state)
{
	struct meta_mix lock, unlock, lockt, all;
	struct meta_tree t;
	struct meta_target tg, busy[3];
	char err[200];
	bool dup;
	int bad = 0;

	(void)state;
	assert_int_equal(meta_mix_parse("lock=1", &lock, err, sizeof(err)), 0);
	assert_int_equal(meta_mix_parse("unlock=1", &unlock, err, sizeof(err)), 0);
	assert_int_equal(meta_mix_parse("lockt=1", &lockt, err, sizeof(err)), 0);
	assert_int_equal(meta_mix_parse("lock=3,unlock=2,lockt=1,getattr=1", &all, err, sizeof(err)), 0);
	assert_int_equal(meta_tree_init(&t, 1, 2, 3), 0);
	meta_tree_files(&t, 2, 10, 4);
	assert_int_equal(meta_tree_state(&t, 0, 4096, 0, 0, 1), 0);

	/* An unlock with nothing held asks for a lock. */
	assert_true(meta_next(&t, &unlock, &tg));
	assert_int_equal(tg.op, OP_LOCK);
	assert_true(tg.slot < META_LOCKS_MAX);
	assert_int_equal(t.nlocks, 1);
	assert_true(t.locks[tg.slot].used && t.locks[tg.slot].busy);
	assert_int_equal(t.locks[tg.slot].file, tg.file);
	assert_int_equal(t.locks[tg.slot].range, tg.block);
	assert_true(tg.file < 2);
	/* Denied: gone. */
	meta_done(&t, &tg, false);
	assert_int_equal(t.nlocks, 0);
	assert_int_equal(locks_used(&t, &dup), 0);

	/* Granted: held, not busy. */
	assert_true(meta_next(&t, &lock, &busy[0]));
	meta_done(&t, &busy[0], true);
	assert_int_equal(t.nlocks, 1);
	assert_true(t.locks[busy[0].slot].used);
	assert_false(t.locks[busy[0].slot].busy);
	/* An unlock takes that lock, busy while in flight; another unlock has none to take. */
	assert_true(meta_next(&t, &unlock, &tg));
	if (tg.op != OP_UNLOCK || tg.slot != busy[0].slot || tg.file != busy[0].file ||
	    tg.block != busy[0].block) {
		print_error("unlock of the one lock held (entry %u, file %u range %llu): %s entry %u "
			    "file %u range %llu\n", busy[0].slot, busy[0].file,
			    (unsigned long long)busy[0].block, meta_op_name(tg.op), tg.slot, tg.file,
			    (unsigned long long)tg.block);
		fail();
	}
	assert_true(t.locks[tg.slot].busy);
	assert_true(meta_next(&t, &unlock, &busy[1]));
	assert_int_equal(busy[1].op, OP_LOCK);
	assert_int_equal(t.nlocks, 2);
	/* The unlock done (even failed: nothing left to unlock): removed. */
	meta_done(&t, &tg, false);
	assert_int_equal(t.nlocks, 1);
	assert_false(t.locks[busy[0].slot].used);
	meta_done(&t, &busy[1], true);

	/* lockt: any range, no entry. */
	for (int i = 0; i < 50; i++) {
		assert_true(meta_next(&t, &lockt, &tg));
		assert_int_equal(tg.op, OP_LOCKT);
		assert_int_equal(tg.slot, UINT_MAX);
		meta_done(&t, &tg, i % 2);
	}
	assert_int_equal(t.nlocks, 1);
	assert_int_equal(locks_used(&t, &dup), 1);

	/* Fill the table with granted locks: the next lock is an unlock of one of them. */
	while (t.nlocks < META_LOCKS_MAX) {
		if (!meta_next(&t, &lock, &tg))
			continue;	/* a range this connection holds already: gives way */
		assert_int_equal(tg.op, OP_LOCK);
		meta_done(&t, &tg, true);
	}
	assert_int_equal(locks_used(&t, &dup), META_LOCKS_MAX);
	assert_false(dup);
	assert_true(meta_next(&t, &lock, &tg));
	if (tg.op != OP_UNLOCK || !t.locks[tg.slot].used || !t.locks[tg.slot].busy) {
		print_error("a lock drawn with the table full: %s entry %u\n", meta_op_name(tg.op),
			    tg.slot);
		fail();
	}
	meta_done(&t, &tg, true);
	assert_int_equal(t.nlocks, META_LOCKS_MAX - 1);
	meta_tree_destroy(&t);

	/*
	 * A run: three in flight, some denied; an unlock never of a busy entry, the
	 * count always the entries in use, never two of one range, nothing busy at the end.
	 */
	assert_int_equal(meta_tree_init(&t, 1, 2, 9), 0);
	meta_tree_files(&t, 3, 10, 4);
	/* Mostly the shared ranges, so that a range comes back while held. */
	assert_int_equal(meta_tree_state(&t, 0, 4096, 90, 0, 1), 0);
	for (int round = 0; round < 20000; round++) {
		int n = 0;

		for (int k = 0; k < 3; k++) {
			if (!meta_next(&t, &all, &busy[n]))
				continue;
			if (busy[n].op == OP_UNLOCK &&
			    (!t.locks[busy[n].slot].used || busy[n].file != t.locks[busy[n].slot].file ||
			     busy[n].block != t.locks[busy[n].slot].range)) {
				print_error("round %d: unlock of entry %u not held\n", round, busy[n].slot);
				bad++;
			}
			for (int j = 0; j < n; j++)
				if (busy[j].op == OP_UNLOCK && busy[n].op == OP_UNLOCK &&
				    busy[j].slot == busy[n].slot) {
					print_error("round %d: two unlocks of entry %u at once\n", round,
						    busy[n].slot);
					bad++;
				}
			n++;
		}
		for (int k = 0; k < n; k++)
			meta_done(&t, &busy[k], (round + k) % 4 != 0);
		if (locks_used(&t, &dup) != t.nlocks || dup) {
			print_error("round %d: nlocks %u, %u entries in use, two of one range: %d\n",
				    round, t.nlocks, locks_used(&t, &dup), dup);
			bad++;
		}
		if (bad > 5)
			break;
	}
	assert_int_equal(bad, 0);
	for (unsigned i = 0; i < META_LOCKS_MAX; i++)
		assert_false(t.locks[i].busy);
	meta_tree_destroy(&t);
}

/*
 * --lock-contention: with 0, a connection's ranges are its own: past the shared
 * ones and, as rank r of s connections on its files, META_LOCK_HOT + k s + r;
 * with 100, all shared (below META_LOCK_HOT); in between, about that share.
 */
static void test_lock_ranges(void **state)
{
	static const unsigned ranks[][2] = { { 0, 1 }, { 0, 3 }, { 1, 3 }, { 2, 3 }, { 6, 7 } };
	struct meta_mix mix;
	struct meta_tree t;
	struct meta_target tg;
	char err[200];
	unsigned shared = 0, drawn = 0;
	int bad = 0;

	(void)state;
	assert_int_equal(meta_mix_parse("lock=1,lockt=1", &mix, err, sizeof(err)), 0);
	for (size_t k = 0; k < sizeof(ranks) / sizeof(ranks[0]); k++) {
		unsigned r = ranks[k][0], s = ranks[k][1];

		assert_int_equal(meta_tree_init(&t, 1, 2, 100 + k), 0);
		meta_tree_files(&t, 2, 10, 4);
		assert_int_equal(meta_tree_state(&t, 0, 4096, 0, r, s), 0);
		for (int i = 0; i < 3000; i++) {
			if (!meta_next(&t, &mix, &tg))
				continue;
			if (tg.block < META_LOCK_HOT || (tg.block - META_LOCK_HOT) % s != r) {
				print_error("contention 0, rank %u of %u: %s of range %llu\n", r, s,
					    meta_op_name(tg.op), (unsigned long long)tg.block);
				bad++;
			}
			meta_done(&t, &tg, false);
		}
		meta_tree_destroy(&t);
	}
	assert_int_equal(bad, 0);
	assert_int_equal(meta_tree_init(&t, 1, 2, 7), 0);
	meta_tree_files(&t, 2, 10, 4);
	assert_int_equal(meta_tree_state(&t, 0, 4096, 100, 1, 3), 0);
	for (int i = 0; i < 3000; i++) {
		if (!meta_next(&t, &mix, &tg))
			continue;
		if (tg.block >= META_LOCK_HOT) {
			print_error("contention 100: %s of range %llu\n", meta_op_name(tg.op),
				    (unsigned long long)tg.block);
			bad++;
		}
		meta_done(&t, &tg, false);
	}
	assert_int_equal(bad, 0);
	t.contention = 30;
	for (int i = 0; i < 10000; i++) {
		if (!meta_next(&t, &mix, &tg))
			continue;
		drawn++;
		shared += tg.block < META_LOCK_HOT;
		meta_done(&t, &tg, false);
	}
	/* A fixed seed: the share is what this PRNG gives, a binomial's 30% +- 5 sigma. */
	if (shared * 100 < drawn * 27 || shared * 100 > drawn * 33) {
		print_error("contention 30: %u of %u locks on the shared ranges\n", shared, drawn);
		fail();
	}
	meta_tree_destroy(&t);
}

/* Which mixes need the trees made, and which the data files laid out. */
static void test_mix_needs(void **state)
{
	static const struct {
		const char *mix;
		bool held, names, files;
	} cases[] = {
		{ "getattr=1", false, true, false },
		{ "read=1", false, true, false },	/* a whole file of the tree */
		{ "write=1", false, true, false },
		{ "open=1", false, true, false },
		{ "open=1", true, false, false },	/* a held file, no name */
		{ "open=1,close=1", true, false, false },
		{ "open=1,close=1,getattr=1", true, true, false },
		{ "lock=1", false, false, true },
		{ "unlock=1,lockt=1", true, false, true },
		{ "seek=1", false, false, true },
		{ "lock=1,read=1", true, true, true },
	};
	struct meta_mix mix;
	char err[200];
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bool names, files;

		assert_int_equal(meta_mix_parse(cases[i].mix, &mix, err, sizeof(err)), 0);
		names = meta_mix_has_name_ops(&mix, cases[i].held);
		files = meta_mix_has_file_ops(&mix);
		if (names != cases[i].names || files != cases[i].files) {
			print_error("--mix %s%s: name ops %d (want %d), file ops %d (want %d)\n",
				    cases[i].mix, cases[i].held ? " with --open-files" : "", names,
				    cases[i].names, files, cases[i].files);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mix_parse),
		cmocka_unit_test(test_tree_consistent),
		cmocka_unit_test(test_file_ops),
		cmocka_unit_test(test_held),
		cmocka_unit_test(test_locks),
		cmocka_unit_test(test_lock_ranges),
		cmocka_unit_test(test_mix_needs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
