/*
 * xport_sync: the blocking calls of the control path (xport_sync_send,
 * xport_sync_recv): poll with a deadline on a socket the loop is not
 * watching at the moment.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

#include "xport_int.h"

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits until fd is ready for ev or the deadline (ms, CLOCK_MONOTONIC; < 0: none). */
static int wait_fd(int fd, short ev, int64_t deadline)
{
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = ev };
		int64_t left = deadline < 0 ? -1 : deadline - now_ms();
		int r;

		if (deadline >= 0 && left < 0)
			left = 0;
		r = poll(&pfd, 1, left > INT_MAX ? INT_MAX : (int)left);
		if (r > 0)
			return 0;
		if (r == 0)
			return -ETIMEDOUT;
		if (errno != EINTR)
			return -errno;
	}
}

static int64_t deadline_of(int timeout_ms)
{
	return timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
}

/* Sends iov[0..cnt) (advanced in place) before the deadline; *sent counts. */
static int sync_sendv(int fd, struct iovec *iov, int cnt, int64_t deadline, size_t *sent)
{
	*sent = 0;
	while (cnt > 0) {
		struct msghdr m = { .msg_iov = iov, .msg_iovlen = (size_t)(cnt < IOV_MAX ? cnt : IOV_MAX) };
		ssize_t r;
		int rc;

		if (iov->iov_len == 0) {
			iov++;
			cnt--;
			continue;
		}
		r = sendmsg(fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				return -errno;
			if ((rc = wait_fd(fd, POLLOUT, deadline)) < 0)
				return rc;
			continue;
		}
		*sent += (size_t)r;
		while (r > 0) {
			size_t k = (size_t)r < iov->iov_len ? (size_t)r : iov->iov_len;

			iov->iov_base = (uint8_t *)iov->iov_base + k;
			iov->iov_len -= k;
			r -= (ssize_t)k;
			if (iov->iov_len == 0) {
				iov++;
				cnt--;
			}
		}
	}
	return 0;
}

int xport_sync_send(struct xport_sock *s, const struct iovec *iov, int iovcnt, int timeout_ms)
{
	int64_t deadline = deadline_of(timeout_ms);
	struct iovec *copy;
	size_t total = 0, sent;
	int i, rc;

	if (!s || s->state != XP_OPEN)
		return -ENOTCONN;
	if (s->x)
		return -EBUSY;
	if (iovcnt < 0)
		return -EINVAL;
	while (s->seg_n) {
		size_t bytes, done;
		unsigned n = xp_iov_fill(s, IOV_MAX, &bytes);

		if (n == 0)
			return -ENOMEM;
		rc = sync_sendv(s->fd, s->iov, (int)n, deadline, &done);
		xp_queue_consume(s, done);
		if (rc < 0)
			return rc;
	}
	copy = malloc(((size_t)iovcnt + 1) * sizeof(*copy));
	if (!copy)
		return -ENOMEM;
	for (i = 0; i < iovcnt; i++) {
		copy[i] = iov[i];
		total += iov[i].iov_len;
	}
	rc = sync_sendv(s->fd, copy, iovcnt, deadline, &sent);
	s->out_end += sent;
	s->sent_end += sent;
	if (s->stamp && sent)
		stamp_tx_sent(&s->tx, s->sent_end);
	free(copy);
	if (rc < 0)
		return rc;
	return total > INT_MAX ? INT_MAX : (int)total;
}

ssize_t xport_sync_recv(struct xport_sock *s, void *p, size_t n, int timeout_ms)
{
	int64_t deadline = deadline_of(timeout_ms);

	if (!s || s->state != XP_OPEN)
		return -ENOTCONN;
	if (s->x)
		return -EBUSY;
	if (s->stash_len > s->stash_off) {
		size_t k = s->stash_len - s->stash_off;

		if (k > n)
			k = n;
		memcpy(p, s->stash + s->stash_off, k);
		s->stash_off += k;
		if (s->stash_off == s->stash_len) {
			free(s->stash);
			s->stash = NULL;
			s->stash_off = s->stash_len = 0;
		}
		return (ssize_t)k;
	}
	for (;;) {
		ssize_t r = recv(s->fd, p, n, MSG_DONTWAIT);
		int rc;

		if (r >= 0)
			return r;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return -errno;
		if ((rc = wait_fd(s->fd, POLLIN, deadline)) < 0)
			return rc;
	}
}
