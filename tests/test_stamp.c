/*
 * stamp unit tests: send timestamps mapped to requests by byte offset, with
 * requests batched in one send and split over several, sends the kernel gave
 * no time, the tail rule for large sends, sends forgotten, 32-bit keys that
 * wrap, and the control messages that carry the times.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>
#include <time.h>
#include <netinet/in.h>
#include <linux/errqueue.h>

#include "engine/native/xport/stamp.h"

/* find(), as "ns or -errno". */
static int64_t find(const struct stamp_tx *t, uint64_t end)
{
	uint64_t ns = 0;
	int rc = stamp_tx_find(t, end, &ns);

	return rc < 0 ? rc : (int64_t)ns;
}

/* Three requests in one send, their replies in any order. */
static void test_batched(void **state)
{
	struct stamp_tx t;

	(void)state;
	assert_int_equal(stamp_tx_init(&t, 16, 0), 0);
	stamp_tx_sent(&t, 300);
	assert_int_equal(find(&t, 200), -EAGAIN);	/* sent, its time not read yet */
	stamp_tx_add(&t, 299, 1000);
	assert_int_equal(find(&t, 300), 1000);
	assert_int_equal(find(&t, 100), 1000);
	assert_int_equal(find(&t, 200), 1000);
	assert_int_equal(find(&t, 301), -ENOENT);	/* never sent */
	stamp_tx_free(&t);
}

/* A request split over two sends has the time of the one with its last byte;
 * a timestamp for the kernel's own split of a send (no send ends there) is
 * not taken for anything. */
static void test_partial(void **state)
{
	struct stamp_tx t;

	(void)state;
	assert_int_equal(stamp_tx_init(&t, 16, 0), 0);
	stamp_tx_sent(&t, 1000);
	stamp_tx_sent(&t, 5000);
	stamp_tx_add(&t, 2999, 1500);			/* inside the second send */
	assert_int_equal(find(&t, 3000), -EAGAIN);
	stamp_tx_add(&t, 999, 1100);
	stamp_tx_add(&t, 4999, 2000);
	assert_int_equal(find(&t, 1000), 1100);
	assert_int_equal(find(&t, 1001), 2000);
	assert_int_equal(find(&t, 5000), 2000);
	/* A repeated key (a retransmission's) does not move a time. */
	stamp_tx_add(&t, 4999, 9999);
	assert_int_equal(find(&t, 5000), 2000);
	stamp_tx_free(&t);
}

/* No later send's time for a send the kernel gave none. */
static void test_no_time(void **state)
{
	struct stamp_tx t;

	(void)state;
	assert_int_equal(stamp_tx_init(&t, 16, 0), 0);
	stamp_tx_sent(&t, 100);
	stamp_tx_sent(&t, 200);
	stamp_tx_add(&t, 199, 500);
	assert_int_equal(find(&t, 100), -EAGAIN);
	assert_int_equal(find(&t, 150), 500);
	stamp_tx_free(&t);
}

/* Over STAMP_TX_TAIL bytes after a request in its send: not known exactly. */
static void test_tail(void **state)
{
	struct stamp_tx t;
	uint64_t end = 10 + 3 * (uint64_t)STAMP_TX_TAIL;

	(void)state;
	assert_int_equal(stamp_tx_init(&t, 16, 0), 0);
	stamp_tx_sent(&t, end);
	stamp_tx_add(&t, (uint32_t)(end - 1), 700);
	assert_int_equal(find(&t, end), 700);
	assert_int_equal(find(&t, end - STAMP_TX_TAIL), 700);
	assert_int_equal(find(&t, end - STAMP_TX_TAIL - 1), -ENOENT);
	assert_int_equal(find(&t, 10), -ENOENT);
	stamp_tx_free(&t);
}

/* Sends before the option was set, and sends dropped to make room. */
static void test_forgotten(void **state)
{
	struct stamp_tx t;

	(void)state;
	assert_int_equal(stamp_tx_init(&t, 16, 1000), 0);
	assert_int_equal(t.cap, 16);
	for (uint64_t i = 1; i <= 20; i++) {
		stamp_tx_sent(&t, 1000 + i * 10);
		stamp_tx_add(&t, (uint32_t)(i * 10 - 1), i);	/* keys count from the base */
	}
	assert_int_equal(find(&t, 900), -ENOENT);
	assert_int_equal(find(&t, 1010), -ENOENT);	/* the oldest four went */
	assert_int_equal(find(&t, 1040), -ENOENT);
	assert_int_equal(find(&t, 1041), 5);
	assert_int_equal(find(&t, 1200), 20);
	stamp_tx_free(&t);
}

/* Keys are 32 bits: a stream past 4 GiB still maps. */
static void test_wrap(void **state)
{
	struct stamp_tx t;
	uint64_t a = UINT64_C(0xffffff00), b = UINT64_C(0x100000064);

	(void)state;
	assert_int_equal(stamp_tx_init(&t, 16, 0), 0);
	stamp_tx_sent(&t, a);
	stamp_tx_add(&t, (uint32_t)(a - 1), 1);
	stamp_tx_sent(&t, b);
	stamp_tx_add(&t, (uint32_t)(b - 1), 2);		/* 0x63 */
	assert_int_equal(find(&t, a), 1);
	assert_int_equal(find(&t, b), 2);
	stamp_tx_free(&t);
}

/* A control message with SCM_TIMESTAMPING and, for the error queue, its key. */
static size_t build(uint8_t *buf, size_t len, time_t sec, long nsec, const struct sock_extended_err *e)
{
	struct msghdr m = { .msg_control = buf, .msg_controllen = len };
	struct scm_timestamping ts;
	struct cmsghdr *c;

	memset(buf, 0, len);
	memset(&ts, 0, sizeof(ts));
	ts.ts[0].tv_sec = sec;
	ts.ts[0].tv_nsec = nsec;
	c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SO_TIMESTAMPING_OLD;
	c->cmsg_len = CMSG_LEN(sizeof(ts));
	memcpy(CMSG_DATA(c), &ts, sizeof(ts));
	if (!e)
		return CMSG_SPACE(sizeof(ts));
	c = (struct cmsghdr *)(buf + CMSG_SPACE(sizeof(ts)));
	c->cmsg_level = SOL_IP;
	c->cmsg_type = IP_RECVERR;
	c->cmsg_len = CMSG_LEN(sizeof(*e));
	memcpy(CMSG_DATA(c), e, sizeof(*e));
	return CMSG_SPACE(sizeof(ts)) + CMSG_SPACE(sizeof(*e));
}

static void test_cmsg(void **state)
{
	union {
		uint8_t b[STAMP_CMSG_SPACE];
		struct cmsghdr align;
	} ctl;
	struct sock_extended_err e;
	struct msghdr m = { .msg_control = ctl.b };
	uint32_t key = 0;
	uint64_t ns = 0;

	(void)state;
	m.msg_controllen = build(ctl.b, sizeof(ctl.b), 12, 345, NULL);
	assert_int_equal(stamp_rx_cmsg(&m), UINT64_C(12000000345));
	assert_int_equal(stamp_tx_cmsg(&m, &key, &ns), 0);	/* no key: not a send's */

	memset(&e, 0, sizeof(e));
	e.ee_errno = ENOMSG;
	e.ee_origin = SO_EE_ORIGIN_TIMESTAMPING;
	e.ee_info = SCM_TSTAMP_SND;
	e.ee_data = 4242;
	m.msg_controllen = build(ctl.b, sizeof(ctl.b), 7, 8, &e);
	assert_int_equal(stamp_tx_cmsg(&m, &key, &ns), 1);
	assert_int_equal(key, 4242);
	assert_int_equal(ns, UINT64_C(7000000008));

	e.ee_info = SCM_TSTAMP_SCHED;			/* not the one asked for */
	m.msg_controllen = build(ctl.b, sizeof(ctl.b), 7, 8, &e);
	assert_int_equal(stamp_tx_cmsg(&m, &key, &ns), 0);
	e.ee_info = SCM_TSTAMP_SND;
	e.ee_origin = SO_EE_ORIGIN_ZEROCOPY;
	m.msg_controllen = build(ctl.b, sizeof(ctl.b), 7, 8, &e);
	assert_int_equal(stamp_tx_cmsg(&m, &key, &ns), 0);

	m.msg_controllen = 0;
	assert_int_equal(stamp_rx_cmsg(&m), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_batched),
		cmocka_unit_test(test_partial),
		cmocka_unit_test(test_no_time),
		cmocka_unit_test(test_tail),
		cmocka_unit_test(test_forgotten),
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_cmsg),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
