/*
 * slot4 unit tests: the lowest free slot first, sequence ids that advance
 * only for a used slot, highest_slotid as the highest slot in use, the
 * server's target shrinking and growing the table, tables that span
 * several bitmap words, and a session's table shared out between threads
 * (slot4_move): each share hands out only its own slots, with their
 * sequence ids, and reports a highest_slotid covering the others'.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdlib.h>

#include "engine/native/slot4.h"

static int bad;

static void chk(int line, const char *what, int64_t got, int64_t want)
{
	if (got == want)
		return;
	print_error("line %d: %s: got %" PRId64 ", want %" PRId64 "\n", line, what, got, want);
	bad++;
}
#define CHECK(what, got, want) chk(__LINE__, what, (int64_t)(got), (int64_t)(want))

/* slot4_get, checked: slot, its sequence id and the highest slot id reported. */
static void get(int line, struct slot4_table *t, int slot, uint32_t seqid, uint32_t highest)
{
	uint32_t s = 0xdead, h = 0xdead;
	int got = slot4_get(t, &s, &h);

	chk(line, "slot", got, slot);
	if (slot >= 0 && got == slot) {
		chk(line, "seqid", s, seqid);
		chk(line, "highest", h, highest);
	}
}
#define GET(t, slot, seqid, highest) get(__LINE__, t, slot, seqid, highest)

static struct slot4_table *table(uint32_t n)
{
	struct slot4_table *t = malloc(sizeof(*t));

	assert_non_null(t);
	slot4_init(t, n);
	return t;
}

static void test_init(void **state)
{
	struct slot4_table *t = table(0);
	uint32_t i;

	(void)state;
	bad = 0;
	CHECK("n 0: nslots", t->nslots, 1);
	CHECK("n 0: free", slot4_free(t), 1);
	slot4_init(t, SLOT4_MAX + 1);
	CHECK("n SLOT4_MAX+1: nslots", t->nslots, SLOT4_MAX);
	CHECK("n SLOT4_MAX+1: target", t->target, SLOT4_MAX);
	slot4_init(t, UINT32_MAX);
	CHECK("n UINT32_MAX: nslots", t->nslots, SLOT4_MAX);
	CHECK("free", slot4_free(t), SLOT4_MAX);
	for (i = 0; i < SLOT4_MAX; i++)
		if (t->seq[i] != 1) {
			CHECK("initial seqid", t->seq[i], 1);
			break;
		}
	slot4_init(t, 16);
	CHECK("nslots", t->nslots, 16);
	CHECK("in_use", t->in_use, 0);
	CHECK("free", slot4_free(t), 16);
	free(t);
	assert_int_equal(bad, 0);
}

static void test_reuse_and_seqid(void **state)
{
	struct slot4_table *t = table(8);

	(void)state;
	bad = 0;
	GET(t, 0, 1, 0);
	GET(t, 1, 1, 1);
	GET(t, 2, 1, 2);
	CHECK("free", slot4_free(t), 5);

	slot4_put(t, 1, true);		/* used: its sequence id advances */
	GET(t, 1, 2, 2);		/* the lowest free slot again */
	slot4_put(t, 1, false);		/* not used (no reply): the same id again */
	GET(t, 1, 2, 2);
	slot4_put(t, 1, true);
	slot4_put(t, 0, true);
	GET(t, 0, 2, 2);
	GET(t, 1, 3, 2);
	GET(t, 3, 1, 3);

	/* A put of a slot not handed out changes nothing. */
	slot4_put(t, 3, true);
	slot4_put(t, 3, true);
	slot4_put(t, 7, true);
	slot4_put(t, 8, true);
	slot4_put(t, UINT32_MAX, true);
	CHECK("in_use after stray puts", t->in_use, 3);
	CHECK("seq[3] after a double put", t->seq[3], 2);
	CHECK("seq[7] never handed out", t->seq[7], 1);

	/* The sequence id wraps from 0xffffffff to 0. */
	slot4_put(t, 0, true);
	t->seq[0] = UINT32_MAX;
	GET(t, 0, UINT32_MAX, 2);
	slot4_put(t, 0, true);
	GET(t, 0, 0, 2);
	free(t);
	assert_int_equal(bad, 0);
}

static void test_highest(void **state)
{
	struct slot4_table *t = table(8);

	(void)state;
	bad = 0;
	GET(t, 0, 1, 0);
	GET(t, 1, 1, 1);
	GET(t, 2, 1, 2);
	GET(t, 3, 1, 3);
	slot4_put(t, 3, true);		/* the highest ends: the next one down */
	CHECK("highest_used", t->highest_used, 2);
	slot4_put(t, 1, true);		/* not the highest */
	CHECK("highest_used", t->highest_used, 2);
	GET(t, 1, 2, 2);
	slot4_put(t, 2, true);
	slot4_put(t, 1, true);
	CHECK("highest_used with slot 0 alone", t->highest_used, 0);
	GET(t, 1, 3, 1);
	slot4_put(t, 0, true);
	CHECK("highest_used with slot 1 alone", t->highest_used, 1);
	GET(t, 0, 2, 1);		/* slot 0 first, highest still 1 */
	slot4_put(t, 0, false);
	slot4_put(t, 1, false);
	CHECK("in_use", t->in_use, 0);
	CHECK("highest_used of an empty table", t->highest_used, 0);
	GET(t, 0, 2, 0);
	free(t);
	assert_int_equal(bad, 0);
}

static void test_exhaustion(void **state)
{
	struct slot4_table *t = table(4);
	uint32_t s, h;

	(void)state;
	bad = 0;
	GET(t, 0, 1, 0);
	GET(t, 1, 1, 1);
	GET(t, 2, 1, 2);
	GET(t, 3, 1, 3);
	CHECK("free", slot4_free(t), 0);
	GET(t, -1, 0, 0);
	GET(t, -1, 0, 0);
	slot4_put(t, 2, true);
	CHECK("free", slot4_free(t), 1);
	GET(t, 2, 2, 3);
	GET(t, -1, 0, 0);

	slot4_init(t, 1);		/* one slot: strictly one request at a time */
	GET(t, 0, 1, 0);
	CHECK("one slot, busy", slot4_get(t, &s, &h), -1);
	slot4_put(t, 0, true);
	GET(t, 0, 2, 0);
	free(t);
	assert_int_equal(bad, 0);
}

static void test_target(void **state)
{
	struct slot4_table *t = table(8);
	int i;

	(void)state;
	bad = 0;
	for (i = 0; i < 8; i++)
		GET(t, i, 1, (uint32_t)i);
	slot4_update(t, 7, 3);		/* the server wants slots 0..3 only */
	CHECK("target", t->target, 4);
	CHECK("free below target", slot4_free(t), 0);
	slot4_put(t, 5, true);		/* in use above target: ends normally */
	CHECK("seq[5]", t->seq[5], 2);
	GET(t, -1, 0, 0);		/* slot 5 is free but above the target */
	CHECK("free below target", slot4_free(t), 0);
	slot4_put(t, 2, true);
	CHECK("free below target", slot4_free(t), 1);
	GET(t, 2, 2, 7);		/* 6 and 7 still in flight */
	slot4_put(t, 7, true);
	slot4_put(t, 6, true);
	slot4_put(t, 2, true);
	GET(t, 2, 3, 4);		/* highest: 4 still in flight */
	slot4_put(t, 4, true);
	CHECK("highest_used", t->highest_used, 3);

	slot4_update(t, 7, 7);		/* grows again: 4..7 kept their sequence ids */
	CHECK("target", t->target, 8);
	GET(t, 4, 2, 4);
	GET(t, 5, 2, 5);
	GET(t, 6, 2, 6);
	GET(t, 7, 2, 7);
	GET(t, -1, 0, 0);

	/* sr_highest_slotid is a hard limit even when the target is higher. */
	slot4_update(t, 1, 7);
	CHECK("target from highest_slotid", t->target, 2);
	/* Never past the table, whatever the server says (no overflow at the top). */
	slot4_update(t, UINT32_MAX, UINT32_MAX);
	CHECK("target clamped", t->target, 8);
	slot4_update(t, 100, 50);
	CHECK("target clamped", t->target, 8);
	slot4_update(t, 0, 0);
	CHECK("target of slot 0 only", t->target, 1);
	free(t);
	assert_int_equal(bad, 0);
}

/* Tables across bitmap words: order, exhaustion and targets on word edges. */
static void test_words(void **state)
{
	struct slot4_table *t = table(200);
	uint32_t i;

	(void)state;
	bad = 0;
	for (i = 0; i < 200; i++)
		GET(t, (int)i, 1, i);
	GET(t, -1, 0, 0);
	slot4_put(t, 130, true);
	slot4_put(t, 64, true);
	slot4_put(t, 63, true);
	CHECK("free", slot4_free(t), 3);
	GET(t, 63, 2, 199);
	GET(t, 64, 2, 199);
	GET(t, 130, 2, 199);

	slot4_update(t, 199, 63);	/* target 64: word 0 only */
	slot4_put(t, 64, true);
	slot4_put(t, 199, true);
	CHECK("highest_used", t->highest_used, 198);
	GET(t, -1, 0, 0);
	slot4_put(t, 63, true);
	CHECK("free", slot4_free(t), 1);
	GET(t, 63, 3, 198);
	slot4_update(t, 199, 64);	/* target 65: slot 64 of word 1 */
	GET(t, 64, 3, 198);
	GET(t, -1, 0, 0);
	slot4_update(t, 199, 199);
	GET(t, 199, 2, 199);
	GET(t, -1, 0, 0);

	for (i = 0; i < 200; i++)
		slot4_put(t, i, false);
	CHECK("in_use", t->in_use, 0);
	CHECK("free", slot4_free(t), 200);
	CHECK("highest_used", t->highest_used, 0);

	slot4_init(t, SLOT4_MAX);	/* the largest table, end to end */
	for (i = 0; i < SLOT4_MAX; i++)
		GET(t, (int)i, 1, i);
	GET(t, -1, 0, 0);
	slot4_put(t, SLOT4_MAX - 1, true);
	CHECK("highest_used", t->highest_used, SLOT4_MAX - 2);
	GET(t, SLOT4_MAX - 1, 2, SLOT4_MAX - 1);
	free(t);
	assert_int_equal(bad, 0);
}

/* A session's 8 slots shared by two threads: a owns 0..3, b 4..7. */
static void test_shares(void **state)
{
	struct slot4_table *a = table(8), *b = calloc(1, sizeof(*b));
	uint32_t s, h, i;

	(void)state;
	bad = 0;
	assert_non_null(b);
	GET(a, 0, 1, 0);
	GET(a, 1, 1, 1);
	GET(a, 2, 1, 2);
	GET(a, 3, 1, 3);
	GET(a, 4, 1, 4);
	GET(a, 5, 1, 5);
	slot4_put(a, 5, true);		/* slot 5: its next sequence id is 2 */
	for (i = 0; i < 5; i++)
		slot4_put(a, i, i != 4);	/* slot 4 not used: still 1 */
	GET(a, 0, 2, 0);
	GET(a, 1, 2, 1);
	GET(a, 2, 2, 2);
	GET(a, 3, 2, 3);
	GET(a, 4, 1, 4);
	GET(a, 5, 2, 5);
	GET(a, 6, 1, 6);		/* a request lost: slot 6 stays busy */
	for (i = 0; i < 6; i++)
		slot4_put(a, i, true);
	CHECK("a in_use before the move", a->in_use, 1);

	CHECK("busy slots moved", slot4_move(b, a, 4, 8), 1);
	CHECK("a nslots", a->nslots, 8);
	CHECK("b nslots", b->nslots, 8);
	CHECK("b target", b->target, 8);
	CHECK("a owns", a->nown, 4);
	CHECK("b owns", b->nown, 4);
	CHECK("a in_use", a->in_use, 0);
	CHECK("b in_use (the lost one)", b->in_use, 1);
	CHECK("a free", slot4_free(a), 4);
	CHECK("b free", slot4_free(b), 3);
	CHECK("b first_own", b->first_own, 4);
	CHECK("a highest_other", a->highest_other, 7);
	CHECK("b highest_other", b->highest_other, 3);

	/* Each hands out only its own, with the sequence ids they had; a's highest
	 * covers b's slots, b's is its own (a's are all below; 6 is lost, in use). */
	GET(a, 0, 3, 7);
	GET(a, 1, 3, 7);
	GET(b, 4, 2, 6);
	GET(b, 5, 3, 6);
	GET(b, 7, 1, 7);
	GET(b, -1, 0, 0);
	GET(a, 2, 3, 7);
	GET(a, 3, 3, 7);
	GET(a, -1, 0, 0);
	CHECK("b's slot 4 is not a's to put", (slot4_put(a, 4, true), a->seq[4]), 2);
	CHECK("b's seq[4] untouched", b->seq[4], 2);
	slot4_put(b, 4, true);
	CHECK("b's seq[4]", b->seq[4], 3);
	slot4_put(b, 5, true);
	slot4_put(b, 7, true);

	/* The server's target leaves b none of its slots: b keeps its lowest. */
	slot4_update(b, 7, 3);
	CHECK("b target", b->target, 5);
	GET(b, 4, 3, 6);
	GET(b, -1, 0, 0);
	slot4_put(b, 4, true);
	slot4_update(a, 7, 3);
	CHECK("a target", a->target, 4);
	/* Its highest_slotid is a limit all the same. */
	slot4_update(b, 3, 7);
	CHECK("b target under highest_slotid 3", b->target, 4);
	CHECK("b free under highest_slotid 3", slot4_free(b), 0);
	CHECK("b: nothing", slot4_get(b, &s, &h), -1);

	/* Back into one table: every slot, the sequence ids b advanced, the lost one busy. */
	slot4_update(b, 7, 7);
	slot4_update(a, 7, 7);
	for (i = 0; i < 4; i++)
		slot4_put(a, i, true);
	CHECK("busy slots moved back", slot4_move(a, b, 0, 8), 1);
	CHECK("b owns nothing", b->nown, 0);
	CHECK("a owns all", a->nown, 8);
	CHECK("a highest_other", a->highest_other, 0);
	CHECK("a seq[4]", a->seq[4], 4);
	CHECK("a seq[5]", a->seq[5], 4);
	CHECK("a free", slot4_free(a), 7);
	free(b);
	free(a);
	assert_int_equal(bad, 0);
}

/* Shares of a table across words, moved a slice at a time (the members' slices of M). */
static void test_share_slices(void **state)
{
	struct slot4_table *whole = table(130), *t[3];
	uint32_t m, k, n = 130, total = 0;

	(void)state;
	bad = 0;
	for (m = 0; m < 3; m++) {
		t[m] = calloc(1, sizeof(*t[m]));
		assert_non_null(t[m]);
	}
	/* 7 members: 0..2 on table 0, 3..5 on table 1, 6 on table 2. */
	for (k = 0; k < 7; k++)
		slot4_move(t[k / 3], whole, k * n / 7, (k + 1) * n / 7);
	CHECK("whole owns nothing", whole->nown, 0);
	for (m = 0; m < 3; m++)
		total += t[m]->nown;
	CHECK("every slot owned once", total, 130);
	CHECK("t0 first", t[0]->first_own, 0);
	CHECK("t1 first", t[1]->first_own, 3 * n / 7);
	CHECK("t2 first", t[2]->first_own, 6 * n / 7);
	CHECK("t0 owns", t[0]->nown, 3 * n / 7);
	CHECK("t2 owns", t[2]->nown, n - 6 * n / 7);
	GET(t[1], (int)(3 * n / 7), 1, 129);	/* others' highest: t2's 129 */
	GET(t[2], (int)(6 * n / 7), 1, 6 * n / 7);	/* others' all below */
	for (m = 0; m < 3; m++)
		free(t[m]);
	free(whole);
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_reuse_and_seqid),
		cmocka_unit_test(test_highest),
		cmocka_unit_test(test_exhaustion),
		cmocka_unit_test(test_target),
		cmocka_unit_test(test_words),
		cmocka_unit_test(test_shares),
		cmocka_unit_test(test_share_slices),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
