/*
 * The native engine's calls in flight on one connection: xids, encoding
 * into the thread's scratch buffer, queueing on the socket, matching
 * replies by xid and timing out what gets no reply; and the socket itself
 * (connect, attach, data, loss). A reply goes straight to the handler its
 * call was issued with: this file knows no kind of call.
 *
 * An xid's low bits index the connection's call table; its high bits count
 * uses of that entry, so a reply that comes after its call timed out (and
 * the entry was reused) matches nothing and is dropped.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rpc/auth.h>	/* AUTH_TOOWEAK */

#include "base/clock.h"
#include "native_call.h"
#include "native_tap.h"

static const uint8_t zeros[4];

int nat_calls_init(struct engine_conn *c, uint32_t n)
{
	uint32_t size = 8;

	while (size < n)
		size <<= 1;
	c->calls = calloc(size, sizeof(*c->calls));
	c->free_calls = malloc(size * sizeof(*c->free_calls));
	if (!c->calls || !c->free_calls) {
		free(c->calls);
		free(c->free_calls);
		c->calls = NULL;
		c->free_calls = NULL;
		return -ENOMEM;
	}
	c->ncalls = size;
	c->mask = size - 1;
	nat_calls_reset(c);
	return 0;
}

void nat_calls_destroy(struct engine_conn *c)
{
	free(c->calls);
	free(c->free_calls);
	c->calls = NULL;
	c->free_calls = NULL;
}

void nat_calls_reset(struct engine_conn *c)
{
	for (uint32_t i = 0; i < c->ncalls; i++) {
		c->calls[i].xid = 0;
		c->calls[i].req = NULL;
		c->free_calls[i] = c->ncalls - 1 - i;
	}
	c->nfree = c->ncalls;
	nat_inflight(c, -(int)c->inflight);
}

struct nat_call *nat_call_take(struct engine_conn *c, enum nat_kind kind,
			       const struct nat_handler *h)
{
	struct nat_call *call;
	uint32_t i, xid;

	if (c->nfree == 0)
		return NULL;
	i = c->free_calls[--c->nfree];
	call = &c->calls[i];
	/* Never 0 (a free entry): the use count starts at 1. */
	do
		xid = (++c->xid_gen << __builtin_ctz(c->ncalls)) | i;
	while ((xid & ~c->mask) == 0);
	call->xid = xid;
	call->kind = (uint16_t)kind;
	call->h = h;
	call->req = NULL;
	call->arg = 0;
	call->slot = UINT16_MAX;
	call->rx_seen = false;
	call->tx_ns = 0;
	call->gss = false;
	return call;
}

struct nat_call *nat_call_start(struct engine_conn *c, XDR *x, uint32_t prog, uint32_t vers,
				uint32_t proc, enum nat_kind kind, const struct nat_handler *h)
{
	struct engine_thread *t = c->t;
	struct nat_call *call = nat_call_take(c, kind, h);
	int why;

	if (!call)
		return NULL;
	/* MOUNT stays AUTH_SYS (servers take it on Kerberos exports and list their flavours). */
	if (c->gss.ready && prog != MOUNT_PROGRAM) {
		call->gss = rpc_gss_start_call(x, t->scratch, t->scratch_len, call->xid, prog, vers,
					       proc, &c->gss, &call->gss_seq, &call->gss_body, &why);
		if (!call->gss) {
			nat_call_free(c, call);
			if (why == -EIO)
				nat_set_error(c, "Kerberos: cannot sign a call (the context failed)");
			return NULL;
		}
		return call;
	}
	if (!rpc_start_call(x, t->scratch, t->scratch_len, call->xid, prog, vers, proc, &c->cred)) {
		nat_call_free(c, call);
		return NULL;
	}
	return call;
}

/* Integrity and privacy: the body, WRITE data included, sealed in the scratch buffer. */
static int seal(struct engine_conn *c, struct nat_call *call, XDR *x, const void *data,
		uint32_t len, size_t *n)
{
	uint8_t *buf = c->t->scratch;
	u_int end = xdr_getpos(x);
	uint32_t pad = rpc_pad(len);
	int rc;

	if (len) {
		if (end + (size_t)len + pad > c->t->scratch_len)
			return -ENOSPC;
		memcpy(buf + end, data, len);
		memset(buf + end + len, 0, pad);
		end += len + pad;
	}
	rc = rpc_gss_seal(&c->gss, buf, c->t->scratch_len, call->gss_body, &end);
	if (rc < 0)
		return rc;
	xdrx_put_be32(buf, 0x80000000u | (end - RPC_MARK_LEN));
	*n = end;
	return 0;
}

int nat_call_send(struct engine_conn *c, struct nat_call *call, XDR *x, const void *data,
		  uint32_t len)
{
	uint32_t pad = rpc_pad(len);
	size_t n;
	int rc = 0;

	if (call->gss && c->gss.svc != RPC_GSS_NONE) {
		rc = seal(c, call, x, data, len, &n);
		len = pad = 0;
	} else {
		n = rpc_finish_call(x, c->t->scratch, len + pad);
	}
	xdr_destroy(x);
	if (rc == 0)
		rc = xport_put(c->sock, c->t->scratch, n);
	if (rc == 0 && len)
		rc = xport_put_ref(c->sock, data, len);
	if (rc == 0 && pad)
		rc = xport_put(c->sock, zeros, pad);
	if (rc < 0) {
		nat_call_free(c, call);
		return rc;
	}
	call->tx_end = xport_out_end(c->sock);
	call->tx_start = call->tx_end - (n + len + pad);
	c->last_send_ns = now_ns();
	call->deadline_ns = c->last_send_ns + c->cfg->timeout_ns;
	nat_inflight(c, 1);
	return 0;
}

bool nat_gss_full(const struct engine_conn *c)
{
	uint32_t next = c->gss.seq_next, oldest = next;

	if (!c->gss.ready || c->gss.window < 3 || !c->inflight)
		return false;
	for (uint32_t i = 0; i < c->ncalls; i++) {
		const struct nat_call *call = &c->calls[i];

		if (call->xid && call->gss && (int32_t)(call->gss_seq - oldest) < 0)
			oldest = call->gss_seq;
	}
	return next - oldest >= c->gss.window - 2;
}

void nat_call_free(struct engine_conn *c, struct nat_call *call)
{
	if (call->xid == 0)
		return;
	call->xid = 0;
	call->req = NULL;
	call->gss = false;
	c->free_calls[c->nfree++] = (uint32_t)(call - c->calls);
}

/*
 * A reply's wire time: from its call's last byte leaving to its own last byte
 * arriving, or 0 where the kernel's timestamps cannot say it exactly: a reply
 * that other bytes followed in the same receive would get their (later) time.
 */
static uint64_t wire_ns(struct engine_conn *c, const struct nat_call *call)
{
	uint64_t rx = xport_rx_time(c->sock), tx;

	if (!rx || c->rec.rest || xport_tx_time(c->sock, call->tx_end, &tx) < 0 || rx <= tx)
		return 0;
	return rx - tx;
}

/*
 * A reply to a call with the connection's context: its verifier checked and its
 * results opened in place (x then reads them). A context the server no longer
 * has fails the connection: it is made again, with a new one.
 */
static int gss_reply(struct engine_conn *c, struct nat_call *call, const uint8_t *rec, size_t len,
		     const struct rpc_reply *r, XDR *x)
{
	uint8_t *res;
	size_t n;
	int rc;

	if (r->stat == RPC_REPLY_DENIED &&
	    (r->detail == RPC_GSS_CREDPROBLEM || r->detail == RPC_GSS_CTXPROBLEM)) {
		nat_set_error(c, "the server no longer knows this connection's Kerberos context "
			      "(%s): a new one is made when it connects again",
			      r->detail == RPC_GSS_CREDPROBLEM ? "CREDPROBLEM" : "CTXPROBLEM");
		return -ECONNRESET;
	}
	if (r->stat != RPC_REPLY_OK)
		return rpc_reply_errno(r);
	if (r->verf_flavor != RPC_AUTH_GSS ||
	    rpc_gss_check_verf(&c->gss, call->gss_seq, rec + r->verf_pos, r->verf_len) < 0) {
		nat_set_error(c, "Kerberos: a reply's verifier does not check (not from the server?)");
		return -ECONNRESET;
	}
	/* The record is this connection's to change until the next feed. */
	rc = rpc_gss_open(&c->gss, call->gss_seq, (uint8_t *)rec, len, xdr_getpos(x), &res, &n);
	if (rc < 0) {
		nat_set_error(c, "Kerberos: a reply's %s does not check", c->gss.svc ==
			      RPC_GSS_PRIVACY ? "sealed body" : "checksum");
		return -ECONNRESET;
	}
	xdr_destroy(x);
	xdrmem_create(x, (char *)res, (u_int)n, XDR_DECODE);
	return 0;
}

/* AUTH_TOOWEAK in set-up: what the export takes instead, where MNT said. */
static void tooweak(struct engine_conn *c)
{
	char offers[64] = "";
	size_t n = 0;

	for (unsigned k = 0; k < 4; k++)
		if (c->mnt_flavors & (1u << k))
			n += (size_t)snprintf(offers + n, sizeof(offers) - n, "%s%s", n ? ", " : "",
					      engine_sec_name((enum engine_sec)k));
	c->tooweak = true;
	nat_set_error(c, "the export refuses sec=%s (AUTH_TOOWEAK)%s%s%s", engine_sec_name(c->eng->sec),
		      n ? ": it takes " : "; try sec=krb5, krb5i or krb5p",
		      offers, n ? " (sec= in the URL, or --sec)" : "");
}

static int on_record(void *arg, const uint8_t *rec, size_t len)
{
	struct engine_conn *c = arg;
	struct rpc_reply r;
	struct nat_call *call;
	uint64_t start = c->rx_rec, end = c->rx_fed - c->rec.rest;
	uint32_t xid;
	XDR x;
	int rc;

	c->rx_rec = end;
	if (!rpc_peek_xid(rec, len, &xid))
		return -EBADMSG;
	call = &c->calls[xid & c->mask];
	if (call->xid != xid)
		return 0;	/* its call timed out: nobody waits for it */
	xdrmem_create(&x, (char *)rec, (u_int)len, XDR_DECODE);
	rc = rpc_decode_reply(&x, &r);
	if (rc == 0 && call->gss)
		rc = gss_reply(c, call, rec, len, &r, &x);
	else if (rc == 0)
		rc = rpc_reply_errno(&r);
	if (rc == -ECONNRESET) {
		xdr_destroy(&x);
		nat_conn_fail(c);	/* its calls fail with it, and are sent again after */
		return -ECONNABORTED;
	}
	if (rc == -EACCES && r.stat == RPC_REPLY_DENIED && r.detail == AUTH_TOOWEAK)
		tooweak(c);
	if (rc == -EACCES && c->tooweak && c->state != NS_READY) {
		xdr_destroy(&x);
		nat_conn_fail(c);
		return -ECONNABORTED;
	}
	c->rx_denied = r.stat == RPC_REPLY_DENIED ? r.detail : 0;
	c->rx_verf = rc == 0 ? rec + r.verf_pos : NULL;
	c->rx_verf_len = rc == 0 ? r.verf_len : 0;
	nat_inflight(c, -1);
	if (call->req)
		call->req->wire_ns = c->t && c->t->tap ? nat_tap_wire(c, call, start, end) :
				     wire_ns(c, call);
	call->h->reply(c, call, &x, rc);
	xdr_destroy(&x);
	/* The reply may have dropped or failed the connection. */
	return c->state == NS_DOWN ? -ECONNABORTED : 0;
}

int nat_data(void *arg, const uint8_t *p, size_t n)
{
	struct engine_conn *c = arg;
	int rc;

	c->rx_fed += n;
	rc = rpc_rec_feed(&c->rec, p, n, on_record, c);
	if (rc == 0 && c->held_head && c->state == NS_READY)
		c->up->send_held(c);

	c->lw.rx_seen = true;
	if (rc == 0)
		rpc_rec_trim(&c->rec);
	if (rc == 0 && c->state == NS_READY)
		lowat_update(&c->lw, c->inflight, c->cfg->opt.max_load);
	if (rc == -ECONNABORTED)
		return rc;	/* already failed and reported */
	if (rc < 0) {
		nat_set_error(c, "bad reply from the server (%s)", rc == -EBADMSG ?
			      "not an RPC record or reply" : "out of memory");
		nat_conn_fail(c);
		return rc;
	}
	return 0;
}

void nat_calls_tick(struct engine_conn *c, uint64_t now)
{
	for (uint32_t i = 0; i < c->ncalls && c->inflight; i++) {
		struct nat_call *call = &c->calls[i];

		if (!call->xid || call->deadline_ns > now)
			continue;
		nat_inflight(c, -1);
		call->h->timeout(c, call);
		if (c->state == NS_DOWN)
			return;
	}
	if (c->held_head && c->state == NS_READY)
		c->up->send_held(c);
}

void nat_setup_timeout(struct engine_conn *c, struct nat_call *call)
{
	/* A set-up or teardown step that gets no answer fails the connection. */
	nat_call_free(c, call);
	nat_set_error(c, "no answer within --timeout during set-up");
	nat_conn_fail(c);
}

static void lost_cb(void *arg, int err)
{
	struct engine_conn *c = arg;

	if (err)
		nat_set_error(c, "connection lost: %s", strerror(-err));
	else
		nat_set_error(c, "connection lost: the server closed it");
	nat_conn_fail(c);
}

static void connected_cb(void *arg, int err)
{
	struct engine_conn *c = arg;

	c->up->connected(c, err);
}

static const struct xport_cbs sock_cbs = {
	.connected = connected_cb, .data = nat_data, .lost = lost_cb,
};

int nat_dial(struct engine_conn *c, bool mount)
{
	socklen_t len;
	const struct sockaddr *sa = nat_addr(c->eng, c->srv, mount, &len);

	return nat_dial_to(c, sa, len);
}

int nat_dial_to(struct engine_conn *c, const struct sockaddr *sa, socklen_t len)
{
	int rc;

	rpc_rec_reset(&c->rec);
	nat_calls_reset(c);
	rpc_gss_reset(&c->gss);		/* a new connection makes a new context */
	lowat_reset(&c->lw);
	nat_tap_leave(c);
	c->rx_fed = c->rx_rec = 0;
	rc = xport_connect(c->sock, c->t->xp, sa, len, &sock_cbs, c);
	if (rc < 0)
		nat_set_error(c, "cannot connect to port %u: %s", nat_addr_port(sa), strerror(-rc));
	return rc;
}

void nat_sock_attach(struct engine_conn *c, struct xport *xp)
{
	xport_attach(c->sock, xp, &sock_cbs, c);
}
