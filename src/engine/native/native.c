/*
 * The native engine: NFSv3 and NFSv4.1 spoken by nfsload itself, one TCP
 * connection per engine connection, on the worker's loop through xport.c
 * (an io_uring per thread, or epoll where io_uring cannot be used).
 *
 * This file: the engine table, process-wide addresses, threads, --max-load's
 * lowat, and a connection's life: connect, attach, drop, close. NFSv3 set-up
 * is in native_v3.c, calls in flight in native_call.c, requests in
 * native_ops.c, NFSv4.1 sessions in native_v4.c and native_sess.c, names in
 * native_meta*.c, the control connection in native_ctl.c.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "native.h"

#define SCRATCH_LEN 65536

const char *const nat_steps[] = { "MOUNT", "OPEN", NULL };

/* Set once per run in init(), before any thread; read-only after. One per server. */
static struct sockaddr_storage nfs_addr[CFG_SERVERS_MAX], mnt_addr[CFG_SERVERS_MAX];
static socklen_t addr_len[CFG_SERVERS_MAX];
static bool use_uring;
static char transport_note[512];

bool nat_mount_apart(void)
{
	return memcmp(&mnt_addr[0], &nfs_addr[0], sizeof(nfs_addr[0])) != 0;
}

const struct sockaddr *nat_addr(unsigned srv, bool mount, socklen_t *len)
{
	*len = addr_len[srv];
	return (const struct sockaddr *)(mount ? &mnt_addr[srv] : &nfs_addr[srv]);
}

static unsigned addr_port(const struct sockaddr_storage *ss)
{
	return ntohs(ss->ss_family == AF_INET6 ? ((const struct sockaddr_in6 *)ss)->sin6_port :
		     ((const struct sockaddr_in *)ss)->sin_port);
}

static void set_port(struct sockaddr_storage *ss, unsigned port)
{
	if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons((uint16_t)port);
	else
		((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)port);
}

bool nat_v4(const struct engine_conn *c)
{
	return c->cfg->nfs_version == 4;
}

void nat_set_error(struct engine_conn *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->error, sizeof(c->error), fmt, ap);
	va_end(ap);
}

static int check(const struct config *cfg, char *err, size_t len)
{
	if (cfg->nfs_version != 3 && cfg->nfs_version != 4)
		return config_fail(err, len, "URL: version=%d: the native engine speaks version=3 "
				   "and version=4.1", cfg->nfs_version);
	if (cfg->bs > (1u << 20))
		return config_fail(err, len, "--bs: the native engine moves at most 1 MiB per "
				   "request (try --bs 1m)");
	if (cfg->conns_per_session > 1 && cfg->nfs_version != 4)
		return config_fail(err, len, "--connections-per-session: sessions are NFSv4.1's "
				   "(version=4.1 in the URL)");
	/* A session may span threads (each thread its own slots), but not come up short. */
	if (cfg->conns_per_session > 1 && cfg->connections % cfg->conns_per_session)
		return config_fail(err, len, "--connections-per-session %u: sessions are whole, so "
				   "--connections (%u) must be a multiple of %u", cfg->conns_per_session,
				   cfg->connections, cfg->conns_per_session);
	if ((cfg->meta || cfg->small_files) && cfg->file_size > (1u << 20))
		return config_fail(err, len, "--file-size: the native engine moves at most 1 MiB per "
				   "request (try --file-size 1m)");
	return 0;
}

static uint64_t max_io(const struct config *cfg)
{
	(void)cfg;
	return 1u << 20;
}

/* Server i's addresses (rpcbind asked for the ports not given). */
static int resolve(const struct config *cfg, unsigned i, char *note, size_t len)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_protocol = IPPROTO_TCP };
	const struct cfg_server *sv = &cfg->server[i];
	struct addrinfo *ai;
	char host[256];
	size_t n = strlen(sv->host);
	unsigned port;
	int rc;

	/* "[::1]" in a URL is "::1" to getaddrinfo. */
	snprintf(host, sizeof(host), "%s", sv->host);
	if (n > 2 && host[0] == '[' && host[n - 1] == ']') {
		memmove(host, host + 1, n - 2);
		host[n - 2] = '\0';
	}
	rc = getaddrinfo(host, NULL, &hints, &ai);
	if (rc) {
		snprintf(note, len, "cannot resolve '%s': %s", host, gai_strerror(rc));
		return -EHOSTUNREACH;
	}
	memcpy(&nfs_addr[i], ai->ai_addr, ai->ai_addrlen);
	addr_len[i] = ai->ai_addrlen;
	freeaddrinfo(ai);
	mnt_addr[i] = nfs_addr[i];
	port = sv->nfsport;
	if (!port && cfg->nfs_version == 4)
		port = 2049;
	if (!port && (rc = nat_pmap_getport((struct sockaddr *)&nfs_addr[i], addr_len[i],
					    NFS_PROGRAM, NFS_V3, &port, note, len)) < 0)
		return rc;
	set_port(&nfs_addr[i], port);
	port = sv->mountport;
	if (cfg->nfs_version == 3 && !port &&
	    (rc = nat_pmap_getport((struct sockaddr *)&mnt_addr[i], addr_len[i], MOUNT_PROGRAM,
				   MOUNT_V3, &port, note, len)) < 0)
		return rc;
	set_port(&mnt_addr[i], port);
	return 0;
}

static int init(const struct config *cfg, char *note, size_t len)
{
	char why[160];
	int rc;

	note[0] = '\0';
	nat_retried(true);
	for (unsigned i = 0; i < cfg->nservers; i++)
		if ((rc = resolve(cfg, i, note, len)) < 0)
			return rc;
	use_uring = false;
	if (getenv("NFSLOAD_IO_URING") && strcmp(getenv("NFSLOAD_IO_URING"), "0") == 0) {
		snprintf(transport_note, sizeof(transport_note),
			 "native: sockets on epoll (NFSLOAD_IO_URING=0)");
	} else if (xport_probe(why, sizeof(why)) < 0) {
		snprintf(transport_note, sizeof(transport_note),
			 "native: sockets on epoll, io_uring unavailable (%s)", why);
	} else {
		use_uring = true;
		snprintf(transport_note, sizeof(transport_note), "native: sockets on io_uring");
	}
	if (cfg->nfs_version == 4)
		snprintf(transport_note + strlen(transport_note),
			 sizeof(transport_note) - strlen(transport_note), "; version=4 is NFSv4.1");
	rc = nat_tap_init(cfg, why, sizeof(why));
	if (rc < 0) {
		snprintf(note, len, "--wire-source tap: %s", why);
		return rc;
	}
	if (cfg->wire_time)
		snprintf(transport_note + strlen(transport_note),
			 sizeof(transport_note) - strlen(transport_note),
			 "; wire time from %s%s%s%s", nat_tap_used() ? "a packet tap" :
			 "socket timestamps", why[0] ? " (" : "", why, why[0] ? ")" : "");
	return 0;
}

static const char *limits_note(const struct config *cfg)
{
	static char note[sizeof(transport_note) + 400];
	char sess[400];
	size_t n = (size_t)snprintf(note, sizeof(note), "%s", transport_note);

	if (cfg->nfs_version == 4) {
		nat_sess_note(cfg, sess, sizeof(sess));
		if (sess[0] && n < sizeof(note))
			n += (size_t)snprintf(note + n, sizeof(note) - n, "; %s", sess);
	}
	if (nat_retried(false) && n < sizeof(note))
		snprintf(note + n, sizeof(note) - n, "; %lu requests sent again after the server "
			 "said later (NFS4ERR_DELAY, GRACE, NFS3ERR_JUKEBOX) or a listing "
			 "raced a remove", nat_retried(false));
	return note;
}

/* --max-load (lowat.h): the connection's socket. */
static int apply_lowat(struct lowat *l, int bytes)
{
	struct engine_conn *c = (struct engine_conn *)((char *)l - offsetof(struct engine_conn, lw));

	return c->state == NS_READY ? xport_set_lowat(c->sock, bytes) : -1;
}

static struct engine_thread *thread_new(const struct config *cfg, struct ev_loop *loop)
{
	struct engine_thread *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->cfg = cfg;
	t->loop = loop;
	t->scratch_len = SCRATCH_LEN;
	t->scratch = malloc(t->scratch_len);
	t->xp = xport_new(loop, use_uring, cfg->connections + 16);
	if (t->xp && cfg->wire_time && !nat_tap_used())
		xport_want_stamps(t->xp);
	lowat_set_init(&t->lowat, loop, apply_lowat);
	if (!t->scratch || !t->xp) {
		xport_free(t->xp);
		free(t->scratch);
		free(t);
		return NULL;
	}
	return t;
}

static void thread_free(struct engine_thread *t)
{
	if (!t)
		return;
	lowat_set_stop(&t->lowat);
	nat_known_free(t);
	nat_tap_thread_free(t);
	xport_free(t->xp);
	free(t->scratch);
	free(t);
}

static int conn_new(const struct config *cfg, unsigned id, const uint32_t *file_ids,
		    uint32_t nfiles, struct engine_conn **out)
{
	struct engine_conn *c = calloc(1, sizeof(*c));
	char host[64];

	if (!c)
		return -ENOMEM;
	c->cfg = cfg;
	c->id = id;
	c->srv = config_server_of(cfg, id);
	c->nfiles = nfiles;
	c->file_ids = malloc(nfiles * sizeof(*c->file_ids) + 1);
	c->files = calloc(nfiles + 1, sizeof(*c->files));
	c->sock = xport_sock_new();
	if (!c->file_ids || !c->files || !c->sock || nat_calls_init(c, cfg->iodepth + 8) < 0 ||
	    (cfg->nfs_version == 4 && nat_sess_join(c) < 0))
		goto fail;
	memcpy(c->file_ids, file_ids, nfiles * sizeof(*file_ids));
	rpc_rec_init(&c->rec, RPC_RECORD_MAX);
	if (gethostname(host, sizeof(host)) < 0)
		snprintf(host, sizeof(host), "nfsload");
	host[sizeof(host) - 1] = '\0';
	snprintf(c->cred.machine, sizeof(c->cred.machine), "%s", host);
	c->cred.uid = cfg->uid;
	c->cred.gid = cfg->gid;
	c->cred.stamp = (uint32_t)now_ns();
	ev_init(&c->retry_timer, nat_retry_cb);
	c->retry_timer.data = c;
	lowat_init(&c->lw, cfg);
	*out = c;
	return 0;
fail:
	nat_calls_destroy(c);
	xport_sock_free(c->sock);
	free(c->files);
	free(c->file_ids);
	free(c);
	return -ENOMEM;
}

void nat_step(struct engine_conn *c, unsigned step)
{
	uint64_t now = now_ns();

	if (c->cbs && c->cbs->step)
		c->cbs->step(c->owner, step, now - c->step_start_ns);
	c->step_start_ns = now;
}

static bool setting_up(const struct engine_conn *c)
{
	return c->state != NS_READY && c->state != NS_DOWN && c->state != NS_CLOSING;
}

void nat_setup_done(struct engine_conn *c, bool ok)
{
	nat_known_done(c, ok);
	if (!ok) {
		xport_close(c->sock);
		c->state = NS_DOWN;
	} else {
		c->state = NS_READY;
	}
	if (c->cbs)
		c->cbs->ready(c->owner, c, ok);
}

void nat_conn_fail(struct engine_conn *c)
{
	if (c->state == NS_DOWN)
		return;
	if (!c->error[0])
		nat_set_error(c, "connection lost");
	if (c->sess)
		nat_sess_conn_down(c);
	if (setting_up(c) || c->state == NS_CLOSING) {
		nat_setup_done(c, false);
		return;
	}
	xport_close(c->sock);
	c->state = NS_DOWN;
	if (c->cbs)
		c->cbs->lost(c->owner, c);
}

static void lost_cb(void *arg, int err)
{
	struct engine_conn *c = arg;

	if (err)
		nat_set_error(c, "connection lost: %s", strerror(-err));
	else
		nat_set_error(c, "connection lost: the server closed it");
	nat_conn_fail(c);
}

static void connected_cb(void *arg, int err);

static const struct xport_cbs sock_cbs = {
	.connected = connected_cb, .data = nat_data, .lost = lost_cb,
};

int nat_dial(struct engine_conn *c, bool mount)
{
	socklen_t len;
	const struct sockaddr *sa = nat_addr(c->srv, mount, &len);
	int rc;

	rpc_rec_reset(&c->rec);
	nat_calls_reset(c);
	lowat_reset(&c->lw);
	nat_tap_leave(c);
	c->rx_fed = c->rx_rec = 0;
	rc = xport_connect(c->sock, c->t->xp, sa, len, &sock_cbs, c);
	if (rc < 0)
		nat_set_error(c, "cannot connect to port %u: %s", addr_port((const void *)sa),
			      strerror(-rc));
	return rc;
}

static void connected_cb(void *arg, int err)
{
	struct engine_conn *c = arg;
	bool mount = c->state == NS_MOUNT_CONNECT;
	bool ok;

	if (err) {
		socklen_t len;
		const struct sockaddr *sa = nat_addr(c->srv, mount, &len);

		nat_set_error(c, "%s at %s port %u (is the server running? is %s right?)",
			      strerror(-err), c->cfg->server[c->srv].host, addr_port((const void *)sa),
			      mount ? "mountport" : "nfsport");
		nat_setup_done(c, false);
		return;
	}
	/* Not available (an old kernel): every reply counts as left out of wire time. */
	if (c->cfg->wire_time && !mount && !nat_tap_used())
		xport_stamp_on(c->sock, c->cfg->iodepth);
	if (nat_v4(c))
		ok = nat_v4_start(c) == 0;
	else
		ok = nat_v3_start(c, mount);
	if (!ok) {
		if (!c->error[0])
			nat_set_error(c, "cannot send the first call");
		nat_setup_done(c, false);
	}
}

static void drop(struct engine_conn *c)
{
	nat_known_forget(c);
	nat_retry_forget(c);
	if (c->sess)
		nat_v4_calls_lost(c);	/* their slots may have been taken: not used again */
	xport_close(c->sock);
	nat_tap_leave(c);
	nat_calls_reset(c);
	rpc_rec_reset(&c->rec);
	for (uint32_t i = 0; i < c->nfiles; i++)
		c->files[i].open = false;
	if (c->sess)
		nat_sess_conn_down(c);
	c->root.len = 0;
	c->pending = c->next_file = 0;
	c->have_verf = false;
	c->state = NS_DOWN;
}

int nat_known_go(struct engine_conn *c, enum nat_known_start how)
{
	bool mount = how == KNOWN_ASK && !nat_v4(c) && nat_mount_apart();
	int rc;

	c->state = mount ? NS_MOUNT_CONNECT : NS_CONNECT;
	if (how == KNOWN_WAIT)
		return 0;	/* dialled when the connection that asks is done */
	rc = nat_dial(c, mount);
	if (rc < 0)
		c->state = NS_DOWN;
	return rc;
}

static int connect_conn(struct engine_conn *c, struct engine_thread *t,
			const struct engine_cbs *cbs, void *owner)
{
	drop(c);
	c->t = t;
	c->cbs = cbs;
	c->owner = owner;
	c->error[0] = '\0';
	c->step_start_ns = now_ns();
	return nat_known_go(c, nat_known_start(c));
}

void nat_sock_attach(struct engine_conn *c, struct xport *xp)
{
	xport_attach(c->sock, xp, &sock_cbs, c);
}

static void attach(struct engine_conn *c, struct engine_thread *t, const struct engine_cbs *cbs,
		   void *owner)
{
	/* Its thread's share of its session: unreachable failure (a share is made per thread). */
	if (c->sess && nat_sess_thread(c, t) < 0) {
		nat_set_error(c, "no share of its session for its thread");
		xport_close(c->sock);
		c->state = NS_DOWN;
	}
	c->t = t;
	c->cbs = cbs;
	c->owner = owner;
	if (xport_is_open(c->sock))
		xport_attach(c->sock, t->xp, &sock_cbs, c);
	/* Failing, every reply is left out of wire time. */
	if (nat_tap_thread(t) == 0 && t->tap && c->state == NS_READY)
		nat_tap_join(c);
	if (c->cfg->max_load)
		lowat_watch(&t->lowat, &c->lw);
	if (c->retry_head)
		ev_timer_start(t->loop, &c->retry_timer);
}

static void detach(struct engine_conn *c)
{
	nat_known_forget(c);
	nat_tap_leave(c);
	lowat_unwatch(&c->lw);
	if (c->t)
		ev_timer_stop(c->t->loop, &c->retry_timer);
	if (xport_is_open(c->sock))
		xport_detach(c->sock);
	c->cbs = NULL;
	c->owner = NULL;
	c->t = NULL;	/* the loop's thread may be freed next (set-up's is) */
}

static void commit(struct engine_conn *c)
{
	/* xport sends every socket's queued records when the loop turn ends. */
	if (c->state == NS_READY)
		lowat_update(&c->lw, c->inflight, c->cfg->max_load);
}

static void tick(struct engine_conn *c)
{
	uint64_t now = now_ns();

	if (c->state == NS_DOWN)
		return;
	nat_calls_tick(c, now);
	if (c->state == NS_READY && nat_v4(c))
		nat_v4_tick(c, now);
}

static void close_files(struct engine_conn *c)
{
	if (c->state == NS_READY && nat_v4(c))
		nat_v4_close(c);
}

static void conn_free(struct engine_conn *c)
{
	if (!c)
		return;
	nat_known_forget(c);
	nat_tap_destroy(c);
	xport_sock_free(c->sock);
	rpc_rec_destroy(&c->rec);
	nat_calls_destroy(c);
	nat_sess_leave(c);
	nat_meta_free(c);
	free(c->files);
	free(c->file_ids);
	free(c);
}

static const char *conn_error(const struct engine_conn *c)
{
	return c->error;
}

const struct engine_ops engine_native = {
	.name = "native",
	.about = "native NFSv3/NFSv4.1 (libtirpc XDR, liburing sockets)",
	.needs_url = true,
	.wire_time = true,
	.steps = nat_steps,
	.check = check,
	.max_read = max_io,
	.max_write = max_io,
	.init = init,
	.limits_note = limits_note,
	.thread_new = thread_new,
	.thread_free = thread_free,
	.conn_new = conn_new,
	.connect = connect_conn,
	.attach = attach,
	.detach = detach,
	.queue = nat_queue,
	.commit = commit,
	.tick = tick,
	.drop = drop,
	.close = close_files,
	.free = conn_free,
	.error = conn_error,
	.ctl = &nat_ctl_ops,
};
