/*
 * meta: weighted metadata operations over a connection's own tree.
 * See include/meta.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "meta.h"
#include "ops.h"
#include "units.h"


const char *meta_op_name(enum op_type t)
{
	return t < OP_NTYPES && op_info(t)->mix ? op_name(t) : NULL;
}

int meta_mix_parse(const char *s, struct meta_mix *mix, char *err, size_t len)
{
	char buf[512], *tok, *save;

	memset(mix, 0, sizeof(*mix));
	if (strlen(s) >= sizeof(buf)) {
		snprintf(err, len, "--mix: too long");
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		uint64_t w;
		int t;

		if (eq)
			*eq = '\0';
		t = (int)op_by_name(tok);
		if (t == OP_NTYPES) {
			snprintf(err, len, "--mix: '%s' is not an operation (%s)", tok, op_mix_names());
			return -EINVAL;
		}
		if (!eq || units_parse_uint(eq + 1, 0, 1000000, &w)) {
			snprintf(err, len, "--mix: %s needs a weight (%s=N, N from 0 to 1000000)",
				 tok, tok);
			return -EINVAL;
		}
		if (mix->weight[t]) {
			snprintf(err, len, "--mix: %s given twice", tok);
			return -EINVAL;
		}
		mix->weight[t] = (unsigned)w;
		mix->total += (unsigned)w;
	}
	if (mix->total == 0) {
		snprintf(err, len, "--mix: no operation with a weight above 0 "
			 "(e.g. read=40,write=20,getattr=40)");
		return -EINVAL;
	}
	return 0;
}

int meta_tree_init(struct meta_tree *t, unsigned dirs, unsigned files, uint64_t seed)
{
	memset(t, 0, sizeof(*t));
	t->dirs = dirs;
	t->files = files;
	t->slots = 2 * files;
	t->rng = seed;
	t->state = calloc((size_t)dirs * t->slots, 1);
	t->extra = calloc(dirs, sizeof(*t->extra));
	t->extra_busy = calloc(dirs, sizeof(*t->extra_busy));
	if (!t->state || !t->extra || !t->extra_busy) {
		meta_tree_destroy(t);
		return -ENOMEM;
	}
	for (unsigned d = 0; d < dirs; d++)
		memset(t->state + (size_t)d * t->slots, META_EXISTS, files);
	return 0;
}

int meta_tree_state(struct meta_tree *t, unsigned nheld, uint64_t lock_size,
		    unsigned contention, unsigned rank, unsigned sharers)
{
	t->nheld = t->nopen = nheld;
	t->lock_size = lock_size ? lock_size : 4096;
	t->contention = contention;
	t->rank = rank;
	t->sharers = sharers ? sharers : 1;
	t->held = nheld ? malloc(nheld) : NULL;
	t->locks = calloc(META_LOCKS_MAX, sizeof(*t->locks));
	if ((nheld && !t->held) || !t->locks)
		return -ENOMEM;
	if (nheld)
		memset(t->held, META_OPEN, nheld);
	return 0;
}

void meta_tree_destroy(struct meta_tree *t)
{
	free(t->held);
	free(t->locks);
	free(t->state);
	free(t->extra);
	free(t->extra_busy);
	memset(t, 0, sizeof(*t));
}

static unsigned below(struct meta_tree *t, unsigned n)
{
	return (unsigned)(((unsigned __int128)wl_rand(&t->rng) * n) >> 64);
}

/* A non-busy name of the directory that exists (want) or not; -1 if none. */
static int pick_slot(struct meta_tree *t, unsigned dir, bool want)
{
	uint8_t *s = t->state + (size_t)dir * t->slots;
	unsigned start = below(t, t->slots);

	for (unsigned k = 0; k < t->slots; k++) {
		unsigned i = (start + k) % t->slots;

		if (!(s[i] & META_BUSY) && !!(s[i] & META_EXISTS) == want)
			return (int)i;
	}
	return -1;
}

void meta_tree_files(struct meta_tree *t, uint32_t nfiles, uint64_t blocks, unsigned xattrs)
{
	t->nfiles = nfiles;
	t->blocks = blocks;
	t->xattrs = xattrs ? xattrs : 1;
}

bool meta_mix_has_file_ops(const struct meta_mix *mix)
{
	for (int op = 0; op < OP_NTYPES; op++)
		if (mix->weight[op] && (op_info((enum op_type)op)->cls == OPC_FILE ||
					op_info((enum op_type)op)->cls == OPC_LOCK))
			return true;
	return false;
}

bool meta_mix_has_name_ops(const struct meta_mix *mix, bool held)
{
	for (int op = 0; op < OP_NTYPES; op++) {
		enum op_class cls = op_info((enum op_type)op)->cls;

		/* read and write of a mix work on a whole file of the tree, as the names do */
		if (mix->weight[op] && (cls == OPC_NAME || cls == OPC_IO) &&
		    !(held && op == OP_OPEN))
			return true;
	}
	return false;
}

static uint64_t below64(struct meta_tree *t, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)wl_rand(&t->rng) * n) >> 64);
}

/* An OPC_FILE op: a file and block of the connection's data files, no name of the tree. */
static bool choose_file(struct meta_tree *t, enum op_type op, struct meta_target *tg)
{
	if (t->nfiles == 0 || t->blocks == 0)
		return false;
	tg->file = (uint32_t)below(t, t->nfiles);
	tg->block = below64(t, t->blocks);
	tg->what = 0;
	tg->xattr = 0;
	tg->file2 = tg->file;
	tg->block2 = tg->block;
	switch (op) {
	case OP_SEEK:
		tg->what = (uint32_t)(t->seeks++ & 1);
		break;
	case OP_COPY:
	case OP_CLONE:
		if (t->nfiles > 1) {
			/* Another file: one of the other nfiles - 1, the same block range. */
			tg->file2 = (tg->file + 1 + (uint32_t)below(t, t->nfiles - 1)) % t->nfiles;
			tg->block2 = below64(t, t->blocks);
		} else if (t->blocks > 1) {
			/* One file: another block of it, so the ranges never overlap. */
			tg->block2 = (tg->block + 1 + below64(t, t->blocks - 1)) % t->blocks;
		}
		break;
	case OP_GETXATTR:
	case OP_SETXATTR:
	case OP_REMOVEXATTR:
		tg->xattr = below(t, t->xattrs);
		break;
	default:
		break;
	}
	return true;
}

/* A held file that is open (want) or closed, not busy; -1 if none. */
static int pick_held(struct meta_tree *t, bool want)
{
	unsigned start;

	if (want ? t->nopen == 0 : t->nopen == t->nheld)
		return -1;
	start = below(t, t->nheld);
	for (unsigned k = 0; k < t->nheld; k++) {
		unsigned i = (start + k) % t->nheld;

		if (!(t->held[i] & META_BUSY) && !!(t->held[i] & META_OPEN) == want)
			return (int)i;
	}
	return -1;
}

/* open (of a closed held file) or close (of an open one); the other when none is. */
static bool choose_held(struct meta_tree *t, enum op_type op, struct meta_target *tg)
{
	bool close = op == OP_CLOSE;
	int i = t->nheld ? pick_held(t, close) : -1;

	if (i < 0 && t->nheld) {
		close = !close;
		i = pick_held(t, close);
	}
	if (i < 0)
		return false;
	tg->op = close ? OP_CLOSE : OP_OPEN;
	tg->held = true;
	tg->slot = (unsigned)i;
	t->held[i] |= META_BUSY;
	return true;
}

/* A range of lock_size: a shared one (contention percent of the time) or one of
 * this connection's own. */
static uint64_t lock_range(struct meta_tree *t)
{
	if (below(t, 100) < t->contention)
		return below(t, META_LOCK_HOT);
	return META_LOCK_HOT + (uint64_t)below(t, 1u << 16) * t->sharers + t->rank;
}

/* A lock table entry for file and range, not in use by this connection yet; -1 if none. */
static int new_lock(struct meta_tree *t, uint32_t file, uint64_t range)
{
	int free = -1;

	for (unsigned i = 0; i < META_LOCKS_MAX; i++) {
		const struct meta_lock *l = &t->locks[i];

		if (l->used && l->file == file && l->range == range)
			return -1;	/* this connection holds it, or asks for it, already */
		if (!l->used && free < 0)
			free = (int)i;
	}
	return free;
}

/* A held lock that is not busy, from a random start; -1 if none. */
static int held_lock(struct meta_tree *t)
{
	unsigned start = below(t, META_LOCKS_MAX);

	for (unsigned k = 0; k < META_LOCKS_MAX; k++) {
		unsigned i = (start + k) % META_LOCKS_MAX;

		if (t->locks[i].used && !t->locks[i].busy)
			return (int)i;
	}
	return -1;
}

/* lock (a new range), unlock (a held lock; a lock when none is, an unlock when the
 * table is full) or lockt (any range). A lock of a range this connection holds gives
 * way: a mix of locks alone on the shared ranges (--lock-contention 100) takes them
 * and then holds them, issuing nothing more (the way a test holds ranges for another
 * client to meet, tests/locks.sh). */
static bool choose_lock(struct meta_tree *t, enum op_type op, struct meta_target *tg)
{
	int i = -1;

	if (t->nfiles == 0 || !t->locks)
		return false;
	if (op == OP_LOCK && t->nlocks >= META_LOCKS_MAX)
		op = OP_UNLOCK;
	if (op == OP_UNLOCK && (i = held_lock(t)) < 0) {
		if (t->nlocks >= META_LOCKS_MAX)
			return false;	/* all busy */
		op = OP_LOCK;
	}
	tg->op = op;
	tg->slot = UINT_MAX;
	if (op == OP_UNLOCK) {
		tg->file = t->locks[i].file;
		tg->block = t->locks[i].range;
	} else {
		tg->file = (uint32_t)below(t, t->nfiles);
		tg->block = lock_range(t);
	}
	if (op == OP_LOCK) {
		if ((i = new_lock(t, tg->file, tg->block)) < 0)
			return false;
		t->locks[i] = (struct meta_lock){ .file = tg->file, .range = tg->block, .used = true };
		t->nlocks++;
	}
	if (i >= 0) {
		t->locks[i].busy = true;
		tg->slot = (unsigned)i;
	}
	return true;
}

static bool choose(struct meta_tree *t, enum op_type op, struct meta_target *tg)
{
	uint8_t *s;
	int a, b;

	tg->op = op;
	tg->held = false;
	if (op_info(op)->cls == OPC_FILE)
		return choose_file(t, op, tg);
	if (op_info(op)->cls == OPC_HELD || (op == OP_OPEN && t->nheld))
		return choose_held(t, op, tg);
	if (op_info(op)->cls == OPC_LOCK)
		return choose_lock(t, op, tg);
	tg->dir = below(t, t->dirs);
	s = t->state + (size_t)tg->dir * t->slots;
	switch (op) {
	case OP_READDIR:
		return true;
	case OP_MKDIR:
	case OP_RMDIR:
		if (t->extra_busy[tg->dir] || (op == OP_RMDIR && t->extra[tg->dir] == 0))
			return false;
		t->extra_busy[tg->dir] = true;
		return true;
	case OP_LOOKUP:	/* a name that does not exist: a negative LOOKUP */
	case OP_CREATE:
		a = pick_slot(t, tg->dir, false);
		break;
	case OP_RENAME:
		a = pick_slot(t, tg->dir, true);
		b = a < 0 ? -1 : pick_slot(t, tg->dir, false);
		if (b < 0)
			return false;
		tg->slot2 = (unsigned)b;
		s[b] |= META_BUSY;
		break;
	default:
		a = pick_slot(t, tg->dir, true);
		break;
	}
	if (a < 0)
		return false;
	tg->slot = (unsigned)a;
	s[a] |= META_BUSY;
	return true;
}

void meta_held_set(struct meta_tree *t, unsigned i, bool open)
{
	uint8_t *h = i < t->nheld ? &t->held[i] : NULL;

	if (!h || (*h & META_BUSY) || !!(*h & META_OPEN) == open)
		return;
	*h = open ? (uint8_t)(*h | META_OPEN) : (uint8_t)(*h & ~META_OPEN);
	t->nopen = open ? t->nopen + 1 : t->nopen - 1;
}

bool meta_next(struct meta_tree *t, const struct meta_mix *mix, struct meta_target *tg)
{
	for (int tries = 0; tries < 8; tries++) {
		unsigned r = below(t, mix->total);
		int op = 0;

		while (r >= mix->weight[op])
			r -= mix->weight[op++];
		if (choose(t, (enum op_type)op, tg))
			return true;
	}
	return false;
}

void meta_done(struct meta_tree *t, const struct meta_target *tg, bool ok)
{
	uint8_t *s = t->state + (size_t)tg->dir * t->slots;

	/* No name of the tree was taken. */
	if (op_info(tg->op)->cls == OPC_FILE)
		return;
	if (tg->held) {
		uint8_t *h = &t->held[tg->slot];

		if (ok && tg->op == OP_OPEN && !(*h & META_OPEN)) {
			*h |= META_OPEN;
			t->nopen++;
		} else if (ok && tg->op == OP_CLOSE && (*h & META_OPEN)) {
			*h &= (uint8_t)~META_OPEN;
			t->nopen--;
		}
		*h &= (uint8_t)~META_BUSY;
		return;
	}
	if (op_info(tg->op)->cls == OPC_LOCK) {
		struct meta_lock *l = tg->slot < META_LOCKS_MAX ? &t->locks[tg->slot] : NULL;

		/* A lock granted is held; one denied or failed, and any unlock, is not
		 * (an unlock that failed leaves nothing this connection could unlock). */
		if (l && tg->op == OP_LOCK && ok) {
			l->busy = false;
		} else if (l) {
			*l = (struct meta_lock){ 0 };
			t->nlocks--;
		}
		return;
	}
	switch (tg->op) {
	case OP_READDIR:
		return;
	case OP_MKDIR:
	case OP_RMDIR:
		t->extra_busy[tg->dir] = false;
		if (ok)
			t->extra[tg->dir] += tg->op == OP_MKDIR ? 1 : -1;
		return;
	case OP_CREATE:
		if (ok)
			s[tg->slot] |= META_EXISTS;
		break;
	case OP_REMOVE:
		if (ok)
			s[tg->slot] &= (uint8_t)~META_EXISTS;
		break;
	case OP_RENAME:
		s[tg->slot2] &= (uint8_t)~META_BUSY;
		if (ok) {
			s[tg->slot] &= (uint8_t)~META_EXISTS;
			s[tg->slot2] |= META_EXISTS;
		}
		break;
	default:
		break;
	}
	s[tg->slot] &= (uint8_t)~META_BUSY;
}

uint64_t meta_files(const struct meta_tree *t)
{
	uint64_t n = 0;

	for (size_t i = 0; i < (size_t)t->dirs * t->slots; i++)
		n += t->state[i] & META_EXISTS;
	return n;
}
