/*
 * gss: RPCSEC_GSS (RFC 2203) calls and replies over the GSS-API. See gss.h
 * for the layout of a call; the numbers below are the RFC's.
 */
#include "gss.h"
#include "rpc.h"
#include "xdrx.h"

#include <errno.h>
#include <gssapi/gssapi_ext.h>
#include <stdio.h>
#include <string.h>

#include <rpc/auth.h>
#include <rpc/clnt.h>
#include <rpc/rpc_msg.h>

#define RPC_GSS_VERSION 1

void rpc_gss_init(struct rpc_gss *g, enum rpc_gss_svc svc)
{
	memset(g, 0, sizeof(*g));
	g->ctx = GSS_C_NO_CONTEXT;
	g->svc = svc;
}

void rpc_gss_reset(struct rpc_gss *g)
{
	OM_uint32 minor;

	if (g->ctx != GSS_C_NO_CONTEXT)
		gss_delete_sec_context(&minor, &g->ctx, GSS_C_NO_BUFFER);
	rpc_gss_init(g, g->svc);
}

/* The header up to the credential's handle: xid CALL 2 prog vers proc, then the cred. */
static bool put_head(XDR *x, void *buf, size_t len, uint32_t xid, uint32_t prog, uint32_t vers,
		     uint32_t proc, const struct rpc_gss *g, enum rpc_gss_proc gproc,
		     uint32_t seq, const uint8_t *handle, uint32_t handle_len)
{
	uint32_t body = 5 * 4 + handle_len + xdrx_pad(handle_len);

	xdrx_create(x, buf, len, XDR_ENCODE);
	return len >= RPC_MARK_LEN && xdr_setpos(x, RPC_MARK_LEN) && xdrx_put32(x, xid) &&
	       xdrx_put32(x, CALL) && xdrx_put32(x, RPC_MSG_VERSION) && xdrx_put32(x, prog) &&
	       xdrx_put32(x, vers) && xdrx_put32(x, proc) && xdrx_put32(x, RPC_AUTH_GSS) &&
	       xdrx_put32(x, body) && xdrx_put32(x, RPC_GSS_VERSION) && xdrx_put32(x, gproc) &&
	       xdrx_put32(x, seq) && xdrx_put32(x, g->svc) &&
	       xdrx_put_opaque(x, handle, handle_len, RPC_GSS_HANDLE_MAX);
}

bool rpc_gss_start_init(XDR *x, void *buf, size_t len, uint32_t xid, uint32_t prog,
			uint32_t vers, const struct rpc_gss *g, enum rpc_gss_proc proc,
			const void *token, uint32_t token_len)
{
	/* INIT carries no handle; CONTINUE_INIT the one the server gave. The verifier is none. */
	return put_head(x, buf, len, xid, prog, vers, NULLPROC, g, proc, 0, g->handle,
			proc == RPC_GSS_INIT ? 0 : g->handle_len) &&
	       xdrx_put32(x, AUTH_NONE) && xdrx_put32(x, 0) &&
	       xdrx_put_opaque(x, token, token_len, RPC_GSS_TOKEN_MAX);
}

int rpc_gss_decode_init(XDR *x, struct rpc_gss_init_res *r)
{
	memset(r, 0, sizeof(*r));
	if (!xdrx_get_opaque(x, RPC_GSS_HANDLE_MAX, &r->handle, &r->handle_len) ||
	    !xdrx_get32(x, &r->major) || !xdrx_get32(x, &r->minor) || !xdrx_get32(x, &r->window) ||
	    !xdrx_get_opaque(x, RPC_GSS_TOKEN_MAX, &r->token, &r->token_len))
		return -EBADMSG;
	return 0;
}

static int verify(gss_ctx_id_t ctx, const void *msg, size_t n, const uint8_t *mic, uint32_t len)
{
	gss_buffer_desc m = { n, (void *)msg }, t = { len, (void *)mic };
	OM_uint32 minor;

	return gss_verify_mic(&minor, ctx, &m, &t, NULL) == GSS_S_COMPLETE ? 0 : -EACCES;
}

int rpc_gss_made(struct rpc_gss *g, const struct rpc_gss_init_res *r, const uint8_t *verf,
		 uint32_t verf_len)
{
	uint8_t win[4];
	gss_iov_buffer_desc mic[2] = { { GSS_IOV_BUFFER_TYPE_DATA, { 0, NULL } },
				       { GSS_IOV_BUFFER_TYPE_MIC_TOKEN, { 0, NULL } } };
	gss_iov_buffer_desc wrap[4] = { { GSS_IOV_BUFFER_TYPE_HEADER, { 0, NULL } },
					{ GSS_IOV_BUFFER_TYPE_DATA, { 0, NULL } },
					{ GSS_IOV_BUFFER_TYPE_PADDING, { 0, NULL } },
					{ GSS_IOV_BUFFER_TYPE_TRAILER, { 0, NULL } } };
	OM_uint32 minor;

	xdrx_put_be32(win, r->window);
	if (verify(g->ctx, win, 4, verf, verf_len) < 0 || r->handle_len == 0 || r->window == 0)
		return -EACCES;
	if (gss_get_mic_iov_length(&minor, g->ctx, GSS_C_QOP_DEFAULT, mic, 2) != GSS_S_COMPLETE ||
	    gss_wrap_iov_length(&minor, g->ctx, 1, GSS_C_QOP_DEFAULT, NULL, wrap, 4) !=
	    GSS_S_COMPLETE)
		return -EACCES;
	memcpy(g->handle, r->handle, r->handle_len);
	g->handle_len = r->handle_len;
	g->window = r->window;
	g->mic_len = (uint32_t)mic[1].buffer.length;
	g->wrap_head = (uint32_t)wrap[0].buffer.length;
	g->seq_next = 1;
	g->ready = true;
	return 0;
}

bool rpc_gss_start_call(XDR *x, void *buf, size_t len, uint32_t xid, uint32_t prog,
			uint32_t vers, uint32_t proc, struct rpc_gss *g, uint32_t *seq,
			u_int *body, int *why)
{
	gss_iov_buffer_desc iov[2];
	OM_uint32 minor;
	uint8_t *p = buf;
	u_int pos, room;

	*why = -ENOSPC;
	*seq = g->seq_next;
	if (!put_head(x, buf, len, xid, prog, vers, proc, g, RPC_GSS_DATA, *seq, g->handle,
		      g->handle_len))
		return false;
	pos = xdr_getpos(x);
	room = 8 + g->mic_len + xdrx_pad(g->mic_len);
	if (pos + room + 8 + g->wrap_head > len)
		return false;
	/* The verifier: a MIC of the header, xid to the credential's end. */
	xdrx_put_be32(p + pos, RPC_AUTH_GSS);
	xdrx_put_be32(p + pos + 4, g->mic_len);
	memset(p + pos + 8 + g->mic_len, 0, xdrx_pad(g->mic_len));
	iov[0].type = GSS_IOV_BUFFER_TYPE_DATA;
	iov[0].buffer = (gss_buffer_desc){ pos - RPC_MARK_LEN, p + RPC_MARK_LEN };
	iov[1].type = GSS_IOV_BUFFER_TYPE_MIC_TOKEN;
	iov[1].buffer = (gss_buffer_desc){ g->mic_len, p + pos + 8 };
	if (gss_get_mic_iov(&minor, g->ctx, GSS_C_QOP_DEFAULT, iov, 2) != GSS_S_COMPLETE ||
	    iov[1].buffer.length != g->mic_len) {
		*why = -EIO;
		return false;
	}
	pos += room;
	/* The body: its length (and a wrap token's header) filled in by rpc_gss_seal. */
	if (g->svc == RPC_GSS_INTEGRITY)
		pos += 4;
	else if (g->svc == RPC_GSS_PRIVACY)
		pos += 4 + g->wrap_head;
	*body = pos;
	if (!xdr_setpos(x, pos) || (g->svc != RPC_GSS_NONE && !xdrx_put32(x, *seq)))
		return false;
	g->seq_next++;
	return true;
}

int rpc_gss_seal(struct rpc_gss *g, uint8_t *buf, size_t cap, u_int body, u_int *end)
{
	u_int n = *end - body;
	OM_uint32 minor;

	if (g->svc == RPC_GSS_INTEGRITY) {
		gss_iov_buffer_desc iov[2] = {
			{ GSS_IOV_BUFFER_TYPE_DATA, { n, buf + body } },
			{ GSS_IOV_BUFFER_TYPE_MIC_TOKEN, { g->mic_len, buf + *end + 4 } },
		};

		if (*end + 4 + g->mic_len + 3 > cap)
			return -ENOSPC;
		if (gss_get_mic_iov(&minor, g->ctx, GSS_C_QOP_DEFAULT, iov, 2) != GSS_S_COMPLETE ||
		    iov[1].buffer.length != g->mic_len)
			return -EIO;
		xdrx_put_be32(buf + body - 4, n);
		xdrx_put_be32(buf + *end, g->mic_len);
		*end += 4 + g->mic_len;
	} else if (g->svc == RPC_GSS_PRIVACY) {
		gss_iov_buffer_desc iov[4] = {
			{ GSS_IOV_BUFFER_TYPE_HEADER, { g->wrap_head, buf + body - g->wrap_head } },
			{ GSS_IOV_BUFFER_TYPE_DATA, { n, buf + body } },
			{ GSS_IOV_BUFFER_TYPE_PADDING, { 0, NULL } },
			{ GSS_IOV_BUFFER_TYPE_TRAILER, { 0, NULL } },
		};
		u_int tok;

		if (gss_wrap_iov_length(&minor, g->ctx, 1, GSS_C_QOP_DEFAULT, NULL, iov, 4) !=
		    GSS_S_COMPLETE || iov[0].buffer.length != g->wrap_head)
			return -EIO;
		if (*end + iov[2].buffer.length + iov[3].buffer.length + 3 > cap)
			return -ENOSPC;
		/* The length call leaves the buffers' places unset: they are set here. */
		iov[0].buffer.value = buf + body - g->wrap_head;
		iov[1].buffer.value = buf + body;
		iov[2].buffer.value = buf + *end;
		iov[3].buffer.value = buf + *end + iov[2].buffer.length;
		if (gss_wrap_iov(&minor, g->ctx, 1, GSS_C_QOP_DEFAULT, NULL, iov, 4) != GSS_S_COMPLETE)
			return -EIO;
		*end += (u_int)(iov[2].buffer.length + iov[3].buffer.length);
		tok = *end - (body - g->wrap_head);
		xdrx_put_be32(buf + body - g->wrap_head - 4, tok);
	} else {
		return 0;
	}
	memset(buf + *end, 0, xdrx_pad(*end & 3));
	*end += xdrx_pad(*end & 3);
	return 0;
}

int rpc_gss_check_verf(const struct rpc_gss *g, uint32_t seq, const uint8_t *verf, uint32_t len)
{
	uint8_t s[4];

	xdrx_put_be32(s, seq);
	return verify(g->ctx, s, 4, verf, len);
}

int rpc_gss_open(const struct rpc_gss *g, uint32_t seq, uint8_t *rec, size_t len, size_t pos,
		 uint8_t **res, size_t *res_len)
{
	uint8_t *data;
	size_t n;
	uint32_t l;

	if (g->svc == RPC_GSS_NONE) {
		*res = rec + pos;
		*res_len = len - pos;
		return 0;
	}
	if (len - pos < 4 || (l = xdrx_be32(rec + pos)) > len - pos - 4)
		return -EBADMSG;
	data = rec + pos + 4;
	if (g->svc == RPC_GSS_INTEGRITY) {
		size_t at = pos + 4 + l + xdrx_pad(l);
		uint32_t ml;

		if (at + 4 > len || (ml = xdrx_be32(rec + at)) > len - at - 4)
			return -EBADMSG;
		if (verify(g->ctx, data, l, rec + at + 4, ml) < 0)
			return -EACCES;
		n = l;
	} else {
		gss_iov_buffer_desc iov[2] = {
			{ GSS_IOV_BUFFER_TYPE_STREAM, { l, data } },
			{ GSS_IOV_BUFFER_TYPE_DATA, { 0, NULL } },
		};
		OM_uint32 minor;
		int conf = 0;

		if (gss_unwrap_iov(&minor, g->ctx, &conf, NULL, iov, 2) != GSS_S_COMPLETE || !conf)
			return -EACCES;
		n = iov[1].buffer.length;
		if (((uintptr_t)iov[1].buffer.value & 3) != 0)
			memmove(data, iov[1].buffer.value, n);	/* XDR reads words in place */
		else
			data = iov[1].buffer.value;
	}
	if (n < 4 || xdrx_be32(data) != seq)
		return n < 4 ? -EBADMSG : -EACCES;
	*res = data + 4;
	*res_len = n - 4;
	return 0;
}

const char *rpc_gss_status(OM_uint32 major, OM_uint32 minor, char *buf, size_t len)
{
	OM_uint32 m, ctx = 0;
	gss_buffer_desc s;
	size_t used = 0;

	buf[0] = '\0';
	/* The mechanism's words say more ("Clock skew too great"); the GSS-API's if none. */
	if (minor && gss_display_status(&m, minor, GSS_C_MECH_CODE, GSS_C_NO_OID, &ctx, &s) ==
	    GSS_S_COMPLETE) {
		used = (size_t)snprintf(buf, len, "%.*s", (int)s.length, (char *)s.value);
		gss_release_buffer(&m, &s);
	}
	ctx = 0;
	if (used == 0 && gss_display_status(&m, major, GSS_C_GSS_CODE, GSS_C_NO_OID, &ctx, &s) ==
	    GSS_S_COMPLETE) {
		snprintf(buf, len, "%.*s", (int)s.length, (char *)s.value);
		gss_release_buffer(&m, &s);
	}
	return buf;
}
