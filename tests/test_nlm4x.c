/*
 * nlm4x unit tests. Encoders: TEST, LOCK and UNLOCK are encoded, then read
 * back field by field with libtirpc's own xdr_* calls in nlm_prot.x's order;
 * a buffer too small must fail. Decoders: nlm4_res and nlm4_testres are built
 * here with xdr_* calls (each status; DENIED with its holder), decoded from an
 * aligned and an unaligned copy, then cut at every length: a cut record is
 * -EBADMSG, never a status read past its end (run it under ASan).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "engine/native/codec/nlm4x.h"
#include "engine/native/rpc/xdrx.h"

static int fails;
static const char *cur;

static void check_num(const char *what, uint64_t got, uint64_t want)
{
	if (got != want) {
		print_error("%s: %s: got %" PRIu64 " (0x%" PRIx64 "), want %" PRIu64 " (0x%" PRIx64
			    ")\n", cur, what, got, got, want, want);
		fails++;
	}
}

static void check_bytes(const char *what, const void *got, size_t got_len, const void *want,
			size_t want_len)
{
	if (got_len != want_len || memcmp(got, want, want_len) != 0) {
		print_error("%s: %s: %zu bytes, want %zu (or the bytes differ)\n", cur, what,
			    got_len, want_len);
		fails++;
	}
}

static struct nfs_fh fh = { .len = 24 };
static const uint8_t oh[] = { 'o', 'w', 'n', 'e', 'r', 1, 2 };	/* 7: padded on the wire */
static const uint8_t cookie[] = { 9, 8, 7, 6, 5 };

static const struct nlm4_lock lk = {
	.caller_name = "nfsload-1234", .fh = &fh, .oh = oh, .oh_len = sizeof(oh),
	.svid = -5, .offset = UINT64_C(0x123456789a), .len = 4096,
};

static void read_netobj(XDR *x, const char *what, const void *want, size_t want_len)
{
	char buf[NLM4_MAXNETOBJ], *p = buf;
	u_int n = 0;

	if (!xdr_bytes(x, &p, &n, sizeof(buf))) {
		print_error("%s: %s: not an opaque\n", cur, what);
		fails++;
		return;
	}
	check_bytes(what, buf, n, want, want_len);
}

static void read_u32(XDR *x, const char *what, uint32_t want)
{
	u_int v = 0xdeadbeef;

	if (!xdr_u_int(x, &v)) {
		print_error("%s: %s: short\n", cur, what);
		fails++;
		return;
	}
	check_num(what, v, want);
}

static void read_lock(XDR *x)
{
	char name[NLM4_MAXSTRLEN + 1], *p = name;
	uint64_t off = 0, len = 0;

	if (!xdr_string(x, &p, NLM4_MAXSTRLEN)) {
		print_error("%s: caller_name: not a string\n", cur);
		fails++;
		return;
	}
	check_bytes("caller_name", name, strlen(name), lk.caller_name, strlen(lk.caller_name));
	read_netobj(x, "fh", fh.data, fh.len);
	read_netobj(x, "oh", oh, sizeof(oh));
	read_u32(x, "svid", (uint32_t)lk.svid);
	if (!xdr_uint64_t(x, &off) || !xdr_uint64_t(x, &len)) {
		print_error("%s: range: short\n", cur);
		fails++;
		return;
	}
	check_num("l_offset", off, lk.offset);
	check_num("l_len", len, lk.len);
}

enum { ENC_TEST, ENC_LOCK, ENC_UNLOCK };

static bool encode(int which, uint8_t *buf, size_t len, bool excl, u_int *pos)
{
	XDR x;
	bool ok;

	xdrmem_create(&x, (char *)buf, (u_int)len, XDR_ENCODE);
	if (which == ENC_TEST)
		ok = nlm4_enc_test(&x, cookie, sizeof(cookie), excl, &lk);
	else if (which == ENC_LOCK)
		ok = nlm4_enc_lock(&x, cookie, sizeof(cookie), excl, &lk);
	else
		ok = nlm4_enc_unlock(&x, cookie, sizeof(cookie), &lk);
	*pos = xdr_getpos(&x);
	xdr_destroy(&x);
	return ok;
}

static void test_encoders(void **state)
{
	static const char *const names[] = { "TEST", "LOCK", "UNLOCK" };
	_Alignas(8) uint8_t buf[512];

	(void)state;
	fails = 0;
	for (unsigned i = 0; i < 24; i++)
		fh.data[i] = (uint8_t)(0xa0 + i);
	for (int which = ENC_TEST; which <= ENC_UNLOCK; which++) {
		for (int excl = 0; excl < 2; excl++) {
			u_int end = 0, need;
			XDR x;

			cur = names[which];
			if (!encode(which, buf, sizeof(buf), excl, &end)) {
				print_error("%s: encode failed\n", cur);
				fails++;
				continue;
			}
			xdrmem_create(&x, (char *)buf, end, XDR_DECODE);
			read_netobj(&x, "cookie", cookie, sizeof(cookie));
			if (which == ENC_LOCK)
				read_u32(&x, "block", 0);
			if (which != ENC_UNLOCK)
				read_u32(&x, "exclusive", (uint32_t)excl);
			read_lock(&x);
			if (which == ENC_LOCK) {
				read_u32(&x, "reclaim", 0);
				read_u32(&x, "state", 0);
			}
			check_num("bytes left", end - xdr_getpos(&x), 0);
			xdr_destroy(&x);
			/* Every buffer short of what it needs refuses it. */
			need = end;
			for (u_int k = 0; k < need; k += 4) {
				if (encode(which, buf, k, excl, &end)) {
					print_error("%s: encoded into %u bytes of %u\n", cur, k, need);
					fails++;
				}
			}
		}
	}
	assert_int_equal(fails, 0);
}

/* A reply's results: cookie, stat, and a holder when testres and DENIED. */
static size_t build(uint8_t *buf, size_t len, uint32_t stat, bool testres)
{
	char *c = (char *)cookie, *o = (char *)oh;
	u_int cl = sizeof(cookie), ol = sizeof(oh);
	uint64_t off = 777, l = 0;
	u_int excl = 1, svid = 42;
	XDR x;

	xdrmem_create(&x, (char *)buf, (u_int)len, XDR_ENCODE);
	assert_true(xdr_bytes(&x, &c, &cl, 1024) && xdr_u_int(&x, &stat));
	if (testres && stat == NLM4_DENIED)
		assert_true(xdr_u_int(&x, &excl) && xdr_u_int(&x, &svid) &&
			    xdr_bytes(&x, &o, &ol, 1024) && xdr_uint64_t(&x, &off) &&
			    xdr_uint64_t(&x, &l));
	len = xdr_getpos(&x);
	xdr_destroy(&x);
	return len;
}

static int decode(const uint8_t *rec, size_t n, bool testres, struct nlm4_holder *h,
		  const uint8_t **ck, uint32_t *ckl)
{
	XDR x;
	int rc;

	xdrx_create(&x, (void *)rec, n, XDR_DECODE);
	rc = testres ? nlm4_dec_testres(&x, ck, ckl, h) : nlm4_dec_res(&x, ck, ckl);
	xdr_destroy(&x);
	return rc;
}

static void test_decoders(void **state)
{
	_Alignas(8) uint8_t buf[256], copy[260];

	(void)state;
	fails = 0;
	for (int testres = 0; testres < 2; testres++) {
		for (uint32_t stat = NLM4_GRANTED; stat <= NLM4_FAILED + 1; stat++) {
			size_t n = build(buf, sizeof(buf), stat, testres);
			int want = stat > NLM4_FAILED ? -EBADMSG : (int)stat;

			cur = testres ? "testres" : "res";
			for (int a = 0; a < 2; a++) {
				struct nlm4_holder h = { 0 };
				const uint8_t *ck = NULL;
				uint32_t ckl = 0;
				int rc;

				memcpy(copy + a, buf, n);
				rc = decode(copy + a, n, testres, &h, &ck, &ckl);
				check_num("status", (uint64_t)(int64_t)rc, (uint64_t)(int64_t)want);
				if (rc < 0)
					continue;
				check_bytes("cookie", ck, ckl, cookie, sizeof(cookie));
				if (testres && stat == NLM4_DENIED) {
					check_num("holder exclusive", h.exclusive, 1);
					check_num("holder svid", (uint64_t)h.svid, 42);
					check_bytes("holder oh", h.oh, h.oh_len, oh, sizeof(oh));
					check_num("holder offset", h.offset, 777);
					check_num("holder len", h.len, 0);
				}
			}
			/* Cut anywhere: garbage, never a status from past the end. */
			for (size_t k = 0; k < n && want >= 0; k++) {
				int rc;

				memcpy(copy + 1, buf, k);
				rc = decode(copy + 1, k, testres, NULL, NULL, NULL);
				if (rc != -EBADMSG) {
					print_error("%s stat %u cut at %zu of %zu: rc %d, want -EBADMSG\n",
						    cur, stat, k, n, rc);
					fails++;
				}
			}
		}
	}
	assert_int_equal(fails, 0);
}

static void test_errno(void **state)
{
	(void)state;
	assert_int_equal(nlm4_errno(NLM4_DENIED_NOLOCKS), -ENOLCK);
	assert_int_equal(nlm4_errno(NLM4_STALE_FH), -ESTALE);
	assert_int_equal(nlm4_errno(NLM4_ROFS), -EROFS);
	assert_int_equal(nlm4_errno(NLM4_FBIG), -EFBIG);
	assert_int_equal(nlm4_errno(NLM4_FAILED), -EIO);
	assert_int_not_equal(nlm4_errno(NLM4_DEADLCK), -EDEADLK);
	assert_string_equal(nlm4_stat_name(NLM4_DENIED_GRACE_PERIOD), "NLM4_DENIED_GRACE_PERIOD");
	assert_string_equal(nlm4_stat_name(99), "NLM4_?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encoders),
		cmocka_unit_test(test_decoders),
		cmocka_unit_test(test_errno),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
