/*
 * nfs42x and native_v42 unit tests. Encoders: each operation's bytes against
 * XDR words written out by hand from RFC 7862 / RFC 8276, and a failure (no
 * overrun) in every buffer too small. Decoders: replies built here word by
 * word, decoded whole, from every truncation (-EBADMSG) and as garbage;
 * READ_PLUS's segments rebuilt into bytes and its bad layouts refused.
 * native_v42: the COMPOUND a request makes and the errno a reply's status
 * gives (NFS4ERR_NOTSUPP, NFS4ERR_OP_ILLEGAL).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/native/codec/nfs42x.h"
#include "engine/native/native_v42.h"
#include "engine/native/rpc/xdrx.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define WIRE_WORDS 1024

static int bad;		/* mismatches in the current test */

static void chk(int line, const char *what, uint64_t got, uint64_t want)
{
	if (got == want)
		return;
	/* an errno shows as one: -95, not 18446744073709551521 */
	if ((int64_t)got < 0 && (int64_t)got > -4096)
		print_error("line %d: %s: got %" PRId64 ", want %" PRId64 "\n", line, what,
			    (int64_t)got, (int64_t)want);
	else
		print_error("line %d: %s: got %" PRIu64 " (0x%" PRIx64 "), want %" PRIu64
			    " (0x%" PRIx64 ")\n", line, what, got, got, want, want);
	bad++;
}
#define CHECK(what, got, want) chk(__LINE__, what, (uint64_t)(got), (uint64_t)(want))

static const struct nfs4_stateid sid_a = {
	.seqid = 3, .other = { 0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xab },
};
static const struct nfs4_stateid sid_b = {
	.seqid = 0xfffffffe, .other = { 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0xee, 0xdd },
};
#define SID_A 3, 0xa0a1a2a3, 0xa4a5a6a7, 0xa8a9aaab
#define SID_B 0xfffffffe, 0x09080706, 0x05040302, 0x0100eedd
#define HI(v) (uint32_t)((uint64_t)(v) >> 32)
#define LO(v) (uint32_t)(v)
#define U64(v) HI(v), LO(v)

/* ---- encoders ---- */

static uint32_t wire[WIRE_WORDS];	/* 4-byte aligned, like the engine's scratch buffer */

/* One COMPOUND of the operations enc adds; its bytes after the header must be want[]. */
static void enc_case(int line, const char *name, bool (*enc)(struct nfs4_enc *e),
		     uint32_t nops, const uint32_t *want, size_t nwant)
{
	struct nfs4_enc e;
	u_int len, n;
	size_t i;
	XDR x;

	memset(wire, 0xee, sizeof(wire));
	xdrmem_create(&x, (char *)wire, sizeof(wire), XDR_ENCODE);
	if (!nfs4_enc_begin(&e, &x, "", 2) || !enc(&e) || !nfs4_enc_end(&e)) {
		print_error("line %d: %s: the encoder failed in %zu bytes\n", line, name, sizeof(wire));
		bad++;
		return;
	}
	len = xdr_getpos(&x);
	/* header: tag "" (length 0), minorversion, operation count */
	chk(line, "operation count", xdrx_be32((uint8_t *)wire + 8), nops);
	if (len != 12 + 4 * nwant) {
		print_error("line %d: %s: %u bytes of operations, want %zu\n", line, name, len - 12,
			    4 * nwant);
		bad++;
	}
	for (i = 0; i < nwant && 12 + 4 * i < len; i++) {
		uint32_t got = xdrx_be32((uint8_t *)wire + 12 + 4 * i);

		if (got != want[i]) {
			print_error("line %d: %s: word %zu: got 0x%08x, want 0x%08x\n", line, name, i,
				    got, want[i]);
			bad++;
		}
	}
	/* Too small by any amount: false, nothing written past the end (ASan). */
	for (n = 0; n < len; n++) {
		char *buf = malloc(n ? n : 1);
		bool ok;

		xdrmem_create(&x, buf, n, XDR_ENCODE);
		ok = nfs4_enc_begin(&e, &x, "", 2) && enc(&e) && nfs4_enc_end(&e);
		free(buf);
		if (ok) {
			print_error("line %d: %s: the encoder succeeded in %u of %u bytes\n", line,
				    name, n, len);
			bad++;
			break;
		}
	}
}
#define ENC_CASE(enc, nops, ...) do { \
	static const uint32_t want_[] = { __VA_ARGS__ }; \
	enc_case(__LINE__, #enc, enc, nops, want_, N(want_)); \
} while (0)

static bool e_read_plus(struct nfs4_enc *e)
{
	return nfs42_enc_read_plus(e, &sid_a, (UINT64_C(1) << 40) + 7, 1048576);
}

static bool e_seek_data(struct nfs4_enc *e)
{
	return nfs42_enc_seek(e, &sid_b, 65536, NFS4_CONTENT_DATA);
}

static bool e_seek_hole(struct nfs4_enc *e)
{
	return nfs42_enc_seek(e, &sid_a, UINT64_C(0x123456789abc), NFS4_CONTENT_HOLE);
}

static bool e_allocate(struct nfs4_enc *e)
{
	return nfs42_enc_allocate(e, &sid_a, 4096, UINT64_C(0x100000000));
}

static bool e_deallocate(struct nfs4_enc *e)
{
	return nfs42_enc_deallocate(e, &sid_b, UINT64_C(0xfffffffffffff000), 8192);
}

static bool e_io_advise(struct nfs4_enc *e)
{
	return nfs42_enc_io_advise(e, &sid_a, 0, UINT64_C(0x200000000),
				   1u << IO_ADVISE4_WILLNEED | 1u << IO_ADVISE4_SEQUENTIAL);
}

static bool e_io_advise_none(struct nfs4_enc *e)
{
	return nfs42_enc_io_advise(e, &sid_b, 12, 34, 0);
}

static const struct nfs_fh fh5 = { .len = 5, .data = { 1, 2, 3, 4, 5 } };
static const struct nfs_fh fh8 = { .len = 8, .data = { 0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7 } };

/* As native_v42 sends it: source saved, destination current. */
static bool e_copy(struct nfs4_enc *e)
{
	return nfs4_enc_putfh(e, &fh5) && nfs4_enc_savefh(e) && nfs4_enc_putfh(e, &fh8) &&
	       nfs42_enc_copy(e, &sid_a, &sid_b, 4096, UINT64_C(0x300000000), 1048576, true, true);
}

static bool e_copy_async(struct nfs4_enc *e)
{
	return nfs42_enc_copy(e, &sid_b, &sid_a, 0, 0, UINT64_MAX, false, false);
}

static bool e_clone(struct nfs4_enc *e)
{
	return nfs42_enc_clone(e, &sid_a, &sid_b, 65536, 131072, UINT64_C(0x1000000000));
}

static bool e_getxattr(struct nfs4_enc *e)
{
	return nfs42_enc_getxattr(e, "nfsload.7");
}

static bool e_setxattr(struct nfs4_enc *e)
{
	return nfs42_enc_setxattr(e, SETXATTR4_CREATE, "k", "value", 5);
}

static bool e_setxattr_replace(struct nfs4_enc *e)
{
	return nfs42_enc_setxattr(e, SETXATTR4_REPLACE, "abcd", "", 0);
}

static bool e_setxattr_in_place(struct nfs4_enc *e)
{
	uint8_t *p = nfs42_enc_setxattr_in_place(e, SETXATTR4_EITHER, "xy", 6);

	if (p)
		memcpy(p, "\x11\x22\x33\x44\x55\x66", 6);
	return p != NULL;
}

static bool e_listxattrs(struct nfs4_enc *e)
{
	return nfs42_enc_listxattrs(e, UINT64_C(0x7fffffff00000003), 8192);
}

static bool e_removexattr(struct nfs4_enc *e)
{
	return nfs42_enc_removexattr(e, "user.x");
}

static void test_encoders(void **state)
{
	(void)state;
	bad = 0;
	/* READ_PLUS4args: stateid, offset4, count4 */
	ENC_CASE(e_read_plus, 1, 68, SID_A, U64((UINT64_C(1) << 40) + 7), 1048576);
	/* SEEK4args: stateid, offset4, data_content4 */
	ENC_CASE(e_seek_data, 1, 69, SID_B, U64(65536), 0);
	ENC_CASE(e_seek_hole, 1, 69, SID_A, U64(UINT64_C(0x123456789abc)), 1);
	/* ALLOCATE4args, DEALLOCATE4args: stateid, offset4, length4 */
	ENC_CASE(e_allocate, 1, 59, SID_A, U64(4096), U64(UINT64_C(0x100000000)));
	ENC_CASE(e_deallocate, 1, 62, SID_B, U64(UINT64_C(0xfffffffffffff000)), U64(8192));
	/* IO_ADVISE4args: stateid, offset4, length4 count, bitmap4 hints */
	ENC_CASE(e_io_advise, 1, 63, SID_A, U64(0), U64(UINT64_C(0x200000000)), 1, 0x12);
	ENC_CASE(e_io_advise_none, 1, 63, SID_B, U64(12), U64(34), 0);
	/* COPY4args: src and dst stateids, offsets, length4 count, consecutive, synchronous,
	 * netloc4 ca_source_server<> (none) */
	ENC_CASE(e_copy, 4, 22, 5, 0x01020304, 0x05000000, 32, 22, 8, 0xf0f1f2f3, 0xf4f5f6f7,
		 60, SID_A, SID_B, U64(4096), U64(UINT64_C(0x300000000)), U64(1048576), 1, 1, 0);
	ENC_CASE(e_copy_async, 1, 60, SID_B, SID_A, U64(0), U64(0), U64(UINT64_MAX), 0, 0, 0);
	/* CLONE4args: src and dst stateids, offsets, length4 count */
	ENC_CASE(e_clone, 1, 71, SID_A, SID_B, U64(65536), U64(131072), U64(UINT64_C(0x1000000000)));
	/* GETXATTR4args: xattrkey4 (no "user." added) */
	ENC_CASE(e_getxattr, 1, 72, 9, 0x6e66736c, 0x6f61642e, 0x37000000);
	/* SETXATTR4args: setxattr_option4, xattrkey4, xattrvalue4 */
	ENC_CASE(e_setxattr, 1, 73, 1, 1, 0x6b000000, 5, 0x76616c75, 0x65000000);
	ENC_CASE(e_setxattr_replace, 1, 73, 2, 4, 0x61626364, 0);
	ENC_CASE(e_setxattr_in_place, 1, 73, 0, 2, 0x78790000, 6, 0x11223344, 0x55660000);
	/* LISTXATTRS4args: nfs_cookie4, count4 maxcount */
	ENC_CASE(e_listxattrs, 1, 74, U64(UINT64_C(0x7fffffff00000003)), 8192);
	/* REMOVEXATTR4args: xattrkey4, as given */
	ENC_CASE(e_removexattr, 1, 75, 6, 0x75736572, 0x2e780000);
	assert_int_equal(bad, 0);
}

/* What the encoders refuse rather than send. */
static void test_encoder_limits(void **state)
{
	char name[300];
	struct nfs4_enc e;
	XDR x;

	(void)state;
	memset(name, 'n', sizeof(name));
	name[NFS42_XATTR_NAME_MAX + 1] = '\0';
	xdrmem_create(&x, (char *)wire, sizeof(wire), XDR_ENCODE);
	assert_true(nfs4_enc_begin(&e, &x, "", 2));
	assert_false(nfs42_enc_seek(&e, &sid_a, 0, 2));
	assert_false(nfs42_enc_getxattr(&e, NULL));
	assert_false(nfs42_enc_removexattr(&e, NULL));
	assert_false(nfs42_enc_setxattr(&e, 3, "k", "v", 1));
	assert_false(nfs42_enc_setxattr(&e, 0, NULL, "v", 1));
	assert_false(nfs42_enc_getxattr(&e, name));		/* 256 bytes */
	assert_null(nfs42_enc_setxattr_in_place(&e, 0, name, 1));
	name[NFS42_XATTR_NAME_MAX] = '\0';
	assert_true(nfs42_enc_getxattr(&e, name));		/* 255 */
	/* A value larger than the buffer: NULL, nothing written past it (ASan). */
	assert_null(nfs42_enc_setxattr_in_place(&e, 0, "v", sizeof(wire)));
	/* An unaligned buffer gives no bytes in place: NULL, not a pointer to misuse. */
	xdrmem_create(&x, (char *)wire + 1, sizeof(wire) - 4, XDR_ENCODE);
	assert_true(nfs4_enc_begin(&e, &x, "", 2));
	assert_null(nfs42_enc_setxattr_in_place(&e, 0, "v", 8));
	/* ... while the copying encoder works there. */
	xdrmem_create(&x, (char *)wire + 1, sizeof(wire) - 4, XDR_ENCODE);
	assert_true(nfs4_enc_begin(&e, &x, "", 2));
	assert_true(nfs42_enc_setxattr(&e, 0, "v", "12345678", 8));
}

/* ---- decoders ---- */

/* Replies, word by word. */
struct rep {
	uint32_t w[WIRE_WORDS];
	uint32_t n;	/* words */
};

static void put(struct rep *r, uint32_t v)
{
	if (r->n < WIRE_WORDS)
		xdrx_put_be32((uint8_t *)&r->w[r->n++], v);
}

static void put64(struct rep *r, uint64_t v)
{
	put(r, HI(v));
	put(r, LO(v));
}

/* bytes as opaque<>: length, bytes, zero padding */
static void put_opaque(struct rep *r, const void *p, uint32_t n)
{
	put(r, n);
	if (r->n + (n + 3) / 4 > WIRE_WORDS)
		return;
	memset(&r->w[r->n], 0, (n + 3) / 4 * 4);
	memcpy(&r->w[r->n], p, n);
	r->n += (n + 3) / 4;
}

static void put_data(struct rep *r, uint64_t off, const void *p, uint32_t n)
{
	put(r, NFS4_CONTENT_DATA);
	put64(r, off);
	put_opaque(r, p, n);
}

static void put_hole(struct rep *r, uint64_t off, uint64_t len)
{
	put(r, NFS4_CONTENT_HOLE);
	put64(r, off);
	put64(r, len);
}

/* Rebuilds READ_PLUS's range into a buffer, as a caller would. */
struct rebuild {
	uint8_t buf[8192];
	uint64_t offset;
	unsigned calls, stop_at;
	bool outside;
};

static int rebuild_seg(void *arg, const struct nfs42_seg *s)
{
	struct rebuild *b = arg;

	b->calls++;
	if (s->offset < b->offset || s->offset - b->offset > sizeof(b->buf) ||
	    s->length > sizeof(b->buf) - (s->offset - b->offset)) {
		b->outside = true;
		return -1;
	}
	if (s->data)
		memcpy(b->buf + (s->offset - b->offset), s->data, s->length);
	else
		memset(b->buf + (s->offset - b->offset), 0, s->length);
	return b->stop_at && b->calls == b->stop_at ? 77 : 0;
}

/* READ_PLUS's result words (after its status) in r; decoded with offset/count. */
static int dec_rp(const struct rep *r, uint32_t nbytes, uint64_t offset, uint32_t count,
		  struct nfs42_read_plus_res *res, struct rebuild *b)
{
	XDR x;

	xdrmem_create(&x, (char *)r->w, nbytes, XDR_DECODE);
	return nfs42_dec_read_plus(&x, offset, count, res, b ? rebuild_seg : NULL, b);
}

static uint8_t pat(uint64_t off)
{
	return (uint8_t)(off * 7 + 1) | 1;	/* never zero: a hole is told from data */
}

static void fill_pat(uint8_t *p, uint64_t off, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		p[i] = pat(off + i);
}

/* Every cut of a good reply is -EBADMSG, and the callback sees nothing of it. */
static void chk_truncations(int line, const struct rep *r, uint64_t offset, uint32_t count)
{
	struct nfs42_read_plus_res res;

	for (uint32_t n = 0; n < 4 * r->n; n++) {
		struct rebuild b = { .offset = offset };
		int rc = dec_rp(r, n, offset, count, &res, &b);

		if (rc != -EBADMSG || b.calls) {
			print_error("line %d: cut to %u of %u bytes: rc %d, %u segments seen\n", line,
				    n, 4 * r->n, rc, b.calls);
			bad++;
			return;
		}
	}
}

/* data, hole, data, hole, data: the bytes rebuilt are the file's. */
static void test_read_plus_mixed(void **state)
{
	static struct rep r;
	static struct rebuild b;
	struct nfs42_read_plus_res res;
	uint8_t d1[1000], d2[3], d3[517], want[4096];
	const uint64_t off = UINT64_C(0x10000000);
	int rc;

	(void)state;
	bad = 0;
	memset(&r, 0, sizeof(r));
	fill_pat(d1, off, sizeof(d1));
	fill_pat(d2, off + 1000 + 500, sizeof(d2));
	fill_pat(d3, off + 1503 + 1000, sizeof(d3));
	memset(want, 0, sizeof(want));
	memcpy(want, d1, sizeof(d1));
	memcpy(want + 1500, d2, sizeof(d2));
	memcpy(want + 2503, d3, sizeof(d3));
	put(&r, 1);		/* rpr_eof */
	put(&r, 5);
	put_data(&r, off, d1, sizeof(d1));
	put_hole(&r, off + 1000, 500);
	put_data(&r, off + 1500, d2, sizeof(d2));
	put_hole(&r, off + 1503, 1000);
	put_data(&r, off + 2503, d3, sizeof(d3));
	memset(&b, 0xee, sizeof(b.buf));
	b.offset = off;
	b.calls = 0;
	rc = dec_rp(&r, 4 * r.n, off, 4096, &res, &b);
	CHECK("rc", rc, 0);
	CHECK("eof", res.eof, 1);
	CHECK("segments", res.nsegs, 5);
	CHECK("callbacks", b.calls, 5);
	CHECK("data bytes", res.data, 1000 + 3 + 517);
	CHECK("hole bytes", res.holes, 500 + 1000);
	if (memcmp(b.buf, want, 3020) != 0) {
		print_error("the bytes rebuilt differ from the file's\n");
		bad++;
	}
	/* Without a callback: the same totals. */
	rc = dec_rp(&r, 4 * r.n, off, 4096, &res, NULL);
	CHECK("rc (no callback)", rc, 0);
	CHECK("data bytes (no callback)", res.data, 1520);
	/* The callback's stop is returned, after the whole reply was checked. */
	b.calls = 0;
	b.stop_at = 2;
	CHECK("rc (callback stops)", dec_rp(&r, 4 * r.n, off, 4096, &res, &b), 77);
	CHECK("callbacks (stopped)", b.calls, 2);
	b.stop_at = 0;
	chk_truncations(__LINE__, &r, off, 4096);
	assert_int_equal(bad, 0);
}

/* A hole may start before the offset asked for and end past the range: it is cut to it. */
static void test_read_plus_hole_edges(void **state)
{
	static struct rep r;
	static struct rebuild b;
	struct nfs42_read_plus_res res;
	uint8_t d[100];

	(void)state;
	bad = 0;
	fill_pat(d, 8192 + 4000, sizeof(d));
	memset(&r, 0, sizeof(r));
	put(&r, 0);
	put(&r, 3);
	put_hole(&r, 0, 8192 + 4000);			/* from the file's start */
	put_data(&r, 8192 + 4000, d, sizeof(d));
	put_hole(&r, 8192 + 4100, UINT64_C(1) << 40);	/* far past the range */
	memset(b.buf, 0xee, sizeof(b.buf));
	b.offset = 8192;
	CHECK("rc", dec_rp(&r, 4 * r.n, 8192, 4096 + 1000, &res, &b), 0);
	CHECK("eof", res.eof, 0);
	CHECK("hole bytes (cut to the range)", res.holes, 4000 + 996);
	CHECK("data bytes", res.data, 100);
	CHECK("segment outside the range", b.outside, 0);
	CHECK("byte 3999 (hole)", b.buf[3999], 0);
	CHECK("byte 4000 (data)", b.buf[4000], pat(8192 + 4000));
	CHECK("byte 5095 (hole)", b.buf[5095], 0);
	CHECK("byte 5096 (past the range)", b.buf[5096], 0xee);
	chk_truncations(__LINE__, &r, 8192, 5096);

	/* Data that starts before the offset: cut to it, the bytes from the offset on. */
	fill_pat(d, 8000, sizeof(d));
	memset(&r, 0, sizeof(r));
	put(&r, 0);
	put(&r, 2);
	put_data(&r, 8000, d, sizeof(d));
	put_hole(&r, 8100, 92);
	memset(b.buf, 0xee, sizeof(b.buf));
	b.offset = 8050;
	b.calls = 0;
	CHECK("rc (data from before)", dec_rp(&r, 4 * r.n, 8050, 142, &res, &b), 0);
	CHECK("data bytes (data from before)", res.data, 50);
	CHECK("hole bytes (data from before)", res.holes, 92);
	CHECK("byte 0 (data from before)", b.buf[0], pat(8050));
	CHECK("byte 49 (data from before)", b.buf[49], pat(8099));
	CHECK("byte 50 (hole after)", b.buf[50], 0);

	/* Segments wholly before the range are skipped: nfs-ganesha 4.3 answers every
	 * READ_PLUS with one empty data segment at offset 0 (none of the range: 0 bytes). */
	memset(&r, 0, sizeof(r));
	put(&r, 0);
	put(&r, 1);
	put_data(&r, 0, d, 0);
	b.calls = 0;
	b.offset = 65536;
	CHECK("rc (ganesha's empty segment)", dec_rp(&r, 4 * r.n, 65536, 65536, &res, &b), 0);
	CHECK("segments (ganesha's empty segment)", res.nsegs, 1);
	CHECK("bytes (ganesha's empty segment)", res.data + res.holes, 0);
	CHECK("callbacks (ganesha's empty segment)", b.calls, 0);
	memset(&r, 0, sizeof(r));
	put(&r, 0);
	put(&r, 2);
	put_hole(&r, 0, 4096);
	put_data(&r, 4096, d, 64);
	CHECK("rc (a hole ending at the offset)", dec_rp(&r, 4 * r.n, 4096, 64, &res, NULL), 0);
	CHECK("holes (a hole ending at the offset)", res.holes, 0);
	CHECK("data (a hole ending at the offset)", res.data, 64);

	/* All hole, at the end of the file; no segments at all (a read at eof). */
	memset(&r, 0, sizeof(r));
	put(&r, 1);
	put(&r, 1);
	put_hole(&r, 4096, 4096);
	CHECK("rc (one hole)", dec_rp(&r, 4 * r.n, 4096, 65536, &res, NULL), 0);
	CHECK("hole bytes (one hole)", res.holes, 4096);
	memset(&r, 0, sizeof(r));
	put(&r, 1);
	put(&r, 0);
	CHECK("rc (nothing)", dec_rp(&r, 4 * r.n, 1 << 20, 4096, &res, NULL), 0);
	CHECK("eof (nothing)", res.eof, 1);
	CHECK("bytes (nothing)", res.data + res.holes, 0);
	/* A range at the very end of the offsets: no overflow. */
	memset(&r, 0, sizeof(r));
	put(&r, 1);
	put(&r, 1);
	put_hole(&r, UINT64_MAX - 10, 10);
	CHECK("rc (top of the offsets)", dec_rp(&r, 4 * r.n, UINT64_MAX - 10, 4096, &res, NULL), 0);
	CHECK("hole bytes (top of the offsets)", res.holes, 10);
	assert_int_equal(bad, 0);
}

/* Layouts no server may send: each -EBADMSG, and no callback for any of them. */
static void test_read_plus_refused(void **state)
{
	static struct rep r;
	struct nfs42_read_plus_res res;
	uint8_t d[64];
	struct rebuild b;
	const uint64_t o = 4096;
	unsigned k;

	(void)state;
	bad = 0;
	fill_pat(d, 0, sizeof(d));
	for (k = 0; k < 13; k++) {
		const char *what = "";
		uint32_t count = 4096;
		int rc;

		memset(&r, 0, sizeof(r));
		put(&r, 0);
		switch (k) {
		case 0:
			what = "overlapping data";
			put(&r, 2);
			put_data(&r, o, d, 64);
			put_data(&r, o + 32, d, 64);
			break;
		case 1:
			what = "out of order";
			put(&r, 2);
			put_data(&r, o + 64, d, 64);
			put_data(&r, o, d, 64);
			break;
		case 2:
			what = "a gap between segments";
			put(&r, 2);
			put_data(&r, o, d, 64);
			put_hole(&r, o + 128, 64);
			break;
		case 3:
			what = "data after the offset (a gap before it)";
			put(&r, 1);
			put_data(&r, o + 8, d, 64);
			break;
		case 4:
			what = "data past the range";
			count = 63;
			put(&r, 1);
			put_data(&r, o, d, 64);
			break;
		case 5:
			what = "a hole overlapping the data before it";
			put(&r, 2);
			put_data(&r, o, d, 64);
			put_hole(&r, o + 32, 64);
			break;
		case 6:
			what = "a segment after a hole past the range";
			count = 100;
			put(&r, 2);
			put_hole(&r, o, 200);
			put_data(&r, o + 200, d, 0);
			break;
		case 7:
			what = "an unknown content type";
			put(&r, 1);
			put(&r, 2);
			put64(&r, o);
			put64(&r, 64);
			break;
		case 8:
			what = "a segment before the range after one inside it";
			put(&r, 2);
			put_data(&r, o, d, 64);
			put_data(&r, 0, d, 0);
			break;
		case 9:
			what = "a hole whose end overflows";
			put(&r, 1);
			put_hole(&r, o, UINT64_MAX - o + 1);
			break;
		case 10:
			what = "more segments than the cap";
			put(&r, NFS42_READ_PLUS_SEGS_MAX + 1);
			for (uint32_t i = 0; i < 200; i++)
				put_hole(&r, o + i, 1);
			break;
		case 11:
			what = "eof not a bool";
			r.n = 0;
			put(&r, 2);
			put(&r, 0);
			break;
		case 12:
			what = "data straddling the range's end";
			count = 100;
			put(&r, 2);
			put_hole(&r, o, 50);
			put_data(&r, o + 50, d, 64);
			break;
		}
		b = (struct rebuild){ .offset = o };
		rc = dec_rp(&r, 4 * r.n, o, count, &res, &b);
		if (rc != -EBADMSG || b.calls) {
			print_error("%s: rc %d (want %d), %u segments handed on (want 0)\n", what, rc,
				    -EBADMSG, b.calls);
			bad++;
		}
	}
	/* The cap itself is fine. */
	memset(&r, 0, sizeof(r));
	put(&r, 0);
	put(&r, 200);
	for (uint32_t i = 0; i < 200; i++)
		put_hole(&r, o + i, 1);
	CHECK("rc (200 one-byte holes)", dec_rp(&r, 4 * r.n, o, 4096, &res, NULL), 0);
	CHECK("hole bytes (200 one-byte holes)", res.holes, 200);
	assert_int_equal(bad, 0);
}

/* A decoder over r's words; every cut of them is -EBADMSG. */
typedef int (*dec_fn)(XDR *x, void *out);

static int run_dec(const struct rep *r, uint32_t nbytes, dec_fn fn, void *out)
{
	XDR x;
	int rc;

	xdrmem_create(&x, (char *)r->w, nbytes, XDR_DECODE);
	rc = fn(&x, out);
	if (rc == 0 && xdr_getpos(&x) != nbytes)
		return -1000 - (int)xdr_getpos(&x);	/* did not read it all */
	return rc;
}

static void chk_dec(int line, const char *what, const struct rep *r, dec_fn fn, void *out,
		    void *scratch)
{
	int rc = run_dec(r, 4 * r->n, fn, out);

	if (rc != 0) {
		print_error("line %d: %s: rc %d on a good reply\n", line, what, rc);
		bad++;
	}
	for (uint32_t n = 0; n < 4 * r->n; n++) {
		if ((rc = run_dec(r, n, fn, scratch)) != -EBADMSG) {
			print_error("line %d: %s: cut to %u of %u bytes: rc %d\n", line, what, n,
				    4 * r->n, rc);
			bad++;
			return;
		}
	}
}
#define CHK_DEC(what, r, fn, out) do { \
	__typeof__(*(out)) scratch_; \
	chk_dec(__LINE__, what, r, fn, out, &scratch_); \
} while (0)

static int d_seek(XDR *x, void *out)
{
	return nfs42_dec_seek(x, out);
}

static int d_io_advise(XDR *x, void *out)
{
	return nfs42_dec_io_advise(x, out);
}

static int d_copy(XDR *x, void *out)
{
	return nfs42_dec_copy(x, NFS4_OK, out);
}

static int d_copy_noreqs(XDR *x, void *out)
{
	return nfs42_dec_copy(x, NFS4ERR_OFFLOAD_NO_REQS, out);
}

struct xval {
	const uint8_t *p;
	uint32_t n;
};

static int d_getxattr(XDR *x, void *out)
{
	struct xval *v = out;

	return nfs42_dec_getxattr(x, &v->p, &v->n);
}

static int d_setxattr(XDR *x, void *out)
{
	return nfs42_dec_setxattr(x, out);
}

static int d_removexattr(XDR *x, void *out)
{
	return nfs42_dec_removexattr(x, out);
}

struct lx {
	uint64_t cookie;
	bool eof;
	uint32_t n, seen, stop_at;
	char names[4][16];
};

static int lx_name(void *arg, const char *name, uint32_t len)
{
	struct lx *l = arg;

	if (l->seen < 4 && len < 16) {
		memcpy(l->names[l->seen], name, len);
		l->names[l->seen][len] = '\0';
	}
	l->seen++;
	return l->stop_at && l->seen == l->stop_at ? 5 : 0;
}

static int d_listxattrs(XDR *x, void *out)
{
	struct lx *l = out;

	l->seen = 0;
	return nfs42_dec_listxattrs(x, &l->cookie, &l->eof, &l->n, lx_name, l);
}

static void test_decoders(void **state)
{
	static struct rep r;
	struct nfs42_seek_res seek;
	struct nfs42_copy_res copy;
	struct nfs42_cinfo ci;
	struct xval v;
	struct lx l;
	uint32_t hints;

	(void)state;
	bad = 0;
	/* SEEK4res resok: sr_eof, sr_offset */
	memset(&r, 0, sizeof(r));
	put(&r, 1);
	put64(&r, UINT64_C(0x123456789));
	CHK_DEC("SEEK", &r, d_seek, &seek);
	CHECK("sr_eof", seek.eof, 1);
	CHECK("sr_offset", seek.offset, UINT64_C(0x123456789));
	/* IO_ADVISE4resok: a bitmap4 of three words, the first one kept */
	memset(&r, 0, sizeof(r));
	put(&r, 3);
	put(&r, 0x11);
	put(&r, 0);
	put(&r, 7);
	CHK_DEC("IO_ADVISE", &r, d_io_advise, &hints);
	CHECK("ior_hints", hints, 0x11);
	memset(&r, 0, sizeof(r));
	put(&r, 0);
	CHK_DEC("IO_ADVISE (no hints)", &r, d_io_advise, &hints);
	CHECK("ior_hints (none)", hints, 0);
	/* COPY4resok: write_response4 (wr_callback_id<1> empty, count, committed, verf),
	 * copy_requirements4 */
	memset(&r, 0, sizeof(r));
	put(&r, 0);
	put64(&r, UINT64_C(0x100000001));
	put(&r, 2);
	put(&r, 0x01020304);
	put(&r, 0xfcfdfeff);
	put(&r, 1);
	put(&r, 0);
	CHK_DEC("COPY", &r, d_copy, &copy);
	CHECK("async", copy.async, 0);
	CHECK("wr_count", copy.count, UINT64_C(0x100000001));
	CHECK("wr_committed", copy.committed, 2);
	CHECK("wr_writeverf[0]", copy.verf[0], 1);
	CHECK("wr_writeverf[7]", copy.verf[7], 0xff);
	CHECK("cr_consecutive", copy.consecutive, 1);
	CHECK("cr_synchronous", copy.synchronous, 0);
	/* ... with a callback id (the server chose an asynchronous copy) */
	memset(&r, 0, sizeof(r));
	put(&r, 1);
	put(&r, sid_b.seqid);
	put(&r, 0x09080706);
	put(&r, 0x05040302);
	put(&r, 0x0100eedd);
	put64(&r, 0);
	put(&r, 0);
	put64(&r, 0);
	put(&r, 0);
	put(&r, 0);
	CHK_DEC("COPY (asynchronous)", &r, d_copy, &copy);
	CHECK("async", copy.async, 1);
	CHECK("callback id seqid", copy.callback_id.seqid, sid_b.seqid);
	CHECK("callback id other[11]", copy.callback_id.other[11], 0xdd);
	/* NFS4ERR_OFFLOAD_NO_REQS: the requirements alone */
	memset(&r, 0, sizeof(r));
	put(&r, 0);
	put(&r, 1);
	CHK_DEC("COPY (OFFLOAD_NO_REQS)", &r, d_copy_noreqs, &copy);
	CHECK("cr_synchronous (no reqs)", copy.synchronous, 1);
	/* GETXATTR4res: xattrvalue4 */
	memset(&r, 0, sizeof(r));
	put_opaque(&r, "\x00hello", 6);
	CHK_DEC("GETXATTR", &r, d_getxattr, &v);
	CHECK("value length", v.n, 6);
	CHECK("value in the record", v.p == (const uint8_t *)r.w + 4, 1);
	/* SETXATTR4res, REMOVEXATTR4res: change_info4 */
	memset(&r, 0, sizeof(r));
	put(&r, 1);
	put64(&r, 41);
	put64(&r, UINT64_C(0x8000000000000042));
	CHK_DEC("SETXATTR", &r, d_setxattr, &ci);
	CHECK("atomic", ci.atomic, 1);
	CHECK("before", ci.before, 41);
	CHECK("after", ci.after, UINT64_C(0x8000000000000042));
	CHK_DEC("REMOVEXATTR", &r, d_removexattr, &ci);
	/* LISTXATTRS4resok: cookie, names<>, eof */
	memset(&r, 0, sizeof(r));
	put64(&r, 99);
	put(&r, 3);
	put_opaque(&r, "a", 1);
	put_opaque(&r, "nfsload.1", 9);
	put_opaque(&r, "", 0);
	put(&r, 1);
	memset(&l, 0, sizeof(l));
	CHK_DEC("LISTXATTRS", &r, d_listxattrs, &l);
	CHECK("lxr_cookie", l.cookie, 99);
	CHECK("names", l.n, 3);
	CHECK("names seen", l.seen, 3);
	CHECK("lxr_eof", l.eof, 1);
	CHECK("name 1", strcmp(l.names[1], "nfsload.1"), 0);
	l.stop_at = 2;
	CHECK("rc (callback stops)", run_dec(&r, 4 * r.n, d_listxattrs, &l), 5);
	CHECK("names seen (stopped)", l.seen, 2);
	CHECK("eof (stopped)", l.eof, 0);
	assert_int_equal(bad, 0);
}

/* Replies no server may send: -EBADMSG. */
static void test_garbage(void **state)
{
	static struct rep r;
	struct nfs42_copy_res copy;
	struct nfs42_seek_res seek;
	struct lx l = { 0 };

	(void)state;
	bad = 0;
	memset(&r, 0, sizeof(r));
	put(&r, 2);		/* sr_eof not a bool */
	put64(&r, 0);
	CHECK("SEEK eof 2", run_dec(&r, 4 * r.n, d_seek, &seek), -EBADMSG);
	memset(&r, 0, sizeof(r));
	put(&r, 2);		/* wr_callback_id<1> with two */
	CHECK("COPY two callback ids", run_dec(&r, 4 * r.n, d_copy, &copy), -EBADMSG);
	memset(&r, 0, sizeof(r));
	put(&r, 0);
	put64(&r, 1);
	put(&r, 3);		/* committed: no stable_how4 */
	put64(&r, 0);
	put(&r, 0);
	put(&r, 0);
	CHECK("COPY committed 3", run_dec(&r, 4 * r.n, d_copy, &copy), -EBADMSG);
	memset(&r, 0, sizeof(r));
	put64(&r, 0);
	put(&r, NFS42_LISTXATTRS_NAMES_MAX + 1);
	CHECK("LISTXATTRS too many names", run_dec(&r, 4 * r.n, d_listxattrs, &l), -EBADMSG);
	memset(&r, 0, sizeof(r));
	put64(&r, 0);
	put(&r, 1);
	put(&r, NFS42_XATTR_NAME_MAX + 1);	/* a name too long */
	for (int i = 0; i < 70; i++)
		put(&r, 0x61616161);
	put(&r, 1);
	CHECK("LISTXATTRS name too long", run_dec(&r, 4 * r.n, d_listxattrs, &l), -EBADMSG);
	CHECK("LISTXATTRS names seen", l.seen, 0);
	memset(&r, 0, sizeof(r));
	put(&r, 0xfffffffd);	/* a value longer than the record */
	CHECK("GETXATTR value too long", run_dec(&r, 4 * r.n, d_getxattr, &(struct xval){ 0 }),
	      -EBADMSG);
	assert_int_equal(bad, 0);
}

static void test_errno(void **state)
{
	static const struct { uint32_t stat; int err; } cases[] = {
		{ 0, 0 }, { NFS4ERR_NOTSUPP, -EOPNOTSUPP }, { NFS4ERR_OP_ILLEGAL, -ENOSYS },
		{ NFS4ERR_NOXATTR, -ENODATA }, { NFS4ERR_XATTR2BIG, -E2BIG }, { 2, -ENOENT },
		{ 6, -ENXIO }, { 10008, -EAGAIN }, { NFS4ERR_OFFLOAD_NO_REQS, -EIO },
	};

	(void)state;
	bad = 0;
	for (size_t i = 0; i < N(cases); i++)
		if (nfs42_errno(cases[i].stat) != cases[i].err) {
			print_error("nfs42_errno(%u): got %d, want %d\n", cases[i].stat,
				    nfs42_errno(cases[i].stat), cases[i].err);
			bad++;
		}
	assert_int_equal(bad, 0);
}

/* ---- native_v42: a connection of two open files ---- */

static struct nat_file files[2] = {
	{ .fh = { .len = 5, .data = { 1, 2, 3, 4, 5 } }, .open = true },
	{ .fh = { .len = 8, .data = { 0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7 } },
	  .open = true },
};
static uint32_t file_ids[2] = { 6, 9 };

static void conn_init(struct engine_conn *c)
{
	memset(c, 0, sizeof(*c));
	files[0].sid = sid_a;
	files[1].sid = sid_b;
	c->files = files;
	c->file_ids = file_ids;
	c->nfiles = 2;
}

/* nat_v42_enc's words for req (after the COMPOUND header) must be want[]. */
static void v42_enc(int line, const struct engine_req *req, const uint32_t *want, size_t nwant)
{
	struct engine_conn c;
	struct nfs4_enc e;
	u_int len;
	XDR x;

	conn_init(&c);
	memset(wire, 0xee, sizeof(wire));
	xdrmem_create(&x, (char *)wire, sizeof(wire), XDR_ENCODE);
	if (!nfs4_enc_begin(&e, &x, "", 2) || !nat_v42_enc(&c, &e, req) || !nfs4_enc_end(&e)) {
		print_error("line %d: nat_v42_enc failed\n", line);
		bad++;
		return;
	}
	len = xdr_getpos(&x);
	chk(line, "length", len, 12 + 4 * nwant);
	for (size_t i = 0; i < nwant && 12 + 4 * i < len; i++) {
		uint32_t got = xdrx_be32((uint8_t *)wire + 12 + 4 * i);

		if (got != want[i]) {
			print_error("line %d: word %zu: got 0x%08x, want 0x%08x\n", line, i, got,
				    want[i]);
			bad++;
		}
	}
}
#define V42_ENC(req, ...) do { \
	static const uint32_t want_[] = { __VA_ARGS__ }; \
	v42_enc(__LINE__, req, want_, N(want_)); \
} while (0)
/* PUTFH of file 0 / file 1; the stateids at seqid 0 ("the current one") */
#define PUTFH0 22, 5, 0x01020304, 0x05000000
#define PUTFH1 22, 8, 0xf0f1f2f3, 0xf4f5f6f7
#define SID0 0, 0xa0a1a2a3, 0xa4a5a6a7, 0xa8a9aaab
#define SID1 0, 0x09080706, 0x05040302, 0x0100eedd

static void test_native_enc(void **state)
{
	struct engine_req q;
	struct engine_conn c;
	struct nfs4_enc e;
	XDR x;

	(void)state;
	bad = 0;
	q = (struct engine_req){ .op = OP_READ_PLUS, .file = 1, .offset = 8192, .len = 4096 };
	V42_ENC(&q, PUTFH1, 68, SID1, U64(8192), 4096);
	q = (struct engine_req){ .op = OP_SEEK, .file = 0, .offset = 100, .what = 1 };
	V42_ENC(&q, PUTFH0, 69, SID0, U64(100), 1);
	q = (struct engine_req){ .op = OP_ALLOCATE, .file = 0, .offset = 65536, .len = 4096 };
	V42_ENC(&q, PUTFH0, 59, SID0, U64(65536), U64(4096));
	q = (struct engine_req){ .op = OP_DEALLOCATE, .file = 1, .offset = 0, .len = 512 };
	V42_ENC(&q, PUTFH1, 62, SID1, U64(0), U64(512));
	q = (struct engine_req){ .op = OP_IO_ADVISE, .file = 0, .offset = 1, .len = 2 };
	V42_ENC(&q, PUTFH0, 63, SID0, U64(1), U64(2), 1, 1);	/* no hint: NORMAL */
	q = (struct engine_req){ .op = OP_IO_ADVISE, .file = 0, .len = 2, .what = 1u << 4 };
	V42_ENC(&q, PUTFH0, 63, SID0, U64(0), U64(2), 1, 0x10);
	/* COPY and CLONE: PUTFH source, SAVEFH, PUTFH destination, the operation */
	q = (struct engine_req){ .op = OP_COPY, .file = 0, .file2 = 1, .offset = 4096,
				 .offset2 = 12288, .len = 8192 };
	V42_ENC(&q, PUTFH0, 32, PUTFH1, 60, SID0, SID1, U64(4096), U64(12288), U64(8192), 1, 1, 0);
	q.op = OP_CLONE;
	V42_ENC(&q, PUTFH0, 32, PUTFH1, 71, SID0, SID1, U64(4096), U64(12288), U64(8192));
	q = (struct engine_req){ .op = OP_GETXATTR, .file = 1, .xname = "n.1" };
	V42_ENC(&q, PUTFH1, 72, 3, 0x6e2e3100);
	q = (struct engine_req){ .op = OP_REMOVEXATTR, .file = 0, .xname = "n.12" };
	V42_ENC(&q, PUTFH0, 75, 4, 0x6e2e3132);
	q = (struct engine_req){ .op = OP_LISTXATTRS, .file = 0 };
	V42_ENC(&q, PUTFH0, 74, U64(0), 8192);
	q = (struct engine_req){ .op = OP_SETXATTR, .file = 0, .xname = "v", .len = 3,
				 .buf = "\x7f\x80\x81" };
	V42_ENC(&q, PUTFH0, 73, 0, 1, 0x76000000, 3, 0x7f808100);

	/* SETXATTR without the caller's bytes: made from file, offset and name, the same
	 * every time, another name another value. */
	{
		uint8_t v1[13], v2[13];

		q = (struct engine_req){ .op = OP_SETXATTR, .file = 1, .xname = "a", .len = 13 };
		for (int k = 0; k < 3; k++) {
			conn_init(&c);
			xdrmem_create(&x, (char *)wire, sizeof(wire), XDR_ENCODE);
			if (!nfs4_enc_begin(&e, &x, "", 2) || !nat_v42_enc(&c, &e, &q)) {
				bad++;
				break;
			}
			/* header 3 words, PUTFH 4, op, option, name 2: length at 11, value at 12 */
			CHECK("value length", xdrx_be32((uint8_t *)wire + 11 * 4), 13);
			memcpy(k == 1 ? v2 : v1, (uint8_t *)wire + 12 * 4, 13);
			if (k == 1)
				CHECK("same value twice", memcmp(v1, v2, 13), 0);
			if (k == 1)
				q.xname = "b";
		}
		CHECK("another name, another value", memcmp(v1, v2, 13) != 0, 1);
	}

	/* Refused: not a v4.2 op, a file out of range, an xattr op without a name. */
	conn_init(&c);
	xdrmem_create(&x, (char *)wire, sizeof(wire), XDR_ENCODE);
	assert_true(nfs4_enc_begin(&e, &x, "", 2));
	q = (struct engine_req){ .op = OP_READ };
	CHECK("READ refused", nat_v42_enc(&c, &e, &q), 0);
	q = (struct engine_req){ .op = OP_COMMIT };
	CHECK("COMMIT refused", nat_v42_enc(&c, &e, &q), 0);
	q = (struct engine_req){ .op = OP_SEEK, .file = 2 };
	CHECK("file 2 refused", nat_v42_enc(&c, &e, &q), 0);
	q = (struct engine_req){ .op = OP_COPY, .file = 0, .file2 = 2 };
	CHECK("file2 2 refused", nat_v42_enc(&c, &e, &q), 0);
	q = (struct engine_req){ .op = OP_SETXATTR, .file = 0 };
	CHECK("SETXATTR without a name refused", nat_v42_enc(&c, &e, &q), 0);
	q = (struct engine_req){ .op = OP_SEEK, .file = 0, .what = 2 };
	CHECK("SEEK what 2 refused", nat_v42_enc(&c, &e, &q), 0);
	assert_int_equal(bad, 0);
}

/* nat_v42_dec over the results after SEQUENCE in r, with the COMPOUND's status. */
/* The thread a decoded reply's connection runs on: READ_PLUS rebuilds its bytes in it. */
static struct engine_thread dec_thread;

static int v42_dec(const struct rep *r, struct engine_req *q, uint32_t cstatus)
{
	struct engine_conn c;
	XDR x;

	conn_init(&c);
	c.t = &dec_thread;
	xdrmem_create(&x, (char *)r->w, 4 * r->n, XDR_DECODE);
	return nat_v42_dec(&c, q, &x, cstatus);
}

static void test_native_dec(void **state)
{
	static struct rep r;
	struct engine_req q;
	uint8_t d[10] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };

	(void)state;
	bad = 0;
	/* READ_PLUS: data and holes, the holes' share apart */
	memset(&r, 0, sizeof(r));
	put(&r, 22);
	put(&r, 0);
	put(&r, 68);
	put(&r, 0);
	put(&r, 0);
	put(&r, 2);
	put_data(&r, 1000, d, 10);
	put_hole(&r, 1010, 90);
	q = (struct engine_req){ .op = OP_READ_PLUS, .offset = 1000, .len = 100 };
	CHECK("READ_PLUS: bytes", v42_dec(&r, &q, 0), 100);
	CHECK("READ_PLUS: holes", q.holes, 90);
	/* not one piece: rebuilt, the data copied and the hole zeros, as a READ returns it */
	{
		uint8_t want[100] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };

		CHECK("READ_PLUS: rebuilt (a data pointer)", q.data != NULL, 1);
		CHECK("READ_PLUS: rebuilt in the thread's buffer, not the record",
		      q.data == (const void *)dec_thread.rebuilt, 1);
		CHECK("READ_PLUS: rebuilt bytes are data then zeros",
		      q.data && memcmp(q.data, want, sizeof(want)) == 0, 1);
	}
	/* a hole first, then data: the data lands after the hole's zeros */
	memset(&r, 0, sizeof(r));
	put(&r, 22);
	put(&r, 0);
	put(&r, 68);
	put(&r, 0);
	put(&r, 1);
	put(&r, 2);
	put_hole(&r, 1000, 90);
	put_data(&r, 1090, d, 10);
	memset(dec_thread.rebuilt, 0xee, dec_thread.rebuilt_len);
	q = (struct engine_req){ .op = OP_READ_PLUS, .offset = 1000, .len = 100 };
	CHECK("READ_PLUS hole, data: bytes", v42_dec(&r, &q, 0), 100);
	CHECK("READ_PLUS hole, data: holes", q.holes, 90);
	{
		uint8_t want[100] = { 0 };

		memcpy(want + 90, d, 10);
		CHECK("READ_PLUS hole, data: rebuilt bytes are zeros then data",
		      q.data && memcmp(q.data, want, sizeof(want)) == 0, 1);
	}
	/* one data segment: the data where a READ's goes */
	memset(&r, 0, sizeof(r));
	put(&r, 22);
	put(&r, 0);
	put(&r, 68);
	put(&r, 0);
	put(&r, 1);
	put(&r, 1);
	put_data(&r, 1000, d, 10);
	q = (struct engine_req){ .op = OP_READ_PLUS, .offset = 1000, .len = 10 };
	CHECK("READ_PLUS data: bytes", v42_dec(&r, &q, 0), 10);
	CHECK("READ_PLUS data: holes", q.holes, 0);
	CHECK("READ_PLUS data: in the record", q.data == (const void *)((uint8_t *)r.w + 40), 1);
	/* SEEK: the offset found; eof: none (UINT64_MAX) */
	memset(&r, 0, sizeof(r));
	put(&r, 22);
	put(&r, 0);
	put(&r, 69);
	put(&r, 0);
	put(&r, 0);
	put64(&r, 123456);
	q = (struct engine_req){ .op = OP_SEEK };
	CHECK("SEEK: rc", v42_dec(&r, &q, 0), 0);
	CHECK("SEEK: offset", q.found, 123456);
	xdrx_put_be32((uint8_t *)&r.w[4], 1);	/* sr_eof */
	CHECK("SEEK eof: rc", v42_dec(&r, &q, 0), 0);
	CHECK("SEEK eof: offset", q.found, UINT64_MAX);
	/* GETXATTR: the value's length; LISTXATTRS: the names */
	memset(&r, 0, sizeof(r));
	put(&r, 22);
	put(&r, 0);
	put(&r, 72);
	put(&r, 0);
	put_opaque(&r, "abcdefg", 7);
	q = (struct engine_req){ .op = OP_GETXATTR, .xname = "x" };
	CHECK("GETXATTR: length", v42_dec(&r, &q, 0), 7);
	memset(&r, 0, sizeof(r));
	put(&r, 22);
	put(&r, 0);
	put(&r, 74);
	put(&r, 0);
	put64(&r, 5);
	put(&r, 2);
	put_opaque(&r, "a", 1);
	put_opaque(&r, "b", 1);
	put(&r, 1);
	q = (struct engine_req){ .op = OP_LISTXATTRS };
	CHECK("LISTXATTRS: names", v42_dec(&r, &q, 0), 2);
	/* COPY: PUTFH, SAVEFH, PUTFH, COPY */
	memset(&r, 0, sizeof(r));
	put(&r, 22);
	put(&r, 0);
	put(&r, 32);
	put(&r, 0);
	put(&r, 22);
	put(&r, 0);
	put(&r, 60);
	put(&r, 0);
	put(&r, 0);
	put64(&r, 8192);
	put(&r, 2);
	put64(&r, 0);
	put(&r, 1);
	put(&r, 1);
	q = (struct engine_req){ .op = OP_COPY, .file2 = 1, .len = 8192 };
	CHECK("COPY: rc", v42_dec(&r, &q, 0), 0);
	/* ALLOCATE, DEALLOCATE: the status alone */
	memset(&r, 0, sizeof(r));
	put(&r, 22);
	put(&r, 0);
	put(&r, 59);
	put(&r, 0);
	q = (struct engine_req){ .op = OP_ALLOCATE, .len = 4096 };
	CHECK("ALLOCATE: rc", v42_dec(&r, &q, 0), 0);
	q.op = OP_DEALLOCATE;
	CHECK("DEALLOCATE answered as ALLOCATE", v42_dec(&r, &q, 0), -EBADMSG);
	/* a garbage READ_PLUS */
	memset(&r, 0, sizeof(r));
	put(&r, 22);
	put(&r, 0);
	put(&r, 68);
	put(&r, 0);
	put(&r, 0);
	put(&r, 1);
	put_data(&r, 1001, d, 10);
	q = (struct engine_req){ .op = OP_READ_PLUS, .offset = 1000, .len = 100 };
	CHECK("READ_PLUS out of place", v42_dec(&r, &q, 0), -EBADMSG);
	/* nfs-ganesha 4.3's answer: nothing of the range (a short read for the worker) */
	memset(&r, 0, sizeof(r));
	put(&r, 22);
	put(&r, 0);
	put(&r, 68);
	put(&r, 0);
	put(&r, 0);
	put(&r, 1);
	put_data(&r, 0, d, 0);
	q = (struct engine_req){ .op = OP_READ_PLUS, .offset = 65536, .len = 4096 };
	CHECK("READ_PLUS ganesha 4.3", v42_dec(&r, &q, 0), 0);
	CHECK("READ_PLUS ganesha 4.3: no data pointer", q.data == NULL, 1);
	assert_int_equal(bad, 0);
}

/* The refusals: what the one line names comes from these errnos. */
static void test_native_refusals(void **state)
{
	static struct rep r;
	struct engine_req q;

	(void)state;
	bad = 0;
	/* NFS4ERR_NOTSUPP from the operation (ganesha's COPY) */
	memset(&r, 0, sizeof(r));
	put(&r, 22);
	put(&r, 0);
	put(&r, 32);
	put(&r, 0);
	put(&r, 22);
	put(&r, 0);
	put(&r, 60);
	put(&r, NFS4ERR_NOTSUPP);
	q = (struct engine_req){ .op = OP_COPY, .file2 = 1, .len = 4096 };
	CHECK("COPY NOTSUPP", v42_dec(&r, &q, NFS4ERR_NOTSUPP), -EOPNOTSUPP);
	/* OP_ILLEGAL: a server that does not know the opcode answers OP_ILLEGAL in its place */
	memset(&r, 0, sizeof(r));
	put(&r, 22);
	put(&r, 0);
	put(&r, 32);
	put(&r, 0);
	put(&r, 22);
	put(&r, 0);
	put(&r, OP4_ILLEGAL);
	put(&r, NFS4ERR_OP_ILLEGAL);
	q = (struct engine_req){ .op = OP_CLONE, .file2 = 1 };
	CHECK("CLONE OP_ILLEGAL", v42_dec(&r, &q, NFS4ERR_OP_ILLEGAL), -ENOSYS);
	memset(&r, 0, sizeof(r));
	put(&r, 22);
	put(&r, 0);
	put(&r, OP4_ILLEGAL);
	put(&r, NFS4ERR_OP_ILLEGAL);
	q = (struct engine_req){ .op = OP_GETXATTR, .xname = "x" };
	CHECK("GETXATTR OP_ILLEGAL", v42_dec(&r, &q, NFS4ERR_OP_ILLEGAL), -ENOSYS);
	q = (struct engine_req){ .op = OP_READ_PLUS, .len = 1 };
	CHECK("READ_PLUS OP_ILLEGAL", v42_dec(&r, &q, NFS4ERR_OP_ILLEGAL), -ENOSYS);
	/* NOXATTR, and another operation's status from the reply */
	memset(&r, 0, sizeof(r));
	put(&r, 22);
	put(&r, 0);
	put(&r, 72);
	put(&r, NFS4ERR_NOXATTR);
	q = (struct engine_req){ .op = OP_GETXATTR, .xname = "x" };
	CHECK("GETXATTR NOXATTR", v42_dec(&r, &q, NFS4ERR_NOXATTR), -ENODATA);
	memset(&r, 0, sizeof(r));
	put(&r, 22);
	put(&r, 70);		/* STALE */
	q = (struct engine_req){ .op = OP_SEEK };
	CHECK("PUTFH STALE", v42_dec(&r, &q, 70), -ESTALE);
	/* the op ok but the COMPOUND not: its status */
	memset(&r, 0, sizeof(r));
	put(&r, 22);
	put(&r, 0);
	put(&r, 59);
	put(&r, 0);
	q = (struct engine_req){ .op = OP_ALLOCATE };
	CHECK("COMPOUND NOTSUPP", v42_dec(&r, &q, NFS4ERR_NOTSUPP), -EOPNOTSUPP);
	/* not a v4.2 op */
	q = (struct engine_req){ .op = OP_WRITE };
	CHECK("WRITE refused", v42_dec(&r, &q, 0), -EINVAL);
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encoders),
		cmocka_unit_test(test_encoder_limits),
		cmocka_unit_test(test_read_plus_mixed),
		cmocka_unit_test(test_read_plus_hole_edges),
		cmocka_unit_test(test_read_plus_refused),
		cmocka_unit_test(test_decoders),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_errno),
		cmocka_unit_test(test_native_enc),
		cmocka_unit_test(test_native_dec),
		cmocka_unit_test(test_native_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
