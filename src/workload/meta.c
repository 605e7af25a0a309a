/*
 * meta: weighted metadata operations over a connection's own tree.
 * See include/meta.h.
 */
#include <errno.h>
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

void meta_tree_destroy(struct meta_tree *t)
{
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
		if (mix->weight[op] && op_info((enum op_type)op)->cls == OPC_FILE)
			return true;
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

static bool choose(struct meta_tree *t, enum op_type op, struct meta_target *tg)
{
	uint8_t *s;
	int a, b;

	tg->op = op;
	if (op_info(op)->cls == OPC_FILE)
		return choose_file(t, op, tg);
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
