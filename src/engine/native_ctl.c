/*
 * The native engine's synchronous side: rpcbind lookups at start, and the
 * control connection for the work directory.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "native.h"

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

int nat_pmap_getport(const struct sockaddr *sa, socklen_t len, uint32_t prog, uint32_t vers,
		     unsigned *port, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	uint64_t deadline = now_ns() + (uint64_t)PMAP_TIMEOUT_MS * 1000000;
	struct one_reply reply = { .len = 0 };
	struct rpc_rec rec;
	struct rpc_reply rh;
	uint8_t out[128], in[512];
	uint32_t p = 0, prot = IPPROTO_TCP, zero = 0;
	size_t n, sent = 0;
	int fd, rc;
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
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	rpc_rec_init(&rec, sizeof(reply.buf));
	rc = connect(fd, (struct sockaddr *)&ss, len) < 0 && errno != EINPROGRESS ? -errno : 0;
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
	while (rc == 0 && !reply.done) {
		ssize_t r;

		if ((rc = wait_fd(fd, POLLIN, deadline)) < 0)
			break;
		r = recv(fd, in, sizeof(in), 0);
		if (r == 0)
			rc = -ECONNRESET;
		else if (r < 0 && errno != EAGAIN && errno != EINTR)
			rc = -errno;
		else if (r > 0 && (rc = rpc_rec_feed(&rec, in, (size_t)r, keep_reply, &reply)) > 0)
			rc = 0;
	}
	close(fd);
	rpc_rec_destroy(&rec);
	if (rc < 0) {
		snprintf(err, errlen, "rpcbind (port 111): %s (give nfsport= and mountport= in the "
			 "URL, or start rpcbind)", strerror(-rc));
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
		snprintf(err, errlen, "rpcbind knows no %s version %u over TCP (%s)",
			 prog == MOUNT_PROGRAM ? "MOUNT" : "NFS", vers, strerror(-rc));
		return rc;
	}
	*port = p;
	return 0;
}
