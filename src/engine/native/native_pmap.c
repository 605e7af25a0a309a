/*
 * native_pmap: the native engine's synchronous calls on connections of their
 * own: rpcbind's GETPORT for the servers' ports at start (their addresses
 * into the engine instance: NFS, MOUNT, NFSv3 locks' NLM), and UMNT at the end.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "native_pmap.h"
#include "codec/nlm4x.h"
#include "v3/native_nlm.h"

#define PMAP_PROGRAM 100000
#define PMAP_VERS 2
#define PMAP_GETPORT 3
#define PMAP_TIMEOUT_MS 3000

/* Waits for fd to be ready for events until deadline: 0, or -ETIMEDOUT/-errno. */
static int wait_fd(int fd, short events, uint64_t deadline)
{
	struct pollfd p = { .fd = fd, .events = events };
	uint64_t now = now_ns();
	int rc;

	if (now >= deadline)
		return -ETIMEDOUT;
	rc = poll(&p, 1, (int)((deadline - now) / 1000000) + 1);
	if (rc < 0)
		return errno == EINTR ? 0 : -errno;
	return rc == 0 ? -ETIMEDOUT : 0;
}

struct one_reply {
	uint8_t buf[512];
	size_t len;
	bool done;
};

static int keep_reply(void *arg, const uint8_t *rec, size_t len)
{
	struct one_reply *r = arg;

	if (len > sizeof(r->buf))
		return -EBADMSG;
	memcpy(r->buf, rec, len);
	r->len = len;
	r->done = true;
	return 1;
}

/*
 * One call on a connection of its own, synchronously: out[0..n) (a whole
 * record) to sa, its reply's record into reply; 0 or -errno (-ETIMEDOUT
 * past deadline).
 */
static int sync_call(const struct sockaddr *sa, socklen_t len, const uint8_t *out, size_t n,
		     struct one_reply *reply, uint64_t deadline)
{
	struct rpc_rec rec;
	uint8_t in[512];
	size_t sent = 0;
	int fd, rc;

	fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	rpc_rec_init(&rec, sizeof(reply->buf));
	rc = connect(fd, sa, len) < 0 && errno != EINPROGRESS ? -errno : 0;
	while (rc == 0 && sent < n) {
		ssize_t w;

		if ((rc = wait_fd(fd, POLLOUT, deadline)) < 0)
			break;
		w = send(fd, out + sent, n - sent, MSG_NOSIGNAL);
		if (w < 0 && errno != EAGAIN && errno != EINTR)
			rc = -errno;
		else if (w > 0)
			sent += (size_t)w;
	}
	while (rc == 0 && !reply->done) {
		ssize_t r;

		if ((rc = wait_fd(fd, POLLIN, deadline)) < 0)
			break;
		r = recv(fd, in, sizeof(in), 0);
		if (r == 0)
			rc = -ECONNRESET;
		else if (r < 0 && errno != EAGAIN && errno != EINTR)
			rc = -errno;
		else if (r > 0 && (rc = rpc_rec_feed(&rec, in, (size_t)r, keep_reply, reply)) > 0)
			rc = 0;
	}
	close(fd);
	rpc_rec_destroy(&rec);
	return rc;
}

/* Asks rpcbind at sa (port 111) for prog/vers over TCP: 0, or -errno with why in err. */
static int pmap_getport(const struct sockaddr *sa, socklen_t len, uint32_t prog, uint32_t vers,
			unsigned *port, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	uint64_t deadline = now_ns() + (uint64_t)PMAP_TIMEOUT_MS * 1000000;
	struct one_reply reply = { .len = 0 };
	struct rpc_reply rh;
	uint8_t out[128];
	uint32_t p = 0, prot = IPPROTO_TCP, zero = 0;
	size_t n;
	int rc;
	XDR x;

	memcpy(&ss, sa, len);
	if (ss.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&ss)->sin6_port = htons(111);
	else
		((struct sockaddr_in *)&ss)->sin_port = htons(111);
	if (!rpc_start_call(&x, out, sizeof(out), 1, PMAP_PROGRAM, PMAP_VERS, PMAP_GETPORT, NULL) ||
	    !xdr_u_int(&x, &prog) || !xdr_u_int(&x, &vers) || !xdr_u_int(&x, &prot) ||
	    !xdr_u_int(&x, &zero))
		return -EINVAL;
	n = rpc_finish_call(&x, out, 0);
	xdr_destroy(&x);
	rc = sync_call((struct sockaddr *)&ss, len, out, n, &reply, deadline);
	if (rc < 0) {
		snprintf(err, errlen, "rpcbind (port 111): %s (give %s in the URL, or start rpcbind)",
			 strerror(-rc), prog == NLM_PROGRAM ? "nlmport=" : "nfsport= and mountport=");
		return rc;
	}
	xdrmem_create(&x, (char *)reply.buf, (u_int)reply.len, XDR_DECODE);
	rc = rpc_decode_reply(&x, &rh);
	if (rc == 0)
		rc = rpc_reply_errno(&rh);
	if (rc == 0 && !xdr_u_int(&x, &p))
		rc = -EBADMSG;
	xdr_destroy(&x);
	if (rc == 0 && p == 0)
		rc = -EPROTONOSUPPORT;
	if (rc < 0) {
		snprintf(err, errlen, "rpcbind knows no %s version %u over TCP (%s)%s",
			 prog == MOUNT_PROGRAM ? "MOUNT" : prog == NLM_PROGRAM ? "NLM" : "NFS", vers,
			 strerror(-rc), prog == NLM_PROGRAM ? ": is NLM enabled on the server? "
			 "(nlmport= in the URL gives its port)" : "");
		return rc;
	}
	*port = p;
	return 0;
}

/*
 * UMNT of the export, as a kernel client sends it at umount: one for the
 * run (every connection's MNT named the same export from this host). Its
 * answer changes nothing for the run: 0 or -errno, said nowhere else.
 */
int nat_umnt(const struct nat_engine *e, const struct engine_params *cfg, const struct rpc_cred *cred)
{
	uint64_t deadline = now_ns() + (uint64_t)PMAP_TIMEOUT_MS * 1000000;
	struct one_reply reply = { .len = 0 };
	const struct sockaddr *sa;
	struct rpc_reply rh;
	uint8_t out[1200];
	socklen_t len;
	size_t n;
	int rc;
	XDR x;

	sa = nat_addr(e, cfg->srv_index, true, &len);
	if (!rpc_start_call(&x, out, sizeof(out), 1, MOUNT_PROGRAM, MOUNT_V3, MNT3_UMNT, cred) ||
	    !mnt3_enc_mnt(&x, cfg->path))
		return -EINVAL;
	n = rpc_finish_call(&x, out, 0);
	xdr_destroy(&x);
	if ((rc = sync_call(sa, len, out, n, &reply, deadline)) < 0)
		return rc;
	xdrmem_create(&x, (char *)reply.buf, (u_int)reply.len, XDR_DECODE);
	rc = rpc_decode_reply(&x, &rh);
	if (rc == 0)
		rc = rpc_reply_errno(&rh);
	xdr_destroy(&x);
	return rc;
}

static void set_port(struct sockaddr_storage *ss, unsigned port)
{
	if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons((uint16_t)port);
	else
		((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)port);
}

/* Server i's addresses (rpcbind asked for the ports not given). */
int nat_resolve(struct nat_engine *e, const struct engine_params *cfg, unsigned i, char *note, size_t len)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_protocol = IPPROTO_TCP };
	const struct engine_server *sv = &cfg->server[i];
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
	memcpy(&e->nfs_addr[i], ai->ai_addr, ai->ai_addrlen);
	e->addr_len[i] = ai->ai_addrlen;
	freeaddrinfo(ai);
	e->mnt_addr[i] = e->nfs_addr[i];
	port = sv->nfsport;
	if (!port && cfg->nfs_version == 4)
		port = 2049;
	if (!port && (rc = pmap_getport((struct sockaddr *)&e->nfs_addr[i], e->addr_len[i],
					NFS_PROGRAM, NFS_V3, &port, note, len)) < 0)
		return rc;
	set_port(&e->nfs_addr[i], port);
	port = sv->mountport;
	if (cfg->nfs_version == 3 && !port &&
	    (rc = pmap_getport((struct sockaddr *)&e->mnt_addr[i], e->addr_len[i], MOUNT_PROGRAM,
			       MOUNT_V3, &port, note, len)) < 0)
		return rc;
	set_port(&e->mnt_addr[i], port);
	/* NFSv3's locks: NLM v4, asked of rpcbind like MOUNT unless nlmport= gives it. */
	if (!nat_nlm_wanted(cfg))
		return 0;
	e->nlm_addr[i] = e->nfs_addr[i];
	port = sv->nlmport;
	if (!port && (rc = pmap_getport((struct sockaddr *)&e->nlm_addr[i], e->addr_len[i],
					NLM_PROGRAM, NLM_V4, &port, note, len)) < 0)
		return rc;
	set_port(&e->nlm_addr[i], port);
	return 0;
}
