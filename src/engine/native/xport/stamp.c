/*
 * stamp: the TX timestamps of one stream by byte offset, and the control
 * messages that carry timestamps (see stamp.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>
#include <netinet/in.h>
#include <linux/errqueue.h>

#include "stamp.h"

int stamp_tx_init(struct stamp_tx *t, unsigned cap, uint64_t base)
{
	unsigned c = 16;

	while (c < cap)
		c <<= 1;
	t->end = malloc(c * sizeof(*t->end));
	t->ns = malloc(c * sizeof(*t->ns));
	if (!t->end || !t->ns) {
		stamp_tx_free(t);
		return -ENOMEM;
	}
	t->cap = c;
	t->head = t->n = 0;
	t->base = t->gone = base;
	return 0;
}

void stamp_tx_free(struct stamp_tx *t)
{
	free(t->end);
	free(t->ns);
	t->end = t->ns = NULL;
	t->cap = t->n = 0;
}

static unsigned at(const struct stamp_tx *t, unsigned i)
{
	return (t->head + i) & (t->cap - 1);
}

void stamp_tx_sent(struct stamp_tx *t, uint64_t end)
{
	unsigned i;

	if (!t->cap || (t->n && t->end[at(t, t->n - 1)] >= end))
		return;
	if (t->n == t->cap) {
		t->gone = t->end[t->head];
		t->head = at(t, 1);
		t->n--;
	}
	i = at(t, t->n++);
	t->end[i] = end;
	t->ns[i] = 0;
}

/* The first kept send whose end is at least end: its place, or t->n. */
static unsigned first_reaching(const struct stamp_tx *t, uint64_t end)
{
	unsigned lo = 0, hi = t->n;

	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;

		if (t->end[at(t, mid)] >= end)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

void stamp_tx_add(struct stamp_tx *t, uint32_t key, uint64_t ns)
{
	uint64_t newest, end;
	unsigned k;

	if (!t->n || !ns)
		return;
	/* The key's 32 bits, unwrapped near the newest send (keys trail it). */
	newest = t->end[at(t, t->n - 1)] - t->base - 1;
	end = t->base + newest + (uint64_t)(int64_t)(int32_t)(key - (uint32_t)newest) + 1;
	k = first_reaching(t, end);
	if (k < t->n && t->end[at(t, k)] == end && !t->ns[at(t, k)])
		t->ns[at(t, k)] = ns;
}

int stamp_tx_find(const struct stamp_tx *t, uint64_t end, uint64_t *ns)
{
	unsigned k;

	if (end <= t->gone)
		return -ENOENT;
	k = first_reaching(t, end);
	if (k == t->n || t->end[at(t, k)] - end > STAMP_TX_TAIL)
		return -ENOENT;
	if (!t->ns[at(t, k)])
		return -EAGAIN;
	*ns = t->ns[at(t, k)];
	return 0;
}

static uint64_t ts_ns(const struct cmsghdr *c)
{
	const struct scm_timestamping *tss = (const void *)CMSG_DATA(c);

	if (c->cmsg_len < CMSG_LEN(sizeof(*tss)))
		return 0;
	return (uint64_t)tss->ts[0].tv_sec * 1000000000u + (uint64_t)tss->ts[0].tv_nsec;
}

static bool is_ts(const struct cmsghdr *c)
{
	return c->cmsg_level == SOL_SOCKET &&
	       (c->cmsg_type == SO_TIMESTAMPING_OLD || c->cmsg_type == SO_TIMESTAMPING_NEW);
}

uint64_t stamp_rx_cmsg(const struct msghdr *m)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR((struct msghdr *)m, c))
		if (is_ts(c))
			return ts_ns(c);
	return 0;
}

int stamp_tx_cmsg(const struct msghdr *m, uint32_t *key, uint64_t *ns)
{
	bool have_key = false;
	uint64_t t = 0;

	for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR((struct msghdr *)m, c)) {
		if (is_ts(c)) {
			t = ts_ns(c);
		} else if ((c->cmsg_level == SOL_IP && c->cmsg_type == IP_RECVERR) ||
			   (c->cmsg_level == SOL_IPV6 && c->cmsg_type == IPV6_RECVERR)) {
			const struct sock_extended_err *e = (const void *)CMSG_DATA(c);

			if (c->cmsg_len >= CMSG_LEN(sizeof(*e)) && e->ee_errno == ENOMSG &&
			    e->ee_origin == SO_EE_ORIGIN_TIMESTAMPING &&
			    e->ee_info == SCM_TSTAMP_SND) {
				*key = e->ee_data;
				have_key = true;
			}
		}
	}
	if (!have_key || !t)
		return 0;
	*ns = t;
	return 1;
}
