/*
 * trace_rpc: ONC RPC records (RFC 5531) of a capture: a call's header read
 * and its arguments handed to the decoders, kept by (connection, xid) until
 * its reply, whose header is read and results handed on. Also the small
 * tables the trace is built with: a u64 map, interned byte strings.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "trace_int.h"

#define MAP_DEL UINT32_MAX

static size_t slot(uint64_t key, size_t cap)
{
	return (size_t)(XXH64(&key, sizeof(key), 0) & (cap - 1));
}

uint32_t trace_map_get(const struct trace_map *m, uint64_t key)
{
	if (!m->cap)
		return 0;
	for (size_t i = slot(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (!m->vals[i])
			return 0;
		if (m->vals[i] != MAP_DEL && m->keys[i] == key)
			return m->vals[i];
	}
}

static int rehash(struct trace_map *m, size_t cap)
{
	struct trace_map n = { calloc(cap, 8), calloc(cap, 4), cap, 0 };

	if (!n.keys || !n.vals) {
		free(n.keys);
		free(n.vals);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++)
		if (m->vals[i] && m->vals[i] != MAP_DEL)
			trace_map_put(&n, m->keys[i], m->vals[i]);
	trace_map_free(m);
	*m = n;
	return 0;
}

/* n counts used slots, deleted ones too, so a probe always ends at an empty one. */
int trace_map_put(struct trace_map *m, uint64_t key, uint32_t val)
{
	size_t i;

	if ((m->n + 1) * 2 > m->cap && rehash(m, m->cap ? m->cap * 2 : 64) < 0)
		return -ENOMEM;
	for (i = slot(key, m->cap); m->vals[i] && m->vals[i] != MAP_DEL; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == key) {
			m->vals[i] = val;
			return 0;
		}
	if (!m->vals[i])
		m->n++;
	m->keys[i] = key;
	m->vals[i] = val;
	return 0;
}

void trace_map_del(struct trace_map *m, uint64_t key)
{
	if (!m->cap)
		return;
	for (size_t i = slot(key, m->cap); m->vals[i]; i = (i + 1) & (m->cap - 1))
		if (m->vals[i] != MAP_DEL && m->keys[i] == key) {
			m->vals[i] = MAP_DEL;
			return;
		}
}

void trace_map_free(struct trace_map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

/* Keyed by a 64-bit hash of the bytes, then the bytes compared: on the (rare) collision
 * of two different strings the later one is stored again under the next free key. */
uint32_t trace_intern(struct trace_table *tab, const uint8_t *p, uint32_t n)
{
	struct trace_map m = { tab->keys, tab->idx, tab->slots, tab->n };
	uint64_t h;
	uint32_t i;

	if (!n)
		return 0;
	for (h = XXH64(p, n, 0); (i = trace_map_get(&m, h)); h++)
		if (tab->v[i].len == n && !memcmp(tab->v[i].p, p, n))
			return i;
	if (tab->n + 1 >= tab->cap) {
		uint32_t cap = tab->cap ? tab->cap * 2 : 64;
		struct trace_blob *v = realloc(tab->v, cap * sizeof(*v));

		if (!v)
			return UINT32_MAX;
		tab->v = v;
		tab->cap = cap;
	}
	i = tab->n + 1;
	if (!(tab->v[i].p = malloc(n)) || trace_map_put(&m, h, i) < 0) {
		free(tab->v[i].p);
		return UINT32_MAX;
	}
	memcpy(tab->v[i].p, p, n);
	tab->v[i].len = n;
	tab->n = i;
	tab->keys = m.keys, tab->idx = m.vals, tab->slots = (uint32_t)m.cap;
	return i;
}

void trace_table_free(struct trace_table *tab)
{
	for (uint32_t i = 1; i <= tab->n; i++)
		free(tab->v[i].p);
	free(tab->v);
	free(tab->keys);
	free(tab->idx);
	memset(tab, 0, sizeof(*tab));
}

const struct trace_blob *trace_blob(const struct trace_table *tab, uint32_t i)
{
	return i && i <= tab->n ? &tab->v[i] : NULL;
}

struct trace_op *trace_new_op(struct trace_ctx *c, uint32_t conn)
{
	struct trace *t = c->t;
	struct trace_op *op;

	if (t->nops == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		struct trace_op *v = realloc(t->ops, cap * sizeof(*v));

		if (!v)
			return NULL;
		t->ops = v;
		t->cap = cap;
	}
	op = &t->ops[t->nops++];
	memset(op, 0, sizeof(*op));
	op->conn = conn;
	op->call_ns = c->now;
	op->status = TRACE_NO_REPLY;
	return op;
}

/* The call's header (past xid and CALL): its program, version and procedure. */
/*
 * An RPCSEC_GSS credential (RFC 2203): a control message (INIT, DESTROY) has
 * no NFS arguments; with integrity the arguments follow a length and a sequence
 * number; with privacy they are sealed: *service 3 and nothing is read of them.
 */
static bool gss(const uint8_t *p, uint32_t n, uint32_t *service, bool *control)
{
	if (n < 16 || xdrx_be32(p) != 1)
		return false;
	*control = xdrx_be32(p + 4) != 0;
	*service = xdrx_be32(p + 12);
	return *service >= 1 && *service <= 3;
}

/* The arguments (or results) under a GSS service: x left at them, or at an empty stream. */
static void unwrap(XDR *x, uint32_t service)
{
	static uint8_t none[4];

	if (service == 3 || (service == 2 && (!xdrx_skip32(x, 1) || !xdrx_skip32(x, 1))))
		xdrx_create(x, none, 0, XDR_DECODE);
}

/* The call's header (past xid and CALL): its program, version and procedure. */
static int call(struct trace_ctx *c, uint32_t conn, uint32_t xid, XDR *x)
{
	uint32_t rpcvers, prog, vers, proc, flavor, n, service = 0;
	size_t first = c->t->nops;
	const uint8_t *cred;
	bool control = false;
	struct trace_call *k;
	int rc;

	if (!xdrx_get32(x, &rpcvers) || rpcvers != 2 || !xdrx_get32(x, &prog) ||
	    !xdrx_get32(x, &vers) || !xdrx_get32(x, &proc) ||
	    !xdrx_get32(x, &flavor) || !xdrx_get_opaque(x, 400, &cred, &n) ||
	    (flavor == 6 && !gss(cred, n, &service, &control)) ||
	    !xdrx_get32(x, &flavor) || !xdrx_skip_opaque(x, 400)) {	/* verifier */
		c->t->left.undecoded++;
		return 0;
	}
	if (service == 1 || control)
		service = 0;
	else
		unwrap(x, service);
	rc = trace_nfs_call(c, conn, prog, vers, proc, x);
	if (rc <= 0)
		return rc;
	if (c->ncalls == c->ccap) {
		size_t cap = c->ccap ? c->ccap * 2 : 256;

		if (!(k = realloc(c->calls, cap * sizeof(*k))))
			return -ENOMEM;
		c->calls = k;
		c->ccap = cap;
	}
	k = &c->calls[c->ncalls];
	*k = (struct trace_call){ (uint32_t)first, (uint32_t)(c->t->nops - first), prog, vers, proc,
				  service };
	/* A call sent again with the same xid replaces the first: one reply answers it. */
	return trace_map_put(&c->pending, (uint64_t)conn << 32 | xid, (uint32_t)++c->ncalls);
}

static void reply(struct trace_ctx *c, uint32_t conn, uint32_t xid, XDR *x)
{
	uint64_t key = (uint64_t)conn << 32 | xid;
	uint32_t i = trace_map_get(&c->pending, key), stat, flavor, accept;
	const struct trace_call *k;

	if (!i) {
		c->t->left.orphan_replies++;
		return;
	}
	trace_map_del(&c->pending, key);
	k = &c->calls[i - 1];
	for (uint32_t j = 0; j < k->n; j++)
		c->t->ops[k->first + j].reply_ns = c->now;
	if (!xdrx_get32(x, &stat))
		return;
	if (stat != 0 || !xdrx_get32(x, &flavor) || !xdrx_skip_opaque(x, 400) ||
	    !xdrx_get32(x, &accept) || accept != 0) {
		for (uint32_t j = 0; j < k->n; j++)
			c->t->ops[k->first + j].status = TRACE_RPC_ERROR;
		return;
	}
	unwrap(x, k->service);
	trace_nfs_reply(c, k, x);
}

int trace_rpc_record(struct trace_ctx *c, uint32_t conn, const uint8_t *rec, size_t len)
{
	uint32_t xid, type;
	XDR x;

	xdrx_create(&x, (void *)rec, len, XDR_DECODE);
	if (!xdrx_get32(&x, &xid) || !xdrx_get32(&x, &type) || type > 1) {
		c->t->left.undecoded++;
		return 0;
	}
	if (type == 0)
		return call(c, conn, xid, &x);
	reply(c, conn, xid, &x);
	return 0;
}

void trace_free(struct trace *t)
{
	free(t->ops);
	trace_table_free(&t->fhs);
	trace_table_free(&t->names);
	memset(t, 0, sizeof(*t));
}
