/*
 * workdir: the work directory policy over an engine's control table.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "engine.h"
#include "params.h"
#include "workdir.h"

struct workdir {
	const struct config *cfg;
	struct engine_params params;	/* what the control connection was opened with */
	const struct engine_ctl_ops *ops;
	struct engine_ctl *ctl;
};

void workdir_file_path(const struct config *cfg, uint32_t id, char *buf, size_t len)
{
	wl_file_name(cfg->dir, id, buf, len);
}

void workdir_tree_path(const struct config *cfg, unsigned conn, unsigned dir, const char *leaf,
		       char *buf, size_t len)
{
	snprintf(buf, len, "/%s/c%u/d%u%s%s", cfg->dir, conn, dir, leaf ? "/" : "",
		 leaf ? leaf : "");
}

/* "what: why" into err; returns rc (or -EIO). */
static int fail(struct workdir *wd, char *err, size_t len, const char *what, int rc)
{
	const char *why = wd->ops->error(wd->ctl);

	snprintf(err, len, "%s: %s", what, why && *why ? why : strerror(rc < 0 ? -rc : EIO));
	return rc < 0 ? rc : -EIO;
}

int workdir_open(const struct config *cfg, struct workdir **out, char *err, size_t len)
{
	struct workdir *wd = calloc(1, sizeof(*wd));

	*out = wd;
	if (!wd) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	wd->cfg = cfg;
	wd->ops = cfg->engine->ctl;
	engine_params_init(&wd->params, cfg);
	return wd->ops->open(&wd->params, &wd->ctl, err, len);
}

void workdir_free(struct workdir *wd)
{
	if (!wd)
		return;
	wd->ops->free(wd->ctl);
	free(wd);
}

const char *workdir_ports(const struct workdir *wd)
{
	return wd && wd->ctl ? wd->ops->ports(wd->ctl) : "";
}

static int has_entry(void *arg, const char *name, bool is_dir)
{
	(void)name;
	(void)is_dir;
	*(bool *)arg = true;
	return 1;
}

static int write_marker(struct workdir *wd, const char *path)
{
	char text[160];
	int n = snprintf(text, sizeof(text), "nfsload work directory: nfsload may create, write "
			 "and delete files here.\npid %ld\n", (long)getpid());

	return wd->ops->create(wd->ctl, path, text, (uint64_t)n);
}

/* --verify-only reads what an earlier run left: it creates nothing, not even the marker. */
static int verify_only_files(struct workdir *wd, struct fileset *fs, const char *dir,
			     const char *marker, char *err, size_t len)
{
	const struct config *cfg = wd->cfg;
	struct engine_stat st;
	char path[320];

	if (wd->ops->stat(wd->ctl, dir, &st) < 0 || wd->ops->stat(wd->ctl, marker, &st) < 0) {
		snprintf(err, len, "--verify-only: no nfsload work directory '%s' to check (write "
			 "the files first with --verify --keep)", cfg->dir);
		return -ENOENT;
	}
	for (uint32_t i = 0; i < fs->n; i++) {
		workdir_file_path(cfg, i, path, sizeof(path));
		if (wd->ops->stat(wd->ctl, path, &st) < 0 || !st.is_reg || st.size < cfg->size) {
			snprintf(err, len, "--verify-only: %s is missing or shorter than --size "
				 "(check with the --size and --nrfiles it was written with)", path);
			return -ENOENT;
		}
		fs->size[i] = st.size;
	}
	return 0;
}

/* The directory itself: made, adopted, or refused. */
static int claim_dir(struct workdir *wd, struct fileset *fs, const char *dir, const char *marker,
		     char *err, size_t len)
{
	const struct config *cfg = wd->cfg;
	struct engine_stat st;
	bool entries = false;
	int rc;

	/* Only "no such name" means absent: any other failure is reported as itself. */
	if ((rc = wd->ops->stat(wd->ctl, dir, &st)) < 0 && rc != -ENOENT)
		return fail(wd, err, len, "cannot look at the work directory", rc);
	if (rc == -ENOENT) {
		rc = wd->ops->mkdir(wd->ctl, dir);
		if (rc < 0)
			return fail(wd, err, len, "cannot create the work directory", rc);
		fs->dir_created = true;
	} else if (!st.is_dir) {
		snprintf(err, len, "--dir: '%s' exists on the server and is not a directory", cfg->dir);
		return -EEXIST;
	} else if ((rc = wd->ops->stat(wd->ctl, marker, &st)) == 0) {
		return 0;	/* ours */
	} else if (rc != -ENOENT) {
		return fail(wd, err, len, "cannot look for the work directory's marker", rc);
	} else {
		/* Not marked as ours: only an empty directory may be adopted. */
		rc = wd->ops->readdir(wd->ctl, dir, has_entry, &entries);
		if (rc < 0 || entries) {
			snprintf(err, len, "--dir: '%s' exists, is not empty and has no %s marker: "
				 "not nfsload's, refusing to write there (choose another --dir)",
				 cfg->dir, WORKDIR_MARKER);
			return -EEXIST;
		}
	}
	fs->marker_created = true;
	rc = write_marker(wd, marker);
	if (rc < 0)
		return fail(wd, err, len, "cannot write the work directory marker", rc);
	return 0;
}

int workdir_prepare(struct workdir *wd, struct fileset *fs, char *err, size_t len)
{
	const struct config *cfg = wd->cfg;
	struct engine_stat st;
	char dir[300], path[320];
	int rc;

	memset(fs, 0, sizeof(*fs));
	fs->n = cfg->nrfiles;
	fs->size = calloc(fs->n, sizeof(*fs->size));
	fs->created = calloc(fs->n, sizeof(*fs->created));
	if (!fs->size || !fs->created) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	snprintf(dir, sizeof(dir), "/%s", cfg->dir);
	snprintf(path, sizeof(path), "%s/" WORKDIR_MARKER, dir);
	if (cfg->verify_only)
		return verify_only_files(wd, fs, dir, path, err, len);
	rc = claim_dir(wd, fs, dir, path, err, len);
	if (rc)
		return rc;
	for (uint32_t i = 0; i < fs->n; i++) {
		workdir_file_path(cfg, i, path, sizeof(path));
		if (wd->ops->stat(wd->ctl, path, &st) == 0) {
			if (!st.is_reg) {
				snprintf(err, len, "%s exists and is not a regular file", path);
				return -EEXIST;
			}
			fs->size[i] = st.size;
			continue;
		}
		rc = wd->ops->create(wd->ctl, path, NULL, 0);
		if (rc < 0) {
			char what[360];

			snprintf(what, sizeof(what), "cannot create %s", path);
			return fail(wd, err, len, what, rc);
		}
		fs->created[i] = true;
	}
	return 0;
}

static int remove_all(struct workdir *wd, const struct fileset *fs)
{
	char path[320];

	for (uint32_t i = 0; i < fs->n; i++) {
		struct engine_stat st;

		if (!fs->created || !fs->created[i])
			continue;
		workdir_file_path(wd->cfg, i, path, sizeof(path));
		/* Gone already (a retry after an outage) is fine. */
		if (wd->ops->unlink(wd->ctl, path) < 0 &&
		    wd->ops->stat(wd->ctl, path, &st) != -ENOENT)
			return -EIO;
	}
	if (fs->marker_created) {
		snprintf(path, sizeof(path), "/%s/" WORKDIR_MARKER, wd->cfg->dir);
		wd->ops->unlink(wd->ctl, path);
	}
	if (fs->dir_created) {
		snprintf(path, sizeof(path), "/%s", wd->cfg->dir);
		if (wd->ops->rmdir(wd->ctl, path) < 0)
			return -EIO;
	}
	return 0;
}

int workdir_cleanup(struct workdir *wd, const struct fileset *fs, char *err, size_t len)
{
	uint64_t deadline = now_ns() + wd->cfg->timeout_ns;
	char why[300];
	int rc;

	if (remove_all(wd, fs) == 0)
		return 0;
	/*
	 * The control connection sat idle all run: the server may have dropped
	 * it or be restarting. Mount again and retry for up to --timeout.
	 */
	do {
		if ((rc = wd->ops->reopen(wd->ctl, err, len)) == 0 && remove_all(wd, fs) == 0)
			return 0;
		usleep(250000);
	} while (now_ns() < deadline);
	if (rc == 0)
		return fail(wd, err, len, "cannot remove what this run created", -EIO);
	/*
	 * The server is gone: the mount says how, in words one can act on
	 * ("connection refused at ..."); the last operation's error would not.
	 */
	snprintf(why, sizeof(why), "%s", err);
	snprintf(err, len, "cannot remove what this run created: %s", why);
	return rc;
}

int workdir_extend(struct workdir *wd, struct fileset *fs, char *err, size_t len)
{
	char path[320];
	int rc;

	for (uint32_t i = 0; i < fs->n; i++) {
		if (fs->size[i] >= wd->cfg->size)
			continue;
		workdir_file_path(wd->cfg, i, path, sizeof(path));
		if ((rc = wd->ops->truncate(wd->ctl, path, wd->cfg->size)) < 0) {
			char what[360];

			snprintf(what, sizeof(what), "--sparse: cannot set the size of %s", path);
			return fail(wd, err, len, what, rc);
		}
		fs->size[i] = wd->cfg->size;
	}
	return 0;
}

int fileset_merge(struct fileset *dst, const struct fileset *src)
{
	if (src->n > dst->n) {
		bool *c = realloc(dst->created, src->n * sizeof(*c));

		if (!c)
			return -ENOMEM;
		memset(c + dst->n, 0, (src->n - dst->n) * sizeof(*c));
		dst->created = c;
		dst->n = src->n;
	}
	for (uint32_t i = 0; i < src->n; i++)
		dst->created[i] |= src->created[i];
	dst->dir_created |= src->dir_created;
	dst->marker_created |= src->marker_created;
	return 0;
}

void fileset_destroy(struct fileset *fs)
{
	free(fs->size);
	free(fs->created);
	fs->size = NULL;
	fs->created = NULL;
}

struct tree_walk {
	struct workdir *wd;
	const char *path;
	int depth, rc;
};

static int remove_tree(struct workdir *wd, const char *path, int depth);

static int remove_entry(void *arg, const char *name, bool is_dir)
{
	struct tree_walk *t = arg;
	char child[400];

	snprintf(child, sizeof(child), "%s/%s", t->path, name);
	if (is_dir && t->depth > 0)
		t->rc |= remove_tree(t->wd, child, t->depth - 1);
	else if (t->wd->ops->unlink(t->wd->ctl, child) < 0)
		t->rc = -EIO;
	return 0;
}

/* Empties and removes path, a directory nfsload made, down to depth levels. */
static int remove_tree(struct workdir *wd, const char *path, int depth)
{
	struct tree_walk t = { wd, path, depth, 0 };

	if (wd->ops->readdir(wd->ctl, path, remove_entry, &t) < 0)
		return -EIO;
	if (wd->ops->rmdir(wd->ctl, path) < 0)
		t.rc = -EIO;
	return t.rc;
}

int workdir_trees_make(struct workdir *wd, const uint8_t *data, bool empty, char *err,
		       size_t len)
{
	const struct config *cfg = wd->cfg;
	struct engine_stat st;
	char path[400], leaf[32];
	int rc;

	for (unsigned c = 0; c < cfg->connections; c++) {
		snprintf(path, sizeof(path), "/%s/c%u", cfg->dir, c);
		if (wd->ops->stat(wd->ctl, path, &st) == 0 && remove_tree(wd, path, 2) < 0)
			return fail(wd, err, len, "cannot remove an old tree", -EIO);
		if ((rc = wd->ops->mkdir(wd->ctl, path)) < 0)
			return fail(wd, err, len, "cannot make a --mix tree", rc);
		for (unsigned d = 0; d < cfg->dirs; d++) {
			workdir_tree_path(cfg, c, d, NULL, path, sizeof(path));
			if ((rc = wd->ops->mkdir(wd->ctl, path)) < 0)
				return fail(wd, err, len, "cannot make a --mix directory", rc);
			for (unsigned f = 0; !empty && f < cfg->files_per_dir; f++) {
				snprintf(leaf, sizeof(leaf), "f%u", f);
				workdir_tree_path(cfg, c, d, leaf, path, sizeof(path));
				rc = wd->ops->create(wd->ctl, path, data, cfg->file_size);
				if (rc < 0)
					return fail(wd, err, len, "cannot write a --mix file", rc);
			}
		}
	}
	return 0;
}

int workdir_trees_remove(struct workdir *wd, char *err, size_t len)
{
	struct engine_stat st;
	char path[400];
	int rc = 0;

	for (unsigned c = 0; c < wd->cfg->connections; c++) {
		snprintf(path, sizeof(path), "/%s/c%u", wd->cfg->dir, c);
		/* A run that failed while making them may not have made them all. */
		if (wd->ops->stat(wd->ctl, path, &st) == -ENOENT)
			continue;
		rc |= remove_tree(wd, path, 2);
	}
	return rc ? fail(wd, err, len, "cannot remove a --mix tree", -EIO) : 0;
}

int workdir_held_remove(struct workdir *wd, char *err, size_t len)
{
	char path[320];
	int bad = 0;

	for (unsigned c = 0; c < wd->cfg->connections; c++)
		for (unsigned i = 0; i < wd->cfg->open_files; i++) {
			wl_held_name(wd->cfg->dir, c, i, path, sizeof(path));
			if (wd->ops->unlink(wd->ctl, path) < 0 &&
			    wd->ops->stat(wd->ctl, path, &(struct engine_stat){ 0 }) != -ENOENT)
				bad++;
		}
	return bad ? fail(wd, err, len, "cannot remove a held file", -EIO) : 0;
}

/* "/<dir>/<path>": a replay name below the export. */
static void replay_path(const struct config *cfg, const struct replay_plan *p, uint32_t i,
			char *buf, size_t len)
{
	snprintf(buf, len, "/%s/%s", cfg->dir, p->paths[i]);
}

/* Removes path, whatever it is (a directory with what the replay left in it). */
static int remove_any(struct workdir *wd, const char *path, const struct engine_stat *st)
{
	return st->is_dir ? remove_tree(wd, path, 8) : wd->ops->unlink(wd->ctl, path);
}

int workdir_replay_make(struct workdir *wd, const struct replay_plan *p, char *err, size_t len)
{
	char path[400], what[460];
	int rc;

	for (uint32_t i = 1; i < p->nnodes; i++) {
		const struct replay_node *n = &p->nodes[i];
		struct engine_stat st;
		bool exists;

		if (!p->paths[i])
			continue;
		replay_path(wd->cfg, p, i, path, sizeof(path));
		if ((rc = wd->ops->stat(wd->ctl, path, &st)) < 0 && rc != -ENOENT)
			return fail(wd, err, len, "--replay: cannot look at a name", rc);
		exists = rc == 0;
		rc = 0;
		if (n->file != UINT32_MAX) {
			/* Made by workdir_prepare; sparse to the size its reads need. */
			if (exists && st.size == p->file_size[n->file])
				continue;
			rc = wd->ops->truncate(wd->ctl, path, p->file_size[n->file]);
			snprintf(what, sizeof(what), "--replay: cannot size %s", path);
		} else if (exists && (!n->before || st.is_dir != n->dir)) {
			/* Left by an earlier replay: the replay makes it itself, or it is of the
			 * wrong kind. */
			rc = remove_any(wd, path, &st);
			snprintf(what, sizeof(what), "--replay: cannot remove %s", path);
			if (rc == 0 && n->before)
				i--;	/* made afresh below, on the next turn */
		} else if (!exists && n->before) {
			rc = n->dir ? wd->ops->mkdir(wd->ctl, path) :
				      wd->ops->create(wd->ctl, path, NULL, 0);
			snprintf(what, sizeof(what), "--replay: cannot make %s", path);
		}
		if (rc < 0)
			return fail(wd, err, len, what, rc);
	}
	return 0;
}

int workdir_replay_remove(struct workdir *wd, const struct replay_plan *p, char *err, size_t len)
{
	char path[400];
	int bad = 0;

	for (uint32_t i = p->nnodes; i-- > 1;) {
		struct engine_stat st;

		if (!p->paths[i] || p->nodes[i].file != UINT32_MAX)
			continue;
		replay_path(wd->cfg, p, i, path, sizeof(path));
		if (wd->ops->stat(wd->ctl, path, &st) == 0 && remove_any(wd, path, &st) < 0)
			bad = -EIO;
	}
	if (bad)
		snprintf(err, len, "--replay: some names the replay made could not be removed");
	return bad;
}
