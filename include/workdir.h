/*
 * workdir: the work directory on the server, and the names in it.
 *
 * Owns: the safety policy (nfsload writes only inside a directory it made
 * or marked as its own: a foreign, non-empty directory is refused), which
 * files exist and which this run created, removing exactly those at the
 * end (retrying after an outage), the --mix trees, and the names of files
 * and tree entries. Engine-neutral: every server call goes through the
 * engine's control table. Main thread only.
 */
#ifndef NFSLOAD_WORKDIR_H
#define NFSLOAD_WORKDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "replay.h"

#define WORKDIR_MARKER ".nfsload-owner"

struct workdir;

/* What the work directory holds for this run. */
struct fileset {
	uint32_t n;
	uint64_t *size;		/* size on the server before the layout */
	bool *created;		/* created by this run */
	bool dir_created;
	bool marker_created;
};

/* Mounts the export through cfg's engine. 0, or -errno with one line in err. */
int workdir_open(const struct config *cfg, struct workdir **out, char *err, size_t len);
void workdir_free(struct workdir *wd);
/* Which server ports the control connection reached ("" when none). */
const char *workdir_ports(const struct workdir *wd);

/*
 * Creates (or adopts, when it carries the marker, or is empty) the work
 * directory and the files that are missing; fills fs. --verify-only creates
 * nothing and needs every file at --size.
 */
int workdir_prepare(struct workdir *wd, struct fileset *fs, char *err, size_t len);
/* Removes what fs says this run created (files, marker, directory). */
int workdir_cleanup(struct workdir *wd, const struct fileset *fs, char *err, size_t len);
/* After a --sparse layout: every file shorter than --size given that size (SETATTR:
 * the rest of it a hole), fs->size with it. 0 or -errno with err. */
int workdir_extend(struct workdir *wd, struct fileset *fs, char *err, size_t len);
/* fs += what other created (a job's runs share a directory). 0 or -ENOMEM. */
int fileset_merge(struct fileset *fs, const struct fileset *other);
void fileset_destroy(struct fileset *fs);

/*
 * --mix: makes every connection's tree afresh (an old one, left by --keep,
 * is removed first): directories, and unless empty, files of --file-size
 * bytes from data.
 */
int workdir_trees_make(struct workdir *wd, const uint8_t *data, bool empty, char *err,
		       size_t len);
/* Removes every connection's tree, whatever the run left in it. */
int workdir_trees_remove(struct workdir *wd, char *err, size_t len);
/* Removes every connection's held files (--open-files; a missing one is fine). */
int workdir_held_remove(struct workdir *wd, char *err, size_t len);

/*
 * --replay: the names the plan needs, after workdir_prepare made its data files:
 * directories and files made beforehand, data files at the size their reads need,
 * and names the replay itself makes removed if an earlier replay (--keep) left them.
 */
int workdir_replay_make(struct workdir *wd, const struct replay_plan *p, char *err, size_t len);
/* Removes every name of the plan but the data files (workdir_cleanup's), deepest first. */
int workdir_replay_remove(struct workdir *wd, const struct replay_plan *p, char *err, size_t len);

/* "/<dir>/file.<id>": file id's name below the export. */
void workdir_file_path(const struct config *cfg, uint32_t id, char *buf, size_t len);
/* "/<dir>/c<conn>/d<dir>[/<leaf>]": a --mix name (leaf may be NULL). */
void workdir_tree_path(const struct config *cfg, unsigned conn, unsigned dir, const char *leaf,
		       char *buf, size_t len);

#endif
