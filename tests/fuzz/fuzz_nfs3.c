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
#include "fuzz_dec.h"
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
	} else {
		for (unsigned k = 0; k < DEC_COUNT; k++)
			fuzz_dec_run(dec, (sel & 0xf0) | k, data + 2, size - 2, odd);
	}
	return 0;
}
