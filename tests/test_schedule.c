/*
 * schedule unit tests: the heap of waiting connections stays soonest first
 * when a connection that waits in it issues its start from elsewhere (a
 * reply's refill that ran before the timer did), and the timer follows the
 * soonest start. No loop is attached: the timer is read back, never run.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <sys/timerfd.h>

#include "base/clock.h"
#include "schedule.h"

/* The absolute CLOCK_MONOTONIC time the schedule's timer is armed for. */
static uint64_t armed_at(const struct schedule *s)
{
	struct itimerspec its;
	uint64_t now = now_ns();

	if (timerfd_gettime(s->fd, &its))
		return 0;
	return now + (uint64_t)its.it_value.tv_sec * 1000000000u + (uint64_t)its.it_value.tv_nsec;
}

static void check_soonest(const struct schedule *s, const char *when)
{
	for (unsigned k = 1; k < s->nheap; k++) {
		uint64_t parent = s->c[s->heap[(k - 1) / 2]].next_ns, child = s->c[s->heap[k]].next_ns;

		if (parent > child)
			fail_msg("%s: heap entry %u (conn %u, %" PRIu64 ") before its child %u "
				 "(conn %u, %" PRIu64 ")", when, (k - 1) / 2, s->heap[(k - 1) / 2], parent,
				 k, s->heap[k], child);
	}
}

/*
 * Three connections at 300/s in all (a start every 10 ms each, the three 1/300 s
 * apart), all waiting; the soonest issues its start without the timer (its reply's
 * refill came first): its next start is 10 ms on, after the other two, which must
 * now be the heap's top and the timer's.
 */
static void test_advance_while_waiting(void **state)
{
	struct schedule s;
	uint64_t t = now_ns() + 3600 * UINT64_C(1000000000), got, want;

	(void)state;
	assert_int_equal(schedule_init(&s, 3, 300, 3, false, 1), 0);
	for (unsigned i = 0; i < 3; i++) {
		schedule_start(&s, i, i, t);
		schedule_wait(&s, i);
	}
	check_soonest(&s, "all waiting");
	assert_int_equal(s.heap[0], 0);
	schedule_advance(&s, 0);
	check_soonest(&s, "conn 0 advanced while waiting");
	if (s.heap[0] != 1)
		fail_msg("soonest after conn 0's advance: expected conn 1 (%" PRIu64 "), got conn %u "
			 "(%" PRIu64 ")", schedule_next(&s, 1), s.heap[0], schedule_next(&s, s.heap[0]));
	got = armed_at(&s);
	want = schedule_next(&s, 1);
	/* timerfd_gettime's remaining time, read a moment after now_ns(): within 1 s. */
	if (got > want + 1000000000u || got + 1000000000u < want)
		fail_msg("timer armed for %" PRIu64 " ns, conn 1's start is %" PRIu64 " ns "
			 "(conn 0's next: %" PRIu64 ")", got, want, schedule_next(&s, 0));
	schedule_destroy(&s);
}

/* The same with Poisson gaps over 16 connections, each advanced in turn while it waits. */
static void test_advance_while_waiting_poisson(void **state)
{
	struct schedule s;
	uint64_t t = now_ns() + 3600 * UINT64_C(1000000000);
	char when[64];

	(void)state;
	assert_int_equal(schedule_init(&s, 16, 1600, 16, true, 7), 0);
	for (unsigned i = 0; i < 16; i++) {
		schedule_start(&s, i, i, t);
		schedule_wait(&s, i);
	}
	for (unsigned round = 0; round < 64; round++) {
		unsigned i = s.heap[round % s.nheap];

		schedule_advance(&s, i);
		snprintf(when, sizeof(when), "round %u, conn %u advanced", round, i);
		check_soonest(&s, when);
	}
	schedule_destroy(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_advance_while_waiting),
		cmocka_unit_test(test_advance_while_waiting_poisson),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
