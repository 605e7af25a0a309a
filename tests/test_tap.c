/*
 * tap unit tests: segments read from IPv4 headers (options, fragments, no
 * bytes, a record mark and XID at the start), stream offsets mapped to the
 * segments that carried them (records batched in one segment, a record split
 * over several, sequence numbers that wrap, segments forgotten), and a real
 * tap on loopback: each segment once, its bytes and sequence numbers as sent.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "engine/native/xport/tap.h"

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v & 0xffff);
}

/* An IPv4 TCP segment: ihl and doff in bytes, len bytes of data (the first 8:
 * mark, xid); returns the bytes captured (headers and up to 8 of data). */
static size_t segment(uint8_t *p, unsigned ihl, unsigned doff, uint32_t seq, uint32_t len,
		      uint32_t mark, uint32_t xid)
{
	memset(p, 0, ihl + doff + 8);
	p[0] = (uint8_t)(0x40 | ihl / 4);
	put16(p + 2, ihl + doff + len);
	p[6] = 0x40;	/* DF */
	p[9] = IPPROTO_TCP;
	put32(p + 12, 0x7f000001);
	put32(p + 16, 0x7f000002);
	put16(p + ihl, 40000);
	put16(p + ihl + 2, 2049);
	put32(p + ihl + 4, seq);
	p[ihl + 12] = (uint8_t)(doff / 4 << 4);
	put32(p + ihl + doff, mark);
	put32(p + ihl + doff + 4, xid);
	return ihl + doff + (len < 8 ? len : 8);
}

static void test_parse(void **state)
{
	uint8_t p[160];
	struct tap_pkt k;
	size_t n;

	(void)state;
	n = segment(p, 20, 32, 1000, 4200, 0x80001064, 0xabc);
	assert_int_equal(tap_parse(p, n, &k), 0);
	assert_int_equal(k.sport, 40000);
	assert_int_equal(k.dport, 2049);
	assert_int_equal(k.saddr, htonl(0x7f000001));
	assert_int_equal(k.daddr, htonl(0x7f000002));
	assert_int_equal(k.seq, 1000);
	assert_int_equal(k.len, 4200);
	assert_true(k.head);
	assert_int_equal(k.mark, 0x80001064);
	assert_int_equal(k.xid, 0xabc);

	/* IP options and a short capture: the bytes counted, no head. */
	n = segment(p, 24, 20, 5, 100, 1, 2);
	assert_int_equal(tap_parse(p, n - 4, &k), 0);
	assert_int_equal(k.len, 100);
	assert_false(k.head);

	/* No bytes (an ACK), a fragment, not TCP, not IPv4, too short. */
	n = segment(p, 20, 32, 5, 0, 0, 0);
	assert_int_equal(tap_parse(p, n, &k), -1);
	n = segment(p, 20, 20, 5, 10, 0, 0);
	p[6] = 0x20;	/* more fragments */
	assert_int_equal(tap_parse(p, n, &k), -1);
	n = segment(p, 20, 20, 5, 10, 0, 0);
	p[9] = IPPROTO_UDP;
	assert_int_equal(tap_parse(p, n, &k), -1);
	n = segment(p, 20, 20, 5, 10, 0, 0);
	p[0] = 0x65;
	assert_int_equal(tap_parse(p, n, &k), -1);
	assert_int_equal(tap_parse(p, 19, &k), -1);
}

static struct tap_pkt seg(uint32_t seq, uint32_t len, uint64_t ns)
{
	return (struct tap_pkt){ .seq = seq, .len = len, .ns = ns };
}

static int64_t when(const struct tap_stream *s, uint64_t off)
{
	uint64_t ns = 0;
	int rc = tap_stream_time(s, off, &ns);

	return rc < 0 ? rc : (int64_t)ns;
}

/* Three records in one segment, one record over two; wrapping sequence numbers. */
static void test_stream(void **state)
{
	struct tap_stream s = { 0 };
	struct tap_pkt k;

	(void)state;
	assert_int_equal(tap_stream_init(&s, 8), 0);
	k = seg(0xfffffff0u, 300, 100);		/* offsets 1000..1299: three records of 100 */
	tap_stream_add(&s, &k);
	assert_int_equal(when(&s, 1099), -EAGAIN);	/* no anchor yet */
	assert_false(tap_carries(&s, &k, 1099));
	tap_stream_anchor(&s, 0xfffffff0u, 1000);
	assert_true(tap_carries(&s, &k, 1000));
	assert_true(tap_carries(&s, &k, 1299));
	assert_false(tap_carries(&s, &k, 1300));
	assert_false(tap_carries(&s, &k, 999));
	assert_int_equal(when(&s, 1099), 100);
	assert_int_equal(when(&s, 1299), 100);
	/* 1300..1799 in two segments: the record's last byte is in the second. */
	k = seg(0xfffffff0u + 300, 250, 200);	/* wraps past 2^32 */
	tap_stream_add(&s, &k);
	k = seg(0xfffffff0u + 550, 250, 300);
	tap_stream_add(&s, &k);
	assert_int_equal(when(&s, 1300), 200);
	assert_int_equal(when(&s, 1799), 300);
	assert_int_equal(when(&s, 1800), -ENOENT);	/* not seen yet */
	/* Offsets past 4 GiB map the same way. */
	tap_stream_anchor(&s, 7, (1ull << 32) + 1000);
	k = seg(7, 10, 400);
	tap_stream_add(&s, &k);
	assert_int_equal(when(&s, (1ull << 32) + 1009), 400);
	tap_stream_free(&s);
}

/* The ring keeps the latest cap segments; init forgets all and the anchor. */
static void test_forgotten(void **state)
{
	struct tap_stream s = { 0 };

	(void)state;
	assert_int_equal(tap_stream_init(&s, 16), 0);
	tap_stream_anchor(&s, 0, 0);
	for (uint32_t i = 0; i < 20; i++) {
		struct tap_pkt k = seg(i * 10, 10, 1000 + i);

		tap_stream_add(&s, &k);
	}
	assert_int_equal(when(&s, 35), -ENOENT);	/* segments 0..3 dropped */
	assert_int_equal(when(&s, 45), 1004);
	assert_int_equal(when(&s, 199), 1019);
	assert_int_equal(tap_stream_init(&s, 16), 0);
	assert_int_equal(when(&s, 199), -EAGAIN);
	tap_stream_free(&s);
}

struct seen {
	struct tap_pkt k[64];
	unsigned n;
};

static void keep(void *arg, const struct tap_pkt *k)
{
	struct seen *s = arg;

	if (s->n < 64)
		s->k[s->n++] = *k;
}

/*
 * A tap on a loopback TCP connection's server port: a record the client
 * sends and one the server sends back are each seen once (the outgoing copy
 * on lo is filtered out), with their lengths, marks, XIDs and sequence
 * numbers one after the other; the connection's ACKs and SYNs are not seen.
 * Filtered on the client's local port: both directions; on another: nothing.
 * Needs CAP_NET_RAW: without it the test says so and is skipped.
 */
static void test_loopback(void **state)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t salen = sizeof(sa);
	uint8_t rec[200] = { 0 }, buf[400];
	struct seen seen = { .n = 0 };
	struct tap *t;
	int l, cli, srv, rc, one = 1;
	uint16_t port, cport, other;

	(void)state;
	l = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(l >= 0);
	assert_int_equal(bind(l, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(l, 1), 0);
	assert_int_equal(getsockname(l, (struct sockaddr *)&sa, &salen), 0);
	port = ntohs(sa.sin_port);
	rc = tap_open(&t, &port, 1, false);
	if (rc == -EPERM) {
		close(l);
		print_message("tap on loopback: no CAP_NET_RAW here, not tested\n");
		skip();
	}
	assert_int_equal(rc, 0);
	cli = socket(AF_INET, SOCK_STREAM, 0);
	assert_int_equal(connect(cli, (struct sockaddr *)&sa, sizeof(sa)), 0);
	srv = accept(l, NULL, NULL);
	assert_true(srv >= 0);
	setsockopt(cli, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(srv, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	put32(rec, 0x80000000u | 196);
	put32(rec + 4, 0x1234);
	assert_int_equal(send(cli, rec, 200, 0), 200);
	assert_int_equal(recv(srv, buf, 200, MSG_WAITALL), 200);
	put32(rec + 4, 0x1235);
	assert_int_equal(send(cli, rec, 200, 0), 200);
	assert_int_equal(recv(srv, buf, 200, MSG_WAITALL), 200);
	put32(rec, 0x80000000u | 96);
	assert_int_equal(send(srv, rec, 100, 0), 100);
	assert_int_equal(recv(cli, buf, 100, MSG_WAITALL), 100);
	tap_drain(t, keep, &seen);
	assert_int_equal(seen.n, 3);
	assert_int_equal(seen.k[0].dport, port);
	assert_int_equal(seen.k[0].len, 200);
	assert_int_equal(seen.k[0].xid, 0x1234);
	assert_int_equal(seen.k[0].mark, 0x80000000u | 196);
	assert_int_equal(seen.k[1].xid, 0x1235);
	assert_int_equal(seen.k[1].seq, seen.k[0].seq + 200);
	assert_int_equal(seen.k[2].sport, port);
	assert_int_equal(seen.k[2].len, 100);
	assert_int_equal(seen.k[2].mark, 0x80000000u | 96);
	assert_true(seen.k[0].ns > 0 && seen.k[1].ns >= seen.k[0].ns && seen.k[2].ns >= seen.k[1].ns);
	assert_int_equal(tap_drain(t, keep, &seen), 0);
	/* Filtered on the client's port instead: both directions again; on another
	 * port: nothing. */
	salen = sizeof(sa);
	assert_int_equal(getsockname(cli, (struct sockaddr *)&sa, &salen), 0);
	cport = ntohs(sa.sin_port);
	other = (uint16_t)(cport ^ 1);
	assert_int_equal(tap_filter_ports(t, &other, 1), 0);
	assert_int_equal(send(cli, rec, 100, 0), 100);
	assert_int_equal(recv(srv, buf, 100, MSG_WAITALL), 100);
	assert_int_equal(tap_drain(t, keep, &seen), 0);
	assert_int_equal(tap_filter_ports(t, &cport, 1), 0);
	assert_int_equal(send(cli, rec, 100, 0), 100);
	assert_int_equal(recv(srv, buf, 100, MSG_WAITALL), 100);
	assert_int_equal(send(srv, rec, 100, 0), 100);
	assert_int_equal(recv(cli, buf, 100, MSG_WAITALL), 100);
	seen.n = 0;
	assert_int_equal(tap_drain(t, keep, &seen), 2);
	assert_int_equal(seen.k[0].sport, cport);
	assert_int_equal(seen.k[1].dport, cport);
	assert_int_equal(tap_drops(t), 0);
	tap_close(t);
	close(cli);
	close(srv);
	close(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_stream),
		cmocka_unit_test(test_forgotten),
		cmocka_unit_test(test_loopback),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
