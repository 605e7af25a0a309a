/*
 * nfs3x unit tests. Encoders: each message is encoded, then read back
 * field by field with libtirpc's own xdr_* calls; every buffer too small
 * must fail. Decoders: each result is built here with xdr_* calls (success
 * and failure, with and without the optional parts), decoded from an
 * aligned and an unaligned copy of exactly its size, then cut at every
 * length and mutated at random: the decoder must return a status or
 * -EBADMSG and never read outside the record (run it under ASan).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "engine/native/codec/nfs3x.h"
#include "engine/native/rpc/xdrx.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define BUF_MAX 16384

static int fails;
static const char *cur;		/* the case being run, for messages */
static const uint8_t *rec_lo, *rec_hi;	/* the record being decoded */
static _Alignas(8) uint8_t big[BUF_MAX];

static void check_num(const char *what, uint64_t got, uint64_t want)
{
	if (got != want) {
		print_error("%s: %s: got %" PRIu64 " (0x%" PRIx64 "), want %" PRIu64
			    " (0x%" PRIx64 ")\n", cur, what, got, got, want, want);
		fails++;
	}
}

static void print_hex(const char *label, const uint8_t *p, size_t len)
{
	size_t i;

	print_error("  %s:", label);
	for (i = 0; i < len && i < 80; i++)
		print_error(" %02x", p[i]);
	print_error("%s\n", len > 80 ? " ..." : "");
}

static void check_bytes(const char *what, const uint8_t *got, size_t got_len,
			const uint8_t *want, size_t want_len)
{
	if (got_len != want_len || memcmp(got, want, want_len) != 0) {
		print_error("%s: %s: %zu bytes, want %zu\n", cur, what, got_len, want_len);
		print_hex("got ", got, got_len);
		print_hex("want", want, want_len);
		fails++;
	}
}

static uint64_t rng_state = 42;

static uint64_t rng_next(void)
{
	uint64_t z = (rng_state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* fixtures */

static struct nfs_fh fh0, fh8, fh32, fh64;
static const uint8_t verf[8] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4 };
static uint8_t rdata[4096];
static const struct nfs_attr attr_file = { NFS3_REG, 0100644, UINT64_C(12345678901), 4242 };
static const struct nfs_attr attr_dir = { NFS3_DIR, 040755, 4096, UINT64_C(0x100000002) };
static const struct nfs_attr attr_link = { 5, 0120777, 11, 77 };	/* NF3LNK */
static const struct nfs3_fsinfo fsinfo_want = {
	.rtmax = 1048576, .rtpref = 65536, .wtmax = 524288, .wtpref = 32768,
	.dtpref = 8192, .maxfilesize = UINT64_C(0x7fffffffffffffff),
};

static void make_fh(struct nfs_fh *fh, uint32_t len, uint8_t seed)
{
	uint32_t i;

	memset(fh, 0, sizeof(*fh));
	fh->len = len;
	for (i = 0; i < len; i++)
		fh->data[i] = (uint8_t)(seed + i * 7);
}

static void fixtures(void)
{
	size_t i;

	make_fh(&fh0, 0, 0);
	make_fh(&fh8, 8, 1);
	make_fh(&fh32, 32, 50);
	make_fh(&fh64, 64, 200);
	for (i = 0; i < sizeof(rdata); i++)
		rdata[i] = (uint8_t)(i * 31 + 5);
}

/* Builders for the results the decoders read. */

static void b32(XDR *x, uint32_t v)
{
	u_int u = v;

	if (!xdr_u_int(x, &u)) {
		print_error("%s: the test's buffer is too small\n", cur);
		fails++;
	}
}

static void b64(XDR *x, uint64_t v)
{
	if (!xdr_uint64_t(x, &v)) {
		print_error("%s: the test's buffer is too small\n", cur);
		fails++;
	}
}

static void bbytes(XDR *x, const void *p, uint32_t len)
{
	if (!xdr_opaque(x, (char *)p, len)) {
		print_error("%s: the test's buffer is too small\n", cur);
		fails++;
	}
}

static void bopaque(XDR *x, const void *p, uint32_t len)
{
	b32(x, len);
	bbytes(x, p, len);
}

static void bfh(XDR *x, const struct nfs_fh *fh)
{
	bopaque(x, fh->data, fh->len);
}

static void bfattr(XDR *x, const struct nfs_attr *a)
{
	b32(x, a->type);
	b32(x, a->mode);
	b32(x, 3);			/* nlink */
	b32(x, 1000);			/* uid */
	b32(x, 1001);			/* gid */
	b64(x, a->size);
	b64(x, a->size + 8192);		/* used */
	b32(x, 8);			/* specdata3 */
	b32(x, 1);
	b64(x, UINT64_C(0xfeedfacecafe));	/* fsid */
	b64(x, a->fileid);
	b32(x, 1700000001);		/* atime, mtime, ctime */
	b32(x, 111);
	b32(x, 1700000002);
	b32(x, 222);
	b32(x, 1700000003);
	b32(x, 333);
}

static void bpost(XDR *x, const struct nfs_attr *a)
{
	b32(x, a != NULL);
	if (a)
		bfattr(x, a);
}

static void bwcc(XDR *x, bool pre, const struct nfs_attr *post)
{
	b32(x, pre);
	if (pre) {
		b64(x, 4096);
		b32(x, 1700000000);
		b32(x, 5);
		b32(x, 1700000000);
		b32(x, 6);
	}
	bpost(x, post);
}

static void bpostfh(XDR *x, const struct nfs_fh *fh)
{
	b32(x, fh != NULL);
	if (fh)
		bfh(x, fh);
}

/* Decoder cases: the fields the server sends and the decoder must return. */

struct ent {
	const char *name;
	uint64_t fileid, cookie;
	const struct nfs_attr *attr;
	const struct nfs_fh *fh;
};

struct dec_case {
	const char *name;
	void (*build)(XDR *x, const struct dec_case *c);
	int (*decode)(XDR *x, const struct dec_case *c, bool check);
	int rc;				/* what the decoder must return */
	uint32_t stat;			/* the status sent */
	const struct nfs_fh *fh;	/* the handle sent (NULL: none) */
	const struct nfs_attr *attr;	/* object attributes (NULL: none) */
	const struct nfs_attr *attr2;	/* directory or post-op attributes */
	bool pre;			/* wcc: pre-op attributes sent */
	uint32_t n;			/* count, access, number of auth flavors */
	bool flag;			/* eof */
	uint32_t how;			/* committed */
	const struct ent *ents;		/* READDIRPLUS */
	unsigned nents, stop_after;	/* fn returns 42 after stop_after entries (0: never) */
};

static void check_attr(const char *what, const struct nfs_attr *got, const struct nfs_attr *want)
{
	static const struct nfs_attr none;
	char w[64];

	if (!want)
		want = &none;
	snprintf(w, sizeof(w), "%s.type", what);
	check_num(w, got->type, want->type);
	snprintf(w, sizeof(w), "%s.mode", what);
	check_num(w, got->mode, want->mode);
	snprintf(w, sizeof(w), "%s.size", what);
	check_num(w, got->size, want->size);
	snprintf(w, sizeof(w), "%s.fileid", what);
	check_num(w, got->fileid, want->fileid);
}

static void check_fh(const char *what, const struct nfs_fh *got, const struct nfs_fh *want)
{
	check_bytes(what, got->data, got->len, want->data, want->len);
}

static void build_mnt(XDR *x, const struct dec_case *c)
{
	uint32_t i;

	b32(x, c->stat);
	if (c->stat)
		return;
	bfh(x, c->fh);
	b32(x, c->n);
	for (i = 0; i < c->n; i++)
		b32(x, i ? 390003 + i : 1);
}

static int dec_mnt(XDR *x, const struct dec_case *c, bool check)
{
	struct nfs_fh fh;
	unsigned flavors = 0xa5, want = 0;
	int rc;

	memset(&fh, 0xa5, sizeof(fh));
	rc = mnt3_dec_mnt(x, &fh, &flavors);
	/* The builder lists 1 (AUTH_SYS), then 390004 (krb5i), 390005 (krb5p), 390006 (none of
	 * ours): a bit each by enum engine_sec, the unknown one left out. */
	for (uint32_t i = 0; i < c->n && i < 3; i++)
		want |= 1u << (i ? i + 1 : 0);
	if (check && rc == 0) {
		check_fh("fh", &fh, c->fh);
		assert_int_equal(flavors, want);
	}
	return rc;
}

static void build_getattr(XDR *x, const struct dec_case *c)
{
	b32(x, c->stat);
	if (!c->stat)
		bfattr(x, c->attr);
}

static int dec_getattr(XDR *x, const struct dec_case *c, bool check)
{
	struct nfs_attr a;
	int rc;

	memset(&a, 0xa5, sizeof(a));
	rc = nfs3_dec_getattr(x, &a);
	if (check && rc == 0)
		check_attr("attr", &a, c->attr);
	return rc;
}

static void build_lookup(XDR *x, const struct dec_case *c)
{
	b32(x, c->stat);
	if (!c->stat) {
		bfh(x, c->fh);
		bpost(x, c->attr);
	}
	bpost(x, c->attr2);
}

static int dec_lookup(XDR *x, const struct dec_case *c, bool check)
{
	struct nfs_attr a;
	struct nfs_fh fh;
	int rc;

	memset(&a, 0xa5, sizeof(a));
	memset(&fh, 0xa5, sizeof(fh));
	rc = nfs3_dec_lookup(x, &fh, &a);
	if (check && rc == 0) {
		check_fh("fh", &fh, c->fh);
		check_attr("attr", &a, c->attr);
	}
	return rc;
}

static int dec_lookup_null_attr(XDR *x, const struct dec_case *c, bool check)
{
	struct nfs_fh fh;
	int rc;

	memset(&fh, 0xa5, sizeof(fh));
	rc = nfs3_dec_lookup(x, &fh, NULL);
	if (check && rc == 0)
		check_fh("fh", &fh, c->fh);
	return rc;
}

static void build_access(XDR *x, const struct dec_case *c)
{
	b32(x, c->stat);
	bpost(x, c->attr);
	if (!c->stat)
		b32(x, c->n);
}

static int dec_access(XDR *x, const struct dec_case *c, bool check)
{
	uint32_t access = 0xa5a5a5a5;
	int rc = nfs3_dec_access(x, &access);

	if (check && rc == 0)
		check_num("access", access, c->n);
	return rc;
}

static void build_read(XDR *x, const struct dec_case *c)
{
	b32(x, c->stat);
	bpost(x, c->attr);
	if (c->stat)
		return;
	b32(x, c->n);
	b32(x, c->flag);
	bopaque(x, rdata, c->n);
}

/* The data is summed even when not checked, so that ASan sees every byte read. */
static volatile uint32_t sink;

static int dec_read(XDR *x, const struct dec_case *c, bool check)
{
	const uint8_t *data = NULL;
	uint32_t count = 0xa5a5a5a5, i, sum = 0;
	bool eof = !c->flag;
	int rc = nfs3_dec_read(x, &count, &eof, &data);

	if (rc != 0)
		return rc;
	for (i = 0; i < count; i++)
		sum += data[i];
	if (check) {
		check_num("count", count, c->n);
		check_num("eof", eof, c->flag);
		if (count == c->n)
			check_bytes("data", data, count, rdata, c->n);
	}
	sink = sum;
	return rc;
}

static void build_write(XDR *x, const struct dec_case *c)
{
	b32(x, c->stat);
	bwcc(x, c->pre, c->attr2);
	if (c->stat)
		return;
	b32(x, c->n);
	b32(x, c->how);
	bbytes(x, verf, 8);
}

static int dec_write(XDR *x, const struct dec_case *c, bool check)
{
	uint32_t count = 0xa5a5a5a5;
	enum nfs3_stable committed = (enum nfs3_stable)99;
	uint8_t v[8];
	int rc;

	memset(v, 0xa5, sizeof(v));
	rc = nfs3_dec_write(x, &count, &committed, v);
	if (check && rc == 0) {
		check_num("count", count, c->n);
		check_num("committed", (uint32_t)committed, c->how);
		check_bytes("verf", v, 8, verf, 8);
	}
	return rc;
}

static void build_commit(XDR *x, const struct dec_case *c)
{
	b32(x, c->stat);
	bwcc(x, c->pre, c->attr2);
	if (!c->stat)
		bbytes(x, verf, 8);
}

static int dec_commit(XDR *x, const struct dec_case *c, bool check)
{
	uint8_t v[8];
	int rc;

	(void)c;
	memset(v, 0xa5, sizeof(v));
	rc = nfs3_dec_commit(x, v);
	if (check && rc == 0)
		check_bytes("verf", v, 8, verf, 8);
	return rc;
}

static void build_create(XDR *x, const struct dec_case *c)
{
	b32(x, c->stat);
	if (!c->stat) {
		bpostfh(x, c->fh);
		bpost(x, c->attr);
	}
	bwcc(x, c->pre, c->attr2);
}

static int dec_create(XDR *x, const struct dec_case *c, bool check)
{
	struct nfs_fh fh;
	bool has_fh = c->fh == NULL;
	int rc;

	memset(&fh, 0xa5, sizeof(fh));
	rc = nfs3_dec_create(x, &has_fh, &fh);
	if (check && rc == 0) {
		check_num("has_fh", has_fh, c->fh != NULL);
		if (c->fh && has_fh)
			check_fh("fh", &fh, c->fh);
	}
	return rc;
}

/* REMOVE, RMDIR, SETATTR: one wcc_data; RENAME (n = 2): two */
static void build_wcc(XDR *x, const struct dec_case *c)
{
	uint32_t i;

	b32(x, c->stat);
	for (i = 0; i < (c->n ? c->n : 1); i++)
		bwcc(x, c->pre, c->attr2);
}

static int dec_wcc(XDR *x, const struct dec_case *c, bool check)
{
	(void)c;
	(void)check;
	return nfs3_dec_wcc(x);
}

static void build_fsinfo(XDR *x, const struct dec_case *c)
{
	const struct nfs3_fsinfo *f = &fsinfo_want;

	b32(x, c->stat);
	bpost(x, c->attr);
	if (c->stat)
		return;
	b32(x, f->rtmax);
	b32(x, f->rtpref);
	b32(x, 4096);			/* rtmult */
	b32(x, f->wtmax);
	b32(x, f->wtpref);
	b32(x, 512);			/* wtmult */
	b32(x, f->dtpref);
	b64(x, f->maxfilesize);
	b32(x, 0);			/* time_delta */
	b32(x, 1);
	b32(x, 0x1b);			/* properties */
}

static int dec_fsinfo(XDR *x, const struct dec_case *c, bool check)
{
	struct nfs3_fsinfo fi;
	int rc;

	(void)c;
	memset(&fi, 0xa5, sizeof(fi));
	rc = nfs3_dec_fsinfo(x, &fi);
	if (check && rc == 0) {
		check_num("rtmax", fi.rtmax, fsinfo_want.rtmax);
		check_num("rtpref", fi.rtpref, fsinfo_want.rtpref);
		check_num("wtmax", fi.wtmax, fsinfo_want.wtmax);
		check_num("wtpref", fi.wtpref, fsinfo_want.wtpref);
		check_num("dtpref", fi.dtpref, fsinfo_want.dtpref);
		check_num("maxfilesize", fi.maxfilesize, fsinfo_want.maxfilesize);
	}
	return rc;
}

static void build_readdirplus(XDR *x, const struct dec_case *c)
{
	unsigned i;

	b32(x, c->stat);
	bpost(x, c->attr);
	if (c->stat)
		return;
	bbytes(x, verf, 8);
	for (i = 0; i < c->nents; i++) {
		const struct ent *e = &c->ents[i];

		b32(x, 1);
		b64(x, e->fileid);
		bopaque(x, e->name, (uint32_t)strlen(e->name));
		b64(x, e->cookie);
		bpost(x, e->attr);
		bpostfh(x, e->fh);
	}
	b32(x, 0);
	b32(x, c->flag);
}

struct seen {
	const uint8_t *lo, *hi;		/* the record */
	unsigned n, stop_after;
	struct {
		char name[64];
		uint32_t namelen;
		uint64_t cookie;
		bool is_dir;
	} e[16];
};

static int seen_fn(void *arg, const char *name, uint32_t namelen, uint64_t cookie, bool is_dir)
{
	struct seen *s = arg;
	const uint8_t *p = (const uint8_t *)name;

	if ((uintptr_t)p < (uintptr_t)s->lo || namelen > (uintptr_t)s->hi - (uintptr_t)p) {
		print_error("%s: entry %u: name outside the record\n", cur, s->n);
		fails++;
		return -1;
	}
	if (s->n < N(s->e)) {
		memcpy(s->e[s->n].name, name, namelen < 64 ? namelen : 64);
		s->e[s->n].namelen = namelen;
		s->e[s->n].cookie = cookie;
		s->e[s->n].is_dir = is_dir;
	}
	s->n++;
	return s->stop_after && s->n == s->stop_after ? 42 : 0;
}

static int dec_readdirplus(XDR *x, const struct dec_case *c, bool check)
{
	struct seen s = { .stop_after = c->stop_after };
	uint8_t v[8];
	bool eof = !c->flag;
	unsigned i, want_n;
	int rc;

	s.lo = rec_lo;
	s.hi = rec_hi;
	memset(v, 0xa5, sizeof(v));
	rc = nfs3_dec_readdirplus(x, v, &eof, seen_fn, &s);
	if (rc < 0 && s.n) {
		print_error("%s: rc %d after %u entries: fn saw a reply that was garbage\n",
			    cur, rc, s.n);
		fails++;
	}
	if (!check || (rc != 0 && rc != 42))
		return rc;
	check_bytes("cookieverf", v, 8, verf, 8);
	check_num("eof", eof, c->flag);
	want_n = c->stop_after ? c->stop_after : c->nents;
	check_num("entries", s.n, want_n);
	for (i = 0; i < want_n && i < s.n && i < N(s.e); i++) {
		const struct ent *e = &c->ents[i];
		char what[64];

		snprintf(what, sizeof(what), "entry %u name", i);
		check_bytes(what, (const uint8_t *)s.e[i].name, s.e[i].namelen,
			    (const uint8_t *)e->name, strlen(e->name));
		snprintf(what, sizeof(what), "entry %u cookie", i);
		check_num(what, s.e[i].cookie, e->cookie);
		snprintf(what, sizeof(what), "entry %u is_dir", i);
		check_num(what, s.e[i].is_dir, e->attr && e->attr->type == NFS3_DIR);
	}
	return rc;
}

static int dec_readdirplus_nofn(XDR *x, const struct dec_case *c, bool check)
{
	uint8_t v[8];
	bool eof = !c->flag;
	int rc = nfs3_dec_readdirplus(x, v, &eof, NULL, NULL);

	if (check && rc == 0) {
		check_bytes("cookieverf", v, 8, verf, 8);
		check_num("eof", eof, c->flag);
	}
	return rc;
}

static const struct ent dir_ents[] = {
	{ ".", 2, 1, &attr_dir, &fh32 },
	{ "..", 1, 2, &attr_dir, NULL },
	{ "file1", 4242, 3, &attr_file, &fh8 },
	{ "dir1", 5000, UINT64_C(0x7fffffff00000004), &attr_dir, &fh64 },
	{ "no-attributes", 6000, 5, NULL, &fh32 },
	{ "a-link", 77, 6, &attr_link, NULL },
	{ "neither", 7000, 7, NULL, NULL },
};

/* Garbage: each is a valid result but for one field. */

static void build_bad_bool(XDR *x, const struct dec_case *c)
{
	(void)c;
	b32(x, 0);
	b32(x, 2);			/* post_op_attr's bool */
	b32(x, 4096);
	b32(x, 1);
	bopaque(x, rdata, 4096);
}

static void build_read_mismatch(XDR *x, const struct dec_case *c)
{
	(void)c;
	b32(x, 0);
	b32(x, 0);
	b32(x, 100);			/* count */
	b32(x, 0);
	bopaque(x, rdata, 96);
}

static void build_read_long(XDR *x, const struct dec_case *c)
{
	(void)c;
	b32(x, 0);
	b32(x, 0);
	b32(x, 200);
	b32(x, 1);
	b32(x, 200);			/* 100 bytes follow */
	bbytes(x, rdata, 100);
}

static void build_read_huge(XDR *x, const struct dec_case *c)
{
	(void)c;
	b32(x, 0);
	b32(x, 0);
	b32(x, UINT32_MAX - 1);		/* padded to 0 if the padding wraps */
	b32(x, 1);
	b32(x, UINT32_MAX - 1);
	bbytes(x, rdata, 64);
}

static void build_fh_long(XDR *x, const struct dec_case *c)
{
	struct nfs_fh fh;

	(void)c;
	make_fh(&fh, 65, 3);
	b32(x, 0);
	bfh(x, &fh);
	bpost(x, NULL);
	bpost(x, NULL);
}

static void build_mnt_fh_long(XDR *x, const struct dec_case *c)
{
	struct nfs_fh fh;

	(void)c;
	make_fh(&fh, 68, 3);
	b32(x, 0);
	bfh(x, &fh);
	b32(x, 0);
}

static void build_mnt_flavors_huge(XDR *x, const struct dec_case *c)
{
	(void)c;
	b32(x, 0);
	bfh(x, &fh32);
	b32(x, 0x40000000);		/* 4 GiB of flavors: wraps to 0 bytes in 32 bits */
	b32(x, 1);
}

static void build_attr_type0(XDR *x, const struct dec_case *c)
{
	static const struct nfs_attr bad = { 0, 0644, 1, 1 };

	(void)c;
	b32(x, 0);
	bfattr(x, &bad);
}

static void build_attr_type8(XDR *x, const struct dec_case *c)
{
	static const struct nfs_attr bad = { 8, 0644, 1, 1 };

	(void)c;
	b32(x, 0);
	bfattr(x, &bad);
}

static void build_write_committed3(XDR *x, const struct dec_case *c)
{
	(void)c;
	b32(x, 0);
	bwcc(x, false, NULL);
	b32(x, 4096);
	b32(x, 3);
	bbytes(x, verf, 8);
}

static void build_stat_huge(XDR *x, const struct dec_case *c)
{
	(void)c;
	b32(x, 0x80000000u);
	bpost(x, NULL);
}

static void build_rdp_name_huge(XDR *x, const struct dec_case *c)
{
	(void)c;
	b32(x, 0);
	bpost(x, NULL);
	bbytes(x, verf, 8);
	b32(x, 1);
	b64(x, 9);
	b32(x, UINT32_MAX);		/* name length */
	b64(x, 1);
	b32(x, 0);
	b32(x, 0);
	b32(x, 0);
	b32(x, 1);
}

/* Entries that check out, then a bool of 3 where the list goes on: fn must see none. */
static void build_rdp_bad_tail(XDR *x, const struct dec_case *c)
{
	build_readdirplus(x, c);
	xdr_setpos(x, xdr_getpos(x) - 8);	/* over the list's end and eof */
	b32(x, 3);
	b32(x, 1);
}

#define EBAD (-EBADMSG)

/* name, builder, decoder, rc wanted, status sent */
#define DC(nm, b, d, r, st) .name = nm, .build = b, .decode = d, .rc = r, .stat = st

static const struct dec_case dec_cases[] = {
	{ DC("MNT ok", build_mnt, dec_mnt, 0, 0), .fh = &fh32, .n = 2 },
	{ DC("MNT ok, sys krb5i krb5p and another", build_mnt, dec_mnt, 0, 0), .fh = &fh32, .n = 4 },
	{ DC("MNT ok, fh 64, no flavors", build_mnt, dec_mnt, 0, 0), .fh = &fh64, .n = 0 },
	{ DC("MNT ok, fh 0", build_mnt, dec_mnt, 0, 0), .fh = &fh0, .n = 1 },
	{ DC("MNT ACCES", build_mnt, dec_mnt, 13, 13) },
	{ DC("MNT NOTSUPP", build_mnt, dec_mnt, 10004, 10004) },
	{ DC("MNT fh 68", build_mnt_fh_long, dec_mnt, EBAD, 0) },
	{ DC("MNT 2^30 flavors", build_mnt_flavors_huge, dec_mnt, EBAD, 0) },

	{ DC("GETATTR file", build_getattr, dec_getattr, 0, 0), .attr = &attr_file },
	{ DC("GETATTR dir", build_getattr, dec_getattr, 0, 0), .attr = &attr_dir },
	{ DC("GETATTR STALE", build_getattr, dec_getattr, 70, 70) },
	{ DC("GETATTR type 0", build_attr_type0, dec_getattr, EBAD, 0) },
	{ DC("GETATTR type 8", build_attr_type8, dec_getattr, EBAD, 0) },
	{ DC("GETATTR status 2^31", build_stat_huge, dec_getattr, EBAD, 0x80000000u) },

	{ DC("LOOKUP ok, both attrs", build_lookup, dec_lookup, 0, 0), .fh = &fh32,
	  .attr = &attr_file, .attr2 = &attr_dir },
	{ DC("LOOKUP ok, no attrs", build_lookup, dec_lookup, 0, 0), .fh = &fh64 },
	{ DC("LOOKUP ok, dir attrs only", build_lookup, dec_lookup, 0, 0), .fh = &fh8,
	  .attr2 = &attr_dir },
	{ DC("LOOKUP ok, attr NULL", build_lookup, dec_lookup_null_attr, 0, 0), .fh = &fh32,
	  .attr = &attr_dir, .attr2 = &attr_dir },
	{ DC("LOOKUP NOENT", build_lookup, dec_lookup, 2, 2), .attr2 = &attr_dir },
	{ DC("LOOKUP NOENT, no attrs", build_lookup, dec_lookup, 2, 2) },
	{ DC("LOOKUP fh 65", build_fh_long, dec_lookup, EBAD, 0) },

	{ DC("ACCESS ok", build_access, dec_access, 0, 0), .attr = &attr_file, .n = 0x2d },
	{ DC("ACCESS ok, no attrs", build_access, dec_access, 0, 0), .n = 0xffffffff },
	{ DC("ACCESS ACCES", build_access, dec_access, 13, 13), .attr = &attr_file },

	{ DC("READ ok", build_read, dec_read, 0, 0), .attr = &attr_file, .n = 5, .flag = true },
	{ DC("READ ok, 4096, no attrs", build_read, dec_read, 0, 0), .n = 4096 },
	{ DC("READ ok, 0 bytes, eof", build_read, dec_read, 0, 0), .attr = &attr_file,
	  .flag = true },
	{ DC("READ ok, 4095", build_read, dec_read, 0, 0), .attr = &attr_file, .n = 4095 },
	{ DC("READ IO", build_read, dec_read, 5, 5), .attr = &attr_file },
	{ DC("READ JUKEBOX", build_read, dec_read, 10008, 10008) },
	{ DC("READ bool 2", build_bad_bool, dec_read, EBAD, 0) },
	{ DC("READ count 100, 96 bytes", build_read_mismatch, dec_read, EBAD, 0) },
	{ DC("READ opaque past the end", build_read_long, dec_read, EBAD, 0) },
	{ DC("READ opaque 2^32 - 2", build_read_huge, dec_read, EBAD, 0) },

	{ DC("WRITE ok, wcc", build_write, dec_write, 0, 0), .pre = true, .attr2 = &attr_file,
	  .n = 4096, .how = NFS3_FILE_SYNC },
	{ DC("WRITE ok, no wcc", build_write, dec_write, 0, 0), .n = 1, .how = NFS3_UNSTABLE },
	{ DC("WRITE ok, pre only", build_write, dec_write, 0, 0), .pre = true, .n = 65536,
	  .how = NFS3_DATA_SYNC },
	{ DC("WRITE NOSPC", build_write, dec_write, 28, 28), .pre = true, .attr2 = &attr_file },
	{ DC("WRITE committed 3", build_write_committed3, dec_write, EBAD, 0) },

	{ DC("COMMIT ok, wcc", build_commit, dec_commit, 0, 0), .pre = true, .attr2 = &attr_file },
	{ DC("COMMIT ok, no wcc", build_commit, dec_commit, 0, 0) },
	{ DC("COMMIT JUKEBOX", build_commit, dec_commit, 10008, 10008) },

	{ DC("CREATE ok, fh, attrs, wcc", build_create, dec_create, 0, 0), .fh = &fh32,
	  .attr = &attr_file, .pre = true, .attr2 = &attr_dir },
	{ DC("CREATE ok, no fh, no attrs", build_create, dec_create, 0, 0) },
	{ DC("MKDIR ok, fh 64", build_create, dec_create, 0, 0), .fh = &fh64, .attr = &attr_dir },
	{ DC("CREATE EXIST", build_create, dec_create, 17, 17), .pre = true, .attr2 = &attr_dir },

	{ DC("REMOVE ok", build_wcc, dec_wcc, 0, 0), .pre = true, .attr2 = &attr_dir },
	{ DC("RENAME ok", build_wcc, dec_wcc, 0, 0), .pre = true, .attr2 = &attr_dir, .n = 2 },
	{ DC("RMDIR NOTEMPTY", build_wcc, dec_wcc, 66, 66), .attr2 = &attr_dir },

	{ DC("FSINFO ok", build_fsinfo, dec_fsinfo, 0, 0), .attr = &attr_dir },
	{ DC("FSINFO ok, no attrs", build_fsinfo, dec_fsinfo, 0, 0) },
	{ DC("FSINFO BADHANDLE", build_fsinfo, dec_fsinfo, 10001, 10001), .attr = &attr_dir },

	{ DC("READDIRPLUS 7 entries", build_readdirplus, dec_readdirplus, 0, 0), .attr = &attr_dir,
	  .ents = dir_ents, .nents = N(dir_ents), .flag = true },
	{ DC("READDIRPLUS stops at 3", build_readdirplus, dec_readdirplus, 42, 0),
	  .ents = dir_ents, .nents = N(dir_ents), .stop_after = 3, .flag = true },
	{ DC("READDIRPLUS stops at the last", build_readdirplus, dec_readdirplus, 42, 0),
	  .ents = dir_ents, .nents = N(dir_ents), .stop_after = N(dir_ents) },
	{ DC("READDIRPLUS empty, not eof", build_readdirplus, dec_readdirplus, 0, 0),
	  .attr = &attr_dir },
	{ DC("READDIRPLUS fn NULL", build_readdirplus, dec_readdirplus_nofn, 0, 0),
	  .ents = dir_ents, .nents = N(dir_ents), .flag = true },
	{ DC("READDIRPLUS BAD_COOKIE", build_readdirplus, dec_readdirplus, 10003, 10003),
	  .attr = &attr_dir },
	{ DC("READDIRPLUS name 2^32 - 1", build_rdp_name_huge, dec_readdirplus, EBAD, 0) },
	{ DC("READDIRPLUS bool 3 after 3 entries", build_rdp_bad_tail, dec_readdirplus, EBAD, 0),
	  .ents = dir_ents, .nents = 3 },
};

/* Builds a case into big; its length. */
static size_t build(const struct dec_case *c)
{
	XDR x;
	size_t n;

	memset(big, 0, sizeof(big));
	xdrmem_create(&x, (char *)big, sizeof(big), XDR_ENCODE);
	c->build(&x, c);
	n = xdr_getpos(&x);
	xdr_destroy(&x);
	return n;
}

/* Decodes len bytes of rec from a heap copy of exactly that size, at an odd address if unaligned. */
static int decode_copy(const struct dec_case *c, const uint8_t *rec, size_t len, bool unaligned,
		       bool check)
{
	static uint8_t none[1];
	uint8_t *mem = malloc(len + unaligned), *p;
	XDR x;
	int rc;

	if (!mem && len + unaligned > 0)
		fail_msg("out of memory");
	p = mem ? mem + unaligned : none;
	memcpy(p, rec, len);
	rec_lo = p;
	rec_hi = p + len;
	xdrx_create(&x, p, len, XDR_DECODE);
	rc = c->decode(&x, c, check);
	xdr_destroy(&x);
	free(mem);
	return rc;
}

static void test_decoders(void **state)
{
	size_t i;

	(void)state;
	fails = 0;
	for (i = 0; i < N(dec_cases); i++) {
		const struct dec_case *c = &dec_cases[i];
		size_t n;
		int a;

		cur = c->name;
		n = build(c);
		for (a = 0; a < 2; a++) {
			int rc = decode_copy(c, big, n, a, true);

			if (rc != c->rc) {
				print_error("%s (%s): rc %d, want %d\n", c->name,
					    a ? "unaligned" : "aligned", rc, c->rc);
				fails++;
			}
		}
	}
	assert_int_equal(fails, 0);
}

/* What a decoder must return for the first k bytes of case c. */
static int want_truncated(const struct dec_case *c, size_t k)
{
	if (k < 4 || c->stat > INT_MAX)
		return -EBADMSG;
	if (c->stat)
		return (int)c->stat;
	return c->decode == dec_wcc ? 0 : -EBADMSG;
}

static void test_truncated(void **state)
{
	uint8_t rec[BUF_MAX];
	size_t i, k;

	(void)state;
	fails = 0;
	for (i = 0; i < N(dec_cases); i++) {
		const struct dec_case *c = &dec_cases[i];
		size_t n;

		cur = c->name;
		n = build(c);
		memcpy(rec, big, n);
		for (k = 0; k < n; k++) {
			int a;

			for (a = 0; a < 2; a++) {
				int rc = decode_copy(c, rec, k, a, false);

				if (rc != want_truncated(c, k)) {
					print_error("%s cut at %zu of %zu (%s): rc %d, want %d\n",
						    c->name, k, n, a ? "unaligned" : "aligned",
						    rc, want_truncated(c, k));
					fails++;
				}
			}
		}
	}
	assert_int_equal(fails, 0);
}

/* Random bytes over valid results: anything but a crash or a read outside the record. */
static void test_garbage(void **state)
{
	static const uint32_t special[] = { 0, 1, 2, 3, 64, 65, 0x7fffffff, 0x80000000u,
					    0xfffffffcu, 0xfffffffdu, 0xffffffffu };
	uint8_t rec[BUF_MAX];
	size_t i;
	int round;

	(void)state;
	fails = 0;
	for (i = 0; i < N(dec_cases); i++) {
		const struct dec_case *c = &dec_cases[i];
		size_t n;

		cur = c->name;
		n = build(c);
		for (round = 0; round < 400; round++) {
			size_t len = n, j, nmut = 1 + rng_next() % 3;
			int rc;

			memcpy(rec, big, n);
			for (j = 0; j < nmut && n >= 4; j++) {
				size_t at = (rng_next() % (n / 4)) * 4;
				uint32_t v = special[rng_next() % N(special)];

				if (rng_next() % 4 == 0)
					rec[rng_next() % n] = (uint8_t)rng_next();
				else {
					rec[at] = (uint8_t)(v >> 24);
					rec[at + 1] = (uint8_t)(v >> 16);
					rec[at + 2] = (uint8_t)(v >> 8);
					rec[at + 3] = (uint8_t)v;
				}
			}
			if (rng_next() % 2)
				len = rng_next() % (n + 1);
			rc = decode_copy(c, rec, len, round & 1, false);
			if (rc < 0 && rc != -EBADMSG && rc != -1) {
				print_error("%s, mutation %d: rc %d\n", c->name, round, rc);
				fails++;
			}
		}
		/* all noise */
		for (round = 0; round < 100; round++) {
			size_t len = rng_next() % 512, j;

			for (j = 0; j < len; j++)
				rec[j] = (uint8_t)(rng_next() >> 8);
			(void)decode_copy(c, rec, len, round & 1, false);
		}
	}
	assert_int_equal(fails, 0);
}

/* Encoders: read back with xdr_* calls. */

static void w32(XDR *x, const char *what, uint32_t want)
{
	u_int u;

	if (!xdr_u_int(x, &u)) {
		print_error("%s: %s: the message ends\n", cur, what);
		fails++;
		return;
	}
	check_num(what, u, want);
}

static void w64(XDR *x, const char *what, uint64_t want)
{
	uint64_t v;

	if (!xdr_uint64_t(x, &v)) {
		print_error("%s: %s: the message ends\n", cur, what);
		fails++;
		return;
	}
	check_num(what, v, want);
}

static void wfixed(XDR *x, const char *what, const void *want, uint32_t len)
{
	uint8_t got[2048];

	if (len > sizeof(got) || !xdr_opaque(x, (char *)got, len)) {
		print_error("%s: %s: the message ends\n", cur, what);
		fails++;
		return;
	}
	check_bytes(what, got, len, want, len);
}

static void wopaque(XDR *x, const char *what, const void *want, uint32_t len)
{
	uint8_t got[2048];
	u_int n;

	if (!xdr_u_int(x, &n) || n > sizeof(got) || !xdr_opaque(x, (char *)got, n)) {
		print_error("%s: %s: the message ends or is too long\n", cur, what);
		fails++;
		return;
	}
	check_bytes(what, got, n, want, len);
}

static void wstring(XDR *x, const char *what, const char *want)
{
	wopaque(x, what, want, (uint32_t)strlen(want));
}

static void wfh(XDR *x, const char *what, const struct nfs_fh *fh)
{
	wopaque(x, what, fh->data, fh->len);
}

static void wsattr(XDR *x, const struct nfs_sattr *sa)
{
	w32(x, "set_mode", sa->has_mode);
	if (sa->has_mode)
		w32(x, "mode", sa->mode);
	w32(x, "set_uid", 0);
	w32(x, "set_gid", 0);
	w32(x, "set_size", sa->has_size);
	if (sa->has_size)
		w64(x, "size", sa->size);
	w32(x, "set_atime", sa->has_times);
	w32(x, "set_mtime", sa->has_times);
}

static char path1024[1025];
static const struct nfs_sattr sa_none;
static const struct nfs_sattr sa_mode = { .has_mode = true, .mode = 0600 };
static const struct nfs_sattr sa_size = { .has_size = true, .size = UINT64_C(1) << 33 };
static const struct nfs_sattr sa_all = { true, true, true, 04755, UINT64_C(0x123456789) };
static const struct nfs_sattr sa_times = { .has_times = true };

#define OFF UINT64_C(0x10000000005)

static bool e_mnt(XDR *x) { return mnt3_enc_mnt(x, "/export/nfsload"); }
static void c_mnt(XDR *x) { wstring(x, "dirpath", "/export/nfsload"); }
static bool e_mnt1024(XDR *x) { return mnt3_enc_mnt(x, path1024); }
static void c_mnt1024(XDR *x) { wstring(x, "dirpath", path1024); }
static bool e_fh64(XDR *x) { return nfs3_enc_fh(x, &fh64); }
static void c_fh64(XDR *x) { wfh(x, "fh", &fh64); }
static bool e_fh0(XDR *x) { return nfs3_enc_fh(x, &fh0); }
static void c_fh0(XDR *x) { wfh(x, "fh", &fh0); }

static bool e_lookup(XDR *x) { return nfs3_enc_lookup(x, &fh32, "name.txt"); }
static void c_lookup(XDR *x)
{
	wfh(x, "dir", &fh32);
	wstring(x, "name", "name.txt");
}

static bool e_access(XDR *x) { return nfs3_enc_access(x, &fh8, 0x3f); }
static void c_access(XDR *x)
{
	wfh(x, "fh", &fh8);
	w32(x, "access", 0x3f);
}

static bool e_read(XDR *x) { return nfs3_enc_read(x, &fh32, OFF, 1048576); }
static void c_read(XDR *x)
{
	wfh(x, "fh", &fh32);
	w64(x, "offset", OFF);
	w32(x, "count", 1048576);
}

static bool e_write(XDR *x) { return nfs3_enc_write(x, &fh64, OFF, 4097, NFS3_FILE_SYNC); }
static void c_write(XDR *x)
{
	wfh(x, "fh", &fh64);
	w64(x, "offset", OFF);
	w32(x, "count", 4097);
	w32(x, "stable", NFS3_FILE_SYNC);
	w32(x, "data length", 4097);
}

static bool e_write_unstable(XDR *x) { return nfs3_enc_write(x, &fh8, 0, 0, NFS3_UNSTABLE); }
static void c_write_unstable(XDR *x)
{
	wfh(x, "fh", &fh8);
	w64(x, "offset", 0);
	w32(x, "count", 0);
	w32(x, "stable", NFS3_UNSTABLE);
	w32(x, "data length", 0);
}

static bool e_commit(XDR *x) { return nfs3_enc_commit(x, &fh32, OFF, 65536); }
static void c_commit(XDR *x)
{
	wfh(x, "fh", &fh32);
	w64(x, "offset", OFF);
	w32(x, "count", 65536);
}

static bool e_create(XDR *x)
{
	return nfs3_enc_create(x, &fh32, "f.0.1", NFS3_CREATE_UNCHECKED, 0644);
}
static void c_create(XDR *x)
{
	const struct nfs_sattr sa = { .has_mode = true, .mode = 0644 };

	wfh(x, "dir", &fh32);
	wstring(x, "name", "f.0.1");
	w32(x, "createmode", NFS3_CREATE_UNCHECKED);
	wsattr(x, &sa);
}

static bool e_create_guarded(XDR *x)
{
	return nfs3_enc_create(x, &fh64, "guarded", NFS3_CREATE_GUARDED, 0600);
}
static void c_create_guarded(XDR *x)
{
	const struct nfs_sattr sa = { .has_mode = true, .mode = 0600 };

	wfh(x, "dir", &fh64);
	wstring(x, "name", "guarded");
	w32(x, "createmode", NFS3_CREATE_GUARDED);
	wsattr(x, &sa);
}

static bool e_mkdir(XDR *x) { return nfs3_enc_mkdir(x, &fh8, "d.12", 0755); }
static void c_mkdir(XDR *x)
{
	const struct nfs_sattr sa = { .has_mode = true, .mode = 0755 };

	wfh(x, "dir", &fh8);
	wstring(x, "name", "d.12");
	wsattr(x, &sa);
}

static bool e_rename(XDR *x) { return nfs3_enc_rename(x, &fh8, "from", &fh64, "to.x"); }
static void c_rename(XDR *x)
{
	wfh(x, "from dir", &fh8);
	wstring(x, "from", "from");
	wfh(x, "to dir", &fh64);
	wstring(x, "to", "to.x");
}

#define SETATTR_CASE(nm, sa)							\
	static bool e_setattr_##nm(XDR *x) { return nfs3_enc_setattr(x, &fh32, &sa); } \
	static void c_setattr_##nm(XDR *x)					\
	{									\
		wfh(x, "fh", &fh32);						\
		wsattr(x, &sa);							\
		w32(x, "guard.check", 0);					\
	}
SETATTR_CASE(none, sa_none)
SETATTR_CASE(mode, sa_mode)
SETATTR_CASE(size, sa_size)
SETATTR_CASE(times, sa_times)
SETATTR_CASE(all, sa_all)

static bool e_readdirplus(XDR *x)
{
	return nfs3_enc_readdirplus(x, &fh32, UINT64_C(123456789012), verf, 8192, 65536);
}
static void c_readdirplus(XDR *x)
{
	wfh(x, "dir", &fh32);
	w64(x, "cookie", UINT64_C(123456789012));
	wfixed(x, "cookieverf", verf, 8);
	w32(x, "dircount", 8192);
	w32(x, "maxcount", 65536);
}

struct enc_case {
	const char *name;
	bool (*enc)(XDR *x);
	void (*check)(XDR *x);
};

static const struct enc_case enc_cases[] = {
	{ "MNT", e_mnt, c_mnt },
	{ "MNT 1024", e_mnt1024, c_mnt1024 },
	{ "GETATTR fh 64", e_fh64, c_fh64 },
	{ "FSINFO fh 0", e_fh0, c_fh0 },
	{ "LOOKUP", e_lookup, c_lookup },
	{ "ACCESS", e_access, c_access },
	{ "READ", e_read, c_read },
	{ "WRITE", e_write, c_write },
	{ "WRITE unstable 0", e_write_unstable, c_write_unstable },
	{ "COMMIT", e_commit, c_commit },
	{ "CREATE unchecked", e_create, c_create },
	{ "CREATE guarded", e_create_guarded, c_create_guarded },
	{ "MKDIR", e_mkdir, c_mkdir },
	{ "RENAME", e_rename, c_rename },
	{ "SETATTR nothing", e_setattr_none, c_setattr_none },
	{ "SETATTR mode", e_setattr_mode, c_setattr_mode },
	{ "SETATTR size", e_setattr_size, c_setattr_size },
	{ "SETATTR times", e_setattr_times, c_setattr_times },
	{ "SETATTR all", e_setattr_all, c_setattr_all },
	{ "READDIRPLUS", e_readdirplus, c_readdirplus },
};

static void test_encoders(void **state)
{
	size_t i, k;

	(void)state;
	fails = 0;
	memset(path1024, 'p', 1024);
	path1024[0] = '/';
	for (i = 0; i < N(enc_cases); i++) {
		const struct enc_case *c = &enc_cases[i];
		XDR x;
		size_t n;

		cur = c->name;
		memset(big, 0xa5, sizeof(big));
		xdrmem_create(&x, (char *)big, sizeof(big), XDR_ENCODE);
		if (!c->enc(&x)) {
			print_error("%s: the encoder failed\n", c->name);
			fails++;
			continue;
		}
		n = xdr_getpos(&x);
		xdr_destroy(&x);
		xdrmem_create(&x, (char *)big, (u_int)n, XDR_DECODE);
		c->check(&x);
		check_num("length read back", xdr_getpos(&x), n);
		xdr_destroy(&x);

		/* every smaller buffer fails, without writing past its end */
		for (k = 0; k < n; k++) {
			uint8_t *p = malloc(k ? k : 1);
			bool ok;

			if (!p)
				fail_msg("out of memory");
			xdrmem_create(&x, (char *)p, (u_int)k, XDR_ENCODE);
			ok = c->enc(&x);
			xdr_destroy(&x);
			free(p);
			if (ok) {
				print_error("%s: encoded into %zu bytes of %zu\n", c->name, k, n);
				fails++;
			}
		}
	}
	assert_int_equal(fails, 0);
}

static void test_encoders_refuse(void **state)
{
	struct nfs_fh fh65;
	char path[1026];
	XDR x;

	(void)state;
	fails = 0;
	cur = "refusals";
	make_fh(&fh65, 65, 9);
	memset(path, 'p', 1025);
	path[0] = '/';
	path[1025] = '\0';
	xdrmem_create(&x, (char *)big, sizeof(big), XDR_ENCODE);
	check_num("fh 65", nfs3_enc_fh(&x, &fh65), false);
	check_num("fh 128", nfs3_enc_fh(&x, &(struct nfs_fh){ .len = 128 }), false);
	check_num("LOOKUP dir fh 65", nfs3_enc_lookup(&x, &fh65, "a"), false);
	check_num("READ fh 65", nfs3_enc_read(&x, &fh65, 0, 1), false);
	check_num("RENAME to dir fh 65", nfs3_enc_rename(&x, &fh8, "a", &fh65, "b"), false);
	check_num("MNT 1025", mnt3_enc_mnt(&x, path), false);
	check_num("MNT NULL", mnt3_enc_mnt(&x, NULL), false);
	check_num("LOOKUP name NULL", nfs3_enc_lookup(&x, &fh8, NULL), false);
	check_num("CREATE exclusive", nfs3_enc_create(&x, &fh8, "a", (enum nfs3_createmode)2,
						      0644), false);
	xdr_destroy(&x);
	assert_int_equal(fails, 0);
}

static void test_errno(void **state)
{
	static const struct { uint32_t stat; int err; } cases[] = {
		{ 0, 0 }, { 1, -EPERM }, { 2, -ENOENT }, { 5, -EIO }, { 6, -ENXIO },
		{ 13, -EACCES }, { 17, -EEXIST }, { 18, -EXDEV }, { 19, -ENODEV },
		{ 20, -ENOTDIR }, { 21, -EISDIR }, { 22, -EINVAL }, { 27, -EFBIG },
		{ 28, -ENOSPC }, { 30, -EROFS }, { 31, -EMLINK }, { 63, -ENAMETOOLONG },
		{ 66, -ENOTEMPTY }, { 69, -EDQUOT }, { 70, -ESTALE }, { 71, -EREMOTE },
		{ 10001, -EBADF }, { 10002, -EIO }, { 10003, -EINVAL },
		{ 10004, -EOPNOTSUPP }, { 10005, -EINVAL }, { 10006, -EIO },
		{ 10007, -EINVAL }, { 10008, -EAGAIN },
		{ 3, -EIO }, { 9999, -EIO }, { 10009, -EIO }, { UINT32_MAX, -EIO },
	};
	size_t i;

	(void)state;
	fails = 0;
	cur = "nfs3_errno";
	for (i = 0; i < N(cases); i++) {
		int got = nfs3_errno(cases[i].stat);

		if (got != cases[i].err) {
			print_error("nfs3_errno(%" PRIu32 "): got %d, want %d\n", cases[i].stat,
				    got, cases[i].err);
			fails++;
		}
	}
	assert_int_equal(fails, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encoders),
		cmocka_unit_test(test_encoders_refuse),
		cmocka_unit_test(test_decoders),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_errno),
	};

	fixtures();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
