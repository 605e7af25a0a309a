/*
 * nfs42x: the XDR of the NFSv4.2 operations the native engine sends (RFC 7862:
 * READ_PLUS, SEEK, ALLOCATE, DEALLOCATE, IO_ADVISE, COPY, CLONE; RFC 8276:
 * GETXATTR, SETXATTR, LISTXATTRS, REMOVEXATTR) and their results, over
 * xdrx's helpers like nfs4x.h, whose COMPOUND framing they use: an encoder
 * adds one operation to a struct nfs4_enc (nfs4_enc_begin .. nfs4_enc_end),
 * a decoder reads one result after nfs4_dec_op gave its status NFS4_OK.
 * Pure logic, no allocation.
 *
 * Encoders return false when the buffer is too small or an argument is out of
 * its range (a name past NFS42_XATTR_NAME_MAX, SEEK's what not 0 or 1).
 * Decoders return 0 or -EBADMSG (truncated, garbage, a READ_PLUS whose
 * segments are out of order, overlap or leave the range asked for); they
 * copy fixed-size fields out and point into the record for data and names.
 *
 * xattr names go on the wire as given: RFC 8276 section 8.2 names the user
 * namespace's attributes without their "user." prefix (Linux's
 * "user.nfsload.3" is "nfsload.3" here), and the caller gives them so.
 */
#ifndef NFSLOAD_NFS42X_H
#define NFSLOAD_NFS42X_H

#include <rpc/types.h>
#include <rpc/xdr.h>
#include <stdbool.h>
#include <stdint.h>

#include "nfs4x.h"

/* The statuses the v4.2 operations add to what the engine acts on (RFC 7862 sec 11,
 * RFC 8276 sec 8.5); the first two as nfs4x's own constants (same tokens). */
#define OP4_ILLEGAL 10044
#define NFS4ERR_OP_ILLEGAL 10044
enum nfs42_stat {
	NFS4ERR_NOTSUPP = 10004,
	NFS4ERR_OFFLOAD_NO_REQS = 10094,	/* COPY: the requirements could not be met */
	NFS4ERR_NOXATTR = 10095,
	NFS4ERR_XATTR2BIG = 10096,
};

/* data_content4: what READ_PLUS returns and SEEK looks for. */
enum nfs42_content { NFS4_CONTENT_DATA = 0, NFS4_CONTENT_HOLE = 1 };

/* setxattr_option4 */
enum nfs42_setxattr_option { SETXATTR4_EITHER = 0, SETXATTR4_CREATE = 1, SETXATTR4_REPLACE = 2 };

/* IO_ADVISE4's hints (bit numbers of its bitmap4). */
enum { IO_ADVISE4_NORMAL = 0, IO_ADVISE4_SEQUENTIAL = 1, IO_ADVISE4_RANDOM = 3,
       IO_ADVISE4_WILLNEED = 4, IO_ADVISE4_DONTNEED = 6, IO_ADVISE4_NOREUSE = 7,
       IO_ADVISE4_READ = 8, IO_ADVISE4_WRITE = 9 };

#define NFS42_XATTR_NAME_MAX 255	/* Linux's XATTR_NAME_MAX: longer is refused */
#define NFS42_READ_PLUS_SEGS_MAX 4096	/* segments in one READ_PLUS reply; more: -EBADMSG */
#define NFS42_LISTXATTRS_NAMES_MAX 4096	/* names in one LISTXATTRS reply; more: -EBADMSG */

/* ---- encoders ---- */
bool nfs42_enc_read_plus(struct nfs4_enc *e, const struct nfs4_stateid *sid, uint64_t offset,
			 uint32_t count);
/* what: NFS4_CONTENT_DATA or NFS4_CONTENT_HOLE (else false). */
bool nfs42_enc_seek(struct nfs4_enc *e, const struct nfs4_stateid *sid, uint64_t offset,
		    uint32_t what);
bool nfs42_enc_allocate(struct nfs4_enc *e, const struct nfs4_stateid *sid, uint64_t offset,
			uint64_t length);
bool nfs42_enc_deallocate(struct nfs4_enc *e, const struct nfs4_stateid *sid, uint64_t offset,
			  uint64_t length);
/* hints: bitmap4's first word (bits IO_ADVISE4_*); 0 is sent as an empty bitmap. */
bool nfs42_enc_io_advise(struct nfs4_enc *e, const struct nfs4_stateid *sid, uint64_t offset,
			 uint64_t count, uint32_t hints);
/*
 * COPY from the saved filehandle (src) to the current one (dst), intra-server
 * (ca_source_server<> empty). synchronous: the reply comes when the copy is
 * done (the engine has no back channel for an asynchronous one's callback).
 */
bool nfs42_enc_copy(struct nfs4_enc *e, const struct nfs4_stateid *src,
		    const struct nfs4_stateid *dst, uint64_t src_offset, uint64_t dst_offset,
		    uint64_t count, bool consecutive, bool synchronous);
/* CLONE from the saved filehandle (src) to the current one (dst). */
bool nfs42_enc_clone(struct nfs4_enc *e, const struct nfs4_stateid *src,
		     const struct nfs4_stateid *dst, uint64_t src_offset, uint64_t dst_offset,
		     uint64_t count);
bool nfs42_enc_getxattr(struct nfs4_enc *e, const char *name);
/* option: SETXATTR4_*; the value is value[0..len). */
bool nfs42_enc_setxattr(struct nfs4_enc *e, uint32_t option, const char *name, const void *value,
			uint32_t len);
/*
 * SETXATTR with len bytes of value left for the caller to write in place: where
 * they are in the buffer (their padding is written), NULL when it does not fit
 * or the stream cannot give its bytes in place (an unaligned buffer).
 */
uint8_t *nfs42_enc_setxattr_in_place(struct nfs4_enc *e, uint32_t option, const char *name,
				     uint32_t len);
bool nfs42_enc_listxattrs(struct nfs4_enc *e, uint64_t cookie, uint32_t maxcount);
bool nfs42_enc_removexattr(struct nfs4_enc *e, const char *name);

/* ---- decoders ---- */

/*
 * One segment of a READ_PLUS reply, as a callback sees it: data (data points
 * into the record, length bytes) or a hole (data NULL), cut to the range asked
 * for, [offset, offset + count): a server may describe a whole hole that starts
 * before it or goes on past it.
 */
struct nfs42_seg {
	uint32_t type;		/* NFS4_CONTENT_DATA or NFS4_CONTENT_HOLE */
	uint64_t offset;	/* in the file, offset <= it */
	uint64_t length;
	const uint8_t *data;
};

struct nfs42_read_plus_res {
	bool eof;
	uint32_t nsegs;		/* segments in the reply (<= NFS42_READ_PLUS_SEGS_MAX) */
	uint64_t data, holes;	/* bytes of each inside the range: data + holes <= count */
};

/*
 * READ_PLUS asked at offset for count bytes. The reply must describe the range
 * from offset on without a gap: segments in file order, each starting where the
 * one before ended (the first at offset, or before it: cut to it), none going
 * past the range but a hole (cut to it, and then the last one), at most
 * NFS42_READ_PLUS_SEGS_MAX of them; an unknown content type is -EBADMSG.
 * Segments wholly before offset, ahead of the others, are skipped as Linux's
 * client skips them (nfs-ganesha 4.3 answers every READ_PLUS with one empty
 * data segment at offset 0 and eof false: 0 bytes, a short read). nsegs
 * counts them, fn never sees them. The whole reply is checked before fn (may
 * be NULL) sees a segment; fn's non-zero return stops the walk and is
 * returned. The range's bytes are rebuilt by copying each data segment to
 * buf[s->offset - offset] and zeroing each hole's there.
 */
int nfs42_dec_read_plus(XDR *x, uint64_t offset, uint32_t count, struct nfs42_read_plus_res *r,
			int (*fn)(void *arg, const struct nfs42_seg *s), void *arg);

struct nfs42_seek_res {
	bool eof;		/* nothing of what was asked for up to the end of the file */
	uint64_t offset;
};
int nfs42_dec_seek(XDR *x, struct nfs42_seek_res *r);
/* ALLOCATE, DEALLOCATE, CLONE: nothing past their status. */
/* IO_ADVISE: the hints the server will act on, bitmap4's first word (the others dropped). */
int nfs42_dec_io_advise(XDR *x, uint32_t *hints);

struct nfs42_copy_res {
	bool async;			/* a callback id was returned (an asynchronous copy) */
	struct nfs4_stateid callback_id;
	uint64_t count;			/* bytes copied */
	uint32_t committed;		/* stable_how4: 0 UNSTABLE4 .. 2 FILE_SYNC4 */
	uint8_t verf[8];
	bool consecutive, synchronous;	/* copy_requirements4 */
};
/*
 * COPY's results for its status: NFS4_OK the write_response4 and the
 * requirements, NFS4ERR_OFFLOAD_NO_REQS the requirements alone, any other
 * status nothing (0).
 */
int nfs42_dec_copy(XDR *x, uint32_t status, struct nfs42_copy_res *r);

/* GETXATTR: the value in the record, len bytes. */
int nfs42_dec_getxattr(XDR *x, const uint8_t **value, uint32_t *len);

struct nfs42_cinfo {
	bool atomic;
	uint64_t before, after;
};
/* SETXATTR, REMOVEXATTR: change_info4. */
int nfs42_dec_setxattr(XDR *x, struct nfs42_cinfo *ci);
int nfs42_dec_removexattr(XDR *x, struct nfs42_cinfo *ci);

/*
 * LISTXATTRS: the cookie to go on from, eof, how many names; fn (may be NULL)
 * for each name (in the record, namelen bytes, no NUL) after the whole reply
 * is checked, its non-zero return stops and is returned. At most
 * NFS42_LISTXATTRS_NAMES_MAX names.
 */
int nfs42_dec_listxattrs(XDR *x, uint64_t *cookie, bool *eof, uint32_t *nnames,
			 int (*fn)(void *arg, const char *name, uint32_t namelen), void *arg);

/*
 * An nfsstat4 of a v4.2 operation as -errno: NFS4ERR_NOTSUPP -EOPNOTSUPP,
 * NFS4ERR_OP_ILLEGAL -ENOSYS (the server does not know the operation: the
 * engine says so rather than "protocol error"), NFS4ERR_NOXATTR -ENODATA,
 * NFS4ERR_XATTR2BIG -E2BIG; the rest as nfs4_errno.
 */
int nfs42_errno(uint32_t stat);

#endif
