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
	/* State (meta_tree_state): the held files (--open-files) and the locks held */
	unsigned nheld;		/* 0: open is --mix's OPEN of a name, close has nothing */
	uint8_t *held;		/* per held file: META_OPEN | META_BUSY */
	unsigned nopen;		/* held files open now */
	uint64_t lock_size;
	unsigned contention;	/* percent of locks on the shared ranges */
	unsigned rank, sharers;	/* this connection among those on its first data file */
	struct meta_lock *locks;	/* META_LOCKS_MAX: the locks held or asked for */
	unsigned nlocks;	/* entries in use */
};

#define META_OPEN 4

/* Locks a connection holds or asks for at once, at most: a lock drawn with
 * the table full unlocks one instead. */
#define META_LOCKS_MAX 64
/* The shared ranges (--lock-contention): the first META_LOCK_HOT ranges of --lock-size
 * of a file; a connection's own ranges come after them, every sharers-th. */
#define META_LOCK_HOT 8

struct meta_lock {
	uint32_t file;		/* the connection's data file (index) */
	uint64_t range;		/* offset / lock_size */
	bool used, busy;	/* busy: a LOCK or LOCKU in flight */
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
	/* State: OPC_HELD (and open with held files) on held file slot; OPC_LOCK on file,
	 * range block (of lock_size), lock table entry slot (lockt: UINT_MAX) */
	bool held;
};

int meta_tree_init(struct meta_tree *t, unsigned dirs, unsigned files, uint64_t seed);
/*
 * The data files the mix's OPC_FILE ops work on: nfiles of blocks blocks
 * each, xattrs names. Without (nfiles or blocks 0), such an op gives way to
 * another draw.
 */
void meta_tree_files(struct meta_tree *t, uint32_t nfiles, uint64_t blocks, unsigned xattrs);
/*
 * State: nheld held files, all open at the start (open and close of the mix work
 * on them: an open a closed one, a close an open one, each the other when none
 * is); locks of lock_size bytes, contention percent of them on the shared
 * ranges, this connection the rank-th of sharers on its data files. 0 or -ENOMEM.
 */
int meta_tree_state(struct meta_tree *t, unsigned nheld, uint64_t lock_size,
		    unsigned contention, unsigned rank, unsigned sharers);
/* Whether the mix holds an op on the data files, OPC_FILE or OPC_LOCK (then the run
 * lays its data files out). */
bool meta_mix_has_file_ops(const struct meta_mix *mix);
/* Whether the mix holds an op on the names of the trees, OPC_NAME or read and write
 * (a whole file of the tree) (then the run makes them); held: open is of held files
 * (--open-files). */
bool meta_mix_has_name_ops(const struct meta_mix *mix, bool held);
/* Held file i is open or not, as the engine says after a set-up (a busy one is left). */
void meta_held_set(struct meta_tree *t, unsigned i, bool open);
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
