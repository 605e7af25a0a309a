/*
 * libFuzzer target: a reply on an RPCSEC_GSS connection, as the native
 * engine reads it (native_call.c's gss_reply, native_gss.c's init_reply):
 * the RPC reply header and its verifier (rpc/rpc.c), then rpc/gss.c's
 * verifier check, the body's opening for each service, and the context
 * creation's reply (rpc_gss_decode_init, rpc_gss_made). The input:
 *
 *   byte 0: bits 0-1 what the record is read as: 0 a context creation's
 *           reply, 1 a data reply with service none, 2 integrity, 3 privacy;
 *   byte 1: the call's sequence number (the verifier and the body carry it);
 *   the rest: the whole record (xid onwards, record mark removed).
 *
 * The GSS context is the one a connection holds before its context is made
 * (GSS_C_NO_CONTEXT): no fake context is allowed, and MIT's GSS-API needs a
 * KDC-made one to verify a MIC or unwrap a token. So what is covered is the
 * bytes' framing before and around every GSS call, with the real functions:
 *   - rpc_decode_reply: the verifier's flavor, place and size inside the
 *     record (at most 400 bytes), the reply's status and its -errno;
 *   - rpc_gss_check_verf: no verifier is accepted without a context;
 *   - rpc_gss_open: service none gives the results in place, unchanged;
 *     integrity and privacy give -EBADMSG exactly when RFC 2203's framing
 *     does not fit the record (a model of it below: the body's length, then
 *     integrity's MIC length after the padded body) and -EACCES otherwise
 *     (the MIC or the wrap token does not check), and leave the record as
 *     it was;
 *   - rpc_gss_decode_init: the handle (at most 128 bytes) and the token (at
 *     most 64 KiB) inside the record, and rpc_gss_made refusing a window
 *     whose verifier does not check, with the context state left untouched.
 * Not covered (it needs a verified MIC or an unwrapped token): what follows a
 * GSS success: the sequence number check after the MIC or the unwrap (and
 * the realignment of unwrapped data), rpc_gss_made taking the handle and
 * window, and the sealing of calls (bytes nfsload makes, not reads).
 */
#include "fuzz_dec.h"
#include "engine/native/rpc/gss.h"
#include "engine/native/rpc/rpc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define AUTH_BYTES_MAX 400	/* RFC 5531's opaque_auth body limit */

/* RFC 2203 5.3.2.2-3: the opening's verdict when no GSS call can succeed. */
static int model_open(enum rpc_gss_svc svc, const uint8_t *rec, size_t len, size_t pos)
{
	uint32_t l, ml;
	size_t at;

	if (svc == RPC_GSS_NONE)
		return 0;
	if (len - pos < 4)
		return -EBADMSG;
	l = xdrx_be32(rec + pos);
	if (l > len - pos - 4)
		return -EBADMSG;
	if (svc == RPC_GSS_PRIVACY)
		return -EACCES;
	at = pos + 4 + (size_t)l + xdrx_pad(l);
	if (at + 4 > len)
		return -EBADMSG;
	ml = xdrx_be32(rec + at);
	if (ml > len - at - 4)
		return -EBADMSG;
	return -EACCES;
}

static void check_init(const struct rpc_gss_init_res *r, XDR *x, const uint8_t *rec, size_t len,
		       const struct rpc_reply *rep, enum rpc_gss_svc svc)
{
	struct rpc_gss g, before;

	FUZZ_CHECK(r->handle_len <= RPC_GSS_HANDLE_MAX && r->token_len <= RPC_GSS_TOKEN_MAX);
	FUZZ_CHECK(!r->handle_len || (r->handle >= rec && r->handle + r->handle_len <= rec + len));
	FUZZ_CHECK(!r->token_len || (r->token >= rec && r->token + r->token_len <= rec + len));
	FUZZ_CHECK(xdr_getpos(x) <= len && xdr_getpos(x) % 4 == 0);
	rpc_gss_init(&g, svc);
	before = g;
	FUZZ_CHECK(rpc_gss_made(&g, r, rec + rep->verf_pos, rep->verf_len) == -EACCES);
	FUZZ_CHECK(memcmp(&g, &before, sizeof(g)) == 0 && !g.ready);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned mode;
	uint32_t seq;
	uint8_t *rec, *orig;
	size_t len;
	struct rpc_reply rep;
	struct rpc_gss g;
	XDR x;
	int rc;

	if (size < 2)
		return 0;
	mode = data[0] & 3;
	seq = data[1];
	len = size - 2;
	rec = malloc(len ? len : 1);
	orig = malloc(len ? len : 1);
	if (!rec || !orig)
		abort();
	memcpy(rec, data + 2, len);
	memcpy(orig, data + 2, len);

	xdrmem_create(&x, (char *)rec, (u_int)len, XDR_DECODE);
	rc = rpc_decode_reply(&x, &rep);
	FUZZ_CHECK(rc == 0 || rc == -EBADMSG);
	if (rc)
		goto out;
	FUZZ_CHECK(rep.stat == RPC_REPLY_OK || rep.stat == RPC_REPLY_DENIED ||
		   rep.stat == RPC_REPLY_ERROR);
	rc = rpc_reply_errno(&rep);
	FUZZ_CHECK((rep.stat == RPC_REPLY_OK) == (rc == 0));
	if (rep.stat == RPC_REPLY_DENIED && rep.detail)
		FUZZ_CHECK(rc == -EACCES);	/* AUTH_ERROR, GSS's CREDPROBLEM/CTXPROBLEM among them */
	if (rep.stat != RPC_REPLY_OK)
		goto out;
	FUZZ_CHECK(rep.verf_len <= AUTH_BYTES_MAX && rep.verf_pos <= len &&
		   rep.verf_len <= len - rep.verf_pos && rep.verf_pos + rep.verf_len <= xdr_getpos(&x));

	if (mode == 0) {
		struct rpc_gss_init_res r;
		u_int at = xdr_getpos(&x);

		rc = rpc_gss_decode_init(&x, &r);
		FUZZ_CHECK(rc == 0 || rc == -EBADMSG);
		if (rc == 0)
			check_init(&r, &x, rec, len, &rep, RPC_GSS_INTEGRITY);
		else
			FUZZ_CHECK(xdr_getpos(&x) >= at);
	} else {
		enum rpc_gss_svc svc = (enum rpc_gss_svc)mode;
		u_int pos = xdr_getpos(&x);
		uint8_t *res = NULL;
		size_t n = 0;
		int want = model_open(svc, rec, len, pos);

		rpc_gss_init(&g, svc);
		FUZZ_CHECK(rpc_gss_check_verf(&g, seq, rec + rep.verf_pos, rep.verf_len) == -EACCES);
		rc = rpc_gss_open(&g, seq, rec, len, pos, &res, &n);
		if (rc != want)
			fprintf(stderr, "rpc_gss_open: %d, the framing says %d\n", rc, want);
		FUZZ_CHECK(rc == want);
		if (rc == 0)
			FUZZ_CHECK(res == rec + pos && n == len - pos);
		/* in place, but nothing is changed by what fails (or by service none) */
		FUZZ_CHECK(memcmp(rec, orig, len) == 0);
	}
out:
	xdr_destroy(&x);
	free(rec);
	free(orig);
	return 0;
}
