/*
 * meta: the metadata workload (--mix): which operation comes next on which
 * name of a connection's own directory tree, and what the tree holds.
 *
 * Owns: the weighted mix, the per-connection tree state (which file names
 * exist, which are busy with a request in flight, how many extra directories
 * a directory holds) and the PRNG. Pure: no I/O, unit-tested without a server.
 *
 * A connection's tree: DIRS directories d0..d(D-1), each with file names
 * f0..f(2F-1) of which f0..f(F-1) exist at the start (F = files per dir),
 * and extra directories x0, x1, ... made by mkdir and removed by rmdir.
 *
 * The NFSv4.2 operations of a mix (class OPC_FILE, ops.h) work on the
 * connection's data files instead (the files of --size/--nrfiles): a random
 * one of them, a random block of it, never a name of the tree.
 */
#ifndef NFSLOAD_META_H
#define NFSLOAD_META_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "workload.h"

struct meta_mix {
	unsigned weight[OP_NTYPES];
	unsigned total;
};

/*
 * "read=40,write=20,getattr=25,create=5,remove=5,readdir=5". Names: read,
 * write, getattr, lookup, access, setattr, readdir, create, remove, mkdir,
 * rmdir, rename, open. 0 or -EINVAL with err naming what is wrong.
 */
int meta_mix_parse(const char *s, struct meta_mix *mix, char *err, size_t len);
/* The --mix name of an op type ("getattr"), or NULL for one a mix cannot hold. */
const char *meta_op_name(enum op_type t);

struct meta_tree {
	unsigned dirs, files;	/* files per directory at the start */
	unsigned slots;		/* file names per directory: 2 * files */
	uint8_t *state;		/* dirs * slots: META_EXISTS | META_BUSY */
	unsigned *extra;	/* per directory: extra directories x0..x(n-1) */
	bool *extra_busy;	/* per directory: an mkdir/rmdir in flight */
	uint64_t rng;
	/* The data files the OPC_FILE ops work on (meta_tree_files; 0: none) */
	uint32_t nfiles;	/* the connection's files */
	uint64_t blocks;	/* --bs blocks per file (the last may be short) */
	unsigned xattrs;	/* xattr names nfsload.0 .. nfsload.(xattrs-1) */
	uint64_t seeks;		/* SEEKs drawn so far: data and hole in turn */
};

#define META_EXISTS 1
#define META_BUSY 2

/*
 * One chosen operation: op on dir/slot (rename: to slot2); an OPC_FILE op on
 * block of the connection's file (its index among the connection's files),
 * COPY and CLONE to block2 of file2, SEEK for data (what 0) or a hole (1),
 * the xattr ops on name nfsload.<xattr>.
 */
struct meta_target {
	enum op_type op;
	unsigned dir, slot, slot2;
	uint32_t file, file2;
	uint64_t block, block2;
	uint32_t what;
	unsigned xattr;
};

int meta_tree_init(struct meta_tree *t, unsigned dirs, unsigned files, uint64_t seed);
/*
 * The data files the mix's OPC_FILE ops work on: nfiles of blocks blocks
 * each, xattrs names. Without (nfiles or blocks 0), such an op gives way to
 * another draw.
 */
void meta_tree_files(struct meta_tree *t, uint32_t nfiles, uint64_t blocks, unsigned xattrs);
/* Whether the mix holds an OPC_FILE op (then the run lays its data files out). */
bool meta_mix_has_file_ops(const struct meta_mix *mix);
void meta_tree_destroy(struct meta_tree *t);
/*
 * Picks the next operation by weight, and a name it can work on (an existing
 * file for read, a free name for create, ...), marking it busy; an OPC_FILE
 * op a file and block of the connection's data files (nothing busy: the
 * server orders requests on one range). COPY and CLONE go from one file to
 * another when the connection has two or more, else to another block of the
 * same file (the same block when the file has only one). An operation
 * with no name to work on right now gives way to another draw; false when
 * none was found in a few draws (everything busy).
 */
bool meta_next(struct meta_tree *t, const struct meta_mix *mix, struct meta_target *tg);
/* The request finished (ok: succeeded): the tree follows, the names are free again. */
void meta_done(struct meta_tree *t, const struct meta_target *tg, bool ok);
/* Files that exist now (all directories). */
uint64_t meta_files(const struct meta_tree *t);

#endif
