/*
 * nfs3x: the wire layout of the MOUNT v3 and NFS v3 procedures the native
 * engine uses (RFC 1813). Not the RPC header (rpc.c), not what the engine
 * makes of the results.
 *
 * Decoders trust nothing in the record: every length is checked against
 * what is left before it is used, and booleans or enums out of their range
 * are garbage (-EBADMSG). Names and data are returned as pointers into the
 * record (xdrx_take): decoders need an xdrmem stream, made by xdrx_create
 * when the record may not be 4-byte aligned.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "nfs3x.h"
#include "../rpc/xdrx.h"

#define NFS3_FHSIZE 64
#define MNT3_PATHLEN 1024
#define NFS3_VERF_LEN 8
#define FATTR3_LEN 84		/* type through ctime */
#define WCC_ATTR_LEN 24		/* size, mtime, ctime */
#define FSINFO3_LEN 48		/* rtmax through properties */
#define NFS3_FTYPE_MAX 7	/* NF3FIFO */

enum nfs3_time_how { NFS3_TIME_DONT_CHANGE = 0, NFS3_TIME_SET_TO_SERVER = 1 };

static bool put_fh(XDR *x, const struct nfs_fh *fh)
{
	return xdrx_put_opaque(x, fh->data, fh->len, NFS3_FHSIZE);
}

static bool put_diropargs(XDR *x, const struct nfs_fh *dir, const char *name)
{
	return put_fh(x, dir) && xdrx_put_string(x, name, UINT32_MAX);
}

/* sattr3: each member a union on a boolean (or on time_how for the times); uid and gid never set */
static bool put_sattr(XDR *x, const struct nfs_sattr *sa)
{
	uint32_t how = sa->has_times ? NFS3_TIME_SET_TO_SERVER : NFS3_TIME_DONT_CHANGE;

	return xdrx_put32(x, sa->has_mode) && (!sa->has_mode || xdrx_put32(x, sa->mode)) &&
	       xdrx_put32(x, 0) && xdrx_put32(x, 0) &&
	       xdrx_put32(x, sa->has_size) && (!sa->has_size || xdrx_put64(x, sa->size)) &&
	       xdrx_put32(x, how) && xdrx_put32(x, how);
}

static bool put_mode(XDR *x, uint32_t mode)
{
	const struct nfs_sattr sa = { .has_mode = true, .mode = mode };

	return put_sattr(x, &sa);
}

bool mnt3_enc_mnt(XDR *x, const char *path)
{
	return xdrx_put_string(x, path, MNT3_PATHLEN);
}

bool nfs3_enc_fh(XDR *x, const struct nfs_fh *fh)
{
	return put_fh(x, fh);
}

bool nfs3_enc_lookup(XDR *x, const struct nfs_fh *dir, const char *name)
{
	return put_diropargs(x, dir, name);
}

bool nfs3_enc_access(XDR *x, const struct nfs_fh *fh, uint32_t access)
{
	return put_fh(x, fh) && xdrx_put32(x, access);
}

bool nfs3_enc_read(XDR *x, const struct nfs_fh *fh, uint64_t offset, uint32_t count)
{
	return put_fh(x, fh) && xdrx_put64(x, offset) && xdrx_put32(x, count);
}

bool nfs3_enc_write(XDR *x, const struct nfs_fh *fh, uint64_t offset, uint32_t count,
		    enum nfs3_stable stable)
{
	return put_fh(x, fh) && xdrx_put64(x, offset) && xdrx_put32(x, count) && xdrx_put32(x, stable) &&
	       xdrx_put32(x, count);
}

bool nfs3_enc_commit(XDR *x, const struct nfs_fh *fh, uint64_t offset, uint32_t count)
{
	return put_fh(x, fh) && xdrx_put64(x, offset) && xdrx_put32(x, count);
}

bool nfs3_enc_create(XDR *x, const struct nfs_fh *dir, const char *name,
		     enum nfs3_createmode how, uint32_t mode)
{
	/* EXCLUSIVE carries a verifier instead of attributes: not ours to send */
	if (how != NFS3_CREATE_UNCHECKED && how != NFS3_CREATE_GUARDED)
		return false;
	return put_diropargs(x, dir, name) && xdrx_put32(x, how) && put_mode(x, mode);
}

bool nfs3_enc_mkdir(XDR *x, const struct nfs_fh *dir, const char *name, uint32_t mode)
{
	return put_diropargs(x, dir, name) && put_mode(x, mode);
}

bool nfs3_enc_rename(XDR *x, const struct nfs_fh *from_dir, const char *from,
		     const struct nfs_fh *to_dir, const char *to)
{
	return put_diropargs(x, from_dir, from) && put_diropargs(x, to_dir, to);
}

bool nfs3_enc_setattr(XDR *x, const struct nfs_fh *fh, const struct nfs_sattr *sa)
{
	/* sattrguard3 check = false: no ctime guard */
	return put_fh(x, fh) && put_sattr(x, sa) && xdrx_put32(x, 0);
}

bool nfs3_enc_readdirplus(XDR *x, const struct nfs_fh *dir, uint64_t cookie,
			  const uint8_t cookieverf[8], uint32_t dircount, uint32_t maxcount)
{
	return put_fh(x, dir) && xdrx_put64(x, cookie) &&
	       xdrx_put_fixed(x, cookieverf, NFS3_VERF_LEN) &&
	       xdrx_put32(x, dircount) && xdrx_put32(x, maxcount);
}

/* The status word: 0 to go on, the status (> 0) or -EBADMSG to return. */
static int get_status(XDR *x)
{
	uint32_t stat;

	if (!xdrx_get32(x, &stat) || stat > INT_MAX)
		return -EBADMSG;
	return (int)stat;
}

static bool get_fh(XDR *x, struct nfs_fh *fh)
{
	const uint8_t *p;
	uint32_t len;

	if (!xdrx_get32(x, &len) || len > NFS3_FHSIZE || !(p = xdrx_take(x, len)))
		return false;
	if (fh) {
		fh->len = len;
		memcpy(fh->data, p, len);
	}
	return true;
}

static bool get_fattr(XDR *x, struct nfs_attr *attr)
{
	const uint8_t *p = xdrx_take(x, FATTR3_LEN);
	uint32_t type;

	if (!p)
		return false;
	type = xdrx_be32(p);
	if (type == 0 || type > NFS3_FTYPE_MAX)
		return false;
	if (attr) {
		attr->type = type;
		attr->mode = xdrx_be32(p + 4);
		attr->size = xdrx_be64(p + 20);
		attr->fileid = xdrx_be64(p + 52);
	}
	return true;
}

static bool get_post_op_attr(XDR *x, struct nfs_attr *attr)
{
	bool follows;

	if (!xdrx_get_bool(x, &follows))
		return false;
	if (follows)
		return get_fattr(x, attr);
	if (attr)
		memset(attr, 0, sizeof(*attr));
	return true;
}

static bool get_post_op_fh(XDR *x, bool *has_fh, struct nfs_fh *fh)
{
	bool follows;

	if (!xdrx_get_bool(x, &follows) || (follows && !get_fh(x, fh)))
		return false;
	if (has_fh)
		*has_fh = follows;
	return true;
}

static bool skip_wcc(XDR *x)
{
	bool follows;

	return xdrx_get_bool(x, &follows) && (!follows || xdrx_skip(x, WCC_ATTR_LEN)) &&
	       get_post_op_attr(x, NULL);
}

static bool get_verf(XDR *x, uint8_t verf[8])
{
	const uint8_t *p = xdrx_take(x, NFS3_VERF_LEN);

	if (!p)
		return false;
	if (verf)
		memcpy(verf, p, NFS3_VERF_LEN);
	return true;
}

int mnt3_dec_mnt(XDR *x, struct nfs_fh *fh, unsigned *flavors)
{
	/* AUTH_SYS, then RPCSEC_GSS's Kerberos 5 pseudo-flavors (RFC 2623): by enum engine_sec. */
	static const uint32_t known[] = { 1, 390003, 390004, 390005 };
	uint32_t nflavors, f;
	int st = get_status(x);

	if (st)
		return st;
	if (!get_fh(x, fh) || !xdrx_get32(x, &nflavors) || nflavors > 1024)
		return -EBADMSG;
	if (flavors)
		*flavors = 0;
	for (uint32_t i = 0; i < nflavors; i++) {
		if (!xdrx_get32(x, &f))
			return -EBADMSG;
		for (unsigned k = 0; flavors && k < sizeof(known) / sizeof(known[0]); k++)
			if (f == known[k])
				*flavors |= 1u << k;
	}
	return 0;
}

int nfs3_dec_getattr(XDR *x, struct nfs_attr *attr)
{
	int st = get_status(x);

	if (st)
		return st;
	return get_fattr(x, attr) ? 0 : -EBADMSG;
}

int nfs3_dec_lookup(XDR *x, struct nfs_fh *fh, struct nfs_attr *attr)
{
	int st = get_status(x);

	if (st)
		return st;
	if (!get_fh(x, fh) || !get_post_op_attr(x, attr) || !get_post_op_attr(x, NULL))
		return -EBADMSG;
	return 0;
}

int nfs3_dec_access(XDR *x, uint32_t *access)
{
	uint32_t a;
	int st = get_status(x);

	if (st)
		return st;
	if (!get_post_op_attr(x, NULL) || !xdrx_get32(x, &a))
		return -EBADMSG;
	if (access)
		*access = a;
	return 0;
}

int nfs3_dec_read(XDR *x, uint32_t *count, bool *eof, const uint8_t **data)
{
	const uint8_t *p;
	uint32_t n, len;
	bool e;
	int st = get_status(x);

	if (st)
		return st;
	/* count and the opaque's length must agree: the caller reads count bytes at data */
	if (!get_post_op_attr(x, NULL) || !xdrx_get32(x, &n) || !xdrx_get_bool(x, &e) ||
	    !xdrx_get32(x, &len) || len != n || !(p = xdrx_take(x, len)))
		return -EBADMSG;
	if (count)
		*count = n;
	if (eof)
		*eof = e;
	if (data)
		*data = p;
	return 0;
}

int nfs3_dec_write(XDR *x, uint32_t *count, enum nfs3_stable *committed, uint8_t verf[8])
{
	uint32_t n, how;
	int st = get_status(x);

	if (st)
		return st;
	if (!skip_wcc(x) || !xdrx_get32(x, &n) || !xdrx_get32(x, &how) || how > NFS3_FILE_SYNC ||
	    !get_verf(x, verf))
		return -EBADMSG;
	if (count)
		*count = n;
	if (committed)
		*committed = (enum nfs3_stable)how;
	return 0;
}

int nfs3_dec_commit(XDR *x, uint8_t verf[8])
{
	int st = get_status(x);

	if (st)
		return st;
	return skip_wcc(x) && get_verf(x, verf) ? 0 : -EBADMSG;
}

int nfs3_dec_create(XDR *x, bool *has_fh, struct nfs_fh *fh)
{
	int st = get_status(x);

	if (st)
		return st;
	if (!get_post_op_fh(x, has_fh, fh) || !get_post_op_attr(x, NULL) || !skip_wcc(x))
		return -EBADMSG;
	return 0;
}

int nfs3_dec_wcc(XDR *x)
{
	return get_status(x);
}

int nfs3_dec_fsinfo(XDR *x, struct nfs3_fsinfo *fi)
{
	const uint8_t *p;
	int st = get_status(x);

	if (st)
		return st;
	if (!get_post_op_attr(x, NULL) || !(p = xdrx_take(x, FSINFO3_LEN)))
		return -EBADMSG;
	if (fi) {
		fi->rtmax = xdrx_be32(p);
		fi->rtpref = xdrx_be32(p + 4);
		fi->wtmax = xdrx_be32(p + 12);
		fi->wtpref = xdrx_be32(p + 16);
		fi->dtpref = xdrx_be32(p + 24);
		fi->maxfilesize = xdrx_be64(p + 28);
	}
	return 0;
}

/* dirlistplus3: entries, then eof. fn NULL: checks only. */
static int dec_entries(XDR *x, bool *eof,
		       int (*fn)(void *arg, const char *name, uint32_t namelen,
				 uint64_t cookie, bool is_dir),
		       void *arg)
{
	for (;;) {
		struct nfs_attr attr;
		const uint8_t *name;
		uint64_t fileid, cookie;
		uint32_t namelen;
		bool follows;
		int rc;

		if (!xdrx_get_bool(x, &follows))
			return -EBADMSG;
		if (!follows)
			break;
		if (!xdrx_get64(x, &fileid) || !xdrx_get32(x, &namelen) ||
		    !(name = xdrx_take(x, namelen)) ||
		    !xdrx_get64(x, &cookie) || !get_post_op_attr(x, &attr) ||
		    !get_post_op_fh(x, NULL, NULL))
			return -EBADMSG;
		if (fn && (rc = fn(arg, (const char *)name, namelen, cookie,
				   attr.type == NFS3_DIR)))
			return rc;
	}
	return xdrx_get_bool(x, eof) ? 0 : -EBADMSG;
}

int nfs3_dec_readdirplus(XDR *x, uint8_t cookieverf[8], bool *eof,
			 int (*fn)(void *arg, const char *name, uint32_t namelen,
				   uint64_t cookie, bool is_dir),
			 void *arg)
{
	bool e;
	u_int start;
	int rc, st = get_status(x);

	if (st)
		return st;
	if (!get_post_op_attr(x, NULL) || !get_verf(x, cookieverf))
		return -EBADMSG;
	/* The whole list is checked before fn sees any of it: all of a reply or none. */
	start = xdr_getpos(x);
	rc = dec_entries(x, &e, NULL, NULL);
	if (rc)
		return rc;
	if (eof)
		*eof = e;
	if (!fn)
		return 0;
	if (!xdr_setpos(x, start))
		return -EBADMSG;
	return dec_entries(x, &e, fn, arg);
}

int nfs3_errno(uint32_t stat)
{
	switch (stat) {
	case 0: return 0;
	case 1: return -EPERM;
	case 2: return -ENOENT;
	case 5: return -EIO;
	case 6: return -ENXIO;
	case 13: return -EACCES;
	case 17: return -EEXIST;
	case 18: return -EXDEV;
	case 19: return -ENODEV;
	case 20: return -ENOTDIR;
	case 21: return -EISDIR;
	case 22: return -EINVAL;
	case 27: return -EFBIG;
	case 28: return -ENOSPC;
	case 30: return -EROFS;
	case 31: return -EMLINK;
	case 63: return -ENAMETOOLONG;
	case 66: return -ENOTEMPTY;
	case 69: return -EDQUOT;
	case 70: return -ESTALE;
	case 71: return -EREMOTE;
	case 10001: return -EBADF;		/* BADHANDLE */
	case 10002: return -EIO;		/* NOT_SYNC */
	case 10003: return -EINVAL;		/* BAD_COOKIE */
	case 10004: return -EOPNOTSUPP;		/* NOTSUPP */
	case 10005: return -EINVAL;		/* TOOSMALL */
	case 10006: return -EIO;		/* SERVERFAULT */
	case 10007: return -EINVAL;		/* BADTYPE */
	case 10008: return -EAGAIN;		/* JUKEBOX */
	default: return -EIO;
	}
}
