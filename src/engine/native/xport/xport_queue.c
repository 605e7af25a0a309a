/*
 * xport_queue: a socket's send queue (see xport_int.h): segments in a ring,
 * pointing either at the caller's bytes (xport_put_ref: a WRITE's data, sent
 * without a copy) or at chunks of bytes copied in (xport_put: headers), and
 * what a send consumed of them. It calls nothing of the transport: xport.c
 * asks for the send once bytes are queued.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "xport_int.h"

#define XP_CHUNK (64u * 1024)		/* copied bytes are kept in chunks this large */

struct xp_seg *xp_seg_at(struct xport_sock *s, unsigned i)
{
	return &s->seg[(s->seg_head + i) & (s->seg_cap - 1)];
}

static int seg_push(struct xport_sock *s, const uint8_t *p, size_t n, struct xp_chunk *c)
{
	if (s->seg_n == s->seg_cap) {
		unsigned cap = s->seg_cap ? s->seg_cap * 2 : 16, i;
		struct xp_seg *seg = malloc(cap * sizeof(*seg));

		if (!seg)
			return -ENOMEM;
		for (i = 0; i < s->seg_n; i++)
			seg[i] = *xp_seg_at(s, i);
		free(s->seg);
		s->seg = seg;
		s->seg_cap = cap;
		s->seg_head = 0;
	}
	*xp_seg_at(s, s->seg_n++) = (struct xp_seg){ p, n, c };
	return 0;
}

/* The last segment, if it may still grow (it is not in a sendmsg). */
static struct xp_seg *seg_open_tail(struct xport_sock *s)
{
	if (s->seg_n == 0 || s->seg_n <= s->seg_busy)
		return NULL;
	return xp_seg_at(s, s->seg_n - 1);
}

/* Frees the chunks whose bytes are all sent; the last one is reused. */
static void chunks_release(struct xport_sock *s)
{
	while (s->c_head && s->c_head->done == s->c_head->used) {
		struct xp_chunk *c = s->c_head;

		if (!c->next) {
			c->used = c->done = 0;
			break;
		}
		s->c_head = c->next;
		if (!s->c_spare && c->cap == XP_CHUNK)
			s->c_spare = c;
		else
			free(c);
	}
}

void xp_queue_consume(struct xport_sock *s, size_t n)
{
	s->sent_end += n;
	if (s->stamp && n)
		stamp_tx_sent(&s->tx, s->sent_end);
	while (n > 0 && s->seg_n > 0) {
		struct xp_seg *g = xp_seg_at(s, 0);
		size_t k = n < g->n ? n : g->n;

		g->p += k;
		g->n -= k;
		n -= k;
		if (g->c)
			g->c->done += k;
		if (g->n == 0) {
			s->seg_head = (s->seg_head + 1) & (s->seg_cap - 1);
			s->seg_n--;
		}
	}
	chunks_release(s);
}

void xp_chunk_free_list(struct xp_chunk *c)
{
	while (c) {
		struct xp_chunk *next = c->next;

		free(c);
		c = next;
	}
}

void xp_queue_drop(struct xport_sock *s)
{
	xp_chunk_free_list(s->c_head);
	free(s->c_spare);
	s->c_head = s->c_tail = s->c_spare = NULL;
	s->seg_head = s->seg_n = s->seg_busy = 0;
}

unsigned xp_iov_fill(struct xport_sock *s, unsigned max, size_t *bytes)
{
	unsigned n = s->seg_n < max ? s->seg_n : max, i;

	if (n > s->iov_cap) {
		unsigned cap = s->iov_cap ? s->iov_cap : 8;
		struct iovec *iov;

		while (cap < n)
			cap *= 2;
		iov = realloc(s->iov, cap * sizeof(*iov));
		if (!iov)
			n = s->iov_cap;
		else {
			s->iov = iov;
			s->iov_cap = cap;
		}
	}
	*bytes = 0;
	for (i = 0; i < n; i++) {
		struct xp_seg *g = xp_seg_at(s, i);

		s->iov[i].iov_base = (void *)g->p;
		s->iov[i].iov_len = g->n;
		*bytes += g->n;
	}
	return n;
}

int xp_queue_put(struct xport_sock *s, const void *p, size_t n)
{
	struct xp_chunk *c;
	struct xp_seg *g;
	uint8_t *dst;

	if (n == 0)
		return 0;
	c = s->c_tail;
	if (!c || c->cap - c->used < n) {
		if (s->c_spare && n <= s->c_spare->cap) {
			c = s->c_spare;
			s->c_spare = NULL;
		} else {
			size_t cap = n > XP_CHUNK ? n : XP_CHUNK;

			c = malloc(sizeof(*c) + cap);
			if (!c)
				return -ENOMEM;
			c->cap = cap;
		}
		c->next = NULL;
		c->used = c->done = 0;
		if (s->c_tail)
			s->c_tail->next = c;
		else
			s->c_head = c;
		s->c_tail = c;
	}
	dst = c->data + c->used;
	memcpy(dst, p, n);
	g = seg_open_tail(s);
	if (g && g->c == c && g->p + g->n == dst)
		g->n += n;
	else if (seg_push(s, dst, n, c) < 0)
		return -ENOMEM;
	c->used += n;
	s->out_end += n;
	return 0;
}

int xp_queue_put_ref(struct xport_sock *s, const void *p, size_t n)
{
	struct xp_seg *g;

	if (n == 0)
		return 0;
	g = seg_open_tail(s);
	if (g && !g->c && g->p + g->n == (const uint8_t *)p)
		g->n += n;
	else if (seg_push(s, p, n, NULL) < 0)
		return -ENOMEM;
	s->out_end += n;
	return 0;
}
