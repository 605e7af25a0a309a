/*
 * xport_stamp: wire time on a socket (xport.h, --wire-time). Turns the
 * kernel's software timestamps on (SO_TIMESTAMPING), reads the send
 * timestamps from the socket's error queue when a reply asks for one, and
 * receives with the control message that carries a receive's time (the
 * epoll kind here; the ring's multishot recvmsg in xport_uring.c). What the
 * timestamps mean and how they map to bytes: stamp.h.
 */
#include <errno.h>
#include <linux/net_tstamp.h>
#include <string.h>
#include <sys/socket.h>

#include "stamp.h"
#include "xport_int.h"

#ifndef SOF_TIMESTAMPING_OPT_ID_TCP
#define SOF_TIMESTAMPING_OPT_ID_TCP (1 << 16)	/* Linux 6.2 */
#endif

#define STAMP_KEEP_MIN 256u	/* send timestamps kept per socket, at least */
#define STAMP_DRAIN_MAX 4096	/* error queue messages read per call, at most */
#define STAMP_BATCH 16		/* ... per recvmmsg */

int xport_stamp_on(struct xport_sock *s, unsigned depth)
{
	int flags = SOF_TIMESTAMPING_SOFTWARE | SOF_TIMESTAMPING_TX_SOFTWARE |
		    SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_OPT_ID |
		    SOF_TIMESTAMPING_OPT_TSONLY | SOF_TIMESTAMPING_OPT_ID_TCP;
	unsigned keep = depth * 8 > STAMP_KEEP_MIN ? depth * 8 : STAMP_KEEP_MIN;

	if (!s || s->state != XP_OPEN)
		return -ENOTCONN;
	if (s->stamp)
		return 0;
	if (s->x && s->x->shared_bufs)
		return -EOPNOTSUPP;	/* xport_want_stamps came too late */
	/* Without OPT_ID_TCP (before 6.2) keys count from the last byte acked,
	 * which is the last byte sent while no request is in flight. */
	if (setsockopt(s->fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof(flags)) < 0) {
		flags &= ~SOF_TIMESTAMPING_OPT_ID_TCP;
		if (errno != EINVAL ||
		    setsockopt(s->fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof(flags)) < 0)
			return -errno;
	}
	if (stamp_tx_init(&s->tx, keep, s->sent_end) < 0)
		return -ENOMEM;
	s->stamp = true;
	return 0;
}

void xport_want_stamps(struct xport *x)
{
	x->stamps = true;
}

void xp_stamp_off(struct xport_sock *s)
{
	if (s->stamp)
		stamp_tx_free(&s->tx);
	s->stamp = false;
	s->out_end = s->sent_end = s->rx_ns = 0;
}

uint64_t xport_out_end(const struct xport_sock *s)
{
	return s->out_end;
}

/* Reads every send timestamp the error queue holds (leaving one there would
 * keep the socket's error readiness up, and wake the loop for nothing):
 * STAMP_BATCH messages per recvmmsg, which stops early at an empty queue, so
 * one call usually empties it. */
void xp_stamp_drain(struct xport_sock *s)
{
	static _Thread_local union {
		uint8_t b[STAMP_BATCH][STAMP_CMSG_SPACE];
		struct cmsghdr align;
	} ctl;
	struct mmsghdr m[STAMP_BATCH];

	for (int round = 0; round < STAMP_DRAIN_MAX / STAMP_BATCH; round++) {
		int n;

		memset(m, 0, sizeof(m));
		for (int i = 0; i < STAMP_BATCH; i++) {
			m[i].msg_hdr.msg_control = ctl.b[i];
			m[i].msg_hdr.msg_controllen = sizeof(ctl.b[i]);
		}
		n = recvmmsg(s->fd, m, STAMP_BATCH, MSG_ERRQUEUE | MSG_DONTWAIT, NULL);
		if (n < 0 && errno == EINTR)
			continue;
		for (int i = 0; i < n; i++) {
			uint32_t key;
			uint64_t ns;

			if (stamp_tx_cmsg(&m[i].msg_hdr, &key, &ns))
				stamp_tx_add(&s->tx, key, ns);
		}
		if (n < STAMP_BATCH)
			return;
	}
}

int xport_tx_time(struct xport_sock *s, uint64_t end, uint64_t *ns)
{
	int rc;

	if (!s || !s->stamp || s->state != XP_OPEN)
		return -ENOENT;
	rc = stamp_tx_find(&s->tx, end, ns);
	if (rc == -EAGAIN) {
		xp_stamp_drain(s);
		rc = stamp_tx_find(&s->tx, end, ns);
	}
	return rc == 0 ? 0 : -ENOENT;
}

uint64_t xport_rx_time(const struct xport_sock *s)
{
	return s ? s->rx_ns : 0;
}

ssize_t xp_stamp_recv(struct xport_sock *s, void *p, size_t n)
{
	union {
		uint8_t b[STAMP_CMSG_SPACE];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { .iov_base = p, .iov_len = n };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t r;

	s->rx_ns = 0;
	if (!s->stamp)
		return recv(s->fd, p, n, MSG_DONTWAIT);
	m.msg_control = ctl.b;
	m.msg_controllen = sizeof(ctl.b);
	r = recvmsg(s->fd, &m, MSG_DONTWAIT);
	if (r > 0)
		s->rx_ns = stamp_rx_cmsg(&m);
	return r;
}
