/*
 * The libnfs engine's control connection: one synchronous libnfs context
 * for the work directory (workdir.c says what to do with it).
 *
 * The mount is driven by our own poll loop rather than nfs_mount(), to see
 * which ports the server was reached on (rpcbind may have named them), and
 * a failed mount gets a hint a newcomer can act on.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/clock.h"
#include "libnfs.h"

#define RPCBIND_PORT 111

struct engine_ctl {
	const struct engine_params *cfg;
	struct nfs_context *nfs;
	unsigned seen[4];	/* server ports the mount talked to, in order */
	unsigned nseen;
	char ports[160];
	char error[300];
};

static void note_port(struct engine_ctl *ctl, int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	unsigned port;

	if (fd < 0 || getpeername(fd, (struct sockaddr *)&ss, &len) < 0)
		return;
	port = ss.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&ss)->sin6_port) :
	       ntohs(((struct sockaddr_in *)&ss)->sin_port);
	if (ctl->nseen && ctl->seen[ctl->nseen - 1] == port)
		return;
	if (ctl->nseen == sizeof(ctl->seen) / sizeof(ctl->seen[0]))
		memmove(ctl->seen, ctl->seen + 1, sizeof(ctl->seen) - sizeof(ctl->seen[0]));
	else
		ctl->nseen++;
	ctl->seen[ctl->nseen - 1] = port;
}

/* "NFS port 2049 (from rpcbind), MOUNT port 20048 (from rpcbind)" */
static void describe_ports(struct engine_ctl *ctl)
{
	const struct engine_params *cfg = ctl->cfg;
	unsigned nfs = ctl->nseen ? ctl->seen[ctl->nseen - 1] : 0, mnt = 0;
	size_t n;

	for (unsigned i = 0; i + 1 < ctl->nseen; i++)
		if (ctl->seen[i] != RPCBIND_PORT && ctl->seen[i] != nfs)
			mnt = ctl->seen[i];
	n = (size_t)snprintf(ctl->ports, sizeof(ctl->ports), "NFS port %u (%s)", nfs,
			     cfg->nfsport ? "given" : cfg->nfs_version == 4 ? "the default" :
			     "from rpcbind");
	if (cfg->nfs_version == 3 && n < sizeof(ctl->ports))
		snprintf(ctl->ports + n, sizeof(ctl->ports) - n, ", MOUNT port %u (%s)",
			 mnt ? mnt : nfs, cfg->mountport ? "given" : "from rpcbind");
}

struct mount_wait {
	bool done;
	int status;
	char why[200];
};

static void mount_cb(int status, struct nfs_context *nfs, void *data, void *priv)
{
	struct mount_wait *w = priv;

	(void)nfs;
	w->done = true;
	w->status = status;
	if (status < 0 && data)
		snprintf(w->why, sizeof(w->why), "%s", (const char *)data);
}

/* nfs_mount, watching the ports on the way. 0 or -errno, the reason in w->why. */
static int mount_watched(struct engine_ctl *ctl, const char *server, const char *path,
			 struct mount_wait *w)
{
	uint64_t deadline = now_ns() + ctl->cfg->timeout_ns + UINT64_C(1000000000);

	if (nfs_mount_async(ctl->nfs, server, path, mount_cb, w) < 0)
		return -EIO;
	while (!w->done) {
		struct pollfd pfd = { .fd = nfs_get_fd(ctl->nfs),
				      .events = (short)nfs_which_events(ctl->nfs) };

		if (now_ns() > deadline) {
			snprintf(w->why, sizeof(w->why), "no answer within --timeout");
			return -ETIMEDOUT;
		}
		/* 100 ms: libnfs checks its timeouts only when serviced. */
		if (poll(&pfd, 1, 100) < 0 && errno != EINTR)
			return -errno;
		note_port(ctl, pfd.fd);
		if (nfs_service(ctl->nfs, pfd.revents) < 0) {
			const char *e = nfs_get_error(ctl->nfs);

			snprintf(w->why, sizeof(w->why), "%s", e && *e ? e : "connection failed");
			return -EIO;
		}
		note_port(ctl, nfs_get_fd(ctl->nfs));
	}
	return w->status < 0 ? w->status : 0;
}

/* 0 if host:port accepts a TCP connection within 2 s, else -errno (-ECONNREFUSED...). */
static int probe(const char *host, unsigned port)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;
	char service[12];
	int fd, rc = -EHOSTUNREACH;

	snprintf(service, sizeof(service), "%u", port);
	if (getaddrinfo(host, service, &hints, &ai))
		return -EHOSTUNREACH;
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd >= 0) {
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
			rc = 0;
		} else if (errno == EINPROGRESS) {
			struct pollfd pfd = { .fd = fd, .events = POLLOUT };
			int soerr = ETIMEDOUT;
			socklen_t len = sizeof(soerr);

			if (poll(&pfd, 1, 2000) == 1)
				getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len);
			rc = -soerr;
		} else {
			rc = -errno;
		}
		close(fd);
	}
	freeaddrinfo(ai);
	return rc;
}

/* Why a mount failed, in words a newcomer can act on. */
static void mount_error(struct engine_ctl *ctl, const struct mount_wait *w, char *err, size_t len)
{
	const struct engine_params *cfg = ctl->cfg;
	unsigned tries[3], n = 0;
	char head[ENGINE_URL_MAX + 300];

	snprintf(head, sizeof(head), "cannot mount %s:%s (NFSv%d)", cfg->host, cfg->path,
		 cfg->nfs_version);
	if (strstr(w->why, "MNT3ERR_ACCES") || strstr(w->why, "MNT3ERR_NOENT")) {
		snprintf(err, len, "%s: %s (the export path may not exist, or not be exported to "
			 "this host)", head, w->why);
		return;
	}
	if (strstr(w->why, "NFS4ERR_NOENT")) {
		snprintf(err, len, "%s: %s (no such path in the server's NFSv4 namespace: check "
			 "the export path)", head, w->why);
		return;
	}
	/* Nothing listening? libnfs only says "nfs_service failed": ask the ports ourselves. */
	if (cfg->nfs_version == 3)
		tries[n++] = cfg->mountport ? cfg->mountport : RPCBIND_PORT;
	tries[n++] = cfg->nfsport ? cfg->nfsport : cfg->nfs_version == 4 ? 2049 : 0;
	for (unsigned i = 0; i < n; i++) {
		if (!tries[i] || probe(cfg->host, tries[i]) != -ECONNREFUSED)
			continue;
		snprintf(err, len, "%s: connection refused at %s:%u (is the server running? %s)",
			 head, cfg->host, tries[i],
			 tries[i] == cfg->mountport ? "is mountport right?" :
			 tries[i] == RPCBIND_PORT && !cfg->mountport ?
			 "no rpcbind there: give nfsport= and mountport= in the URL" :
			 "is nfsport right?");
		return;
	}
	snprintf(err, len, "%s: %s", head, w->why[0] ? w->why : "mount failed");
}

static int ctl_mount(struct engine_ctl *ctl, char *err, size_t len)
{
	const struct engine_params *cfg = ctl->cfg;
	struct mount_wait w = { 0 };
	struct nfs_url *url;
	int rc;

	if (ctl->nfs)
		nfs_destroy_context(ctl->nfs);
	ctl->nseen = 0;
	ctl->nfs = libnfs_context(cfg, "ctl", err, len);
	if (!ctl->nfs)
		return -ENOMEM;
	url = nfs_parse_url_dir(ctl->nfs, cfg->canon_url);
	if (!url) {
		const char *e = nfs_get_error(ctl->nfs);

		snprintf(err, len, "URL: %s", e && *e ? e : "libnfs cannot parse it");
		return -EINVAL;
	}
	rc = mount_watched(ctl, url->server, url->path, &w);
	nfs_destroy_url(url);
	if (rc < 0) {
		mount_error(ctl, &w, err, len);
		return rc;
	}
	describe_ports(ctl);
	return 0;
}

static int ctl_open(const struct engine_params *cfg, struct engine_ctl **out, char *err, size_t len)
{
	struct engine_ctl *ctl = calloc(1, sizeof(*ctl));

	*out = ctl;
	if (!ctl) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	ctl->cfg = cfg;
	return ctl_mount(ctl, err, len);
}

static void ctl_free(struct engine_ctl *ctl)
{
	if (!ctl)
		return;
	if (ctl->nfs)
		nfs_destroy_context(ctl->nfs);
	free(ctl);
}

/* Keeps libnfs's words for error(); returns rc as -errno. */
static int done(struct engine_ctl *ctl, int rc)
{
	if (rc < 0) {
		const char *e = nfs_get_error(ctl->nfs);

		/* libnfs's words for a socket that failed under it (reset, refused, closed). */
		if (e && strstr(e, "nfs_service failed"))
			e = "the connection to the server was lost (reset or closed)";
		snprintf(ctl->error, sizeof(ctl->error), "%s", e && *e ? e : strerror(-rc));
	}
	return rc < 0 ? rc : 0;
}

static int ctl_stat(struct engine_ctl *ctl, const char *path, struct engine_stat *st)
{
	struct nfs_stat_64 s;
	int rc = nfs_stat64(ctl->nfs, path, &s);

	if (rc < 0)
		return done(ctl, rc);
	st->is_dir = S_ISDIR(s.nfs_mode);
	st->is_reg = S_ISREG(s.nfs_mode);
	st->size = s.nfs_size;
	return 0;
}

static int ctl_mkdir(struct engine_ctl *ctl, const char *path)
{
	return done(ctl, nfs_mkdir(ctl->nfs, path));
}

static int ctl_create(struct engine_ctl *ctl, const char *path, const void *data, uint64_t len)
{
	struct nfsfh *fh;
	int rc;

	/* libnfs 4.0 over NFSv4 treats O_CREAT as O_EXCL: callers create what is missing. */
	rc = nfs_open2(ctl->nfs, path, O_CREAT | O_WRONLY, 0644, &fh);
	if (rc < 0)
		return done(ctl, rc);
	if (len)
		rc = shim_pwrite(ctl->nfs, fh, data, 0, len);
	if (rc < 0)
		done(ctl, rc);
	nfs_close(ctl->nfs, fh);
	return rc < 0 ? rc : 0;
}

static int ctl_truncate(struct engine_ctl *ctl, const char *path, uint64_t size)
{
	return done(ctl, nfs_truncate(ctl->nfs, path, size));
}

static int ctl_unlink(struct engine_ctl *ctl, const char *path)
{
	return done(ctl, nfs_unlink(ctl->nfs, path));
}

static int ctl_rmdir(struct engine_ctl *ctl, const char *path)
{
	return done(ctl, nfs_rmdir(ctl->nfs, path));
}

static int ctl_readdir(struct engine_ctl *ctl, const char *path,
		       int (*fn)(void *arg, const char *name, bool is_dir), void *arg)
{
	struct nfsdir *dir;
	struct nfsdirent *e;
	int rc = nfs_opendir(ctl->nfs, path, &dir);

	if (rc < 0)
		return done(ctl, rc);
	while ((e = nfs_readdir(ctl->nfs, dir)))
		if (strcmp(e->name, ".") && strcmp(e->name, "..") &&
		    fn(arg, e->name, S_ISDIR(e->mode)))
			break;
	nfs_closedir(ctl->nfs, dir);
	return 0;
}

static const char *ctl_error(struct engine_ctl *ctl)
{
	return ctl->error;
}

static const char *ctl_ports(struct engine_ctl *ctl)
{
	return ctl->ports;
}

const struct engine_ctl_ops libnfs_ctl_ops = {
	.open = ctl_open,
	.reopen = ctl_mount,
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
