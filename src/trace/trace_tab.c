/*
 * trace_tab: the small tables a trace is built with, under every other trace
 * layer: a u64 map, interned byte strings (handles, names), the ops array.
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

bool trace_get_blob(struct trace_ctx *c, XDR *x, struct trace_table *tab, uint32_t max,
		    uint32_t *out)
{
	const uint8_t *p;
	uint32_t n, i;

	(void)c;
	if (!xdrx_get_opaque(x, max, &p, &n))
		return false;
	if ((i = trace_intern(tab, p, n)) == UINT32_MAX)
		return false;
	*out = i;
	return true;
}
