/*
 * rpc unit tests: call headers decoded back with libtirpc, reply headers of
 * every accept and reject kind (and every truncation of them), and record
 * reassembly with streams cut at every position. Inputs live in buffers of
 * exactly their size so that the sanitizer build sees any overread.
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

#include <rpc/rpc.h>

#include "engine/native/rpc/rpc.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_PRINTED 20		/* mismatches printed per test; all are counted */

static unsigned failures;

/* Counts a mismatch and prints it with both values (the first few only). */
__attribute__((format(printf, 3, 4)))
static bool check_u(uintmax_t got, uintmax_t want, const char *fmt, ...)
{
	va_list ap;
	char what[256];

	if (got == want)
		return true;
	if (failures++ < MAX_PRINTED) {
		va_start(ap, fmt);
		vsnprintf(what, sizeof(what), fmt, ap);
		va_end(ap);
		print_error("%s: got %ju (0x%jx), want %ju (0x%jx)\n", what, got, got, want, want);
	}
	return false;
}

__attribute__((format(printf, 3, 4)))
static bool check_i(int got, int want, const char *fmt, ...)
{
	va_list ap;
	char what[256];

	if (got == want)
		return true;
	if (failures++ < MAX_PRINTED) {
		va_start(ap, fmt);
		vsnprintf(what, sizeof(what), fmt, ap);
		va_end(ap);
		print_error("%s: got %d (%s), want %d (%s)\n", what, got, strerror(-got), want,
			    strerror(-want));
	}
	return false;
}

static int setup(void **state)
{
	(void)state;
	failures = 0;
	return 0;
}

static void done(void)
{
	if (failures)
		print_error("%u mismatches\n", failures);
	assert_int_equal(failures, 0);
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* A copy of p[0..n) in a buffer of exactly n bytes (at least 1 allocated). */
static uint8_t *exact(const void *p, size_t n)
{
	uint8_t *b = malloc(n ? n : 1);

	assert_non_null(b);
	if (n)
		memcpy(b, p, n);
	return b;
}

/*
 * Decodes the call in buf[0..len) with xdr_callmsg and checks every field,
 * the mark, the AUTH_SYS body (machine: the bytes expected on the wire)
 * and that the header is all there is.
 */
static void check_call(const uint8_t *buf, size_t len, uint32_t extra, uint32_t xid,
		       uint32_t prog, uint32_t vers, uint32_t proc,
		       const struct rpc_cred *cred, const char *machine, const char *ctx)
{
	char credbuf[MAX_AUTH_BYTES], verfbuf[MAX_AUTH_BYTES];
	struct rpc_msg m;
	uint8_t *copy = exact(buf, len);
	XDR x;

	check_u(be32(buf), 0x80000000u | (uint32_t)(len - RPC_MARK_LEN + extra), "%s: mark", ctx);
	memset(&m, 0, sizeof(m));
	m.rm_call.cb_cred.oa_base = credbuf;
	m.rm_call.cb_verf.oa_base = verfbuf;
	xdrmem_create(&x, (char *)copy + RPC_MARK_LEN, (u_int)(len - RPC_MARK_LEN), XDR_DECODE);
	if (!check_u(xdr_callmsg(&x, &m), 1, "%s: xdr_callmsg", ctx)) {
		free(copy);
		return;
	}
	check_u(xdr_getpos(&x), len - RPC_MARK_LEN, "%s: header length", ctx);
	check_u(m.rm_xid, xid, "%s: xid", ctx);
	check_u(m.rm_direction, CALL, "%s: msg_type", ctx);
	check_u(m.rm_call.cb_rpcvers, 2, "%s: rpcvers", ctx);
	check_u(m.rm_call.cb_prog, prog, "%s: prog", ctx);
	check_u(m.rm_call.cb_vers, vers, "%s: vers", ctx);
	check_u(m.rm_call.cb_proc, proc, "%s: proc", ctx);
	check_u(m.rm_call.cb_verf.oa_flavor, AUTH_NONE, "%s: verf flavor", ctx);
	check_u(m.rm_call.cb_verf.oa_length, 0, "%s: verf length", ctx);
	if (!cred) {
		check_u(m.rm_call.cb_cred.oa_flavor, AUTH_NONE, "%s: cred flavor", ctx);
		check_u(m.rm_call.cb_cred.oa_length, 0, "%s: cred length", ctx);
	} else {
		const uint8_t *b = (const uint8_t *)credbuf;
		uint32_t n = (uint32_t)strlen(machine), at = 8 + n + rpc_pad(n);

		check_u(m.rm_call.cb_cred.oa_flavor, AUTH_SYS, "%s: cred flavor", ctx);
		check_u(m.rm_call.cb_cred.oa_length, at + 12, "%s: cred length", ctx);
		check_u(be32(b), cred->stamp, "%s: stamp", ctx);
		check_u(be32(b + 4), n, "%s: machine name length", ctx);
		if (memcmp(b + 8, machine, n) != 0 && failures++ < MAX_PRINTED)
			print_error("%s: machine name: got '%.*s', want '%s'\n", ctx, (int)n,
				    (const char *)b + 8, machine);
		for (uint32_t i = 8 + n; i < at; i++)
			check_u(b[i], 0, "%s: padding byte %u", ctx, i);
		check_u(be32(b + at), cred->uid, "%s: uid", ctx);
		check_u(be32(b + at + 4), cred->gid, "%s: gid", ctx);
		check_u(be32(b + at + 8), 0, "%s: gids count", ctx);
	}
	free(copy);
}

/* The length of the call header (mark included) for a machine name of n bytes. */
static size_t call_len(const struct rpc_cred *cred, size_t n)
{
	return 4 + 6 * 4 + (cred ? 8 + 20 + n + rpc_pad((uint32_t)n) : 8) + 8;
}

static void test_call_auth_none(void **state)
{
	uint8_t buf[256];
	size_t len;
	XDR x;

	(void)state;
	assert_true(rpc_start_call(&x, buf, sizeof(buf), 0x01020304, 100003, 3, 1, NULL));
	len = rpc_finish_call(&x, buf, 0);
	check_u(len, call_len(NULL, 0), "auth none: length");
	check_call(buf, len, 0, 0x01020304, 100003, 3, 1, NULL, NULL, "auth none");
	done();
}

static void test_call_auth_sys(void **state)
{
	static const char *names[] = {
		"", "a", "ab", "abc", "abcd", "abcde", "client-17.example.com",
		"0123456789012345678901234567890123456789012345678901234567890123",	/* 64 */
	};
	uint8_t buf[512];
	char ctx[96];
	XDR x;

	(void)state;
	for (size_t i = 0; i < N(names); i++) {
		struct rpc_cred c = { .stamp = 0xdeadbeef, .uid = 1000 + (uint32_t)i,
				      .gid = 0xfffffffe };
		size_t len;

		snprintf(c.machine, sizeof(c.machine), "%s", names[i]);
		snprintf(ctx, sizeof(ctx), "auth sys, machine '%s'", names[i]);
		memset(buf, 0xa5, sizeof(buf));
		if (!check_u(rpc_start_call(&x, buf, sizeof(buf), 0xfffffff0u + (uint32_t)i,
					    100005, 3, 1, &c), 1, "%s: start", ctx))
			continue;
		len = rpc_finish_call(&x, buf, 0);
		check_u(len, call_len(&c, strlen(names[i])), "%s: length", ctx);
		check_call(buf, len, 0, 0xfffffff0u + (uint32_t)i, 100005, 3, 1, &c, names[i], ctx);
	}
	done();
}

/* machine[] without a NUL: 64 bytes go, the 65th never. */
static void test_call_machine_truncated(void **state)
{
	struct rpc_cred c = { .stamp = 1, .uid = 0, .gid = 0 };
	char want[65];
	uint8_t buf[512];
	size_t len;
	XDR x;

	(void)state;
	memset(c.machine, 'm', sizeof(c.machine));
	memset(want, 'm', 64);
	want[64] = '\0';
	assert_true(rpc_start_call(&x, buf, sizeof(buf), 7, 100003, 3, 0, &c));
	len = rpc_finish_call(&x, buf, 0);
	check_u(len, call_len(&c, 64), "65 bytes of name: length");
	check_call(buf, len, 0, 7, 100003, 3, 0, &c, want, "65 bytes of name");
	done();
}

/* The mark covers the header, the arguments and the extra bytes sent after the buffer. */
static void test_call_mark_extra(void **state)
{
	static const uint32_t extras[] = { 0, 1, 3, 4096 + 3, 1u << 20, RPC_RECORD_MAX };
	struct rpc_cred c = { .stamp = 2, .machine = "h", .uid = 5, .gid = 6 };
	uint8_t buf[256];
	u_int arg = 0x11223344;
	XDR x;

	(void)state;
	for (size_t i = 0; i < N(extras); i++) {
		size_t len;

		assert_true(rpc_start_call(&x, buf, sizeof(buf), 9, 100003, 3, 7, &c));
		assert_true(xdr_u_int(&x, &arg));
		len = rpc_finish_call(&x, buf, extras[i]);
		check_u(len, call_len(&c, 1) + 4, "extra %u: length", extras[i]);
		check_u(be32(buf), 0x80000000u | (uint32_t)(len - 4 + extras[i]),
			"extra %u: mark", extras[i]);
		check_u(be32(buf + len - 4), arg, "extra %u: the argument", extras[i]);
	}
	done();
}

/* Every buffer shorter than the header fails, and nothing is written past it. */
static void test_call_buffer_too_small(void **state)
{
	struct rpc_cred c = { .stamp = 3, .machine = "too-small.example", .uid = 1, .gid = 2 };
	const struct rpc_cred *creds[] = { NULL, &c };
	uint8_t buf[256];
	XDR x;

	(void)state;
	for (size_t k = 0; k < N(creds); k++) {
		size_t need = call_len(creds[k], creds[k] ? strlen(c.machine) : 0);

		for (size_t len = 0; len <= need; len++) {
			bool ok;

			memset(buf, 0xa5, sizeof(buf));
			ok = rpc_start_call(&x, buf, len, 1, 2, 3, 4, creds[k]);
			check_u(ok, len == need, "%s: buffer of %zu bytes (header %zu)",
				creds[k] ? "auth sys" : "auth none", len, need);
			for (size_t i = len; i < sizeof(buf); i++)
				if (!check_u(buf[i], 0xa5, "%s: buffer of %zu: byte %zu written",
					     creds[k] ? "auth sys" : "auth none", len, i))
					break;
		}
	}
	done();
}

#define RESULT_WORD 0xfeedfaceu

struct reply_case {
	const char *name;
	uint32_t w[12];		/* the reply header, then RESULT_WORD when OK */
	unsigned nw;		/* words of header */
	int rc;
	enum rpc_reply_stat stat;
	uint32_t detail, low, high;
	int err;		/* rpc_reply_errno */
};

static const struct reply_case reply_cases[] = {
	{ "success", { 1, 1, 0, 0, 0, 0 }, 6, 0, RPC_REPLY_OK, 0, 0, 0, 0 },
	{ "success, 5-byte verifier", { 2, 1, 0, 6, 5, 0x61626364, 0x65000000, 0 }, 8,
	  0, RPC_REPLY_OK, 0, 0, 0, 0 },
	{ "success, 8-byte verifier", { 3, 1, 0, 1, 8, 1, 2, 0 }, 8, 0, RPC_REPLY_OK, 0, 0, 0, 0 },
	{ "prog unavail", { 4, 1, 0, 0, 0, 1 }, 6, 0, RPC_REPLY_ERROR, 1, 0, 0, -EPROTONOSUPPORT },
	{ "prog mismatch", { 5, 1, 0, 0, 0, 2, 2, 3 }, 8, 0, RPC_REPLY_ERROR, 2, 2, 3,
	  -EPROTONOSUPPORT },
	{ "proc unavail", { 6, 1, 0, 0, 0, 3 }, 6, 0, RPC_REPLY_ERROR, 3, 0, 0, -EOPNOTSUPP },
	{ "garbage args", { 7, 1, 0, 0, 0, 4 }, 6, 0, RPC_REPLY_ERROR, 4, 0, 0, -EBADMSG },
	{ "system err", { 8, 1, 0, 0, 0, 5 }, 6, 0, RPC_REPLY_ERROR, 5, 0, 0, -EIO },
	{ "rpc mismatch", { 9, 1, 1, 0, 2, 2 }, 6, 0, RPC_REPLY_DENIED, 0, 2, 2, -EPROTONOSUPPORT },
	{ "auth badcred", { 10, 1, 1, 1, 1 }, 5, 0, RPC_REPLY_DENIED, 1, 0, 0, -EACCES },
	{ "auth tooweak", { 11, 1, 1, 1, 5 }, 5, 0, RPC_REPLY_DENIED, 5, 0, 0, -EACCES },
	{ "auth rpcsec_gss", { 12, 1, 1, 1, 13 }, 5, 0, RPC_REPLY_DENIED, 13, 0, 0, -EACCES },
	{ "call, not reply", { 13, 0, 2, 100003, 3, 0 }, 6, -EBADMSG, 0, 0, 0, 0, 0 },
	{ "msg_type 2", { 14, 2, 0, 0, 0, 0 }, 6, -EBADMSG, 0, 0, 0, 0, 0 },
	{ "reply_stat 2", { 15, 1, 2, 0, 0, 0 }, 6, -EBADMSG, 0, 0, 0, 0, 0 },
	{ "accept_stat 6", { 16, 1, 0, 0, 0, 6 }, 6, -EBADMSG, 0, 0, 0, 0, 0 },
	{ "reject_stat 2", { 17, 1, 1, 2, 0, 0 }, 6, -EBADMSG, 0, 0, 0, 0, 0 },
	{ "auth_ok in auth_error", { 18, 1, 1, 1, 0 }, 5, -EBADMSG, 0, 0, 0, 0, 0 },
	{ "verifier 401 bytes", { 19, 1, 0, 0, 401, 0 }, 6, -EBADMSG, 0, 0, 0, 0, 0 },
	{ "verifier 2^32-1 bytes", { 20, 1, 0, 0, 0xffffffffu, 0 }, 6, -EBADMSG, 0, 0, 0, 0, 0 },
	{ "verifier past the end", { 21, 1, 0, 0, 16, 0, 0 }, 7, -EBADMSG, 0, 0, 0, 0, 0 },
};

/* Decodes rec[0..len) at an offset from an aligned buffer (xdrmem's unaligned ops). */
static int decode_at(const uint8_t *rec, size_t len, size_t misalign, struct rpc_reply *r,
		     uint32_t *next, bool *has_next)
{
	uint8_t *b = malloc(len + misalign + 1);
	u_int u = 0;
	XDR x;
	int rc;

	assert_non_null(b);
	memcpy(b + misalign, rec, len);
	xdrmem_create(&x, (char *)b + misalign, (u_int)len, XDR_DECODE);
	rc = rpc_decode_reply(&x, r);
	*has_next = rc == 0 && xdr_u_int(&x, &u);
	*next = u;
	free(b);
	return rc;
}

/* An accepted reply's verifier is found in place (RPCSEC_GSS checks its MIC): flavor, where
 * its body starts in the record, its length; and the results follow it. */
static void test_reply_verifier(void **state)
{
	uint8_t rec[64] = { 0 };
	struct rpc_reply r;
	uint32_t w[] = { 7, 1, 0, 6, 28 };
	XDR x;

	(void)state;
	for (unsigned i = 0; i < 5; i++)
		xdrx_put_be32(rec + 4 * i, w[i]);
	memset(rec + 20, 0xab, 28);
	xdrx_put_be32(rec + 48, 0);		/* SUCCESS */
	xdrx_put_be32(rec + 52, 0x1234);	/* the results' first word */
	xdrmem_create(&x, (char *)rec, 56, XDR_DECODE);
	assert_int_equal(rpc_decode_reply(&x, &r), 0);
	assert_int_equal(r.stat, RPC_REPLY_OK);
	assert_int_equal(r.verf_flavor, 6);
	assert_int_equal(r.verf_pos, 20);
	assert_int_equal(r.verf_len, 28);
	assert_int_equal(xdr_getpos(&x), 52);
}

static void test_reply_cases(void **state)
{
	(void)state;
	for (size_t i = 0; i < N(reply_cases); i++) {
		const struct reply_case *c = &reply_cases[i];
		uint8_t rec[4 * 13];
		size_t full = 4 * c->nw;

		for (unsigned k = 0; k < c->nw; k++)
			put_be32(rec + 4 * k, c->w[k]);
		put_be32(rec + full, RESULT_WORD);
		for (size_t misalign = 0; misalign < 4; misalign++) {
			struct rpc_reply r;
			uint32_t next;
			bool has_next;
			int rc = decode_at(rec, full + 4, misalign, &r, &next, &has_next);

			if (!check_i(rc, c->rc, "%s (at +%zu): rc", c->name,
				     misalign) || rc)
				continue;
			check_u(r.xid, c->w[0], "%s: xid", c->name);
			check_u(r.stat, c->stat, "%s: stat", c->name);
			check_u(r.detail, c->detail, "%s: detail", c->name);
			check_u(r.low, c->low, "%s: low", c->name);
			check_u(r.high, c->high, "%s: high", c->name);
			check_i(rpc_reply_errno(&r), c->err, "%s: errno",
				c->name);
			if (c->stat == RPC_REPLY_OK) {
				check_u(has_next, 1, "%s: results readable", c->name);
				check_u(next, RESULT_WORD, "%s: at the results", c->name);
			}
		}
	}
	done();
}

/* Every proper prefix of every header is -EBADMSG, aligned or not. */
static void test_reply_truncated(void **state)
{
	(void)state;
	for (size_t i = 0; i < N(reply_cases); i++) {
		const struct reply_case *c = &reply_cases[i];
		uint8_t rec[4 * 12];

		for (unsigned k = 0; k < c->nw; k++)
			put_be32(rec + 4 * k, c->w[k]);
		for (size_t len = 0; len < 4 * c->nw; len++)
			for (size_t misalign = 0; misalign < 4; misalign++) {
				struct rpc_reply r;
				uint32_t next;
				bool has_next;
				int rc = decode_at(rec, len, misalign, &r, &next, &has_next);

				check_i(rc, -EBADMSG, "%s cut to %zu (at +%zu)",
					c->name, len, misalign);
			}
	}
	done();
}

static void test_reply_errno(void **state)
{
	static const struct {
		enum rpc_reply_stat stat;
		uint32_t detail;
		int err;
	} cases[] = {
		{ RPC_REPLY_OK, 0, 0 },
		{ RPC_REPLY_ERROR, PROG_UNAVAIL, -EPROTONOSUPPORT },
		{ RPC_REPLY_ERROR, PROG_MISMATCH, -EPROTONOSUPPORT },
		{ RPC_REPLY_ERROR, PROC_UNAVAIL, -EOPNOTSUPP },
		{ RPC_REPLY_ERROR, GARBAGE_ARGS, -EBADMSG },
		{ RPC_REPLY_ERROR, SYSTEM_ERR, -EIO },
		{ RPC_REPLY_ERROR, 99, -EIO },
		{ RPC_REPLY_DENIED, 0, -EPROTONOSUPPORT },
		{ RPC_REPLY_DENIED, AUTH_BADCRED, -EACCES },
		{ RPC_REPLY_DENIED, AUTH_REJECTEDCRED, -EACCES },
		{ RPC_REPLY_DENIED, AUTH_BADVERF, -EACCES },
		{ RPC_REPLY_DENIED, AUTH_TOOWEAK, -EACCES },
		{ RPC_REPLY_DENIED, 99, -EACCES },
	};

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		struct rpc_reply r = { .xid = 1, .stat = cases[i].stat, .detail = cases[i].detail };

		check_i(rpc_reply_errno(&r), cases[i].err,
			"stat %d detail %u", cases[i].stat, cases[i].detail);
	}
	done();
}

static void test_peek_xid(void **state)
{
	static const uint8_t rec[] = { 0x12, 0x34, 0x56, 0x78, 0 };
	uint32_t xid = 0;

	(void)state;
	for (size_t len = 0; len < 4; len++)
		check_u(rpc_peek_xid(rec, len, &xid), 0, "peek %zu bytes", len);
	check_u(rpc_peek_xid(rec, 4, &xid), 1, "peek 4 bytes");
	check_u(xid, 0x12345678, "xid");
	done();
}

#define STREAM_MAX 8192
#define GOT_MAX 64

struct stream {
	uint8_t b[STREAM_MAX];
	size_t len;
	const uint8_t *rec[GOT_MAX];	/* the records, as expected */
	size_t rec_len[GOT_MAX];
	size_t rec_end[GOT_MAX];	/* stream offset just past the record */
	unsigned n;
};

/* Appends data[0..len) as a record in fragments of frags[0..nfrags) bytes (they sum to len). */
static void add_record(struct stream *s, const uint8_t *data, size_t len, const size_t *frags,
		       size_t nfrags)
{
	size_t one[] = { len }, at = 0;

	if (!frags) {
		frags = one;
		nfrags = 1;
	}
	assert_true(s->n < GOT_MAX);
	s->rec[s->n] = data;
	s->rec_len[s->n++] = len;
	for (size_t i = 0; i < nfrags; i++) {
		assert_true(s->len + 4 + frags[i] <= STREAM_MAX);
		put_be32(s->b + s->len, (uint32_t)frags[i] | (i == nfrags - 1 ? 0x80000000u : 0));
		memcpy(s->b + s->len + 4, data + at, frags[i]);
		s->len += 4 + frags[i];
		at += frags[i];
	}
	assert_int_equal(at, len);
	s->rec_end[s->n - 1] = s->len;
}

struct got {
	uint8_t data[STREAM_MAX];
	size_t used, len[GOT_MAX];
	unsigned n, in_place, misaligned;
	uintptr_t lo, hi;	/* the chunk being fed */
	unsigned stop_at;	/* return 42 from this call (1-based), 0: never */
	const struct rpc_rec *r;	/* set: rest[] records r->rest at each call */
	size_t rest[GOT_MAX];
};

static int collect(void *arg, const uint8_t *rec, size_t len)
{
	struct got *g = arg;
	uintptr_t p = (uintptr_t)rec;

	if (p >= g->lo && p + len <= g->hi)
		g->in_place++;
	if (p & 3)
		g->misaligned++;
	if (g->r && g->n < GOT_MAX)
		g->rest[g->n] = g->r->rest;
	if (g->n < GOT_MAX && g->used + len <= sizeof(g->data)) {
		memcpy(g->data + g->used, rec, len);
		g->used += len;
		g->len[g->n] = len;
	}
	g->n++;
	return g->stop_at && g->n == g->stop_at ? 42 : 0;
}

/* Feeds p[0..n) as one chunk of exactly n bytes. */
static int feed(struct rpc_rec *r, struct got *g, const uint8_t *p, size_t n)
{
	uint8_t *b = exact(p, n);
	int rc;

	g->lo = (uintptr_t)b;
	g->hi = (uintptr_t)b + n;
	rc = rpc_rec_feed(r, b, n, collect, g);
	free(b);
	return rc;
}

/* Feeds the stream cut at cuts[0..ncuts) (ascending), checking each feed returns 0. */
static void feed_cut(struct rpc_rec *r, struct got *g, const struct stream *s,
		     const size_t *cuts, size_t ncuts, const char *ctx)
{
	size_t at = 0;

	for (size_t i = 0; i <= ncuts; i++) {
		size_t end = i < ncuts ? cuts[i] : s->len;

		check_i(feed(r, g, s->b + at, end - at), 0, "%s: feed [%zu, %zu)", ctx,
			at, end);
		at = end;
	}
}

/* g holds exactly the stream's records. */
static void check_got(const struct got *g, const struct stream *s, const char *ctx)
{
	size_t at = 0;

	if (!check_u(g->n, s->n, "%s: records", ctx))
		return;
	check_u(g->misaligned, 0, "%s: misaligned records", ctx);
	for (unsigned i = 0; i < s->n; i++) {
		if (!check_u(g->len[i], s->rec_len[i], "%s: record %u length", ctx, i))
			return;
		if (memcmp(g->data + at, s->rec[i], s->rec_len[i]) != 0) {
			if (failures++ < MAX_PRINTED)
				print_error("%s: record %u: bytes differ\n", ctx, i);
			return;
		}
		at += s->rec_len[i];
	}
}

static uint8_t pattern[4096];

static void fill_pattern(void)
{
	for (size_t i = 0; i < sizeof(pattern); i++)
		pattern[i] = (uint8_t)(i * 7 + 1);
}

/* Single- and multi-fragment records, aligned lengths and not, empty ones. */
static void mixed_stream(struct stream *s)
{
	static const size_t d_frags[] = { 3, 0, 5 }, e_frags[] = { 0, 16, 24 };
	static const size_t f_frags[] = { 0, 0, 0 };

	memset(s, 0, sizeof(*s));
	fill_pattern();
	add_record(s, pattern, 24, NULL, 0);
	add_record(s, pattern + 100, 0, NULL, 0);
	add_record(s, pattern + 200, 13, NULL, 0);
	add_record(s, pattern + 300, 8, d_frags, N(d_frags));
	add_record(s, pattern + 400, 40, e_frags, N(e_frags));
	add_record(s, pattern + 500, 0, f_frags, N(f_frags));
	add_record(s, pattern + 600, 16, NULL, 0);
}

static void test_rec_split_two(void **state)
{
	struct stream s;
	struct rpc_rec r;
	struct got g;
	char ctx[64];

	(void)state;
	mixed_stream(&s);
	rpc_rec_init(&r, RPC_RECORD_MAX);
	for (size_t cut = 0; cut <= s.len; cut++) {
		memset(&g, 0, sizeof(g));
		snprintf(ctx, sizeof(ctx), "cut at %zu of %zu", cut, s.len);
		feed_cut(&r, &g, &s, &cut, 1, ctx);
		check_got(&g, &s, ctx);
		check_u(r.len + r.mark_have + r.frag_left, 0, "%s: left over", ctx);
	}
	rpc_rec_destroy(&r);
	done();
}

/*
 * Wire time takes a receive's time for the record that ends the receive only:
 * rest says how many bytes of the chunk came after the record, for records
 * whole in a chunk and gathered across chunks, at every cut of the stream.
 */
static void test_rec_rest(void **state)
{
	struct stream s;
	struct rpc_rec r;
	struct got g;
	char ctx[64];

	(void)state;
	mixed_stream(&s);
	rpc_rec_init(&r, RPC_RECORD_MAX);
	for (size_t cut = 0; cut <= s.len; cut++) {
		memset(&g, 0, sizeof(g));
		g.r = &r;
		snprintf(ctx, sizeof(ctx), "cut at %zu of %zu", cut, s.len);
		feed_cut(&r, &g, &s, &cut, 1, ctx);
		check_got(&g, &s, ctx);
		for (unsigned i = 0; i < s.n && i < g.n; i++) {
			size_t chunk_end = s.rec_end[i] <= cut ? cut : s.len;

			check_u(g.rest[i], chunk_end - s.rec_end[i], "%s: record %u: rest", ctx, i);
		}
	}
	rpc_rec_destroy(&r);
	done();
}

static void test_rec_split_three(void **state)
{
	struct stream s;
	struct rpc_rec r;
	struct got g;
	char ctx[64];

	(void)state;
	mixed_stream(&s);
	rpc_rec_init(&r, RPC_RECORD_MAX);
	for (size_t i = 0; i <= s.len; i++)
		for (size_t j = i; j <= s.len; j++) {
			size_t cuts[] = { i, j };

			memset(&g, 0, sizeof(g));
			snprintf(ctx, sizeof(ctx), "cuts at %zu, %zu", i, j);
			feed_cut(&r, &g, &s, cuts, 2, ctx);
			check_got(&g, &s, ctx);
		}
	rpc_rec_destroy(&r);
	done();
}

static void test_rec_byte_at_a_time(void **state)
{
	struct stream s;
	struct rpc_rec r;
	struct got g;

	(void)state;
	mixed_stream(&s);
	memset(&g, 0, sizeof(g));
	rpc_rec_init(&r, RPC_RECORD_MAX);
	for (size_t i = 0; i < s.len; i++)
		check_i(feed(&r, &g, s.b + i, 1), 0, "byte %zu", i);
	check_got(&g, &s, "byte at a time");
	check_u(g.in_place, 0, "in place, byte at a time");
	rpc_rec_destroy(&r);
	done();
}

/* Whole aligned records in one chunk go to fn in place, and nothing is allocated. */
static void test_rec_in_place(void **state)
{
	static const size_t lens[] = { 24, 0, 8, 1024, 8 };
	struct stream s;
	struct rpc_rec r;
	struct got g;

	(void)state;
	memset(&s, 0, sizeof(s));
	fill_pattern();
	for (size_t i = 0; i < N(lens); i++)
		add_record(&s, pattern + i, lens[i], NULL, 0);
	memset(&g, 0, sizeof(g));
	rpc_rec_init(&r, RPC_RECORD_MAX);
	check_i(feed(&r, &g, s.b, s.len), 0, "one chunk: rc");
	check_got(&g, &s, "one chunk");
	check_u(g.in_place, N(lens), "one chunk: in place");
	check_u((uintptr_t)r.buf, 0, "one chunk: buffer allocated");

	/* Cut inside the third record: it is gathered, the others in place. */
	memset(&g, 0, sizeof(g));
	{
		size_t cut = 4 + 24 + 4 + 4 + 4;

		feed_cut(&r, &g, &s, &cut, 1, "cut in the third");
	}
	check_got(&g, &s, "cut in the third");
	check_u(g.in_place, 4, "cut in the third: in place");
	rpc_rec_destroy(&r);
	done();
}

/* A chunk that starts off a 4-byte boundary: every record gathered, aligned. */
static void test_rec_misaligned_chunk(void **state)
{
	struct stream s;
	struct rpc_rec r;
	struct got g;
	uint8_t *b;

	(void)state;
	mixed_stream(&s);
	rpc_rec_init(&r, RPC_RECORD_MAX);
	for (size_t off = 1; off < 4; off++) {
		b = malloc(s.len + off);
		assert_non_null(b);
		memcpy(b + off, s.b, s.len);
		memset(&g, 0, sizeof(g));
		g.lo = (uintptr_t)(b + off);
		g.hi = g.lo + s.len;
		check_i(rpc_rec_feed(&r, b + off, s.len, collect, &g), 0, "off %zu: rc", off);
		check_got(&g, &s, "misaligned chunk");
		free(b);
	}
	rpc_rec_destroy(&r);
	done();
}

/* A mark arriving 1, 2 or 3 bytes at a time, then the rest. */
static void test_rec_split_mark(void **state)
{
	struct stream s;
	struct rpc_rec r;
	struct got g;

	(void)state;
	memset(&s, 0, sizeof(s));
	fill_pattern();
	add_record(&s, pattern, 12, NULL, 0);
	add_record(&s, pattern + 12, 20, NULL, 0);
	rpc_rec_init(&r, RPC_RECORD_MAX);
	for (size_t a = 1; a < 4; a++) {
		size_t cuts[] = { a, 4, 4 + 12 + a };

		memset(&g, 0, sizeof(g));
		feed_cut(&r, &g, &s, cuts, N(cuts), "split mark");
		check_u(r.mark_have, 0, "split mark %zu: mark_have at the end", a);
		check_got(&g, &s, "split mark");
	}
	rpc_rec_destroy(&r);
	done();
}

/* Many empty non-last fragments: one record, no loop without input. */
static void test_rec_empty_fragments(void **state)
{
	static size_t frags[1000];
	struct stream s;
	struct rpc_rec r;
	struct got g;
	size_t cut;

	(void)state;
	memset(&s, 0, sizeof(s));
	fill_pattern();
	frags[N(frags) - 1] = 8;
	add_record(&s, pattern, 8, frags, N(frags));
	rpc_rec_init(&r, 16);
	memset(&g, 0, sizeof(g));
	check_i(feed(&r, &g, s.b, s.len), 0, "one chunk: rc");
	check_got(&g, &s, "empty fragments, one chunk");
	memset(&g, 0, sizeof(g));
	cut = s.len - 5;
	feed_cut(&r, &g, &s, &cut, 1, "empty fragments, cut");
	check_got(&g, &s, "empty fragments, cut");
	rpc_rec_destroy(&r);
	done();
}

static void test_rec_over_max(void **state)
{
	static const size_t ok_frags[] = { 40, 24 }, over_frags[] = { 40, 25 };
	static const struct {
		const char *name;
		size_t len;
		const size_t *frags;
		size_t nfrags;
		int rc;
	} cases[] = {
		{ "64 bytes", 64, NULL, 0, 0 },
		{ "65 bytes", 65, NULL, 0, -EBADMSG },
		{ "40 + 24 bytes", 64, ok_frags, 2, 0 },
		{ "40 + 25 bytes", 65, over_frags, 2, -EBADMSG },
	};
	static const uint8_t huge[] = { 0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4 };
	struct rpc_rec r;
	struct got g;

	(void)state;
	fill_pattern();
	for (size_t i = 0; i < N(cases); i++) {
		struct stream s;

		memset(&s, 0, sizeof(s));
		add_record(&s, pattern, cases[i].len, cases[i].frags, cases[i].nfrags);
		/* whole in one chunk, then a byte at a time */
		rpc_rec_init(&r, 64);
		memset(&g, 0, sizeof(g));
		check_i(feed(&r, &g, s.b, s.len), cases[i].rc, "%s: rc",
			cases[i].name);
		check_u(g.n, cases[i].rc ? 0 : 1, "%s: records", cases[i].name);
		rpc_rec_destroy(&r);

		rpc_rec_init(&r, 64);
		memset(&g, 0, sizeof(g));
		{
			int rc = 0;

			for (size_t k = 0; k < s.len && !rc; k++)
				rc = feed(&r, &g, s.b + k, 1);
			check_i(rc, cases[i].rc, "%s, byte at a time: rc",
				cases[i].name);
		}
		check_u(g.n, cases[i].rc ? 0 : 1, "%s, byte at a time: records", cases[i].name);
		check_u(r.cap <= 64, 1, "%s: cap %zu within max", cases[i].name, r.cap);
		rpc_rec_destroy(&r);
	}
	/* a 2 GiB fragment is refused before anything is allocated for it */
	rpc_rec_init(&r, RPC_RECORD_MAX);
	memset(&g, 0, sizeof(g));
	check_i(feed(&r, &g, huge, sizeof(huge)), -EBADMSG, "2 GiB fragment");
	check_u(r.cap, 0, "2 GiB fragment: cap");
	rpc_rec_destroy(&r);
	done();
}

/* fn's non-zero return stops the feed and is returned, in place or gathered. */
static void test_rec_fn_stops(void **state)
{
	struct stream s;
	struct rpc_rec r;
	struct got g;

	(void)state;
	memset(&s, 0, sizeof(s));
	fill_pattern();
	for (size_t i = 0; i < 4; i++)
		add_record(&s, pattern + 16 * i, 16, NULL, 0);
	rpc_rec_init(&r, RPC_RECORD_MAX);
	memset(&g, 0, sizeof(g));
	g.stop_at = 2;
	check_i(feed(&r, &g, s.b, s.len), 42, "in place: rc");
	check_u(g.n, 2, "in place: records");
	rpc_rec_destroy(&r);

	rpc_rec_init(&r, RPC_RECORD_MAX);
	memset(&g, 0, sizeof(g));
	g.stop_at = 3;
	{
		uint8_t *b = malloc(s.len + 1);

		assert_non_null(b);
		memcpy(b + 1, s.b, s.len);
		check_i(rpc_rec_feed(&r, b + 1, s.len, collect, &g), 42, "gathered: rc");
		free(b);
	}
	check_u(g.n, 3, "gathered: records");
	rpc_rec_destroy(&r);
	done();
}

/* A reset forgets a partial record (a partial mark, a partial fragment). */
static void test_rec_reset(void **state)
{
	static const size_t frags[] = { 8, 8 };
	struct stream s, old;
	struct rpc_rec r;
	struct got g;

	(void)state;
	fill_pattern();
	memset(&old, 0, sizeof(old));
	add_record(&old, pattern + 50, 16, frags, N(frags));
	mixed_stream(&s);
	rpc_rec_init(&r, RPC_RECORD_MAX);
	for (size_t cut = 1; cut < old.len; cut++) {
		memset(&g, 0, sizeof(g));
		check_i(feed(&r, &g, old.b, cut), 0, "old stream to %zu", cut);
		rpc_rec_reset(&r);
		feed_cut(&r, &g, &s, NULL, 0, "after reset");
		check_got(&g, &s, "after reset");
	}
	rpc_rec_destroy(&r);
	done();
}

/* Gathered records reuse buf: one allocation, doubling from 4 KiB. */
static void test_rec_steady_state(void **state)
{
	static uint8_t big[5000];
	struct stream *s = calloc(1, sizeof(*s));
	struct rpc_rec r;
	struct got *g = calloc(1, sizeof(*g));
	uint8_t *buf = NULL;

	(void)state;
	assert_non_null(s);
	assert_non_null(g);
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)(i ^ (i >> 8));
	add_record(s, big, sizeof(big), NULL, 0);
	rpc_rec_init(&r, RPC_RECORD_MAX);
	for (int round = 0; round < 10; round++) {
		size_t cut = 1000;

		memset(g, 0, sizeof(*g));
		feed_cut(&r, g, s, &cut, 1, "5000 bytes cut at 1000");
		check_got(g, s, "5000 bytes cut at 1000");
		if (round == 0) {
			buf = r.buf;
			check_u(r.cap, 8192, "cap");
		}
		check_u((uintptr_t)r.buf, (uintptr_t)buf, "round %d: buf moved", round);
	}
	rpc_rec_destroy(&r);

	/* doubling stops at max */
	rpc_rec_init(&r, 6000);
	memset(g, 0, sizeof(*g));
	{
		size_t cut = 10;

		feed_cut(&r, g, s, &cut, 1, "max 6000");
	}
	check_got(g, s, "max 6000");
	check_u(r.cap, 6000, "max 6000: cap");
	rpc_rec_destroy(&r);
	free(g);
	free(s);
	done();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_call_auth_none, setup),
		cmocka_unit_test_setup(test_call_auth_sys, setup),
		cmocka_unit_test_setup(test_call_machine_truncated, setup),
		cmocka_unit_test_setup(test_call_mark_extra, setup),
		cmocka_unit_test_setup(test_call_buffer_too_small, setup),
		cmocka_unit_test_setup(test_reply_cases, setup),
		cmocka_unit_test_setup(test_reply_verifier, setup),
		cmocka_unit_test_setup(test_reply_truncated, setup),
		cmocka_unit_test_setup(test_reply_errno, setup),
		cmocka_unit_test_setup(test_peek_xid, setup),
		cmocka_unit_test_setup(test_rec_split_two, setup),
		cmocka_unit_test_setup(test_rec_split_three, setup),
		cmocka_unit_test_setup(test_rec_rest, setup),
		cmocka_unit_test_setup(test_rec_byte_at_a_time, setup),
		cmocka_unit_test_setup(test_rec_in_place, setup),
		cmocka_unit_test_setup(test_rec_misaligned_chunk, setup),
		cmocka_unit_test_setup(test_rec_split_mark, setup),
		cmocka_unit_test_setup(test_rec_empty_fragments, setup),
		cmocka_unit_test_setup(test_rec_over_max, setup),
		cmocka_unit_test_setup(test_rec_fn_stops, setup),
		cmocka_unit_test_setup(test_rec_reset, setup),
		cmocka_unit_test_setup(test_rec_steady_state, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
