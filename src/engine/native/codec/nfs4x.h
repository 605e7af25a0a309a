/*
 * nfs4x: the XDR of NFSv4.1 (RFC 8881) COMPOUNDs the native engine sends and
 * reads, over xdrx's helpers (libtirpc's public XDR API). Pure logic, no
 * allocation. Decoders need a stream as nfs3x.h says.
 *
 * A COMPOUND is encoded after rpc_start_call(NFS_PROGRAM, 4, proc 1):
 * nfs4_enc_begin, one nfs4_enc_<op> per operation, nfs4_enc_end (which
 * patches the operation count). A WRITE must be the last operation: its
 * encoder ends with the data's length and the caller sends the data and
 * rpc_pad(count) zeros after the buffer.
 *
 * A reply is read in the same order: nfs4_dec_begin (the COMPOUND's status
 * and result count), then for each operation nfs4_dec_op (its opcode,
 * checked against the one expected, and its status) and, when that status
 * is NFS4_OK, nfs4_dec_<op> for its results. The server stops at the first
 * failing operation, so results end there. Decoders return 0, or -EBADMSG
 * (truncated, garbage, unexpected opcode); nfs4_dec_op returns the
 * operation's nfsstat4 (>= 0) through *status.
 */
#ifndef NFSLOAD_NFS4X_H
#define NFSLOAD_NFS4X_H

#include <rpc/types.h>
#include <rpc/xdr.h>
#include <stdbool.h>
#include <stdint.h>

#include "nfs3x.h"		/* struct nfs_fh, struct nfs_attr, struct nfs_sattr */

#define NFS4_PROC_NULL 0
#define NFS4_PROC_COMPOUND 1
#define NFS4_SESSIONID_SIZE 16
#define NFS4_VERIFIER_SIZE 8

enum nfs4_opnum {
	OP4_ACCESS = 3, OP4_CLOSE = 4, OP4_COMMIT = 5, OP4_CREATE = 6, OP4_DELEGRETURN = 8,
	OP4_GETATTR = 9,
	OP4_GETFH = 10, OP4_LOOKUP = 15, OP4_OPEN = 18, OP4_OPEN_DOWNGRADE = 21, OP4_PUTFH = 22, OP4_PUTROOTFH = 24,
	OP4_READ = 25, OP4_READDIR = 26, OP4_REMOVE = 28, OP4_RENAME = 29,
	OP4_RESTOREFH = 31, OP4_SAVEFH = 32, OP4_SETATTR = 34, OP4_WRITE = 38,
	OP4_BIND_CONN_TO_SESSION = 41, OP4_EXCHANGE_ID = 42, OP4_CREATE_SESSION = 43,
	OP4_DESTROY_SESSION = 44, OP4_SEQUENCE = 53, OP4_DESTROY_CLIENTID = 57,
	OP4_RECLAIM_COMPLETE = 58,
	/* NFSv4.2 (RFC 7862, RFC 8276; encoded and decoded by nfs42x.h) */
	OP4_ALLOCATE = 59, OP4_COPY = 60, OP4_DEALLOCATE = 62, OP4_IO_ADVISE = 63,
	OP4_READ_PLUS = 68, OP4_SEEK = 69, OP4_CLONE = 71, OP4_GETXATTR = 72, OP4_SETXATTR = 73,
	OP4_LISTXATTRS = 74, OP4_REMOVEXATTR = 75,
};

/* The statuses the engine acts on (others map through nfs4_errno). */
enum nfs4_stat {
	NFS4_OK = 0, NFS4ERR_NOENT = 2, NFS4ERR_EXIST = 17, NFS4ERR_DELAY = 10008,
	NFS4ERR_GRACE = 10013, NFS4ERR_BADSESSION = 10052, NFS4ERR_BADSLOT = 10053,
	NFS4ERR_SEQ_MISORDERED = 10063, NFS4ERR_DEADSESSION = 10078,
	NFS4ERR_CONN_NOT_BOUND_TO_SESSION = 10055, NFS4ERR_STALE_CLIENTID = 10022,
	NFS4ERR_EXPIRED = 10011, NFS4ERR_BAD_STATEID = 10025,
	NFS4ERR_SEQ_FALSE_RETRY = 10076, NFS4ERR_RETRY_UNCACHED_REP = 10068,
	NFS4ERR_SHARE_DENIED = 10015, NFS4ERR_STALE_STATEID = 10023,
	NFS4ERR_ADMIN_REVOKED = 10047,
};

struct nfs4_stateid {
	uint32_t seqid;
	uint8_t other[12];
};

/* A COMPOUND being encoded. */
struct nfs4_enc {
	XDR *x;
	u_int count_pos;	/* where the operation count goes */
	uint32_t count;
};

/* minor: the COMPOUND's minorversion, the one its session (or EXCHANGE_ID) was made with. */
bool nfs4_enc_begin(struct nfs4_enc *e, XDR *x, const char *tag, uint32_t minor);
bool nfs4_enc_end(struct nfs4_enc *e);

/* Session and client set-up */
/* co_ownerid is owner[0..len); flags: EXCHGID4_FLAG_USE_NON_PNFS (0x00010000) is what the engine sends. */
bool nfs4_enc_exchange_id(struct nfs4_enc *e, const uint8_t verifier[8], const void *owner,
			  uint32_t owner_len, uint32_t flags);
struct nfs4_chan_attrs {
	uint32_t headerpadsize, maxrequestsize, maxresponsesize, maxresponsesize_cached,
		maxoperations, maxrequests;
};
/* No back channel is wanted (flags 0); the back channel's attributes are small fixed ones. */
bool nfs4_enc_create_session(struct nfs4_enc *e, uint64_t clientid, uint32_t sequence,
			     const struct nfs4_chan_attrs *fore);
bool nfs4_enc_destroy_session(struct nfs4_enc *e, const uint8_t sessionid[16]);
bool nfs4_enc_destroy_clientid(struct nfs4_enc *e, uint64_t clientid);
bool nfs4_enc_reclaim_complete(struct nfs4_enc *e);		/* rca_one_fs = false */
/* dir: CDFC4_FORE (1); use_rdma false. */
bool nfs4_enc_bind_conn(struct nfs4_enc *e, const uint8_t sessionid[16]);
bool nfs4_enc_sequence(struct nfs4_enc *e, const uint8_t sessionid[16], uint32_t seqid,
		       uint32_t slotid, uint32_t highest_slotid, bool cachethis);

/* File handles and names */
bool nfs4_enc_putrootfh(struct nfs4_enc *e);
bool nfs4_enc_putfh(struct nfs4_enc *e, const struct nfs_fh *fh);
bool nfs4_enc_getfh(struct nfs4_enc *e);
bool nfs4_enc_savefh(struct nfs4_enc *e);
bool nfs4_enc_restorefh(struct nfs4_enc *e);
bool nfs4_enc_lookup(struct nfs4_enc *e, const char *name);
/* A LOOKUP for each name of p[0..n) ('/' between names; empty ones skipped), *nops counting
 * them; false past NFS4_NAME_MAX bytes in a name. */
#define NFS4_NAME_MAX 255
bool nfs4_enc_lookup_path(struct nfs4_enc *e, const char *p, size_t n, uint32_t *nops);
/* Asks for type, size, fileid, mode. */
bool nfs4_enc_getattr(struct nfs4_enc *e);
bool nfs4_enc_access(struct nfs4_enc *e, uint32_t access);

/* Files: OPEN by name in the current directory (CLAIM_NULL), OPEN4_SHARE_ACCESS_BOTH |
 * OPEN4_SHARE_ACCESS_WANT_NO_DELEG, deny none; create: UNCHECKED4 with mode (when create). */
bool nfs4_enc_open(struct nfs4_enc *e, uint32_t seqid, uint64_t clientid, const void *owner,
		   uint32_t owner_len, const char *name, bool create, uint32_t mode);
/* The same with share access (OPEN4_SHARE_ACCESS_READ 1, WRITE 2, BOTH 3) and deny
 * (OPEN4_SHARE_DENY_*, 0..3) given; OPEN4_SHARE_ACCESS_WANT_NO_DELEG always (RFC 8881 18.16). */
bool nfs4_enc_open_share(struct nfs4_enc *e, uint32_t seqid, uint64_t clientid,
			 const void *owner, uint32_t owner_len, const char *name, bool create,
			 uint32_t mode, uint32_t access, uint32_t deny);
bool nfs4_enc_close(struct nfs4_enc *e, uint32_t seqid, const struct nfs4_stateid *sid);
/* OPEN_DOWNGRADE of sid's open to access and deny (seqid 0: ignored by 4.1). */
bool nfs4_enc_open_downgrade(struct nfs4_enc *e, const struct nfs4_stateid *sid, uint32_t access,
			     uint32_t deny);
bool nfs4_enc_delegreturn(struct nfs4_enc *e, const struct nfs4_stateid *sid);
/* GETATTR of lease_time (attribute 10) alone. */
bool nfs4_enc_getattr_lease(struct nfs4_enc *e);
bool nfs4_enc_read(struct nfs4_enc *e, const struct nfs4_stateid *sid, uint64_t offset,
		   uint32_t count);
/* stable: 0 UNSTABLE4, 1 DATA_SYNC4, 2 FILE_SYNC4. Last operation (data follows). */
bool nfs4_enc_write(struct nfs4_enc *e, const struct nfs4_stateid *sid, uint64_t offset,
		    uint32_t stable, uint32_t count);
bool nfs4_enc_commit(struct nfs4_enc *e, uint64_t offset, uint32_t count);
bool nfs4_enc_remove(struct nfs4_enc *e, const char *name);
/* CREATE of a directory (NF4DIR) with mode. */
bool nfs4_enc_mkdir(struct nfs4_enc *e, const char *name, uint32_t mode);
/* RENAME from the saved filehandle's directory to the current one. */
bool nfs4_enc_rename(struct nfs4_enc *e, const char *from, const char *to);
/* SETATTR with the anonymous stateid (all zeros) unless sid is given. */
bool nfs4_enc_setattr(struct nfs4_enc *e, const struct nfs4_stateid *sid,
		      const struct nfs_sattr *sa);
/* Asks for type (and rdattr_error) per entry. */
bool nfs4_enc_readdir(struct nfs4_enc *e, uint64_t cookie, const uint8_t verf[8],
		      uint32_t dircount, uint32_t maxcount);

/* Reply */
int nfs4_dec_begin(XDR *x, uint32_t *status, uint32_t *nresults);	/* tag skipped */
/* A server that does not know the opcode answers OP_ILLEGAL: *status NFS4ERR_OP_ILLEGAL (10044). */
int nfs4_dec_op(XDR *x, enum nfs4_opnum expect, uint32_t *status);

struct nfs4_exchange_id_res {
	uint64_t clientid;
	uint32_t sequenceid, flags;
};
int nfs4_dec_exchange_id(XDR *x, struct nfs4_exchange_id_res *r);
struct nfs4_create_session_res {
	uint8_t sessionid[16];
	uint32_t sequence, flags;
	struct nfs4_chan_attrs fore, back;
};
int nfs4_dec_create_session(XDR *x, struct nfs4_create_session_res *r);
int nfs4_dec_bind_conn(XDR *x);
struct nfs4_sequence_res {
	uint8_t sessionid[16];
	uint32_t sequenceid, slotid, highest_slotid, target_highest_slotid, status_flags;
};
int nfs4_dec_sequence(XDR *x, struct nfs4_sequence_res *r);
int nfs4_dec_getfh(XDR *x, struct nfs_fh *fh);
int nfs4_dec_getattr(XDR *x, struct nfs_attr *attr);
int nfs4_dec_access(XDR *x, uint32_t *supported, uint32_t *access);
/* OPEN: the stateid (a delegation, if granted anyway, is skipped). */
int nfs4_dec_open(XDR *x, struct nfs4_stateid *sid);
/* An OPEN reply's delegation (open_delegation4): type OPEN_DELEGATE_NONE 0, READ 1,
 * WRITE 2, NONE_EXT 3; sid is a READ's or WRITE's, to return (zeros otherwise). */
struct nfs4_deleg {
	uint32_t type;
	struct nfs4_stateid sid;
};
#define NFS4_DELEG_READ 1u
#define NFS4_DELEG_WRITE 2u
/* OPEN: the stateid and the delegation, decoded. */
int nfs4_dec_open_deleg(XDR *x, struct nfs4_stateid *sid, struct nfs4_deleg *d);
int nfs4_dec_open_downgrade(XDR *x, struct nfs4_stateid *sid);
/* GETATTR of lease_time alone (nfs4_enc_getattr_lease): its seconds. */
int nfs4_dec_lease_time(XDR *x, uint32_t *secs);
int nfs4_dec_close(XDR *x, struct nfs4_stateid *sid);
int nfs4_dec_read(XDR *x, bool *eof, uint32_t *count, const uint8_t **data);
int nfs4_dec_write(XDR *x, uint32_t *count, uint32_t *committed, uint8_t verf[8]);
int nfs4_dec_commit(XDR *x, uint8_t verf[8]);
/* REMOVE, CREATE, RENAME, SETATTR: their results (change info, attribute bitmaps) skipped.
 * SETATTR's bitmap follows its status whatever the status: nfs4_dec_setattr reads it either way. */
int nfs4_dec_remove(XDR *x);
int nfs4_dec_mkdir(XDR *x);
int nfs4_dec_rename(XDR *x);
int nfs4_dec_setattr(XDR *x);
/* READDIR: fn for each entry (non-zero from fn stops and is returned); name points into the
 * record, namelen bytes, no NUL. The whole reply is checked before fn sees an entry;
 * *eof is false when fn stopped. */
int nfs4_dec_readdir(XDR *x, uint8_t verf[8], bool *eof,
		     int (*fn)(void *arg, const char *name, uint32_t namelen, uint64_t cookie,
			       bool is_dir),
		     void *arg);
/* Operations with no results past their status (PUTFH, PUTROOTFH, LOOKUP, SAVEFH,
 * RESTOREFH, RECLAIM_COMPLETE, DESTROY_SESSION, DESTROY_CLIENTID) need no decoder. */

/* An nfsstat4 as -errno (NFS4ERR_NOENT -> -ENOENT, NFS4ERR_DELAY -> -EAGAIN, ...; unknown: -EIO). */
int nfs4_errno(uint32_t stat);

#endif
