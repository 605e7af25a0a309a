/*
 * libFuzzer target: the NFSv3 and MOUNT v3 reply decoders (codec/nfs3x.c),
 * below the RPC header (the rpc target reaches them through a whole byte
 * stream; this one starts at the procedure's results, so every mutation
 * lands in them). The input:
 *
 *   byte 0: the decoder: MNT, GETATTR, LOOKUP, ACCESS, READ, WRITE, COMMIT,
 *           CREATE/MKDIR, the wcc-only ones (SETATTR, REMOVE, RMDIR, RENAME),
 *           FSINFO, READDIRPLUS (with a callback, or none; the callback
 *           stops the walk at the entry bits 4-7 say, 0: never); byte % 16
 *           past 10 reads the results with every decoder in turn;
 *   byte 1: the odd offset (1..3) of fuzz_dec.h's second copy;
 *   the rest: the results, as the server sent them.
 *
 * Each decoding goes through fuzz_dec_run (in place, at an odd address,
 * with bytes after it, truncated: same results, or -EBADMSG when cut).
 * Checks, from nfs3x.h: the return value is 0, an nfsstat3/mountstat3
 * (> 0, then nfs3_errno maps it to a -errno) or -EBADMSG; a handle is at
 * most NFSv3's 64 bytes; READ's data lies inside the record and is as long
 * as its count; WRITE's committed is a stable_how; READDIRPLUS calls its
 * callback for no entry of a reply that is garbage, returns what the
 * callback returned when it stopped, gives each entry's name inside the
 * record (at most as many entries as 24-byte minimum entries fit) and the
 * same eof and cookie verifier as without a callback; MNT's flavours are
 * the four known bits.
 */
#include <limits.h>

#include "fuzz_dec.h"
#include "libnfs_oracle.h"
#include "engine/native/codec/nfs3x.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NFS3_FH_LIMIT 64
#define ENTRY3_MIN 24		/* follows, fileid, name len, cookie, two absent bools: 6 words */
#define STOP_RC (-1000)	/* the callback's stop: no status or -errno a decoder returns */

enum { DEC_MNT, DEC_GETATTR, DEC_LOOKUP, DEC_ACCESS, DEC_READ, DEC_WRITE, DEC_COMMIT,
       DEC_CREATE, DEC_WCC, DEC_FSINFO, DEC_READDIRPLUS, DEC_COUNT };

static void check_rc(int rc)
{
	FUZZ_CHECK(rc >= 0 || rc == -EBADMSG || rc == STOP_RC);
	if (rc > 0)
		FUZZ_CHECK(nfs3_errno((uint32_t)rc) < 0);
}

static void hash_attr(struct fuzz_dec *d, const struct nfs_attr *a)
{
	fuzz_dec_hash32(d, a->type);
	fuzz_dec_hash32(d, a->mode);
	fuzz_dec_hash32(d, a->size);
	fuzz_dec_hash32(d, a->fileid);
}

static void hash_fh(struct fuzz_dec *d, const struct nfs_fh *fh)
{
	FUZZ_CHECK(fh->len <= NFS3_FH_LIMIT);
	fuzz_dec_hash32(d, fh->len);
	fuzz_dec_hash(d, fh->data, fh->len);
}

static int entry(void *arg, const char *name, uint32_t namelen, uint64_t cookie, bool is_dir)
{
	struct fuzz_dec *d = arg;
	unsigned stop = (d->sel >> 4) & 15;

	fuzz_dec_inside(d, name, namelen);
	fuzz_dec_hash32(d, cookie);
	fuzz_dec_hash32(d, is_dir);
	d->entries++;
	/* each entry takes at least ENTRY3_MIN bytes after the status (4) and verifier (8+) */
	FUZZ_CHECK((uint64_t)d->entries * ENTRY3_MIN <= d->len);
	return stop && d->entries == stop ? STOP_RC : 0;
}

static int dec_readdirplus(XDR *x, struct fuzz_dec *d)
{
	uint8_t verf[8], verf2[8];
	bool eof = false, eof2 = false;
	u_int start = xdr_getpos(x);
	int rc, rc2;

	/* first without a callback: the reply's verdict, eof and verifier */
	rc = nfs3_dec_readdirplus(x, verf, &eof, NULL, NULL);
	FUZZ_CHECK(rc != STOP_RC);
	if (!xdr_setpos(x, start))
		abort();
	d->entries = 0;
	rc2 = nfs3_dec_readdirplus(x, verf2, &eof2, entry, d);
	if (rc == -EBADMSG || rc > 0) {
		/* garbage or a failure status: the callback saw nothing */
		FUZZ_CHECK(rc2 == rc && d->entries == 0);
	} else if (rc2 == STOP_RC) {
		FUZZ_CHECK(d->entries == ((d->sel >> 4) & 15));
	} else {
		FUZZ_CHECK(rc2 == 0 && eof2 == eof && memcmp(verf, verf2, 8) == 0);
		fuzz_dec_hash(d, verf, 8);
		fuzz_dec_hash32(d, eof);
	}
	return rc2;
}

static int dec_one(XDR *x, struct fuzz_dec *d, unsigned which)
{
	struct nfs_fh fh;
	struct nfs_attr attr;
	struct nfs3_fsinfo fi;
	enum nfs3_stable stable;
	uint8_t verf[8];
	unsigned flavors = 0;
	uint32_t a;
	bool b;
	const uint8_t *p;
	int rc;

	switch (which) {
	case DEC_MNT:
		rc = mnt3_dec_mnt(x, &fh, &flavors);
		if (rc == 0) {
			hash_fh(d, &fh);
			FUZZ_CHECK(flavors < 16);
			fuzz_dec_hash32(d, flavors);
		}
		break;
	case DEC_GETATTR:
		rc = nfs3_dec_getattr(x, &attr);
		if (rc == 0)
			hash_attr(d, &attr);
		break;
	case DEC_LOOKUP:
		rc = nfs3_dec_lookup(x, &fh, &attr);
		if (rc == 0) {
			hash_fh(d, &fh);
			hash_attr(d, &attr);
		}
		break;
	case DEC_ACCESS:
		rc = nfs3_dec_access(x, &a);
		if (rc == 0)
			fuzz_dec_hash32(d, a);
		break;
	case DEC_READ:
		rc = nfs3_dec_read(x, &a, &b, &p);
		if (rc == 0) {
			fuzz_dec_inside(d, p, a);
			/* the data ends where the stream is, before its padding */
			FUZZ_CHECK((size_t)(p - d->rec) + a + xdrx_pad(a) == xdr_getpos(x));
			fuzz_dec_hash32(d, b);
		}
		break;
	case DEC_WRITE:
		rc = nfs3_dec_write(x, &a, &stable, verf);
		if (rc == 0) {
			FUZZ_CHECK(stable == NFS3_UNSTABLE || stable == NFS3_DATA_SYNC ||
				   stable == NFS3_FILE_SYNC);
			fuzz_dec_hash32(d, a);
			fuzz_dec_hash32(d, stable);
			fuzz_dec_hash(d, verf, 8);
		}
		break;
	case DEC_COMMIT:
		rc = nfs3_dec_commit(x, verf);
		if (rc == 0)
			fuzz_dec_hash(d, verf, 8);
		break;
	case DEC_CREATE:
		b = false;
		rc = nfs3_dec_create(x, &b, &fh);
		if (rc == 0) {
			fuzz_dec_hash32(d, b);
			if (b)
				hash_fh(d, &fh);
		}
		break;
	case DEC_WCC:
		rc = nfs3_dec_wcc(x);
		break;
	case DEC_FSINFO:
		rc = nfs3_dec_fsinfo(x, &fi);
		if (rc == 0)
			fuzz_dec_hash(d, &fi, sizeof(fi));
		break;
	default:
		rc = dec_readdirplus(x, d);
		break;
	}
	check_rc(rc);
	fuzz_dec_hash32(d, (uint64_t)(int64_t)rc);
	return rc;
}

static int dec(XDR *x, struct fuzz_dec *d)
{
	return dec_one(x, d, d->sel & 15);
}

/* ---- the judge outside nfsload: libnfs's own XDR (libnfs_oracle.c) ---- */

static void ohash(uint64_t *h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		*h = (*h ^ b[i]) * UINT64_C(0x100000001b3);
}

static int oentry(void *arg, const char *name, uint32_t namelen, uint64_t cookie, bool is_dir)
{
	struct oracle3 *o = arg;
	size_t len = strnlen(name, namelen);	/* libnfs keeps a filename3 as a C string */

	o->entries++;
	ohash(&o->entries_hash, &len, sizeof(len));
	ohash(&o->entries_hash, name, len);
	ohash(&o->entries_hash, &cookie, sizeof(cookie));
	ohash(&o->entries_hash, &is_dir, sizeof(is_dir));
	return 0;
}

static void set_fh(struct oracle3 *o, const struct nfs_fh *fh)
{
	o->has_fh = true;
	o->fh_len = fh->len;
	memcpy(o->fh, fh->data, fh->len <= sizeof(o->fh) ? fh->len : sizeof(o->fh));
}

/* What nfsload's decoder which reads of p[0..n), in the oracle's terms; its return value. */
static int nfsload3(unsigned which, uint8_t *p, size_t n, struct oracle3 *o)
{
	struct nfs_fh fh;
	struct nfs_attr attr;
	struct nfs3_fsinfo fi;
	enum nfs3_stable stable;
	unsigned flavors;
	const uint8_t *data;
	bool b;
	XDR x;
	int rc;

	memset(o, 0, sizeof(*o));
	memset(&attr, 0, sizeof(attr));
	xdrmem_create(&x, (char *)p, (u_int)n, XDR_DECODE);
	switch (which) {
	case DEC_MNT:
		if ((rc = mnt3_dec_mnt(&x, &fh, &flavors)) == 0)
			set_fh(o, &fh);
		break;
	case DEC_GETATTR:
		rc = nfs3_dec_getattr(&x, &attr);
		o->has_attr = rc == 0;
		break;
	case DEC_LOOKUP:
		if ((rc = nfs3_dec_lookup(&x, &fh, &attr)) == 0) {
			set_fh(o, &fh);
			o->has_attr = attr.type != 0;
		}
		break;
	case DEC_ACCESS:
		rc = nfs3_dec_access(&x, &o->count);
		break;
	case DEC_READ:
		if ((rc = nfs3_dec_read(&x, &o->count, &o->eof, &data)) == 0)
			o->data_len = o->count;
		break;
	case DEC_WRITE:
		if ((rc = nfs3_dec_write(&x, &o->count, &stable, o->verf)) == 0)
			o->committed = stable;
		break;
	case DEC_COMMIT:
		rc = nfs3_dec_commit(&x, o->verf);
		break;
	case DEC_CREATE:
		if ((rc = nfs3_dec_create(&x, &b, &fh)) == 0 && b)
			set_fh(o, &fh);
		break;
	case DEC_WCC:
		rc = nfs3_dec_wcc(&x);
		break;
	case DEC_FSINFO:
		if ((rc = nfs3_dec_fsinfo(&x, &fi)) == 0) {
			o->fsinfo[0] = fi.rtmax, o->fsinfo[1] = fi.rtpref, o->fsinfo[2] = fi.wtmax;
			o->fsinfo[3] = fi.wtpref, o->fsinfo[4] = fi.dtpref;
			o->maxfilesize = fi.maxfilesize;
		}
		break;
	default:
		o->entries_hash = FUZZ_FNV_BASIS;
		rc = nfs3_dec_readdirplus(&x, o->verf, &o->eof, oentry, o);
		break;
	}
	if (o->has_attr) {
		o->type = attr.type, o->mode = attr.mode;
		o->size = attr.size, o->fileid = attr.fileid;
	}
	o->pos = xdr_getpos(&x);
	xdr_destroy(&x);
	return rc;
}

#define SAME(f) do { \
		if (mine.f != theirs.f) { \
			fprintf(stderr, "decoder %u: " #f " nfsload %llu, libnfs %llu\n", which, \
				(unsigned long long)mine.f, (unsigned long long)theirs.f); \
			FUZZ_CHECK(mine.f == theirs.f); \
		} \
	} while (0)

/*
 * Where libnfs reads the results, nfsload must read the same: the same
 * status, and on success the same fields from the same bytes. nfsload may
 * refuse what libnfs takes only where it is stricter on purpose: bytes that
 * are not canonical XDR (a bool other than 0 or 1: libnfs would not write
 * them back the same), a status past INT_MAX, READ's count other than the
 * data's length (nfs3x.h), WRITE's committed not a stable_how, more than
 * 1024 MOUNT flavours.
 */
static void judge(unsigned which, const uint8_t *data, size_t n)
{
	struct oracle3 theirs, mine;
	uint8_t *copy = malloc(n ? n : 1);
	int rc;

	if (!copy)
		abort();
	memcpy(copy, data, n);
	if (!oracle3_decode(which, copy, n, &theirs)) {
		free(copy);
		return;
	}
	memcpy(copy, data, n);
	rc = nfsload3(which, copy, n, &mine);
	free(copy);
	if (rc == -EBADMSG) {
		/* libnfs takes any non-zero bool as true, nfsload only 1 (xdrx_get_bool) */
		bool stricter = !theirs.canonical || theirs.status > INT_MAX ||
				(which == DEC_READ && theirs.count != theirs.data_len) ||
				(which == DEC_WRITE && theirs.committed > NFS3_FILE_SYNC) ||
				(which == DEC_MNT && theirs.count > 1024);

		if (!stricter)
			fprintf(stderr, "decoder %u: libnfs reads %u bytes (status %u), nfsload: garbage\n",
				which, theirs.pos, theirs.status);
		FUZZ_CHECK(stricter);
		return;
	}
	FUZZ_CHECK(rc >= 0);
	mine.status = (uint32_t)rc;
	SAME(status);
	if (rc)
		return;		/* nfsload stops at a failure's status; libnfs reads what follows */
	if (which != DEC_WCC)	/* nfsload skips the wcc data it does not need */
		SAME(pos);
	SAME(has_attr);
	SAME(type);
	SAME(mode);
	SAME(size);
	SAME(fileid);
	SAME(has_fh);
	SAME(fh_len);
	FUZZ_CHECK(memcmp(mine.fh, theirs.fh, sizeof(mine.fh)) == 0);
	if (which != DEC_MNT)	/* nfsload counts the flavours it knows, not all */
		SAME(count);
	SAME(eof);
	SAME(data_len);
	SAME(committed);
	FUZZ_CHECK(memcmp(mine.verf, theirs.verf, 8) == 0);
	for (int i = 0; i < 5; i++)
		SAME(fsinfo[i]);
	SAME(maxfilesize);
	SAME(entries);
	SAME(entries_hash);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned sel;
	size_t odd;

	if (size < 2)
		return 0;
	sel = data[0];
	odd = 1 + data[1] % 3;
	if ((sel & 15) < DEC_COUNT) {
		fuzz_dec_run(dec, sel, data + 2, size - 2, odd);
		judge(sel & 15, data + 2, size - 2);
	} else {
		for (unsigned k = 0; k < DEC_COUNT; k++) {
			fuzz_dec_run(dec, (sel & 0xf0) | k, data + 2, size - 2, odd);
			judge(k, data + 2, size - 2);
		}
	}
	return 0;
}
