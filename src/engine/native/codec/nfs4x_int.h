/*
 * nfs4x's own constants, shared by its encoders (nfs4x.c) and decoders
 * (nfs4x_dec.c): RFC 5662's union arms and attribute numbers. Constants
 * only: it includes nothing, so that both files stand above it.
 */
#ifndef NFSLOAD_NFS4X_INT_H
#define NFSLOAD_NFS4X_INT_H

#define NFS4_OPAQUE_LIMIT 1024
#define NFS4_FHSIZE 128
#define OP4_ILLEGAL 10044
#define NFS4ERR_OP_ILLEGAL 10044

/* RFC 5662's constants for the arms of the unions used here. */
enum {
	SP4_NONE = 0, SP4_MACH_CRED = 1, SP4_SSV = 2,
	CDFC4_FORE = 1,
	CB_AUTH_NONE = 0,
	CB_PROGRAM = 0x40000000,
	OPEN4_NOCREATE = 0, OPEN4_CREATE = 1,
	UNCHECKED4 = 0,
	CLAIM_NULL = 0,
	OPEN4_SHARE_ACCESS_BOTH = 3, OPEN4_SHARE_ACCESS_WANT_NO_DELEG = 0x0400,
	OPEN_DELEGATE_NONE = 0, OPEN_DELEGATE_READ = 1, OPEN_DELEGATE_WRITE = 2,
	OPEN_DELEGATE_NONE_EXT = 3,
	NFS_LIMIT_SIZE = 1, NFS_LIMIT_BLOCKS = 2,
	WND4_CONTENTION = 1, WND4_RESOURCE = 2,
	NF4DIR = 2,
	SET_TO_SERVER_TIME4 = 0,
};

/* Attribute numbers (RFC 8881 section 5.8). */
enum {
	FATTR4_TYPE = 1, FATTR4_SIZE = 4, FATTR4_LEASE_TIME = 10, FATTR4_RDATTR_ERROR = 11, FATTR4_FILEID = 20,
	FATTR4_MODE = 33, FATTR4_TIME_ACCESS_SET = 48, FATTR4_TIME_MODIFY_SET = 54,
};

#define BIT0(a) (1u << (a))		/* in bitmap word 0 */
#define BIT1(a) (1u << ((a) - 32))	/* in bitmap word 1 */

#endif
