/*
 * local_ctl: the local engine's directory. The checks made while the
 * options are parsed (the path is a directory; --direct works there, with a
 * --bs it accepts), so that a bad run stops with a usage error before the
 * work directory exists; and the control table workdir.c drives, over plain
 * syscalls relative to an O_PATH descriptor of the directory (a name never
 * leaves it: workdir.c's names are one directory below, checked by config).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "local.h"

#define LOCAL_TMPFS_MAGIC 0x01021994
#define LOCAL_RAMFS_MAGIC 0x858458f6

struct engine_ctl {
	const struct engine_params *cfg;
	int dirfd;
	char error[512];
	char fs[64];			/* for the report: the filesystem beneath */
};

const char *local_rel(const char *path)
{
	while (*path == '/')
		path++;
	return *path ? path : ".";
}

static const char *fs_name(long type, char *buf, size_t len)
{
	static const struct { long magic; const char *name; } known[] = {
		{ 0x6969, "nfs" }, { 0xEF53, "ext4" }, { 0x58465342, "xfs" },
		{ 0x9123683E, "btrfs" }, { LOCAL_TMPFS_MAGIC, "tmpfs" }, { 0x794c7630, "overlay" },
		{ 0xFF534D42, "cifs" }, { 0x65735546, "fuse" }, { 0xF2F52010, "f2fs" },
		{ 0x2FC12FC1, "zfs" }, { 0x6E667364, "nfsd" }, { LOCAL_RAMFS_MAGIC, "ramfs" },
	};

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (known[i].magic == type)
			return known[i].name;
	snprintf(buf, len, "type 0x%lx", (unsigned long)type);
	return buf;
}

/*
 * --direct: an unnamed file (O_TMPFILE) opened O_DIRECT says whether the
 * filesystem takes it, and statx its alignment, with nothing left behind.
 * tmpfs takes O_DIRECT since Linux 6.6 but its files are the page cache:
 * nothing to bypass, so it is refused like a filesystem that fails the open.
 */
static int check_direct(const struct engine_params *cfg, long fstype, char *err, size_t len)
{
	const char *fix = "use a directory on a disk filesystem or an NFS mount, or leave "
			  "out --direct";
	unsigned block = 512;
	struct statx sx;
	char buf[32];
	int fd;

	if (fstype == LOCAL_TMPFS_MAGIC || fstype == LOCAL_RAMFS_MAGIC)
		return config_fail(err, len, "--direct: '%s' is on %s, which has no direct I/O "
			    "(its files live in the page cache); %s", cfg->path,
			    fs_name(fstype, buf, sizeof(buf)), fix);
	fd = open(cfg->path, O_TMPFILE | O_RDWR | O_DIRECT | O_CLOEXEC, 0600);
	if (fd < 0 && errno == EINVAL)
		return config_fail(err, len, "--direct: the filesystem of '%s' (%s) refuses O_DIRECT; "
			    "%s", cfg->path, fs_name(fstype, buf, sizeof(buf)), fix);
	/* No unnamed files there (NFS): its files are opened O_DIRECT at set-up. */
	if (fd >= 0) {
		if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &sx) < 0)
			sx.stx_mask = 0;
		if ((sx.stx_mask & STATX_DIOALIGN) && sx.stx_dio_offset_align == 0) {
			close(fd);
			return config_fail(err, len, "--direct: the filesystem of '%s' (%s) has no "
				    "direct I/O for files; %s", cfg->path,
				    fs_name(fstype, buf, sizeof(buf)), fix);
		}
		if ((sx.stx_mask & STATX_DIOALIGN) && sx.stx_dio_offset_align > block)
			block = sx.stx_dio_offset_align;
		close(fd);
	}
	if (cfg->bs % block)
		return config_fail(err, len, "--bs: a multiple of %u with --direct (the logical "
			    "block size of '%s')", block, cfg->path);
	if (cfg->size % cfg->bs)
		return config_fail(err, len, "--size: a multiple of --bs with --direct (O_DIRECT "
			    "moves whole blocks)");
	return 0;
}

int local_check_dir(const struct engine_params *cfg, char *err, size_t len)
{
	struct statfs sf;
	struct stat st;

	if (stat(cfg->path, &st) < 0)
		return config_fail(err, len, "'%s': %s (--engine local takes an existing "
			    "directory)", cfg->path, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return config_fail(err, len, "'%s' is not a directory (--engine local takes an "
			    "existing directory)", cfg->path);
	if (statfs(cfg->path, &sf) < 0)
		return config_fail(err, len, "'%s': %s", cfg->path, strerror(errno));
	return cfg->opt.direct ? check_direct(cfg, (long)sf.f_type, err, len) : 0;
}

int local_dir_open(const struct engine_params *cfg, char *err, size_t len)
{
	int fd = open(cfg->path, O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0) {
		int rc = -errno;

		snprintf(err, len, "cannot open '%s': %s", cfg->path, strerror(-rc));
		return rc;
	}
	return fd;
}

static int ctl_fail(struct engine_ctl *ctl, const char *what, const char *path)
{
	int rc = -errno;

	snprintf(ctl->error, sizeof(ctl->error), "%s %.200s/%.200s: %s", what, ctl->cfg->path,
		 local_rel(path), strerror(-rc));
	return rc;
}

static int ctl_reopen(struct engine_ctl *ctl, char *err, size_t len)
{
	struct statfs sf;
	char buf[32];
	int fd = local_dir_open(ctl->cfg, err, len);

	if (fd < 0)
		return fd;
	if (ctl->dirfd >= 0)
		close(ctl->dirfd);
	ctl->dirfd = fd;
	if (fstatfs(fd, &sf) == 0)
		snprintf(ctl->fs, sizeof(ctl->fs), "filesystem %s",
			 fs_name((long)sf.f_type, buf, sizeof(buf)));
	return 0;
}

static int ctl_open(const struct engine_params *cfg, struct engine_ctl **out, char *err, size_t len)
{
	struct engine_ctl *ctl = calloc(1, sizeof(*ctl));
	int rc;

	*out = ctl;
	if (!ctl) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	ctl->cfg = cfg;
	ctl->dirfd = -1;
	rc = ctl_reopen(ctl, err, len);
	return rc < 0 ? rc : 0;
}

static void ctl_free(struct engine_ctl *ctl)
{
	if (!ctl)
		return;
	if (ctl->dirfd >= 0)
		close(ctl->dirfd);
	free(ctl);
}

static int ctl_stat(struct engine_ctl *ctl, const char *path, struct engine_stat *st)
{
	struct stat sb;

	if (fstatat(ctl->dirfd, local_rel(path), &sb, AT_SYMLINK_NOFOLLOW) < 0)
		return ctl_fail(ctl, "stat", path);
	st->is_dir = S_ISDIR(sb.st_mode);
	st->is_reg = S_ISREG(sb.st_mode);
	st->size = (uint64_t)sb.st_size;
	return 0;
}

static int ctl_mkdir(struct engine_ctl *ctl, const char *path)
{
	return mkdirat(ctl->dirfd, local_rel(path), 0755) < 0 ? ctl_fail(ctl, "mkdir", path) : 0;
}

/* A new file only (O_EXCL): nothing that was there before is ever truncated. */
static int ctl_create(struct engine_ctl *ctl, const char *path, const void *data, uint64_t len)
{
	const char *p = data;
	int fd = openat(ctl->dirfd, local_rel(path),
			O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);

	if (fd < 0)
		return ctl_fail(ctl, "create", path);
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int rc = n < 0 ? ctl_fail(ctl, "write", path) : -EIO;

			close(fd);
			return rc;
		}
		p += n;
		len -= (uint64_t)n;
	}
	return close(fd) < 0 ? ctl_fail(ctl, "close", path) : 0;
}

static int ctl_truncate(struct engine_ctl *ctl, const char *path, uint64_t size)
{
	int fd = openat(ctl->dirfd, local_rel(path), O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	int rc = 0;

	if (fd < 0)
		return ctl_fail(ctl, "open", path);
	if (ftruncate(fd, (off_t)size) < 0)
		rc = ctl_fail(ctl, "truncate", path);
	close(fd);
	return rc;
}

static int ctl_unlink(struct engine_ctl *ctl, const char *path)
{
	return unlinkat(ctl->dirfd, local_rel(path), 0) < 0 ? ctl_fail(ctl, "unlink", path) : 0;
}

static int ctl_rmdir(struct engine_ctl *ctl, const char *path)
{
	return unlinkat(ctl->dirfd, local_rel(path), AT_REMOVEDIR) < 0 ?
	       ctl_fail(ctl, "rmdir", path) : 0;
}

static int ctl_readdir(struct engine_ctl *ctl, const char *path,
		       int (*fn)(void *arg, const char *name, bool is_dir), void *arg)
{
	int fd = openat(ctl->dirfd, local_rel(path), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct dirent *e;
	DIR *d;

	if (fd < 0)
		return ctl_fail(ctl, "readdir", path);
	if (!(d = fdopendir(fd))) {
		int rc = ctl_fail(ctl, "readdir", path);

		close(fd);
		return rc;
	}
	while ((e = readdir(d))) {
		bool is_dir = e->d_type == DT_DIR;
		struct stat sb;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (e->d_type == DT_UNKNOWN &&
		    fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0)
			is_dir = S_ISDIR(sb.st_mode);
		if (fn(arg, e->d_name, is_dir))
			break;
	}
	closedir(d);
	return 0;
}

static const char *ctl_error(struct engine_ctl *ctl)
{
	return ctl->error;
}

static const char *ctl_ports(struct engine_ctl *ctl)
{
	return ctl->fs;
}

const struct engine_ctl_ops local_ctl_ops = {
	.open = ctl_open,
	.reopen = ctl_reopen,
	.free = ctl_free,
	.stat = ctl_stat,
	.mkdir = ctl_mkdir,
	.create = ctl_create,
	.truncate = ctl_truncate,
	.unlink = ctl_unlink,
	.rmdir = ctl_rmdir,
	.readdir = ctl_readdir,
	.error = ctl_error,
	.ports = ctl_ports,
};
