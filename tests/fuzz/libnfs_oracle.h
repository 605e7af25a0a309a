/*
 * libnfs_oracle: NFSv3 and MOUNT v3 results decoded by libnfs's own XDR code
 * (libnfs_oracle.c), for fuzz_nfs3.c to compare with nfsload's decoders. No
 * libnfs or libtirpc type in this header: the two cannot share a unit.
 */
#ifndef NFSLOAD_LIBNFS_ORACLE_H
#define NFSLOAD_LIBNFS_ORACLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* fuzz_nfs3.c's decoders, in its order */
enum { ORACLE3_MNT, ORACLE3_GETATTR, ORACLE3_LOOKUP, ORACLE3_ACCESS, ORACLE3_READ,
       ORACLE3_WRITE, ORACLE3_COMMIT, ORACLE3_CREATE, ORACLE3_WCC, ORACLE3_FSINFO,
       ORACLE3_READDIRPLUS };

struct oracle3 {
	uint32_t pos;		/* bytes libnfs read */
	bool canonical;		/* libnfs encodes what it read back to the same bytes */
	uint32_t status;	/* nfsstat3 / mountstat3 */
	bool has_attr;		/* the object's attributes (GETATTR, LOOKUP) */
	uint32_t type, mode;
	uint64_t size, fileid;
	bool has_fh;		/* MNT, LOOKUP, CREATE */
	uint32_t fh_len;
	uint8_t fh[64];
	uint32_t count;		/* READ, WRITE; ACCESS: access; MNT: flavours */
	bool eof;		/* READ, READDIRPLUS */
	uint32_t data_len;	/* READ */
	uint32_t committed;	/* WRITE */
	uint8_t verf[8];	/* WRITE, COMMIT; READDIRPLUS: the cookie verifier */
	uint32_t fsinfo[5];	/* rtmax rtpref wtmax wtpref dtpref */
	uint64_t maxfilesize;
	uint32_t entries;	/* READDIRPLUS: entries, and a hash of names, cookies, is_dir */
	uint64_t entries_hash;
};

/* 1 when libnfs decodes p[0..n) as the results of decoder which (o filled), else 0. */
int oracle3_decode(unsigned which, const uint8_t *p, size_t n, struct oracle3 *o);

#endif
