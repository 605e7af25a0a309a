/*
 * nfs3x: the XDR of MOUNT v3 and NFS v3 (RFC 1813) messages the native
 * engine sends and reads, over xdrx's helpers (libtirpc's public XDR API).
 * Pure logic.
 *
 * Encoders append one procedure's arguments to an XDR stream that
 * rpc_start_call began; they return false when the buffer is too small.
 * Decoders read one procedure's results from an XDR stream positioned by
 * rpc_decode_reply; they return 0 (NFS3_OK), the protocol's status (> 0:
 * nfsstat3 or mountstat3) or -EBADMSG (truncated or garbage). Decoders never
 * allocate: names and data point into the record, valid while it is. They
 * need an xdrmem stream: xdrx_create over the record (any alignment), or
 * xdrmem_create over a 4-byte aligned one.
 */
#ifndef NFSLOAD_NFS3X_H
#define NFSLOAD_NFS3X_H

#include <rpc/types.h>
#include <rpc/xdr.h>
#include <stdbool.h>
#include <stdint.h>

#define MOUNT_PROGRAM 100005
#define MOUNT_V3 3
#define NFS_PROGRAM 100003
#define NFS_V3 3
#define NFS_V4 4

enum mnt3_proc { MNT3_NULL = 0, MNT3_MNT = 1, MNT3_UMNT = 3 };
enum nfs3_proc {
	NFS3_NULL = 0, NFS3_GETATTR = 1, NFS3_SETATTR = 2, NFS3_LOOKUP = 3, NFS3_ACCESS = 4,
	NFS3_READ = 6, NFS3_WRITE = 7, NFS3_CREATE = 8, NFS3_MKDIR = 9, NFS3_REMOVE = 12,
	NFS3_RMDIR = 13, NFS3_RENAME = 14, NFS3_READDIRPLUS = 17, NFS3_FSINFO = 19,
	NFS3_COMMIT = 21,
};
enum nfs3_stable { NFS3_UNSTABLE = 0, NFS3_DATA_SYNC = 1, NFS3_FILE_SYNC = 2 };
enum nfs3_createmode { NFS3_CREATE_UNCHECKED = 0, NFS3_CREATE_GUARDED = 1 };
enum nfs3_ftype { NFS3_REG = 1, NFS3_DIR = 2 };

#define NFS_FH_MAX 128		/* NFSv4's limit; NFSv3's is 64 */

struct nfs_fh {
	uint32_t len;
	uint8_t data[NFS_FH_MAX];
};

/* What the engine reads of fattr3 (and of an NFSv4 GETATTR). */
struct nfs_attr {
	uint32_t type;		/* enum nfs3_ftype (NFSv4's NF4REG/NF4DIR have the same values) */
	uint32_t mode;
	uint64_t size;
	uint64_t fileid;
};

/* What SETATTR sets: each field only if its has_ flag is set. */
struct nfs_sattr {
	bool has_mode, has_size, has_times;	/* times: set both to the server's time */
	uint32_t mode;
	uint64_t size;
};

struct nfs3_fsinfo {
	uint32_t rtmax, rtpref, wtmax, wtpref, dtpref;
	uint64_t maxfilesize;
};

/* MOUNT v3 */
bool mnt3_enc_mnt(XDR *x, const char *path);		/* MNT and UMNT take the same argument */
/* > 0: mountstat3; flavors (may be NULL): the export's, a bit per enum engine_sec. */
int mnt3_dec_mnt(XDR *x, struct nfs_fh *fh, unsigned *flavors);

/* NFS v3 arguments */
bool nfs3_enc_fh(XDR *x, const struct nfs_fh *fh);	/* GETATTR, FSINFO */
bool nfs3_enc_lookup(XDR *x, const struct nfs_fh *dir, const char *name);	/* also REMOVE, RMDIR */
bool nfs3_enc_access(XDR *x, const struct nfs_fh *fh, uint32_t access);
bool nfs3_enc_read(XDR *x, const struct nfs_fh *fh, uint64_t offset, uint32_t count);
/* Ends with the data's length: the caller sends count bytes and rpc_pad(count) zeros after. */
bool nfs3_enc_write(XDR *x, const struct nfs_fh *fh, uint64_t offset, uint32_t count,
		    enum nfs3_stable stable);
bool nfs3_enc_commit(XDR *x, const struct nfs_fh *fh, uint64_t offset, uint32_t count);
bool nfs3_enc_create(XDR *x, const struct nfs_fh *dir, const char *name,
		     enum nfs3_createmode how, uint32_t mode);
bool nfs3_enc_mkdir(XDR *x, const struct nfs_fh *dir, const char *name, uint32_t mode);
bool nfs3_enc_rename(XDR *x, const struct nfs_fh *from_dir, const char *from,
		     const struct nfs_fh *to_dir, const char *to);
bool nfs3_enc_setattr(XDR *x, const struct nfs_fh *fh, const struct nfs_sattr *sa);
/* cookieverf: 8 bytes (zeros for cookie 0). */
bool nfs3_enc_readdirplus(XDR *x, const struct nfs_fh *dir, uint64_t cookie,
			  const uint8_t cookieverf[8], uint32_t dircount, uint32_t maxcount);

/* NFS v3 results. attr may be NULL where it is an out-parameter; when the
 * server sent no attributes, attr->type is 0. */
int nfs3_dec_getattr(XDR *x, struct nfs_attr *attr);
int nfs3_dec_lookup(XDR *x, struct nfs_fh *fh, struct nfs_attr *attr);
int nfs3_dec_access(XDR *x, uint32_t *access);
/* data points into the record; eof as the server said. A count other than
 * the data's length is garbage (-EBADMSG). */
int nfs3_dec_read(XDR *x, uint32_t *count, bool *eof, const uint8_t **data);
int nfs3_dec_write(XDR *x, uint32_t *count, enum nfs3_stable *committed, uint8_t verf[8]);
int nfs3_dec_commit(XDR *x, uint8_t verf[8]);
/* CREATE and MKDIR: has_fh false when the server sent no handle (then LOOKUP). */
int nfs3_dec_create(XDR *x, bool *has_fh, struct nfs_fh *fh);
/* REMOVE, RMDIR, RENAME, SETATTR: the status (their wcc data is skipped). */
int nfs3_dec_wcc(XDR *x);
int nfs3_dec_fsinfo(XDR *x, struct nfs3_fsinfo *fi);
/*
 * READDIRPLUS: fn(arg, name, namelen, cookie, is_dir) for each entry
 * ("." and ".." included; non-zero from fn stops and is returned);
 * cookieverf and eof for the next call. The whole reply is checked before
 * fn sees any entry: a garbage reply calls fn for none. fn may be NULL.
 */
int nfs3_dec_readdirplus(XDR *x, uint8_t cookieverf[8], bool *eof,
			 int (*fn)(void *arg, const char *name, uint32_t namelen,
				   uint64_t cookie, bool is_dir),
			 void *arg);

/* An nfsstat3 or mountstat3 as -errno (NFS3ERR_NOENT -> -ENOENT, ...; unknown: -EIO). */
int nfs3_errno(uint32_t stat);

#endif
