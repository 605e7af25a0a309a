/*
 * native_names: what every operation on names shares, whatever the version:
 * the connection's pool of request states (made on first use), the names a
 * request works on, its end and its backoff, a READDIR's entries, and the
 * NFSv3 directory handle cache. Not here: queueing a request (native_meta.c)
 * and the calls themselves (native_meta3.c, native_meta4.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "native_call.h"
#include "native_names.h"

struct nat_meta *nat_meta_of(struct engine_conn *c)
{
	char dir[META_PATH_MAX];

	if (c->meta)
		return c->meta;
	c->meta = calloc(1, sizeof(*c->meta));
	/* The work directory's handle and its files' came with the set-up: no LOOKUPs for
	 * them (a --replay's GETATTR of a data file is a GETATTR, as the trace's was). */
	if (c->meta && c->proto->learns && c->dir.len && nat_meta_norm(dir, sizeof(dir), c->cfg->dir) &&
	    dir[0]) {
		size_t n = strlen(dir);

		nat_dcache_put(c, dir, n, &c->dir);
		for (uint32_t i = 0; i < c->nfiles && n + 2 < sizeof(dir); i++) {
			if (!c->files[i].fh.len)
				continue;
			dir[n] = '/';
			wl_file_name(NULL, c->file_ids[i], dir + n + 1, sizeof(dir) - n - 1);
			nat_dcache_put(c, dir, strlen(dir), &c->files[i].fh);
			dir[n] = '\0';
		}
	}
	return c->meta;
}

void nat_meta_free(struct engine_conn *c)
{
	struct nat_meta *m = c->meta;

	if (!m)
		return;
	for (uint32_t i = 0; i < m->nst; i++)
		free(m->st[i]);
	free(m->st);
	free(m);
	c->meta = NULL;
}

void nat_meta_finish(struct engine_conn *c, struct nat_mstate *st, int status)
{
	struct engine_req *req = st->req;

	st->req = NULL;
	st->xid = 0;
	st->waiting = st->later = false;
	c->meta->last_free = st->idx;
	if (!req)
		return;
	req->data = NULL;
	nat_req_done(c, req, status);
}

/* path as "/a/b": no repeated or trailing '/', one in front ("" is the export). */
bool nat_meta_norm(char *dst, size_t cap, const char *src)
{
	size_t n = 0;

	for (const char *p = src; *p;) {
		size_t k;

		while (*p == '/')
			p++;
		k = strcspn(p, "/");
		if (!k)
			break;
		if (n + k + 2 > cap)
			return false;
		dst[n++] = '/';
		memmove(dst + n, p, k);	/* dst may be src (a request queued again) */
		n += k;
		p += k;
	}
	dst[n] = '\0';
	return true;
}

size_t nat_meta_parent_len(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? (size_t)(slash - path) : 0;
}

const char *nat_meta_leaf(const char *path)
{
	return path[0] ? path + nat_meta_parent_len(path) + 1 : path;
}

bool nat_meta_in_parent(enum op_type op)
{
	switch (op) {
	case OP_LOOKUP:
	case OP_CREATE:
	case OP_REMOVE:
	case OP_MKDIR:
	case OP_RMDIR:
	case OP_RENAME:
	case OP_OPEN:
	case OP_READ:
	case OP_WRITE:
		return true;
	default:	/* GETATTR, ACCESS, SETATTR, READDIR: the name itself */
		return false;
	}
}

bool nat_meta_later(struct engine_conn *c, struct nat_mstate *st, int err, bool listing)
{
	/* nfs-ganesha 4.3 answers a listing that lost an entry with STALE, NOENT or even
	 * SERVERFAULT (-EREMOTEIO), a few runs in ten of tests/native.sh's mix. */
	bool raced = listing && (err == -ESTALE || err == -ENOENT || err == -EREMOTEIO);

	if ((err != -EAGAIN && !raced) || !nat_retry_later(c, st->req))
		return false;
	st->later = true;
	return true;
}

void nat_meta_sattr(const struct nat_mstate *st, struct nfs_sattr *sa)
{
	memset(sa, 0, sizeof(*sa));
	if (st->setattr == ENGINE_SETATTR_MODE) {
		sa->has_mode = true;
		sa->mode = 0644;
	} else if (st->setattr == ENGINE_SETATTR_SIZE) {
		sa->has_size = true;
		sa->size = st->size;
	} else {
		sa->has_times = true;
	}
}

int nat_meta_entry(void *arg, const char *name, uint32_t namelen, uint64_t cookie, bool is_dir)
{
	struct nat_listing *l = arg;

	l->st->cookie = cookie;
	l->n++;
	if (l->c->meta_hook)
		l->c->meta_hook(l->c->meta_hook_arg, name, namelen, is_dir);
	return 0;
}

static bool same_key(const char *key, const char *path, size_t len)
{
	return key[0] && strlen(key) == len && memcmp(key, path, len) == 0;
}

const struct nfs_fh *nat_dcache_get(struct engine_conn *c, const char *path, size_t len)
{
	struct nat_meta *m = c->meta;

	if (len == 0)
		return c->root.len ? &c->root : NULL;
	for (unsigned i = 0; m && i < META_DCACHE; i++)
		if (same_key(m->dc[i].path, path, len))
			return &m->dc[i].fh;
	return NULL;
}

void nat_dcache_put(struct engine_conn *c, const char *path, size_t len, const struct nfs_fh *fh)
{
	struct nat_meta *m = c->meta;
	unsigned i, slot = META_DCACHE;

	if (!m || len == 0 || len >= sizeof(m->dc[0].path))
		return;
	for (i = 0; i < META_DCACHE; i++) {
		if (same_key(m->dc[i].path, path, len)) {
			m->dc[i].fh = *fh;
			return;
		}
		if (!m->dc[i].path[0] && slot == META_DCACHE)
			slot = i;
	}
	if (slot == META_DCACHE)
		slot = m->dc_next++ % META_DCACHE;
	memcpy(m->dc[slot].path, path, len);
	m->dc[slot].path[len] = '\0';
	m->dc[slot].fh = *fh;
}

void nat_dcache_forget(struct engine_conn *c, const char *path)
{
	struct nat_meta *m = c->meta;
	size_t n = strlen(path);

	for (unsigned i = 0; m && i < META_DCACHE; i++) {
		const char *k = m->dc[i].path;

		if (k[0] && strncmp(k, path, n) == 0 && (k[n] == '\0' || k[n] == '/'))
			m->dc[i].path[0] = '\0';
	}
}

void nat_dcache_clear(struct engine_conn *c)
{
	nat_dcache_forget(c, "");
}

struct nat_mstate *nat_meta_owner(struct engine_conn *c, struct nat_call *call)
{
	struct nat_mstate *st = call->req ? nat_mstate_of(call->req) : NULL;

	if (!st || st->req != call->req || st->xid != call->xid) {
		/* Not a request of ours any more: only the slot and the call to give back. */
		c->proto->call_lost(c, call);
		nat_call_free(c, call);
		return NULL;
	}
	return st;
}
