/*
 * nfs4x unit tests. Encoders: each COMPOUND is read back with plain xdr_*
 * calls, field by field, and must fail (never overrun) in every buffer too
 * small for it. Decoders: replies built here with plain xdr_* calls, every
 * union arm the engine can meet; each valid reply also decoded from every
 * truncation (-EBADMSG), from an unaligned copy, and with bytes mutated
 * (no crash: run under ASan).
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

#include "engine/native/codec/nfs4x.h"
#include "engine/native/rpc/xdrx.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define WIRE_MAX 4096

static int bad;		/* mismatches in the current test */
static bool quiet;	/* decoding garbage on purpose: values are not checked */

static void chk(int line, const char *what, uint64_t got, uint64_t want)
{
	if (quiet || got == want)
		return;
	print_error("line %d: %s: got %" PRIu64 " (0x%" PRIx64 "), want %" PRIu64
		    " (0x%" PRIx64 ")\n", line, what, got, got, want, want);
	bad++;
}
#define CHECK(what, got, want) chk(__LINE__, what, (uint64_t)(got), (uint64_t)(want))

static void hex(char *out, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n && i < 40; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
	out[2 * i] = '\0';
}

static void chk_bytes(int line, const char *what, const void *got, const void *want, size_t n)
{
	char g[81], w[81];

	if (quiet || memcmp(got, want, n) == 0)
		return;
	hex(g, got, n);
	hex(w, want, n);
	print_error("line %d: %s: got %s, want %s\n", line, what, g, w);
	bad++;
}
#define CHECK_BYTES(what, got, want, n) chk_bytes(__LINE__, what, got, want, n)

/* Reading back what an encoder wrote. */
static uint32_t r32(int line, XDR *x)
{
	uint32_t v = 0xdeadbeef;

	if (!xdr_u_int(x, &v)) {
		print_error("line %d: record ends early\n", line);
		bad++;
	}
	return v;
}

static uint64_t r64(int line, XDR *x)
{
	uint64_t v = 0xdeadbeef;

	if (!xdr_uint64_t(x, &v)) {
		print_error("line %d: record ends early\n", line);
		bad++;
	}
	return v;
}
#define E32(x, what, want) chk(__LINE__, what, r32(__LINE__, x), want)
#define E64(x, what, want) chk(__LINE__, what, r64(__LINE__, x), want)

static void e_fixed(int line, XDR *x, const char *what, const void *want, uint32_t n)
{
	uint8_t got[256];

	if (n > sizeof(got) || !xdr_opaque(x, (char *)got, n)) {
		print_error("line %d: %s: record ends early\n", line, what);
		bad++;
		return;
	}
	chk_bytes(line, what, got, want, n);
}

static void e_opaque(int line, XDR *x, const char *what, const void *want, uint32_t n)
{
	uint32_t len = r32(line, x);

	chk(line, what, len, n);
	if (len == n)
		e_fixed(line, x, what, want, n);
}
#define E_FIXED(x, what, want, n) e_fixed(__LINE__, x, what, want, n)
#define E_OPAQUE(x, what, want, n) e_opaque(__LINE__, x, what, want, n)
#define E_STR(x, what, s) e_opaque(__LINE__, x, what, s, (uint32_t)strlen(s))

/* COMPOUND4args' header. */
#define E_HEAD(x, tag, nops) do { \
	E_STR(x, "tag", tag); \
	E32(x, "minorversion", 1); \
	E32(x, "operation count", nops); \
} while (0)

/* Building replies. */
static void w32(XDR *x, uint32_t v)
{
	xdr_u_int(x, &v);
}

static void w64(XDR *x, uint64_t v)
{
	xdr_uint64_t(x, &v);
}

static void wfixed(XDR *x, const void *p, uint32_t n)
{
	xdr_opaque(x, (char *)p, n);
}

static void wopaque(XDR *x, const void *p, uint32_t n)
{
	w32(x, n);
	wfixed(x, p, n);
}

static void wstr(XDR *x, const char *s)
{
	wopaque(x, s, (uint32_t)strlen(s));
}

static void w_head(XDR *x, uint32_t status, uint32_t nres)
{
	w32(x, status);
	wstr(x, "tag-7");
	w32(x, nres);
}

static void w_op(XDR *x, uint32_t op, uint32_t status)
{
	w32(x, op);
	w32(x, status);
}

static void w_cinfo(XDR *x, uint64_t before, uint64_t after)
{
	w32(x, 1);
	w64(x, before);
	w64(x, after);
}

static const uint8_t sessionid[16] = {
	0x10, 0x21, 0x32, 0x43, 0x54, 0x65, 0x76, 0x87,
	0x98, 0xa9, 0xba, 0xcb, 0xdc, 0xed, 0xfe, 0x0f,
};
static const uint8_t verf8[8] = { 1, 2, 3, 4, 0xfc, 0xfd, 0xfe, 0xff };
static const struct nfs4_stateid stateid = {
	.seqid = 3, .other = { 0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xab },
};
static const struct nfs4_stateid stateid2 = {
	.seqid = 0xfffffffe, .other = { 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0xee, 0xdd },
};
static const struct nfs_fh fh37 = {
	.len = 37,
	.data = { 1, 0, 1, 0, 0x7f, 0x80, 0xff, 0, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9,
		  9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 0x42 },
};
#define CLIENTID UINT64_C(0x1122334455667788)

static void e_stateid(int line, XDR *x, const struct nfs4_stateid *sid)
{
	chk(line, "stateid.seqid", r32(line, x), sid->seqid);
	e_fixed(line, x, "stateid.other", sid->other, 12);
}
#define E_STATEID(x, sid) e_stateid(__LINE__, x, sid)

static void e_sequence(int line, XDR *x, uint32_t seqid, uint32_t slot, uint32_t highest,
		       uint32_t cachethis)
{
	chk(line, "op SEQUENCE", r32(line, x), OP4_SEQUENCE);
	e_fixed(line, x, "sa_sessionid", sessionid, 16);
	chk(line, "sa_sequenceid", r32(line, x), seqid);
	chk(line, "sa_slotid", r32(line, x), slot);
	chk(line, "sa_highest_slotid", r32(line, x), highest);
	chk(line, "sa_cachethis", r32(line, x), cachethis);
}
#define E_SEQUENCE(x, seqid, slot, highest, cache) e_sequence(__LINE__, x, seqid, slot, highest, cache)

/* ---- encoders ---- */

struct enc_case {
	const char *name;
	bool (*enc)(XDR *x);		/* the whole COMPOUND */
	void (*check)(XDR *d);		/* reads it back */
};

static bool enc_exchange_id(XDR *x)
{
	struct nfs4_enc e;

	return nfs4_enc_begin(&e, x, "nfsload", 1) &&
	       nfs4_enc_exchange_id(&e, verf8, "nfsload-host-1234", 17, 0x00010000) &&
	       nfs4_enc_end(&e);
}

static void chk_exchange_id(XDR *d)
{
	E_HEAD(d, "nfsload", 1);
	E32(d, "op", OP4_EXCHANGE_ID);
	E_FIXED(d, "co_verifier", verf8, 8);
	E_STR(d, "co_ownerid", "nfsload-host-1234");
	E32(d, "eia_flags", 0x00010000);
	E32(d, "spa_how (SP4_NONE)", 0);
	E32(d, "eia_client_impl_id count", 0);
}

static const struct nfs4_chan_attrs fore = {
	.headerpadsize = 0, .maxrequestsize = 1049620, .maxresponsesize = 1049480,
	.maxresponsesize_cached = 8192, .maxoperations = 16, .maxrequests = 64,
};

static bool enc_create_session(XDR *x)
{
	struct nfs4_enc e;

	return nfs4_enc_begin(&e, x, "", 1) &&
	       nfs4_enc_create_session(&e, CLIENTID, 9, &fore) && nfs4_enc_end(&e);
}

static void chk_create_session(XDR *d)
{
	E_HEAD(d, "", 1);
	E32(d, "op", OP4_CREATE_SESSION);
	E64(d, "csa_clientid", CLIENTID);
	E32(d, "csa_sequence", 9);
	E32(d, "csa_flags", 0);
	E32(d, "fore headerpadsize", 0);
	E32(d, "fore maxrequestsize", 1049620);
	E32(d, "fore maxresponsesize", 1049480);
	E32(d, "fore maxresponsesize_cached", 8192);
	E32(d, "fore maxoperations", 16);
	E32(d, "fore maxrequests", 64);
	E32(d, "fore rdma_ird count", 0);
	E32(d, "back headerpadsize", 0);
	E32(d, "back maxrequestsize", 4096);
	E32(d, "back maxresponsesize", 4096);
	E32(d, "back maxresponsesize_cached", 0);
	E32(d, "back maxoperations", 2);
	E32(d, "back maxrequests", 1);
	E32(d, "back rdma_ird count", 0);
	E32(d, "csa_cb_program", 0x40000000);
	E32(d, "csa_sec_parms count", 1);
	E32(d, "cb_secflavor (AUTH_NONE)", 0);
}

static bool enc_session_ops(XDR *x)
{
	struct nfs4_enc e;

	return nfs4_enc_begin(&e, x, "session", 1) &&
	       nfs4_enc_sequence(&e, sessionid, 1, 0, 0, false) &&
	       nfs4_enc_reclaim_complete(&e) && nfs4_enc_destroy_session(&e, sessionid) &&
	       nfs4_enc_destroy_clientid(&e, CLIENTID) && nfs4_enc_bind_conn(&e, sessionid) &&
	       nfs4_enc_end(&e);
}

static void chk_session_ops(XDR *d)
{
	E_HEAD(d, "session", 5);
	E_SEQUENCE(d, 1, 0, 0, 0);
	E32(d, "op", OP4_RECLAIM_COMPLETE);
	E32(d, "rca_one_fs", 0);
	E32(d, "op", OP4_DESTROY_SESSION);
	E_FIXED(d, "dsa_sessionid", sessionid, 16);
	E32(d, "op", OP4_DESTROY_CLIENTID);
	E64(d, "dca_clientid", CLIENTID);
	E32(d, "op", OP4_BIND_CONN_TO_SESSION);
	E_FIXED(d, "bctsa_sessid", sessionid, 16);
	E32(d, "bctsa_dir (CDFC4_FORE)", 1);
	E32(d, "bctsa_use_conn_in_rdma_mode", 0);
}

/* The export's path as the URL may give it, then a name: one LOOKUP per name, the count. */
static bool enc_lookup_path(XDR *x)
{
	static const char path[] = "//export/work.d/ignored";
	struct nfs4_enc e;
	uint32_t n = 0;

	return nfs4_enc_begin(&e, x, "root", 1) &&
	       nfs4_enc_sequence(&e, sessionid, 77, 2, 9, false) && nfs4_enc_putrootfh(&e) &&
	       nfs4_enc_lookup_path(&e, path, 9, &n) && n == 1 &&
	       nfs4_enc_lookup_path(&e, path + 8, 7, &n) && n == 2 &&
	       nfs4_enc_lookup_path(&e, "///", 3, &n) && n == 2 &&
	       nfs4_enc_getfh(&e) && nfs4_enc_getattr(&e) && nfs4_enc_access(&e, 0x3f) &&
	       nfs4_enc_end(&e);
}

static void chk_lookup_path(XDR *d)
{
	E_HEAD(d, "root", 7);
	E_SEQUENCE(d, 77, 2, 9, 0);
	E32(d, "op", OP4_PUTROOTFH);
	E32(d, "op", OP4_LOOKUP);
	E_STR(d, "objname", "export");
	E32(d, "op", OP4_LOOKUP);
	E_STR(d, "objname", "work.d");
	E32(d, "op", OP4_GETFH);
	E32(d, "op", OP4_GETATTR);
	E32(d, "attr_request words", 2);
	E32(d, "attr_request[0] (type, size, fileid)", (1u << 1) | (1u << 4) | (1u << 20));
	E32(d, "attr_request[1] (mode)", 1u << 1);
	E32(d, "op", OP4_ACCESS);
	E32(d, "access", 0x3f);
}

/* The one the engine sends most: SEQUENCE, PUTFH, WRITE (the data follows the buffer). */
static bool enc_write(XDR *x)
{
	struct nfs4_enc e;

	return nfs4_enc_begin(&e, x, "", 1) &&
	       nfs4_enc_sequence(&e, sessionid, 0xfffffffe, 3, 5, true) &&
	       nfs4_enc_putfh(&e, &fh37) &&
	       nfs4_enc_write(&e, &stateid, (UINT64_C(1) << 40) + 7, 2, 65536) &&
	       nfs4_enc_end(&e);
}

static void chk_write(XDR *d)
{
	E_HEAD(d, "", 3);
	E_SEQUENCE(d, 0xfffffffe, 3, 5, 1);
	E32(d, "op", OP4_PUTFH);
	E_OPAQUE(d, "object", fh37.data, fh37.len);
	E32(d, "op", OP4_WRITE);
	E_STATEID(d, &stateid);
	E64(d, "offset", (UINT64_C(1) << 40) + 7);
	E32(d, "stable (FILE_SYNC4)", 2);
	E32(d, "data length", 65536);
}

static bool enc_open_create(XDR *x)
{
	struct nfs4_enc e;

	return nfs4_enc_begin(&e, x, "open", 1) &&
	       nfs4_enc_sequence(&e, sessionid, 5, 0, 0, false) && nfs4_enc_putfh(&e, &fh37) &&
	       nfs4_enc_open(&e, 0, CLIENTID, "owner-7", 7, "f.0001", true, 0644) &&
	       nfs4_enc_getfh(&e) && nfs4_enc_getattr(&e) && nfs4_enc_end(&e);
}

static void chk_open_create(XDR *d)
{
	E_HEAD(d, "open", 5);
	E_SEQUENCE(d, 5, 0, 0, 0);
	E32(d, "op", OP4_PUTFH);
	E_OPAQUE(d, "object", fh37.data, fh37.len);
	E32(d, "op", OP4_OPEN);
	E32(d, "seqid", 0);
	E32(d, "share_access (BOTH | WANT_NO_DELEG)", 0x0403);
	E32(d, "share_deny", 0);
	E64(d, "owner.clientid", CLIENTID);
	E_OPAQUE(d, "owner.owner", "owner-7", 7);
	E32(d, "opentype (OPEN4_CREATE)", 1);
	E32(d, "createmode (UNCHECKED4)", 0);
	E32(d, "createattrs bitmap words", 2);
	E32(d, "createattrs bitmap[0]", 0);
	E32(d, "createattrs bitmap[1] (mode)", 2);
	E32(d, "attrlist length", 4);
	E32(d, "mode", 0644);
	E32(d, "claim (CLAIM_NULL)", 0);
	E_STR(d, "file", "f.0001");
	E32(d, "op", OP4_GETFH);
	E32(d, "op", OP4_GETATTR);
	E32(d, "attr_request words", 2);
	E32(d, "attr_request[0]", 0x100012);
	E32(d, "attr_request[1]", 2);
}

static bool enc_open_read_close(XDR *x)
{
	struct nfs4_enc e;

	return nfs4_enc_begin(&e, x, "rd", 1) && nfs4_enc_putfh(&e, &fh37) &&
	       nfs4_enc_open(&e, 4, 7, "o", 1, "existing", false, 0) &&
	       nfs4_enc_read(&e, &stateid2, 8192, 1048576) &&
	       nfs4_enc_commit(&e, 4096, 12288) && nfs4_enc_close(&e, 0, &stateid2) &&
	       nfs4_enc_end(&e);
}

static void chk_open_read_close(XDR *d)
{
	E_HEAD(d, "rd", 5);
	E32(d, "op", OP4_PUTFH);
	E_OPAQUE(d, "object", fh37.data, fh37.len);
	E32(d, "op", OP4_OPEN);
	E32(d, "seqid", 4);
	E32(d, "share_access", 0x0403);
	E32(d, "share_deny", 0);
	E64(d, "owner.clientid", 7);
	E_OPAQUE(d, "owner.owner", "o", 1);
	E32(d, "opentype (OPEN4_NOCREATE)", 0);
	E32(d, "claim (CLAIM_NULL)", 0);
	E_STR(d, "file", "existing");
	E32(d, "op", OP4_READ);
	E_STATEID(d, &stateid2);
	E64(d, "offset", 8192);
	E32(d, "count", 1048576);
	E32(d, "op", OP4_COMMIT);
	E64(d, "offset", 4096);
	E32(d, "count", 12288);
	E32(d, "op", OP4_CLOSE);
	E32(d, "seqid", 0);
	E_STATEID(d, &stateid2);
}

static bool enc_namespace(XDR *x)
{
	struct nfs4_enc e;

	return nfs4_enc_begin(&e, x, "ns", 1) && nfs4_enc_putfh(&e, &fh37) &&
	       nfs4_enc_remove(&e, "a") && nfs4_enc_mkdir(&e, "dir-12", 0755) &&
	       nfs4_enc_savefh(&e) && nfs4_enc_putfh(&e, &fh37) &&
	       nfs4_enc_rename(&e, "x", "yy") && nfs4_enc_restorefh(&e) && nfs4_enc_end(&e);
}

static void chk_namespace(XDR *d)
{
	E_HEAD(d, "ns", 7);
	E32(d, "op", OP4_PUTFH);
	E_OPAQUE(d, "object", fh37.data, fh37.len);
	E32(d, "op", OP4_REMOVE);
	E_STR(d, "target", "a");
	E32(d, "op", OP4_CREATE);
	E32(d, "objtype (NF4DIR)", 2);
	E_STR(d, "objname", "dir-12");
	E32(d, "createattrs bitmap words", 2);
	E32(d, "createattrs bitmap[0]", 0);
	E32(d, "createattrs bitmap[1]", 2);
	E32(d, "attrlist length", 4);
	E32(d, "mode", 0755);
	E32(d, "op", OP4_SAVEFH);
	E32(d, "op", OP4_PUTFH);
	E_OPAQUE(d, "object", fh37.data, fh37.len);
	E32(d, "op", OP4_RENAME);
	E_STR(d, "oldname", "x");
	E_STR(d, "newname", "yy");
	E32(d, "op", OP4_RESTOREFH);
}

static bool enc_readdir(XDR *x)
{
	struct nfs4_enc e;

	return nfs4_enc_begin(&e, x, "ls", 1) && nfs4_enc_putfh(&e, &fh37) &&
	       nfs4_enc_readdir(&e, UINT64_C(0x7fffffff00000003), verf8, 8192, 32768) &&
	       nfs4_enc_end(&e);
}

static void chk_readdir(XDR *d)
{
	E_HEAD(d, "ls", 2);
	E32(d, "op", OP4_PUTFH);
	E_OPAQUE(d, "object", fh37.data, fh37.len);
	E32(d, "op", OP4_READDIR);
	E64(d, "cookie", UINT64_C(0x7fffffff00000003));
	E_FIXED(d, "cookieverf", verf8, 8);
	E32(d, "dircount", 8192);
	E32(d, "maxcount", 32768);
	E32(d, "attr_request words", 1);
	E32(d, "attr_request[0] (type, rdattr_error)", (1u << 1) | (1u << 11));
}

static const struct nfs_sattr sa_all = {
	.has_mode = true, .has_size = true, .has_times = true, .mode = 0600,
	.size = UINT64_C(0x100000001),
};

static bool enc_setattr_all(XDR *x)
{
	struct nfs4_enc e;

	return nfs4_enc_begin(&e, x, "sa", 1) && nfs4_enc_putfh(&e, &fh37) &&
	       nfs4_enc_setattr(&e, &stateid, &sa_all) && nfs4_enc_end(&e);
}

static void chk_setattr_all(XDR *d)
{
	E_HEAD(d, "sa", 2);
	E32(d, "op", OP4_PUTFH);
	E_OPAQUE(d, "object", fh37.data, fh37.len);
	E32(d, "op", OP4_SETATTR);
	E_STATEID(d, &stateid);
	E32(d, "bitmap words", 2);
	E32(d, "bitmap[0] (size)", 1u << 4);
	E32(d, "bitmap[1] (mode, time_access_set, time_modify_set)",
	    (1u << 1) | (1u << 16) | (1u << 22));
	E32(d, "attrlist length", 20);
	E64(d, "size", UINT64_C(0x100000001));
	E32(d, "mode", 0600);
	E32(d, "time_access_set (SET_TO_SERVER_TIME4)", 0);
	E32(d, "time_modify_set (SET_TO_SERVER_TIME4)", 0);
}

static const struct enc_case enc_cases[] = {
	{ "EXCHANGE_ID", enc_exchange_id, chk_exchange_id },
	{ "CREATE_SESSION", enc_create_session, chk_create_session },
	{ "SEQUENCE RECLAIM_COMPLETE DESTROY_* BIND_CONN", enc_session_ops, chk_session_ops },
	{ "PUTROOTFH LOOKUP GETFH GETATTR ACCESS", enc_lookup_path, chk_lookup_path },
	{ "SEQUENCE PUTFH WRITE", enc_write, chk_write },
	{ "OPEN create", enc_open_create, chk_open_create },
	{ "OPEN READ COMMIT CLOSE", enc_open_read_close, chk_open_read_close },
	{ "REMOVE CREATE RENAME", enc_namespace, chk_namespace },
	{ "READDIR", enc_readdir, chk_readdir },
	{ "SETATTR", enc_setattr_all, chk_setattr_all },
};

static uint32_t wire[WIRE_MAX / 4];	/* 4-byte aligned, like a real send buffer */

static void test_encoders(void **state)
{
	size_t i;

	(void)state;
	bad = 0;
	for (i = 0; i < N(enc_cases); i++) {
		const struct enc_case *c = &enc_cases[i];
		XDR x, d;
		u_int len, n;

		memset(wire, 0xee, sizeof(wire));
		xdrmem_create(&x, (char *)wire, sizeof(wire), XDR_ENCODE);
		if (!c->enc(&x)) {
			print_error("%s: the encoder failed in %zu bytes\n", c->name, sizeof(wire));
			bad++;
			continue;
		}
		len = xdr_getpos(&x);
		xdrmem_create(&d, (char *)wire, len, XDR_DECODE);
		c->check(&d);
		if (xdr_getpos(&d) != len) {
			print_error("%s: %u bytes encoded, %u read back\n", c->name, len,
				    xdr_getpos(&d));
			bad++;
		}
		/* Too small by any amount: false, and nothing written past the end (ASan). */
		for (n = 0; n < len; n++) {
			char *buf = malloc(n ? n : 1);

			xdrmem_create(&x, buf, n, XDR_ENCODE);
			if (c->enc(&x)) {
				print_error("%s: the encoder succeeded in %u of %u bytes\n",
					    c->name, n, len);
				bad++;
			}
			free(buf);
		}
	}
	assert_int_equal(bad, 0);
}

static void chk_setattr(const char *what, const struct nfs4_stateid *sid,
			const struct nfs_sattr *sa, const uint32_t *want, size_t nwant)
{
	static const struct nfs4_stateid zero;
	struct nfs4_enc e;
	XDR x, d;
	size_t i;

	xdrmem_create(&x, (char *)wire, sizeof(wire), XDR_ENCODE);
	if (!nfs4_enc_begin(&e, &x, "", 1) || !nfs4_enc_setattr(&e, sid, sa) || !nfs4_enc_end(&e)) {
		print_error("%s: encoder failed\n", what);
		bad++;
		return;
	}
	xdrmem_create(&d, (char *)wire, xdr_getpos(&x), XDR_DECODE);
	E_HEAD(&d, "", 1);
	E32(&d, "op", OP4_SETATTR);
	E_STATEID(&d, sid ? sid : &zero);
	for (i = 0; i < nwant; i++) {
		uint32_t got = r32(__LINE__, &d);

		if (got != want[i]) {
			print_error("%s: word %zu after the stateid: got 0x%x, want 0x%x\n",
				    what, i, got, want[i]);
			bad++;
		}
	}
	if (xdr_getpos(&d) != xdr_getpos(&x)) {
		print_error("%s: %u bytes encoded, %u expected\n", what, xdr_getpos(&x),
			    xdr_getpos(&d));
		bad++;
	}
}

static void test_setattr_bitmaps(void **state)
{
	static const struct nfs_sattr none = { 0 };
	static const struct nfs_sattr size = { .has_size = true, .size = 12345 };
	static const struct nfs_sattr mode = { .has_mode = true, .mode = 01777 };
	static const struct nfs_sattr times = { .has_times = true };
	static const struct nfs_sattr mode_times = { .has_mode = true, .has_times = true,
						     .mode = 0444 };
	static const uint32_t w_none[] = { 0, 0 };
	static const uint32_t w_size[] = { 1, 1u << 4, 8, 0, 12345 };
	static const uint32_t w_mode[] = { 2, 0, 2, 4, 01777 };
	static const uint32_t w_times[] = { 2, 0, (1u << 16) | (1u << 22), 8, 0, 0 };
	static const uint32_t w_mode_times[] = { 2, 0, 2 | (1u << 16) | (1u << 22), 12, 0444,
						 0, 0 };

	(void)state;
	bad = 0;
	chk_setattr("nothing, anonymous stateid", NULL, &none, w_none, N(w_none));
	chk_setattr("size", &stateid, &size, w_size, N(w_size));
	chk_setattr("mode", NULL, &mode, w_mode, N(w_mode));
	chk_setattr("times", &stateid2, &times, w_times, N(w_times));
	chk_setattr("mode and times", NULL, &mode_times, w_mode_times, N(w_mode_times));
	assert_int_equal(bad, 0);
}

/* Limits the encoders enforce rather than send something the server must refuse. */
static void test_encoder_limits(void **state)
{
	static uint8_t owner[1025];
	struct nfs_fh big = { .len = 129 };
	struct nfs4_enc e;
	char name[300];
	uint32_t n = 0;
	XDR x;

	(void)state;
	xdrmem_create(&x, (char *)wire, sizeof(wire), XDR_ENCODE);
	assert_true(nfs4_enc_begin(&e, &x, NULL, 1));
	assert_false(nfs4_enc_putfh(&e, &big));
	assert_false(nfs4_enc_exchange_id(&e, verf8, owner, 1025, 0));
	assert_false(nfs4_enc_open(&e, 0, 1, owner, 1025, "f", false, 0));
	assert_true(nfs4_enc_exchange_id(&e, verf8, owner, 1024, 0));
	big.len = 128;
	assert_true(nfs4_enc_putfh(&e, &big));
	/* A name of 256 bytes is refused; of 255, one LOOKUP. */
	memset(name, 'n', sizeof(name));
	name[0] = '/';
	assert_false(nfs4_enc_lookup_path(&e, name, 257, &n));
	assert_true(nfs4_enc_lookup_path(&e, name, 256, &n));
	assert_int_equal(n, 1);
	assert_true(nfs4_enc_end(&e));
	assert_int_equal(e.count, 3);
}

/* ---- decoders ---- */

#define TRY(expr) do { int rc_ = (expr); if (rc_) return rc_; } while (0)

/* The COMPOUND4res header and the first result's opcode and status, all checked. */
static int dec_head(int line, XDR *x, uint32_t status, uint32_t nres, enum nfs4_opnum op,
		    uint32_t opstatus)
{
	uint32_t st, n;

	TRY(nfs4_dec_begin(x, &st, &n));
	chk(line, "COMPOUND status", st, status);
	chk(line, "result count", n, nres);
	TRY(nfs4_dec_op(x, op, &st));
	chk(line, "op status", st, opstatus);
	return 0;
}
#define DEC_HEAD(x, status, nres, op, opstatus) \
	TRY(dec_head(__LINE__, x, status, nres, op, opstatus))

static int dec_op(int line, XDR *x, enum nfs4_opnum op, uint32_t status)
{
	uint32_t st;

	TRY(nfs4_dec_op(x, op, &st));
	chk(line, "op status", st, status);
	return 0;
}
#define DEC_OP(x, op, status) TRY(dec_op(__LINE__, x, op, status))

static void bld_sequence(XDR *x)
{
	w_head(x, 0, 2);
	w_op(x, OP4_SEQUENCE, 0);
	wfixed(x, sessionid, 16);
	w32(x, 0xffffffff);
	w32(x, 17);
	w32(x, 63);
	w32(x, 31);
	w32(x, 0x200);
	w_op(x, OP4_PUTROOTFH, 0);
}

static int run_sequence(XDR *x)
{
	struct nfs4_sequence_res r;

	DEC_HEAD(x, 0, 2, OP4_SEQUENCE, 0);
	TRY(nfs4_dec_sequence(x, &r));
	CHECK_BYTES("sessionid", r.sessionid, sessionid, 16);
	CHECK("sequenceid", r.sequenceid, 0xffffffff);
	CHECK("slotid", r.slotid, 17);
	CHECK("highest_slotid", r.highest_slotid, 63);
	CHECK("target_highest_slotid", r.target_highest_slotid, 31);
	CHECK("status_flags", r.status_flags, 0x200);
	DEC_OP(x, OP4_PUTROOTFH, 0);
	return 0;
}

/* SEQUENCE failed: the COMPOUND ends with it. */
static void bld_sequence_fail(XDR *x)
{
	w_head(x, NFS4ERR_BADSESSION, 1);
	w_op(x, OP4_SEQUENCE, NFS4ERR_BADSESSION);
}

static int run_sequence_fail(XDR *x)
{
	DEC_HEAD(x, NFS4ERR_BADSESSION, 1, OP4_SEQUENCE, NFS4ERR_BADSESSION);
	return 0;
}

/* A failure past SEQUENCE: PUTFH ok, LOOKUP NOENT, the rest not done. */
static void bld_lookup_fail(XDR *x)
{
	w_head(x, NFS4ERR_NOENT, 3);
	w_op(x, OP4_SEQUENCE, 0);
	wfixed(x, sessionid, 16);
	w32(x, 2);
	w32(x, 0);
	w32(x, 0);
	w32(x, 0);
	w32(x, 0);
	w_op(x, OP4_PUTFH, 0);
	w_op(x, OP4_LOOKUP, NFS4ERR_NOENT);
}

static int run_lookup_fail(XDR *x)
{
	struct nfs4_sequence_res r;

	DEC_HEAD(x, NFS4ERR_NOENT, 3, OP4_SEQUENCE, 0);
	TRY(nfs4_dec_sequence(x, &r));
	CHECK("sequenceid", r.sequenceid, 2);
	DEC_OP(x, OP4_PUTFH, 0);
	DEC_OP(x, OP4_LOOKUP, NFS4ERR_NOENT);
	return 0;
}

static void w_exchange_head(XDR *x, uint32_t how)
{
	w_head(x, 0, 1);
	w_op(x, OP4_EXCHANGE_ID, 0);
	w64(x, CLIENTID);
	w32(x, 1);
	w32(x, 0x00010003);
	w32(x, how);
}

static void w_exchange_tail(XDR *x, bool impl)
{
	w64(x, UINT64_C(0xfeedface));		/* so_minor_id */
	wopaque(x, "major-id-5", 10);
	wopaque(x, "scope", 5);
	w32(x, impl);
	if (impl) {
		wstr(x, "kernel.org");
		wstr(x, "nfs-ganesha 6");
		w64(x, (uint64_t)-5);		/* seconds: int64 */
		w32(x, 999999999);
	}
}

static void bld_exchange_none(XDR *x)
{
	w_exchange_head(x, 0);
	w_exchange_tail(x, true);
}

static void bld_exchange_none_noimpl(XDR *x)
{
	w_exchange_head(x, 0);
	w_exchange_tail(x, false);
}

static void bld_exchange_mach(XDR *x)
{
	w_exchange_head(x, 1);
	w32(x, 2);		/* spo_must_enforce */
	w32(x, 0x3);
	w32(x, 0x800);
	w32(x, 1);		/* spo_must_allow */
	w32(x, 0x10);
	w_exchange_tail(x, true);
}

static void bld_exchange_ssv(XDR *x)
{
	w_exchange_head(x, 2);
	w32(x, 0);		/* spo_must_enforce: empty */
	w32(x, 1);		/* spo_must_allow */
	w32(x, 0x10);
	w32(x, 1);		/* spi_hash_alg */
	w32(x, 2);		/* spi_encr_alg */
	w32(x, 32);		/* spi_ssv_len */
	w32(x, 4);		/* spi_window */
	w32(x, 2);		/* spi_handles */
	wopaque(x, "hand1", 5);
	wopaque(x, "", 0);
	w_exchange_tail(x, false);
}

static int run_exchange(XDR *x)
{
	struct nfs4_exchange_id_res r;

	DEC_HEAD(x, 0, 1, OP4_EXCHANGE_ID, 0);
	TRY(nfs4_dec_exchange_id(x, &r));
	CHECK("clientid", r.clientid, CLIENTID);
	CHECK("sequenceid", r.sequenceid, 1);
	CHECK("flags", r.flags, 0x00010003);
	return 0;
}

static void w_chan(XDR *x, uint32_t base, uint32_t nrdma)
{
	uint32_t i;

	for (i = 0; i < 6; i++)
		w32(x, base + i);
	w32(x, nrdma);
	for (i = 0; i < nrdma; i++)
		w32(x, 99);
}

static void bld_create_session(XDR *x)
{
	w_head(x, 0, 1);
	w_op(x, OP4_CREATE_SESSION, 0);
	wfixed(x, sessionid, 16);
	w32(x, 9);
	w32(x, 0x2);
	w_chan(x, 100, 0);
	w_chan(x, 200, 1);
}

static int run_create_session(XDR *x)
{
	struct nfs4_create_session_res r;

	DEC_HEAD(x, 0, 1, OP4_CREATE_SESSION, 0);
	TRY(nfs4_dec_create_session(x, &r));
	CHECK_BYTES("sessionid", r.sessionid, sessionid, 16);
	CHECK("sequence", r.sequence, 9);
	CHECK("flags", r.flags, 2);
	CHECK("fore headerpadsize", r.fore.headerpadsize, 100);
	CHECK("fore maxrequestsize", r.fore.maxrequestsize, 101);
	CHECK("fore maxresponsesize", r.fore.maxresponsesize, 102);
	CHECK("fore maxresponsesize_cached", r.fore.maxresponsesize_cached, 103);
	CHECK("fore maxoperations", r.fore.maxoperations, 104);
	CHECK("fore maxrequests", r.fore.maxrequests, 105);
	CHECK("back headerpadsize", r.back.headerpadsize, 200);
	CHECK("back maxrequests", r.back.maxrequests, 205);
	return 0;
}

static void bld_bind_conn(XDR *x)
{
	w_head(x, 0, 1);
	w_op(x, OP4_BIND_CONN_TO_SESSION, 0);
	wfixed(x, sessionid, 16);
	w32(x, 1);
	w32(x, 0);
}

static int run_bind_conn(XDR *x)
{
	DEC_HEAD(x, 0, 1, OP4_BIND_CONN_TO_SESSION, 0);
	return nfs4_dec_bind_conn(x);
}

/* GETFH then GETATTR with all four attributes. */
static void bld_getfh_getattr(XDR *x)
{
	w_head(x, 0, 3);
	w_op(x, OP4_PUTROOTFH, 0);
	w_op(x, OP4_GETFH, 0);
	wopaque(x, fh37.data, fh37.len);
	w_op(x, OP4_GETATTR, 0);
	w32(x, 2);
	w32(x, (1u << 1) | (1u << 4) | (1u << 20));
	w32(x, 2);
	w32(x, 4 + 8 + 8 + 4);
	w32(x, 2);				/* type: NF4DIR */
	w64(x, UINT64_C(0x123456789));		/* size */
	w64(x, UINT64_C(0xabcdef0123));		/* fileid */
	w32(x, 040755);				/* mode */
}

static int run_getfh_getattr(XDR *x)
{
	struct nfs_fh fh;
	struct nfs_attr a;

	DEC_HEAD(x, 0, 3, OP4_PUTROOTFH, 0);
	DEC_OP(x, OP4_GETFH, 0);
	TRY(nfs4_dec_getfh(x, &fh));
	CHECK("fh len", fh.len, fh37.len);
	CHECK_BYTES("fh", fh.data, fh37.data, fh37.len);
	DEC_OP(x, OP4_GETATTR, 0);
	TRY(nfs4_dec_getattr(x, &a));
	CHECK("type", a.type, 2);
	CHECK("size", a.size, UINT64_C(0x123456789));
	CHECK("fileid", a.fileid, UINT64_C(0xabcdef0123));
	CHECK("mode", a.mode, 040755);
	return 0;
}

/* GETATTR with a server's choice of bits: some asked for missing, some not asked for. */
static void bld_getattr_partial(XDR *x)
{
	w_head(x, 0, 2);
	w_op(x, OP4_GETATTR, 0);
	w32(x, 1);				/* type only */
	w32(x, 1u << 1);
	w32(x, 4);
	w32(x, 1);
	w_op(x, OP4_GETATTR, 0);
	w32(x, 3);				/* 3 words, the third empty */
	w32(x, (1u << 3) | (1u << 4) | (1u << 8));	/* change, size, fsid */
	w32(x, (1u << (35 - 32)) | (1u << (53 - 32)) | (1u << (33 - 32)));	/* numlinks, time_modify, mode */
	w32(x, 0);
	w32(x, 8 + 8 + 16 + 4 + 4 + 12);
	w64(x, 42);				/* change */
	w64(x, 4096);				/* size */
	w64(x, 1);				/* fsid */
	w64(x, 2);
	w32(x, 0100600);			/* mode */
	w32(x, 3);				/* numlinks */
	w64(x, 1700000000);			/* time_modify */
	w32(x, 5);
}

static int run_getattr_partial(XDR *x)
{
	struct nfs_attr a;

	DEC_HEAD(x, 0, 2, OP4_GETATTR, 0);
	TRY(nfs4_dec_getattr(x, &a));
	CHECK("type", a.type, 1);
	CHECK("size (not sent)", a.size, 0);
	CHECK("fileid (not sent)", a.fileid, 0);
	CHECK("mode (not sent)", a.mode, 0);
	DEC_OP(x, OP4_GETATTR, 0);
	TRY(nfs4_dec_getattr(x, &a));
	CHECK("type (not sent)", a.type, 0);
	CHECK("size", a.size, 4096);
	CHECK("mode", a.mode, 0100600);
	return 0;
}

static void bld_access(XDR *x)
{
	w_head(x, 0, 1);
	w_op(x, OP4_ACCESS, 0);
	w32(x, 0x3f);
	w32(x, 0x1b);
}

static int run_access(XDR *x)
{
	uint32_t sup, acc;

	DEC_HEAD(x, 0, 1, OP4_ACCESS, 0);
	TRY(nfs4_dec_access(x, &sup, &acc));
	CHECK("supported", sup, 0x3f);
	CHECK("access", acc, 0x1b);
	return 0;
}

static void w_stateid(XDR *x, const struct nfs4_stateid *sid)
{
	w32(x, sid->seqid);
	wfixed(x, sid->other, 12);
}

static void w_ace(XDR *x, const char *who)
{
	w32(x, 0);		/* ACE4_ACCESS_ALLOWED_ACE_TYPE */
	w32(x, 0);
	w32(x, 0x1f01ff);
	wstr(x, who);
}

/* OPEN's result up to its delegation; a GETFH follows each so the position is checked. */
static void w_open_head(XDR *x, uint32_t deleg)
{
	w_head(x, 0, 2);
	w_op(x, OP4_OPEN, 0);
	w_stateid(x, &stateid);
	w_cinfo(x, 10, 11);
	w32(x, 0x4);		/* rflags: OPEN4_RESULT_LOCKTYPE_POSIX */
	w32(x, 2);		/* attrset */
	w32(x, 0);
	w32(x, 2);
	w32(x, deleg);
}

static void w_open_tail(XDR *x)
{
	w_op(x, OP4_GETFH, 0);
	wopaque(x, fh37.data, fh37.len);
}

static void bld_open_none(XDR *x)
{
	w_open_head(x, 0);
	w_open_tail(x);
}

static void bld_open_read(XDR *x)
{
	w_open_head(x, 1);
	w_stateid(x, &stateid2);
	w32(x, 0);		/* recall */
	w_ace(x, "EVERYONE@");
	w_open_tail(x);
}

static void bld_open_write_size(XDR *x)
{
	w_open_head(x, 2);
	w_stateid(x, &stateid2);
	w32(x, 1);
	w32(x, 1);		/* NFS_LIMIT_SIZE */
	w64(x, UINT64_MAX);
	w_ace(x, "user@example.org");
	w_open_tail(x);
}

static void bld_open_write_blocks(XDR *x)
{
	w_open_head(x, 2);
	w_stateid(x, &stateid2);
	w32(x, 0);
	w32(x, 2);		/* NFS_LIMIT_BLOCKS */
	w32(x, 1000);
	w32(x, 512);
	w_ace(x, "");
	w_open_tail(x);
}

static void bld_open_none_ext_contention(XDR *x)
{
	w_open_head(x, 3);
	w32(x, 1);		/* WND4_CONTENTION */
	w32(x, 1);		/* ond_server_will_push_deleg */
	w_open_tail(x);
}

static void bld_open_none_ext_resource(XDR *x)
{
	w_open_head(x, 3);
	w32(x, 2);		/* WND4_RESOURCE */
	w32(x, 0);
	w_open_tail(x);
}

static void bld_open_none_ext_not_wanted(XDR *x)
{
	w_open_head(x, 3);
	w32(x, 0);		/* WND4_NOT_WANTED: nothing follows */
	w_open_tail(x);
}

static int run_open(XDR *x)
{
	struct nfs4_stateid sid;
	struct nfs_fh fh;

	DEC_HEAD(x, 0, 2, OP4_OPEN, 0);
	TRY(nfs4_dec_open(x, &sid));
	CHECK("stateid.seqid", sid.seqid, stateid.seqid);
	CHECK_BYTES("stateid.other", sid.other, stateid.other, 12);
	DEC_OP(x, OP4_GETFH, 0);
	TRY(nfs4_dec_getfh(x, &fh));
	CHECK("fh len after OPEN", fh.len, fh37.len);
	CHECK_BYTES("fh after OPEN", fh.data, fh37.data, fh37.len);
	return 0;
}

/* The delegation an OPEN reply carries: its type, and its stateid to return. */
static int run_open_deleg(XDR *x, uint32_t type, const struct nfs4_stateid *dsid)
{
	struct nfs4_stateid sid;
	struct nfs4_deleg d = { .type = 0xdead };
	struct nfs_fh fh;

	DEC_HEAD(x, 0, 2, OP4_OPEN, 0);
	TRY(nfs4_dec_open_deleg(x, &sid, &d));
	CHECK("stateid.seqid", sid.seqid, stateid.seqid);
	CHECK_BYTES("stateid.other", sid.other, stateid.other, 12);
	CHECK("delegation type", d.type, type);
	CHECK("delegation stateid.seqid", d.sid.seqid, dsid->seqid);
	CHECK_BYTES("delegation stateid.other", d.sid.other, dsid->other, 12);
	DEC_OP(x, OP4_GETFH, 0);
	TRY(nfs4_dec_getfh(x, &fh));
	CHECK("fh len after OPEN", fh.len, fh37.len);
	return 0;
}

static const struct nfs4_stateid no_sid;

static int run_open_deleg_none(XDR *x)
{
	return run_open_deleg(x, 0, &no_sid);
}

static int run_open_deleg_read(XDR *x)
{
	return run_open_deleg(x, NFS4_DELEG_READ, &stateid2);
}

static int run_open_deleg_write(XDR *x)
{
	return run_open_deleg(x, NFS4_DELEG_WRITE, &stateid2);
}

static int run_open_deleg_none_ext(XDR *x)
{
	return run_open_deleg(x, 3, &no_sid);
}

static void bld_open_downgrade(XDR *x)
{
	w_head(x, 0, 1);
	w_op(x, OP4_OPEN_DOWNGRADE, 0);
	w_stateid(x, &stateid2);
}

static int run_open_downgrade(XDR *x)
{
	struct nfs4_stateid sid;

	DEC_HEAD(x, 0, 1, OP4_OPEN_DOWNGRADE, 0);
	TRY(nfs4_dec_open_downgrade(x, &sid));
	CHECK("stateid.seqid", sid.seqid, stateid2.seqid);
	CHECK_BYTES("stateid.other", sid.other, stateid2.other, 12);
	return 0;
}

/* GETATTR of lease_time: bitmap {1 << 10}, 4 bytes, 90 seconds. */
static void bld_lease_time(XDR *x)
{
	w_head(x, 0, 1);
	w_op(x, OP4_GETATTR, 0);
	w32(x, 1);
	w32(x, 1u << 10);
	w32(x, 4);
	w32(x, 90);
}

static int run_lease_time(XDR *x)
{
	uint32_t secs = 0;

	DEC_HEAD(x, 0, 1, OP4_GETATTR, 0);
	TRY(nfs4_dec_lease_time(x, &secs));
	CHECK("lease_time", secs, 90);
	return 0;
}

static void bld_close(XDR *x)
{
	w_head(x, 0, 1);
	w_op(x, OP4_CLOSE, 0);
	w_stateid(x, &stateid2);
}

static int run_close(XDR *x)
{
	struct nfs4_stateid sid;

	DEC_HEAD(x, 0, 1, OP4_CLOSE, 0);
	TRY(nfs4_dec_close(x, &sid));
	CHECK("stateid.seqid", sid.seqid, stateid2.seqid);
	CHECK_BYTES("stateid.other", sid.other, stateid2.other, 12);
	return 0;
}

static void bld_read(XDR *x)
{
	w_head(x, 0, 2);
	w_op(x, OP4_READ, 0);
	w32(x, 1);
	wopaque(x, "hello", 5);
	w_op(x, OP4_READ, 0);
	w32(x, 0);
	wopaque(x, "", 0);
}

static int run_read(XDR *x)
{
	const uint8_t *data;
	uint32_t count;
	bool eof;

	DEC_HEAD(x, 0, 2, OP4_READ, 0);
	TRY(nfs4_dec_read(x, &eof, &count, &data));
	CHECK("eof", eof, 1);
	CHECK("count", count, 5);
	if (count == 5)
		CHECK_BYTES("data", data, "hello", 5);
	DEC_OP(x, OP4_READ, 0);
	TRY(nfs4_dec_read(x, &eof, &count, &data));
	CHECK("eof", eof, 0);
	CHECK("count", count, 0);
	return 0;
}

static void bld_write_commit(XDR *x)
{
	w_head(x, 0, 2);
	w_op(x, OP4_WRITE, 0);
	w32(x, 65536);
	w32(x, 1);
	wfixed(x, verf8, 8);
	w_op(x, OP4_COMMIT, 0);
	wfixed(x, verf8, 8);
}

static int run_write_commit(XDR *x)
{
	uint32_t count, committed;
	uint8_t v[8];

	DEC_HEAD(x, 0, 2, OP4_WRITE, 0);
	TRY(nfs4_dec_write(x, &count, &committed, v));
	CHECK("count", count, 65536);
	CHECK("committed", committed, 1);
	CHECK_BYTES("writeverf", v, verf8, 8);
	memset(v, 0, sizeof(v));
	DEC_OP(x, OP4_COMMIT, 0);
	TRY(nfs4_dec_commit(x, v));
	CHECK_BYTES("COMMIT writeverf", v, verf8, 8);
	return 0;
}

static void bld_namespace(XDR *x)
{
	w_head(x, 0, 5);
	w_op(x, OP4_REMOVE, 0);
	w_cinfo(x, 1, 2);
	w_op(x, OP4_CREATE, 0);
	w_cinfo(x, 3, 4);
	w32(x, 2);
	w32(x, 0);
	w32(x, 2);
	w_op(x, OP4_RENAME, 0);
	w_cinfo(x, 5, 6);
	w_cinfo(x, 7, 8);
	w_op(x, OP4_SETATTR, 0);
	w32(x, 1);
	w32(x, 1u << 4);
	w_op(x, OP4_SETATTR, 22);	/* SETATTR4res carries its bitmap on failure too */
	w32(x, 0);
}

static int run_namespace(XDR *x)
{
	DEC_HEAD(x, 0, 5, OP4_REMOVE, 0);
	TRY(nfs4_dec_remove(x));
	DEC_OP(x, OP4_CREATE, 0);
	TRY(nfs4_dec_mkdir(x));
	DEC_OP(x, OP4_RENAME, 0);
	TRY(nfs4_dec_rename(x));
	DEC_OP(x, OP4_SETATTR, 0);
	TRY(nfs4_dec_setattr(x));
	DEC_OP(x, OP4_SETATTR, 22);
	return nfs4_dec_setattr(x);
}

struct dirent_seen {
	char name[32];
	uint64_t cookie;
	bool is_dir;
};

static struct readdir_seen {
	struct dirent_seen e[8];
	unsigned n, stop_after;		/* stop_after 0: never */
} seen;

static int collect(void *arg, const char *name, uint32_t namelen, uint64_t cookie, bool is_dir)
{
	struct readdir_seen *s = arg;

	if (s->n < N(s->e)) {
		struct dirent_seen *d = &s->e[s->n];

		snprintf(d->name, sizeof(d->name), "%.*s", (int)namelen, name);
		d->cookie = cookie;
		d->is_dir = is_dir;
	}
	s->n++;
	return s->stop_after && s->n == s->stop_after ? 7 : 0;
}

static void w_entry(XDR *x, uint64_t cookie, const char *name, uint32_t w0, const uint32_t *vals,
		    uint32_t nvals)
{
	uint32_t i;

	w32(x, 1);
	w64(x, cookie);
	wstr(x, name);
	w32(x, 1);
	w32(x, w0);
	w32(x, nvals * 4);
	for (i = 0; i < nvals; i++)
		w32(x, vals[i]);
}

static void bld_readdir(XDR *x)
{
	static const uint32_t reg[] = { 1 }, dir[] = { 2 }, err[] = { 13 }, both[] = { 2, 0 };

	w_head(x, 0, 1);
	w_op(x, OP4_READDIR, 0);
	wfixed(x, verf8, 8);
	w_entry(x, 3, "a", 1u << 1, reg, 1);
	w_entry(x, 4, "sub", 1u << 1, dir, 1);
	w_entry(x, 5, "no-access", 1u << 11, err, 1);
	w_entry(x, UINT64_MAX - 1, "d2", (1u << 1) | (1u << 11), both, 2);
	w32(x, 0);
	w32(x, 1);		/* eof */
}

static const struct dirent_seen readdir_want[] = {
	{ "a", 3, false }, { "sub", 4, true }, { "no-access", 5, false },
	{ "d2", UINT64_MAX - 1, true },
};

static int run_readdir(XDR *x)
{
	uint8_t v[8];
	bool eof;
	size_t i;

	memset(&seen, 0, sizeof(seen));
	DEC_HEAD(x, 0, 1, OP4_READDIR, 0);
	TRY(nfs4_dec_readdir(x, v, &eof, collect, &seen));
	CHECK_BYTES("cookieverf", v, verf8, 8);
	CHECK("eof", eof, 1);
	CHECK("entries", seen.n, N(readdir_want));
	for (i = 0; i < N(readdir_want) && i < seen.n; i++) {
		if (!quiet && strcmp(seen.e[i].name, readdir_want[i].name) != 0) {
			print_error("entry %zu: name '%s', want '%s'\n", i, seen.e[i].name,
				    readdir_want[i].name);
			bad++;
		}
		CHECK("cookie", seen.e[i].cookie, readdir_want[i].cookie);
		CHECK("is_dir", seen.e[i].is_dir, readdir_want[i].is_dir);
	}
	return 0;
}

static void bld_readdir_empty(XDR *x)
{
	w_head(x, 0, 1);
	w_op(x, OP4_READDIR, 0);
	wfixed(x, verf8, 8);
	w32(x, 0);
	w32(x, 0);		/* not eof */
}

static int run_readdir_empty(XDR *x)
{
	uint8_t v[8];
	bool eof = true;

	memset(&seen, 0, sizeof(seen));
	DEC_HEAD(x, 0, 1, OP4_READDIR, 0);
	TRY(nfs4_dec_readdir(x, v, &eof, collect, &seen));
	CHECK("eof", eof, 0);
	CHECK("entries", seen.n, 0);
	return 0;
}

struct dec_case {
	const char *name;
	void (*build)(XDR *x);
	int (*run)(XDR *x);
};

static const struct dec_case dec_cases[] = {
	{ "SEQUENCE", bld_sequence, run_sequence },
	{ "SEQUENCE failed", bld_sequence_fail, run_sequence_fail },
	{ "LOOKUP failed", bld_lookup_fail, run_lookup_fail },
	{ "EXCHANGE_ID SP4_NONE", bld_exchange_none, run_exchange },
	{ "EXCHANGE_ID no impl id", bld_exchange_none_noimpl, run_exchange },
	{ "EXCHANGE_ID SP4_MACH_CRED", bld_exchange_mach, run_exchange },
	{ "EXCHANGE_ID SP4_SSV", bld_exchange_ssv, run_exchange },
	{ "CREATE_SESSION", bld_create_session, run_create_session },
	{ "BIND_CONN_TO_SESSION", bld_bind_conn, run_bind_conn },
	{ "GETFH GETATTR", bld_getfh_getattr, run_getfh_getattr },
	{ "GETATTR partial", bld_getattr_partial, run_getattr_partial },
	{ "ACCESS", bld_access, run_access },
	{ "OPEN no delegation", bld_open_none, run_open },
	{ "OPEN read delegation", bld_open_read, run_open },
	{ "OPEN write delegation, size limit", bld_open_write_size, run_open },
	{ "OPEN write delegation, block limit", bld_open_write_blocks, run_open },
	{ "OPEN none_ext contention", bld_open_none_ext_contention, run_open },
	{ "OPEN none_ext resource", bld_open_none_ext_resource, run_open },
	{ "OPEN none_ext not wanted", bld_open_none_ext_not_wanted, run_open },
	{ "OPEN delegation none, decoded", bld_open_none, run_open_deleg_none },
	{ "OPEN read delegation, decoded", bld_open_read, run_open_deleg_read },
	{ "OPEN write delegation size, decoded", bld_open_write_size, run_open_deleg_write },
	{ "OPEN write delegation blocks, decoded", bld_open_write_blocks, run_open_deleg_write },
	{ "OPEN none_ext, decoded", bld_open_none_ext_contention, run_open_deleg_none_ext },
	{ "OPEN_DOWNGRADE", bld_open_downgrade, run_open_downgrade },
	{ "GETATTR lease_time", bld_lease_time, run_lease_time },
	{ "CLOSE", bld_close, run_close },
	{ "READ", bld_read, run_read },
	{ "WRITE COMMIT", bld_write_commit, run_write_commit },
	{ "REMOVE CREATE RENAME SETATTR", bld_namespace, run_namespace },
	{ "READDIR", bld_readdir, run_readdir },
	{ "READDIR empty", bld_readdir_empty, run_readdir_empty },
};

/* Builds a reply into wire: its length. */
static u_int build(void (*bld)(XDR *x))
{
	XDR x;

	memset(wire, 0, sizeof(wire));
	xdrmem_create(&x, (char *)wire, sizeof(wire), XDR_ENCODE);
	bld(&x);
	return xdr_getpos(&x);
}

/* Runs a decoder over a copy of n bytes in a buffer of exactly that size (ASan
 * sees any read past it), at offset 1 when unaligned. *used: bytes read. */
static int run_copy(int (*run)(XDR *x), const void *p, u_int n, bool unaligned, u_int *used)
{
	char *buf = malloc(n + unaligned), *at = buf + unaligned;
	XDR x;
	int rc;

	memcpy(at, p, n);
	xdrx_create(&x, at, n, XDR_DECODE);
	rc = run(&x);
	if (used)
		*used = xdr_getpos(&x);
	free(buf);
	return rc;
}

static void test_decoders(void **state)
{
	size_t i;

	(void)state;
	bad = 0;
	for (i = 0; i < N(dec_cases); i++) {
		const struct dec_case *c = &dec_cases[i];
		u_int len = build(c->build), used;
		int align, rc;

		for (align = 0; align < 2; align++) {
			rc = run_copy(c->run, wire, len, align, &used);
			if (rc != 0 || used != len) {
				print_error("%s (%s): rc %d, %u of %u bytes read\n", c->name,
					    align ? "unaligned" : "aligned", rc, used, len);
				bad++;
			}
		}
	}
	assert_int_equal(bad, 0);
}

static void test_truncated(void **state)
{
	size_t i;

	(void)state;
	bad = 0;
	quiet = true;
	for (i = 0; i < N(dec_cases); i++) {
		const struct dec_case *c = &dec_cases[i];
		u_int len = build(c->build), t;
		int align, rc;

		for (align = 0; align < 2; align++)
			for (t = 0; t < len; t++) {
				rc = run_copy(c->run, wire, t, align, NULL);
				if (rc != -EBADMSG) {
					print_error("%s: %u of %u bytes (%s): rc %d, want -EBADMSG\n",
						    c->name, t, len, align ? "unaligned" : "aligned",
						    rc);
					bad++;
				}
			}
	}
	quiet = false;
	assert_int_equal(bad, 0);
}

/* Every byte of every valid reply replaced by a few values: any result but a crash. */
static void test_mutated(void **state)
{
	static const uint8_t vals[] = { 0x00, 0x01, 0x02, 0x03, 0x7f, 0x80, 0xfe, 0xff };
	static uint8_t copy[WIRE_MAX];
	size_t i, v;
	unsigned runs = 0;

	(void)state;
	quiet = true;
	for (i = 0; i < N(dec_cases); i++) {
		const struct dec_case *c = &dec_cases[i];
		u_int len = build(c->build), pos;

		for (pos = 0; pos < len; pos++)
			for (v = 0; v < N(vals); v++) {
				int rc;

				memcpy(copy, wire, len);
				copy[pos] = vals[v];
				rc = run_copy(c->run, copy, len, pos & 1, NULL);
				assert_true(rc <= 0);
				runs++;
			}
	}
	quiet = false;
	assert_true(runs > 10000);
}

/* Decoding a reply built by fn with run: its return code. */
static int decode_built(void (*bld)(XDR *x), int (*run)(XDR *x))
{
	u_int len = build(bld);

	return run_copy(run, wire, len, false, NULL);
}

static void bld_getattr_owner(XDR *x)
{
	w_head(x, 0, 1);
	w_op(x, OP4_GETATTR, 0);
	w32(x, 2);
	w32(x, 1u << 1);
	w32(x, 1u << (36 - 32));	/* owner: a string, not something to step over */
	w32(x, 12);
	w32(x, 1);
	wstr(x, "root");
}

static void bld_getattr_long(XDR *x)
{
	w_head(x, 0, 1);
	w_op(x, OP4_GETATTR, 0);
	w32(x, 1);
	w32(x, 1u << 1);
	w32(x, 8);			/* 4 bytes of values, 8 said */
	w32(x, 1);
	w32(x, 0);
}

static void bld_getattr_short(XDR *x)
{
	w_head(x, 0, 1);
	w_op(x, OP4_GETATTR, 0);
	w32(x, 1);
	w32(x, (1u << 1) | (1u << 4));
	w32(x, 8);			/* 12 bytes of values, 8 said */
	w32(x, 1);
	w64(x, 4);
}

static void bld_getattr_bit100(XDR *x)
{
	w_head(x, 0, 1);
	w_op(x, OP4_GETATTR, 0);
	w32(x, 4);
	w32(x, 0);
	w32(x, 0);
	w32(x, 0);
	w32(x, 1u << 4);
	w32(x, 4);
	w32(x, 0);
}

static int run_getattr_any(XDR *x)
{
	struct nfs_attr a;
	uint32_t st, n;

	TRY(nfs4_dec_begin(x, &st, &n));
	TRY(nfs4_dec_op(x, OP4_GETATTR, &st));
	return nfs4_dec_getattr(x, &a);
}

static void bld_open_bad_deleg(XDR *x)
{
	w_open_head(x, 4);
	w_open_tail(x);
}

static void bld_open_bad_limit(XDR *x)
{
	w_open_head(x, 2);
	w_stateid(x, &stateid2);
	w32(x, 0);
	w32(x, 3);
	w64(x, 0);
	w_ace(x, "x");
	w_open_tail(x);
}

static void bld_exchange_bad_how(XDR *x)
{
	w_exchange_head(x, 3);
	w_exchange_tail(x, false);
}

static void bld_exchange_two_impl(XDR *x)
{
	w_exchange_head(x, 0);
	w64(x, 1);
	wopaque(x, "m", 1);
	wopaque(x, "s", 1);
	w32(x, 2);
	wstr(x, "a");
	wstr(x, "b");
	w64(x, 0);
	w32(x, 0);
	wstr(x, "a");
	wstr(x, "b");
	w64(x, 0);
	w32(x, 0);
}

static void bld_getfh_129(XDR *x)
{
	static const uint8_t big[129];

	w_head(x, 0, 1);
	w_op(x, OP4_GETFH, 0);
	wopaque(x, big, sizeof(big));
}

static int run_getfh_any(XDR *x)
{
	struct nfs_fh fh;
	uint32_t st, n;

	TRY(nfs4_dec_begin(x, &st, &n));
	TRY(nfs4_dec_op(x, OP4_GETFH, &st));
	return nfs4_dec_getfh(x, &fh);
}

static void bld_bool_2(XDR *x)
{
	w_head(x, 0, 1);
	w_op(x, OP4_READ, 0);
	w32(x, 2);			/* eof: a bool is 0 or 1 */
	wopaque(x, "", 0);
}

static int run_read_any(XDR *x)
{
	const uint8_t *data;
	uint32_t st, n;
	bool eof;

	TRY(nfs4_dec_begin(x, &st, &n));
	TRY(nfs4_dec_op(x, OP4_READ, &st));
	return nfs4_dec_read(x, &eof, &n, &data);
}

static void bld_read_huge(XDR *x)
{
	w_head(x, 0, 1);
	w_op(x, OP4_READ, 0);
	w32(x, 0);
	w32(x, 0xfffffffd);		/* a length past the record, near the top of u_int */
	w32(x, 0);
}

static void bld_create_session_rdma2(XDR *x)
{
	w_head(x, 0, 1);
	w_op(x, OP4_CREATE_SESSION, 0);
	wfixed(x, sessionid, 16);
	w32(x, 9);
	w32(x, 0);
	w_chan(x, 100, 2);		/* ca_rdma_ird<1> */
	w_chan(x, 200, 0);
}

static void test_garbage(void **state)
{
	static const struct dec_case cases[] = {
		{ "GETATTR with owner (no size known)", bld_getattr_owner, run_getattr_any },
		{ "GETATTR attrlist too long", bld_getattr_long, run_getattr_any },
		{ "GETATTR attrlist too short", bld_getattr_short, run_getattr_any },
		{ "GETATTR bit 100", bld_getattr_bit100, run_getattr_any },
		{ "OPEN delegation type 4", bld_open_bad_deleg, run_open },
		{ "OPEN write delegation limitby 3", bld_open_bad_limit, run_open },
		{ "EXCHANGE_ID spr_how 3", bld_exchange_bad_how, run_exchange },
		{ "EXCHANGE_ID two impl ids", bld_exchange_two_impl, run_exchange },
		{ "GETFH of 129 bytes", bld_getfh_129, run_getfh_any },
		{ "READ eof 2", bld_bool_2, run_read_any },
		{ "READ count 0xfffffffd", bld_read_huge, run_read_any },
		{ "CREATE_SESSION rdma_ird of 2", bld_create_session_rdma2, run_create_session },
	};
	size_t i;

	(void)state;
	bad = 0;
	quiet = true;
	for (i = 0; i < N(cases); i++) {
		int rc = decode_built(cases[i].build, cases[i].run);

		if (rc != -EBADMSG) {
			print_error("%s: rc %d, want -EBADMSG\n", cases[i].name, rc);
			bad++;
		}
	}
	quiet = false;
	assert_int_equal(bad, 0);
}

static void test_op_mismatch(void **state)
{
	uint32_t st, n;
	XDR x;

	(void)state;
	build(bld_access);
	xdrmem_create(&x, (char *)wire, sizeof(wire), XDR_DECODE);
	assert_int_equal(nfs4_dec_begin(&x, &st, &n), 0);
	assert_int_equal(nfs4_dec_op(&x, OP4_GETATTR, &st), -EBADMSG);

	/* OP_ILLEGAL answers an opcode the server does not know: its status comes through. */
	xdrmem_create(&x, (char *)wire, sizeof(wire), XDR_ENCODE);
	w_head(&x, 10044, 1);
	w_op(&x, 10044, 10044);
	xdrmem_create(&x, (char *)wire, sizeof(wire), XDR_DECODE);
	assert_int_equal(nfs4_dec_begin(&x, &st, &n), 0);
	assert_int_equal(nfs4_dec_op(&x, OP4_RECLAIM_COMPLETE, &st), 0);
	assert_int_equal(st, 10044);
}

static void test_readdir_stop(void **state)
{
	uint8_t v[8];
	uint32_t st, n;
	bool eof = true;
	XDR x;
	u_int len;
	int rc;

	(void)state;
	bad = 0;
	len = build(bld_readdir);
	memset(&seen, 0, sizeof(seen));
	seen.stop_after = 2;
	xdrmem_create(&x, (char *)wire, len, XDR_DECODE);
	assert_int_equal(nfs4_dec_begin(&x, &st, &n), 0);
	assert_int_equal(nfs4_dec_op(&x, OP4_READDIR, &st), 0);
	rc = nfs4_dec_readdir(&x, v, &eof, collect, &seen);
	CHECK("rc (fn's)", rc, 7);
	CHECK("entries seen", seen.n, 2);
	CHECK("eof", eof, 0);
	CHECK("is_dir of the second", seen.e[1].is_dir, 1);

	/* The last entry's attributes cut short: fn sees nothing of a bad reply. */
	memset(&seen, 0, sizeof(seen));
	xdrmem_create(&x, (char *)wire, len - 12, XDR_DECODE);
	assert_int_equal(nfs4_dec_begin(&x, &st, &n), 0);
	assert_int_equal(nfs4_dec_op(&x, OP4_READDIR, &st), 0);
	CHECK("rc", nfs4_dec_readdir(&x, v, &eof, collect, &seen), -EBADMSG);
	CHECK("entries seen", seen.n, 0);
	assert_int_equal(bad, 0);
}

static void test_errno(void **state)
{
	static const struct { uint32_t stat; int err; } cases[] = {
		{ 0, 0 }, { 1, -EPERM }, { 2, -ENOENT }, { 5, -EIO }, { 6, -ENXIO },
		{ 13, -EACCES }, { 17, -EEXIST }, { 18, -EXDEV }, { 20, -ENOTDIR },
		{ 21, -EISDIR }, { 22, -EINVAL }, { 27, -EFBIG }, { 28, -ENOSPC },
		{ 30, -EROFS }, { 31, -EMLINK }, { 63, -ENAMETOOLONG }, { 66, -ENOTEMPTY },
		{ 69, -EDQUOT }, { 70, -ESTALE }, { 10001, -ESTALE }, { 10004, -EOPNOTSUPP },
		{ 10006, -EREMOTEIO }, { NFS4ERR_DELAY, -EAGAIN }, { NFS4ERR_GRACE, -EAGAIN },
		{ NFS4ERR_BADSESSION, -ECONNRESET }, { NFS4ERR_DEADSESSION, -ECONNRESET },
		{ NFS4ERR_BADSLOT, -ECONNRESET }, { NFS4ERR_SEQ_MISORDERED, -ECONNRESET },
		{ NFS4ERR_STALE_CLIENTID, -ECONNRESET }, { NFS4ERR_EXPIRED, -ECONNRESET },
		{ NFS4ERR_BAD_STATEID, -EBADF }, { NFS4ERR_CONN_NOT_BOUND_TO_SESSION, -ENOTCONN },
		{ NFS4ERR_SEQ_FALSE_RETRY, -EPROTO }, { NFS4ERR_RETRY_UNCACHED_REP, -EPROTO },
		{ 10065, -EMSGSIZE }, { 10021, -EPROTONOSUPPORT },
		{ 3, -EIO }, { 71, -EIO }, { 9999, -EIO }, { 10088, -EIO }, { UINT32_MAX, -EIO },
	};
	size_t i;

	(void)state;
	bad = 0;
	for (i = 0; i < N(cases); i++) {
		int got = nfs4_errno(cases[i].stat);

		if (got != cases[i].err) {
			print_error("nfs4_errno(%u): got %d, want %d\n", cases[i].stat, got,
				    cases[i].err);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encoders),
		cmocka_unit_test(test_setattr_bitmaps),
		cmocka_unit_test(test_encoder_limits),
		cmocka_unit_test(test_decoders),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_mutated),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_op_mismatch),
		cmocka_unit_test(test_readdir_stop),
		cmocka_unit_test(test_errno),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
