/*
 * native_names: what the native engine's operations on names share, below
 * native_meta.c (queueing), native_meta3.c (NFSv3: LOOKUPs as stages, then
 * the procedure) and native_meta4.c (NFSv4.1: one COMPOUND from the root
 * where it can): the requests' states, names, the NFSv3 directory handle
 * cache. native_ctl.c reads what GETATTR and READDIR found through it.
 *
 * A request on a name may take several calls. Its state lives in a pool
 * of the connection's (struct nat_meta) from queue() to done(); an entry is
 * in use while its call is in flight (matched by xid) or it waits for a
 * session slot, so a request that timed out or was dropped with its
 * connection frees its entry without a callback here.
 */
#ifndef NFSLOAD_NATIVE_NAMES_H
#define NFSLOAD_NATIVE_NAMES_H

#include "native_conn.h"

#define META_PATH_MAX 512
#define META_OPS_MAX 24		/* operations of one COMPOUND, SEQUENCE included */
#define META_DCACHE 16		/* handles of names a connection keeps (NFSv3) */
#define META_DCACHE_KEY 128	/* a longer name is not kept: looked up each time */
#define META_IO_MAX (1u << 20)	/* the most one READ or WRITE on a name moves */

struct nat_mstate {
	struct engine_req *req;		/* NULL: free */
	uint32_t idx;			/* in nat_meta.st */
	uint32_t xid;			/* the call in flight (0: none) */
	bool waiting;			/* NFSv4.1: for a session slot */
	bool later;			/* in the connection's backoff (nat_retry_later) */
	uint8_t stage;			/* the version's: what the call in flight is */
	uint8_t which;			/* NFSv3: resolving path's directory (0) or path2's (1) */
	enum op_type op;
	enum engine_setattr setattr;
	uint64_t size;			/* ENGINE_SETATTR_SIZE: to this */
	bool unchecked;			/* CREATE: UNCHECKED */
	uint32_t len, done;		/* bytes to move, moved */
	const uint8_t *buf;		/* the data of a write */
	int err;			/* NFSv4.1: a failure to report once the file is closed */
	size_t rlen;			/* NFSv3: dir[which] is path[0..rlen) (SIZE_MAX: none) */
	struct nfs_fh dir[2], fh;
	struct nfs4_stateid sid;
	bool opened, closed;		/* NFSv4.1: OPEN gave sid; CLOSE went through */
	uint64_t cookie;		/* READDIR */
	uint8_t verf[8];
	uint8_t ops[META_OPS_MAX];	/* NFSv4.1: the COMPOUND's operations after SEQUENCE */
	uint32_t nops;
	uint8_t failed_op;		/* NFSv4.1: the operation that failed (0: none) */
	char path[META_PATH_MAX];	/* "/dir/c0/d1/f3", no repeated or trailing '/' */
	char path2[META_PATH_MAX];
};

struct nat_meta {
	struct nat_mstate **st;
	uint32_t nst;
	uint32_t last_free;		/* the entry that ended last */
	struct {
		char path[META_DCACHE_KEY];	/* "": empty; in place, no malloc (a LOOKUP's
						 * or a CREATE's name is put on each one) */
		struct nfs_fh fh;
	} dc[META_DCACHE];
	unsigned dc_next;
	bool ctl;			/* the control connection (creates may find the file) */
	struct nfs_attr attr;		/* what the last GETATTR said */
};

/* The connection's metadata state, made on first use (NULL: no memory). */
struct nat_meta *nat_meta_of(struct engine_conn *c);
/* Frees what the connection's requests on names kept (conn free). */
void nat_meta_free(struct engine_conn *c);
/* dst = src as "/a/b": no repeated or trailing '/', one in front ("" is the export);
 * dst may be src. false: longer than cap. */
bool nat_meta_norm(char *dst, size_t cap, const char *src);
/* A reply's request state, or NULL (its slot and call given back) when the
 * request is not there any more (timed out, dropped): for the versions' handlers. */
struct nat_mstate *nat_meta_owner(struct engine_conn *c, struct nat_call *call);

/* A request's state (queue() put it in priv[0]). */
static inline struct nat_mstate *nat_mstate_of(const struct engine_req *req)
{
	return req->priv[0];
}

/* Ends st's request: the entry is free again, then done(). */
void nat_meta_finish(struct engine_conn *c, struct nat_mstate *st, int status);
/* The length of path's parent ("/a/b" -> 2, "/a" -> 0, "" -> 0). */
size_t nat_meta_parent_len(const char *path);
/* The last name of path ("" for the export itself). */
const char *nat_meta_leaf(const char *path);
/* Whether the op works on the name's parent directory (else on the name itself). */
bool nat_meta_in_parent(enum op_type op);

/*
 * The call in flight failed with err: true if it goes again after a backoff
 * (nat_retry_later; its latency keeps the wait): the server said later
 * (-EAGAIN), or the call was a READDIR (listing) that may have raced a remove
 * (see native_meta4.c).
 */
bool nat_meta_later(struct engine_conn *c, struct nat_mstate *st, int err, bool listing);
/* What a SETATTR of st sets: mode 0644, the size asked for (st->size), or both times. */
void nat_meta_sattr(const struct nat_mstate *st, struct nfs_sattr *sa);

/* A READDIR reply's entries: the cookie to go on from, and each to c->meta_hook. */
struct nat_listing {
	struct engine_conn *c;
	struct nat_mstate *st;
	unsigned n;		/* entries seen */
};
int nat_meta_entry(void *arg, const char *name, uint32_t namelen, uint64_t cookie, bool is_dir);

/* NFSv3 directory handles by path below the export (path[0..len)); "" is c->root. */
const struct nfs_fh *nat_dcache_get(struct engine_conn *c, const char *path, size_t len);
void nat_dcache_put(struct engine_conn *c, const char *path, size_t len, const struct nfs_fh *fh);
/* path and everything below it are gone (removed, renamed). */
void nat_dcache_forget(struct engine_conn *c, const char *path);
/* Every handle may be stale (the server said so). */
void nat_dcache_clear(struct engine_conn *c);

#endif
