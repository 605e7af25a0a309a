/*
 * xdrx: XDR helpers over libtirpc's public API, for rpc.c and the codecs.
 *
 * Opaques go through xdr_opaque, so encoders write exactly what libtirpc
 * writes (padding zeroed); words are inline in xdrx.h. Bytes in place come
 * from XDR_INLINE; libtirpc's xdrmem refuses it over a buffer that is not
 * 4-byte aligned (a record gathered from a stream can start anywhere), so
 * there xdrx_take steps with xdr_setpos, which checks the same bounds, and
 * finds the bytes from the buffer's start, which xdrx_create keeps in
 * x_public: the one member of XDR that xdr.h leaves to its user.
 *
 * Not here: RPC headers (rpc.c), any procedure's layout (nfs3x, nfs4x).
 */
#include "xdrx.h"

#include <limits.h>
#include <string.h>

void xdrx_create(XDR *x, void *buf, size_t len, enum xdr_op op)
{
	if (len > UINT_MAX)
		len = UINT_MAX;
	xdrmem_create(x, buf, (u_int)len, op);
	x->x_public = buf;
}

bool xdrx_put_fixed(XDR *x, const void *p, uint32_t n)
{
	/* xdr_opaque only reads the bytes when encoding. */
	return xdr_opaque(x, (char *)p, n);
}

bool xdrx_put_opaque(XDR *x, const void *p, uint32_t n, uint32_t max)
{
	return n <= max && xdrx_put32(x, n) && xdrx_put_fixed(x, p, n);
}

bool xdrx_put_string(XDR *x, const char *s, uint32_t max)
{
	size_t n;

	if (!s)
		return false;
	n = strlen(s);
	return n <= max && xdrx_put_opaque(x, s, (uint32_t)n, max);
}

/* n bytes and their padding, in bytes; false when that passes 2^32 - 1. */
static bool padded_len(uint32_t n, uint32_t *padded)
{
	if (n > UINT32_MAX - 3)
		return false;
	*padded = n + xdrx_pad(n);
	return true;
}

bool xdrx_skip(XDR *x, uint32_t n)
{
	uint32_t padded;
	u_int pos;

	if (!padded_len(n, &padded))
		return false;
	/* One call where xdrmem inlines, two (by position) where it will not. */
	if (XDR_INLINE(x, padded))
		return true;
	pos = xdr_getpos(x);
	return padded <= UINT_MAX - pos && xdr_setpos(x, pos + padded);
}

bool xdrx_skip32(XDR *x, uint32_t n)
{
	return n <= UINT32_MAX / 4 && xdrx_skip(x, 4 * n);
}

const uint8_t *xdrx_take(XDR *x, uint32_t n)
{
	uint32_t padded;
	u_int pos;
	void *p;

	if (!padded_len(n, &padded))
		return NULL;
	p = XDR_INLINE(x, padded);
	if (p)
		return p;
	/*
	 * Over an aligned buffer XDR_INLINE fails only short of bytes, and so
	 * does xdr_setpos: x_public is read only for an unaligned buffer.
	 */
	pos = xdr_getpos(x);
	if (x->x_op != XDR_DECODE || padded > UINT_MAX - pos || !xdr_setpos(x, pos + padded))
		return NULL;
	return (const uint8_t *)x->x_public + pos;
}

bool xdrx_get_fixed(XDR *x, void *dst, uint32_t n)
{
	uint32_t padded;
	const void *p;

	if (!padded_len(n, &padded))
		return false;
	/* In place where xdrmem allows it (a copy, no call per part); else xdr_opaque's copy. */
	p = XDR_INLINE(x, padded);
	if (!p)
		return xdr_opaque(x, dst, n);
	memcpy(dst, p, n);
	return true;
}

bool xdrx_get_opaque(XDR *x, uint32_t max, const uint8_t **p, uint32_t *n)
{
	if (!xdrx_get32(x, n) || *n > max)
		return false;
	*p = xdrx_take(x, *n);
	return *p != NULL;
}

bool xdrx_skip_opaque(XDR *x, uint32_t max)
{
	uint32_t n;

	return xdrx_get32(x, &n) && n <= max && xdrx_skip(x, n);
}
