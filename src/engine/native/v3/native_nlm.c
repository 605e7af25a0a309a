/*
 * native_nlm: NFSv3's locks through NLM v4 on a connection of their own
 * (native_nlm.h says who locks and what each answer becomes).
 *
 * The NLM connection is an engine_conn of its own (its call table, record
 * reader and socket, native_call.c's), with no owner callbacks: its replies
 * and timeouts end their requests through the connection it serves
 * (nlm_parent), and its failure fails that connection. It runs on that
 * connection's thread, moved with it (attach, detach).
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/clock.h"
#include "ops.h"
#include "../codec/nlm4x.h"
#include "../native_call.h"
#include "../native_ops.h"
#include "native_nlm.h"

bool nat_nlm_wanted(const struct engine_params *cfg)
{
	return cfg->nfs_version == 3 && cfg->meta &&
	       (cfg->mix.weight[OP_LOCK] || cfg->mix.weight[OP_UNLOCK] || cfg->mix.weight[OP_LOCKT]);
}

/* The owner: caller_name, and oh (in buf) of connection c; svid is c->id. */
static void owner_of(const struct engine_conn *c, char name[32], char oh[48], uint32_t *oh_len)
{
	snprintf(name, 32, "nfsload-%ld", (long)getpid());
	*oh_len = (uint32_t)snprintf(oh, 48, "nfsload-%ld.%u", (long)getpid(), c->id);
}

static const struct sockaddr *nlm_addr(const struct engine_conn *c, socklen_t *len)
{
	*len = c->eng->addr_len[c->srv];
	return (const struct sockaddr *)&c->eng->nlm_addr[c->srv];
}

/* The connection n serves fails with n's error. */
static void nlm_fail_parent(struct engine_conn *n, const char *what)
{
	struct engine_conn *c = n->nlm_parent;
	socklen_t len;
	unsigned port = nat_addr_port(nlm_addr(n, &len));

	nat_set_error(c, "NLM (port %u): %s", port, what[0] ? what : "connection lost");
	if (c->state == NS_READY || c->state == NS_SETUP)
		nat_conn_fail(c);
}

static void nlm_connected(struct engine_conn *n, int err)
{
	struct engine_conn *c = n->nlm_parent;
	char why[200];

	if (c->state != NS_SETUP) {	/* c failed meanwhile: nothing waits for this one */
		xport_close(n->sock);
		n->state = NS_DOWN;
		return;
	}
	if (err) {
		xport_close(n->sock);
		n->state = NS_DOWN;
		snprintf(why, sizeof(why), "%s (is NLM enabled on the server? is nlmport right?)",
			 strerror(-err));
		nlm_fail_parent(n, why);
		return;
	}
	n->state = NS_READY;
	nat_setup_done(c, true);
}

/* n's socket failed (nat_conn_fail): its connection fails with it. */
static void nlm_down(struct engine_conn *n)
{
	char why[sizeof(n->error)];

	snprintf(why, sizeof(why), "%s", n->error);
	nat_calls_reset(n);	/* their requests are the connection's: its owner counts them */
	n->state = NS_DOWN;
	xport_close(n->sock);
	nlm_fail_parent(n, why);
}

static void nlm_send_held(struct engine_conn *n)
{
	(void)n;	/* nothing is held on it (no RPCSEC_GSS window) */
}

static const struct nat_up nlm_up = {
	.connected = nlm_connected,
	.down = nlm_down,
	.send_held = nlm_send_held,
};

static struct engine_conn *nlm_new(struct engine_conn *c)
{
	struct engine_conn *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->eng = c->eng;
	n->proto = c->proto;	/* NFSv3's call_lost: an NLM call holds nothing but itself */
	n->up = &nlm_up;
	n->cfg = c->cfg;
	n->id = c->id;
	n->srv = c->srv;
	n->nlm_parent = c;
	n->cred = c->cred;
	n->sock = xport_sock_new();
	if (!n->sock || nat_calls_init(n, c->cfg->iodepth + 8) < 0) {
		xport_sock_free(n->sock);
		free(n);
		return NULL;
	}
	rpc_rec_init(&n->rec, 65536);
	rpc_gss_init(&n->gss, RPC_GSS_NONE);	/* NLM goes with AUTH_SYS */
	lowat_init(&n->lw, c->cfg);
	return n;
}

bool nat_nlm_setup_end(struct engine_conn *c)
{
	socklen_t len;
	const struct sockaddr *sa;

	if (!nat_nlm_wanted(c->cfg) || c->nfiles == 0) {
		nat_setup_done(c, true);
		return true;
	}
	if (!c->nlm && !(c->nlm = nlm_new(c))) {
		nat_set_error(c, "NLM: out of memory");
		return false;
	}
	sa = nlm_addr(c->nlm, &len);
	nat_set_thread(c->nlm, c->t);
	c->nlm->state = NS_CONNECT;
	c->nlm->error[0] = '\0';
	if (nat_dial_to(c->nlm, sa, len) < 0) {
		c->nlm->state = NS_DOWN;
		nat_set_error(c, "NLM: %s", c->nlm->error);
		return false;
	}
	return true;
}

static void nlm_reply(struct engine_conn *n, struct nat_call *call, XDR *x, int rpc_status);
static void nlm_timeout(struct engine_conn *n, struct nat_call *call);

static const struct nat_handler nlm_handler = { .reply = nlm_reply, .timeout = nlm_timeout };

static const char *nlm_proc_name(enum op_type op)
{
	return op == OP_LOCK ? "NLM4_LOCK" : op == OP_UNLOCK ? "NLM4_UNLOCK" : "NLM4_TEST";
}

int nat_nlm_queue(struct engine_conn *c, struct engine_req *req)
{
	struct engine_conn *n = c->nlm;
	char name[32], oh[48];
	struct nlm4_lock lk;
	struct nat_call *call;
	uint8_t cookie[4];
	bool excl = req->what != ENGINE_LOCK_READ, ok;
	uint32_t proc;
	XDR x;

	if (!n || n->state != NS_READY) {
		nat_set_error(c, "request refused: %s with no NLM connection", nlm_proc_name(req->op));
		return -ENOTCONN;
	}
	proc = req->op == OP_LOCK ? NLM4_LOCK : req->op == OP_UNLOCK ? NLM4_UNLOCK : NLM4_TEST;
	call = nat_call_start(n, &x, NLM_PROGRAM, NLM_V4, proc, NK_REQ, &nlm_handler);
	if (!call)
		return -EBUSY;
	owner_of(c, name, oh, &lk.oh_len);
	lk.caller_name = name;
	lk.fh = &c->files[req->file].fh;
	lk.oh = (const uint8_t *)oh;
	lk.svid = (int32_t)c->id;
	lk.offset = req->offset;
	lk.len = req->range == UINT64_MAX ? 0 : req->range;	/* NLM's 0: to the end */
	memcpy(cookie, &call->xid, sizeof(cookie));
	if (req->op == OP_LOCK)
		ok = nlm4_enc_lock(&x, cookie, sizeof(cookie), excl, &lk);
	else if (req->op == OP_UNLOCK)
		ok = nlm4_enc_unlock(&x, cookie, sizeof(cookie), &lk);
	else
		ok = nlm4_enc_test(&x, cookie, sizeof(cookie), excl, &lk);
	if (!ok) {
		xdr_destroy(&x);
		nat_call_free(n, call);
		return -EMSGSIZE;
	}
	if (req->op == OP_LOCK)
		c->files[req->file].nlm_locked = true;
	call->req = req;
	return nat_call_send(n, call, &x, NULL, 0);
}

/*
 * NLM4_DENIED_GRACE_PERIOD: the server restarted and takes only reclaims for a while (90 s
 * by default on Linux and ganesha): req goes again after a backoff that grows to 256 ms and
 * stays there, for at most NLM_GRACE_MAX_S from its first such answer (kept in priv[0],
 * unused on this path otherwise). The wait is in its latency. false: given up.
 */
#define NLM_GRACE_MAX_S 300
static bool grace_wait(struct engine_conn *c, struct engine_req *req)
{
	uint64_t now = now_ns();

	__atomic_add_fetch(&c->eng->grace_waits, 1, __ATOMIC_RELAXED);
	if (!req->priv[0])
		req->priv[0] = (void *)(uintptr_t)now;
	if (now - (uint64_t)(uintptr_t)req->priv[0] > (uint64_t)NLM_GRACE_MAX_S * 1000000000u)
		return false;
	if (req->stage > 8)
		req->stage = 8;		/* nat_retry_later's backoff: 2^stage ms */
	return nat_retry_later(c, req);
}

static void nlm_reply(struct engine_conn *n, struct nat_call *call, XDR *x, int rpc_status)
{
	struct engine_conn *c = n->nlm_parent;
	struct engine_req *req = call->req;
	int st = rpc_status;

	nat_call_free(n, call);
	req->data = NULL;
	if (st == 0)
		st = req->op == OP_LOCKT ? nlm4_dec_testres(x, NULL, NULL, NULL) :
		     nlm4_dec_res(x, NULL, NULL);
	if (rpc_status < 0) {
		nat_set_error(c, "%s refused by the server's NLM: %s", nlm_proc_name(req->op),
			      strerror(-rpc_status));
	} else if (st == -EBADMSG) {
		nat_set_error(c, "an NLM reply that does not parse (%s)", nlm_proc_name(req->op));
	} else if (st == NLM4_GRANTED) {
		st = 0;
	} else if (st == NLM4_DENIED) {
		st = -ENGINE_DENIED;	/* an answer, no failure: counted as denied */
	} else if (st == NLM4_DENIED_GRACE_PERIOD) {
		if (grace_wait(c, req))
			return;
		nat_set_error(c, "%s: the server is still in its grace period after %d s",
			      nlm_proc_name(req->op), NLM_GRACE_MAX_S);
		st = -EAGAIN;
	} else if (st > 0) {
		nat_set_error(c, "%s refused: %s", nlm_proc_name(req->op), nlm4_stat_name((uint32_t)st));
		st = nlm4_errno((uint32_t)st);
	}
	nat_req_done(c, req, st);
}

static void nlm_timeout(struct engine_conn *n, struct nat_call *call)
{
	struct engine_req *req = call->req;

	nat_call_free(n, call);
	nat_req_done(n->nlm_parent, req, -ETIMEDOUT);
}

void nat_nlm_down(struct engine_conn *c)
{
	struct engine_conn *n = c->nlm;

	if (!n)
		return;
	xport_close(n->sock);
	nat_calls_reset(n);	/* no callbacks: c's owner counts c's requests, these too */
	rpc_rec_reset(&n->rec);
	n->state = NS_DOWN;
}

void nat_nlm_attach(struct engine_conn *c, struct engine_thread *t)
{
	struct engine_conn *n = c->nlm;

	if (!n)
		return;
	nat_set_thread(n, t);
	if (xport_is_open(n->sock))
		nat_sock_attach(n, t->xp);
}

void nat_nlm_detach(struct engine_conn *c)
{
	struct engine_conn *n = c->nlm;

	if (!n)
		return;
	if (xport_is_open(n->sock))
		xport_detach(n->sock);
	nat_set_thread(n, NULL);
}

void nat_nlm_tick(struct engine_conn *c, uint64_t now)
{
	if (c->nlm && c->nlm->state == NS_READY)
		nat_calls_tick(c->nlm, now);
}

struct unlock_replies {
	uint32_t got, failed;
};

static int on_unlock_reply(void *arg, const uint8_t *rec, size_t len)
{
	struct unlock_replies *r = arg;
	struct rpc_reply rh;
	int rc;
	XDR x;

	xdrmem_create(&x, (char *)rec, (u_int)len, XDR_DECODE);
	rc = rpc_decode_reply(&x, &rh);
	if (rc == 0)
		rc = rpc_reply_errno(&rh);
	if (rc == 0)
		rc = nlm4_dec_res(&x, NULL, NULL);
	xdr_destroy(&x);
	r->got++;
	r->failed += rc != NLM4_GRANTED;
	return 0;
}

/* Sends out[0..n) on fd and reads records until want replies came: 0 or -errno. */
static int unlock_exchange(int fd, const uint8_t *out, size_t n, uint32_t want,
			   struct unlock_replies *r, uint64_t deadline)
{
	struct rpc_rec rec;
	uint8_t in[4096];
	size_t sent = 0;
	int rc = 0;

	rpc_rec_init(&rec, 65536);
	while (rc == 0 && (sent < n || r->got < want)) {
		struct pollfd p = { .fd = fd, .events = sent < n ? POLLOUT | POLLIN : POLLIN };
		uint64_t now = now_ns();
		ssize_t k;

		if (now >= deadline) {
			rc = -ETIMEDOUT;
			break;
		}
		if (poll(&p, 1, (int)((deadline - now) / 1000000) + 1) < 0 && errno != EINTR) {
			rc = -errno;
			break;
		}
		if (sent < n && (p.revents & POLLOUT)) {
			k = send(fd, out + sent, n - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
			if (k > 0)
				sent += (size_t)k;
			else if (k < 0 && errno != EAGAIN && errno != EINTR)
				rc = -errno;
		}
		if (rc == 0 && (p.revents & (POLLIN | POLLHUP | POLLERR))) {
			k = recv(fd, in, sizeof(in), MSG_DONTWAIT);
			if (k == 0)
				rc = -ECONNRESET;
			else if (k < 0 && errno != EAGAIN && errno != EINTR)
				rc = -errno;
			else if (k > 0 && rpc_rec_feed(&rec, in, (size_t)k, on_unlock_reply, r) < 0)
				rc = -EBADMSG;
		}
	}
	rpc_rec_destroy(&rec);
	return rc;
}

int nat_nlm_close(struct engine_conn *c)
{
	uint64_t deadline = now_ns() + c->cfg->timeout_ns;
	struct unlock_replies r = { 0 };
	char name[32], oh[48];
	struct nlm4_lock lk = { .caller_name = name, .oh = (const uint8_t *)oh,
				.svid = (int32_t)c->id, .offset = 0, .len = 0 };
	const struct sockaddr *sa;
	uint8_t *out;
	size_t n = 0, cap;
	uint32_t want = 0;
	socklen_t len;
	int fd, rc;

	if (!c->nlm)
		return 0;
	owner_of(c, name, oh, &lk.oh_len);
	cap = (size_t)c->nfiles * 512 + 64;
	out = malloc(cap);
	if (!out)
		return -ENOMEM;
	for (uint32_t i = 0; i < c->nfiles; i++) {
		XDR x;
		uint8_t cookie[4] = { 0 };

		if (!c->files[i].nlm_locked)
			continue;
		lk.fh = &c->files[i].fh;
		if (!rpc_start_call(&x, out + n, cap - n, i + 1, NLM_PROGRAM, NLM_V4, NLM4_UNLOCK,
				    &c->cred)) {
			free(out);
			return -EMSGSIZE;
		}
		if (!nlm4_enc_unlock(&x, cookie, sizeof(cookie), &lk)) {
			xdr_destroy(&x);
			free(out);
			return -EMSGSIZE;
		}
		n += rpc_finish_call(&x, out + n, 0);
		xdr_destroy(&x);
		want++;
	}
	if (!want) {
		free(out);
		return 0;
	}
	sa = nlm_addr(c->nlm, &len);
	fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	rc = fd < 0 ? -errno : 0;
	if (rc == 0 && connect(fd, sa, len) < 0 && errno != EINPROGRESS)
		rc = -errno;
	if (rc == 0)
		rc = unlock_exchange(fd, out, n, want, &r, deadline);
	if (fd >= 0)
		close(fd);
	free(out);
	if (rc == 0 && r.failed)
		rc = -EIO;
	if (rc == 0)
		for (uint32_t i = 0; i < c->nfiles; i++)
			c->files[i].nlm_locked = false;
	return rc;
}

void nat_nlm_free(struct engine_conn *c)
{
	struct engine_conn *n = c->nlm;

	if (!n)
		return;
	xport_sock_free(n->sock);
	rpc_rec_destroy(&n->rec);
	nat_calls_destroy(n);
	rpc_gss_reset(&n->gss);
	free(n);
	c->nlm = NULL;
}
