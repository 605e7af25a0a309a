/*
 * trace unit tests: captures written here with libpcap (Ethernet, IPv4, TCP)
 * whose segments carry RPC records built with the native engine's encoders
 * (replies by hand), read back with trace_load. One record per segment, one
 * over three segments, segments out of order and sent twice, a gap, a packet
 * cut by the snap length, a capture begun mid-connection, RPCSEC_GSS
 * integrity, NFSv4.1 COMPOUNDs, NFSv4.2's operations and their summary,
 * other link types and IPv6,
 * the gzip'd capture, random bytes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "engine/native/codec/nfs3x.h"
#include "engine/native/rpc/rpc.h"
#include "trace.h"
#include "trace/trace_summary.h"

#define CLI 0
#define SRV 1

struct cap {
	char path[64];
	pcap_t *pd;
	pcap_dumper_t *d;
	uint32_t seq[2];	/* next sequence number of each direction */
	uint64_t us;		/* the next packet's time */
};

/* The link type and IP version of the captures cap_open makes next. */
static int link_type = DLT_EN10MB, ip_v6;

static void cap_open(struct cap *c)
{
	int fd;

	snprintf(c->path, sizeof(c->path), "/tmp/test_trace.XXXXXX");
	fd = mkstemp(c->path);
	assert_true(fd >= 0);
	close(fd);
	c->pd = pcap_open_dead(link_type, 262144);
	c->d = pcap_dump_open(c->pd, c->path);
	assert_non_null(c->d);
	c->seq[CLI] = 1001, c->seq[SRV] = 5001;
	c->us = 1000000;
}

/* One TCP segment from dir at sequence number seq; caplen < n cuts the packet. */
static void seg_at(struct cap *c, int dir, uint32_t seq, const uint8_t *p, uint32_t n,
		   uint32_t caplen, uint8_t flags)
{
	static uint8_t pkt[70000];
	uint8_t ip4[2][4] = { { 10, 0, 0, 1 }, { 10, 0, 0, 2 } };
	uint16_t port[2] = { 900, 2049 };
	uint32_t link = link_type == DLT_EN10MB ? 14 : link_type == DLT_LINUX_SLL ? 16 :
			link_type == DLT_NULL ? 4 : 0, iph = ip_v6 ? 40 : 20, hdr = link + iph + 20;
	uint8_t *ip = pkt + link, *tcp = ip + iph;
	struct pcap_pkthdr h = { 0 };

	memset(pkt, 0, hdr);
	if (link_type == DLT_EN10MB)
		pkt[12] = ip_v6 ? 0x86 : 0x08, pkt[13] = ip_v6 ? 0xdd : 0x00;
	else if (link_type == DLT_LINUX_SLL)
		pkt[14] = ip_v6 ? 0x86 : 0x08, pkt[15] = ip_v6 ? 0xdd : 0x00;
	else if (link_type == DLT_NULL)
		pkt[0] = ip_v6 ? 30 : 2;	/* AF_INET6 (BSD) or AF_INET, host order */
	if (ip_v6) {
		ip[0] = 0x60;
		ip[4] = (uint8_t)((20 + n) >> 8), ip[5] = (uint8_t)(20 + n);
		ip[6] = 6, ip[7] = 64;
		ip[8 + 15] = (uint8_t)(1 + dir);	/* ::1 and ::2 */
		ip[24 + 15] = (uint8_t)(2 - dir);
	} else {
		ip[0] = 0x45;
		ip[2] = (uint8_t)((40 + n) >> 8), ip[3] = (uint8_t)(40 + n);
		ip[8] = 64, ip[9] = 6;
		memcpy(ip + 12, ip4[dir], 4);
		memcpy(ip + 16, ip4[!dir], 4);
	}
	tcp[0] = (uint8_t)(port[dir] >> 8), tcp[1] = (uint8_t)port[dir];
	tcp[2] = (uint8_t)(port[!dir] >> 8), tcp[3] = (uint8_t)port[!dir];
	xdrx_put_be32(tcp + 4, seq);
	tcp[12] = 0x50;
	tcp[13] = flags;
	if (n)
		memcpy(pkt + hdr, p, n);
	h.ts.tv_sec = (time_t)(c->us / 1000000);
	h.ts.tv_usec = (suseconds_t)(c->us % 1000000);
	h.len = hdr + n;
	h.caplen = hdr + caplen;
	pcap_dump((u_char *)c->d, &h, pkt);
	c->us += 100;
}

/* The next segment of dir's stream. */
static void seg(struct cap *c, int dir, const uint8_t *p, uint32_t n)
{
	seg_at(c, dir, c->seq[dir], p, n, n, 0x18);
	c->seq[dir] += n;
}

static void syns(struct cap *c)
{
	seg_at(c, CLI, c->seq[CLI] - 1, NULL, 0, 0, 0x02);
	seg_at(c, SRV, c->seq[SRV] - 1, NULL, 0, 0, 0x12);
}

static void cap_close(struct cap *c)
{
	pcap_dump_close(c->d);
	pcap_close(c->pd);
}

static const struct nfs_fh fh = { 8, { 1, 2, 3, 4, 5, 6, 7, 8 } };

static size_t read_call(uint8_t *buf, size_t cap, uint32_t xid, uint64_t off, uint32_t count)
{
	XDR x;

	assert_true(rpc_start_call(&x, buf, cap, xid, 100003, 3, 6, NULL));
	assert_true(nfs3_enc_read(&x, &fh, off, count));
	return rpc_finish_call(&x, buf, 0);
}

/* A reply: mark, xid, REPLY, MSG_ACCEPTED, AUTH_NONE verifier, SUCCESS, then words. */
static size_t reply(uint8_t *buf, uint32_t xid, const uint32_t *w, size_t nw)
{
	uint32_t head[] = { 0, xid, 1, 0, 0, 0, 0 };
	size_t n = 0;

	for (size_t i = 1; i < 7; i++, n += 4)
		xdrx_put_be32(buf + 4 + n, head[i]);
	for (size_t i = 0; i < nw; i++, n += 4)
		xdrx_put_be32(buf + 4 + n, w[i]);
	xdrx_put_be32(buf, 0x80000000u | (uint32_t)n);
	return n + 4;
}

static void load(const struct cap *c, struct trace *t)
{
	char err[256];

	assert_int_equal(trace_load(c->path, t, err, sizeof(err)), 0);
}

static void test_read_one_segment(void **state)
{
	uint32_t res[] = { 0, 0, 4096, 1, 0 };	/* NFS3_OK, no attrs, count, eof, data<> */
	uint8_t call[512], rep[128];
	struct cap c;
	struct trace t;
	size_t n = read_call(call, sizeof(call), 7, 8192, 4096);

	(void)state;
	cap_open(&c);
	syns(&c);
	seg(&c, CLI, call, (uint32_t)n);
	seg(&c, SRV, rep, (uint32_t)reply(rep, 7, res, 5));
	cap_close(&c);
	load(&c, &t);
	assert_int_equal(t.nops, 1);
	assert_int_equal(t.ops[0].proc, 6);
	assert_int_equal(t.ops[0].version, 3);
	assert_int_equal(t.ops[0].offset, 8192);
	assert_int_equal(t.ops[0].count, 4096);
	assert_int_equal(t.ops[0].status, 0);
	assert_int_equal(t.ops[0].conn, 1);
	assert_int_equal(t.ops[0].reply_ns - t.ops[0].call_ns, 100000);
	assert_int_equal(t.ops[0].fh, 1);
	assert_memory_equal(trace_blob(&t.fhs, 1)->p, fh.data, 8);
	assert_int_equal(t.left.lost_bytes + t.left.skipped_bytes + t.left.records, 0);
	trace_free(&t);
	unlink(c.path);
}

/* The same READ over Linux cooked, raw IP and BSD loopback captures, IPv4 and IPv6. */
static void test_link_types(void **state)
{
	static const int types[] = { DLT_EN10MB, DLT_LINUX_SLL, DLT_RAW, DLT_NULL };

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		for (ip_v6 = 0; ip_v6 < 2; ip_v6++) {
			link_type = types[i];
			test_read_one_segment(state);
		}
	link_type = DLT_EN10MB;
	ip_v6 = 0;
}

/* A WRITE of 100 bytes over three segments, then a LOOKUP, its reply's handle. */
static void test_split_three(void **state)
{
	uint8_t call[1024], rep[256];
	uint32_t res[] = { 0, 4, 0xaabbccdd, 0xeeff0011 };	/* NFS3_OK, fh3<4 bytes> */
	struct cap c;
	struct trace t;
	XDR x;
	size_t n;

	(void)state;
	assert_true(rpc_start_call(&x, call, sizeof(call), 9, 100003, 3, 7, NULL));
	assert_true(nfs3_enc_write(&x, &fh, 1 << 20, 100, NFS3_FILE_SYNC));
	n = rpc_finish_call(&x, call, 100);
	memset(call + n, 'w', 100);
	n += 100;
	cap_open(&c);
	syns(&c);
	seg(&c, CLI, call, 10);
	seg(&c, CLI, call + 10, 50);
	seg(&c, CLI, call + 60, (uint32_t)n - 60);
	assert_true(rpc_start_call(&x, call, sizeof(call), 10, 100003, 3, 3, NULL));
	assert_true(nfs3_enc_lookup(&x, &fh, "file.000001"));
	n = rpc_finish_call(&x, call, 0);
	seg(&c, CLI, call, (uint32_t)n);
	seg(&c, SRV, rep, (uint32_t)reply(rep, 10, res, 3));
	cap_close(&c);
	load(&c, &t);
	assert_int_equal(t.nops, 2);
	assert_int_equal(t.ops[0].proc, 7);
	assert_int_equal(t.ops[0].offset, 1 << 20);
	assert_int_equal(t.ops[0].count, 100);
	assert_int_equal(t.ops[0].stable, NFS3_FILE_SYNC);
	assert_int_equal(t.ops[0].status, TRACE_NO_REPLY);
	assert_int_equal(t.ops[1].proc, 3);
	assert_int_equal(t.ops[1].dir, t.ops[0].fh);
	assert_int_equal(trace_blob(&t.names, t.ops[1].name)->len, 11);
	assert_memory_equal(trace_blob(&t.names, t.ops[1].name)->p, "file.000001", 11);
	assert_int_equal(t.ops[1].status, 0);
	assert_int_equal(trace_blob(&t.fhs, t.ops[1].result_fh)->len, 4);
	trace_free(&t);
	unlink(c.path);
}

/* Three READ calls: segments 2, 1, 1 again, 3, 2 again: each call once, in order. */
static void test_out_of_order(void **state)
{
	uint8_t a[3][512];
	size_t n[3];
	uint32_t s[3];
	struct cap c;
	struct trace t;

	(void)state;
	cap_open(&c);
	syns(&c);
	for (int i = 0; i < 3; i++) {
		n[i] = read_call(a[i], sizeof(a[i]), 20 + (uint32_t)i, (uint64_t)i * 4096, 4096);
		s[i] = c.seq[CLI];
		c.seq[CLI] += (uint32_t)n[i];
	}
	seg_at(&c, CLI, s[1], a[1], (uint32_t)n[1], (uint32_t)n[1], 0x18);
	seg_at(&c, CLI, s[0], a[0], (uint32_t)n[0], (uint32_t)n[0], 0x18);
	seg_at(&c, CLI, s[0], a[0], (uint32_t)n[0], (uint32_t)n[0], 0x18);
	seg_at(&c, CLI, s[2], a[2], (uint32_t)n[2], (uint32_t)n[2], 0x18);
	seg_at(&c, CLI, s[1], a[1], (uint32_t)n[1], (uint32_t)n[1], 0x18);
	cap_close(&c);
	load(&c, &t);
	assert_int_equal(t.nops, 3);
	for (int i = 0; i < 3; i++)
		assert_int_equal(t.ops[i].offset, (uint64_t)i * 4096);
	assert_int_equal(t.left.lost_bytes + t.left.skipped_bytes + t.left.records, 0);
	trace_free(&t);
	unlink(c.path);
}

/*
 * fuzz: a segment exactly 2^31 bytes behind the stream (as far behind as a sequence
 * number can say): an old retransmission, dropped; the stream goes on.
 */
static void test_half_space_behind(void **state)
{
	uint8_t a[2][512];
	size_t n[2];
	struct cap c;
	struct trace t;

	(void)state;
	cap_open(&c);
	syns(&c);
	for (int i = 0; i < 2; i++)
		n[i] = read_call(a[i], sizeof(a[i]), 70 + (uint32_t)i, (uint64_t)i * 4096, 4096);
	seg(&c, CLI, a[0], (uint32_t)n[0]);
	seg_at(&c, CLI, c.seq[CLI] - 0x80000000u, a[1], (uint32_t)n[1], (uint32_t)n[1], 0x18);
	seg(&c, CLI, a[1], (uint32_t)n[1]);
	cap_close(&c);
	load(&c, &t);
	assert_int_equal(t.nops, 2);
	assert_int_equal(t.ops[1].offset, 4096);
	assert_int_equal(t.left.lost_bytes + t.left.skipped_bytes + t.left.records, 0);
	trace_free(&t);
	unlink(c.path);
}

/* Record 2's first half never captured: records 1 and 3 read, the rest counted. */
static void test_gap(void **state)
{
	uint8_t a[3][512];
	size_t n[3];
	struct cap c;
	struct trace t;

	(void)state;
	cap_open(&c);
	syns(&c);
	for (int i = 0; i < 3; i++)
		n[i] = read_call(a[i], sizeof(a[i]), 30 + (uint32_t)i, (uint64_t)i * 4096, 4096);
	seg(&c, CLI, a[0], (uint32_t)n[0]);
	c.seq[CLI] += 20;	/* lost */
	seg(&c, CLI, a[1] + 20, (uint32_t)n[1] - 20);
	seg(&c, CLI, a[2], (uint32_t)n[2]);
	cap_close(&c);
	load(&c, &t);
	assert_int_equal(t.nops, 2);
	assert_int_equal(t.ops[0].offset, 0);
	assert_int_equal(t.ops[1].offset, 8192);
	assert_int_equal(t.left.lost_bytes, 20);
	assert_int_equal(t.left.skipped_bytes, n[1] - 20);
	trace_free(&t);
	unlink(c.path);
}

/* A packet cut by the snap length: its record left out, the next one read. */
static void test_snaplen_cut(void **state)
{
	uint8_t a[2][512];
	size_t n[2];
	struct cap c;
	struct trace t;

	(void)state;
	cap_open(&c);
	syns(&c);
	for (int i = 0; i < 2; i++)
		n[i] = read_call(a[i], sizeof(a[i]), 40 + (uint32_t)i, (uint64_t)i * 4096, 4096);
	seg_at(&c, CLI, c.seq[CLI], a[0], (uint32_t)n[0], 30, 0x18);
	c.seq[CLI] += (uint32_t)n[0];
	seg(&c, CLI, a[1], (uint32_t)n[1]);
	cap_close(&c);
	load(&c, &t);
	assert_int_equal(t.nops, 1);
	assert_int_equal(t.ops[0].offset, 4096);
	assert_int_equal(t.left.cut_packets, 1);
	assert_int_equal(t.left.lost_bytes, n[0] - 30);
	assert_int_equal(t.left.records, 1);
	trace_free(&t);
	unlink(c.path);
}

/*
 * fuzz: a stream's first packet cut before its payload (caplen 0): all of it
 * lost, nothing copied (the stream had no buffer yet), the next record read.
 */
static void test_snaplen_no_payload(void **state)
{
	uint8_t a[2][512];
	size_t n[2];
	struct cap c;
	struct trace t;

	(void)state;
	cap_open(&c);
	syns(&c);
	for (int i = 0; i < 2; i++)
		n[i] = read_call(a[i], sizeof(a[i]), 50 + (uint32_t)i, (uint64_t)i * 4096, 4096);
	seg_at(&c, CLI, c.seq[CLI], a[0], (uint32_t)n[0], 0, 0x18);
	c.seq[CLI] += (uint32_t)n[0];
	seg(&c, CLI, a[1], (uint32_t)n[1]);
	cap_close(&c);
	load(&c, &t);
	assert_int_equal(t.nops, 1);
	assert_int_equal(t.ops[0].offset, 4096);
	assert_int_equal(t.left.cut_packets, 1);
	assert_int_equal(t.left.lost_bytes, n[0]);
	assert_int_equal(t.left.records, 0);
	trace_free(&t);
	unlink(c.path);
}

/* A capture begun mid-connection (no SYN) inside a record: resynchronised at the next. */
static void test_mid_connection(void **state)
{
	uint8_t a[2][512];
	size_t n[2];
	struct cap c;
	struct trace t;

	(void)state;
	cap_open(&c);
	for (int i = 0; i < 2; i++)
		n[i] = read_call(a[i], sizeof(a[i]), 70 + (uint32_t)i, (uint64_t)i * 4096, 4096);
	seg(&c, CLI, a[0] + 30, (uint32_t)n[0] - 30);
	seg(&c, CLI, a[1], (uint32_t)n[1]);
	cap_close(&c);
	load(&c, &t);
	assert_int_equal(t.nops, 1);
	assert_int_equal(t.ops[0].offset, 4096);
	assert_int_equal(t.left.skipped_bytes, n[0] - 30);
	trace_free(&t);
	unlink(c.path);
}

/* RPCSEC_GSS integrity: the READ's arguments and results inside databody_integ. */
static void test_gss_integrity(void **state)
{
	static const uint8_t mic[8] = { 9, 9, 9, 9, 9, 9, 9, 9 };
	const uint8_t cred[] = { 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 2,
				 0, 0, 0, 4, 0xca, 0xfe, 0xba, 0xbe };	/* v1 DATA seq 5 integrity */
	uint8_t call[512], rep[512];
	struct cap c;
	struct trace t;
	XDR x;
	uint32_t n;

	(void)state;
	xdrx_create(&x, call, sizeof(call), XDR_ENCODE);
	assert_true(xdrx_put32(&x, 0) && xdrx_put32(&x, 80) && xdrx_put32(&x, 0) &&
		    xdrx_put32(&x, 2) && xdrx_put32(&x, 100003) && xdrx_put32(&x, 3) &&
		    xdrx_put32(&x, 6) && xdrx_put32(&x, 6) &&
		    xdrx_put_opaque(&x, cred, sizeof(cred), 400) && xdrx_put32(&x, 6) &&
		    xdrx_put_opaque(&x, mic, 8, 400) && xdrx_put32(&x, 28) && xdrx_put32(&x, 5) &&
		    xdrx_put_opaque(&x, fh.data, fh.len, 64) && xdrx_put64(&x, 777) &&
		    xdrx_put32(&x, 333) && xdrx_put_opaque(&x, mic, 8, 400));
	n = xdr_getpos(&x);
	xdrx_put_be32(call, 0x80000000u | (n - 4));
	xdrx_create(&x, rep, sizeof(rep), XDR_ENCODE);
	assert_true(xdrx_put32(&x, 0) && xdrx_put32(&x, 80) && xdrx_put32(&x, 1) &&
		    xdrx_put32(&x, 0) && xdrx_put32(&x, 6) && xdrx_put_opaque(&x, mic, 8, 400) &&
		    xdrx_put32(&x, 0) && xdrx_put32(&x, 12) && xdrx_put32(&x, 5) &&
		    xdrx_put32(&x, 70) && xdrx_put32(&x, 0) && xdrx_put_opaque(&x, mic, 8, 400));
	xdrx_put_be32(rep, 0x80000000u | (xdr_getpos(&x) - 4));
	cap_open(&c);
	syns(&c);
	seg(&c, CLI, call, n);
	seg(&c, SRV, rep, xdr_getpos(&x));
	cap_close(&c);
	load(&c, &t);
	assert_int_equal(t.nops, 1);
	assert_int_equal(t.ops[0].proc, 6);
	assert_int_equal(t.ops[0].offset, 777);
	assert_int_equal(t.ops[0].count, 333);
	assert_int_equal(t.ops[0].status, 70);	/* NFS3ERR_STALE */
	trace_free(&t);
	unlink(c.path);
}

/* SEQUENCE, PUTFH, READ; then SEQUENCE, PUTFH, LOOKUP "x" that fails. */
static size_t compound(uint8_t *buf, size_t cap, uint32_t xid, bool lookup)
{
	XDR x;

	assert_true(rpc_start_call(&x, buf, cap, xid, 100003, 4, 1, NULL));
	assert_true(xdrx_put_opaque(&x, "", 0, 64) && xdrx_put32(&x, 1) && xdrx_put32(&x, 3));
	assert_true(xdrx_put32(&x, 53));
	for (int i = 0; i < 8; i++)
		assert_true(xdrx_put32(&x, 1));
	assert_true(xdrx_put32(&x, 22) && xdrx_put_opaque(&x, fh.data, fh.len, 128));
	if (lookup) {
		assert_true(xdrx_put32(&x, 15) && xdrx_put_opaque(&x, "x", 1, 64));
	} else {
		assert_true(xdrx_put32(&x, 25));
		for (int i = 0; i < 4; i++)
			assert_true(xdrx_put32(&x, 0));
		assert_true(xdrx_put64(&x, 65536) && xdrx_put32(&x, 512));
	}
	return rpc_finish_call(&x, buf, 0);
}

/* fuzz: a COMPOUND of no operations, the capture's first call, and its reply: counted, no op. */
static void test_v4_empty_compound(void **state)
{
	uint32_t ok[] = { 0, 0, 0 };	/* NFS4_OK, tag<>, no results */
	uint8_t call[128], rep[64];
	struct cap c;
	struct trace t;
	XDR x;

	(void)state;
	cap_open(&c);
	syns(&c);
	assert_true(rpc_start_call(&x, call, sizeof(call), 60, 100003, 4, 1, NULL));
	assert_true(xdrx_put32(&x, 0) && xdrx_put32(&x, 1) && xdrx_put32(&x, 0));	/* tag, 4.1, 0 ops */
	seg(&c, CLI, call, (uint32_t)rpc_finish_call(&x, call, 0));
	seg(&c, SRV, rep, (uint32_t)reply(rep, 60, ok, 3));
	cap_close(&c);
	load(&c, &t);
	assert_int_equal(t.nops, 0);
	assert_int_equal(t.compounds, 1);
	assert_int_equal(t.left.orphan_replies, 0);
	trace_free(&t);
	unlink(c.path);
}

static void test_v4_compound(void **state)
{
	uint32_t ok[] = { 0, 0, 3, 53, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 22, 0, 25, 0, 1, 0 };
	uint32_t noent[] = { 2, 0, 3, 53, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 22, 0, 15, 2 };
	uint8_t a[2][512], rep[256];
	struct cap c;
	struct trace t;

	(void)state;
	cap_open(&c);
	syns(&c);
	seg(&c, CLI, a[0], (uint32_t)compound(a[0], sizeof(a[0]), 50, false));
	seg(&c, CLI, a[1], (uint32_t)compound(a[1], sizeof(a[1]), 51, true));
	seg(&c, SRV, rep, (uint32_t)reply(rep, 51, noent, 18));
	seg(&c, SRV, rep, (uint32_t)reply(rep, 50, ok, 20));
	cap_close(&c);
	load(&c, &t);
	assert_int_equal(t.nops, 6);
	assert_int_equal(t.compounds, 2);
	assert_int_equal(t.session_ops, 2);
	assert_int_equal(t.versions, 1u << 2);
	assert_int_equal(t.ops[2].proc, 25);
	assert_int_equal(t.ops[2].minor, 1);
	assert_int_equal(t.ops[2].offset, 65536);
	assert_int_equal(t.ops[2].count, 512);
	assert_int_equal(t.ops[2].fh, t.ops[1].fh);
	assert_int_equal(t.ops[2].status, 0);
	assert_true(t.ops[2].reply_ns > t.ops[5].reply_ns);
	assert_int_equal(t.ops[5].proc, 15);
	assert_int_equal(t.ops[5].status, 2);
	assert_int_equal(t.ops[4].status, 0);
	assert_int_equal(t.ops[5].compound_status, 2);
	assert_int_equal(t.ops[5].dir, t.ops[1].fh);
	trace_free(&t);
	unlink(c.path);
}

/* Words of a v4.2 COMPOUND (minor version 2) after SEQUENCE; the RPC call around them. */
static size_t compound42(uint8_t *buf, size_t cap, uint32_t xid, const uint32_t *w, size_t nw,
			 uint32_t nops)
{
	XDR x;

	assert_true(rpc_start_call(&x, buf, cap, xid, 100003, 4, 1, NULL));
	assert_true(xdrx_put_opaque(&x, "", 0, 64) && xdrx_put32(&x, 2) && xdrx_put32(&x, nops + 1));
	assert_true(xdrx_put32(&x, 53));
	for (int i = 0; i < 8; i++)
		assert_true(xdrx_put32(&x, 1));
	for (size_t i = 0; i < nw; i++)
		assert_true(xdrx_put32(&x, w[i]));
	return rpc_finish_call(&x, buf, 0);
}

#define FH8(b) 8, (b) << 24 | 2 << 16 | 3 << 8 | 4, 0x05060708	/* nfs_fh4 of 8 bytes */
#define SID 0, 0, 0, 0	/* a stateid4 */
#define U64(v) (uint32_t)((uint64_t)(v) >> 32), (uint32_t)(v)
#define SEQ_RES 53, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0	/* SEQUENCE4resok */

#define O1 0x11111111, 0x22222222, 0x33333333	/* an open's stateid other */
#define L1 0x44444444, 0x55555555, 0x66666666	/* a lock's */

/*
 * The state operations of a 4.1+ client, call and reply bytes by hand: an OPEN (share
 * access with a WANT bit, deny READ) and its reply's stateid; LOCK with a new lock-owner
 * from that open, LOCKT with another lock-owner, LOCKU of the lock's stateid; an
 * OPEN_DOWNGRADE and a CLOSE of the current stateid (seqid 1, other zero); a LOCK of the
 * existing lock-owner, denied. Each keeps its stateids (interned: the same other, the
 * same index), lock-owner, type, range and share modes.
 */
static void test_state_compounds(void **state)
{
	static const uint32_t c1[] = {
		22, FH8(1),
		18, 0, 3 | 0x400, 1, U64(7), 4, 0x6f776e31, 0, 0, 1, 0x66000000,	/* OPEN "f" */
		10,
	};
	static const uint32_t r1[] = {
		0, 0, 4, SEQ_RES, 22, 0,
		18, 0, 1, O1, 1, U64(1), U64(2), 0, 0, 0,	/* stateid, cinfo, rflags, attrset, NONE */
		10, 0, FH8(3),
	};
	static const uint32_t c2[] = {
		22, FH8(3),
		12, 2, 0, U64(4096), U64(UINT64_MAX), 1, 0, 1, O1, 0, U64(7), 3, 0x6c6b3100,
		13, 1, U64(0), U64(100), U64(7), 3, 0x6c6b3200,			/* LOCKT "lk2" */
		14, 2, 1, 1, L1, U64(4096), U64(UINT64_MAX),			/* LOCKU */
	};
	static const uint32_t r2[] = {
		0, 0, 5, SEQ_RES, 22, 0, 12, 0, 1, L1, 13, 0, 14, 0, 2, L1,
	};
	static const uint32_t c3[] = {
		22, FH8(3),
		21, 1, O1, 0, 1, 0,		/* OPEN_DOWNGRADE to READ, deny NONE */
		4, 0, 1, 0, 0, 0,		/* CLOSE of the current stateid */
	};
	static const uint32_t r3[] = { 0, 0, 4, SEQ_RES, 22, 0, 21, 0, 2, O1, 4, 0, 3, 0, 0, 0 };
	static const uint32_t c4[] = {
		22, FH8(3),
		12, 2, 0, U64(0), U64(10), 0, 1, L1, 0,	/* LOCK, the existing lock-owner */
	};
	static const uint32_t r4[] = { 10010, 0, 3, SEQ_RES, 22, 0, 12, 10010 };
	static const uint8_t o1[12] = { 0x11, 0x11, 0x11, 0x11, 0x22, 0x22, 0x22, 0x22,
					0x33, 0x33, 0x33, 0x33 };
	static const uint8_t lk1[11] = { 0, 0, 0, 0, 0, 0, 0, 7, 'l', 'k', '1' };
	const uint32_t *cw[] = { c1, c2, c3, c4 }, *rw[] = { r1, r2, r3, r4 };
	const size_t cn[] = { sizeof(c1) / 4, sizeof(c2) / 4, sizeof(c3) / 4, sizeof(c4) / 4 };
	const size_t rn[] = { sizeof(r1) / 4, sizeof(r2) / 4, sizeof(r3) / 4, sizeof(r4) / 4 };
	const uint32_t nops[] = { 3, 4, 3, 2 };
	const struct trace_blob *b;
	uint8_t call[4][512], rep[4][512];
	struct trace_op *o;
	struct cap c;
	struct trace t;

	(void)state;
	cap_open(&c);
	syns(&c);
	for (int i = 0; i < 4; i++) {
		seg(&c, CLI, call[i], (uint32_t)compound42(call[i], sizeof(call[i]), 80 + i, cw[i],
							  cn[i], nops[i]));
		seg(&c, SRV, rep[i], (uint32_t)reply(rep[i], 80 + i, rw[i], rn[i]));
	}
	cap_close(&c);
	load(&c, &t);
	assert_int_equal(t.left.v4_ops + t.left.undecoded + t.left.orphan_replies, 0);
	assert_int_equal(t.nops, 4 + 5 + 4 + 3);
	o = t.ops;
	/* OPEN: share access (the WANT bit left out) | deny << 8, its reply's stateid */
	assert_int_equal(o[2].proc, 18);
	assert_int_equal(o[2].what, 3 | 1 << 8);
	assert_int_equal(o[2].status, 0);
	assert_true(o[2].result_state != 0 && o[2].result_state != TRACE_STATE_CURRENT);
	assert_non_null(b = trace_blob(&t.states, o[2].result_state));
	assert_int_equal(b->len, 12);
	assert_memory_equal(b->p, o1, 12);
	assert_int_equal(o[3].proc, 10);	/* GETFH after it: results read on */
	assert_true(o[3].result_fh != 0);
	/* LOCK with a new lock-owner: the open's stateid, the owner, the lock's stateid */
	assert_int_equal(o[6].proc, 12);
	assert_int_equal(o[6].what, 2);
	assert_int_equal(o[6].offset, 4096);
	assert_true(o[6].length == UINT64_MAX);
	assert_int_equal(o[6].stable, 1);
	assert_int_equal(o[6].state, o[2].result_state);
	assert_non_null(b = trace_blob(&t.owners, o[6].owner));
	assert_int_equal(b->len, 11);
	assert_memory_equal(b->p, lk1, 11);
	assert_true(o[6].result_state != 0 && o[6].result_state != o[2].result_state);
	assert_int_equal(o[6].fh, o[5].fh);
	/* LOCKT: another lock-owner, its range and type */
	assert_int_equal(o[7].proc, 13);
	assert_int_equal(o[7].what, 1);
	assert_int_equal(o[7].offset, 0);
	assert_int_equal(o[7].length, 100);
	assert_true(o[7].owner != 0 && o[7].owner != o[6].owner);
	/* LOCKU of the lock's stateid */
	assert_int_equal(o[8].proc, 14);
	assert_int_equal(o[8].state, o[6].result_state);
	assert_int_equal(o[8].offset, 4096);
	assert_true(o[8].length == UINT64_MAX);
	assert_int_equal(o[8].status, 0);
	/* OPEN_DOWNGRADE: the open's stateid (seqid 1 here, the same other), READ, deny NONE */
	assert_int_equal(o[11].proc, 21);
	assert_int_equal(o[11].state, o[2].result_state);
	assert_int_equal(o[11].what, 1);
	/* CLOSE of the current stateid */
	assert_int_equal(o[12].proc, 4);
	assert_int_equal(o[12].state, TRACE_STATE_CURRENT);
	assert_int_equal(o[12].status, 0);
	/* the existing lock-owner's LOCK, denied */
	assert_int_equal(o[15].proc, 12);
	assert_int_equal(o[15].stable, 0);
	assert_int_equal(o[15].state, o[6].result_state);
	assert_int_equal(o[15].status, 10010);
	assert_int_equal(o[15].result_state, 0);
	assert_int_equal(t.states.n, 2);
	assert_int_equal(t.owners.n, 2);
	trace_free(&t);
}

/*
 * A 4.2 client's COMPOUNDs, call and reply bytes by hand: READ_PLUS (its reply a data
 * segment and a hole), SEEK, ALLOCATE, DEALLOCATE of more than 4 GiB, IO_ADVISE; COPY and
 * CLONE from SAVEFH's file to the current one; the xattr operations, the first refused
 * (NFS4ERR_NOTSUPP) so the rest were not run. Every argument a replay sends again is kept,
 * nothing is left out, and the summary counts each by name with READ_PLUS's bytes.
 */
static void test_v42_compounds(void **state)
{
	static const uint32_t c1[] = {
		22, FH8(1),
		68, SID, U64(4096), 8192,			/* READ_PLUS */
		69, SID, U64(12288), 1,				/* SEEK hole */
		59, SID, U64(100), U64(200),			/* ALLOCATE */
		62, SID, U64(300), U64(UINT64_C(5) << 30),	/* DEALLOCATE 5 GiB */
		63, SID, U64(7), U64(9), 1, 0x20,		/* IO_ADVISE, hints */
	};
	static const uint32_t r1[] = {
		0, 0, 7, SEQ_RES, 22, 0,
		68, 0, 1, 2, 0, U64(4096), 5, 0x68656c6c, 0x6f000000,	/* data "hello" */
		1, U64(4101), U64(8187),				/* a hole */
		69, 0, 0, U64(16384), 59, 0, 62, 0, 63, 0, 1, 0x20,
	};
	static const uint32_t c2[] = {
		22, FH8(1), 32, 22, FH8(2),
		60, SID, SID, U64(0), U64(65536), U64(4096), 1, 1, 1, 1, 3, 0x73727600,	/* "srv" */
		71, SID, SID, U64(8), U64(16), U64(32),			/* CLONE */
	};
	static const uint32_t r2[] = {
		0, 0, 6, SEQ_RES, 22, 0, 32, 0, 22, 0,
		60, 0, 0, U64(4096), 2, 7, 7, 1, 1, 71, 0,
	};
	static const uint32_t c3[] = {
		22, FH8(2),
		72, 9, 0x6e66736c, 0x6f61642e, 0x31000000,		/* GETXATTR "nfsload.1" */
		73, 0, 9, 0x6e66736c, 0x6f61642e, 0x32000000, 10, 1, 2, 3,	/* SETXATTR, 10 bytes */
		74, U64(0), 4096,					/* LISTXATTRS */
		75, 9, 0x6e66736c, 0x6f61642e, 0x33000000,		/* REMOVEXATTR */
		68, SID, U64(0), 512,
	};
	static const uint32_t r3[] = { 10004, 0, 3, SEQ_RES, 22, 0, 72, 10004 };
	uint8_t call[3][512], rep[512];
	const struct trace_blob *b;
	struct trace_op *o;
	struct cap c;
	struct trace t;
	char *text = NULL;
	size_t tlen = 0;
	FILE *out;

	(void)state;
	cap_open(&c);
	syns(&c);
	seg(&c, CLI, call[0], (uint32_t)compound42(call[0], sizeof(call[0]), 70, c1,
						  sizeof(c1) / 4, 6));
	seg(&c, SRV, rep, (uint32_t)reply(rep, 70, r1, sizeof(r1) / 4));
	seg(&c, CLI, call[1], (uint32_t)compound42(call[1], sizeof(call[1]), 71, c2,
						  sizeof(c2) / 4, 5));
	seg(&c, SRV, rep, (uint32_t)reply(rep, 71, r2, sizeof(r2) / 4));
	seg(&c, CLI, call[2], (uint32_t)compound42(call[2], sizeof(call[2]), 72, c3,
						  sizeof(c3) / 4, 6));
	seg(&c, SRV, rep, (uint32_t)reply(rep, 72, r3, sizeof(r3) / 4));
	cap_close(&c);
	load(&c, &t);
	assert_int_equal(t.left.v4_ops + t.left.undecoded + t.left.orphan_replies, 0);
	assert_int_equal(t.nops, 7 + 6 + 7);
	assert_int_equal(t.versions, 1u << 3);
	assert_int_equal(t.compounds, 3);
	o = t.ops;
	assert_int_equal(o[2].proc, 68);
	assert_int_equal(o[2].minor, 2);
	assert_int_equal(o[2].fh, o[1].fh);
	assert_int_equal(o[2].offset, 4096);
	assert_int_equal(o[2].count, 8192);
	assert_int_equal(o[2].status, 0);
	assert_int_equal(o[2].data_bytes, 5);
	assert_int_equal(o[2].hole_bytes, 8187);
	assert_int_equal(o[3].proc, 69);
	assert_int_equal(o[3].offset, 12288);
	assert_int_equal(o[3].what, 1);
	assert_int_equal(o[4].proc, 59);
	assert_int_equal(o[4].offset, 100);
	assert_int_equal(o[4].count, 200);
	assert_int_equal(o[5].proc, 62);
	assert_int_equal(o[5].offset, 300);
	assert_int_equal(o[5].count, UINT32_MAX);
	assert_int_equal(o[6].proc, 63);
	assert_int_equal(o[6].offset, 7);
	assert_int_equal(o[6].count, 9);
	assert_int_equal(o[6].what, 0x20);
	assert_int_equal(o[6].status, 0);
	/* COPY and CLONE: from the saved handle (file 1) to the current one (file 2) */
	o = &t.ops[7];
	assert_int_equal(o[4].proc, 60);
	assert_int_equal(o[4].fh, o[1].fh);
	assert_int_equal(o[4].fh2, o[3].fh);
	assert_true(o[4].fh != o[4].fh2);
	assert_int_equal(o[4].offset, 0);
	assert_int_equal(o[4].offset2, 65536);
	assert_int_equal(o[4].count, 4096);
	assert_int_equal(o[4].status, 0);
	assert_int_equal(o[5].proc, 71);
	assert_int_equal(o[5].fh, o[1].fh);
	assert_int_equal(o[5].fh2, o[3].fh);
	assert_int_equal(o[5].offset, 8);
	assert_int_equal(o[5].offset2, 16);
	assert_int_equal(o[5].count, 32);
	assert_int_equal(o[5].status, 0);
	/* xattrs: GETXATTR refused, the rest not run */
	o = &t.ops[13];
	assert_int_equal(o[2].proc, 72);
	assert_int_equal(o[2].fh, o[1].fh);
	assert_non_null(b = trace_blob(&t.names, o[2].name));
	assert_memory_equal(b->p, "nfsload.1", 9);
	assert_int_equal(o[2].status, 10004);
	assert_int_equal(o[3].proc, 73);
	assert_int_equal(o[3].count, 10);
	assert_int_equal(o[3].status, TRACE_NOT_RUN);
	assert_non_null(b = trace_blob(&t.names, o[3].name));
	assert_memory_equal(b->p, "nfsload.2", 9);
	assert_int_equal(o[4].proc, 74);
	assert_int_equal(o[4].count, 4096);
	assert_int_equal(o[5].proc, 75);
	assert_non_null(b = trace_blob(&t.names, o[5].name));
	assert_memory_equal(b->p, "nfsload.3", 9);
	assert_int_equal(o[6].proc, 68);
	assert_int_equal(o[6].count, 512);
	/* the summary: each by name, READ_PLUS's bytes */
	assert_non_null(out = open_memstream(&text, &tlen));
	assert_int_equal(trace_summary(out, "x.pcap", &t, false), 0);
	fclose(out);
	for (size_t i = 0; i < 11; i++) {
		static const char *const want[] = {
			"v4 READ_PLUS                      2          1 ",
			"v4 SEEK                           1          1 ",
			"v4 ALLOCATE                       1          1 ",
			"v4 DEALLOCATE                     1          1 ",
			"v4 IO_ADVISE                      1          1 ",
			"v4 COPY                           1          1 ",
			"v4 CLONE                          1          1 ",
			"v4 GETXATTR                       1          1        1 ",
			"v4 SETXATTR                       1          0        0        1 ",
			"v4 LISTXATTRS                     1          0 ",
			"v4 REMOVEXATTR                    1          0 ",
		};

		if (!strstr(text, want[i]))
			fail_msg("no line '%s' in the summary:\n%s", want[i], text);
	}
	if (!strstr(text, "v4 READ_PLUS: 5 bytes of data, 8187 bytes of holes"))
		fail_msg("READ_PLUS's bytes not in the summary:\n%s", text);
	free(text);
	trace_free(&t);
	unlink(c.path);
}

/* The capture of test_out_of_order's kind, gzip'd: the same ops. */
static void test_gzip(void **state)
{
	uint8_t a[512], buf[4096];
	char gz[80];
	struct cap c;
	struct trace t, tz;
	FILE *f;
	gzFile z;
	size_t n;

	(void)state;
	cap_open(&c);
	syns(&c);
	seg(&c, CLI, a, (uint32_t)read_call(a, sizeof(a), 60, 12288, 1024));
	seg(&c, CLI, a, (uint32_t)read_call(a, sizeof(a), 61, 16384, 1024));
	cap_close(&c);
	snprintf(gz, sizeof(gz), "%s.gz", c.path);
	assert_non_null(f = fopen(c.path, "rb"));
	assert_non_null(z = gzopen(gz, "wb"));
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		assert_int_equal(gzwrite(z, buf, (unsigned)n), (int)n);
	fclose(f);
	gzclose(z);
	load(&c, &t);
	strcpy(c.path, gz);
	load(&c, &tz);
	assert_int_equal(t.nops, 2);
	assert_int_equal(tz.nops, t.nops);
	assert_memory_equal(tz.ops, t.ops, t.nops * sizeof(t.ops[0]));
	trace_free(&t);
	trace_free(&tz);
	unlink(gz);
	gz[strlen(gz) - 3] = 0;
	unlink(gz);
}

static void test_not_a_capture(void **state)
{
	char path[] = "/tmp/test_trace.XXXXXX", err[256] = "";
	uint8_t junk[4096];
	struct trace t;
	int fd = mkstemp(path);

	(void)state;
	srand(7);
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (uint8_t)rand();
	assert_true(fd >= 0);
	assert_int_equal(write(fd, junk, sizeof(junk)), (ssize_t)sizeof(junk));
	close(fd);
	assert_int_equal(trace_load(path, &t, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not a pcap or pcapng capture"));
	assert_int_equal(trace_load("/nonexistent/x", &t, err, sizeof(err)), -ENOENT);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_one_segment),
		cmocka_unit_test(test_link_types),
		cmocka_unit_test(test_split_three),
		cmocka_unit_test(test_out_of_order),
		cmocka_unit_test(test_half_space_behind),
		cmocka_unit_test(test_gap),
		cmocka_unit_test(test_snaplen_cut),
		cmocka_unit_test(test_snaplen_no_payload),
		cmocka_unit_test(test_mid_connection),
		cmocka_unit_test(test_gss_integrity),
		cmocka_unit_test(test_v4_compound),
		cmocka_unit_test(test_v4_empty_compound),
		cmocka_unit_test(test_v42_compounds),
		cmocka_unit_test(test_state_compounds),
		cmocka_unit_test(test_gzip),
		cmocka_unit_test(test_not_a_capture),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
