/*
 * xdrx: the one set of XDR helpers (RFC 4506) the native engine's RPC
 * layer and its NFSv3 and NFSv4 codecs share, over libtirpc's public XDR
 * API only (xdrmem_create, xdr_u_int, xdr_uint64_t, xdr_opaque,
 * XDR_INLINE, xdr_getpos/xdr_setpos). Pure logic, no allocation.
 *
 * Writers return false when the buffer is too small (or a length is over
 * its limit); readers return false (or NULL) when the bytes left are too
 * few or a value is out of its range, and never read past the buffer.
 * After a false the stream's position is unspecified: the caller stops.
 *
 * Bytes are found in place (xdrx_take, xdrx_get_opaque) on any stream made
 * by xdrx_create. A stream made by plain xdrmem_create works too when its
 * buffer is 4-byte aligned (every record rpc_rec hands on is); over an
 * unaligned buffer only xdrx_create's streams can point into it. Every
 * other helper works on any xdrmem stream.
 */
#ifndef NFSLOAD_XDRX_H
#define NFSLOAD_XDRX_H

#include <rpc/types.h>
#include <rpc/xdr.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Zero bytes that follow n bytes of opaque data (0..3). */
static inline uint32_t xdrx_pad(uint32_t n)
{
	return (4 - (n & 3)) & 3;
}

/* Big-endian words in a buffer the caller has checked the size of. */
static inline uint32_t xdrx_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t xdrx_be64(const uint8_t *p)
{
	return (uint64_t)xdrx_be32(p) << 32 | xdrx_be32(p + 4);
}

static inline void xdrx_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/*
 * An xdrmem stream over buf[0..len) (len past UINT_MAX is used up to that),
 * for op XDR_ENCODE or XDR_DECODE. The buffer stays the caller's; xdr_destroy
 * is optional (xdrmem's does nothing).
 */
void xdrx_create(XDR *x, void *buf, size_t len, enum xdr_op op);

/*
 * Words: inline, as the codecs call them for every field. Where xdrmem
 * gives the bytes in place (XDR_INLINE: an aligned buffer, enough left)
 * they are read or written there, as rpcgen's code does, with one call
 * instead of xdr_u_int's two; elsewhere xdr_u_int and xdr_uint64_t do it.
 * The bytes are the same either way.
 */
static inline bool xdrx_put32(XDR *x, uint32_t v)
{
	uint8_t *p = (uint8_t *)XDR_INLINE(x, 4);
	u_int u = v;

	if (p) {
		xdrx_put_be32(p, v);
		return true;
	}
	return xdr_u_int(x, &u);
}

static inline bool xdrx_put64(XDR *x, uint64_t v)
{
	uint8_t *p = (uint8_t *)XDR_INLINE(x, 8);

	if (p) {
		xdrx_put_be32(p, (uint32_t)(v >> 32));
		xdrx_put_be32(p + 4, (uint32_t)v);
		return true;
	}
	return xdr_uint64_t(x, &v);
}

static inline bool xdrx_get32(XDR *x, uint32_t *v)
{
	const uint8_t *p = (const uint8_t *)XDR_INLINE(x, 4);
	u_int u;

	if (p) {
		*v = xdrx_be32(p);
		return true;
	}
	if (!xdr_u_int(x, &u))
		return false;
	*v = u;
	return true;
}

static inline bool xdrx_get64(XDR *x, uint64_t *v)
{
	const uint8_t *p = (const uint8_t *)XDR_INLINE(x, 8);

	if (p) {
		*v = xdrx_be64(p);
		return true;
	}
	return xdr_uint64_t(x, v);
}

/* Stricter than xdr_bool, which takes any non-zero word as true: 0 or 1, else false. */
static inline bool xdrx_get_bool(XDR *x, bool *b)
{
	uint32_t v;

	if (!xdrx_get32(x, &v) || v > 1)
		return false;
	*b = v;
	return true;
}

/* Writing */
/* Fixed-length opaque: n bytes of p and their padding. */
bool xdrx_put_fixed(XDR *x, const void *p, uint32_t n);
/* Variable-length opaque<max>: length, bytes, padding; false when n > max. */
bool xdrx_put_opaque(XDR *x, const void *p, uint32_t n, uint32_t max);
/* string<max>; NULL is refused (false). */
bool xdrx_put_string(XDR *x, const char *s, uint32_t max);

/* Reading */
/* Steps over n bytes and their padding. */
bool xdrx_skip(XDR *x, uint32_t n);
/* Steps over n 4-byte words. */
bool xdrx_skip32(XDR *x, uint32_t n);
/*
 * n bytes in place and their padding stepped over: a pointer into the
 * stream's buffer, valid while it is; NULL when fewer are left.
 */
const uint8_t *xdrx_take(XDR *x, uint32_t n);
/* n bytes copied to dst, their padding stepped over. */
bool xdrx_get_fixed(XDR *x, void *dst, uint32_t n);
/* Variable-length opaque<max> in place: *p and *n; false when its length is over max. */
bool xdrx_get_opaque(XDR *x, uint32_t max, const uint8_t **p, uint32_t *n);
bool xdrx_skip_opaque(XDR *x, uint32_t max);

#endif
