/*
 * nfs4x's decoders: the results of the NFSv4.1 COMPOUNDs the native engine
 * sends (RFC 8881 section 18), and what a status means as an errno. They
 * copy fixed-size fields out, point into the record for data and names,
 * never allocate, and check every length against the bytes left before
 * using it: garbage or a short record is -EBADMSG. Encoders: nfs4x.c.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "nfs4x.h"
#include "nfs4x_int.h"
#include "../rpc/xdrx.h"

/*
 * The XDR size of the fixed-size attributes (RFC 8881 section 5; 77..82
 * from RFC 7862 and RFC 8276): a server may return one the engine did not
 * ask for, and it can be stepped over only if its size is known.
 * 0: variable or unknown.
 */
static const uint8_t attr_size[] = {
	[1] = 4, [2] = 4, [3] = 8, [4] = 8, [5] = 4, [6] = 4, [7] = 4, [8] = 16, [9] = 4,
	[10] = 4, [11] = 4, [13] = 4, [14] = 4, [15] = 4, [16] = 4, [17] = 4, [18] = 4,
	[20] = 8, [21] = 8, [22] = 8, [23] = 8, [25] = 4, [26] = 4, [27] = 8, [28] = 4,
	[29] = 4, [30] = 8, [31] = 8, [33] = 4, [34] = 4, [35] = 4, [38] = 8, [39] = 8,
	[40] = 8, [41] = 8, [42] = 8, [43] = 8, [44] = 8, [45] = 8, [46] = 4, [47] = 12,
	[49] = 12, [50] = 12, [51] = 12, [52] = 12, [53] = 12, [55] = 8, [56] = 12,
	[57] = 12, [60] = 16, [65] = 4, [66] = 4, [73] = 8, [74] = 8, [76] = 4, [77] = 4,
	[78] = 8, [79] = 4, [81] = 8, [82] = 4,
};

static bool get_bitmap(XDR *x, const uint8_t **words, uint32_t *n)
{
	if (!xdrx_get32(x, n) || *n > UINT32_MAX / 4)
		return false;
	*words = xdrx_take(x, *n * 4);
	return *words != NULL;
}

static bool skip_bitmap(XDR *x)
{
	uint32_t n;

	return xdrx_get32(x, &n) && xdrx_skip32(x, n);
}

static bool get_stateid(XDR *x, struct nfs4_stateid *sid)
{
	return xdrx_get32(x, &sid->seqid) && xdrx_get_fixed(x, sid->other, sizeof(sid->other));
}

/* change_info4: atomic, before, after. */
static bool skip_cinfo(XDR *x)
{
	bool atomic;

	return xdrx_get_bool(x, &atomic) && xdrx_skip32(x, 4);
}

/* nfsace4: type, flag, access_mask, who. */
static bool skip_ace(XDR *x)
{
	return xdrx_skip32(x, 3) && xdrx_skip_opaque(x, UINT32_MAX);
}

/*
 * fattr4: the values of the attributes the bitmap names, in attribute
 * order, from the attrlist opaque. type, size, fileid and mode go to a,
 * rdattr_error to *rdattr_error; others of known size are stepped over.
 * The values must fill the opaque exactly.
 */
static bool get_fattr(XDR *x, struct nfs_attr *a, uint32_t *rdattr_error)
{
	const uint8_t *mask, *list;
	uint32_t nwords, len, off = 0, w;

	if (!get_bitmap(x, &mask, &nwords) || !xdrx_get_opaque(x, UINT32_MAX, &list, &len))
		return false;
	for (w = 0; w < nwords; w++) {
		uint32_t bits = xdrx_be32(mask + 4 * w);

		while (bits) {
			uint32_t attr = w * 32 + (uint32_t)__builtin_ctz(bits);
			uint32_t size = attr < sizeof(attr_size) ? attr_size[attr] : 0;
			const uint8_t *p = list + off;

			bits &= bits - 1;
			if (size == 0 || len - off < size)
				return false;
			switch (attr) {
			case FATTR4_TYPE:
				a->type = xdrx_be32(p);
				break;
			case FATTR4_SIZE:
				a->size = xdrx_be64(p);
				break;
			case FATTR4_RDATTR_ERROR:
				*rdattr_error = xdrx_be32(p);
				break;
			case FATTR4_FILEID:
				a->fileid = xdrx_be64(p);
				break;
			case FATTR4_MODE:
				a->mode = xdrx_be32(p);
				break;
			}
			off += size;
		}
	}
	return off == len;
}

static int ok(bool b)
{
	return b ? 0 : -EBADMSG;
}

int nfs4_dec_begin(XDR *x, uint32_t *status, uint32_t *nresults)
{
	return ok(xdrx_get32(x, status) && xdrx_skip_opaque(x, UINT32_MAX) && xdrx_get32(x, nresults));
}

int nfs4_dec_op(XDR *x, enum nfs4_opnum expect, uint32_t *status)
{
	uint32_t op;

	if (!xdrx_get32(x, &op) || !xdrx_get32(x, status))
		return -EBADMSG;
	/* A server that does not know the opcode answers OP_ILLEGAL and stops there. */
	if (op == OP4_ILLEGAL && *status == NFS4ERR_OP_ILLEGAL)
		return 0;
	return op == (uint32_t)expect ? 0 : -EBADMSG;
}

int nfs4_dec_exchange_id(XDR *x, struct nfs4_exchange_id_res *r)
{
	uint32_t how, n, i;
	uint64_t minor_id;

	if (!xdrx_get64(x, &r->clientid) || !xdrx_get32(x, &r->sequenceid) || !xdrx_get32(x, &r->flags) ||
	    !xdrx_get32(x, &how))
		return -EBADMSG;
	switch (how) {
	case SP4_NONE:
		break;
	case SP4_MACH_CRED:	/* spo_must_enforce, spo_must_allow */
		if (!skip_bitmap(x) || !skip_bitmap(x))
			return -EBADMSG;
		break;
	case SP4_SSV:		/* the ops, hash and encryption algorithms, ssv_len, window, handles */
		if (!skip_bitmap(x) || !skip_bitmap(x) || !xdrx_skip32(x, 4) || !xdrx_get32(x, &n))
			return -EBADMSG;
		for (i = 0; i < n; i++)
			if (!xdrx_skip_opaque(x, UINT32_MAX))
				return -EBADMSG;
		break;
	default:
		return -EBADMSG;
	}
	/* server_owner4, server_scope, server_impl_id<1> */
	if (!xdrx_get64(x, &minor_id) || !xdrx_skip_opaque(x, NFS4_OPAQUE_LIMIT) ||
	    !xdrx_skip_opaque(x, NFS4_OPAQUE_LIMIT) || !xdrx_get32(x, &n) || n > 1)
		return -EBADMSG;
	/* nfs_impl_id4: domain, name, date (int64 seconds, uint32 nseconds) */
	if (n == 1 && (!xdrx_skip_opaque(x, UINT32_MAX) || !xdrx_skip_opaque(x, UINT32_MAX) ||
		       !xdrx_skip32(x, 3)))
		return -EBADMSG;
	return 0;
}

static bool get_chan(XDR *x, struct nfs4_chan_attrs *a)
{
	uint32_t n;

	return xdrx_get32(x, &a->headerpadsize) && xdrx_get32(x, &a->maxrequestsize) &&
	       xdrx_get32(x, &a->maxresponsesize) && xdrx_get32(x, &a->maxresponsesize_cached) &&
	       xdrx_get32(x, &a->maxoperations) && xdrx_get32(x, &a->maxrequests) &&
	       xdrx_get32(x, &n) && n <= 1 && xdrx_skip32(x, n);
}

int nfs4_dec_create_session(XDR *x, struct nfs4_create_session_res *r)
{
	return ok(xdrx_get_fixed(x, r->sessionid, NFS4_SESSIONID_SIZE) && xdrx_get32(x, &r->sequence) &&
		  xdrx_get32(x, &r->flags) && get_chan(x, &r->fore) && get_chan(x, &r->back));
}

int nfs4_dec_bind_conn(XDR *x)
{
	uint8_t sessionid[NFS4_SESSIONID_SIZE];
	uint32_t dir;
	bool rdma;

	return ok(xdrx_get_fixed(x, sessionid, sizeof(sessionid)) && xdrx_get32(x, &dir) &&
		  xdrx_get_bool(x, &rdma));
}

int nfs4_dec_sequence(XDR *x, struct nfs4_sequence_res *r)
{
	return ok(xdrx_get_fixed(x, r->sessionid, NFS4_SESSIONID_SIZE) &&
		  xdrx_get32(x, &r->sequenceid) && xdrx_get32(x, &r->slotid) &&
		  xdrx_get32(x, &r->highest_slotid) && xdrx_get32(x, &r->target_highest_slotid) &&
		  xdrx_get32(x, &r->status_flags));
}

int nfs4_dec_getfh(XDR *x, struct nfs_fh *fh)
{
	const uint8_t *p;
	uint32_t n;

	if (!xdrx_get_opaque(x, NFS4_FHSIZE, &p, &n))
		return -EBADMSG;
	fh->len = n;
	memcpy(fh->data, p, n);
	return 0;
}

int nfs4_dec_getattr(XDR *x, struct nfs_attr *attr)
{
	uint32_t rdattr_error = 0;

	memset(attr, 0, sizeof(*attr));
	return ok(get_fattr(x, attr, &rdattr_error));
}

int nfs4_dec_access(XDR *x, uint32_t *supported, uint32_t *access)
{
	return ok(xdrx_get32(x, supported) && xdrx_get32(x, access));
}

/* open_delegation4: its type, and the stateid of a READ or WRITE one (the engine asks for
 * none, and returns any it gets); the rest of each arm read and dropped. */
static bool get_delegation(XDR *x, struct nfs4_deleg *d)
{
	uint32_t limitby, why;
	bool b;

	d->type = 0;
	memset(&d->sid, 0, sizeof(d->sid));
	if (!xdrx_get32(x, &d->type))
		return false;
	switch (d->type) {
	case OPEN_DELEGATE_NONE:
		return true;
	case OPEN_DELEGATE_READ:	/* stateid, recall, permissions */
		return get_stateid(x, &d->sid) && xdrx_get_bool(x, &b) && skip_ace(x);
	case OPEN_DELEGATE_WRITE:	/* stateid, recall, space_limit, permissions */
		if (!get_stateid(x, &d->sid) || !xdrx_get_bool(x, &b) || !xdrx_get32(x, &limitby))
			return false;
		if (limitby == NFS_LIMIT_SIZE) {
			if (!xdrx_skip32(x, 2))	/* filesize */
				return false;
		} else if (limitby == NFS_LIMIT_BLOCKS) {
			if (!xdrx_skip32(x, 2))	/* num_blocks, bytes_per_block */
				return false;
		} else {
			return false;
		}
		return skip_ace(x);
	case OPEN_DELEGATE_NONE_EXT:	/* why, and for two reasons a bool */
		if (!xdrx_get32(x, &why))
			return false;
		return (why != WND4_CONTENTION && why != WND4_RESOURCE) || xdrx_get_bool(x, &b);
	default:
		return false;
	}
}

int nfs4_dec_open_deleg(XDR *x, struct nfs4_stateid *sid, struct nfs4_deleg *d)
{
	uint32_t rflags;

	return ok(get_stateid(x, sid) && skip_cinfo(x) && xdrx_get32(x, &rflags) &&
		  skip_bitmap(x) && get_delegation(x, d));
}

int nfs4_dec_open(XDR *x, struct nfs4_stateid *sid)
{
	struct nfs4_deleg d;

	return nfs4_dec_open_deleg(x, sid, &d);
}

int nfs4_dec_open_downgrade(XDR *x, struct nfs4_stateid *sid)
{
	return ok(get_stateid(x, sid));
}

int nfs4_dec_lease_time(XDR *x, uint32_t *secs)
{
	const uint8_t *words;
	uint32_t n, len, w0 = 0;

	if (!get_bitmap(x, &words, &n) || !xdrx_get32(x, &len))
		return -EBADMSG;
	if (n >= 1)
		w0 = (uint32_t)words[0] << 24 | (uint32_t)words[1] << 16 |
		     (uint32_t)words[2] << 8 | words[3];
	/* Only lease_time asked for: any other bit, or a length not 4, is not this reply. */
	for (uint32_t i = 1; i < n; i++)
		if (words[4 * i] | words[4 * i + 1] | words[4 * i + 2] | words[4 * i + 3])
			return -EBADMSG;
	if (w0 != BIT0(FATTR4_LEASE_TIME) || len != 4)
		return -EBADMSG;
	return ok(xdrx_get32(x, secs));
}

int nfs4_dec_close(XDR *x, struct nfs4_stateid *sid)
{
	return ok(get_stateid(x, sid));
}

int nfs4_dec_read(XDR *x, bool *eof, uint32_t *count, const uint8_t **data)
{
	return ok(xdrx_get_bool(x, eof) && xdrx_get_opaque(x, UINT32_MAX, data, count));
}

int nfs4_dec_write(XDR *x, uint32_t *count, uint32_t *committed, uint8_t verf[8])
{
	return ok(xdrx_get32(x, count) && xdrx_get32(x, committed) &&
		  xdrx_get_fixed(x, verf, NFS4_VERIFIER_SIZE));
}

int nfs4_dec_commit(XDR *x, uint8_t verf[8])
{
	return ok(xdrx_get_fixed(x, verf, NFS4_VERIFIER_SIZE));
}

int nfs4_dec_remove(XDR *x)
{
	return ok(skip_cinfo(x));
}

int nfs4_dec_mkdir(XDR *x)
{
	return ok(skip_cinfo(x) && skip_bitmap(x));
}

int nfs4_dec_rename(XDR *x)
{
	return ok(skip_cinfo(x) && skip_cinfo(x));
}

int nfs4_dec_setattr(XDR *x)
{
	return ok(skip_bitmap(x));
}

/* The entries of a dirlist4, each to fn unless fn is NULL; its non-zero return stops. */
static int readdir_entries(XDR *x, bool *eof,
			   int (*fn)(void *arg, const char *name, uint32_t namelen,
				     uint64_t cookie, bool is_dir),
			   void *arg)
{
	bool more;

	for (;;) {
		struct nfs_attr a = { 0 };
		uint32_t rdattr_error = 0, namelen;
		const uint8_t *name;
		uint64_t cookie;
		int rc;

		if (!xdrx_get_bool(x, &more))
			return -EBADMSG;
		if (!more)
			break;
		if (!xdrx_get64(x, &cookie) || !xdrx_get_opaque(x, UINT32_MAX, &name, &namelen) ||
		    !get_fattr(x, &a, &rdattr_error))
			return -EBADMSG;
		if (fn && (rc = fn(arg, (const char *)name, namelen, cookie, a.type == NF4DIR)))
			return rc;
	}
	return ok(xdrx_get_bool(x, eof));
}

int nfs4_dec_readdir(XDR *x, uint8_t verf[8], bool *eof,
		     int (*fn)(void *arg, const char *name, uint32_t namelen, uint64_t cookie,
			       bool is_dir),
		     void *arg)
{
	u_int start;
	bool end;
	int rc;

	*eof = false;
	if (!xdrx_get_fixed(x, verf, NFS4_VERIFIER_SIZE))
		return -EBADMSG;
	/* The whole list is checked before fn sees an entry of it. */
	start = xdr_getpos(x);
	rc = readdir_entries(x, &end, NULL, NULL);
	if (rc)
		return rc;
	if (!xdr_setpos(x, start))
		return -EBADMSG;
	rc = readdir_entries(x, &end, fn, arg);
	if (rc == 0)
		*eof = end;	/* not when fn stopped: entries were left unread */
	return rc;
}

/*
 * nfsstat4 values 1..70 are NFSv3's, named after errno values; the rest
 * map by what the engine can do about them:
 *  - server busy or restarting (DELAY, GRACE, LAYOUTTRYLATER, ...): -EAGAIN
 *  - the session or client is gone or out of step (BADSESSION, DEADSESSION,
 *    BADSLOT, SEQ_MISORDERED, STALE_CLIENTID, EXPIRED): -ECONNRESET, the
 *    session is built again
 *  - a stateid the server no longer honours (BAD_STATEID, OLD_STATEID,
 *    ADMIN_REVOKED, ...): -EBADF, like a closed file
 *  - the COMPOUND was malformed or out of protocol (BADXDR, OP_ILLEGAL,
 *    SEQUENCE_POS, SEQ_FALSE_RETRY, RETRY_UNCACHED_REP, ...): -EPROTO
 *  - the rest by their nearest errno (listed); unknown: -EIO.
 */
int nfs4_errno(uint32_t stat)
{
	switch (stat) {
	case NFS4_OK:			return 0;
	case 1:		/* PERM */	return -EPERM;
	case NFS4ERR_NOENT:		return -ENOENT;
	case 5:		/* IO */	return -EIO;
	case 6:		/* NXIO */	return -ENXIO;
	case 13:	/* ACCESS */	return -EACCES;
	case NFS4ERR_EXIST:		return -EEXIST;
	case 18:	/* XDEV */	return -EXDEV;
	case 20:	/* NOTDIR */	return -ENOTDIR;
	case 21:	/* ISDIR */	return -EISDIR;
	case 22:	/* INVAL */	return -EINVAL;
	case 27:	/* FBIG */	return -EFBIG;
	case 28:	/* NOSPC */	return -ENOSPC;
	case 30:	/* ROFS */	return -EROFS;
	case 31:	/* MLINK */	return -EMLINK;
	case 63:	/* NAMETOOLONG */ return -ENAMETOOLONG;
	case 66:	/* NOTEMPTY */	return -ENOTEMPTY;
	case 69:	/* DQUOT */	return -EDQUOT;
	case 70:	/* STALE */	return -ESTALE;
	case 10001:	/* BADHANDLE */
	case 10014:	/* FHEXPIRED */
		return -ESTALE;
	case 10003:	/* BAD_COOKIE */
	case 10005:	/* TOOSMALL */
	case 10007:	/* BADTYPE */
	case 10028:	/* LOCK_RANGE */
	case 10039:	/* BADOWNER */
	case 10040:	/* BADCHAR */
	case 10041:	/* BADNAME */
	case 10042:	/* BAD_RANGE */
	case 10083:	/* WRONG_TYPE */
		return -EINVAL;
	case 10004:	/* NOTSUPP */
	case 10032:	/* ATTRNOTSUPP */
	case 10043:	/* LOCK_NOTSUPP */
	case 10072:	/* HASH_ALG_UNSUPP */
	case 10079:	/* ENCR_ALG_UNSUPP */
		return -EOPNOTSUPP;
	case 10006:	/* SERVERFAULT */
	case 10018:	/* RESOURCE */
		return -EREMOTEIO;
	case NFS4ERR_DELAY:
	case NFS4ERR_GRACE:
	case 10010:	/* DENIED (a lock) */
	case 10057:	/* BACK_CHAN_BUSY */
	case 10058:	/* LAYOUTTRYLATER */
	case 10061:	/* RECALLCONFLICT */
		return -EAGAIN;
	case 10012:	/* LOCKED */
	case 10015:	/* SHARE_DENIED */
	case 10038:	/* OPENMODE */
		return -EACCES;
	case 10016:	/* WRONGSEC */
	case 10082:	/* WRONG_CRED */
		return -EPERM;
	case 10017:	/* CLID_INUSE */
	case 10037:	/* LOCKS_HELD */
	case 10046:	/* FILE_OPEN */
	case 10074:	/* CLIENTID_BUSY */
		return -EBUSY;
	case 10019:	/* MOVED */
	case 10031:	/* LEASE_MOVED */
		return -EREMOTE;
	case 10021:	/* MINOR_VERS_MISMATCH */
		return -EPROTONOSUPPORT;
	case NFS4ERR_EXPIRED:
	case NFS4ERR_STALE_CLIENTID:
	case NFS4ERR_BADSESSION:
	case NFS4ERR_BADSLOT:
	case NFS4ERR_SEQ_MISORDERED:
	case NFS4ERR_DEADSESSION:
		return -ECONNRESET;
	case NFS4ERR_CONN_NOT_BOUND_TO_SESSION:
		return -ENOTCONN;
	case 10023:	/* STALE_STATEID */
	case 10024:	/* OLD_STATEID */
	case NFS4ERR_BAD_STATEID:
	case 10026:	/* BAD_SEQID */
	case 10047:	/* ADMIN_REVOKED */
	case 10087:	/* DELEG_REVOKED */
		return -EBADF;
	case 10029:	/* SYMLINK */
		return -ELOOP;
	case 10045:	/* DEADLOCK */
		return -EDEADLK;
	case 10065:	/* REQ_TOO_BIG */
	case 10066:	/* REP_TOO_BIG */
	case 10067:	/* REP_TOO_BIG_TO_CACHE */
		return -EMSGSIZE;
	case 10020:	/* NOFILEHANDLE */
	case 10030:	/* RESTOREFH */
	case 10036:	/* BADXDR */
	case NFS4ERR_OP_ILLEGAL:
	case 10064:	/* SEQUENCE_POS */
	case NFS4ERR_RETRY_UNCACHED_REP:
	case 10069:	/* UNSAFE_COMPOUND */
	case 10070:	/* TOO_MANY_OPS */
	case 10071:	/* OP_NOT_IN_SESSION */
	case NFS4ERR_SEQ_FALSE_RETRY:
	case 10077:	/* BAD_HIGH_SLOT */
	case 10081:	/* NOT_ONLY_OP */
		return -EPROTO;
	default:
		return -EIO;
	}
}
