/*
 * nfs4lk unit tests. Encoders: LOCK (open_to_lock_owner4 and exist_lock_owner4),
 * LOCKU, LOCKT and FREE_STATEID against XDR words written out by hand from
 * RFC 8881 18.10-18.12 and 18.38 (RFC 5662's XDR), and a failure (no overrun)
 * in every buffer too small. Decoders: results built here word by word (a
 * lock stateid; LOCK4denied with its owner), decoded whole, and from every
 * truncation (-EBADMSG).
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

#include "engine/native/codec/nfs4lk.h"
#include "engine/native/rpc/xdrx.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define WIRE_WORDS 256

static int bad;		/* mismatches in the current test */

static void chk(int line, const char *what, uint64_t got, uint64_t want)
{
	if (got == want)
		return;
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
	.seqid = 0, .other = { 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0xee, 0xdd },
};
#define SID_A 3, 0xa0a1a2a3, 0xa4a5a6a7, 0xa8a9aaab
#define SID_B 0, 0x09080706, 0x05040302, 0x0100eedd
#define HI(v) (uint32_t)((uint64_t)(v) >> 32)
#define LO(v) (uint32_t)(v)
#define U64(v) HI(v), LO(v)

/* A lock-owner of 5 bytes (padded to 8 on the wire) under clientid 0x1122334455667788. */
static const struct nfs4_lock_owner owner5 = {
	.clientid = UINT64_C(0x1122334455667788), .owner = "lk-07", .owner_len = 5,
};
#define OWNER5 U64(0x1122334455667788), 5, 0x6c6b2d30, 0x37000000

static uint32_t wire[WIRE_WORDS];

/* One COMPOUND of the operations enc adds; its bytes after the header must be want[]. */
static void enc_case(int line, const char *name, bool (*enc)(struct nfs4_enc *e),
		     uint32_t nops, const uint32_t *want, size_t nwant)
{
	struct nfs4_enc e;
	u_int len, n;
	XDR x;

	memset(wire, 0xee, sizeof(wire));
	xdrmem_create(&x, (char *)wire, sizeof(wire), XDR_ENCODE);
	if (!nfs4_enc_begin(&e, &x, "", 1) || !enc(&e) || !nfs4_enc_end(&e)) {
		print_error("line %d: %s: the encoder failed in %zu bytes\n", line, name, sizeof(wire));
		bad++;
		return;
	}
	len = xdr_getpos(&x);
	chk(line, "operation count", xdrx_be32((uint8_t *)wire + 8), nops);
	if (len != 12 + 4 * nwant) {
		print_error("line %d: %s: %u bytes of operations, want %zu\n", line, name, len - 12,
			    4 * nwant);
		bad++;
	}
	for (size_t i = 0; i < nwant && 12 + 4 * i < len; i++) {
		uint32_t got = xdrx_be32((uint8_t *)wire + 12 + 4 * i);

		if (got != want[i]) {
			print_error("line %d: %s: word %zu: got 0x%08x, want 0x%08x\n", line, name, i,
				    got, want[i]);
			bad++;
		}
	}
	for (n = 0; n < len; n++) {
		char *buf = malloc(n ? n : 1);
		bool ok;

		xdrmem_create(&x, buf, n, XDR_ENCODE);
		ok = nfs4_enc_begin(&e, &x, "", 1) && enc(&e) && nfs4_enc_end(&e);
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

static bool e_lock_new(struct nfs4_enc *e)
{
	return nfs4_enc_lock_new(e, NFS4_WRITE_LT, false, UINT64_C(0x100000000) + 4096, 4096,
				 &sid_a, &owner5);
}

static bool e_lock_exist(struct nfs4_enc *e)
{
	return nfs4_enc_lock_exist(e, NFS4_READ_LT, true, 8192, NFS4_LOCK_TO_EOF, &sid_b);
}

static bool e_locku(struct nfs4_enc *e)
{
	return nfs4_enc_locku(e, NFS4_WRITE_LT, &sid_b, 0, NFS4_LOCK_TO_EOF);
}

static bool e_lockt(struct nfs4_enc *e)
{
	return nfs4_enc_lockt(e, NFS4_READ_LT, 65536, 4096, &owner5);
}

/* As the engine's teardown sends it: LOCKU of everything, then FREE_STATEID. */
static bool e_locku_free(struct nfs4_enc *e)
{
	return nfs4_enc_locku(e, NFS4_WRITE_LT, &sid_a, 0, NFS4_LOCK_TO_EOF) &&
	       nfs4_enc_free_stateid(e, &sid_a);
}

static void test_encoders(void **state)
{
	(void)state;
	bad = 0;
	/* LOCK: type, reclaim, offset, length, new_lock_owner TRUE, open_seqid, open stateid,
	 * lock_seqid, lock_owner4 */
	ENC_CASE(e_lock_new, 1, 12, 2, 0, U64(0x100001000), U64(4096), 1, 0, SID_A, 0, OWNER5);
	/* LOCK: new_lock_owner FALSE, lock stateid, lock_seqid */
	ENC_CASE(e_lock_exist, 1, 12, 1, 1, U64(8192), 0xffffffff, 0xffffffff, 0, SID_B, 0);
	/* LOCKU: type, seqid, lock stateid, offset, length */
	ENC_CASE(e_locku, 1, 14, 2, 0, SID_B, U64(0), 0xffffffff, 0xffffffff);
	/* LOCKT: type, offset, length, lock_owner4 */
	ENC_CASE(e_lockt, 1, 13, 1, U64(65536), U64(4096), OWNER5);
	ENC_CASE(e_locku_free, 2, 14, 2, 0, SID_A, U64(0), 0xffffffff, 0xffffffff, 45, SID_A);
	assert_int_equal(bad, 0);
}

static void test_encoder_refusals(void **state)
{
	struct nfs4_lock_owner big = owner5;
	static uint8_t name[NFS4LK_OWNER_MAX + 1];
	struct nfs4_enc e;
	XDR x;

	(void)state;
	bad = 0;
	xdrmem_create(&x, (char *)wire, sizeof(wire), XDR_ENCODE);
	CHECK("begin", nfs4_enc_begin(&e, &x, "", 1), true);
	CHECK("LOCK type 0 refused", nfs4_enc_lock_exist(&e, 0, false, 0, 1, &sid_a), false);
	xdrmem_create(&x, (char *)wire, sizeof(wire), XDR_ENCODE);
	CHECK("begin", nfs4_enc_begin(&e, &x, "", 1), true);
	CHECK("LOCKU type 5 refused", nfs4_enc_locku(&e, 5, &sid_a, 0, 1), false);
	big.owner = name;
	big.owner_len = sizeof(name);
	xdrmem_create(&x, (char *)wire, sizeof(wire), XDR_ENCODE);
	CHECK("begin", nfs4_enc_begin(&e, &x, "", 1), true);
	CHECK("LOCKT owner past 1024 bytes refused",
	      nfs4_enc_lockt(&e, NFS4_WRITE_LT, 0, 1, &big), false);
	assert_int_equal(bad, 0);
}

/* A decoder's input: words after the operation's status. */
static XDR dec_x;
static uint32_t dec_buf[64];

static XDR *dec_of(const uint32_t *w, size_t n, size_t bytes)
{
	for (size_t i = 0; i < n; i++)
		xdrx_put_be32((uint8_t *)&dec_buf[i], w[i]);
	xdrmem_create(&dec_x, (char *)dec_buf, (u_int)bytes, XDR_DECODE);
	return &dec_x;
}

static const uint32_t denied_words[] = {
	U64(0x2000), U64(4096), 2, U64(0x99), 5, 0x6f746865, 0x72000000,	/* "other" */
};

static void test_decoders(void **state)
{
	static const uint32_t sid_words[] = { 5, 0x01020304, 0x05060708, 0x090a0b0c };
	struct nfs4_lock_denied d;
	struct nfs4_stateid sid;
	size_t n;

	(void)state;
	bad = 0;
	/* LOCK granted: the lock stateid */
	memset(&sid, 0, sizeof(sid));
	CHECK("LOCK ok", nfs4_dec_lock(dec_of(sid_words, 4, 16), NFS4_OK, &sid, &d), 0);
	CHECK("LOCK ok: seqid", sid.seqid, 5);
	CHECK("LOCK ok: other[0]", sid.other[0], 1);
	CHECK("LOCK ok: other[11]", sid.other[11], 12);
	/* LOCK denied: the conflicting lock */
	memset(&d, 0, sizeof(d));
	CHECK("LOCK denied", nfs4_dec_lock(dec_of(denied_words, N(denied_words), sizeof(denied_words)),
					   NFS4ERR_DENIED, &sid, &d), 0);
	CHECK("denied: offset", d.offset, 0x2000);
	CHECK("denied: length", d.length, 4096);
	CHECK("denied: type", d.locktype, NFS4_WRITE_LT);
	CHECK("denied: clientid", d.clientid, 0x99);
	CHECK("denied: owner length", d.owner_len, 5);
	CHECK("denied: owner", d.owner && !memcmp(d.owner, "other", 5), true);
	/* LOCKT denied the same; NULL denied is fine */
	CHECK("LOCKT denied", nfs4_dec_lockt(dec_of(denied_words, N(denied_words), sizeof(denied_words)),
					     NFS4ERR_DENIED, NULL), 0);
	CHECK("LOCKT ok: nothing to read", nfs4_dec_lockt(dec_of(NULL, 0, 0), NFS4_OK, &d), 0);
	/* LOCKU: the stateid */
	CHECK("LOCKU ok", nfs4_dec_locku(dec_of(sid_words, 4, 16), NFS4_OK, &sid), 0);
	CHECK("LOCKU ok: seqid", sid.seqid, 5);
	/* Other statuses carry nothing */
	CHECK("LOCK GRACE: nothing", nfs4_dec_lock(dec_of(NULL, 0, 0), 10013, &sid, &d), 0);
	CHECK("LOCKU BAD_STATEID: nothing", nfs4_dec_locku(dec_of(NULL, 0, 0), 10025, &sid), 0);
	/* Every truncation: -EBADMSG */
	for (n = 0; n < 16; n += 4)
		CHECK("LOCK ok truncated", nfs4_dec_lock(dec_of(sid_words, 4, n), NFS4_OK, &sid, &d),
		      -EBADMSG);
	for (n = 0; n < 16; n += 4)
		CHECK("LOCKU ok truncated", nfs4_dec_locku(dec_of(sid_words, 4, n), NFS4_OK, &sid),
		      -EBADMSG);
	for (n = 0; n < sizeof(denied_words); n += 4) {
		CHECK("LOCK denied truncated",
		      nfs4_dec_lock(dec_of(denied_words, N(denied_words), n), NFS4ERR_DENIED, &sid, &d),
		      -EBADMSG);
		CHECK("LOCKT denied truncated",
		      nfs4_dec_lockt(dec_of(denied_words, N(denied_words), n), NFS4ERR_DENIED, &d),
		      -EBADMSG);
	}
	/* An owner longer than NFS4_OPAQUE_LIMIT: garbage */
	{
		uint32_t w[N(denied_words)];

		memcpy(w, denied_words, sizeof(w));
		w[7] = 1025;
		CHECK("denied owner of 1025 bytes", nfs4_dec_lockt(dec_of(w, N(w), sizeof(w)),
								   NFS4ERR_DENIED, &d), -EBADMSG);
	}
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encoders),
		cmocka_unit_test(test_encoder_refusals),
		cmocka_unit_test(test_decoders),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
