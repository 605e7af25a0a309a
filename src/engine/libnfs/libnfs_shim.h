/*
 * libnfs_shim: the two libnfs APIs behind one set of names, for the libnfs
 * engine's files only. libnfs >= 6 (LIBNFS_API_V2) takes the buffer before
 * the offset and reads into a caller's buffer; libnfs 4.0 (Debian 12) takes
 * the offset first and hands READ data to the callback.
 */
#ifndef NFSLOAD_LIBNFS_SHIM_H
#define NFSLOAD_LIBNFS_SHIM_H

#include <stdint.h>
#include <sys/time.h>
#include <poll.h>
#include <nfsc/libnfs.h>

/*
 * SHIM_V4_LIMITS: NFSv4 WRITEs over 3,904 bytes cannot be encoded and READ
 * replies over 1 MiB drop the connection (libnfs 4.x; fixed in 5.0).
 */
#ifdef LIBNFS_API_V2
#define SHIM_API "libnfs >= 6 API"
#define SHIM_READS_INTO_BUF 1
#define SHIM_V4_LIMITS 0
#else
#define SHIM_API "libnfs 4.x API"
#define SHIM_READS_INTO_BUF 0
#define SHIM_V4_LIMITS 1
#endif

/* buf: where a READ lands with libnfs >= 6 (ignored by 4.0, which hands its own). */
static inline int shim_pread_async(struct nfs_context *nfs, struct nfsfh *fh, void *buf,
				   uint64_t offset, uint64_t count, nfs_cb cb, void *priv)
{
#ifdef LIBNFS_API_V2
	return nfs_pread_async(nfs, fh, buf, count, offset, cb, priv);
#else
	(void)buf;
	return nfs_pread_async(nfs, fh, offset, count, cb, priv);
#endif
}

static inline int shim_pwrite_async(struct nfs_context *nfs, struct nfsfh *fh, const void *buf,
				    uint64_t offset, uint64_t count, nfs_cb cb, void *priv)
{
#ifdef LIBNFS_API_V2
	return nfs_pwrite_async(nfs, fh, buf, count, offset, cb, priv);
#else
	return nfs_pwrite_async(nfs, fh, offset, count, buf, cb, priv);
#endif
}

static inline int shim_pwrite(struct nfs_context *nfs, struct nfsfh *fh, const void *buf,
			      uint64_t offset, uint64_t count)
{
#ifdef LIBNFS_API_V2
	return nfs_pwrite(nfs, fh, buf, count, offset);
#else
	return nfs_pwrite(nfs, fh, offset, count, buf);
#endif
}

#endif
